/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * cli.h - command-line pieces shared by the subcommands: argp parsing that
 * keeps bad input to one line on stderr and gives every command its
 * -h/--help and --usage, number parsers, and the argp children with the
 * workload and tracing options of `run` and `compare`, the workload's
 * shape (both), the live options (`trace`, `exporter`).
 */
#ifndef __FSS_CLI_H
#define __FSS_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <linux/types.h>
#include "doc/doc.h"
#include "lib/parse.h"
#include "workload/workload.h"

/*
 * argp_parse() of a command's argp, with -h/--help and -u/--usage added,
 * prog ("fsyncscope run") as the program name and every message argp or a
 * parser prints (argp_error) cut to its first line, as "LINE (try 'PROG
 * --help')".  argv[0] is not used.  Parsed with ARGP_NO_EXIT | ARGP_NO_HELP;
 * the help or usage asked for is printed on stdout once the whole command
 * line parsed (--help wins over --usage).  Returns true when the command
 * is done, to exit with *rc: 0 after the help or usage, 2 (a usage error)
 * after that one line; false: go on, the options are in input.
 */
bool fss_cli_parse(const struct argp *argp, int argc, char **argv,
		   void *input, const char *prog, int *rc);

/* "PROG: MSG (try 'PROG --help')" on stderr; returns 2 (a usage error). */
int fss_cli_usage_error(const char *prog, const char *msg);

/*
 * An output file option (-o, --save): checked now (fss_out_check), so a
 * result is never lost at the end of a long run; *out = arg, or one
 * argp_error line and EINVAL.
 */
int fss_cli_out_arg(struct argp_state *state, const char *opt,
		    const char *arg, const char **out);

/*
 * The options `run` and `compare` share, parsed by fss_cli_wl_argp (an argp
 * child: the command points state->child_inputs[i] at its struct
 * fss_cli_wl in ARGP_KEY_INIT, after setting the defaults).  Help groups:
 * 2 test length (-s, -n), 3 workload (--bs, --writes-per-sync, --jobs,
 * --file-size), 5 tracing and output; the command gives the headers.
 */
struct fss_cli_wl {
	double seconds;			/* -s, --runtime */
	bool seconds_set;
	__u64 count;			/* -n, --count; 0: not given */
	__u64 bs;			/* --bs */
	unsigned int wps;		/* --writes-per-sync */
	unsigned int jobs;		/* --jobs */
	bool jobs_set;
	__u64 file_size;		/* --file-size */
	bool file_size_set;
	bool workload_set;		/* any option of group 2 was given */
	bool no_trace;			/* --no-trace */
	const char *strategy;		/* --strategy, checked by the command */
	bool json;			/* -j, --json, or --format other than text */
	bool hist;			/* --hist: histograms under each row */
	enum fss_fmt format;		/* --format (text) */
	const char *output;		/* -o FILE, or NULL: stdout */
	int verbose;			/* -v, repeatable */
};

#define FSS_CLI_MAX_JOBS	1024

/* The defaults the help texts give: 5 s, 8k, 1 write, 1 job, 16m. */
void fss_cli_wl_defaults(struct fss_cli_wl *w);

extern const struct argp fss_cli_wl_argp;

/*
 * The workload's shape, which `run` and `compare` share: --method,
 * --pattern, --direct (help group 3; the command gives the header).  An
 * argp child, fss_cli_shape_argp[ONE] for run (one method; methods[0] is
 * fdatasync until --method says otherwise) or [LIST] for compare (a list
 * of different methods, a workload each; fsync_writethrough is none);
 * the command points state->child_inputs[i] at its struct fss_cli_shape
 * in ARGP_KEY_INIT, after fss_cli_shape_defaults().
 */
enum fss_cli_shape_kind { FSS_CLI_SHAPE_ONE, FSS_CLI_SHAPE_LIST };

struct fss_cli_shape {
	int methods[FSS_M_MAX];		/* --method: enum fss_method, in
					 * the order given */
	int nmethods;				/* 0: not given */
	enum fss_pattern pattern;		/* --pattern (overwrite) */
	bool pattern_set;
	bool direct;				/* --direct */
	bool set;				/* any of the three given */
};

void fss_cli_shape_defaults(struct fss_cli_shape *s);

extern const struct argp fss_cli_shape_argp[2];

/*
 * The options of the live commands (trace, exporter): which syncs and how
 * the tracer attaches.  An argp child, fss_cli_live_argp: the command
 * points state->child_inputs[i] at its struct fss_cli_live (zeroed) in
 * ARGP_KEY_INIT.  Help group 1 (what is traced) and 6 (-v, --strategy,
 * --calib-dir).  -p takes ids as given (1 to INT_MAX): whether they exist
 * (and are threads of which process) is the command's to check.
 */
#define FSS_CLI_MAX_PIDS	1024	/* size of the kernel's tgids filter map */

struct fss_cli_live {
	__u32 tgids[FSS_CLI_MAX_PIDS];	/* -p, repeatable */
	int ntgids;
	const char *comm;		/* -c */
	const char *mount;		/* --mount DIR */
	const char *calib_dir;		/* --calib-dir DIR */
	int strategy;			/* --strategy: an enum fss_strategy */
	int verbose;			/* -v, repeatable */
	__u32 sample;			/* --sample N (0: not given, = 1) */
	bool kernel_paint;		/* --painter kernel */
};

extern const struct argp fss_cli_live_argp;

/* --painter WHO (trace, exporter, run): user or kernel, else argp_error. */
error_t fss_cli_painter_arg(struct argp_state *state, const char *arg,
			    bool *kernel);
/*
 * --painter kernel was asked (asked) and the kernel paints (painted), or
 * not: then one line on stderr says user space paints instead.
 */
void fss_cli_painter_note(const char *prog, bool asked, bool painted);

#endif /* __FSS_CLI_H */

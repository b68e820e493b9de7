/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * findings_int.h - what the findings engine's files share (findings.c:
 * the list, subjects, order and JSON; findings_rules.c: the rules), and
 * nobody else.
 */
#ifndef __FSS_FINDINGS_INT_H
#define __FSS_FINDINGS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "findings/findings.h"
#include "lib/phase.h"

/* lib/phase.h's phases, by their short names here */
enum {
	PH_FS = FSS_PH_FS, PH_JOURNAL = FSS_PH_JOURNAL, PH_QUEUE = FSS_PH_QUEUE,
	PH_DWRITE = FSS_PH_DEV_WRITE, PH_DFLUSH = FSS_PH_DEV_FLUSH,
	PH_OTHER = FSS_PH_OTHER, NPH = FSS_PH_MAX
};

/* One finding as it is built. */
struct fnd {
	enum fss_find_sev sev;
	const char *id;
	char key[96];		/* id + what it is about: one finding per key */
	double weight;		/* order within a severity (a share, mostly) */
	char subject[160];
	char title[320];
	char evidence[1400];
	char advice[1200];
	const char *refs[3];
	struct json_object *figures;	/* the numbers the evidence quotes */
	int also;		/* other subjects it fired on too */
};

struct fnd_list {
	struct fnd *v;
	int n, cap;
};

/*
 * What a rule looks at: one run test, or the traced syncs of a trace
 * record.  NAN where the document has no such number.
 */
struct fnd_subj {
	const char *name;	/* "test custom.fdatasync", "all traced..." */
	struct json_object *doc, *obj;
	bool trace;
	double syncs;
	double share[NPH], mean_us[NPH];
	double flush_p50_us;	/* device_flush p50 per sync (run), else mean */
	double total_mean_us, total_p50_us;
	const char *fs;		/* "ext4", ... or NULL */
	const char *disk;	/* "loop1", "nvme0n1", ... or NULL */
	const char *write_cache;	/* "write back", ... or NULL */
	/*
	 * of syncs, the sync_file_range calls: they start writeback and
	 * never flush, and the fs hooks do not see them (their writeback
	 * submission is painted other, docs/model.md)
	 */
	double sfr;
};

/* A new finding in l (or the one with the same key, when this one weighs
 * more: then it is reset and reused); NULL when it weighs less. */
struct fnd *fnd_add(struct fnd_list *l, enum fss_find_sev sev, const char *id,
		    const char *key, double weight, const struct fnd_subj *s);
/* printf into a finding's field */
void fnd_set(char *dst, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fnd_cat(char *dst, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* the same into a field of finding f: FND_SET(f, title, "...", ...) */
#define FND_SET(f, field, ...) \
	fnd_set((f)->field, sizeof((f)->field), __VA_ARGS__)
#define FND_CAT(f, field, ...) \
	fnd_cat((f)->field, sizeof((f)->field), __VA_ARGS__)
void fnd_fig(struct fnd *f, const char *name, double v);
void fnd_figs(struct fnd *f, const char *name, const char *v);
/* "412 us", "3.21 ms", "1.043 s" */
const char *fnd_dur(char *buf, size_t n, double us);
bool fnd_is_loop(const char *disk);

/* The rules (findings_rules.c); each adds what it finds to l. */
void fnd_rule_phases(struct fnd_list *l, const struct fnd_subj *s);
void fnd_rule_flush_slow(struct fnd_list *l, const struct fnd_subj *s);
void fnd_rule_flush_missing(struct fnd_list *l, const struct fnd_subj *s,
			    double no_flush, double elided,
			    const char *mount_opts);
void fnd_rule_neighbour_run(struct fnd_list *l, const struct fnd_subj *s);
void fnd_rule_neighbour_trace(struct fnd_list *l, const struct fnd_subj *s);
void fnd_rule_tool(struct fnd_list *l, struct json_object *doc);
void fnd_rule_checkpoints(struct fnd_list *l, const struct fnd_subj *s);
void fnd_rule_log_flush(struct fnd_list *l, const struct fnd_subj *s);
void fnd_rule_wal_serial(struct fnd_list *l, const struct fnd_subj *s);
void fnd_rule_innodb_split(struct fnd_list *l, const struct fnd_subj *s);

#endif /* __FSS_FINDINGS_INT_H */

/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef __FSS_COMMANDS_H
#define __FSS_COMMANDS_H

/* Each subcommand parses its own options (argv[0] is the subcommand). */
int cmd_run(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_exporter(int argc, char **argv);

#endif

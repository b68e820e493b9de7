// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* PLACEHOLDER: being written (run command). */
#include <stdio.h>
#include "commands.h"
int cmd_run(int argc, char **argv) { fprintf(stderr, "fsyncscope run: not implemented yet\n"); return 1; }

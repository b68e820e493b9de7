// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* PLACEHOLDER: being written (devices command). */
#include <stdio.h>
#include "commands.h"
int cmd_devices(int argc, char **argv) { fprintf(stderr, "fsyncscope devices: not implemented yet\n"); return 1; }

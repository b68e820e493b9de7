/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * out_text_db.h - the database sections of trace's plain text, from its
 * document (a summary or interval object): FILE CLASSES and CHECKPOINTS.
 */
#ifndef __FSS_OUT_TEXT_DB_H
#define __FSS_OUT_TEXT_DB_H

#include <stdio.h>

struct json_object;

/* both sections; nothing when the report has neither */
void fss_text_db_sections(FILE *f, struct json_object *report);

#endif

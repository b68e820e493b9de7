/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * findings.h - from a breakdown to a diagnosis (docs/findings.md).
 *
 * Rules over a result document (doc/doc.h), nothing else: pure C over
 * json-c, no tracer, no sysfs.  Each finding says what is wrong (title),
 * the numbers of the document it rests on (evidence, figures), what to
 * change (advice) and where that is documented (refs).  The layer sits
 * above the document model and below the renderers: a command attaches
 * the findings to its document (fss_findings_attach); the renderers only
 * print the document's "findings".
 */
#ifndef __FSS_FINDINGS_H
#define __FSS_FINDINGS_H

#include <stdbool.h>

struct json_object;

/* The "findings_version" of a document's "findings" array. */
#define FSS_FINDINGS_VERSION		1

/*
 * Thresholds (docs/findings.md says why each).  Shares are of the traced
 * sync time; a phase rule needs FSS_FIND_MIN_SYNCS traced syncs.
 */
#define FSS_FIND_MIN_SYNCS		20
#define FSS_FIND_NEIGHBOUR_SHARE	0.20	/* of journal+queue+device */
#define FSS_FIND_FLUSH_SHARE		0.50	/* device_flush share */
#define FSS_FIND_FLUSH_FAST_US		50.0	/* verdict.h's line */
#define FSS_FIND_NOFLUSH_SHARE		0.10	/* syncs without a flush */
#define FSS_FIND_SLOW_MEAN_US		100.0	/* phase rules: warn from */
#define FSS_FIND_JOURNAL_SHARE		0.20
#define FSS_FIND_QUEUE_SHARE		0.25
#define FSS_FIND_FS_SHARE		0.50
#define FSS_FIND_BIG_SYNC_BYTES		(256 * 1024)	/* fs_bound advice */
#define FSS_FIND_OTHER_SHARE		0.25
#define FSS_FIND_INCOMPLETE_SHARE	0.01	/* syncs cut by the window */
#define FSS_FIND_CKPT_SHARE		0.25	/* of traced time in bursts */
#define FSS_FIND_WAL_BUSY		0.50	/* WAL syncs' time / wall time */

enum fss_find_sev { FSS_SEV_INFO, FSS_SEV_WARNING, FSS_SEV_CRITICAL };

/* "info", "warning", "critical" */
const char *fss_find_sev_name(enum fss_find_sev s);

/*
 * The findings of a run document or of a trace interval or summary
 * record: a new array, most important first, never empty (a healthy
 * result has one info line).  NULL for other kinds (they have none).
 */
struct json_object *fss_findings(struct json_object *doc);

/*
 * doc with "findings_version" and "findings" placed right after its
 * schema keys (and "type"): a new object holding doc's other members.
 * Puts doc.  Kinds without findings come back as they were.
 */
struct json_object *fss_findings_attach(struct json_object *doc);

#endif /* __FSS_FINDINGS_H */

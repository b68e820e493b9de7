/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The phase vocabulary, below both the engine and the renderers: the
 * phases a sync is split into, in the documents' order, their names in
 * the documents and their 3-letter column headers in text.
 */
#ifndef FSS_LIB_PHASE_H
#define FSS_LIB_PHASE_H

enum fss_phase {
	FSS_PH_FS = 0,
	FSS_PH_JOURNAL,
	FSS_PH_QUEUE,
	FSS_PH_DEV_WRITE,
	FSS_PH_DEV_FLUSH,
	FSS_PH_OTHER,
	FSS_PH_MAX,
};

/* "fs", "journal", "queue", "device_write", "device_flush", "other" */
const char *fss_phase_name(enum fss_phase ph);
/* "fs", "jrn", "que", "dwr", "dfl", "oth" */
const char *fss_phase_abbr(enum fss_phase ph);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The phase vocabulary (lib/phase.h). */
#include "lib/phase.h"

static const char *const names[FSS_PH_MAX] = {
	[FSS_PH_FS]		= "fs",
	[FSS_PH_JOURNAL]	= "journal",
	[FSS_PH_QUEUE]		= "queue",
	[FSS_PH_DEV_WRITE]	= "device_write",
	[FSS_PH_DEV_FLUSH]	= "device_flush",
	[FSS_PH_OTHER]		= "other",
};

static const char *const abbrs[FSS_PH_MAX] = {
	[FSS_PH_FS]		= "fs",
	[FSS_PH_JOURNAL]	= "jrn",
	[FSS_PH_QUEUE]		= "que",
	[FSS_PH_DEV_WRITE]	= "dwr",
	[FSS_PH_DEV_FLUSH]	= "dfl",
	[FSS_PH_OTHER]		= "oth",
};

const char *fss_phase_name(enum fss_phase ph)
{
	return (unsigned int)ph < FSS_PH_MAX ? names[ph] : "?";
}

const char *fss_phase_abbr(enum fss_phase ph)
{
	return (unsigned int)ph < FSS_PH_MAX ? abbrs[ph] : "?";
}

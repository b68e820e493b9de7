/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * out_prom.h - renders a snapshot of the metrics model (metrics.h) as
 * Prometheus text exposition 0.0.4 or OpenMetrics 1.0.0.  Reads only the
 * model.
 */
#ifndef __FSS_OUT_PROM_H
#define __FSS_OUT_PROM_H

#include <stddef.h>
#include "exporter/metrics.h"

enum fss_prom_fmt {
	FSS_PROM_TEXT = 0,	/* text/plain; version=0.0.4 */
	FSS_PROM_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

/* The format an HTTP Accept header asks for (NULL: text). */
enum fss_prom_fmt fss_prom_negotiate(const char *accept);
const char *fss_prom_content_type(enum fss_prom_fmt fmt);

/* A malloc'd buffer with the whole exposition (*len bytes); NULL: no memory. */
char *fss_prom_render(const struct fss_metrics *s, enum fss_prom_fmt fmt, size_t *len);

#endif /* __FSS_OUT_PROM_H */

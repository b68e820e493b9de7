/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The one version string: --version, every document (fss_doc_stamp),
 * the exporter's build info. */
#ifndef FSS_LIB_VERSION_H
#define FSS_LIB_VERSION_H

#define FSS_VERSION "0.1.0"

#endif

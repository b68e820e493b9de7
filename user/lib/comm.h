/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef FSS_LIB_COMM_H
#define FSS_LIB_COMM_H

#include <stddef.h>

/*
 * comm (at most len bytes, up to its NUL) as valid UTF-8 in out: valid
 * sequences kept, every other byte U+FFFD; control bytes are kept (the
 * JSON writer escapes them).  out holds at most outlen - 1 bytes and a
 * NUL; 3 * len + 5 bytes always hold all of it.
 */
void fss_comm_utf8(char *out, size_t outlen, const char *comm, size_t len);

/* Room for any cleaned comm of n bytes. */
#define FSS_COMM_UTF8_LEN(n)	(3 * (n) + 5)

#endif

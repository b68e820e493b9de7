// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The one comm cleaner (lib/comm.h): a task name as the kernel gives it
 * (any bytes, NUL-padded) to valid UTF-8 for the documents.
 */
#include <string.h>
#include "lib/comm.h"

void fss_comm_utf8(char *out, size_t outlen, const char *comm, size_t len)
{
	const unsigned char *s = (const unsigned char *)comm;
	size_t i = 0, o = 0;

	len = strnlen(comm, len);
	while (i < len && o + 4 < outlen) {
		unsigned char c = s[i];
		size_t need, k;
		unsigned int cp;

		if (c < 0x80) {
			out[o++] = (char)c;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			cp = c & 0x07;
		} else {
			need = 0;
			cp = 0;
		}
		for (k = 1; need && k <= need; k++) {
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80) {
				need = 0;
				break;
			}
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		/* no overlongs, surrogates or code points past U+10FFFF */
		if (need && ((need == 2 && cp < 0x800) ||
			     (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
			     (cp >= 0xd800 && cp <= 0xdfff)))
			need = 0;
		if (!need) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, s + i, need + 1);
		o += need + 1;
		i += need + 1;
	}
	out[o] = '\0';
}

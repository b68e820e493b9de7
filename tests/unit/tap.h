/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * tap.h - the C unit tests' one harness (header only: each test binary is
 * one translation unit over the sources it tests).
 *
 * A test file defines its cases as functions and lists them in a table:
 *
 *	static const struct tap_case cases[] = {
 *		{ "name", fn }, ...
 *	};
 *	TAP_MAIN(cases)
 *
 * The binary prints TAP: "1..N", then "ok K - name" or "not ok K - name"
 * per case, a failed check's "#   FAIL file:line: cond: why" lines before
 * its case's line, and "# C checks, F failures" last.
 *   test_x            every case
 *   test_x A B        only the cases named (an unknown name: one stderr
 *                     line, exit 2)
 *   test_x --list     the case names, one per line, in table order
 * Exit status: 0 when every check passed, 1 otherwise.
 */
#ifndef FSS_TESTS_TAP_H
#define FSS_TESTS_TAP_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct tap_case {
	const char *name;
	void (*fn)(void);
};

static int failures, checks;	/* over the whole run */

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		printf("#   FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__);					\
		putchar('\n');						\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	unsigned long long _a = (a), _b = (b);				\
	CHECK(_a == _b, "%s = %llu, expected %llu", #a, _a, _b);	\
} while (0)

#define CHECK_DBL(a, b) do {						\
	double _a = (a), _b = (b);					\
	CHECK(_a - _b < 1e-9 && _b - _a < 1e-9, "%s = %.9g, expected %.9g", \
	      #a, _a, _b);						\
} while (0)

#define HAS(s, needle) CHECK(strstr((s), (needle)) != NULL,		\
			     "'%s' not in '%s'", (needle), (s))
#define LACKS(s, needle) CHECK(strstr((s), (needle)) == NULL,		\
			       "'%s' unexpectedly in '%s'", (needle), (s))

/* Which cases argv names; false when a name is unknown (said on stderr). */
static bool tap__select(const struct tap_case *c, size_t n, int argc,
			char **argv, bool *run)
{
	size_t i;
	int j;

	for (i = 0; i < n; i++)
		run[i] = argc < 2;
	for (j = 1; j < argc; j++) {
		for (i = 0; i < n && strcmp(c[i].name, argv[j]); i++)
			;
		if (i == n) {
			fprintf(stderr, "%s: no test case '%s' (see --list)\n",
				argv[0], argv[j]);
			return false;
		}
		run[i] = true;
	}
	return true;
}

static int tap_main(const struct tap_case *c, size_t n, int argc,
		    char **argv)
{
	bool run[n];
	size_t i, k = 0, planned = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < n; i++)
			printf("%s\n", c[i].name);
		return 0;
	}
	if (!tap__select(c, n, argc, argv, run))
		return 2;
	for (i = 0; i < n; i++)
		planned += run[i];
	printf("1..%zu\n", planned);
	for (i = 0; i < n; i++) {
		int before = failures;

		if (!run[i])
			continue;
		c[i].fn();
		printf("%sok %zu - %s\n", failures > before ? "not " : "",
		       ++k, c[i].name);
	}
	printf("# %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}

#define TAP_MAIN(table)							\
int main(int argc, char **argv)						\
{									\
	return tap_main(table, sizeof(table) / sizeof((table)[0]),	\
			argc, argv);					\
}

#endif /* FSS_TESTS_TAP_H */

/* CHECK(cond, printf-style message): count and print a failed check (unit tests). */
#ifndef TIO_UNIT_CHECK_H
#define TIO_UNIT_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			failures++;                                                                \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

/* The one trace at `path` (tio_trace_open_all; a check fails when there is not exactly one). */
#ifdef TRACEIO_TRACE_H
#include <stdlib.h>
static inline tio_trace *unit_open_one(const char *path)
{
	tio_trace **v = NULL;
	size_t n = 0;
	CHECK(!tio_trace_open_all(path, NULL, &v, &n) && n == 1, "%s: cannot open", path);
	tio_trace *tr = n ? v[0] : NULL;
	for (size_t i = 1; i < n; i++)
		tio_trace_free(v[i]);
	free(v);
	return tr;
}
#endif

#endif

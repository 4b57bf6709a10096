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

#endif

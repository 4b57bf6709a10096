/*
 * Fuzz target: the SQLite module's argument parser (src/sqlite/args.c), as
 * CREATE VIRTUAL TABLE t USING traceio(ARG, ARG...) hands it the
 * arguments' text.  Input: arguments separated by NUL bytes (at most 32).
 * Nothing is opened: the parser only splits keys, values and quotes.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tio-sqlite.h"

/* Split the input at NUL bytes into arguments and parse them. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	const char *argv[32];
	int argc = 0;
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	for (size_t i = 0; argc < 32;) {
		argv[argc++] = buf + i;
		size_t n = strlen(buf + i);
		if (i + n >= size)
			break;
		i += n + 1;
	}
	tio_sqlite_args a;
	char *err = NULL;
	if (tio_sqlite_parse_args(argc, argv, &a, &err) == 0) {
		/* what was parsed is usable: every path non-empty */
		for (size_t k = 0; k < a.npaths; k++)
			if (!a.paths[k] || !a.paths[k][0])
				abort();
		tio_sqlite_args_free(&a);
	} else if (!err) {
		abort(); /* a refusal always says why */
	}
	free(err);
	free(buf);
	return 0;
}

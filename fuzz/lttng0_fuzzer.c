/*
 * Fuzz target: an LTTng 0.x trace directory (tracefiles "CHANNEL_CPU": the
 * metadata channel's markers, then block headers and event records of the
 * data channels), read to the end and printed as LTTV's text dump.  Input:
 * a fuzz.h container of files.
 */
#include <stdlib.h>

#include "fuzz.h"

static void put(void *dir, const char *name, const uint8_t *p, size_t n)
{
	fz_write(dir, name, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *dir = fz_dir_new();
	if (!dir)
		return 0;
	if (fz_split(data, size, put, dir) > 0)
		fz_drain(dir, "lttng0", "lttv", 0);
	fz_dir_free(dir);
	return 0;
}

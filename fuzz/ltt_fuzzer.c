/*
 * Fuzz target: a new LTT format trace directory (info/system.xml,
 * eventdefs/NAME.xml, control/ and cpu/ tracefiles of blocks), read to the end
 * and printed in babeltrace2's text.  Input: a fuzz.h container of files.
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
		fz_drain(dir, "ltt", "babeltrace", 0);
	fz_dir_free(dir);
	return 0;
}

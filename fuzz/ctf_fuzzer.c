/*
 * Fuzz target: a whole CTF trace directory (metadata, TSDL or CTF 2, plain
 * or packetized, and data stream files), opened, decoded and printed in
 * babeltrace2's text.  The input is a fuzz.h container of files
 * ("metadata", stream files); fuzz/mkseed.py builds seeds from traces.
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
		fz_drain(dir, "ctf", "babeltrace", size % 2 ? 2 : 0);
	fz_dir_free(dir);
	return 0;
}

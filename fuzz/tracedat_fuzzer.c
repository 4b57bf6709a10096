/*
 * Fuzz target: a whole trace.dat file (v6 or v7, every section, options,
 * compressed chunks, ring-buffer pages), printed as `trace-cmd report`
 * (which also runs the print fmt evaluator over every record).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *dir = fz_dir_new();
	if (!dir)
		return 0;
	if (!fz_write(dir, "trace.dat", data, size)) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/trace.dat", dir);
		fz_drain(path, "tracedat", "trace-cmd", size % 2 ? 2 : 0);
	}
	fz_dir_free(dir);
	return 0;
}

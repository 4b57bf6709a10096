/*
 * Fuzz target: a whole trace.dat file (v6 or v7, every section, options,
 * compressed chunks, ring-buffer pages), printed as `trace-cmd report`
 * (which also runs the print fmt evaluator over every record); some inputs
 * with the reader options ts2secs or raw-ts.
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
		/* the reader options on some inputs (by size: independent of the threads' choice):
		   --ts2secs at a TSC's rate, at 3 Hz (products past 2^64), --raw-ts */
		static const char *const opt[][2] = {{NULL, NULL}, {"ts2secs", "2800000000"}, {"ts2secs", "3"},
						     {"raw-ts", "1"}, {NULL, NULL}};
		const char *const *o = opt[size / 2 % 5];
		fz_drain_set(path, "tracedat", "trace-cmd", size % 2 ? 2 : 0, o[0], o[1]);
	}
	fz_dir_free(dir);
	return 0;
}

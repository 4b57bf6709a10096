/*
 * Fuzz target: the Parquet writer (src/parquet) over whatever a reader
 * decodes from a damaged or odd trace: a trace.dat file (an input that
 * starts with its magic, "\x17\x08\x44tracing") or a trace directory
 * (fuzz.h container, as the ctf, lttng0 and ltt targets take; its format
 * guessed from the contents) is opened, every message goes to the `parquet`
 * sink with 7-row row groups (many flushes) and a 1 MiB budget, and the
 * output directory is finished and removed.  Every value tree a reader
 * hands out must map onto the plans the sink made from its classes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "traceio/traceio.h"

/* fz_split callback: one file of the container into the trace directory. */
static void put(void *dir, const char *name, const uint8_t *p, size_t n)
{
	fz_write(dir, name, p, n);
}

/* Open the trace at `path` (in `dir`), convert it into dir/pq-out (removed with dir). */
static void convert(const char *dir, const char *path)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		return;
	char out[4096];
	snprintf(out, sizeof(out), "%s/pq-out", dir);
	tio_trace *t = NULL;
	tio_mux *m = NULL;
	tio_sink *s = NULL;
	if (tio_trace_open(path, NULL, &t))
		goto done;
	if (tio_sink_new("parquet", null, null, &s) || tio_sink_set(s, "output", out) ||
	    tio_sink_set(s, "row-group-size", "7") || tio_sink_set(s, "buffer-size", "1M") ||
	    tio_sink_add_trace(s, t) || tio_mux_new(&t, 1, &m))
		goto done;
	unsigned long errors = 0;
	for (unsigned long n = 0;; n++) {
		const tio_msg *msg;
		int r = tio_mux_next(m, &msg);
		if (r == 0)
			break;
		if (n > 50000000UL || errors > 1000000) {
			fprintf(stderr, "fuzz: %s: reader does not end\n", dir);
			abort();
		}
		if (r < 0) {
			errors++;
			if (r == TIO_ERR_NOMEM)
				break;
			continue;
		}
		if (tio_sink_consume(s, msg))
			break;
	}
	int r = tio_sink_finish(s);
	if (getenv("TIO_FUZZ_VERBOSE"))
		fprintf(stderr, "parquet: %s\n", r ? tio_error_message() : "written");
done:
	tio_sink_free(s); /* an unfinished output is removed */
	tio_mux_free(m);
	tio_trace_free(t);
	tio_error_clear();
}

/* One input: a trace.dat file or a container of files made a trace directory, converted, removed. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char magic[] = "\x17\x08\x44tracing";
	char *dir = fz_dir_new();
	if (!dir)
		return 0;
	if (size >= sizeof(magic) - 1 && !memcmp(data, magic, sizeof(magic) - 1)) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/trace.dat", dir);
		if (!fz_write(dir, "trace.dat", data, size))
			convert(dir, path);
	} else if (fz_split(data, size, put, dir) > 0) {
		convert(dir, dir);
	}
	fz_dir_free(dir);
	return 0;
}

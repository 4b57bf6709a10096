/*
 * Worker threads only when there is enough to read (src/mux/mux.c,
 * worth_threads): a mux left to choose (no tio_mux_set_threads, no
 * TIO_THREADS) reads a small trace on the caller's thread (CTF, and a
 * compressed trace.dat, whose chunks' decompressed sizes count), and so it
 * does a big trace from a seek near its end; a mux asked for 2 threads
 * starts a worker even on the small traces.  The process's thread count, from
 * /proc/self/status after the first message, tells.  Public headers only;
 * skipped (passes) with fewer than 2 CPUs, where no worker ever runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traceio/error.h"
#include "traceio/mux.h"
#include "traceio/trace.h"
#include "unit-check.h"

static int threads_now(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8))
			n = atoi(line + 8);
	if (f)
		fclose(f);
	return n;
}

/*
 * The threads reading `t` after the first message of a mux, the caller's
 * included (threads: tio_mux_set_threads, 0 not called; seek_ns: a seek
 * first, INT64_MIN none).
 */
static int threads_reading(tio_trace *t, unsigned threads, int64_t seek_ns)
{
	tio_mux *m = NULL;
	const tio_msg *msg;
	int before = threads_now(); /* a sanitizer's own thread may have started since */
	CHECK(!tio_mux_new(&t, 1, &m), "mux");
	if (threads)
		tio_mux_set_threads(m, threads);
	if (seek_ns != INT64_MIN)
		CHECK(!tio_mux_seek(m, seek_ns), "seek: %s", tio_error_message());
	CHECK(tio_mux_next(m, &msg) == 1, "no first message: %s", tio_error_message());
	int n = threads_now() - before + 1;
	tio_mux_free(m);
	return n;
}

int main(int argc, char **argv)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || threads_now() < 1) /* one CPU: no worker ever; no /proc */
		return 0;
	unsetenv("TIO_THREADS");
	setenv("TIO_READAHEAD", "0", 1); /* no read-ahead helper thread to count */
	const char *top = getenv("TIO_TOP");
	char p[4096];
	snprintf(p, sizeof(p), "%s/tests/data/ctf/lttng-ust-discard", top ? top : ".");
	tio_trace *t = unit_open_one(p);
	if (!t)
		return 1;
	int n = threads_reading(t, 0, INT64_MIN);
	CHECK(n == 1, "a 360 KB trace, threads left to the mux: %d threads", n);
	n = threads_reading(t, 2, INT64_MIN);
	CHECK(n >= 2, "the same trace with tio_mux_set_threads(2): %d threads", n);
	tio_trace_free(t);
	/* compressed trace.dat: the chunks' decompressed sizes count */
	snprintf(p, sizeof(p), "%s/tests/data/ftrace/kvm-v7-zstd.dat", top ? top : ".");
	if (!(t = unit_open_one(p)))
		return 1;
	n = threads_reading(t, 0, INT64_MIN);
	CHECK(n == 1, "a 36 KB zstd trace.dat, threads left to the mux: %d threads", n);
	n = threads_reading(t, 2, INT64_MIN);
	CHECK(n >= 2, "the same trace with tio_mux_set_threads(2): %d threads", n);
	tio_trace_free(t);

	/* a trace of 16 MiB of events (argv[1], written by the test script), whole and its last 2 MiB */
	if (argc > 1) {
		t = unit_open_one(argv[1]);
		if (!t)
			return 1;
		tio_index_info ii;
		CHECK(!tio_trace_index(t, &ii) && ii.has_range, "index: %s", tio_error_message());
		n = threads_reading(t, 0, INT64_MIN);
		CHECK(n >= 2, "16 MiB, threads left to the mux: %d threads", n);
		n = threads_reading(t, 0, ii.end_ns);
		CHECK(n == 1, "16 MiB from a seek to its last packet: %d threads", n);
		tio_trace_free(t);
	}
	return failures ? 1 : 0;
}

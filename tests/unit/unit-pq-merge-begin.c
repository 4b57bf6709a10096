/*
 * tio_sink_merge_begin: the Parquet files of two parts read in order must
 * be byte for byte the same whether the merge was begun while the second
 * part was still being read or not.  On one thread, so that the moment is
 * chosen: part 1's sink is begun before its first message, half-way
 * through its messages, and after its last one (before tio_sink_flush);
 * small row groups make it write some before and some after.  Half-way,
 * part 0's files must have grown at once (part 1's row groups so far
 * copied after their own): a begin that did nothing fails there.  Also:
 * the sinks that cannot be merged say so, and "dummy" does nothing.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traceio/error.h"
#include "traceio/mux.h"
#include "traceio/sink.h"
#include "traceio/trace.h"
#include "unit-check.h"
#include "unit-files.h"

static tio_sink *part_sink(const char *dir, tio_trace *t)
{
	tio_sink *s = NULL;
	CHECK(!tio_sink_new("parquet", stdout, stderr, &s) && !tio_sink_set(s, "output", dir) &&
		  !tio_sink_set(s, "row-group-size", "7") && !tio_sink_set(s, "parts", "2") &&
		  !tio_sink_add_trace(s, t),
	      "parquet sink for %s: %s", dir, tio_error_message());
	return s;
}

/* Bytes of the files matching pattern g. */
static uint64_t bytes_of(const char *g)
{
	glob_t gl = {0};
	uint64_t n = 0;
	if (!glob(g, 0, NULL, &gl))
		for (size_t k = 0; k < gl.gl_pathc; k++) {
			struct stat st;
			if (!stat(gl.gl_pathv[k], &st))
				n += (uint64_t)st.st_size;
		}
	globfree(&gl);
	return n;
}

/*
 * Part k of 2 of `path` (its own open, as each thread has) into s: every
 * message; merge_begin(into, s) before message `at` (SIZE_MAX: never) and
 * `grew` (unless NULL) whether into's events.parquet (found under `glob_ev`)
 * grew then; the messages read.
 */
static size_t feed_part(const char *path, unsigned k, tio_trace **keep, tio_sink **s, const char *out,
			tio_sink *into, size_t at, const char *glob_ev, bool *grew)
{
	tio_trace *t = unit_open_one(path);
	tio_mux *m = NULL;
	size_t n = 0;
	*keep = t;
	*s = NULL;
	if (!t)
		return 0;
	*s = part_sink(out, t);
	CHECK(!tio_mux_new(&t, 1, &m) && !tio_mux_set_part_in_order(m, k, 2), "part %u: %s", k,
	      tio_error_message());
	const tio_msg *msg;
	int r = 1;
	for (;;) {
		if (n == at) {
			uint64_t before = bytes_of(glob_ev);
			CHECK(!tio_sink_merge_begin(into, *s), "merge begun at message %zu: %s", at,
			      tio_error_message());
			if (grew)
				*grew = bytes_of(glob_ev) > before;
		}
		if (!m || (r = tio_mux_next(m, &msg)) <= 0)
			break;
		CHECK(!tio_sink_consume(*s, msg), "part %u, message %zu: %s", k, n, tio_error_message());
		n++;
	}
	CHECK(r == 0, "part %u: %s", k, tio_error_message());
	CHECK(!tio_sink_flush(*s), "part %u flushed: %s", k, tio_error_message());
	tio_mux_free(m);
	return n;
}

/*
 * Both parts of `path` into `out` (part 1's sink writing to `out1`, never
 * finished), part 1 begun before its message `at`; part 1's messages.
 */
static size_t convert(const char *path, const char *out, const char *out1, size_t at, bool *grew, size_t *n0)
{
	tio_trace *t0 = NULL, *t1 = NULL;
	tio_sink *a = NULL, *b = NULL;
	char ev[4200];
	snprintf(ev, sizeof(ev), "%s.tmp-*/.w0/*.parquet", out);
	*n0 = feed_part(path, 0, &t0, &a, out, NULL, SIZE_MAX, NULL, NULL);
	size_t n = a ? feed_part(path, 1, &t1, &b, out1, a, at, ev, grew) : 0;
	CHECK(a && b && !tio_sink_merge(a, b), "%s: merged: %s", out, tio_error_message());
	CHECK(a && !tio_sink_finish(a), "%s: finished: %s", out, tio_error_message());
	tio_sink_free(b);
	tio_sink_free(a);
	tio_trace_free(t1);
	tio_trace_free(t0);
	return n;
}

int main(void)
{
	const char *top = getenv("TIO_TOP");
	/* both with messages in each part (the small trace.dat files of tests/data but this one
	   are read whole by part 1) */
	const char *traces[] = {"tests/data/ctf/lttng-ust-discard", "tests/data/ftrace/funcs-v6.dat"};
	char base[] = "/tmp/unit-pq-merge-begin.XXXXXX";
	CHECK(mkdtemp(base), "mkdtemp");
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		char p[4096], ref[4200], o1[4200];
		snprintf(p, sizeof(p), "%s/%s", top ? top : ".", traces[i]);
		snprintf(ref, sizeof(ref), "%s/ref%zu", base, i);
		snprintf(o1, sizeof(o1), "%s/part1-%zu", base, i);
		size_t n0 = 0, n = convert(p, ref, o1, SIZE_MAX, NULL, &n0);
		CHECK(n0 >= 50 && n >= 50, "%s: parts of %zu and %zu messages", traces[i], n0, n);
		size_t ats[] = {0, n / 2, n};
		for (size_t j = 0; j < 3; j++) {
			char out[4200];
			snprintf(out, sizeof(out), "%s/t%zu-%zu", base, i, j);
			bool grew = false;
			convert(p, out, o1, ats[j], &grew, &n0);
			int nf = unit_same_parquet(ref, out);
			CHECK(nf >= 3, "%s: %d files compared", out, nf);
			if (j == 1)
				CHECK(grew, "%s: part 0's files did not grow when begun half-way", traces[i]);
			printf("%s: begun at message %zu of %zu of part 1: %d files the same%s\n", traces[i], ats[j],
			       n, nf, j == 1 && grew ? ", part 0's grew at once" : "");
		}
	}
	/* sinks that cannot be merged, and one that does nothing */
	tio_sink *a = NULL, *b = NULL;
	CHECK(!tio_sink_new("parquet", stdout, stderr, &a) && !tio_sink_new("dummy", stdout, stderr, &b), "sinks");
	CHECK(tio_sink_merge_begin(a, b) == TIO_ERR_UNSUPPORTED, "parquet and dummy sinks begun");
	tio_sink_free(a);
	CHECK(!tio_sink_new("dummy", stdout, stderr, &a) && !tio_sink_merge_begin(a, b), "two dummy sinks begun");
	tio_sink_free(a);
	tio_sink_free(b);
	unit_rm_tree(base);
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures != 0;
}

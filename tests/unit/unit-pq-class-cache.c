/*
 * The Parquet sink keeps each class's table in the class itself
 * (tio_event_class.sink_key / sink_val, session 25) instead of looking it
 * up per event.  A class is shared by every sink that reads its trace:
 * two Parquet sinks fed the same messages in turn (each event to one,
 * then to the other), and a third after they were freed, must each write
 * what a sink reading alone writes, byte for byte (every .parquet file).
 * A key that let one sink take the other's table would mix their rows.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traceio/error.h"
#include "traceio/mux.h"
#include "traceio/sink.h"
#include "traceio/trace.h"
#include "unit-check.h"
#include "unit-files.h"

static tio_sink *parquet_to(const char *dir)
{
	tio_sink *s = NULL;
	CHECK(!tio_sink_new("parquet", stdout, stderr, &s) && !tio_sink_set(s, "output", dir),
	      "parquet sink for %s: %s", dir, tio_error_message());
	return s;
}

/* Read `t` (again: from its start), every message to each of the n sinks in turn; finish and free them. */
static void feed(tio_trace *t, tio_sink **s, size_t n, bool again)
{
	tio_mux *m = NULL;
	CHECK(!tio_mux_new(&t, 1, &m), "mux: %s", tio_error_message());
	CHECK(!again || !tio_mux_seek(m, INT64_MIN), "seek to the start: %s", tio_error_message());
	const tio_msg *msg;
	int r;
	while (m && (r = tio_mux_next(m, &msg)) > 0)
		for (size_t k = 0; k < n; k++)
			CHECK(s[k] && !tio_sink_consume(s[k], msg), "consume (sink %zu): %s", k, tio_error_message());
	for (size_t k = 0; k < n; k++) {
		CHECK(s[k] && !tio_sink_finish(s[k]), "finish (sink %zu): %s", k, tio_error_message());
		tio_sink_free(s[k]);
	}
	tio_mux_free(m);
}

int main(void)
{
	const char *top = getenv("TIO_TOP");
	const char *traces[] = {"tests/data/ctf/lttng-ust-discard", "tests/data/ftrace/kmem-tlb-v7-zstd.dat"};
	char base[] = "/tmp/unit-pq-class-cache.XXXXXX";
	CHECK(mkdtemp(base), "mkdtemp");
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		char p[4096], ref[4200], a[4200], b[4200], c[4200];
		snprintf(p, sizeof(p), "%s/%s", top ? top : ".", traces[i]);
		snprintf(ref, sizeof(ref), "%s/ref%zu", base, i);
		snprintf(a, sizeof(a), "%s/a%zu", base, i);
		snprintf(b, sizeof(b), "%s/b%zu", base, i);
		snprintf(c, sizeof(c), "%s/c%zu", base, i);
		tio_trace *t = unit_open_one(p);
		if (!t)
			continue;
		tio_sink *one[] = {parquet_to(ref)};
		feed(t, one, 1, false);
		tio_trace_free(t);
		/* one open, two sinks in turn, then a third on a new read of it */
		t = unit_open_one(p);
		if (!t)
			continue;
		tio_sink *two[] = {parquet_to(a), parquet_to(b)};
		feed(t, two, 2, false);
		tio_sink *three[] = {parquet_to(c)};
		feed(t, three, 1, true);
		tio_trace_free(t);
		int na = unit_same_parquet(ref, a), nb = unit_same_parquet(ref, b), nc = unit_same_parquet(ref, c);
		CHECK(na >= 4 && na == nb && na == nc, "%s: %d, %d and %d files compared", traces[i], na, nb, nc);
		printf("%s: %d files, each the same from 3 sinks sharing its classes\n", traces[i], na);
	}
	unit_rm_tree(base);
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures != 0;
}

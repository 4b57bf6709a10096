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
#include <dirent.h>
#include <stdint.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traceio/error.h"
#include "traceio/mux.h"
#include "traceio/sink.h"
#include "traceio/trace.h"
#include "unit-check.h"

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

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	*len = 0;
	if (f && !fseek(f, 0, SEEK_END)) {
		long n = ftell(f);
		rewind(f);
		if (n >= 0 && (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n)
			*len = (size_t)n;
	}
	if (f)
		fclose(f);
	return b;
}

/* Every .parquet file of `ref` equal in `dir`; the files compared. */
static int same_files(const char *ref, const char *dir)
{
	DIR *d = opendir(ref);
	int n = 0;
	CHECK(d, "%s: no output", ref);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l < 8 || strcmp(e->d_name + l - 8, ".parquet"))
			continue;
		char a[4096], b[4096];
		snprintf(a, sizeof(a), "%s/%s", ref, e->d_name);
		snprintf(b, sizeof(b), "%s/%s", dir, e->d_name);
		size_t la, lb;
		char *pa = slurp(a, &la), *pb = slurp(b, &lb);
		CHECK(pa && pb && la == lb && !memcmp(pa, pb, la), "%s differs from %s (%zu and %zu bytes)", b, a, la,
		      lb);
		free(pa);
		free(pb);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(p);
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
		int na = same_files(ref, a), nb = same_files(ref, b), nc = same_files(ref, c);
		CHECK(na >= 4 && na == nb && na == nc, "%s: %d, %d and %d files compared", traces[i], na, nb, nc);
		printf("%s: %d files, each the same from 3 sinks sharing its classes\n", traces[i], na);
	}
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures != 0;
}

/*
 * Random access on the public API: what a trace's index says without
 * decoding (tio_trace_index), then tio_mux_seek to many times, each result
 * checked against one linear read of the same traces.
 *
 *   example-seek [-n SEEKS] [-k EVENTS] [-s SEED] TRACE...
 *
 * Reads every event once in time order and keeps (time, stream, offset) of
 * each; then seeks to SEEKS times (default 1000: random times over the
 * range and a little outside it, exact event times, the first and the last,
 * in random order, so forwards and backwards) on one open mux and checks
 * that the next EVENTS events (default 20) are the first events of the
 * linear read at or after that time.  Prints the index and one summary
 * line; exit 0 when every seek matched, 1 otherwise (the first mismatches
 * are printed), 2 on usage or open errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceio/traceio.h>

typedef struct ev {
	int64_t ns;
	const tio_stream *s;
	uint64_t off;
} ev;

static uint64_t rng = 88172645463325252ULL;

/* xorshift64: the same sequence for a seed on every machine */
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Index of the first event at or after ns in a time-sorted array. */
static size_t first_at(const ev *v, size_t n, int64_t ns)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int main(int argc, char **argv)
{
	long seeks = 1000, k = 20;
	int i = 1;
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "-n"))
			seeks = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-k"))
			k = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-s"))
			rng = strtoull(argv[i + 1], NULL, 0) | 1;
		else
			break;
	}
	if (i >= argc || seeks < 0 || k < 1) {
		fprintf(stderr, "usage: example-seek [-n SEEKS] [-k EVENTS] [-s SEED] TRACE...\n");
		return 2;
	}
	tio_trace **tv = NULL;
	size_t tn = 0;
	for (; i < argc; i++) {
		tio_trace **v;
		size_t n;
		if (tio_trace_open_all(argv[i], NULL, &v, &n)) {
			fprintf(stderr, "example-seek: %s\n", tio_error_message());
			return 2;
		}
		tio_trace **nv = realloc(tv, (tn + n) * sizeof(*nv));
		if (!nv)
			return 2;
		tv = nv;
		memcpy(tv + tn, v, n * sizeof(*v));
		tn += n;
		free(v);
	}
	if (tio_traces_merge(tv, &tn))
		return 2;
	/* what the index says, before anything is decoded */
	for (size_t t = 0; t < tn; t++) {
		tio_index_info x;
		if (tio_trace_index(tv[t], &x)) {
			fprintf(stderr, "example-seek: index: %s\n", tio_error_message());
			return 2;
		}
		printf("index %s: %u streams, %u indexed, %u seekable, %" PRIu64 " packets, %" PRIu64
		       " bytes, ~%" PRIu64 " events",
		       tio_trace_path(tv[t]), x.streams, x.indexed, x.seekable, x.packets, x.bytes, x.events);
		if (x.has_range)
			printf(", [%" PRId64 ", %" PRId64 "]", x.begin_ns, x.end_ns);
		printf("\n");
	}
	tio_mux *mux;
	if (tio_mux_new(tv, tn, &mux))
		return 2;
	/* the linear read */
	ev *v = NULL;
	size_t n = 0, cap = 0;
	bool sorted = true;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0)
			continue; /* a damaged packet: the others go on, in both reads */
		int64_t ns;
		if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT || !tio_msg_time_ns(m, &ns))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			ev *nv = realloc(v, cap * sizeof(*nv));
			if (!nv)
				return 2;
			v = nv;
		}
		if (n && ns < v[n - 1].ns)
			sorted = false;
		v[n++] = (ev){ns, tio_msg_stream(m), tio_msg_offset(m)};
	}
	long bad = 0, checked = 0;
	if (!sorted) {
		/* an LTTng 0.x event a few µs early: the merge keeps file order,
		   and "the events at or after t" is no prefix of a suffix */
		printf("seek: %zu events, not in time order: not checked\n", n);
		seeks = 0;
	}
	int64_t lo = n ? v[0].ns : 0, hi = n ? v[n - 1].ns : 0, span = hi - lo + 1;
	for (long s = 0; s < seeks; s++) {
		int64_t t;
		uint64_t r = next_rand();
		switch (r % 8) {
		case 0: t = n ? v[(r >> 8) % n].ns : 0; break;	   /* an event's time */
		case 1: t = lo - (int64_t)((r >> 8) % 1000); break; /* before the first */
		case 2: t = hi + (int64_t)((r >> 8) % 1000); break; /* at or after the last */
		default: t = lo + (int64_t)((r >> 8) % (uint64_t)span); break;
		}
		if (tio_mux_seek(mux, t)) {
			printf("seek %" PRId64 ": %s\n", t, tio_error_message());
			bad++;
			continue;
		}
		size_t at = first_at(v, n, t);
		long got = 0;
		bool wrong = false;
		while (got < k) {
			const tio_msg *m;
			int rr = tio_mux_next(mux, &m);
			if (rr == 0)
				break;
			if (rr < 0)
				continue;
			int64_t ns;
			if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT || !tio_msg_time_ns(m, &ns))
				continue;
			size_t j = at + (size_t)got;
			if (j >= n || v[j].ns != ns || v[j].s != tio_msg_stream(m) || v[j].off != tio_msg_offset(m)) {
				if (bad < 10)
					printf("seek %" PRId64 ": event %ld is %" PRId64 "@0x%" PRIx64 ", the linear read has %" PRId64
					       "@0x%" PRIx64 "\n",
					       t, got, ns, tio_msg_offset(m), j < n ? v[j].ns : -1, j < n ? v[j].off : 0);
				wrong = true;
				break;
			}
			got++;
		}
		if (!wrong && got < k && at + (size_t)got < n) {
			/* ended early */
			wrong = true;
			if (bad < 10)
				printf("seek %" PRId64 ": %ld events, the linear read has %zu more\n", t, got,
				       n - at - (size_t)got);
		}
		bad += wrong;
		checked++;
	}
	if (sorted)
		printf("seek: %zu events, %ld seeks, %ld wrong\n", n, checked, bad);
	free(v);
	tio_mux_free(mux);
	for (size_t t = 0; t < tn; t++)
		tio_trace_free(tv[t]);
	free(tv);
	return bad ? 1 : 0;
}

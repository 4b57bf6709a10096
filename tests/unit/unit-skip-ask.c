/*
 * tio_mux_set_skip_classes on trace.dat, whose streams pass over the
 * records of the classes the callback refuses before the begin bound
 * without decoding them: a TIO_SKIP_ASK class is asked again, and its "no"
 * stands only until the skip hook is next called (public headers only).
 *
 * The callback wants sched_switch always, and the other classes once the
 * hook has been given K events (as the trace-cmd style wants every record
 * once a function graph entry was skipped): before that, TIO_SKIP_ASK.
 * The events the hook is given must be those that a hook given every
 * earlier event (no class callback) takes by the same rule, in the same
 * order; with K = 0 (every class wanted from the start) too.  The rule is
 * applied as the streams apply it: a stream judges the records up to the
 * one it returns when the merge asks it for its next message, that is
 * with what the hook had taken when that stream's last message was taken.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traceio/class.h"
#include "traceio/mux.h"
#include "traceio/trace.h"
#include "unit-check.h"

typedef struct run {
	uint64_t k;	   /* the other classes are wanted once the hook took k events */
	bool filter;	   /* with the class callback (else: the hook sees everything and takes by the rule) */
	uint64_t taken;	   /* events the hook took */
	uint64_t *offs;	   /* their stream number << 48 | offset, in order */
	size_t cap;
	uint64_t asked;	   /* callback calls */
	uint64_t seen[64]; /* without the callback: `taken` when each stream's last event was taken */
} run;

static bool always(const tio_event_class *ec)
{
	const char *n = tio_event_class_name(ec);
	return n && !strcmp(n, "sched_switch");
}

static int wants(void *arg, const tio_event_class *ec)
{
	run *r = arg;
	r->asked++;
	return always(ec) || r->taken >= r->k ? TIO_SKIP_WANT : TIO_SKIP_ASK;
}

static void hook(void *arg, const tio_msg *m)
{
	run *r = arg;
	if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT)
		return;
	const tio_event_class *ec = tio_msg_event_class(m);
	uint32_t sn = tio_msg_stream_number(m) % 64;
	if (!r->filter && !(ec && (always(ec) || r->seen[sn] >= r->k)))
		return; /* what the callback would have refused */
	if (r->taken == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->offs = realloc(r->offs, r->cap * sizeof(*r->offs));
		if (!r->offs)
			abort();
	}
	r->offs[r->taken++] = (uint64_t)tio_msg_stream_number(m) << 48 | tio_msg_offset(m);
	r->seen[sn] = r->taken;
}

/* Read `path` from `begin` with the hook (and the callback when r->filter). */
static void read_from(const char *path, int64_t begin, run *r)
{
	tio_trace *t = NULL;
	tio_mux *mux = NULL;
	CHECK(!tio_trace_open(path, NULL, &t), "%s: cannot open", path);
	if (!t)
		return;
	CHECK(!tio_mux_new(&t, 1, &mux), "mux");
	tio_mux_set_begin(mux, begin);
	tio_mux_set_skip_hook(mux, hook, r);
	if (r->filter)
		tio_mux_set_skip_classes(mux, wants, r);
	const tio_msg *m;
	int st;
	while ((st = tio_mux_next(mux, &m)) > 0)
		;
	CHECK(st == 0, "%s: read error", path);
	tio_mux_free(mux);
	tio_trace_free(t);
}

/* The time of the event at `frac` of the trace's events. */
static int64_t time_at(const char *path, double frac)
{
	tio_trace *t = NULL;
	tio_mux *mux = NULL;
	int64_t *ns = NULL, at = 0;
	size_t n = 0, cap = 0;
	if (tio_trace_open(path, NULL, &t) || tio_mux_new(&t, 1, &mux))
		goto out;
	const tio_msg *m;
	while (tio_mux_next(mux, &m) > 0) {
		int64_t x;
		if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT || !tio_msg_time_ns(m, &x))
			continue;
		if (n == cap && !(ns = realloc(ns, (cap = cap ? 2 * cap : 4096) * sizeof(*ns))))
			abort();
		ns[n++] = x;
	}
	if (n)
		at = ns[(size_t)(frac * (double)(n - 1))];
out:
	free(ns);
	tio_mux_free(mux);
	tio_trace_free(t);
	return at;
}

static void check_trace(const char *path, double frac, uint64_t k)
{
	int64_t begin = time_at(path, frac);
	run all = {.k = k}, filtered = {.k = k, .filter = true};
	read_from(path, begin, &all);
	read_from(path, begin, &filtered);
	CHECK(all.taken > k, "%s: %" PRIu64 " events taken before the bound, not more than k = %" PRIu64, path,
	      all.taken, k);
	CHECK(filtered.asked > 0, "%s: the class callback was not asked", path);
	CHECK(all.taken == filtered.taken, "%s (k %" PRIu64 "): the hook took %" PRIu64 " events with the class callback, %" PRIu64 " without",
	      path, k, filtered.taken, all.taken);
	for (uint64_t i = 0; i < all.taken && i < filtered.taken; i++)
		if (all.offs[i] != filtered.offs[i]) {
			CHECK(0, "%s (k %" PRIu64 "): event %" PRIu64 " taken differs", path, k, i);
			break;
		}
	printf("%s at %.2f, k %" PRIu64 ": %" PRIu64 " events taken, %" PRIu64 " answers\n", path, frac, k, all.taken,
	       filtered.asked);
	free(all.offs);
	free(filtered.offs);
}

int main(void)
{
	const char *sh = getenv("TIO_SHARED");
	char p[4096];
	snprintf(p, sizeof(p), "%s/peer-data/tracedat/samples/lisa-trappy-tests-trace_idle-arm64-v6.dat",
		 sh ? sh : "../shared");
	const char *t = getenv("TIO_TOP");
	char q[4096];
	snprintf(q, sizeof(q), "%s/tests/data/ftrace/funcs-v6.dat", t ? t : ".");
	char u[4096];
	snprintf(u, sizeof(u), "%s/peer-data/tracedat/samples/lisa-tests-trace-arm32-v6-large.dat", sh ? sh : "../shared");
	const char *paths[] = {p, q, u};
	for (size_t i = 0; i < 3; i++) {
		check_trace(paths[i], 0.8, 20);
		check_trace(paths[i], 0.5, 3);
		check_trace(paths[i], 0.8, 0);
	}
	if (failures)
		printf("%d failures\n", failures);
	else
		printf("ok\n");
	return failures != 0;
}

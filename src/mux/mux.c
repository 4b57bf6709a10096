/*
 * k-way merge of every stream of every input by time (a binary heap of
 * streams keyed by their next message), with trimming to [begin, end].
 * Ties are broken deterministically, as babeltrace2's muxer breaks them:
 * trace (CTF: by UUID, then those without one by trace name; other formats
 * after, in input order), stream class id, stream id, then message kind,
 * then stream order.  The stream comes before the kind: a discarded-records
 * message of stream 1 and an event of stream 0 at the same time give the
 * event first.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/ir.h"
#include "mux/pipe.h"
#include "traceio/mux.h"

typedef struct slot {
	tio_stream *s;
	const tio_msg *m;
	int64_t key; /* ns, or INT64_MIN for messages without time */
} slot;

struct tio_mux {
	slot *heap;
	size_t n;
	tio_stream **pending; /* streams to (re)advance before the next pop */
	size_t npending;
	bool has_begin, has_end;
	int64_t begin, end;
	bool begin_tod, end_tod, tod_utc; /* resolve begin/end against the first message's day */
	bool started;
	bool plain; /* started, and no time bounds (or a part in order's): the fast path of tio_mux_next may run */
	int64_t fast_lo;   /* the fast path returns messages of times in [fast_lo, fast_lo + fast_span] only */
	uint64_t fast_span;
	bool top_pending; /* the root's stream must be advanced before the next pop */
	bool seeked; /* the streams went to the begin bound (seek_all) */
	tio_stream **all; /* every stream, for seek_all */
	size_t nall;
	tio_msg clipped; /* a discarded-records message whose range trimming cut */
	tio_mux_skip_fn skip_fn; /* sees the events before begin, in order */
	void *skip_arg;
	uint64_t skip_epoch; /* calls of skip_fn: a TIO_SKIP_ASK "no" stands until it moves */
	tio_mux_skip_class_fn skip_class_fn; /* the classes skip_fn needs (NULL: all) */
	void *skip_class_arg;
	tio_mux_skip_class_fn class_fn; /* the classes the caller needs (NULL: all) */
	void *class_arg;
	bool class_set;
	uint64_t errors;
	/* decoding on worker threads (src/mux/pipe.c): set up by the first tio_mux_next */
	unsigned threads; /* tio_mux_set_threads (0: TIO_THREADS, else the CPUs) */
	bool mt_decided;
	tio_pipe *pipe;
	/* tio_mux_set_part: this mux reads part `part` of `nparts` (applied by the first tio_mux_next) */
	unsigned part, nparts;
	bool parted, part_failed; /* part_failed: nothing is read (no part would be what was asked) */
	bool part_exact; /* tio_mux_set_part_in_order: the part's times only, in a whole read's order */
};

static int kind_rank(tio_msg_type t)
{
	switch (t) {
	case TIO_MSG_STREAM_BEGIN: return 0;
	case TIO_MSG_PACKET_BEGIN: return 1;
	case TIO_MSG_DISCARDED_EVENTS: return 2;
	case TIO_MSG_DISCARDED_PACKETS: return 2;
	case TIO_MSG_EVENT: return 3;
	case TIO_MSG_PACKET_END: return 4;
	case TIO_MSG_STREAM_END: return 5;
	}
	return 6;
}

static bool less(const slot *a, const slot *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->s->trace->index != b->s->trace->index)
		return a->s->trace->index < b->s->trace->index;
	uint64_t ca = a->s->sc ? a->s->sc->id : 0, cb = b->s->sc ? b->s->sc->id : 0;
	if (ca != cb)
		return ca < cb;
	if (a->s->id != b->s->id)
		return a->s->id < b->s->id;
	int ra = kind_rank(a->m->type), rb = kind_rank(b->m->type);
	if (ra != rb)
		return ra < rb;
	return a->s->index < b->s->index;
}

static void sift_up(tio_mux *m, size_t i)
{
	slot x = m->heap[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!less(&x, &m->heap[p]))
			break;
		m->heap[i] = m->heap[p];
		i = p;
	}
	m->heap[i] = x;
}

static void sift_down_slot(tio_mux *m, size_t i, slot x)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= m->n)
			break;
		if (c + 1 < m->n && less(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!less(&m->heap[c], &x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
}

static void sift_down(tio_mux *m, size_t i) { sift_down_slot(m, i, m->heap[i]); }

typedef struct trace_pos {
	const tio_trace *t;
	uint32_t pos;
	int group;    /* 0: CTF with a UUID, 1: CTF without, 2: other formats */
	tio_buf name; /* group 1: babeltrace2's trace name */
} trace_pos;

/* babeltrace2's order of traces for equal times: those with a UUID first, by
 * UUID; then the other CTF traces by babeltrace2's trace name; then the other
 * formats' (in input order: trace-cmd's for several trace.dat) */
static int trace_tie_cmp(const void *pa, const void *pb)
{
	const trace_pos *a = pa, *b = pb;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	int c = a->group == 0 ? memcmp(a->t->tc->uuid, b->t->tc->uuid, 16)
	      : a->group == 1 ? strcmp(a->name.p, b->name.p)
			      : 0;
	if (c)
		return c;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

int tio_mux_new(tio_trace *const *traces, size_t n, tio_mux **out)
{
	tio_mux *m = tio_calloc(1, sizeof(*m));
	trace_pos *order = tio_calloc(n ? n : 1, sizeof(*order));
	int err = !m || !order ? TIO_ERR_NOMEM : 0;
	size_t total = 0;
	for (size_t i = 0; i < n && !err; i++) {
		const tio_trace *t = traces[i];
		bool bt2 = t->fmt && t->fmt->bt2_trace_order;
		order[i] = (trace_pos){t, (uint32_t)i, !bt2 ? 2 : t->tc && t->tc->has_uuid ? 0 : 1, {0}};
		if (order[i].group == 1) {
			tio_trace_bt2_name(&order[i].name, t);
			if (tio_buf_addc(&order[i].name, 0))
				err = TIO_ERR_NOMEM;
		}
		total += t->nstreams;
	}
	if (!err) {
		qsort(order, n, sizeof(*order), trace_tie_cmp);
		for (size_t i = 0; i < n; i++)
			traces[order[i].pos]->index = (uint32_t)i;
	}
	for (size_t i = 0; order && i < n; i++)
		tio_buf_free(&order[i].name);
	free(order);
	if (err) {
		free(m);
		return err;
	}
	m->heap = tio_calloc(total, sizeof(slot));
	m->pending = tio_calloc(total, sizeof(tio_stream *));
	m->all = tio_calloc(total ? total : 1, sizeof(tio_stream *));
	m->fast_lo = INT64_MIN;
	m->fast_span = UINT64_MAX;
	if (!m->heap || !m->pending || !m->all) {
		tio_mux_free(m);
		return TIO_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < traces[i]->nstreams; j++)
			m->all[m->nall++] = m->pending[m->npending++] = traces[i]->streams[j];
	*out = m;
	return 0;
}

void tio_mux_set_begin(tio_mux *m, int64_t ns)
{
	m->has_begin = true;
	m->plain = false;
	m->begin = ns;
}

void tio_mux_set_end(tio_mux *m, int64_t ns)
{
	m->has_end = true;
	m->plain = false;
	m->end = ns;
}

/*
 * Before the begin bound: events, and the discarded-records messages that
 * carry one time instead of a range (a trace.dat page's lost events, told
 * with its first record): they go with the record they precede.
 */
static inline bool before_begin(const tio_mux *m, const tio_msg *msg, int64_t key)
{
	if (TIO_LIKELY(!m->has_begin))
		return false;
	if (msg->type == TIO_MSG_EVENT)
		return !msg->has_ts || key < m->begin;
	if (msg->type == TIO_MSG_DISCARDED_EVENTS || msg->type == TIO_MSG_DISCARDED_PACKETS)
		return !msg->has_range && msg->has_ts && key < m->begin;
	if (msg->type == TIO_MSG_PACKET_BEGIN) /* a packet that ends before begin */
		return msg->has_pkt_end && msg->pkt_end_ns < m->begin;
	return false;
}

/*
 * Worker threads for less than this to read in all cost more than they save
 * (their set-up, the batches' memory, the hand-overs): printing the last 1%
 * (2.5 MB) of the UST trace took 21 ms with them, 18 ms without; 2%: 33 and
 * 31 ms; 4% (10 MB): 51 and 52 ms; the whole trace 1.08 and 1.18 s.
 */
#define MT_MIN_BYTES (8u << 20)

/*
 * Read on worker threads?  Yes when asked (tio_mux_set_threads,
 * TIO_THREADS), else when the streams hold MT_MIN_BYTES or more from where
 * they are (tio_stream_ops.bytes_left), or cannot tell.
 */
static bool worth_threads(tio_mux *m)
{
	const char *e = getenv("TIO_THREADS");
	if (m->threads || (e && *e))
		return true;
	uint64_t left = 0;
	for (size_t i = 0; i < m->nall; i++) {
		tio_stream *s = m->all[i];
		if (!s->ops->mt_cut)
			continue; /* not read by workers */
		uint64_t b = s->ops->bytes_left ? s->ops->bytes_left(s, MT_MIN_BYTES - left) : UINT64_MAX;
		if (b >= MT_MIN_BYTES - left)
			return true;
		left += b;
	}
	return false;
}

/*
 * Every stream to the packet that holds its first message at or after
 * `ns` (tio_stream_ops.seek, O(log packets) with the stream's index), and
 * the heap emptied: each stream is fetched again.  A stream's error is
 * returned after all have moved.
 */
/* TIO_SEEK=0 in the environment: begin bounds read and decode every stream from its beginning (to compare). */
static bool seek_ok(void)
{
	static _Atomic int ok = -1; /* muxes of parts ask from their threads */
	int v = atomic_load_explicit(&ok, memory_order_relaxed);
	if (v < 0) {
		const char *e = getenv("TIO_SEEK");
		v = !(e && !strcmp(e, "0"));
		atomic_store_explicit(&ok, v, memory_order_relaxed);
	}
	return v;
}

static int seek_all(tio_mux *m, int64_t ns)
{
	int ret = 0;
	for (size_t i = 0; i < m->nall; i++) {
		tio_stream *s = m->all[i];
		int r = s->ops->seek ? s->ops->seek(s, ns)
				     : tio_err_set(TIO_ERR_UNSUPPORTED, "%s: this reader cannot seek", s->name ? s->name : "stream");
		if (r && !ret)
			ret = r;
	}
	m->n = 0;
	m->npending = 0;
	for (size_t i = 0; i < m->nall; i++)
		m->pending[m->npending++] = m->all[i];
	m->top_pending = false;
	m->seeked = true;
	return ret;
}

/* A message's place in time: ns, or INT64_MIN for messages without time. */
static inline int64_t msg_key(const tio_msg *msg)
{
	if (msg->has_ts)
		return msg->ns;
	if (msg->type == TIO_MSG_DISCARDED_EVENTS || msg->type == TIO_MSG_DISCARDED_PACKETS)
		return msg->has_range ? msg->begin_ns : INT64_MIN;
	return INT64_MIN;
}

/*
 * tio_mux_set_part_in_order: keep a stream's message (1), leave it to the
 * part before (0), or fail when the parts cannot be the whole read.
 */
static __attribute__((noinline)) int part_in_order(tio_mux *m, tio_stream *s, const tio_msg *msg, int64_t key)
{
	if (msg->type == TIO_MSG_EVENT && !msg->has_ts)
		return tio_err_set(TIO_ERR_FORMAT, "%s: an event without a time: the trace cannot be read in parts in order",
				   s->name ? s->name : "stream");
	if (m->has_begin && key != INT64_MIN && key < m->begin) {
		if (s->part_past)
			return tio_err_set(TIO_ERR_FORMAT,
					   "%s: times go back across a part's cut: the trace cannot be read in parts in order",
					   s->name ? s->name : "stream");
		return 0;
	}
	if (msg->type == TIO_MSG_EVENT)
		s->part_past = true;
	return 1;
}

/*
 * The next message of one stream that is in range: 1 with *out filled, 0
 * when the stream has nothing more (in range), or a negative status.
 */
static inline __attribute__((always_inline)) int fetch(tio_mux *m, tio_stream *s, slot *out)
{
	for (;;) {
		const tio_msg *msg = NULL;
		int r = s->ops->next(s, &msg);
		if (r <= 0)
			return r;
		int64_t key = msg_key(msg);
		if (m->has_end && key != INT64_MIN && key > m->end)
			return 0; /* streams are in time order: nothing more in range */
		if (TIO_UNLIKELY(m->part_exact)) {
			int x = part_in_order(m, s, msg, key);
			if (x < 0) {
				*out = (slot){0};
				return x;
			}
			if (!x)
				continue;
		}
		if (!m->skip_fn && before_begin(m, msg, key))
			continue; /* early drop; with a skip hook the heap orders them first */
		*out = (slot){s, msg, key};
		return 1;
	}
}

static void drop_top(tio_mux *m)
{
	m->heap[0] = m->heap[--m->n];
	if (m->n)
		sift_down(m, 0);
}

/* ns of the midnight that starts the day of `ns` (UTC or local time) */
static int64_t day_start(int64_t ns, bool utc)
{
	time_t t = (time_t)(ns / 1000000000 - (ns % 1000000000 < 0));
	struct tm tm;
	if (utc ? !gmtime_r(&t, &tm) : !localtime_r(&t, &tm))
		return 0;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	time_t mid = utc ? timegm(&tm) : mktime(&tm);
	return (int64_t)mid * 1000000000;
}

/*
 * The root's stream fetched its next message (r > 0, slot ns), ended (0)
 * or failed (< 0: it resumes after the damage on the next call, and r is
 * returned).  The new slot goes down from registers: copying it through the
 * heap first stalls on store forwarding.
 */
static inline __attribute__((always_inline)) int place_top(tio_mux *m, tio_stream *s, int r, slot ns)
{
	if (r > 0) {
		if (m->n == 1)
			m->heap[0] = ns;
		else
			sift_down_slot(m, 0, ns);
		return 0;
	}
	drop_top(m);
	if (r < 0) {
		m->errors++;
		m->pending[m->npending++] = s;
	}
	return r;
}

/* The bytes before time `ns` of the streams that can be cut (whole[i] != UINT64_MAX). */
static uint64_t part_weight(const tio_mux *m, const uint64_t *whole, int64_t ns)
{
	uint64_t w = 0;
	for (size_t i = 0; i < m->nall; i++)
		if (whole[i] != UINT64_MAX)
			w += m->all[i]->ops->part_bytes(m->all[i], ns);
	return w;
}

/* The earliest time before which the streams that can be cut hold `target` bytes or more. */
static int64_t part_time(const tio_mux *m, const uint64_t *whole, uint64_t target)
{
	uint64_t lo = 0, hi = UINT64_MAX; /* ns + 2^63, so that the search needs no signed overflow */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (part_weight(m, whole, (int64_t)(mid ^ (1ull << 63))) >= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (int64_t)(lo ^ (1ull << 63));
}

/*
 * tio_mux_set_part, at the first message: the cut times (the same in
 * every part: they depend on the indexes only), then each stream kept to
 * its packets between this part's two; a stream that cannot be cut stays
 * whole in part 0 and is left out of the others.
 */
static int apply_part(tio_mux *m)
{
	m->parted = true;
	m->part_failed = true; /* until the streams are cut */
	for (size_t i = 0; i < m->nall; i++)
		m->all[i]->in_part = true;
	if (m->has_begin || m->begin_tod || m->seeked)
		return tio_err_set(TIO_ERR_USAGE, "tio_mux_set_part: not with a begin bound or a seek");
	uint64_t *whole = tio_calloc(m->nall ? m->nall : 1, sizeof(uint64_t));
	if (!whole)
		return TIO_ERR_NOMEM;
	uint64_t total = 0;
	for (size_t i = 0; i < m->nall; i++) {
		const tio_stream_ops *o = m->all[i]->ops;
		whole[i] = o->part_bytes && o->part_keep ? o->part_bytes(m->all[i], INT64_MAX) : UINT64_MAX;
		if (whole[i] != UINT64_MAX)
			total += whole[i];
	}
	unsigned k = m->part, n = m->nparts;
	/* part j begins where the streams have j/n of their bytes before */
	uint64_t a = total / n * k + total % n * k / n, b = total / n * (k + 1) + total % n * (k + 1) / n;
	int64_t lo = k ? part_time(m, whole, a) : INT64_MIN;
	int64_t hi = k + 1 < n ? part_time(m, whole, b) : INT64_MAX;
	int ret = 0;
	if (m->part_exact) {
		/* every stream, from the first message at lo (through the indexes) to the last before hi */
		free(whole);
		for (size_t i = 0; i < m->nall; i++)
			m->all[i]->part_past = false;
		if (k) {
			m->has_begin = true;
			m->begin = lo;
		}
		if (k + 1 < n) {
			if (hi == INT64_MIN)
				return 0; /* an empty part: part_failed stays, nothing is read */
			m->has_end = true;
			m->end = hi - 1;
		}
		m->part_failed = false;
		return 0;
	}
	size_t keep = 0;
	for (size_t i = 0; i < m->nall; i++) {
		tio_stream *s = m->all[i];
		if (whole[i] == UINT64_MAX) {
			if (k == 0)
				m->all[keep++] = s;
			continue;
		}
		int r = s->ops->part_keep(s, lo, hi);
		if (r && !ret)
			ret = r;
		m->all[keep++] = s;
	}
	free(whole);
	m->nall = keep;
	m->npending = 0;
	for (size_t i = 0; i < m->nall; i++)
		m->pending[m->npending++] = m->all[i];
	m->part_failed = ret != 0;
	return ret;
}

int tio_mux_set_part(tio_mux *m, unsigned k, unsigned n)
{
	if (k >= n)
		return tio_err_set(TIO_ERR_USAGE, "tio_mux_set_part: part %u of %u", k, n);
	m->part = k;
	m->nparts = n;
	return 0;
}

int tio_mux_set_part_in_order(tio_mux *m, unsigned k, unsigned n)
{
	int r = tio_mux_set_part(m, k, n);
	if (!r)
		m->part_exact = n > 1;
	return r;
}

/* Everything but the fast path of tio_mux_next; `msg`/`r`: what the root's
   stream returned there when `fetched`. */
static __attribute__((noinline)) int mux_next_slow(tio_mux *m, const tio_msg **out, bool fetched, int fr,
						   const tio_msg *msg)
{
	if (m->nparts > 1 && !m->parted) {
		int r = apply_part(m);
		if (r)
			return r;
	}
	if (TIO_UNLIKELY(m->part_failed))
		return 0;
	if (fetched && fr > 0 && m->part_exact) { /* the fast path's message out of the part's times */
		int x = part_in_order(m, m->heap[0].s, msg, msg_key(msg));
		if (x < 0) {
			fr = x;
		} else if (!x) { /* the part before has it: the stream's next one instead */
			fetched = false;
			m->top_pending = true;
		}
	}
	if (fetched) {
		tio_stream *s = m->heap[0].s;
		m->top_pending = false;
		if ((fr = place_top(m, s, fr, fr > 0 ? (slot){s, msg, msg_key(msg)} : (slot){0})) < 0)
			return fr;
	}
	if (m->class_fn && !m->class_set) {
		m->class_set = true;
		for (size_t i = 0; i < m->nall; i++)
			if (m->all[i]->ops->skip_filter)
				m->all[i]->ops->skip_filter(m->all[i], INT64_MAX, m->class_fn, m->class_arg, NULL);
	}
	if (!m->started && m->has_begin && m->skip_fn && m->skip_class_fn && !m->seeked && !m->class_fn &&
	    seek_ok()) {
		/* the skip hook needs some classes only: the others may be passed over */
		m->seeked = true;
		for (size_t i = 0; i < m->nall; i++)
			if (m->all[i]->ops->skip_filter)
				m->all[i]->ops->skip_filter(m->all[i], m->begin, m->skip_class_fn, m->skip_class_arg,
							    &m->skip_epoch);
	}
	if (!m->started && m->has_begin && !m->skip_fn && !m->seeked && seek_ok()) {
		/* a begin bound: every stream goes there through its index first */
		int r = seek_all(m, m->begin);
		if (r)
			return r;
	}
	if (!m->mt_decided) {
		/* workers read the streams ahead (from where the seek left them),
		   unless a skip hook must see what comes before the begin bound
		   (its class answers come from the readers), this is one part of
		   several (tio_mux_set_part: a thread each), or there is little to read */
		m->mt_decided = true;
		if (!m->skip_fn && m->nparts <= 1 && worth_threads(m)) {
			int r = mt_pipe_new(m->all, m->nall, m->threads, &m->pipe);
			if (r)
				return r;
			for (size_t i = 0; m->pipe && i < m->npending; i++)
				if (m->pending[i]->mt) /* its proxy begins with the stream the mux sees */
					m->pending[i] = (tio_stream *)m->pending[i]->mt;
		}
	}
	for (;;) {
		/*
		 * The stream whose message was returned last stays at the root:
		 * advance it and sift it down once (one heap operation a message).
		 */
		if (m->top_pending) {
			m->top_pending = false;
			tio_stream *s = m->heap[0].s;
			slot ns;
			int r = fetch(m, s, &ns);
			if ((r = place_top(m, s, r, ns)) < 0)
				return r;
		}
		while (m->npending) {
			tio_stream *s = m->pending[--m->npending];
			slot ns;
			int r = fetch(m, s, &ns);
			if (r < 0) {
				m->errors++;
				m->pending[m->npending++] = s;
				return r;
			}
			if (r > 0) {
				m->heap[m->n] = ns;
				sift_up(m, m->n++);
			}
		}
		if (!m->n)
			return 0;
		if (!m->started) {
			m->started = true;
			if ((m->begin_tod || m->end_tod) && m->heap[0].key != INT64_MIN) {
				int64_t day = day_start(m->heap[0].key, m->tod_utc);
				if (m->begin_tod) {
					m->begin += day;
					m->has_begin = true;
				}
				if (m->end_tod) {
					m->end += day;
					m->has_end = true;
				}
			}
			m->plain = !m->has_begin && !m->has_end;
			if (m->part_exact && !m->skip_fn && !(m->has_begin && m->has_end && m->end < m->begin)) {
				/* the bounds of a part in order: checked on the fast path */
				m->plain = true;
				m->fast_lo = m->has_begin ? m->begin : INT64_MIN;
				m->fast_span = (uint64_t)(m->has_end ? m->end : INT64_MAX) - (uint64_t)m->fast_lo;
			}
			/* --begin: the streams go there through their index, unless a
			   skip hook must see the events before it */
			if (m->has_begin && !m->skip_fn && !m->seeked && m->heap[0].key < m->begin && seek_ok()) {
				int r = seek_all(m, m->begin);
				if (r)
					return r;
				continue;
			}
		}
		const slot top = m->heap[0];
		if (m->has_end && top.key != INT64_MIN && top.key > m->end) {
			drop_top(m); /* this stream is past the end */
			continue;
		}
		m->top_pending = true;
		if (before_begin(m, top.m, top.key)) {
			if (m->skip_fn) {
				m->skip_epoch++;
				m->skip_fn(m->skip_arg, top.m);
			}
			continue;
		}
		if ((top.m->type == TIO_MSG_DISCARDED_EVENTS || top.m->type == TIO_MSG_DISCARDED_PACKETS) &&
		    top.m->has_range && (m->has_begin || m->has_end) && !m->part_exact) {
			/* as babeltrace2's trimmer: keep the part of the range inside the
			 * bounds; a cut range no longer knows how many were discarded */
			if ((m->has_begin && top.m->end_ns < m->begin) || (m->has_end && top.m->begin_ns > m->end))
				continue;
			bool cut_b = m->has_begin && top.m->begin_ns < m->begin;
			bool cut_e = m->has_end && top.m->end_ns > m->end;
			if (cut_b || cut_e) {
				m->clipped = *top.m;
				if (cut_b)
					m->clipped.begin_ns = m->begin;
				if (cut_e)
					m->clipped.end_ns = m->end;
				m->clipped.count = 0;
				*out = &m->clipped;
				return 1;
			}
		}
		*out = top.m;
		return 1;
	}
}

int tio_mux_next(tio_mux *m, const tio_msg **out)
{
	/*
	 * The common case first, in a function small enough to need few
	 * registers: no time bounds, and the root's stream has a message
	 * earlier than both of the root's children: it stays at the root, no
	 * heap operation (with two streams, a later one swaps them).
	 * Otherwise the message fetched is placed as mux_next_slow places it.
	 */
	if (TIO_LIKELY(m->top_pending && m->plain && m->n > 1 && !m->npending)) {
		tio_stream *s = m->heap[0].s;
		const tio_msg *msg = NULL;
		int r = s->ops->next(s, &msg);
		if (TIO_LIKELY(r > 0 && msg->has_ts && (uint64_t)msg->ns - (uint64_t)m->fast_lo <= m->fast_span)) {
			int64_t k = msg->ns;
			if (k < m->heap[1].key && (m->n < 3 || k < m->heap[2].key)) {
				m->heap[0].m = msg;
				m->heap[0].key = k;
				*out = msg;
				return 1;
			}
			if (m->n == 2 && k > m->heap[1].key) {
				/* with no bounds the other stream's message is returned as is */
				m->heap[0] = m->heap[1];
				m->heap[1] = (slot){s, msg, k};
				*out = m->heap[0].m;
				return 1;
			}
		}
		return mux_next_slow(m, out, true, r, msg);
	}
	return mux_next_slow(m, out, false, 0, NULL);
}

void tio_mux_set_skip_hook(tio_mux *m, tio_mux_skip_fn fn, void *arg)
{
	m->skip_fn = fn;
	m->skip_arg = arg;
}

void tio_mux_set_event_classes(tio_mux *m, tio_mux_skip_class_fn fn, void *arg)
{
	m->class_fn = fn;
	m->class_arg = arg;
}

void tio_mux_set_skip_classes(tio_mux *m, tio_mux_skip_class_fn fn, void *arg)
{
	m->skip_class_fn = fn;
	m->skip_class_arg = arg;
}

void tio_mux_set_begin_time_of_day(tio_mux *m, int64_t ns, bool utc)
{
	m->begin_tod = true;
	m->tod_utc = utc;
	m->begin = ns;
}

void tio_mux_set_end_time_of_day(tio_mux *m, int64_t ns, bool utc)
{
	m->end_tod = true;
	m->tod_utc = utc;
	m->end = ns;
}

/*
 * Public seek: the next messages are those at or after `ns`, as with a
 * begin bound set before the first message; any number of times, in either
 * direction.  The end bound stays.
 */
int tio_mux_seek(tio_mux *m, int64_t ns)
{
	if (m->nparts > 1) /* a seek would leave the part's packets */
		return tio_err_set(TIO_ERR_USAGE, "tio_mux_seek: not on a mux that reads a part (tio_mux_set_part)");
	m->has_begin = true;
	m->begin = ns;
	m->begin_tod = false;
	m->plain = false;
	return seek_all(m, ns);
}

uint64_t tio_mux_errors(const tio_mux *m) { return m->errors; }

void tio_mux_set_threads(tio_mux *m, unsigned n) { m->threads = n; }

void tio_mux_free(tio_mux *m)
{
	if (!m)
		return;
	mt_pipe_free(m->pipe);
	free(m->heap);
	free(m->pending);
	free(m->all);
	free(m);
}

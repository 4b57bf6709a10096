/*
 * New LTT format reader (seed 001, "The new LTT trace format"): a trace is a
 * directory with eventdefs/NAME.xml (facilities), info/system.xml (arch_size,
 * endian, ltt_block_size), info/bookmarks.xml (annotations), control/NAME
 * tracefiles (control/facilities holds the builtin facility_load events) and
 * cpu/N tracefiles.  A tracefile is a run of ltt_block_size-byte blocks:
 *
 *   block_start event at 0, events packed one after the other, block_end
 *   event at the offset the block's last 4 bytes give (u32)
 *   event: u16 event type id (facility base code + index), u32 time delta
 *   in cycles since the last full time (block_start's or the last
 *   time_heartbeat's cycle_count), then the payload laid out by its type
 *   (packed, in the byte order of system.xml's endian).
 *
 * The builtin facility's events are metadata, not events of the trace:
 * block_start, block_end and time_heartbeat frame the data and give time,
 * facility_load events (control/facilities) say which facility version
 * each event type id belongs to.  None of them is returned as an event.
 * See docs/formats/ltt.md for every choice the seed leaves open.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>

#include "ltt/lttnew.h"

#define LR_MAX_VALS (1u << 22)
/* Values an event may have per byte it takes (header included): a byte
 * read is one value inside at most LR_DEPTH + 1 structures; more come only
 * from types that read nothing (<array size=0>, <struct> without fields),
 * with which a 6-byte event could ask for LR_MAX_VALS values. */
#define LR_VALS_PER_BYTE 256u
#define LR_MAX_FILES 65536u
#define LR_DEPTH 128

typedef struct lr_ev {
	tio_event_class *ec;   /* NULL: not an event id of the trace */
	const tio_fc *top[4];  /* what follows the event header, in order */
	uint8_t scope[4];      /* the scope each of top[] fills */
	uint8_t ntop;
	tio_fc *owned[2];      /* packet/common context classes (the ec owns the others) */
} lr_ev;

typedef struct lr_load {
	uint64_t off;	/* of the facility_load event in control/facilities */
	char *error;	/* why it was not used, NULL when it was */
} lr_load;

/* A facility in the index by name and checksum (lr_trace.byname). */
typedef struct lr_facix {
	const char *name;
	uint32_t sum, i;
} lr_facix;

typedef struct lr_trace {
	bool be;
	lt_arch arch;
	uint32_t block;
	bool has_freq;	       /* the clock comes from system.xml (else interpolation) */
	const tio_clock *clock;
	lt_facility **facs;    /* [0] builtin, then every eventdefs facility */
	uint32_t nfacs;
	size_t capfacs;
	lr_facix *byname;      /* facs sorted by name, checksum, order (facix_cmp) */
	lr_ev *ev;	       /* by event type id */
	uint32_t nev;
	lr_load *loads;	       /* facility_load events that were not used */
	uint32_t nloads;
	size_t caploads;
	tio_stream_class *sc;
	tio_event_class *fl_ec; /* facility_load's (not in sc->ecs) */
	uint64_t fc_nodes;     /* field classes made for the event classes (lt_type_fc_count) */
} lr_trace;

typedef struct lr_tf {
	tio_stream base; /* first: the stream is this struct */
	lr_trace *tr;
	tio_map map;
	bool is_facilities;
	bool prescan; /* facility_load events are returned (only while opening) */
	/* position */
	uint64_t blk;	    /* file offset of the current block */
	uint32_t pos, last; /* next event, block_end event (block relative) */
	bool in_block, done, begun;
	uint64_t base_cyc;  /* last full time */
	uint64_t c0, c1;    /* block_start / block_end cycle counts */
	int64_t n0, n1;	    /* and their times (ns) */
	/* decoding */
	const uint8_t *p;   /* block start */
	uint32_t at, lim;
	uint32_t ev_at;	    /* where the event being decoded begins */
	uint64_t last_u;    /* last integer decoded: a sequence length or union tag */
	tio_val *vals;
	uint32_t nvals, cap;
	char epath[256];    /* field path of a decoding error, built while unwinding */
	char ewhat[200];
	uint32_t eat;
	tio_msg msg;
} lr_tf;

bool lt_arch_parse(const char *w, lt_arch *a)
{
	if (!w)
		return false;
	if (!strcmp(w, "LP32"))
		a->int_size = 2, a->long_size = 4;
	else if (!strcmp(w, "ILP32"))
		a->int_size = 4, a->long_size = 4;
	else if (!strcmp(w, "LP64"))
		a->int_size = 4, a->long_size = 8;
	else if (!strcmp(w, "ILP64"))
		a->int_size = 8, a->long_size = 8;
	else
		return false;
	return true;
}

static inline uint16_t rd16(bool be, const uint8_t *p) { return be ? tio_be16(p) : tio_le16(p); }
static inline uint32_t rd32(bool be, const uint8_t *p) { return be ? tio_be32(p) : tio_le32(p); }
static inline uint64_t rd64(bool be, const uint8_t *p) { return be ? tio_be64(p) : tio_le64(p); }

/* ---------------------------------------------------------------- time */

static int64_t cyc_ns(const lr_tf *tf, uint64_t c)
{
	const lr_trace *tr = tf->tr;
	if (tr->has_freq) {
		int64_t ns = 0;
		tio_clock_ns(tr->clock, c, &ns);
		return ns;
	}
	/* linear between the block's (cycle_count, time) pairs */
	/* hostile block times: the sums wrap (unsigned) instead of overflowing */
	if (tf->c1 <= tf->c0)
		return (int64_t)((uint64_t)tf->n0 + (c - tf->c0));
	__int128 d = (__int128)((int64_t)(c - tf->c0)) * ((__int128)tf->n1 - tf->n0) / (__int128)(tf->c1 - tf->c0);
	return (int64_t)((uint64_t)tf->n0 + (uint64_t)(int64_t)d);
}

/* ---------------------------------------------------------------- decoding */

/* Record a decoding error at block offset `at`; the caller adds the field path. */
static int derr(lr_tf *tf, uint32_t at, const char *fmt, ...) TIO_PRINTF(3, 4);
static int derr(lr_tf *tf, uint32_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tf->ewhat, sizeof(tf->ewhat), fmt, ap);
	va_end(ap);
	tf->eat = at;
	tf->epath[0] = 0;
	return TIO_ERR_FORMAT;
}

/* Put `name` (and a dot) before the error path. */
static void epath_push(lr_tf *tf, const char *name)
{
	size_t l = strlen(tf->epath), n = strlen(name) + (l ? 1 : 0);
	if (l + n + 1 > sizeof(tf->epath))
		return;
	memmove(tf->epath + n, tf->epath, l + 1);
	memcpy(tf->epath, name, strlen(name));
	if (l)
		tf->epath[n - 1] = '.';
}

static int new_val(lr_tf *tf, const tio_fc *fc, uint32_t *vi)
{
	if (TIO_UNLIKELY(tf->nvals >= (uint64_t)LR_VALS_PER_BYTE * (tf->at - tf->ev_at)))
		return derr(tf, tf->at, "more than %u fields for the %u bytes of the event read so far (types that read no byte)",
			    tf->nvals, tf->at - tf->ev_at);
	if (TIO_UNLIKELY(tf->nvals >= tf->cap)) {
		if (tf->nvals >= LR_MAX_VALS)
			return derr(tf, tf->at, "more than %u fields in one event", LR_MAX_VALS);
		size_t cap = tf->cap;
		if (tio_grow(&tf->vals, &cap, tf->nvals + 1, sizeof(tio_val)))
			return TIO_ERR_NOMEM;
		tf->cap = (uint32_t)(cap > LR_MAX_VALS ? LR_MAX_VALS : cap);
	}
	*vi = tf->nvals++;
	tio_val *v = &tf->vals[*vi];
	v->fc = fc;
	v->n = 0;
	v->opt = 0;
	v->end = *vi + 1;
	return 0;
}

static int dec(lr_tf *tf, const tio_fc *fc, int depth)
{
	const bool be = tf->tr->be;
	uint32_t vi = 0;
	int r = new_val(tf, fc, &vi);
	if (r)
		return r;
	if (depth > LR_DEPTH)
		return derr(tf, tf->at, "types nested deeper than %d", LR_DEPTH);
	uint32_t left = tf->lim - tf->at;
	const uint8_t *p = tf->p + tf->at;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM: {
		uint32_t n = fc->i.size / 8;
		if (n > left)
			return derr(tf, tf->at, "needs %u bytes, %u left before the block_end event", n, left);
		uint64_t u = n == 1 ? p[0] : n == 2 ? rd16(be, p) : n == 4 ? rd32(be, p) : rd64(be, p);
		tf->last_u = u;
		tf->vals[vi].v.u = fc->i.is_signed ? (uint64_t)tio_sext(u, fc->i.size) : u;
		tf->at += n;
		return 0;
	}
	case TIO_FC_FLOAT: {
		uint32_t n = fc->f.mant_dig == 24 ? 4 : 8;
		if (n > left)
			return derr(tf, tf->at, "needs %u bytes, %u left before the block_end event", n, left);
		if (n == 4) {
			uint32_t u = rd32(be, p);
			float x;
			memcpy(&x, &u, 4);
			tf->vals[vi].v.d = x;
		} else {
			uint64_t u = rd64(be, p);
			memcpy(&tf->vals[vi].v.d, &u, 8);
		}
		tf->at += n;
		return 0;
	}
	case TIO_FC_STRING: {
		const uint8_t *nul = left ? memchr(p, 0, left) : NULL;
		if (!nul)
			return derr(tf, tf->at, "string runs into the block_end event");
		tf->vals[vi].v.s.p = (const char *)p;
		tf->vals[vi].v.s.len = (uint64_t)(nul - p);
		tf->at += (uint32_t)(nul - p) + 1;
		return 0;
	}
	case TIO_FC_STRUCT:
		tf->vals[vi].n = fc->st.nmembers;
		for (uint32_t k = 0; k < fc->st.nmembers; k++) {
			r = dec(tf, fc->st.members[k].fc, depth + 1);
			if (r) {
				if (r == TIO_ERR_FORMAT)
					epath_push(tf, fc->st.members[k].name ? fc->st.members[k].name : "");
				return r;
			}
		}
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE: {
		uint64_t n = fc->kind == TIO_FC_ARRAY ? fc->a.length : tf->last_u;
		if (fc->a.text) {
			/* characters: the bytes as one span */
			if (n > left)
				return derr(tf, tf->at, "%llu characters, %u bytes left before the block_end event",
					    (unsigned long long)n, left);
			tf->vals[vi].v.s.p = (const char *)p;
			tf->vals[vi].v.s.len = n;
			tf->at += (uint32_t)n;
			return 0;
		}
		if (n > LR_MAX_VALS)
			return derr(tf, tf->at, "length %llu is more than %u", (unsigned long long)n, LR_MAX_VALS);
		tf->vals[vi].n = (uint32_t)n;
		tf->vals[vi].v.s.p = NULL;
		for (uint64_t k = 0; k < n; k++) {
			r = dec(tf, fc->a.elem, depth + 1);
			if (r) {
				if (r == TIO_ERR_FORMAT) {
					char idx[32];
					snprintf(idx, sizeof(idx), "[%llu]", (unsigned long long)k);
					epath_push(tf, idx);
				}
				return r;
			}
		}
		break;
	}
	case TIO_FC_VARIANT: {
		uint64_t tag = tf->last_u;
		if (tag >= fc->v.noptions)
			return derr(tf, tf->at, "union tag %llu, but the union has %u fields",
				    (unsigned long long)tag, fc->v.noptions);
		tf->vals[vi].n = 1;
		tf->vals[vi].opt = (uint32_t)tag;
		r = dec(tf, fc->v.options[tag].fc, depth + 1);
		if (r) {
			if (r == TIO_ERR_FORMAT)
				epath_push(tf, fc->v.options[tag].name ? fc->v.options[tag].name : "");
			return r;
		}
		break;
	}
	default:
		return derr(tf, tf->at, "field class kind %d cannot be read", fc->kind);
	}
	tf->vals[vi].end = tf->nvals;
	return 0;
}

/* ---------------------------------------------------------------- blocks */

static int ferr(const lr_tf *tf, uint64_t off, const char *field, const char *fmt, ...) TIO_PRINTF(4, 5);
static int ferr(const lr_tf *tf, uint64_t off, const char *field, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: %s: %s", tf->map.path, (unsigned long long)off, field, what);
}

/* Read a framing event (block_start/block_end) at block offset `at`. */
static int frame(lr_tf *tf, uint32_t at, uint16_t want, uint64_t *cyc, int64_t *ns)
{
	const bool be = tf->tr->be;
	const uint8_t *p = tf->p + at;
	const char *nm = want == LT_ID_BLOCK_START ? "block_start" : "block_end";
	char fld[64];
	uint16_t id = rd16(be, p);
	if (id != want) {
		snprintf(fld, sizeof(fld), "%s event header.id", nm);
		return ferr(tf, tf->blk + at, fld, "%u, not %u (%s)", id, want, nm);
	}
	uint32_t s = rd32(be, p + LT_EV_HDR), n = rd32(be, p + LT_EV_HDR + 4);
	if (n >= 1000000000u) {
		snprintf(fld, sizeof(fld), "%s.timestamp.time.nanoseconds", nm);
		return ferr(tf, tf->blk + at + LT_EV_HDR + 4, fld, "%u is not below 1000000000", n);
	}
	*cyc = rd64(be, p + LT_EV_HDR + 8);
	*ns = (int64_t)s * 1000000000 + n;
	return 0;
}

static int open_block(lr_tf *tf)
{
	const uint32_t B = tf->tr->block;
	uint64_t left = tf->map.size - tf->blk;
	if (left < B) {
		tf->done = true;
		return ferr(tf, tf->blk, "block", "truncated: %llu bytes left, blocks are %u bytes (ltt_block_size)",
			    (unsigned long long)left, B);
	}
	tf->p = tf->map.p + tf->blk;
	uint32_t last = rd32(tf->tr->be, tf->p + B - 4);
	int r = 0;
	if (last < LT_FRAME || last > B - 4 - LT_FRAME)
		r = ferr(tf, tf->blk + B - 4, "block trailer (offset of the block_end event)",
			 "%u is outside [%u, %u]", last, LT_FRAME, B - 4 - LT_FRAME);
	if (!r)
		r = frame(tf, 0, LT_ID_BLOCK_START, &tf->c0, &tf->n0);
	if (!r)
		r = frame(tf, last, LT_ID_BLOCK_END, &tf->c1, &tf->n1);
	if (r) {
		/* the block is skipped, the next one is read */
		tf->blk += B;
		tf->done = tf->blk >= tf->map.size;
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", tio_error_message());
		return tio_err_set(r, "%s (block skipped)", msg);
	}
	tf->last = last;
	tf->pos = LT_FRAME;
	tf->base_cyc = tf->c0;
	tf->in_block = true;
	return 0;
}

/* An error in an event: the rest of the block is skipped (event sizes are not stored). */
static int ev_fail(lr_tf *tf, int r)
{
	tf->pos = tf->last;
	if (r != TIO_ERR_FORMAT)
		return r;
	char msg[1024];
	snprintf(msg, sizeof(msg), "%s", tio_error_message());
	return tio_err_set(r, "%s (rest of the block skipped)", msg);
}

/* Read the event at tf->pos: 1 with tf->msg filled, 0 for framing, or an error. */
static int read_event(lr_tf *tf)
{
	lr_trace *tr = tf->tr;
	const bool be = tr->be;
	uint32_t start = tf->pos;
	if (tf->last - start < LT_EV_HDR)
		return ev_fail(tf, ferr(tf, tf->blk + start, "event header", "needs %u bytes, %u left before the block_end event",
					LT_EV_HDR, tf->last - start));
	const uint8_t *h = tf->p + start;
	uint16_t id = rd16(be, h);
	uint64_t cyc = tf->base_cyc + rd32(be, h + 2);
	if (id == LT_ID_HEARTBEAT) {
		if (tf->last - start < LT_EV_HDR + LT_TIMESTAMP)
			return ev_fail(tf, ferr(tf, tf->blk + start, "time_heartbeat", "needs %u bytes, %u left before the block_end event",
						LT_EV_HDR + LT_TIMESTAMP, tf->last - start));
		uint32_t n = rd32(be, h + LT_EV_HDR + 4);
		if (n >= 1000000000u)
			return ev_fail(tf, ferr(tf, tf->blk + start + LT_EV_HDR + 4, "time_heartbeat.timestamp.time.nanoseconds",
						"%u is not below 1000000000", n));
		tf->base_cyc = rd64(be, h + LT_EV_HDR + 8);
		tf->pos = start + LT_EV_HDR + LT_TIMESTAMP;
		return 0;
	}
	const lr_ev *ev = id < tr->nev ? &tr->ev[id] : NULL;
	if (!ev || !ev->ec) {
		if (id == LT_ID_BLOCK_START || id == LT_ID_BLOCK_END)
			return ev_fail(tf, ferr(tf, tf->blk + start, "event header.id", "%u (%s) before the block's end",
						id, id == LT_ID_BLOCK_START ? "block_start" : "block_end"));
		return ev_fail(tf, ferr(tf, tf->blk + start, "event header.id",
					"%u is not the id of an event of any loaded facility", id));
	}
	tf->at = start + LT_EV_HDR;
	tf->ev_at = start;
	tf->lim = tf->last;
	tf->nvals = 0;
	uint32_t roots[4];
	for (uint32_t k = 0; k < ev->ntop; k++) {
		roots[k] = tf->nvals;
		int r = dec(tf, ev->top[k], 0);
		if (r) {
			if (r != TIO_ERR_FORMAT)
				return ev_fail(tf, r);
			char fld[400];
			snprintf(fld, sizeof(fld), "%s%s%s", ev->ec->name, tf->epath[0] ? "." : "", tf->epath);
			return ev_fail(tf, ferr(tf, tf->blk + tf->eat, fld, "%s", tf->ewhat));
		}
	}
	tf->pos = tf->at;
	tio_msg *m = &tf->msg;
	memset(m, 0, sizeof(*m));
	m->type = TIO_MSG_EVENT;
	m->stream = &tf->base;
	m->ec = ev->ec;
	m->has_ts = true;
	m->cycles = cyc;
	m->ns = cyc_ns(tf, cyc);
	m->offset = tf->blk + start;
	m->vals = tf->vals;
	m->nvals = tf->nvals;
	for (uint32_t k = 0; k < ev->ntop; k++)
		m->scope[ev->scope[k]] = &tf->vals[roots[k]];
	if (id == LT_ID_FACILITY_LOAD && !tf->prescan) {
		/* metadata, like eventdefs: not an event of the trace; a load
		 * that could not be used is reported here */
		if (!tf->is_facilities)
			return 0;
		/* loads were noted in file order: a binary search (a scan of
		 * them all per load was quadratic) */
		uint32_t lo = 0, hi = tr->nloads;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (tr->loads[mid].off < m->offset)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < tr->nloads && tr->loads[lo].off == m->offset && tr->loads[lo].error)
			return tio_err_set(TIO_ERR_FORMAT, "%s", tr->loads[lo].error);
		return 0;
	}
	return 1;
}

static int tf_next_raw(lr_tf *tf, const tio_msg **out)
{
	for (;;) {
		if (tf->done)
			return 0;
		if (!tf->in_block) {
			if (tf->blk >= tf->map.size) {
				tf->done = true;
				return 0;
			}
			int r = open_block(tf);
			if (r)
				return r;
		}
		if (tf->pos >= tf->last) {
			tio_map_release(&tf->map, tf->blk);
			tf->in_block = false;
			tf->blk += tf->tr->block;
			continue;
		}
		int r = read_event(tf);
		if (r == 1) {
			*out = &tf->msg;
			return 1;
		}
		if (r)
			return r;
	}
}

static int tf_next(tio_stream *s, const tio_msg **out)
{
	lr_tf *tf = (lr_tf *)s;
	if (!tf->begun) {
		tf->begun = true;
		tio_msg *m = &tf->msg;
		memset(m, 0, sizeof(*m));
		m->type = TIO_MSG_STREAM_BEGIN;
		m->stream = s;
		*out = m;
		return 1;
	}
	return tf_next_raw(tf, out);
}

static void tf_free(tio_stream *s)
{
	lr_tf *tf = (lr_tf *)s;
	tio_map_close(&tf->map);
	free(tf->vals);
	free(tf);
}

/* tio_stream_ops.seek: back to the first block, as after opening (no block index yet). */
static int tf_seek(tio_stream *s, int64_t ns)
{
	(void)ns;
	lr_tf *tf = (lr_tf *)s;
	tf->blk = 0;
	tf->in_block = tf->done = tf->begun = false;
	tio_map_rewind(&tf->map, 0);
	return 0;
}

static const tio_stream_ops tf_ops = {.next = tf_next, .free = tf_free, .seek = tf_seek};

/* ---------------------------------------------------------------- opening */

typedef struct lr_priv {
	lr_trace tr;
} lr_priv;

static void lr_free(tio_trace *t)
{
	lr_priv *p = t->user;
	if (!p)
		return;
	lr_trace *tr = &p->tr;
	for (uint32_t i = 0; i < tr->nfacs; i++)
		lt_facility_free(tr->facs[i]);
	free(tr->facs);
	free(tr->byname);
	for (uint32_t i = 0; i < tr->nev; i++) {
		tio_fc_free(tr->ev[i].owned[0]);
		tio_fc_free(tr->ev[i].owned[1]);
	}
	free(tr->ev);
	for (uint32_t i = 0; i < tr->nloads; i++)
		free(tr->loads[i].error);
	free(tr->loads);
	tio_event_class_free(tr->fl_ec);
	free(p);
	t->user = NULL;
}

static int lr_probe(const char *path)
{
	if (!tio_is_dir(path))
		return 0;
	char *sys = tio_path_join(path, "info/system.xml");
	FILE *f = sys ? fopen(sys, "rb") : NULL;
	free(sys);
	if (!f) {
		tio_err_clear();
		return 0;
	}
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, "<system") ? 100 : 0;
}

static int kv_push(tio_kv **v, uint32_t *n, const char *key, const char *sval)
{
	tio_kv *nv = tio_realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return TIO_ERR_NOMEM;
	*v = nv;
	tio_kv *kv = &nv[*n];
	memset(kv, 0, sizeof(*kv));
	kv->key = tio_strdup(key);
	/* a value written as a plain decimal number is an integer */
	size_t l = strlen(sval);
	bool num = l > 0 && l < 19 && strspn(sval + (sval[0] == '-'), "0123456789") == l - (sval[0] == '-') &&
		   l > (size_t)(sval[0] == '-') && !(sval[sval[0] == '-'] == '0' && l > 1u + (sval[0] == '-'));
	if (num) {
		kv->is_int = true;
		kv->ival = strtoll(sval, NULL, 10);
	} else {
		kv->sval = tio_strdup(sval);
	}
	if (!kv->key || (!num && !kv->sval)) {
		free(kv->key);
		free(kv->sval);
		return TIO_ERR_NOMEM;
	}
	(*n)++;
	return 0;
}

static int kv_text(tio_kv **v, uint32_t *n, const char *key, const char *text)
{
	tio_kv *nv = tio_realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return TIO_ERR_NOMEM;
	*v = nv;
	tio_kv *kv = &nv[*n];
	memset(kv, 0, sizeof(*kv));
	kv->key = tio_strdup(key);
	kv->sval = tio_strdup(text);
	if (!kv->key || !kv->sval) {
		free(kv->key);
		free(kv->sval);
		return TIO_ERR_NOMEM;
	}
	(*n)++;
	return 0;
}

static const lx_node *find_elem(const lx_node *root, const char *name)
{
	for (uint32_t i = 0; i < root->nkids; i++)
		if (!strcmp(root->kids[i]->name, name))
			return root->kids[i];
	return NULL;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 20)
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno)
		return false;
	*out = v;
	return true;
}

static bool parse_i64(const char *s, int64_t *out)
{
	if (!s)
		return false;
	bool neg = *s == '-';
	uint64_t u;
	if (!parse_u64(s + neg, &u) || u > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

/* info/system.xml: byte order, type sizes, block size, clock; every attribute into env. */
static int read_system(tio_trace *t, lr_trace *tr, const char *dir, tio_clock *c)
{
	char *path = tio_path_join(dir, "info/system.xml");
	char *text = NULL;
	size_t len = 0;
	lx_node *root = NULL;
	int r = path ? tio_read_file(path, &text, &len) : TIO_ERR_NOMEM;
	if (!r)
		r = lx_parse(text, len, path, &root);
	const lx_node *sys = root ? find_elem(root, "system") : NULL;
	if (!r && !sys)
		r = tio_err_set(TIO_ERR_FORMAT, "%s: no <system> element", path);
	tio_trace_class *tc = t->tc;
	const char *v;
	uint64_t u;
#define SYSERR(...) (r = tio_err_set(TIO_ERR_FORMAT, __VA_ARGS__))
	if (!r) {
		v = lx_attr_get(sys, "endian");
		if (!v || (strcmp(v, "little") && strcmp(v, "big")))
			SYSERR("%s:%u: <system>.endian: %s%s%s is not little or big", path, sys->line, v ? "\"" : "",
			       v ? v : "missing", v ? "\"" : "");
		else
			tr->be = !strcmp(v, "big");
	}
	if (!r) {
		v = lx_attr_get(sys, "arch_size");
		if (!lt_arch_parse(v, &tr->arch))
			SYSERR("%s:%u: <system>.arch_size: %s%s%s is not LP32, ILP32, LP64 or ILP64", path, sys->line,
			       v ? "\"" : "", v ? v : "missing", v ? "\"" : "");
		tr->arch.be = tr->be;
	}
	if (!r) {
		v = lx_attr_get(sys, "ltt_block_size");
		if (!parse_u64(v, &u) || u < LT_BLOCK_MIN || u > LT_BLOCK_MAX)
			SYSERR("%s:%u: <system>.ltt_block_size: %s is not a number of bytes in [%u, %u]", path,
			       sys->line, v ? v : "missing", LT_BLOCK_MIN, LT_BLOCK_MAX);
		else
			tr->block = (uint32_t)u;
	}
	/* traceio's clock attributes: without them, time is interpolated per block */
	if (!r && (v = lx_attr_get(sys, "cycle_frequency"))) {
		if (!parse_u64(v, &u) || !u)
			SYSERR("%s:%u: <system>.cycle_frequency: %s is not a frequency in Hz", path, sys->line, v);
		else
			c->freq = u, tr->has_freq = true;
		if (!r && (v = lx_attr_get(sys, "clock_offset_s")) && !parse_i64(v, &c->offset_s))
			SYSERR("%s:%u: <system>.clock_offset_s: %s is not an integer", path, sys->line, v);
		if (!r && (v = lx_attr_get(sys, "clock_offset")) && !parse_i64(v, &c->offset))
			SYSERR("%s:%u: <system>.clock_offset: %s is not an integer", path, sys->line, v);
		if (!r && (v = lx_attr_get(sys, "clock_origin")))
			c->origin_unix = !strcmp(v, "unix");
		if (!r && (v = lx_attr_get(sys, "clock_name"))) {
			free(c->name);
			c->name = tio_strdup(v);
			r = c->name ? 0 : TIO_ERR_NOMEM;
		}
	}
#undef SYSERR
	for (uint32_t i = 0; !r && i < sys->nattrs; i++)
		r = kv_push(&tc->env, &tc->nenv, sys->attrs[i].name, sys->attrs[i].value);
	if (!r && sys->text && *sys->text)
		r = kv_text(&tc->tables, &tc->ntables, "ltt_system_text", sys->text);
	lx_free(root);
	free(text);
	free(path);
	return r;
}

/* "12.5" seconds to ns; false when it is not such a number (or not an int64 count of ns). */
static bool parse_secs(const char *s, int64_t *ns)
{
	if (!s || !*s)
		return false;
	const char *dot = strchr(s, '.');
	size_t il = dot ? (size_t)(dot - s) : strlen(s);
	if (!il || il > 10 || strspn(s, "0123456789") != il)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < il; i++)
		v = v * 10 + (s[i] - '0');
	int64_t frac = 0;
	if (dot) {
		size_t fl = strlen(dot + 1);
		if (!fl || fl > 9 || strspn(dot + 1, "0123456789") != fl)
			return false;
		for (size_t i = 0; i < 9; i++)
			frac = frac * 10 + (i < fl ? dot[1 + i] - '0' : 0);
	}
	/* 10 digits of seconds may exceed an int64 count of ns (from 9223372037 s on) */
	return !__builtin_mul_overflow(v, 1000000000, ns) && !__builtin_add_overflow(*ns, frac, ns);
}

/* info/bookmarks.xml (optional): <location> elements to annotations. */
static int read_bookmarks(tio_trace *t, const char *dir)
{
	char *path = tio_path_join(dir, "info/bookmarks.xml");
	if (!path)
		return TIO_ERR_NOMEM;
	if (!tio_is_file(path)) {
		free(path);
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	lx_node *root = NULL;
	int r = tio_read_file(path, &text, &len);
	if (!r)
		r = lx_parse(text, len, path, &root);
	const lx_node *bm = root ? find_elem(root, "bookmarks") : NULL;
	if (!r && !bm)
		r = tio_err_set(TIO_ERR_FORMAT, "%s: no <bookmarks> element", path);
	tio_trace_class *tc = t->tc;
	for (uint32_t i = 0; !r && i < bm->nkids; i++) {
		const lx_node *l = bm->kids[i];
		if (strcmp(l->name, "location"))
			continue;
		tio_annotation a = {.cpu = -1};
		const char *v, *bad = NULL;
		uint64_t u;
		if ((v = lx_attr_get(l, "cpu"))) {
			if (parse_u64(v, &u) && u <= INT64_MAX)
				a.cpu = (int64_t)u;
			else
				bad = "cpu";
		}
		int64_t b, e;
		if (!bad && (v = lx_attr_get(l, "time"))) {
			if (parse_secs(v, &b))
				a.begin = a.end = (uint64_t)b;
			else
				bad = "time";
		} else if (!bad && lx_attr_get(l, "start_time")) {
			if (!parse_secs(lx_attr_get(l, "start_time"), &b))
				bad = "start_time";
			else if (!parse_secs(lx_attr_get(l, "end_time"), &e))
				bad = "end_time";
			else
				a.begin = (uint64_t)b, a.end = (uint64_t)e;
		} else if (!bad && (v = lx_attr_get(l, "cycle"))) {
			a.in_cycles = true;
			if (parse_u64(v, &a.begin))
				a.end = a.begin;
			else
				bad = "cycle";
		} else if (!bad && lx_attr_get(l, "start_cycle")) {
			a.in_cycles = true;
			if (!parse_u64(lx_attr_get(l, "start_cycle"), &a.begin))
				bad = "start_cycle";
			else if (!parse_u64(lx_attr_get(l, "end_cycle"), &a.end))
				bad = "end_cycle";
		} else if (!bad) {
			bad = "time";
		}
		if (bad) {
			v = lx_attr_get(l, bad);
			r = tio_err_set(TIO_ERR_FORMAT, "%s:%u: <location>.%s: %s%s%s is not %s", path, l->line, bad,
					v ? "\"" : "", v ? v : "missing", v ? "\"" : "",
					strstr(bad, "cycle") ? "a cycle count" :
					!strcmp(bad, "cpu") ? "a CPU number" : "a time in seconds");
			break;
		}
		if ((v = lx_attr_get(l, "name")) && !(a.name = tio_strdup(v)))
			r = TIO_ERR_NOMEM;
		if (!r && l->text && *l->text && !(a.text = tio_strdup(l->text)))
			r = TIO_ERR_NOMEM;
		tio_annotation *na = r ? NULL : tio_realloc(tc->annotations, (tc->nannotations + 1) * sizeof(*na));
		if (!na) {
			free(a.name);
			free(a.text);
			r = r ? r : TIO_ERR_NOMEM;
			break;
		}
		tc->annotations = na;
		na[tc->nannotations++] = a;
	}
	lx_free(root);
	free(text);
	free(path);
	return r;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Regular files of dir/sub, sorted by name (numerically when `numeric`). */
static int list_files(const char *dir, const char *sub, const char *suffix, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char *d = tio_path_join(dir, sub);
	if (!d)
		return TIO_ERR_NOMEM;
	DIR *dd = opendir(d);
	if (!dd) {
		free(d);
		return 0;
	}
	char **v = NULL;
	size_t cap = 0, k = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(dd))) {
		if (de->d_name[0] == '.')
			continue;
		size_t l = strlen(de->d_name), sl = suffix ? strlen(suffix) : 0;
		if (suffix && (l <= sl || strcmp(de->d_name + l - sl, suffix)))
			continue;
		char *full = tio_path_join(d, de->d_name);
		if (!full) {
			r = TIO_ERR_NOMEM;
			break;
		}
		if (!tio_is_file(full)) {
			free(full);
			continue;
		}
		if (k >= LR_MAX_FILES || tio_grow(&v, &cap, k + 1, sizeof(*v))) {
			free(full);
			r = k >= LR_MAX_FILES ? tio_err_set(TIO_ERR_LIMIT, "%s: more than %u files", d, LR_MAX_FILES)
					      : TIO_ERR_NOMEM;
			break;
		}
		v[k++] = full;
	}
	closedir(dd);
	free(d);
	if (r) {
		for (size_t i = 0; i < k; i++)
			free(v[i]);
		free(v);
		return r;
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), name_cmp);
	*out = v;
	*n = k;
	return 0;
}

static void files_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int add_facility(lr_trace *tr, lt_facility *f)
{
	if (tio_grow(&tr->facs, &tr->capfacs, tr->nfacs + 1, sizeof(*tr->facs))) {
		lt_facility_free(f);
		return TIO_ERR_NOMEM;
	}
	tr->facs[tr->nfacs++] = f;
	return 0;
}

static int facix_cmp(const void *a, const void *b)
{
	const lr_facix *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The first entry of tr->byname not before (name, sum), or nfacs (sum UINT64_MAX: any checksum). */
static uint32_t facix_find(const lr_trace *tr, const char *name, uint64_t sum)
{
	uint32_t lo = 0, hi = tr->nfacs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const lr_facix *x = &tr->byname[mid];
		int c = strcmp(x->name, name);
		if (c < 0 || (!c && sum != UINT64_MAX && x->sum < sum))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* eventdefs/NAME.xml: every <facility>, kept with its canonical text in the side tables. */
static int read_eventdefs(tio_trace *t, lr_trace *tr, const char *dir)
{
	char **files;
	size_t n;
	int r = list_files(dir, "eventdefs", ".xml", &files, &n);
	for (size_t i = 0; !r && i < n; i++) {
		char *text = NULL;
		size_t len = 0;
		lx_node *root = NULL;
		r = tio_read_file(files[i], &text, &len);
		if (!r)
			r = lx_parse(text, len, files[i], &root);
		for (uint32_t k = 0; !r && k < root->nkids; k++) {
			if (strcmp(root->kids[k]->name, "facility"))
				continue;
			lt_facility *f;
			r = lt_facility_from_xml(root->kids[k], files[i], &f);
			if (!r)
				r = add_facility(tr, f);
		}
		lx_free(root);
		free(text);
	}
	files_free(files, n);
	/* facilities by name and checksum: facility_load finds them there,
	 * and a canonical text is kept once (linear searches were quadratic
	 * in the number of facilities and loads) */
	if (!r && !(tr->byname = tio_calloc(tr->nfacs ? tr->nfacs : 1, sizeof(*tr->byname))))
		r = TIO_ERR_NOMEM;
	for (uint32_t i = 0; !r && i < tr->nfacs; i++)
		tr->byname[i] = (lr_facix){tr->facs[i]->name, tr->facs[i]->checksum, i};
	if (!r)
		qsort(tr->byname, tr->nfacs, sizeof(*tr->byname), facix_cmp);
	/* the table keys (cut at 300 bytes, as the writer looks them up),
	 * sorted to keep the first facility of each in file order */
	char (*keys)[300] = NULL;
	lr_facix *bykey = NULL;
	if (!r && tr->nfacs > 1 &&
	    (!(keys = tio_calloc(tr->nfacs, sizeof(*keys))) || !(bykey = tio_calloc(tr->nfacs, sizeof(*bykey)))))
		r = TIO_ERR_NOMEM;
	for (uint32_t i = 1; !r && i < tr->nfacs; i++) {
		snprintf(keys[i], sizeof(keys[i]), "ltt_facility %s %08x", tr->facs[i]->name, tr->facs[i]->checksum);
		bykey[i - 1] = (lr_facix){keys[i], 0, i};
	}
	if (!r && tr->nfacs > 1)
		qsort(bykey, tr->nfacs - 1, sizeof(*bykey), facix_cmp);
	for (uint32_t k = 1; !r && k < tr->nfacs - 1; k++)
		if (!strcmp(bykey[k].name, bykey[k - 1].name))
			keys[bykey[k].i][0] = 0; /* a text kept already */
	/* room for them all at once (one realloc per table is quadratic under ASan) */
	tio_kv *nt = r || tr->nfacs < 2 ? NULL : tio_realloc(t->tc->tables, (t->tc->ntables + tr->nfacs) * sizeof(*nt));
	if (!r && tr->nfacs > 1 && !nt)
		r = TIO_ERR_NOMEM;
	if (nt)
		t->tc->tables = nt;
	for (uint32_t i = 1; !r && i < tr->nfacs; i++) {
		if (!keys[i][0])
			continue;
		tio_buf b = {0};
		r = lt_facility_text(tr->facs[i], &b);
		tio_kv *kv = &t->tc->tables[t->tc->ntables];
		memset(kv, 0, sizeof(*kv));
		if (!r && (!(kv->key = tio_strdup(keys[i])) || !(kv->sval = tio_strdup(tio_buf_cstr(&b))))) {
			free(kv->key);
			r = TIO_ERR_NOMEM;
		}
		t->tc->ntables += !r;
		tio_buf_free(&b);
	}
	free(bykey);
	free(keys);
	return r;
}

static int ec_attr(tio_event_class *ec, const char *key, bool is_int, int64_t ival, const char *sval)
{
	tio_kv *n = tio_realloc(ec->attrs, (ec->nattrs + 1) * sizeof(*n));
	if (!n)
		return TIO_ERR_NOMEM;
	ec->attrs = n;
	tio_kv *kv = &ec->attrs[ec->nattrs];
	memset(kv, 0, sizeof(*kv));
	kv->key = tio_strdup(key);
	kv->is_int = is_int;
	kv->ival = ival;
	kv->sval = sval ? tio_strdup(sval) : NULL;
	if (!kv->key || (sval && !kv->sval)) {
		free(kv->key);
		free(kv->sval);
		return TIO_ERR_NOMEM;
	}
	ec->nattrs++;
	return 0;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool maps_same(const tio_mapping *a, const tio_mapping *b, uint32_t n)
{
	if (!a || !b)
		return a == b;
	for (uint32_t k = 0; k < n; k++) {
		if (!str_same(a[k].label, b[k].label) || a[k].nranges != b[k].nranges)
			return false;
		for (uint32_t j = 0; j < a[k].nranges; j++)
			if (a[k].ranges[j].lo != b[k].ranges[j].lo || a[k].ranges[j].hi != b[k].ranges[j].hi)
				return false;
	}
	return true;
}

static bool members_same(const tio_member *a, const tio_member *b, uint32_t n, int depth);

/* Are two field classes built from new LTT types the same class? */
static bool fc_same(const tio_fc *a, const tio_fc *b, int depth)
{
	if (!a || !b)
		return a == b;
	if (depth > LR_DEPTH || a->kind != b->kind || a->align != b->align || a->role != b->role ||
	    !str_same(a->attrs, b->attrs))
		return false;
	switch (a->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		return a->i.size == b->i.size && a->i.is_signed == b->i.is_signed &&
		       a->i.byte_order == b->i.byte_order && a->i.base == b->i.base &&
		       a->i.encoding == b->i.encoding && a->i.bit_rev == b->i.bit_rev && a->i.clock == b->i.clock &&
		       a->i.bf_unit == b->i.bf_unit && a->i.nmappings == b->i.nmappings &&
		       maps_same(a->i.mappings, b->i.mappings, a->i.nmappings);
	case TIO_FC_VARINT:
		return a->vi.is_signed == b->vi.is_signed && a->vi.base == b->vi.base &&
		       a->vi.nmappings == b->vi.nmappings && maps_same(a->vi.mappings, b->vi.mappings, a->vi.nmappings);
	case TIO_FC_FLOAT:
		return a->f.exp_dig == b->f.exp_dig && a->f.mant_dig == b->f.mant_dig &&
		       a->f.byte_order == b->f.byte_order;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		return a->s.encoding == b->s.encoding && a->s.byte_order == b->s.byte_order &&
		       a->s.length == b->s.length && str_same(a->s.len.path, b->s.len.path) &&
		       str_same(a->s.media_type, b->s.media_type);
	case TIO_FC_STRUCT:
		return a->st.nmembers == b->st.nmembers && members_same(a->st.members, b->st.members, a->st.nmembers, depth);
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		return a->a.length == b->a.length && a->a.text == b->a.text && str_same(a->a.len.path, b->a.len.path) &&
		       fc_same(a->a.elem, b->a.elem, depth + 1);
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		return a->v.noptions == b->v.noptions && str_same(a->v.sel.path, b->v.sel.path) &&
		       maps_same(a->v.ranges, b->v.ranges, a->v.noptions) &&
		       members_same(a->v.options, b->v.options, a->v.noptions, depth);
	}
	return false;
}

static bool members_same(const tio_member *a, const tio_member *b, uint32_t n, int depth)
{
	for (uint32_t k = 0; k < n; k++)
		if (!str_same(a[k].name, b[k].name) || !fc_same(a[k].fc, b[k].fc, depth + 1))
			return false;
	return true;
}

/*
 * The model has one event common context class per stream class, while a
 * new LTT event type carries its own (a wrapped trace written from a stream
 * class with one).  When every event class of the trace has the same
 * one, it becomes the stream class's, so that writers declaring it per
 * stream class (CTF) keep the values.  Otherwise (a mix: the trace came
 * from several stream classes) the stream class declares none.
 */
static void common_ctx_class(lr_trace *tr)
{
	lr_ev *first = NULL;
	for (uint32_t i = LT_NBUILTIN; i < tr->nev; i++) {
		lr_ev *ev = &tr->ev[i];
		if (!ev->ec || ev->ec == tr->fl_ec)
			continue;
		if (!ev->owned[1] || (first && !fc_same(first->owned[1], ev->owned[1], 0)))
			return;
		if (!first)
			first = ev;
	}
	if (first && !tr->sc->ev_common_ctx) {
		tr->sc->ev_common_ctx = first->owned[1]; /* the stream class owns it now */
		first->owned[1] = NULL;
	}
}

/* Is `fc` the writer's wrapping of several event scopes? */
static bool wrapped(const tio_fc *fc)
{
	static const char *const names[] = {LT_WRAP_PKT, LT_WRAP_COMMON, LT_WRAP_SPEC};
	if (fc->kind != TIO_FC_STRUCT || fc->st.nmembers < 2 || fc->st.nmembers > 4)
		return false;
	uint32_t n = fc->st.nmembers, j = 0;
	if (!fc->st.members[n - 1].name || strcmp(fc->st.members[n - 1].name, LT_WRAP_FIELDS))
		return false;
	for (uint32_t k = 0; k < n; k++) {
		const tio_member *m = &fc->st.members[k];
		if (m->fc->kind != TIO_FC_STRUCT || (m->fc->attrs && !strncmp(m->fc->attrs, "ltt:", 4)))
			return false;
		if (k == n - 1)
			break;
		while (j < 3 && (!m->name || strcmp(m->name, names[j])))
			j++;
		if (j++ >= 3)
			return false;
	}
	return true;
}

/* The event class of event `i` of facility `f` loaded at `base`. */
static int make_ec(lr_trace *tr, const lt_facility *f, uint32_t i, uint32_t base, const char *path)
{
	const lt_event *e = &f->events[i];
	lr_ev *ev = &tr->ev[base + i];
	tio_event_class *ec = tio_calloc(1, sizeof(*ec));
	if (!ec)
		return TIO_ERR_NOMEM;
	tio_stream_class *sc = tr->sc;
	if (f == tr->facs[0]) {
		tr->fl_ec = ec; /* facility_load: read, never returned, not listed */
	} else {
		tio_event_class **n = tio_realloc(sc->ecs, (sc->necs + 1) * sizeof(*n));
		if (!n) {
			free(ec);
			return TIO_ERR_NOMEM;
		}
		sc->ecs = n;
		n[sc->necs++] = ec;
	}
	ec->sc = sc;
	ec->id = base + i;
	ec->loglevel = INT64_MIN;
	ec->name = tio_strdup(e->name);
	if (!ec->name)
		return TIO_ERR_NOMEM;
	tio_fc *fc;
	char where[300];
	snprintf(where, sizeof(where), "%s: facility %s: event %s", path, f->name, e->name);
	int r = lt_type_fc_count(e->t, &tr->arch, where, &tr->fc_nodes, &fc);
	if (r)
		return r;
	if (wrapped(fc)) {
		/* take the members out: each scope is its own tree */
		uint32_t nm = fc->st.nmembers;
		for (uint32_t k = 0; k < nm; k++) {
			tio_fc *m = fc->st.members[k].fc;
			const char *mn = fc->st.members[k].name;
			fc->st.members[k].fc = NULL;
			uint8_t scope = !strcmp(mn, LT_WRAP_PKT)      ? TIO_SCOPE_PKT_CTX
					: !strcmp(mn, LT_WRAP_COMMON) ? TIO_SCOPE_EV_COMMON_CTX
					: !strcmp(mn, LT_WRAP_SPEC)   ? TIO_SCOPE_EV_SPEC_CTX
								      : TIO_SCOPE_PAYLOAD;
			if (scope == TIO_SCOPE_PKT_CTX)
				ev->owned[0] = m;
			else if (scope == TIO_SCOPE_EV_COMMON_CTX)
				ev->owned[1] = m;
			else if (scope == TIO_SCOPE_EV_SPEC_CTX)
				ec->spec_ctx = m;
			else if (m->st.nmembers)
				ec->payload = m;
			else {
				tio_fc_free(m); /* an empty structure: no payload */
				continue;
			}
			ev->top[ev->ntop] = m;
			ev->scope[ev->ntop++] = scope;
		}
		tio_fc_free(fc);
	} else if (fc->kind == TIO_FC_STRUCT && !fc->st.nmembers) {
		tio_fc_free(fc); /* an empty structure: no payload */
	} else {
		ec->payload = fc;
		ev->top[0] = fc;
		ev->scope[0] = TIO_SCOPE_PAYLOAD;
		ev->ntop = 1;
	}
	r = ec_attr(ec, "ltt_facility", false, 0, f->name);
	r = r ? r : ec_attr(ec, "ltt_facility_checksum", true, f->checksum, NULL);
	r = r ? r : ec_attr(ec, "ltt_facility_base", true, base, NULL);
	if (!r && e->desc)
		r = ec_attr(ec, "description", false, 0, e->desc);
	if (r)
		return r;
	ev->ec = ec;
	return 0;
}

static int ev_table(lr_trace *tr, uint32_t n)
{
	if (n <= tr->nev)
		return 0;
	lr_ev *v = tio_realloc(tr->ev, n * sizeof(*v));
	if (!v)
		return TIO_ERR_NOMEM;
	memset(v + tr->nev, 0, (n - tr->nev) * sizeof(*v));
	tr->ev = v;
	tr->nev = n;
	return 0;
}

static int load_note(lr_trace *tr, uint64_t off, char *msg)
{
	if (tio_grow(&tr->loads, &tr->caploads, tr->nloads + 1, sizeof(*tr->loads))) {
		free(msg);
		return TIO_ERR_NOMEM;
	}
	tr->loads[tr->nloads].off = off;
	tr->loads[tr->nloads++].error = msg;
	return msg ? 0 : TIO_ERR_NOMEM;
}

/*
 * Read control/facilities: each facility_load names a facility of eventdefs
 * by name and checksum and gives its base code.  A load that cannot be used
 * is reported when the stream gets to it; the other ones are used.
 */
static int load_facilities(lr_trace *tr, lr_tf *tf)
{
	for (;;) {
		const tio_msg *m = NULL;
		int r = tf_next_raw(tf, &m);
		if (r == 0)
			break;
		if (r == TIO_ERR_NOMEM)
			return r;
		if (r < 0) {
			tio_err_clear(); /* reported again when the stream is read */
			continue;
		}
		if (m->ec->id != LT_ID_FACILITY_LOAD)
			continue;
		const tio_val *v = m->vals; /* struct, name, checksum, base_code */
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(v[1].v.s.len < 255 ? v[1].v.s.len : 255), v[1].v.s.p);
		uint32_t sum = (uint32_t)v[2].v.u, base = (uint32_t)v[3].v.u;
		const lt_facility *f = NULL;
		uint32_t k = facix_find(tr, name, sum);
		if (k < tr->nfacs && !strcmp(tr->byname[k].name, name) && tr->byname[k].sum == sum)
			f = tr->facs[tr->byname[k].i];
		const char *pth = tf->map.path;
		unsigned long long off = (unsigned long long)m->offset;
		if (!f) {
			k = facix_find(tr, name, UINT64_MAX);
			bool named = k < tr->nfacs && !strcmp(tr->byname[k].name, name);
			r = load_note(tr, m->offset,
				      tio_asprintf("%s@0x%llx: facility_load.%s: no facility %s with checksum 0x%08x in eventdefs (its events cannot be read)",
						   pth, off + LT_EV_HDR + (named ? v[1].v.s.len + 1 : 0),
						   named ? "checksum" : "name", name, sum));
		} else if (f == tr->facs[0]) {
			if (base != 0)
				r = load_note(tr, m->offset, tio_asprintf("%s@0x%llx: facility_load.base_code: the builtin facility at %u, not 0",
									 pth, off + LT_EV_HDR + v[1].v.s.len + 5, base));
		} else if ((uint64_t)base + f->nevents > 65536) {
			r = load_note(tr, m->offset, tio_asprintf("%s@0x%llx: facility_load.base_code: %u + %u events exceed the 16-bit event type ids",
								 pth, off + LT_EV_HDR + v[1].v.s.len + 5, base, f->nevents));
		} else {
			bool clash = base < LT_NBUILTIN;
			for (uint32_t i = 0; !clash && i < f->nevents; i++)
				clash = base + i < tr->nev && tr->ev[base + i].ec;
			if (clash) {
				r = load_note(tr, m->offset, tio_asprintf("%s@0x%llx: facility_load.base_code: %u: facility %s's ids overlap another facility's",
									 pth, off + LT_EV_HDR + v[1].v.s.len + 5, base, name));
			} else {
				r = ev_table(tr, base + f->nevents);
				for (uint32_t i = 0; !r && i < f->nevents; i++)
					r = make_ec(tr, f, i, base, pth);
			}
		}
		if (r)
			return r;
	}
	return 0;
}

static lr_tf *tf_new(tio_trace *t, lr_trace *tr, const char *full, const char *name, uint64_t id)
{
	lr_tf *tf = tio_calloc(1, sizeof(*tf));
	if (!tf)
		return NULL;
	tf->base.ops = &tf_ops;
	tf->base.trace = t;
	tf->base.sc = tr->sc;
	tf->base.id = id;
	tf->tr = tr;
	tf->base.name = tio_strdup(name);
	tf->base.path = tio_strdup(full);
	if (!tf->base.name || !tf->base.path || tio_map_open(&tf->map, full)) {
		free(tf->base.name);
		free(tf->base.path);
		free(tf);
		return NULL;
	}
	return tf;
}

static int add_stream(tio_trace *t, lr_tf *tf)
{
	tio_stream **n = tio_realloc(t->streams, (t->nstreams + 1) * sizeof(*n));
	if (!n) {
		tf_free(&tf->base);
		return TIO_ERR_NOMEM;
	}
	t->streams = n;
	n[t->nstreams++] = &tf->base;
	return 0;
}

/*
 * Without cycle_frequency in system.xml, event times are interpolated per
 * block; the model's clock is estimated from the first block (of any
 * tracefile, CPUs first) whose block_end is after its block_start, and
 * anchored at the first block_start, so that writers get a clock that
 * gives the same times when the blocks follow one linear clock.
 */
static void estimate_clock(tio_trace *t, lr_trace *tr, tio_clock *c)
{
	bool anchored = false, rated = false;
	int64_t rem = 0;
	uint64_t first = 0;
	for (uint32_t pass = 0; pass < 2 && !rated; pass++) {
		for (uint32_t i = 0; i < t->nstreams && !rated; i++) {
			lr_tf *tf = (lr_tf *)t->streams[i];
			if ((pass == 0) != !strncmp(tf->base.name, "cpu/", 4) || tf->map.size < tr->block)
				continue;
			tf->p = tf->map.p;
			tf->blk = 0;
			uint32_t last = rd32(tr->be, tf->p + tr->block - 4);
			uint64_t c0, c1;
			int64_t n0, n1;
			if (last < LT_FRAME || last > tr->block - 4 - LT_FRAME || frame(tf, 0, LT_ID_BLOCK_START, &c0, &n0) ||
			    frame(tf, last, LT_ID_BLOCK_END, &c1, &n1)) {
				tio_err_clear();
				continue;
			}
			if (!anchored) {
				anchored = true;
				c->offset_s = n0 / 1000000000;
				rem = n0 % 1000000000;
				first = c0;
			}
			if (c1 > c0 && n1 > n0) {
				double f = (double)(c1 - c0) * 1e9 / (double)(n1 - n0) + 0.5;
				c->freq = f >= 1 && f < 1e18 ? (uint64_t)f : 1000000000;
				rated = true;
			}
		}
	}
	if (anchored)
		c->offset = (int64_t)((__int128)rem * c->freq / 1000000000) - (int64_t)first;
}

static int cpu_cmp(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;
	unsigned long long p = strtoull(x, NULL, 10), q = strtoull(y, NULL, 10);
	return p < q ? -1 : p > q;
}

static int lr_open(tio_trace *t, const char *path)
{
	lr_priv *priv = tio_calloc(1, sizeof(*priv));
	if (!priv)
		return TIO_ERR_NOMEM;
	t->user = priv;
	lr_trace *tr = &priv->tr;
	tio_trace_class *tc = t->tc = tio_calloc(1, sizeof(*tc));
	if (!tc)
		return TIO_ERR_NOMEM;
	tc->clocks = tio_calloc(1, sizeof(*tc->clocks));
	tio_clock *c = tc->clocks ? tio_calloc(1, sizeof(*c)) : NULL;
	if (!c)
		return TIO_ERR_NOMEM;
	tc->clocks[0] = c;
	tc->nclocks = 1;
	c->name = tio_strdup("cycles");
	c->freq = 1000000000;
	c->precision = 1;
	tr->clock = c;
	int r = c->name ? 0 : TIO_ERR_NOMEM;
	r = r ? r : read_system(t, tr, path, c);
	if (r)
		return r;
	tc->byte_order = tr->be ? TIO_BE : TIO_LE;
	r = read_bookmarks(t, path);
	lt_facility *bf = NULL;
	r = r ? r : lt_builtin(&bf);
	r = r ? r : add_facility(tr, bf);
	r = r ? r : read_eventdefs(t, tr, path);
	if (r)
		return r;
	tio_stream_class *sc = tio_calloc(1, sizeof(*sc));
	tc->scs = sc ? tio_calloc(1, sizeof(*tc->scs)) : NULL;
	if (!tc->scs) {
		free(sc);
		return TIO_ERR_NOMEM;
	}
	tc->scs[tc->nscs++] = sc;
	sc->tc = tc;
	sc->clock = 0;
	sc->name = tio_strdup("ltt");
	tr->sc = sc;
	r = sc->name ? 0 : TIO_ERR_NOMEM;
	r = r ? r : ev_table(tr, LT_NBUILTIN);
	r = r ? r : make_ec(tr, tr->facs[0], LT_ID_FACILITY_LOAD, 0, "builtin");
	if (r)
		return r;
	/* the builtin framing events have no event class: read_event handles them */
	char **ctl = NULL, **cpu = NULL;
	size_t nctl = 0, ncpu = 0;
	r = list_files(path, "control", NULL, &ctl, &nctl);
	r = r ? r : list_files(path, "cpu", NULL, &cpu, &ncpu);
	if (r)
		goto out;
	/* cpu/N only, in CPU order */
	size_t k = 0;
	for (size_t i = 0; i < ncpu; i++) {
		const char *b = strrchr(cpu[i], '/') + 1;
		if (strspn(b, "0123456789") == strlen(b) && strlen(b) < 10)
			cpu[k++] = cpu[i];
		else
			free(cpu[i]);
	}
	ncpu = k;
	if (ncpu > 1)
		qsort(cpu, ncpu, sizeof(*cpu), cpu_cmp);
	lr_tf *facs = NULL;
	for (size_t i = 0; !r && i < nctl; i++) {
		const char *b = strrchr(ctl[i], '/') + 1;
		char name[300];
		snprintf(name, sizeof(name), "control/%s", b);
		lr_tf *tf = tf_new(t, tr, ctl[i], name, (1ull << 32) + i);
		if (!tf) {
			r = tio_err_push(TIO_ERR_IO, "%s", path);
			break;
		}
		if (!strcmp(b, "facilities"))
			facs = tf, tf->is_facilities = true;
		r = add_stream(t, tf);
	}
	for (size_t i = 0; !r && i < ncpu; i++) {
		const char *b = strrchr(cpu[i], '/') + 1;
		char name[300];
		snprintf(name, sizeof(name), "cpu/%s", b);
		lr_tf *tf = tf_new(t, tr, cpu[i], name, strtoull(b, NULL, 10));
		if (tf)
			tf->base.id_is_cpu = true;
		if (!tf) {
			r = tio_err_push(TIO_ERR_IO, "%s", path);
			break;
		}
		r = add_stream(t, tf);
	}
	if (!r && !facs)
		r = tio_err_set(TIO_ERR_FORMAT, "%s: no control/facilities file (it says which facilities the trace uses)", path);
	if (!r && !tr->has_freq)
		estimate_clock(t, tr, c);
	if (!r) {
		facs->prescan = true;
		r = load_facilities(tr, facs);
		facs->prescan = false;
		facs->blk = 0;
		facs->in_block = facs->done = false;
	}
	if (!r) {
		common_ctx_class(tr);
		tio_stream_class_sort(sc);
	}
	const char *slash = strrchr(path, '/');
	while (!r && slash && !slash[1] && slash > path) {
		const char *q = slash - 1;
		while (q > path && *q != '/')
			q--;
		t->name = *q == '/' ? tio_strndup(q + 1, (size_t)(slash - q - 1)) : tio_strndup(q, (size_t)(slash - q));
		break;
	}
	if (!r && !t->name && !(t->name = tio_strdup(slash ? slash + 1 : path)))
		r = TIO_ERR_NOMEM;
out:
	files_free(ctl, nctl);
	files_free(cpu, ncpu);
	return r;
}

const tio_format_ops tio_format_ltt = {
	.name = "ltt",
	.probe = lr_probe,
	.open = lr_open,
	.free = lr_free,
};

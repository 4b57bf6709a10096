/*
 * LTTng 0.x trace reader (LTT trace format 2.3, 2.5 and 2.6; seed 000 as the
 * LTTng 0.x kernel tracer of 2008-2011 wrote it).  A trace is a directory of
 * tracefiles CHANNEL_CPU ("kernel_0", "metadata_1", optionally prefixed by
 * "flight-"), each a sequence of sub-buffers (blocks):
 *
 *   block header (68 bytes, trace byte order):
 *     u64 cycle_count_begin, u64 cycle_count_end, u32 magic 0x00D6B7ED,
 *     u8 major, u8 minor, u8 arch_size, u8 alignment,
 *     u64 start_time_sec, u64 start_time_usec, u64 start_freq,
 *     u32 freq_scale, u32 data_size (2.3: lost_size), u32 sb_size,
 *     u32 events_lost, u32 subbuf_corrupt
 *   events up to data_size, each:
 *     u32: event id (5 high bits) | TSC (27 low bits)
 *     id 29: u16 id, u16 size [u32 size if 0xFFFF], u64 full TSC
 *     id 30: u16 id, u16 size [u32 size if 0xFFFF]
 *     id 31: u16 id
 *     payload, laid out by the marker's format string (ltt0x-marker.c)
 *
 * The metadata channel describes every marker (core_marker_id: channel,
 * name, id, type sizes; core_marker_format: channel, name, format).  It is
 * read once when the trace is opened, then again as an ordinary stream.
 * Time: LTTV's conversion, ns = start_tsc*1e9*scale/freq (as a double,
 * truncated) + (tsc - start_tsc)*1e9*scale/freq (likewise), with start_tsc,
 * freq and scale from the first block of metadata_0.
 * See docs/formats/ltt0x.md.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>

#include "ltt/ltt0x.h"

#define LTT0X_MAGIC 0x00D6B7EDu
#define LTT0X_HDR 68u
#define LTT0X_TSC_BITS 27
#define LTT0X_TSC_MASK ((1ull << LTT0X_TSC_BITS) - 1)
#define LTT0X_PAGE 4096u
#define LTT0X_MAX_STREAMS 65536u

typedef struct ltt0x_fmt {
	char *name;
	char *format;	 /* NULL: no format yet, markers of this name wait for it */
	uint32_t *wait;	 /* indexes in mk[] of the markers given this name before its format */
	size_t nwait, capwait;
} ltt0x_fmt;

typedef struct ltt0x_channel {
	char *name;
	tio_stream_class *sc;	 /* owned by the trace class */
	ltt0x_marker **mk;	 /* every marker, owned here */
	uint32_t nmk;
	size_t capmk;
	ltt0x_fmt *fmts;	 /* formats by marker name (they may come before the id) */
	uint32_t nfmts;
	size_t capfmts;
	ltt0x_ix mk_ix;		 /* mk[] by id */
	ltt0x_ix fmt_ix;	 /* fmts[] by name */
	ltt0x_marker **by_id;	 /* index built after the metadata pass */
	uint32_t nby_id;
} ltt0x_channel;

/*
 * How a compact header's 27 TSC bits extend the previous TSC (option
 * ltt-tsc; docs/formats/ltt0x.md, "Compact timestamps").  The tracer wrote
 * a full TSC when the bits above the 27 changed (32-bit kernels) or when
 * the TSC moved by 2^27 or more, or back (64-bit kernels): AUTO follows it
 * by arch_size.
 */
enum ltt0x_tsc_rule {
	LTT0X_TSC_AUTO = 0, /* arch_size 4: NOCARRY; 8: carry, as the 64-bit tracer */
	LTT0X_TSC_NOCARRY,  /* high bits change only through full TSCs */
	LTT0X_TSC_LTTV,	    /* LTTV's: low bits lower than the previous ones add 2^27 */
};

typedef struct ltt0x_trace {
	ltt0x_channel **ch;
	uint32_t nch;
	size_t capch;
	ltt0x_ix ch_ix; /* ch[] by name */
	bool be;
	uint8_t major, minor, arch_size, alignment;
	uint64_t start_tsc, start_freq, start_time_sec, start_time_usec;
	uint32_t freq_scale;
	uint64_t start_ns; /* LTTV's start_time_from_tsc */
	uint32_t max_fields;
	uint8_t tsc_rule; /* option ltt-tsc: enum ltt0x_tsc_rule */
	bool tsc_carry;	  /* the rule in effect adds 2^27 when compact low bits go down */
} ltt0x_trace;

typedef struct ltt0x_block {
	uint64_t begin_tsc, end_tsc;
	uint32_t data_size, sb_size, events_lost, subbuf_corrupt;
	uint8_t major, minor, alignment;
} ltt0x_block;

typedef struct ltt0x_tf {
	tio_stream base; /* first: the stream is this struct */
	ltt0x_trace *tr;
	ltt0x_channel *ch;
	uint32_t cpu;
	tio_map map;
	const char *fname; /* file name for messages */
	/* position */
	uint64_t blk;	   /* file offset of the current block */
	ltt0x_block b;
	uint32_t end;	   /* readable end of the block's events (block relative) */
	uint32_t pos;	   /* next event (block relative) */
	bool in_block, done, begun, cut, oversize;
	uint64_t tsc;
	uint32_t lost, corrupt; /* counters of the previous block */
	uint64_t prev_end_tsc;
	bool have_prev;
	const ltt0x_marker *last_mk; /* marker of the last event read */
	uint64_t max_tsc;   /* latest TSC of the tracefile's events so far */
	bool have_max;
	bool back;	    /* tf->msg is an event earlier than max_tsc (kept in file order) */
	uint64_t back_cycles;
	int64_t back_ns;
	/* output */
	tio_val *vals;
	uint32_t nvals_cap;
	tio_msg msg;
	/* block index (tf_seek, tf_index), built on first use */
	struct ltt0x_bix *bix;
	uint32_t nbix;
	int8_t bix_state; /* 0 not built, 1 every block located and in time order, -1 not */
} ltt0x_tf;

/* A block of the index: where it is, its times, and its counters (carried over by tf_seek). */
typedef struct ltt0x_bix {
	uint64_t off;
	uint64_t end_tsc;
	int64_t begin_ns;
	uint32_t lost, corrupt, data_size;
} ltt0x_bix;

/* ---------------------------------------------------------------- small helpers */

static inline uint16_t rd16(bool be, const uint8_t *p) { return be ? tio_be16(p) : tio_le16(p); }
static inline uint32_t rd32(bool be, const uint8_t *p) { return be ? tio_be32(p) : tio_le32(p); }
static inline uint64_t rd64(bool be, const uint8_t *p) { return be ? tio_be64(p) : tio_le64(p); }

static uint64_t dbl_to_u64(double d)
{
	if (!(d >= 0))
		return 0;
	if (d >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)d;
}

static void tsc_rule_apply(ltt0x_trace *tr)
{
	tr->tsc_carry = tr->tsc_rule == LTT0X_TSC_LTTV || (tr->tsc_rule == LTT0X_TSC_AUTO && tr->arch_size >= 8);
}

/* LTTV's ltt_interpolate_time_from_tsc(), as ns. */
static int64_t tsc_ns(const ltt0x_trace *tr, uint64_t tsc)
{
	double scale = (double)tr->freq_scale, freq = (double)tr->start_freq;
	if (tsc > tr->start_tsc) {
		uint64_t d = dbl_to_u64((double)(tsc - tr->start_tsc) * 1000000000.0 * scale / freq);
		return (int64_t)(tr->start_ns + d);
	}
	uint64_t d = dbl_to_u64((double)(tr->start_tsc - tsc) * 1000000000.0 * scale / freq);
	return (int64_t)(tr->start_ns - d);
}

/*
 * Parse a block header at `off`; 0 when it is plausible, else an error
 * naming the field.  `be` says the byte order the file's magic gave.
 */
static int parse_block(const tio_map *m, uint64_t off, bool *be, bool any_order, ltt0x_block *b)
{
	const char *path = m->path;
	if (m->size - off < LTT0X_HDR)
		return tio_err_set(TIO_ERR_FORMAT,
				   "%s@0x%llx: block header: truncated (%llu bytes left, %u needed)", path,
				   (unsigned long long)off, (unsigned long long)(m->size - off), LTT0X_HDR);
	const uint8_t *p = m->p + off;
	uint32_t magic = tio_le32(p + 16);
	bool fbe;
	if (magic == LTT0X_MAGIC)
		fbe = false;
	else if (magic == tio_bswap32(LTT0X_MAGIC))
		fbe = true;
	else
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.magic_number: 0x%08x is not 0x00D6B7ED",
				   path, (unsigned long long)(off + 16), magic);
	if (!any_order && fbe != *be)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.magic_number: byte order differs from the trace's",
				   path, (unsigned long long)(off + 16));
	*be = fbe;
	b->begin_tsc = rd64(fbe, p);
	b->end_tsc = rd64(fbe, p + 8);
	b->major = p[20];
	b->minor = p[21];
	b->alignment = p[23];
	if (b->major != 2 || (b->minor != 3 && b->minor != 5 && b->minor != 6))
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s@0x%llx: block header.major_version: LTT trace format %u.%u (2.3, 2.5 and 2.6 are read)",
				   path, (unsigned long long)(off + 20), b->major, b->minor);
	uint32_t f52 = rd32(fbe, p + 52);
	b->sb_size = rd32(fbe, p + 56);
	b->events_lost = rd32(fbe, p + 60);
	b->subbuf_corrupt = rd32(fbe, p + 64);
	if (b->sb_size < LTT0X_HDR)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.sb_size: %u is smaller than the header",
				   path, (unsigned long long)(off + 56), b->sb_size);
	if (b->minor == 3) {
		if (f52 > b->sb_size - LTT0X_HDR)
			return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.lost_size: %u leaves less than the header in a %u-byte block",
					   path, (unsigned long long)(off + 52), f52, b->sb_size);
		b->data_size = b->sb_size - f52;
	} else {
		b->data_size = f52;
	}
	if (b->data_size < LTT0X_HDR || b->data_size > b->sb_size)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.data_size: %u is outside [%u, sb_size %u]",
				   path, (unsigned long long)(off + 52), b->data_size, LTT0X_HDR, b->sb_size);
	return 0;
}

/* ---------------------------------------------------------------- channels and markers */

typedef struct ix_str {
	const char *s;
	size_t len;
} ix_str;

static bool same_channel(const void *owner, uint32_t v, const void *key)
{
	const ltt0x_channel *c = ((const ltt0x_trace *)owner)->ch[v];
	const ix_str *k = key;
	return strlen(c->name) == k->len && !memcmp(c->name, k->s, k->len);
}

static bool same_fmt(const void *owner, uint32_t v, const void *key)
{
	return !strcmp(((const ltt0x_channel *)owner)->fmts[v].name, key);
}

static bool same_id(const void *owner, uint32_t v, const void *key)
{
	return ((const ltt0x_channel *)owner)->mk[v]->id == *(const uint16_t *)key;
}

static ltt0x_channel *channel_get(ltt0x_trace *tr, const char *name, size_t len, bool create)
{
	ix_str k = {name, len};
	uint64_t h = ltt0x_ix_hash(name, len);
	uint32_t i = ltt0x_ix_find(&tr->ch_ix, h, same_channel, tr, &k);
	if (i != UINT32_MAX)
		return tr->ch[i];
	if (!create)
		return NULL;
	if (tio_grow(&tr->ch, &tr->capch, tr->nch + 1, sizeof(*tr->ch)))
		return NULL;
	ltt0x_channel *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = tio_strndup(name, len);
	if (!c->name || ltt0x_ix_add(&tr->ch_ix, h, tr->nch)) {
		free(c->name);
		free(c);
		return NULL;
	}
	tr->ch[tr->nch++] = c;
	return c;
}

static void marker_free(ltt0x_marker *mk)
{
	if (!mk)
		return;
	ltt0x_marker_clear_fields(mk);
	free(mk->name);
	free(mk->format);
	free(mk);
}

static void channel_free(ltt0x_channel *c)
{
	for (uint32_t i = 0; i < c->nmk; i++)
		marker_free(c->mk[i]);
	free(c->mk);
	for (uint32_t i = 0; i < c->nfmts; i++) {
		free(c->fmts[i].name);
		free(c->fmts[i].format);
		free(c->fmts[i].wait);
	}
	free(c->fmts);
	ltt0x_ix_free(&c->mk_ix);
	ltt0x_ix_free(&c->fmt_ix);
	free(c->by_id);
	free(c->name);
	free(c);
}

/* The index in c->mk of marker `id` while the metadata is read, or UINT32_MAX. */
static uint32_t marker_index(const ltt0x_channel *c, uint32_t id)
{
	if (id > UINT16_MAX)
		return UINT32_MAX;
	uint16_t k = (uint16_t)id;
	return ltt0x_ix_find(&c->mk_ix, k * 0x9E3779B97F4A7C15ull, same_id, c, &k);
}

static ltt0x_marker *marker_by_id(const ltt0x_channel *c, uint32_t id)
{
	if (c->by_id)
		return id < c->nby_id ? c->by_id[id] : NULL;
	uint32_t i = marker_index(c, id);
	return i != UINT32_MAX ? c->mk[i] : NULL;
}

/* The format record of `name` in channel `c`, made (without a format) when `create`; NULL if none or no memory. */
static ltt0x_fmt *fmt_get(ltt0x_channel *c, const char *name, bool create)
{
	uint64_t h = ltt0x_ix_hash(name, strlen(name));
	uint32_t i = ltt0x_ix_find(&c->fmt_ix, h, same_fmt, c, name);
	if (i != UINT32_MAX)
		return &c->fmts[i];
	if (!create || tio_grow(&c->fmts, &c->capfmts, c->nfmts + 1, sizeof(*c->fmts)))
		return NULL;
	ltt0x_fmt *f = &c->fmts[c->nfmts];
	memset(f, 0, sizeof(*f));
	f->name = tio_strdup(name);
	if (!f->name || ltt0x_ix_add(&c->fmt_ix, h, c->nfmts)) {
		free(f->name);
		return NULL;
	}
	c->nfmts++;
	return f;
}

static int marker_update(ltt0x_marker *mk)
{
	return ltt0x_marker_parse(mk);
}

/* core_marker_id: (re)define marker `id` of channel `c`. */
static int define_id(ltt0x_channel *c, const char *name, uint16_t id, const uint8_t sizes[5])
{
	uint32_t mi = marker_index(c, id);
	ltt0x_marker *mk = mi != UINT32_MAX ? c->mk[mi] : NULL;
	if (!mk) {
		if (tio_grow(&c->mk, &c->capmk, c->nmk + 1, sizeof(*c->mk)))
			return TIO_ERR_NOMEM;
		mk = tio_calloc(1, sizeof(*mk));
		if (!mk)
			return TIO_ERR_NOMEM;
		mk->id = id;
		if (ltt0x_ix_add(&c->mk_ix, id * 0x9E3779B97F4A7C15ull, c->nmk)) {
			free(mk);
			return TIO_ERR_NOMEM;
		}
		mi = c->nmk;
		c->mk[c->nmk++] = mk;
	}
	if (!mk->name || strcmp(mk->name, name)) {
		char *nn = tio_strdup(name);
		if (!nn)
			return TIO_ERR_NOMEM;
		free(mk->name);
		mk->name = nn;
		free(mk->format);
		mk->format = NULL;
	}
	mk->id = id;
	mk->has_id = true;
	mk->int_size = sizes[0];
	mk->long_size = sizes[1];
	mk->pointer_size = sizes[2];
	mk->size_t_size = sizes[3];
	mk->alignment = sizes[4];
	if (!mk->format) {
		ltt0x_fmt *f = fmt_get(c, name, true);
		if (!f)
			return TIO_ERR_NOMEM;
		if (f->format) {
			mk->format = tio_strdup(f->format);
			if (!mk->format)
				return TIO_ERR_NOMEM;
		} else {
			/* define_format gives it the format when it comes */
			if (tio_grow(&f->wait, &f->capwait, f->nwait + 1, sizeof(*f->wait)))
				return TIO_ERR_NOMEM;
			f->wait[f->nwait++] = mi;
		}
	}
	return marker_update(mk);
}

/* core_marker_format: the first format given for a name is kept (LTTV refuses a second one). */
static int define_format(ltt0x_channel *c, const char *name, const char *format)
{
	ltt0x_fmt *f = fmt_get(c, name, true);
	if (!f)
		return TIO_ERR_NOMEM;
	if (f->format)
		return 0;
	f->format = tio_strdup(format);
	if (!f->format)
		return TIO_ERR_NOMEM;
	/* the markers named so before: those still of this name and without a format */
	for (size_t i = 0; i < f->nwait; i++) {
		ltt0x_marker *mk = c->mk[f->wait[i]];
		if (mk->name && !strcmp(mk->name, name) && !mk->format) {
			mk->format = tio_strdup(format);
			if (!mk->format)
				return TIO_ERR_NOMEM;
			int r = marker_update(mk);
			if (r)
				return r;
		}
	}
	free(f->wait);
	f->wait = NULL;
	f->nwait = f->capwait = 0;
	return 0;
}

/* The two markers every metadata channel starts with, before it describes itself. */
static const char *const core_formats[2] = {
	"channel %s name %s event_id %hu int #1u%zu long #1u%zu pointer #1u%zu size_t #1u%zu alignment #1u%u",
	"channel %s name %s format %s",
};
static const char *const core_names[2] = {"core_marker_id", "core_marker_format"};

static int bootstrap_metadata(ltt0x_trace *tr, ltt0x_channel *meta)
{
	uint8_t sizes[5] = {4, tr->arch_size, tr->arch_size, tr->arch_size, tr->alignment};
	for (uint16_t i = 0; i < 2; i++) {
		int r = define_format(meta, core_names[i], core_formats[i]);
		if (!r)
			r = define_id(meta, core_names[i], i, sizes);
		if (r)
			return r;
	}
	return 0;
}

/* ---------------------------------------------------------------- reading events */

static int tf_vals(ltt0x_tf *tf, uint32_t n)
{
	if (n <= tf->nvals_cap)
		return 0;
	tio_val *v = tio_realloc(tf->vals, n * sizeof(*v));
	if (!v)
		return TIO_ERR_NOMEM;
	tf->vals = v;
	tf->nvals_cap = n;
	return 0;
}

/* Look for the next plausible block header after a damaged one, page by page. */
static bool resync(ltt0x_tf *tf, uint64_t from)
{
	uint64_t o = (from + LTT0X_PAGE - 1) / LTT0X_PAGE * LTT0X_PAGE;
	for (; o < tf->map.size && tf->map.size - o >= LTT0X_HDR; o += LTT0X_PAGE) {
		ltt0x_block b = {0}; /* gcc -O3 sees parse_block maybe not setting it */
		bool be = tf->tr->be;
		if (!parse_block(&tf->map, o, &be, false, &b)) {
			tf->blk = o;
			return true;
		}
	}
	tio_err_clear();
	return false;
}

static int open_block(ltt0x_tf *tf)
{
	bool be = tf->tr->be;
	int r = parse_block(&tf->map, tf->blk, &be, false, &tf->b);
	if (r) {
		uint64_t bad = tf->blk;
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", tio_error_message());
		if (resync(tf, bad + 1))
			return tio_err_set(r, "%s (block skipped, reading resumes at 0x%llx)", msg,
					   (unsigned long long)tf->blk);
		tf->done = true;
		return tio_err_set(r, "%s (no valid block after it)", msg);
	}
	uint64_t left = tf->map.size - tf->blk;
	tf->cut = tf->b.data_size > left;
	tf->oversize = !tf->cut && tf->b.sb_size > left;
	tf->end = tf->cut ? (uint32_t)left : tf->b.data_size;
	tf->pos = LTT0X_HDR;
	tf->tsc = tf->b.begin_tsc;
	tf->in_block = true;
	return 0;
}

static void next_block(ltt0x_tf *tf)
{
	tf->in_block = false;
	tf->prev_end_tsc = tf->b.end_tsc;
	tf->have_prev = true;
	if (tf->cut || tf->map.size - tf->blk <= tf->b.sb_size)
		tf->done = true;
	else
		tf->blk += tf->b.sb_size;
}

static int ev_err(ltt0x_tf *tf, uint32_t at, const char *field, const char *fmt, ...) TIO_PRINTF(4, 5);
static int ev_err(ltt0x_tf *tf, uint32_t at, const char *field, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: %s: %s", tf->map.path,
			   (unsigned long long)(tf->blk + at), field, what);
}

/*
 * Decode the payload of `mk` at block offset `data` into tf->vals[1..].
 * Returns the payload size through *size.
 */
static int decode_payload(ltt0x_tf *tf, const ltt0x_marker *mk, uint32_t data, uint32_t *size)
{
	const uint8_t *base = tf->map.p + tf->blk;
	const tio_fc *st = mk->ec ? mk->ec->payload : NULL;
	uint32_t off = 0;
	for (uint32_t i = 0; i < mk->nfields; i++) {
		const ltt0x_field *f = &mk->fields[i];
		tio_val *v = &tf->vals[1 + i];
		v->fc = st ? st->st.members[i].fc : NULL;
		v->end = 2 + i;
		v->n = 0;
		v->opt = 0;
		if (f->type == LTT0X_STRING) {
			const uint8_t *s = base + data + off;
			uint32_t room = data + off <= tf->end ? tf->end - data - off : 0;
			const uint8_t *nul = room ? memchr(s, 0, room) : NULL;
			if (!nul) {
				char fld[300];
				snprintf(fld, sizeof(fld), "%s.%s.%s", tf->ch->name, mk->name, f->name);
				return ev_err(tf, data + off, fld, "string runs past the end of the block's data");
			}
			v->v.s.p = (const char *)s;
			v->v.s.len = (uint64_t)(nul - s);
			off += (uint32_t)(nul - s) + 1;
			continue;
		}
		off += ltt0x_align(off, f->size, mk->alignment);
		if ((uint64_t)data + off + f->size > tf->end) {
			char fld[300];
			snprintf(fld, sizeof(fld), "%s.%s.%s", tf->ch->name, mk->name, f->name);
			return ev_err(tf, data + off, fld, "needs %u bytes, %lld left in the block's data", f->size,
				      (long long)tf->end - (long long)(data + off));
		}
		const uint8_t *p = base + data + off;
		bool be = f->net_order ? true : tf->tr->be;
		uint64_t u;
		switch (f->size) {
		case 1: u = p[0]; break;
		case 2: u = rd16(be, p); break;
		case 4: u = rd32(be, p); break;
		default: u = rd64(be, p); break;
		}
		if (f->type == LTT0X_SIGNED)
			v->v.i = tio_sext(u, 8u * f->size);
		else
			v->v.u = u;
		off += f->size;
	}
	*size = off;
	return 0;
}

/* Read the event at tf->pos.  1 with tf->msg filled, or an error. */
static int read_event(ltt0x_tf *tf)
{
	const ltt0x_trace *tr = tf->tr;
	const uint8_t *base = tf->map.p + tf->blk;
	uint32_t start = tf->pos;
	uint32_t pos = start + ltt0x_align(start, 4, tf->b.alignment);
	char fld[300];
#define NEED(n, what)                                                                              \
	do {                                                                                       \
		if ((uint64_t)pos + (n) > tf->end) {                                               \
			tf->pos = tf->end;                                                         \
			return ev_err(tf, pos, what, "needs %u bytes, %lld left in the block's data", \
				      (unsigned)(n), (long long)tf->end - (long long)pos);          \
		}                                                                                  \
	} while (0)
	NEED(4, "event header");
	uint32_t h = rd32(tr->be, base + pos);
	pos += 4;
	uint32_t packed = h >> LTT0X_TSC_BITS, id = packed;
	uint64_t ts27 = h & LTT0X_TSC_MASK;
	bool has_size = false, ext = false;
	uint32_t size = 0;
	if (packed >= 29) {
		NEED(2, "event header.event_id");
		id = rd16(tr->be, base + pos);
		pos += 2;
		if (packed != 31) {
			NEED(2, "event header.event_size");
			size = rd16(tr->be, base + pos);
			pos += 2;
			if (size == 0xFFFF) {
				NEED(4, "event header.event_size");
				size = rd32(tr->be, base + pos);
				pos += 4;
			}
			has_size = true;
		}
		if (packed == 29) {
			pos += ltt0x_align(pos, 8, tf->b.alignment);
			NEED(8, "event header.tsc");
			tf->tsc = rd64(tr->be, base + pos);
			pos += 8;
			ext = true;
		}
	}
	if (!ext) {
		/* A 32-bit tracer wrote a full TSC (id 29) whenever the bits above
		 * the 27 low ones changed, so a compact header keeps the high bits:
		 * low bits lower than the previous event's are an event a little
		 * earlier, not a wrap.  A 64-bit tracer wrote one only when the TSC
		 * moved by 2^27 or more (or back): lower low bits are a wrap, as
		 * LTTV's rule (ltt-tsc=lttv) takes them for every trace.
		 * docs/formats/ltt0x.md, "Compact timestamps". */
		if (tr->tsc_carry && ts27 < (tf->tsc & LTT0X_TSC_MASK))
			tf->tsc = ((tf->tsc & ~LTT0X_TSC_MASK) + (1ull << LTT0X_TSC_BITS)) | ts27;
		else
			tf->tsc = (tf->tsc & ~LTT0X_TSC_MASK) | ts27;
	}
#undef NEED
	const ltt0x_marker *mk = marker_by_id(tf->ch, id);
	if (!mk || !mk->has_id) {
		snprintf(fld, sizeof(fld), "event header.event_id");
		if (has_size && (uint64_t)pos + size <= tf->end) {
			tf->pos = pos + size;
			return ev_err(tf, start, fld, "id %u is not described by the metadata of channel %s (event skipped)",
				      id, tf->ch->name);
		}
		tf->pos = tf->end;
		return ev_err(tf, start, fld, "id %u is not described by the metadata of channel %s (rest of the block skipped)",
			      id, tf->ch->name);
	}
	if (mk->bad) {
		snprintf(fld, sizeof(fld), "%s.%s", tf->ch->name, mk->name);
		if (has_size && (uint64_t)pos + size <= tf->end) {
			tf->pos = pos + size;
			return ev_err(tf, start, fld, "cannot decode: %s (event skipped)", mk->bad);
		}
		tf->pos = tf->end;
		return ev_err(tf, start, fld, "cannot decode: %s (rest of the block skipped)", mk->bad);
	}
	uint32_t data = pos, dsize = 0;
	if (mk->format) {
		data += ltt0x_align(pos, mk->largest_align, mk->alignment);
		int r = tf_vals(tf, mk->nfields + 1);
		if (r)
			return r;
		r = decode_payload(tf, mk, data, &dsize);
		if (r) {
			tf->pos = tf->end;
			return r;
		}
		if (has_size && size != dsize) {
			snprintf(fld, sizeof(fld), "event header.event_size");
			tf->pos = (uint64_t)data + size <= tf->end ? data + size : tf->end;
			return ev_err(tf, start, fld, "%u, but the format of %s.%s gives %u bytes", size,
				      tf->ch->name, mk->name, dsize);
		}
	} else if (has_size) {
		dsize = size; /* no format yet: the payload is skipped */
		if ((uint64_t)data + dsize > tf->end) {
			tf->pos = tf->end;
			return ev_err(tf, pos, "event payload", "%u bytes run past the end of the block's data", dsize);
		}
	}
	tf->pos = data + dsize;
	tf->last_mk = mk;
	tio_msg *m = &tf->msg;
	memset(m, 0, sizeof(*m));
	m->type = TIO_MSG_EVENT;
	m->stream = &tf->base;
	m->ec = mk->ec;
	m->has_ts = true;
	m->cycles = tf->tsc;
	m->ns = tsc_ns(tr, tf->tsc);
	m->offset = tf->blk + start;
	/* An event earlier than one before it in the tracefile stays in file
	 * order and the reader says so (tio_msg_out_of_order: `check` lists it
	 * as a note).  With ltt-tsc=lttv a step back is a problem of LTTV's
	 * times (a spurious carry undone by a full TSC): left to the merge's
	 * own check. */
	tf->back = false;
	if (tf->have_max && tf->tsc < tf->max_tsc) {
		tf->back = tr->tsc_rule != LTT0X_TSC_LTTV;
		tf->back_cycles = tf->max_tsc - tf->tsc;
		/* both times may be anywhere in int64 (hostile frequency or TSC):
		 * the difference wraps, as the times themselves do */
		tf->back_ns = (int64_t)((uint64_t)tsc_ns(tr, tf->max_tsc) - (uint64_t)m->ns);
	} else {
		tf->max_tsc = tf->tsc;
		tf->have_max = true;
	}
	if (mk->ec && mk->ec->payload) {
		tio_val *v = &tf->vals[0];
		v->fc = mk->ec->payload;
		v->end = mk->nfields + 1;
		v->n = mk->nfields;
		v->opt = 0;
		m->scope[TIO_SCOPE_PAYLOAD] = v;
		m->vals = tf->vals;
		m->nvals = mk->nfields + 1;
	}
	return 1;
}

/* A DISCARDED_* message when the block's lost counters grew. */
static bool lost_msg(ltt0x_tf *tf)
{
	uint32_t lost = tf->b.events_lost - tf->lost, corrupt = tf->b.subbuf_corrupt - tf->corrupt;
	bool grew_lost = tf->b.events_lost > tf->lost, grew_corrupt = tf->b.subbuf_corrupt > tf->corrupt;
	if (!grew_lost && !grew_corrupt)
		return false;
	tio_msg *m = &tf->msg;
	memset(m, 0, sizeof(*m));
	tf->back = false;
	m->stream = &tf->base;
	m->has_ts = true;
	m->cycles = tf->b.begin_tsc;
	m->ns = tsc_ns(tf->tr, tf->b.begin_tsc);
	m->has_range = true;
	m->begin_cycles = tf->have_prev ? tf->prev_end_tsc : tf->b.begin_tsc;
	m->end_cycles = tf->b.begin_tsc;
	m->begin_ns = tsc_ns(tf->tr, m->begin_cycles);
	m->end_ns = m->ns;
	m->offset = tf->blk;
	if (grew_lost) {
		m->type = TIO_MSG_DISCARDED_EVENTS;
		m->count = lost;
		tf->lost = tf->b.events_lost;
	} else {
		m->type = TIO_MSG_DISCARDED_PACKETS;
		m->count = corrupt;
		tf->corrupt = tf->b.subbuf_corrupt;
	}
	return true;
}

static int tf_next_raw(ltt0x_tf *tf, const tio_msg **out)
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
		if (lost_msg(tf)) {
			*out = &tf->msg;
			return 1;
		}
		if (tf->pos >= tf->end) {
			bool cut = tf->cut;
			uint32_t have = tf->end;
			if (tf->oversize) {
				/* the size is wrong, not the data: look for a block after it */
				uint64_t at = tf->blk;
				uint32_t sb = tf->b.sb_size;
				tf->in_block = false;
				tf->prev_end_tsc = tf->b.end_tsc;
				tf->have_prev = true;
				char msg[512];
				snprintf(msg, sizeof(msg), "%s@0x%llx: block header.sb_size: %u, but the file has %llu bytes from the block on",
					 tf->map.path, (unsigned long long)(at + 56), sb,
					 (unsigned long long)(tf->map.size - at));
				if (resync(tf, at + tf->b.data_size))
					return tio_err_set(TIO_ERR_FORMAT, "%s (reading resumes at 0x%llx)", msg,
							   (unsigned long long)tf->blk);
				tf->done = true;
				return tio_err_set(TIO_ERR_FORMAT, "%s", msg);
			}
			next_block(tf);
			if (cut)
				return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.data_size: %u, but the file ends %u bytes into the block (truncated)",
						   tf->map.path, (unsigned long long)(tf->blk + 52), tf->b.data_size, have);
			continue;
		}
		int r = read_event(tf);
		if (r == 1) {
			*out = &tf->msg;
			return 1;
		}
		/* a damaged event: read_event moved tf->pos past it when it knew its
		 * size, otherwise to the end of the block */
		return r;
	}
}

static int tf_next(tio_stream *s, const tio_msg **out)
{
	ltt0x_tf *tf = (ltt0x_tf *)s;
	if (!tf->begun) {
		tf->begun = true;
		tio_msg *m = &tf->msg;
		memset(m, 0, sizeof(*m));
		m->type = TIO_MSG_STREAM_BEGIN;
		m->stream = s;
		tf->back = false;
		*out = m;
		return 1;
	}
	return tf_next_raw(tf, out);
}

static void tf_free(tio_stream *s)
{
	ltt0x_tf *tf = (ltt0x_tf *)s;
	tio_map_close(&tf->map);
	free(tf->vals);
	free(tf->bix);
	free(tf);
}

/*
 * The tracefile's block index: every block header (sub-buffers follow one
 * another, sb_size bytes each), read once.  Seekable when every header
 * parses, every block fits the file, and begin times never go back; else
 * tf_seek goes to the beginning.
 */
static void build_bix(ltt0x_tf *tf)
{
	tf->bix_state = -1;
	size_t cap = 0;
	int64_t last = INT64_MIN;
	for (uint64_t off = 0; off < tf->map.size;) {
		bool be = tf->tr->be;
		ltt0x_block b = {0}; /* gcc -O3 sees parse_block maybe not setting it */
		if (parse_block(&tf->map, off, &be, false, &b) || b.sb_size > tf->map.size - off) {
			tio_err_clear();
			return;
		}
		int64_t ns = tsc_ns(tf->tr, b.begin_tsc);
		if (ns < last)
			return;
		if (tf->nbix == cap) {
			size_t nc = cap ? 2 * cap : 64;
			ltt0x_bix *nb = nc < UINT32_MAX ? realloc(tf->bix, nc * sizeof(*nb)) : NULL;
			if (!nb)
				return;
			tf->bix = nb;
			cap = nc;
		}
		tf->bix[tf->nbix++] = (ltt0x_bix){off, b.end_tsc, ns, b.events_lost, b.subbuf_corrupt, b.data_size};
		last = ns;
		off += b.sb_size;
	}
	tf->bix_state = 1;
}

/*
 * tio_stream_ops.seek: to the last block that begins before `ns`, with the
 * previous block's end time and lost/corrupt counters as reading up to it
 * sets them (the stream begins again with its STREAM_BEGIN, as a read from
 * the beginning through a begin bound shows it).  The latest TSC for
 * tio_msg_out_of_order starts from the previous block's end.
 */
static int tf_seek(tio_stream *s, int64_t ns)
{
	ltt0x_tf *tf = (ltt0x_tf *)s;
	uint32_t k = 0;
	if (ns != INT64_MIN) {
		if (!tf->bix_state)
			build_bix(tf);
		if (tf->bix_state > 0) {
			uint32_t lo = 0, hi = tf->nbix;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (tf->bix[mid].begin_ns < ns)
					lo = mid + 1;
				else
					hi = mid;
			}
			k = lo ? lo - 1 : 0;
		}
	}
	tf->in_block = tf->done = tf->begun = tf->cut = tf->oversize = tf->have_prev = false;
	tf->have_max = tf->back = false;
	tf->lost = tf->corrupt = 0;
	tf->last_mk = NULL;
	tf->blk = 0;
	if (k > 0) {
		const ltt0x_bix *p = &tf->bix[k - 1];
		tf->blk = tf->bix[k].off;
		tf->have_prev = true;
		tf->prev_end_tsc = p->end_tsc;
		tf->lost = p->lost;
		tf->corrupt = p->corrupt;
		tf->have_max = true;
		tf->max_tsc = p->end_tsc;
	}
	tio_map_rewind(&tf->map, tf->blk);
	return 0;
}

/* tio_stream_ops.index: blocks, their time range and bytes of events; events estimated from the first block. */
static int tf_index(tio_stream *s, tio_stream_index *out)
{
	ltt0x_tf *tf = (ltt0x_tf *)s;
	if (!tf->bix_state)
		build_bix(tf);
	memset(out, 0, sizeof(*out));
	out->seekable = tf->bix_state > 0;
	if (tf->bix_state <= 0 || !tf->nbix)
		return 0;
	out->packets = tf->nbix;
	for (uint32_t i = 0; i < tf->nbix; i++)
		out->bytes += tf->bix[i].data_size - LTT0X_HDR;
	out->has_range = true;
	out->begin_ns = tf->bix[0].begin_ns;
	out->end_ns = tsc_ns(tf->tr, tf->bix[tf->nbix - 1].end_tsc);
	out->has_discarded = true;
	out->discarded = tf->bix[tf->nbix - 1].lost;
	/* events of the first block with events, read by a copy of the tracefile sharing its map */
	ltt0x_tf c = *tf;
	c.vals = NULL;
	c.nvals_cap = 0;
	c.bix = NULL;
	for (uint32_t i = 0; i < tf->nbix && i < 8; i++) {
		c.blk = tf->bix[i].off;
		c.in_block = c.done = false;
		uint64_t n = 0;
		if (open_block(&c)) {
			tio_err_clear();
			break;
		}
		while (c.pos < c.end && read_event(&c) == 1)
			n++;
		tio_err_clear();
		if (n && c.end > LTT0X_HDR) {
			out->events = (uint64_t)((double)out->bytes * (double)n / (double)(c.end - LTT0X_HDR) + 0.5);
			break;
		}
	}
	free(c.vals);
	return 0;
}

static const tio_stream_ops tf_ops = {.next = tf_next, .free = tf_free, .seek = tf_seek, .index = tf_index};

/* ---------------------------------------------------------------- opening */

/* "kernel_0", "flight-fs_12": channel name and CPU, or false. */
static bool split_name(const char *fname, const char **ch, size_t *chlen, uint32_t *cpu)
{
	if (!strncmp(fname, "flight-", 7))
		fname += 7;
	const char *us = strrchr(fname, '_');
	if (!us || us == fname || !us[1])
		return false;
	char *e;
	unsigned long n = strtoul(us + 1, &e, 10);
	if (*e || us[1] < '0' || us[1] > '9' || n > UINT32_MAX)
		return false;
	*ch = fname;
	*chlen = (size_t)(us - fname);
	*cpu = (uint32_t)n;
	return true;
}

typedef struct tfname {
	char *name;
	const char *ch;
	size_t chlen;
	uint32_t cpu;
} tfname;

static int tfname_cmp(const void *a, const void *b)
{
	const tfname *x = a, *y = b;
	size_t l = x->chlen < y->chlen ? x->chlen : y->chlen;
	int c = memcmp(x->ch, y->ch, l);
	if (c)
		return c;
	if (x->chlen != y->chlen)
		return x->chlen < y->chlen ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* The tracefiles of directory `path`, sorted by channel then CPU. */
static int list_tracefiles(const char *path, tfname **out, size_t *n)
{
	DIR *d = opendir(path);
	if (!d)
		return tio_err_set(TIO_ERR_IO, "%s: cannot open directory", path);
	tfname *v = NULL;
	size_t cap = 0, k = 0;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		tfname t;
		if (!split_name(de->d_name, &t.ch, &t.chlen, &t.cpu))
			continue;
		char *full = tio_path_join(path, de->d_name);
		if (!full) {
			r = TIO_ERR_NOMEM;
			break;
		}
		bool reg = tio_is_file(full);
		free(full);
		if (!reg)
			continue;
		if (k >= LTT0X_MAX_STREAMS) {
			r = tio_err_set(TIO_ERR_LIMIT, "%s: more than %u tracefiles", path, LTT0X_MAX_STREAMS);
			break;
		}
		if (tio_grow(&v, &cap, k + 1, sizeof(*v))) {
			r = TIO_ERR_NOMEM;
			break;
		}
		t.name = tio_strdup(de->d_name);
		if (!t.name) {
			r = TIO_ERR_NOMEM;
			break;
		}
		split_name(t.name, &t.ch, &t.chlen, &t.cpu);
		v[k++] = t;
	}
	closedir(d);
	if (r) {
		for (size_t i = 0; i < k; i++)
			free(v[i].name);
		free(v);
		return r;
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), tfname_cmp);
	*out = v;
	*n = k;
	return 0;
}

static void tfnames_free(tfname *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static int ltt0x_probe(const char *path)
{
	if (!tio_is_dir(path))
		return 0;
	tfname *v;
	size_t n;
	if (list_tracefiles(path, &v, &n)) {
		tio_err_clear();
		return 0;
	}
	int score = 0;
	for (size_t i = 0; i < n && score < 100; i++) {
		char *full = tio_path_join(path, v[i].name);
		FILE *f = full ? fopen(full, "rb") : NULL;
		uint8_t h[24];
		if (f && fread(h, 1, sizeof(h), f) == sizeof(h)) {
			uint32_t magic = tio_le32(h + 16);
			if ((magic == LTT0X_MAGIC || magic == tio_bswap32(LTT0X_MAGIC)) && h[20] == 2) {
				bool meta = v[i].chlen == 8 && !memcmp(v[i].ch, "metadata", 8);
				score = meta ? 100 : 90;
			}
		}
		if (f)
			fclose(f);
		free(full);
	}
	tfnames_free(v, n);
	return score;
}

typedef struct ltt0x_priv {
	ltt0x_trace tr;
} ltt0x_priv;

static void trace_data_free(ltt0x_trace *tr)
{
	for (uint32_t i = 0; i < tr->nch; i++)
		channel_free(tr->ch[i]);
	free(tr->ch);
	ltt0x_ix_free(&tr->ch_ix);
}

static ltt0x_tf *tf_new(tio_trace *t, ltt0x_trace *tr, const char *dir, const tfname *nm)
{
	ltt0x_tf *tf = tio_calloc(1, sizeof(*tf));
	if (!tf)
		return NULL;
	tf->base.ops = &tf_ops;
	tf->base.trace = t;
	tf->tr = tr;
	tf->cpu = nm->cpu;
	tf->base.id = nm->cpu;
	tf->base.id_is_cpu = true;
	tf->base.name = tio_strdup(nm->name);
	tf->base.path = tio_path_join(dir, nm->name);
	if (!tf->base.name || !tf->base.path || tio_map_open(&tf->map, tf->base.path)) {
		free(tf->base.name);
		free(tf->base.path);
		free(tf);
		return NULL;
	}
	tf->fname = tf->base.name;
	return tf;
}

/* Free a tracefile that never became a stream of the trace (its name and
   path are freed by tio_trace_free only for registered streams). */
static void tf_discard(ltt0x_tf *tf)
{
	free(tf->base.name);
	free(tf->base.path);
	tf_free(&tf->base);
}

/* Read every event of a metadata tracefile to learn the markers. */
static int scan_metadata(ltt0x_trace *tr, ltt0x_tf *tf)
{
	for (;;) {
		const tio_msg *m;
		int r = tf_next_raw(tf, &m);
		if (r == 0)
			break;
		if (r == TIO_ERR_NOMEM)
			return r;
		if (r < 0) {
			tio_err_clear(); /* reported again when the stream is read */
			continue;
		}
		if (m->type != TIO_MSG_EVENT)
			continue;
		const tio_val *v = tf->vals;
		const ltt0x_marker *used = tf->last_mk;
		if (!used || !used->format)
			continue;
		const char *name = used->name;
		if (!strcmp(name, "core_marker_id") && used->nfields >= 8) {
			if (used->fields[0].type != LTT0X_STRING || used->fields[1].type != LTT0X_STRING)
				continue;
			uint8_t sizes[5];
			for (int k = 0; k < 5; k++)
				sizes[k] = (uint8_t)v[4 + k].v.u;
			ltt0x_channel *c = channel_get(tr, v[1].v.s.p, v[1].v.s.len, true);
			if (!c)
				return TIO_ERR_NOMEM;
			r = define_id(c, v[2].v.s.p, (uint16_t)v[3].v.u, sizes);
			if (r)
				return r;
		} else if (!strcmp(name, "core_marker_format") && used->nfields >= 3) {
			if (used->fields[0].type != LTT0X_STRING || used->fields[1].type != LTT0X_STRING ||
			    used->fields[2].type != LTT0X_STRING)
				continue;
			ltt0x_channel *c = channel_get(tr, v[1].v.s.p, v[1].v.s.len, true);
			if (!c)
				return TIO_ERR_NOMEM;
			r = define_format(c, v[2].v.s.p, v[3].v.s.p);
			if (r)
				return r;
		}
	}
	return 0;
}

static int kv_add(tio_trace_class *tc, const char *key, bool is_int, int64_t ival, const char *sval)
{
	tio_kv *n = tio_realloc(tc->env, (tc->nenv + 1) * sizeof(*n));
	if (!n)
		return TIO_ERR_NOMEM;
	tc->env = n;
	tio_kv *kv = &tc->env[tc->nenv];
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
	tc->nenv++;
	return 0;
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

/* Build the trace class: one clock, one stream class per channel, one event class per marker. */
static int build_classes(tio_trace *t, ltt0x_trace *tr)
{
	tio_trace_class *tc = tio_calloc(1, sizeof(*tc));
	if (!tc)
		return TIO_ERR_NOMEM;
	t->tc = tc;
	tc->byte_order = tr->be ? TIO_BE : TIO_LE;
	tc->clocks = tio_calloc(1, sizeof(*tc->clocks));
	if (!tc->clocks)
		return TIO_ERR_NOMEM;
	tio_clock *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return TIO_ERR_NOMEM;
	tc->clocks[0] = c;
	tc->nclocks = 1;
	c->name = tio_strdup("tsc");
	c->description = tio_strdup("cycle counter of the traced CPUs (LTTng 0.x)");
	if (!c->name || !c->description)
		return TIO_ERR_NOMEM;
	c->freq = tr->freq_scale ? tr->start_freq / tr->freq_scale : tr->start_freq;
	if (!c->freq)
		c->freq = 1;
	c->precision = 1;
	int r = 0;
	r = r ? r : kv_add(tc, "tracer_name", false, 0, "lttng0");
	r = r ? r : kv_add(tc, "ltt_major_version", true, tr->major, NULL);
	r = r ? r : kv_add(tc, "ltt_minor_version", true, tr->minor, NULL);
	r = r ? r : kv_add(tc, "arch_size", true, tr->arch_size, NULL);
	r = r ? r : kv_add(tc, "alignment", true, tr->alignment, NULL);
	r = r ? r : kv_add(tc, "start_freq", true, (int64_t)tr->start_freq, NULL);
	r = r ? r : kv_add(tc, "freq_scale", true, tr->freq_scale, NULL);
	r = r ? r : kv_add(tc, "start_tsc", true, (int64_t)tr->start_tsc, NULL);
	r = r ? r : kv_add(tc, "start_time_sec", true, (int64_t)tr->start_time_sec, NULL);
	r = r ? r : kv_add(tc, "start_time_usec", true, (int64_t)tr->start_time_usec, NULL);
	if (r)
		return r;
	tc->scs = tio_calloc(tr->nch ? tr->nch : 1, sizeof(*tc->scs));
	if (!tc->scs)
		return TIO_ERR_NOMEM;
	for (uint32_t i = 0; i < tr->nch; i++) {
		ltt0x_channel *ch = tr->ch[i];
		tio_stream_class *sc = tio_calloc(1, sizeof(*sc));
		if (!sc)
			return TIO_ERR_NOMEM;
		tc->scs[tc->nscs++] = sc;
		sc->id = i;
		sc->tc = tc;
		sc->clock = 0;
		sc->user = ch;
		sc->name = tio_strdup(ch->name);
		if (!sc->name)
			return TIO_ERR_NOMEM;
		ch->sc = sc;
		uint32_t maxid = 0, n = 0;
		for (uint32_t k = 0; k < ch->nmk; k++)
			if (ch->mk[k]->has_id) {
				n++;
				if (ch->mk[k]->id > maxid)
					maxid = ch->mk[k]->id;
			}
		sc->ecs = tio_calloc(n ? n : 1, sizeof(*sc->ecs));
		ch->by_id = tio_calloc(maxid + 1, sizeof(*ch->by_id));
		if (!sc->ecs || !ch->by_id)
			return TIO_ERR_NOMEM;
		ch->nby_id = maxid + 1;
		for (uint32_t k = 0; k < ch->nmk; k++) {
			ltt0x_marker *mk = ch->mk[k];
			if (!mk->has_id)
				continue;
			ch->by_id[mk->id] = mk;
			tio_event_class *ec = tio_calloc(1, sizeof(*ec));
			if (!ec)
				return TIO_ERR_NOMEM;
			sc->ecs[sc->necs++] = ec;
			ec->id = mk->id;
			ec->sc = sc;
			ec->loglevel = INT64_MIN;
			ec->user = mk;
			ec->name = tio_strdup(mk->name);
			if (!ec->name)
				return TIO_ERR_NOMEM;
			r = ltt0x_marker_payload(mk, tr->be, &ec->payload);
			if (!r && mk->format)
				r = ec_attr(ec, "format", false, 0, mk->format);
			r = r ? r : ec_attr(ec, "int_size", true, mk->int_size, NULL);
			r = r ? r : ec_attr(ec, "long_size", true, mk->long_size, NULL);
			r = r ? r : ec_attr(ec, "pointer_size", true, mk->pointer_size, NULL);
			r = r ? r : ec_attr(ec, "size_t_size", true, mk->size_t_size, NULL);
			r = r ? r : ec_attr(ec, "alignment", true, mk->alignment, NULL);
			if (r)
				return r;
			mk->ec = ec;
			if (mk->nfields + 1 > tr->max_fields)
				tr->max_fields = mk->nfields + 1;
		}
		tio_stream_class_sort(sc);
	}
	return 0;
}

static void ltt0x_free(tio_trace *t)
{
	ltt0x_priv *p = t->user;
	if (!p)
		return;
	trace_data_free(&p->tr);
	free(p);
	t->user = NULL;
}

static int ltt0x_open(tio_trace *t, const char *path)
{
	ltt0x_priv *priv = tio_calloc(1, sizeof(*priv));
	if (!priv)
		return TIO_ERR_NOMEM;
	t->user = priv;
	ltt0x_trace *tr = &priv->tr;
	tfname *names = NULL;
	size_t nnames = 0;
	ltt0x_tf **tfs = NULL;
	size_t ntfs = 0;
	int r = list_tracefiles(path, &names, &nnames);
	if (r)
		return r;
	tfs = tio_calloc(nnames ? nnames : 1, sizeof(*tfs));
	if (!tfs) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < nnames; i++) {
		ltt0x_tf *tf = tf_new(t, tr, path, &names[i]);
		if (!tf) {
			r = tio_err_push(TIO_ERR_IO, "%s", path);
			goto out;
		}
		if (!tf->map.size) {
			tf_discard(tf);
			continue;
		}
		tfs[ntfs++] = tf;
		tf->ch = channel_get(tr, names[i].ch, names[i].chlen, true);
		if (!tf->ch) {
			r = TIO_ERR_NOMEM;
			goto out;
		}
	}
	/* The trace parameters: the first block of metadata_0 (LTTV's choice),
	 * else the first valid block header of any tracefile. */
	bool found = false;
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; i < ntfs && !found; i++) {
			ltt0x_tf *tf = tfs[i];
			if (pass == 0 && (strcmp(tf->ch->name, "metadata") || tf->cpu != 0))
				continue;
			ltt0x_block b;
			bool be = false;
			if (parse_block(&tf->map, 0, &be, true, &b)) {
				tio_err_clear();
				continue;
			}
			const uint8_t *p = tf->map.p;
			tr->be = be;
			tr->major = b.major;
			tr->minor = b.minor;
			tr->arch_size = p[22];
			tr->alignment = b.alignment;
			tr->start_tsc = b.begin_tsc;
			tr->start_time_sec = rd64(be, p + 24);
			tr->start_time_usec = rd64(be, p + 32);
			tr->start_freq = rd64(be, p + 40);
			tr->freq_scale = rd32(be, p + 48);
			if (!tr->start_freq || !tr->freq_scale) {
				r = tio_err_set(TIO_ERR_FORMAT, "%s@0x%x: block header.%s: 0", tf->map.path,
						tr->start_freq ? 48 : 40, tr->start_freq ? "freq_scale" : "start_freq");
				goto out;
			}
			found = true;
		}
	}
	if (!found) {
		r = tio_err_set(TIO_ERR_FORMAT, "%s: no tracefile starts with a valid LTTng 0.x block header", path);
		goto out;
	}
	tr->start_ns = dbl_to_u64((double)tr->start_tsc * 1000000000.0 * (double)tr->freq_scale /
				  (double)tr->start_freq);
	tsc_rule_apply(tr);
	ltt0x_channel *meta = channel_get(tr, "metadata", 8, true);
	if (!meta) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	r = bootstrap_metadata(tr, meta);
	if (r)
		goto out;
	for (size_t i = 0; i < ntfs; i++) {
		if (tfs[i]->ch != meta)
			continue;
		r = tf_vals(tfs[i], 16);
		if (!r)
			r = scan_metadata(tr, tfs[i]);
		if (r)
			goto out;
		/* rewind for the real read */
		ltt0x_tf *tf = tfs[i];
		tf->blk = 0;
		tf->in_block = tf->done = tf->cut = tf->have_prev = false;
		tf->have_max = tf->back = false;
		tf->lost = tf->corrupt = 0;
		tf->last_mk = NULL;
	}
	r = build_classes(t, tr);
	if (r)
		goto out;
	t->streams = tio_calloc(ntfs ? ntfs : 1, sizeof(*t->streams));
	if (!t->streams) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < ntfs; i++) {
		ltt0x_tf *tf = tfs[i];
		tf->base.sc = tf->ch->sc;
		r = tf_vals(tf, tr->max_fields ? tr->max_fields : 1);
		if (r)
			goto out;
		t->streams[t->nstreams++] = &tf->base;
		tfs[i] = NULL;
	}
	const char *slash = strrchr(path, '/');
	while (slash && !slash[1] && slash > path) {
		/* trailing slash: use the component before it */
		const char *q = slash - 1;
		while (q > path && *q != '/')
			q--;
		t->name = *q == '/' ? tio_strndup(q + 1, (size_t)(slash - q - 1)) : tio_strndup(q, (size_t)(slash - q));
		break;
	}
	if (!t->name)
		t->name = tio_strdup(slash ? slash + 1 : path);
	if (!t->name)
		r = TIO_ERR_NOMEM;
out:
	for (size_t i = 0; i < ntfs; i++)
		if (tfs[i])
			tf_discard(tfs[i]);
	free(tfs);
	tfnames_free(names, nnames);
	return r;
}

/*
 * Reader options (tio_trace_set, before the first message):
 *   ltt-tsc = auto (default) | nocarry | lttv: how a compact header's 27
 *   TSC bits extend the previous TSC (docs/formats/ltt0x.md, "Compact timestamps").
 */
int tio_ltt0x_set(tio_trace *t, const char *key, const char *value)
{
	ltt0x_priv *p = t->user;
	if (!p || strcmp(key, "ltt-tsc"))
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: format lttng0 has no option '%s' (ltt-tsc)", t->path, key);
	uint8_t rule;
	if (!strcmp(value, "auto"))
		rule = LTT0X_TSC_AUTO;
	else if (!strcmp(value, "nocarry"))
		rule = LTT0X_TSC_NOCARRY;
	else if (!strcmp(value, "lttv"))
		rule = LTT0X_TSC_LTTV;
	else
		return tio_err_set(TIO_ERR_USAGE, "ltt-tsc: '%s' is not a rule (auto, nocarry, lttv)", value);
	for (uint32_t i = 0; i < t->nstreams; i++)
		if (((ltt0x_tf *)t->streams[i])->begun)
			return tio_err_set(TIO_ERR_USAGE, "%s: ltt-tsc must be set before the trace is read", t->path);
	p->tr.tsc_rule = rule;
	tsc_rule_apply(&p->tr);
	return 0;
}

/* tio_msg_out_of_order() for a message of an LTTng 0.x stream. */
bool tio_ltt0x_msg_back(const tio_msg *m, int64_t *ns_back, uint64_t *cycles_back)
{
	const ltt0x_tf *tf = (const ltt0x_tf *)m->stream;
	if (!tf || tf->base.ops != &tf_ops || m != &tf->msg || !tf->back)
		return false;
	if (ns_back)
		*ns_back = tf->back_ns;
	if (cycles_back)
		*cycles_back = tf->back_cycles;
	return true;
}

const tio_format_ops tio_format_lttng0 = {
	.name = "lttng0",
	.probe = ltt0x_probe,
	.open = ltt0x_open,
	.free = ltt0x_free,
};

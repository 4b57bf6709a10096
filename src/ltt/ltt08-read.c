/*
 * Reader of seed 000's own 2008 LTTng layout (format "lttng0-2008"):
 *
 *   TRACE/cpu_N, TRACE/control/NAME_N (facilities, interrupts, modules,
 *   network, processes, ...): tracefiles of equal-size blocks, each
 *     block start/end header (40 bytes): u64 begin.cycle_count, u64 begin.freq,
 *       u64 end.cycle_count, u64 end.freq, u32 lost_size, u32 buf_size
 *     trace header (64 bytes, C layout): u32 magic 0x00D6B7ED, arch_type,
 *       arch_variant, float_word_order, u8 arch_size, major, minor,
 *       flight_recorder, has_heartbeat, alignment, tsc_lsb_truncate, tscbits,
 *       compact_data_shift, u32 freq_scale, u64 start_freq, start_tsc,
 *       start_monotonic, u32 start_time.seconds, .nanoseconds
 *     events up to buf_size - lost_size: {u32 | u64} tsc, u8 facility_id,
 *       u8 event_id, u16 event_size, then event_size bytes of data
 *
 * control/facilities_N hold the core facility's marker_id / marker_format
 * events that describe every other event (its fields by a marker format
 * string, parsed by ltt0x-marker.c); they are read first, then again as
 * ordinary streams.  Time: start_time + floor((tsc - start_tsc) * 1e9 *
 * freq_scale / start_freq) ns.  Every choice the seed leaves open is in
 * docs/formats/ltt0x.md, "The 2008 layout".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>

#include "ltt/ltt08.h"

#define L8_MAX_STREAMS 65536u
#define L8_NIDS 65536u
#define L8_MAX_ECS 65536u /* event classes over all stream classes (each has every marker's) */

const char *const l8_core_names[3] = {"marker_id", "marker_format", "time_heartbeat"};
const char *const l8_core_formats[3] = {
	"facility %s facility_id #1u%u name %s event_id #1u%u int #1u%u long #1u%u pointer #1u%u size_t #1u%u alignment #1u%u",
	"facility %s name %s format %s",
	"",
};

typedef struct l8_mk {
	ltt0x_marker mk; /* mk.id = facility_id << 8 | event_id */
	char *facility;
	uint32_t idx;	 /* in l8_trace.mk */
} l8_mk;

typedef struct l8_fmt {
	char *facility, *name;
	char *format;	/* NULL: no format yet, markers of this name wait for it */
	uint32_t *wait; /* indexes in l8_trace.mk of the markers given this name before its format */
	size_t nwait, capwait;
} l8_fmt;

typedef struct l8_trace {
	bool be;
	uint8_t arch_size, major, minor, flight, heartbeat, alignment, tlt, tscbits, cds;
	uint32_t arch_type, arch_variant, fwo, freq_scale;
	uint64_t start_freq, start_tsc, start_mono;
	uint32_t start_sec, start_nsec;
	uint32_t block_size; /* of the tracefile the parameters came from */
	l8_mk **mk;	     /* every marker, owned here */
	uint32_t nmk;
	l8_fmt *fmts;
	uint32_t nfmts;
	size_t capfmts;
	ltt0x_ix fmt_ix; /* fmts by facility and name (ltt0x.h) */
	char *fac_name[256];
	l8_mk **by_id; /* L8_NIDS entries */
	uint32_t max_fields;
} l8_trace;

typedef struct l8_block {
	uint64_t begin_tsc, end_tsc;
	uint32_t lost_size, buf_size;
	uint8_t major, heartbeat, alignment, arch_size, tscbits;
} l8_block;

typedef struct l8_tf {
	tio_stream base;
	l8_trace *tr;
	tio_map map;
	char *kind;	/* "cpu", "facilities", ... (the stream class name) */
	uint32_t cpu;
	uint32_t bs;	/* block size of this tracefile, 0 until known */
	uint64_t blk;	/* offset of the current block */
	l8_block b;
	uint32_t pos, end;
	bool in_block, done, begun;
	uint64_t tsc;
	const l8_mk *last;
	tio_val *vals;
	uint32_t nvals_cap;
	tio_msg msg;
} l8_tf;

static inline uint16_t rd16(bool be, const uint8_t *p) { return be ? tio_be16(p) : tio_le16(p); }
static inline uint32_t rd32(bool be, const uint8_t *p) { return be ? tio_be32(p) : tio_le32(p); }
static inline uint64_t rd64(bool be, const uint8_t *p) { return be ? tio_be64(p) : tio_le64(p); }

/* start_time + floor((tsc - start_tsc) * 1e9 * freq_scale / start_freq), in ns */
static int64_t tsc_ns(const l8_trace *tr, uint64_t tsc)
{
	__int128 base = (__int128)tr->start_sec * 1000000000 + tr->start_nsec;
	__int128 d = (__int128)tsc - (__int128)tr->start_tsc;
	__int128 num = d * 1000000000 * tr->freq_scale, q = num / tr->start_freq;
	if (num < 0 && q * tr->start_freq != num)
		q--; /* floor */
	__int128 t = base + q;
	return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN : (int64_t)t;
}

/*
 * Check the block header at `off`: 0 when it is plausible, else an error
 * naming the field.  With `tr` set, the fields that shape events must be
 * the trace's.
 */
static int parse_block(const tio_map *m, uint64_t off, bool *be, const l8_trace *tr, l8_block *b)
{
	const char *path = m->path;
	if (m->size - off < L8_HDR)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header: truncated (%llu bytes left, %u needed)", path,
				   (unsigned long long)off, (unsigned long long)(m->size - off), L8_HDR);
	const uint8_t *p = m->p + off;
	uint32_t magic = tio_le32(p + L8_MAGIC_OFF);
	bool fbe;
	if (magic == L8_MAGIC)
		fbe = false;
	else if (magic == tio_bswap32(L8_MAGIC))
		fbe = true;
	else
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.magic_number: 0x%08x is not 0x00D6B7ED", path,
				   (unsigned long long)(off + L8_MAGIC_OFF), magic);
	if (tr && fbe != *be)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.magic_number: byte order differs from the trace's",
				   path, (unsigned long long)(off + L8_MAGIC_OFF));
	*be = fbe;
	b->begin_tsc = rd64(fbe, p + L8_BEGIN_TSC);
	b->end_tsc = rd64(fbe, p + L8_END_TSC);
	b->lost_size = rd32(fbe, p + L8_LOST_SIZE);
	b->buf_size = rd32(fbe, p + L8_BUF_SIZE);
	b->major = p[L8_MAJOR];
	b->arch_size = p[L8_ARCH_SIZE];
	b->heartbeat = p[L8_HAS_HEARTBEAT];
	b->alignment = p[L8_ALIGNMENT];
	b->tscbits = p[L8_TSCBITS];
#define BAD(o, ...) tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: " __VA_ARGS__), path, (unsigned long long)(off + (o))
	if (b->major > 1)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s@0x%llx: trace header.major_version: %u (the 2008 layout is 0.x or 1.x)",
				   path, (unsigned long long)(off + L8_MAJOR), b->major);
	if (b->buf_size < L8_BLOCK_MIN || b->buf_size > L8_BLOCK_MAX)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.buf_size: %u is outside [%u, %u]", path,
				   (unsigned long long)(off + L8_BUF_SIZE), b->buf_size, L8_BLOCK_MIN, L8_BLOCK_MAX);
	if (b->lost_size > b->buf_size - L8_HDR)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.lost_size: %u leaves less than the %u header bytes in a %u-byte block",
				   path, (unsigned long long)(off + L8_LOST_SIZE), b->lost_size, L8_HDR, b->buf_size);
	if (b->arch_size != 4 && b->arch_size != 8)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.arch_size: %u is not 4 or 8", path,
				   (unsigned long long)(off + L8_ARCH_SIZE), b->arch_size);
	if (b->heartbeat > 1)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.has_heartbeat: %u is not 0 or 1", path,
				   (unsigned long long)(off + L8_HAS_HEARTBEAT), b->heartbeat);
	if (b->alignment & (b->alignment - 1) || b->alignment > 8)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.alignment: %u is not 0, 1, 2, 4 or 8", path,
				   (unsigned long long)(off + L8_ALIGNMENT), b->alignment);
	if (b->tscbits)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s@0x%llx: trace header.tscbits: %u (compact channels: the seed gives no event header for them)",
				   path, (unsigned long long)(off + L8_TSCBITS), b->tscbits);
	if (tr) {
		const char *what = b->arch_size != tr->arch_size ? "arch_size" : b->heartbeat != tr->heartbeat ? "has_heartbeat"
								: b->alignment != tr->alignment ? "alignment" : NULL;
		if (what)
			return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.%s: differs from the trace's", path,
					   (unsigned long long)(off + (what[1] == 'r' ? L8_ARCH_SIZE : what[0] == 'h' ? L8_HAS_HEARTBEAT : L8_ALIGNMENT)), what);
	}
#undef BAD
	return 0;
}

/* ---------------------------------------------------------------- markers */

static void mk_free(l8_mk *m)
{
	if (!m)
		return;
	ltt0x_marker_clear_fields(&m->mk);
	free(m->mk.name);
	free(m->mk.format);
	free(m->facility);
	free(m);
}

static void trace_data_free(l8_trace *tr)
{
	for (uint32_t i = 0; i < tr->nmk; i++)
		mk_free(tr->mk[i]);
	free(tr->mk);
	for (uint32_t i = 0; i < tr->nfmts; i++) {
		free(tr->fmts[i].facility);
		free(tr->fmts[i].name);
		free(tr->fmts[i].format);
		free(tr->fmts[i].wait);
	}
	free(tr->fmts);
	ltt0x_ix_free(&tr->fmt_ix);
	for (int i = 0; i < 256; i++)
		free(tr->fac_name[i]);
	free(tr->by_id);
}

typedef struct fmt_key {
	const char *fac, *name;
} fmt_key;

static bool same_fmt(const void *owner, uint32_t v, const void *key)
{
	const l8_fmt *f = &((const l8_trace *)owner)->fmts[v];
	const fmt_key *k = key;
	return !strcmp(f->facility, k->fac) && !strcmp(f->name, k->name);
}

/* The format record of (fac, name), made without a format when `create`; NULL if none or no memory. */
static l8_fmt *fmt_get(l8_trace *tr, const char *fac, const char *name, bool create)
{
	fmt_key k = {fac, name};
	size_t fl = strlen(fac);
	uint64_t h = ltt0x_ix_hash(fac, fl) ^ ltt0x_ix_hash(name, strlen(name)) * 31;
	uint32_t i = ltt0x_ix_find(&tr->fmt_ix, h, same_fmt, tr, &k);
	if (i != UINT32_MAX)
		return &tr->fmts[i];
	if (!create || tio_grow(&tr->fmts, &tr->capfmts, tr->nfmts + 1, sizeof(*tr->fmts)))
		return NULL;
	l8_fmt *f = &tr->fmts[tr->nfmts];
	memset(f, 0, sizeof(*f));
	f->facility = tio_strdup(fac);
	f->name = tio_strdup(name);
	if (!f->facility || !f->name || ltt0x_ix_add(&tr->fmt_ix, h, tr->nfmts)) {
		free(f->facility);
		free(f->name);
		return NULL;
	}
	tr->nfmts++;
	return f;
}

/* marker_id: (re)define event `ev` of facility `fac`.  A facility keeps the first id it was given. */
static int define_id(l8_trace *tr, const char *fac, size_t faclen, uint8_t fac_id, const char *name, size_t namelen,
		     uint8_t ev, const uint8_t sizes[5], bool *conflict)
{
	*conflict = false;
	if (tr->fac_name[fac_id]) {
		if (strlen(tr->fac_name[fac_id]) != faclen || memcmp(tr->fac_name[fac_id], fac, faclen)) {
			*conflict = true;
			return 0;
		}
	} else {
		tr->fac_name[fac_id] = tio_strndup(fac, faclen);
		if (!tr->fac_name[fac_id])
			return TIO_ERR_NOMEM;
	}
	uint32_t id = (uint32_t)fac_id << 8 | ev;
	l8_mk *m = tr->by_id[id];
	if (!m) {
		l8_mk **n = tio_realloc(tr->mk, (tr->nmk + 1) * sizeof(*n));
		if (!n)
			return TIO_ERR_NOMEM;
		tr->mk = n;
		m = tio_calloc(1, sizeof(*m));
		if (!m)
			return TIO_ERR_NOMEM;
		m->idx = tr->nmk;
		tr->mk[tr->nmk++] = m;
		tr->by_id[id] = m;
		m->facility = tio_strndup(fac, faclen);
		if (!m->facility)
			return TIO_ERR_NOMEM;
	}
	if (!m->mk.name || strlen(m->mk.name) != namelen || memcmp(m->mk.name, name, namelen)) {
		char *nn = tio_strndup(name, namelen);
		if (!nn)
			return TIO_ERR_NOMEM;
		free(m->mk.name);
		m->mk.name = nn;
		free(m->mk.format);
		m->mk.format = NULL;
	}
	m->mk.id = (uint16_t)id;
	m->mk.has_id = true;
	m->mk.int_size = sizes[0];
	m->mk.long_size = sizes[1];
	m->mk.pointer_size = sizes[2];
	m->mk.size_t_size = sizes[3];
	m->mk.alignment = sizes[4];
	if (!m->mk.format) {
		l8_fmt *f = fmt_get(tr, m->facility, m->mk.name, true);
		if (!f)
			return TIO_ERR_NOMEM;
		if (f->format) {
			m->mk.format = tio_strdup(f->format);
			if (!m->mk.format)
				return TIO_ERR_NOMEM;
		} else {
			/* define_format gives it the format when it comes */
			if (tio_grow(&f->wait, &f->capwait, f->nwait + 1, sizeof(*f->wait)))
				return TIO_ERR_NOMEM;
			f->wait[f->nwait++] = m->idx;
		}
	}
	return ltt0x_marker_parse(&m->mk);
}

/* marker_format: the first format of a (facility, name) is kept. */
static int define_format(l8_trace *tr, const char *fac, const char *name, const char *format)
{
	l8_fmt *f = fmt_get(tr, fac, name, true);
	if (!f)
		return TIO_ERR_NOMEM;
	if (f->format)
		return 0;
	f->format = tio_strdup(format);
	if (!f->format)
		return TIO_ERR_NOMEM;
	/* the markers named so before: those still of this name and without a format */
	for (size_t i = 0; i < f->nwait; i++) {
		ltt0x_marker *mk = &tr->mk[f->wait[i]]->mk;
		if (!mk->format && mk->name && !strcmp(mk->name, name) && !strcmp(tr->mk[f->wait[i]]->facility, fac)) {
			mk->format = tio_strdup(format);
			if (!mk->format)
				return TIO_ERR_NOMEM;
			int r = ltt0x_marker_parse(mk);
			if (r)
				return r;
		}
	}
	free(f->wait);
	f->wait = NULL;
	f->nwait = f->capwait = 0;
	return 0;
}

static int bootstrap_core(l8_trace *tr)
{
	uint8_t sizes[5] = {4, tr->arch_size, tr->arch_size, tr->arch_size, tr->alignment};
	for (uint8_t i = 0; i < 3; i++) {
		bool conflict;
		int r = define_format(tr, "core", l8_core_names[i], l8_core_formats[i]);
		r = r ? r : define_id(tr, "core", 4, 0, l8_core_names[i], strlen(l8_core_names[i]), i, sizes, &conflict);
		if (r)
			return r;
	}
	return 0;
}

/* ---------------------------------------------------------------- reading */

static int tf_vals(l8_tf *tf, uint32_t n)
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

/* The next plausible block header after `from` (on a 256-byte grid), or false. */
static bool resync(l8_tf *tf, uint64_t from)
{
	uint64_t o = (from + L8_BLOCK_MIN - 1) / L8_BLOCK_MIN * L8_BLOCK_MIN;
	for (; o < tf->map.size && tf->map.size - o >= L8_HDR; o += L8_BLOCK_MIN) {
		l8_block b = {0};
		bool be = tf->tr->be;
		if (!parse_block(&tf->map, o, &be, tf->tr, &b) && (!tf->bs || b.buf_size == tf->bs)) {
			tf->blk = o;
			return true;
		}
		tio_err_clear();
	}
	return false;
}

static int open_block(l8_tf *tf)
{
	bool be = tf->tr->be;
	int r = parse_block(&tf->map, tf->blk, &be, tf->tr, &tf->b);
	if (!r && tf->bs && tf->b.buf_size != tf->bs)
		r = tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: block header.buf_size: %u, but the blocks of this tracefile are %u bytes",
				tf->map.path, (unsigned long long)(tf->blk + L8_BUF_SIZE), tf->b.buf_size, tf->bs);
	if (r) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", tio_error_message());
		uint64_t bad = tf->blk;
		if (resync(tf, bad + (tf->bs ? tf->bs : L8_BLOCK_MIN)))
			return tio_err_set(r, "%s (block skipped, reading resumes at 0x%llx)", msg, (unsigned long long)tf->blk);
		tf->done = true;
		return tio_err_set(r, "%s (no valid block after it)", msg);
	}
	if (!tf->bs)
		tf->bs = tf->b.buf_size;
	tf->end = tf->b.buf_size - tf->b.lost_size;
	tf->pos = L8_HDR;
	tf->tsc = tf->b.begin_tsc;
	tf->in_block = true;
	if (tf->map.size - tf->blk < tf->end) {
		/* the file ends inside the block's events: read what is there, then say so */
		tf->end = (uint32_t)(tf->map.size - tf->blk);
	}
	return 0;
}

static int ev_err(l8_tf *tf, uint32_t at, const char *field, const char *fmt, ...) TIO_PRINTF(4, 5);
static int ev_err(l8_tf *tf, uint32_t at, const char *field, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: %s: %s", tf->map.path, (unsigned long long)(tf->blk + at), field, what);
}

/* Decode the fields of `m` from block offset `data`, `size` bytes. */
static int decode_payload(l8_tf *tf, const l8_mk *m, const tio_fc *st, uint32_t data, uint32_t size, uint32_t *used)
{
	const ltt0x_marker *mk = &m->mk;
	const uint8_t *base = tf->map.p + tf->blk;
	uint32_t at = data, lim = data + size;
	char fld[400];
	for (uint32_t i = 0; i < mk->nfields; i++) {
		const ltt0x_field *f = &mk->fields[i];
		tio_val *v = &tf->vals[1 + i];
		v->fc = st ? st->st.members[i].fc : NULL;
		v->end = 2 + i;
		v->n = 0;
		v->opt = 0;
		if (f->type == LTT0X_STRING) {
			const uint8_t *nul = at < lim ? memchr(base + at, 0, lim - at) : NULL;
			if (!nul) {
				snprintf(fld, sizeof(fld), "%s.%s.%s", m->facility, mk->name, f->name);
				return ev_err(tf, at, fld, "string runs past the event's %u bytes (event skipped)", size);
			}
			v->v.s.p = (const char *)base + at;
			v->v.s.len = (uint64_t)(nul - (base + at));
			at += (uint32_t)v->v.s.len + 1;
			continue;
		}
		at += l8_pad(at, f->size, mk->alignment);
		if ((uint64_t)at + f->size > lim) {
			snprintf(fld, sizeof(fld), "%s.%s.%s", m->facility, mk->name, f->name);
			return ev_err(tf, at, fld, "needs %u bytes, %lld left in the event's %u bytes (event skipped)", f->size,
				      (long long)lim - (long long)at, size);
		}
		const uint8_t *p = base + at;
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
		at += f->size;
	}
	*used = at - data;
	return 0;
}

/* The event at tf->pos: 1 with tf->msg filled, or an error (tf->pos moved past what is known bad). */
static int read_event(l8_tf *tf)
{
	const l8_trace *tr = tf->tr;
	const uint8_t *base = tf->map.p + tf->blk;
	uint32_t tsz = tr->heartbeat ? 4 : 8, pos = tf->pos;
	pos += l8_pad(pos, tsz, tr->alignment);
	uint32_t start = pos;
	if ((uint64_t)pos + tsz + 4 > tf->end) {
		tf->pos = tf->end;
		return ev_err(tf, pos, "event header", "needs %u bytes, %lld left in the block's events (rest of the block skipped)",
			      tsz + 4, (long long)tf->end - (long long)pos);
	}
	if (tsz == 4) {
		uint32_t lo = rd32(tr->be, base + pos);
		uint64_t t = (tf->tsc & ~0xffffffffull) | lo;
		if (lo < (uint32_t)tf->tsc)
			t += 1ull << 32;
		tf->tsc = t;
	} else {
		tf->tsc = rd64(tr->be, base + pos);
	}
	pos += tsz;
	uint8_t fac = base[pos], ev = base[pos + 1];
	uint32_t size = rd16(tr->be, base + pos + 2);
	pos += 4;
	uint32_t data = pos + l8_pad(pos, tr->arch_size, tr->alignment);
	if ((uint64_t)data + size > tf->end) {
		tf->pos = tf->end;
		return ev_err(tf, start + tsz + 2, "event header.event_size",
			      "%u bytes run past the end of the block's events (%lld left; rest of the block skipped)", size,
			      (long long)tf->end - (long long)data);
	}
	tf->pos = data + size;
	const l8_mk *m = tr->by_id[(uint32_t)fac << 8 | ev];
	if (!m || !m->mk.has_id)
		return ev_err(tf, start + tsz, "event header.facility_id", "facility %u event %u is not described by control/facilities (event skipped)",
			      fac, ev);
	char fld[300];
	if (m->mk.bad) {
		snprintf(fld, sizeof(fld), "%s.%s", m->facility, m->mk.name);
		return ev_err(tf, start, fld, "cannot decode: %s (event skipped)", m->mk.bad);
	}
	uint32_t nf = 0;
	const tio_event_class *ec = tf->base.sc ? tio_stream_class_find_ec(tf->base.sc, m->mk.id) : NULL;
	if (m->mk.format && m->mk.nfields) {
		int r = tf_vals(tf, m->mk.nfields + 1);
		if (r)
			return r;
		uint32_t used = 0;
		r = decode_payload(tf, m, ec ? ec->payload : NULL, data, size, &used);
		if (r)
			return r;
		if (used != size) {
			snprintf(fld, sizeof(fld), "event header.event_size");
			return ev_err(tf, start + tsz + 2, fld, "%u, but the format of %s.%s gives %u bytes (event skipped)", size,
				      m->facility, m->mk.name, used);
		}
		nf = m->mk.nfields;
	} else if (m->mk.format && size) {
		return ev_err(tf, start + tsz + 2, "event header.event_size", "%u, but %s.%s has no field (event skipped)", size,
			      m->facility, m->mk.name);
	}
	tf->last = m;
	tio_msg *msg = &tf->msg;
	memset(msg, 0, sizeof(*msg));
	msg->type = TIO_MSG_EVENT;
	msg->stream = &tf->base;
	msg->ec = ec;
	msg->has_ts = true;
	msg->cycles = tf->tsc;
	msg->ns = tsc_ns(tr, tf->tsc);
	msg->offset = tf->blk + start;
	if (nf && msg->ec && msg->ec->payload) {
		tio_val *v = &tf->vals[0];
		v->fc = msg->ec->payload;
		v->end = nf + 1;
		v->n = nf;
		v->opt = 0;
		msg->scope[TIO_SCOPE_PAYLOAD] = v;
		msg->vals = tf->vals;
		msg->nvals = nf + 1;
	}
	return 1;
}

static int tf_next_raw(l8_tf *tf, const tio_msg **out)
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
		if (tf->pos >= tf->end) {
			tf->in_block = false;
			uint32_t want = tf->b.buf_size - tf->b.lost_size;
			uint64_t at = tf->blk;
			if (tf->map.size - at <= tf->b.buf_size) {
				tf->done = true;
				if (tf->end < want)
					return tio_err_set(TIO_ERR_FORMAT,
							   "%s@0x%llx: block header.lost_size: the block's events end at byte %u, but the file ends %u bytes into the block (truncated)",
							   tf->map.path, (unsigned long long)(at + L8_LOST_SIZE), want, tf->end);
				return 0;
			}
			tf->blk += tf->b.buf_size;
			continue;
		}
		int r = read_event(tf);
		if (r == 1)
			*out = &tf->msg;
		return r;
	}
}

static int tf_next(tio_stream *s, const tio_msg **out)
{
	l8_tf *tf = (l8_tf *)s;
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
	l8_tf *tf = (l8_tf *)s;
	tio_map_close(&tf->map);
	free(tf->vals);
	free(tf->kind);
	free(tf); /* base.name and base.path belong to the trace (freed with its streams) */
}

/* tio_stream_ops.seek: back to the first block, as after opening (no block index yet). */
static int tf_seek(tio_stream *s, int64_t ns)
{
	(void)ns;
	l8_tf *tf = (l8_tf *)s;
	tf->blk = 0;
	tf->bs = 0;
	tf->in_block = tf->done = tf->begun = false;
	tf->last = NULL;
	tio_map_rewind(&tf->map, 0);
	return 0;
}

static const tio_stream_ops tf_ops = {.next = tf_next, .free = tf_free, .seek = tf_seek};

/* A stream that never joined the trace. */
static void tf_drop(l8_tf *tf)
{
	free(tf->base.name);
	free(tf->base.path);
	tf_free(&tf->base);
}

/* ---------------------------------------------------------------- opening */

typedef struct l8_name {
	char *rel;  /* "cpu_0", "control/processes_1" */
	char *kind; /* "cpu", "processes" */
	uint32_t cpu;
} l8_name;

/* "cpu_3" -> kind "cpu", 3 */
static bool split_name(const char *fname, size_t *kindlen, uint32_t *cpu)
{
	const char *us = strrchr(fname, '_');
	if (!us || us == fname || us[1] < '0' || us[1] > '9')
		return false;
	char *e;
	unsigned long n = strtoul(us + 1, &e, 10);
	if (*e || n > UINT32_MAX)
		return false;
	*kindlen = (size_t)(us - fname);
	*cpu = (uint32_t)n;
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	const l8_name *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);
	return c ? c : x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static void names_free(l8_name *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].rel);
		free(v[i].kind);
	}
	free(v);
}

/* cpu_N in `path`, NAME_N in path/control ("cpu" only at the top). */
static int list_tracefiles(const char *path, l8_name **out, size_t *n)
{
	l8_name *v = NULL;
	size_t cap = 0, k = 0;
	int r = 0;
	for (int pass = 0; pass < 2 && !r; pass++) {
		char *dir = pass ? tio_path_join(path, "control") : tio_strdup(path);
		if (!dir)
			return TIO_ERR_NOMEM;
		DIR *d = opendir(dir);
		if (!d) {
			free(dir);
			if (pass)
				break;
			return tio_err_set(TIO_ERR_IO, "%s: cannot open directory", path);
		}
		struct dirent *de;
		while (!r && (de = readdir(d))) {
			size_t kl;
			uint32_t cpu;
			if (de->d_name[0] == '.' || !split_name(de->d_name, &kl, &cpu))
				continue;
			bool is_cpu = kl == 3 && !memcmp(de->d_name, "cpu", 3);
			if (pass == 0 && !is_cpu)
				continue;
			char *full = tio_path_join(dir, de->d_name);
			if (!full) {
				r = TIO_ERR_NOMEM;
				break;
			}
			bool reg = tio_is_file(full);
			free(full);
			if (!reg)
				continue;
			if (k >= L8_MAX_STREAMS) {
				r = tio_err_set(TIO_ERR_LIMIT, "%s: more than %u tracefiles", path, L8_MAX_STREAMS);
				break;
			}
			if (tio_grow(&v, &cap, k + 1, sizeof(*v))) {
				r = TIO_ERR_NOMEM;
				break;
			}
			l8_name *t = &v[k];
			t->rel = pass ? tio_asprintf("control/%s", de->d_name) : tio_strdup(de->d_name);
			t->kind = tio_strndup(de->d_name, kl);
			t->cpu = cpu;
			if (!t->rel || !t->kind) {
				free(t->rel);
				free(t->kind);
				r = TIO_ERR_NOMEM;
				break;
			}
			if (pass && is_cpu) {
				/* control/cpu_N would be one stream class with cpu_N */
				free(t->kind);
				t->kind = tio_strdup("control/cpu");
				if (!t->kind) {
					free(t->rel);
					r = TIO_ERR_NOMEM;
					break;
				}
			}
			k++;
		}
		closedir(d);
		free(dir);
	}
	if (r) {
		names_free(v, k);
		return r;
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), name_cmp);
	*out = v;
	*n = k;
	return 0;
}

static int l8_probe(const char *path)
{
	if (!tio_is_dir(path))
		return 0;
	l8_name *v;
	size_t n;
	if (list_tracefiles(path, &v, &n)) {
		tio_err_clear();
		return 0;
	}
	int score = 0;
	for (size_t i = 0; i < n && score < 100; i++) {
		char *full = tio_path_join(path, v[i].rel);
		FILE *f = full ? fopen(full, "rb") : NULL;
		uint8_t h[L8_HDR];
		if (f && fread(h, 1, sizeof(h), f) == sizeof(h)) {
			uint32_t magic = tio_le32(h + L8_MAGIC_OFF);
			if ((magic == L8_MAGIC || magic == tio_bswap32(L8_MAGIC)) && h[L8_MAJOR] <= 1)
				score = !strcmp(v[i].kind, "facilities") ? 100 : 90;
		}
		if (f)
			fclose(f);
		free(full);
	}
	names_free(v, n);
	return score;
}

typedef struct l8_priv {
	l8_trace tr;
} l8_priv;

/* Read a control/facilities tracefile to learn the markers (errors are reported again when it is read as a stream). */
static int scan_facilities(l8_trace *tr, l8_tf *tf)
{
	for (;;) {
		const tio_msg *m;
		int r = tf_next_raw(tf, &m);
		if (r == 0)
			break;
		if (r == TIO_ERR_NOMEM)
			return r;
		if (r < 0) {
			tio_err_clear();
			continue;
		}
		const l8_mk *used = tf->last;
		if (!used || (used->mk.id >> 8) != 0)
			continue;
		const tio_val *v = tf->vals;
		if (used->mk.id == L8_CORE_MARKER_ID && used->mk.nfields == 9 && used->mk.fields[0].type == LTT0X_STRING &&
		    used->mk.fields[2].type == LTT0X_STRING) {
			uint8_t sizes[5];
			for (int k = 0; k < 5; k++)
				sizes[k] = (uint8_t)v[5 + k].v.u;
			if ((uint8_t)v[2].v.u == 0)
				continue; /* the core facility is the reader's own */
			bool conflict;
			r = define_id(tr, v[1].v.s.p, v[1].v.s.len, (uint8_t)v[2].v.u, v[3].v.s.p, v[3].v.s.len, (uint8_t)v[4].v.u,
				      sizes, &conflict);
			if (r)
				return r;
		} else if (used->mk.id == L8_CORE_MARKER_FORMAT && used->mk.nfields == 3 &&
			   used->mk.fields[0].type == LTT0X_STRING && used->mk.fields[1].type == LTT0X_STRING &&
			   used->mk.fields[2].type == LTT0X_STRING) {
			if (!strcmp(v[1].v.s.p, "core"))
				continue;
			r = define_format(tr, v[1].v.s.p, v[2].v.s.p, v[3].v.s.p);
			if (r)
				return r;
		}
	}
	return 0;
}

static int kv_add(tio_kv **kvs, uint32_t *n, const char *key, bool is_int, int64_t ival, const char *sval)
{
	tio_kv *nv = tio_realloc(*kvs, (*n + 1) * sizeof(*nv));
	if (!nv)
		return TIO_ERR_NOMEM;
	*kvs = nv;
	tio_kv *kv = &nv[*n];
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
	(*n)++;
	return 0;
}

/* One clock, one stream class per tracefile kind, in each one event class per described marker. */
static int build_classes(tio_trace *t, l8_trace *tr, const l8_name *names, size_t nnames)
{
	tio_trace_class *tc = tio_calloc(1, sizeof(*tc));
	if (!tc)
		return TIO_ERR_NOMEM;
	t->tc = tc;
	tc->byte_order = tr->be ? TIO_BE : TIO_LE;
	tc->clocks = tio_calloc(1, sizeof(*tc->clocks));
	tio_clock *c = tio_calloc(1, sizeof(*c));
	if (!tc->clocks || !c) {
		free(c);
		return TIO_ERR_NOMEM;
	}
	tc->clocks[0] = c;
	tc->nclocks = 1;
	c->name = tio_strdup("tsc");
	c->description = tio_strdup("cycle counter of the traced CPUs (LTTng 2008 layout)");
	if (!c->name || !c->description)
		return TIO_ERR_NOMEM;
	/* The clock gives the reader's times exactly when start_freq / freq_scale
	 * is whole and start_time falls on a cycle: tsc_ns() is the reference. */
	c->freq = tr->start_freq / tr->freq_scale;
	if (!c->freq)
		c->freq = 1;
	c->precision = 1;
	c->origin_unix = true;
	c->offset_s = tr->start_sec;
	__int128 cyc = ((__int128)tr->start_nsec * c->freq + 999999999) / 1000000000;
	c->offset = (int64_t)(cyc - (__int128)tr->start_tsc);
	int r = 0;
#define ENV(k, v) r = r ? r : kv_add(&tc->env, &tc->nenv, k, true, (int64_t)(v), NULL)
	r = kv_add(&tc->env, &tc->nenv, "tracer_name", false, 0, "lttng0-2008");
	ENV("ltt_major_version", tr->major);
	ENV("ltt_minor_version", tr->minor);
	ENV("arch_type", tr->arch_type);
	ENV("arch_variant", tr->arch_variant);
	ENV("float_word_order", tr->fwo);
	ENV("arch_size", tr->arch_size);
	ENV("flight_recorder", tr->flight);
	ENV("has_heartbeat", tr->heartbeat);
	ENV("alignment", tr->alignment);
	ENV("tsc_lsb_truncate", tr->tlt);
	ENV("compact_data_shift", tr->cds);
	ENV("freq_scale", tr->freq_scale);
	ENV("start_freq", tr->start_freq);
	ENV("start_tsc", tr->start_tsc);
	ENV("start_monotonic", tr->start_mono);
	ENV("start_time_sec", tr->start_sec);
	ENV("start_time_nsec", tr->start_nsec);
	ENV("block_size", tr->block_size);
#undef ENV
	if (r)
		return r;
	uint32_t nkinds = 0, nids = 0;
	for (size_t i = 0; i < nnames; i++)
		nkinds += !i || strcmp(names[i].kind, names[i - 1].kind);
	for (uint32_t k = 0; k < tr->nmk; k++)
		nids += tr->mk[k]->mk.has_id;
	if ((uint64_t)nkinds * nids > L8_MAX_ECS)
		return tio_err_set(TIO_ERR_LIMIT, "%s: %u tracefile kinds with %u described events each: more than %u event classes",
				   t->path, nkinds, nids, L8_MAX_ECS);
	tc->scs = tio_calloc(nkinds ? nkinds : 1, sizeof(*tc->scs));
	if (!tc->scs)
		return TIO_ERR_NOMEM;
	for (size_t i = 0; i < nnames; i++) {
		if (i && !strcmp(names[i].kind, names[i - 1].kind))
			continue;
		tio_stream_class *sc = tio_calloc(1, sizeof(*sc));
		if (!sc)
			return TIO_ERR_NOMEM;
		tc->scs[tc->nscs] = sc;
		sc->id = tc->nscs++;
		sc->tc = tc;
		sc->clock = 0;
		sc->name = tio_strdup(names[i].kind);
		sc->ecs = tio_calloc(tr->nmk ? tr->nmk : 1, sizeof(*sc->ecs));
		if (!sc->name || !sc->ecs)
			return TIO_ERR_NOMEM;
		for (uint32_t k = 0; k < tr->nmk; k++) {
			l8_mk *m = tr->mk[k];
			if (!m->mk.has_id)
				continue;
			tio_event_class *ec = tio_calloc(1, sizeof(*ec));
			if (!ec)
				return TIO_ERR_NOMEM;
			sc->ecs[sc->necs++] = ec;
			ec->id = m->mk.id;
			ec->sc = sc;
			ec->loglevel = INT64_MIN;
			ec->user = m;
			ec->name = tio_strdup(m->mk.name);
			if (!ec->name)
				return TIO_ERR_NOMEM;
			tio_fc *pl = NULL;
			r = ltt0x_marker_payload(&m->mk, tr->be, &pl);
			ec->payload = pl;
			/* a structure is aligned as its most aligned member (CTF 1.8 §4.2.1) */
			for (uint32_t f = 0; pl && f < pl->st.nmembers; f++)
				if (pl->st.members[f].fc->align > pl->align)
					pl->align = pl->st.members[f].fc->align;
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "facility", false, 0, m->facility);
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "facility_id", true, m->mk.id >> 8, NULL);
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "event_id", true, m->mk.id & 0xff, NULL);
			if (!r && m->mk.format)
				r = kv_add(&ec->attrs, &ec->nattrs, "format", false, 0, m->mk.format);
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "int_size", true, m->mk.int_size, NULL);
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "long_size", true, m->mk.long_size, NULL);
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "pointer_size", true, m->mk.pointer_size, NULL);
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "size_t_size", true, m->mk.size_t_size, NULL);
			r = r ? r : kv_add(&ec->attrs, &ec->nattrs, "alignment", true, m->mk.alignment, NULL);
			if (r)
				return r;
			if (m->mk.nfields + 1 > tr->max_fields)
				tr->max_fields = m->mk.nfields + 1;
		}
		tio_stream_class_sort(sc);
	}
	return 0;
}

static void l8_free(tio_trace *t)
{
	l8_priv *p = t->user;
	if (!p)
		return;
	trace_data_free(&p->tr);
	free(p);
	t->user = NULL;
}

static l8_tf *tf_new(tio_trace *t, l8_trace *tr, const char *dir, const l8_name *nm)
{
	l8_tf *tf = tio_calloc(1, sizeof(*tf));
	if (!tf)
		return NULL;
	tf->base.ops = &tf_ops;
	tf->base.trace = t;
	tf->tr = tr;
	tf->cpu = nm->cpu;
	tf->base.id = nm->cpu;
	tf->base.id_is_cpu = true;
	tf->base.name = tio_strdup(nm->rel);
	tf->base.path = tio_path_join(dir, nm->rel);
	tf->kind = tio_strdup(nm->kind);
	if (!tf->base.name || !tf->base.path || !tf->kind || tio_map_open(&tf->map, tf->base.path)) {
		tf_drop(tf);
		return NULL;
	}
	return tf;
}

/* Trace parameters from the first valid block header: control/facilities_0 first. */
static int read_params(l8_trace *tr, l8_tf **tfs, size_t ntfs, const char *path)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ntfs; i++) {
			l8_tf *tf = tfs[i];
			if (pass == 0 && (strcmp(tf->kind, "facilities") || tf->cpu != 0))
				continue;
			for (uint64_t off = 0; off < tf->map.size && tf->map.size - off >= L8_HDR; off += L8_BLOCK_MIN) {
				l8_block b;
				bool be = false;
				if (parse_block(&tf->map, off, &be, NULL, &b)) {
					tio_err_clear();
					continue;
				}
				const uint8_t *p = tf->map.p + off;
				tr->be = be;
				tr->arch_type = rd32(be, p + L8_ARCH_TYPE);
				tr->arch_variant = rd32(be, p + L8_ARCH_VARIANT);
				tr->fwo = rd32(be, p + L8_FLOAT_WORD_ORDER);
				tr->arch_size = b.arch_size;
				tr->major = b.major;
				tr->minor = p[L8_MINOR];
				tr->flight = p[L8_FLIGHT_RECORDER];
				tr->heartbeat = b.heartbeat;
				tr->alignment = b.alignment;
				tr->tlt = p[L8_TSC_LSB_TRUNCATE];
				tr->tscbits = b.tscbits;
				tr->cds = p[L8_COMPACT_DATA_SHIFT];
				tr->freq_scale = rd32(be, p + L8_FREQ_SCALE);
				tr->start_freq = rd64(be, p + L8_START_FREQ);
				tr->start_tsc = rd64(be, p + L8_START_TSC);
				tr->start_mono = rd64(be, p + L8_START_MONOTONIC);
				tr->start_sec = rd32(be, p + L8_START_SEC);
				tr->start_nsec = rd32(be, p + L8_START_NSEC);
				tr->block_size = b.buf_size;
				if (!tr->start_freq || !tr->freq_scale)
					return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.%s: 0", tf->map.path,
							   (unsigned long long)(off + (tr->start_freq ? L8_FREQ_SCALE : L8_START_FREQ)),
							   tr->start_freq ? "freq_scale" : "start_freq");
				if (tr->start_nsec >= 1000000000u)
					return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: trace header.start_time.nanoseconds: %u is not below 1000000000",
							   tf->map.path, (unsigned long long)(off + L8_START_NSEC), tr->start_nsec);
				return 0;
			}
		}
	}
	return tio_err_set(TIO_ERR_FORMAT, "%s: no tracefile has a valid block header (2008 LTTng layout)", path);
}

static int l8_open(tio_trace *t, const char *path)
{
	l8_priv *priv = tio_calloc(1, sizeof(*priv));
	if (!priv)
		return TIO_ERR_NOMEM;
	t->user = priv;
	l8_trace *tr = &priv->tr;
	l8_name *names = NULL;
	size_t nnames = 0, ntfs = 0;
	l8_tf **tfs = NULL;
	int r = list_tracefiles(path, &names, &nnames);
	if (r)
		return r;
	tfs = tio_calloc(nnames ? nnames : 1, sizeof(*tfs));
	tr->by_id = tio_calloc(L8_NIDS, sizeof(*tr->by_id));
	if (!tfs || !tr->by_id) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	/* empty tracefiles are skipped; the kinds left name the stream classes */
	size_t kept = 0;
	for (size_t i = 0; i < nnames; i++) {
		l8_tf *tf = tf_new(t, tr, path, &names[i]);
		if (!tf) {
			r = tio_err_push(TIO_ERR_IO, "%s", path);
			goto out;
		}
		if (!tf->map.size) {
			tf_drop(tf);
			free(names[i].rel);
			free(names[i].kind);
			names[i].rel = names[i].kind = NULL;
			continue;
		}
		tfs[ntfs++] = tf;
		if (kept != i) {
			names[kept] = names[i];
			names[i].rel = names[i].kind = NULL;
		}
		kept++;
	}
	nnames = kept;
	r = read_params(tr, tfs, ntfs, path);
	r = r ? r : bootstrap_core(tr);
	for (size_t i = 0; !r && i < ntfs; i++) {
		l8_tf *tf = tfs[i];
		if (strcmp(tf->kind, "facilities"))
			continue;
		r = tf_vals(tf, 16);
		r = r ? r : scan_facilities(tr, tf);
		tf->blk = 0;
		tf->bs = 0;
		tf->in_block = tf->done = false;
		tf->last = NULL;
	}
	r = r ? r : build_classes(t, tr, names, nnames);
	if (r)
		goto out;
	t->streams = tio_calloc(ntfs ? ntfs : 1, sizeof(*t->streams));
	if (!t->streams) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < ntfs; i++) {
		l8_tf *tf = tfs[i];
		for (uint32_t k = 0; k < t->tc->nscs; k++)
			if (!strcmp(t->tc->scs[k]->name, tf->kind))
				tf->base.sc = t->tc->scs[k];
		r = tf_vals(tf, tr->max_fields ? tr->max_fields : 1);
		if (r)
			goto out;
		tf->base.index = t->nstreams;
		t->streams[t->nstreams++] = &tf->base;
		tfs[i] = NULL;
	}
	size_t l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	size_t b = l;
	while (b > 0 && path[b - 1] != '/')
		b--;
	t->name = tio_strndup(path + b, l - b);
	if (!t->name)
		r = TIO_ERR_NOMEM;
out:
	for (size_t i = 0; i < ntfs; i++)
		if (tfs[i])
			tf_drop(tfs[i]);
	free(tfs);
	names_free(names, nnames);
	return r;
}

const tio_format_ops tio_format_lttng0_2008 = {
	.name = "lttng0-2008",
	.probe = l8_probe,
	.open = l8_open,
	.free = l8_free,
};

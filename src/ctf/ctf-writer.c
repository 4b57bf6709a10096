/*
 * The CTF writer: a sink named "ctf" that writes every trace it receives
 * messages from as a CTF 1.8 trace directory (CTF 1.8.3 sections 5-8;
 * choices in docs/formats/ctf-writer.md), or CTF 2 with option
 * ctf-version=2 (CTF2-SPEC-2.0, CTF2-FS-1.0: the same packets, JSON
 * metadata from ctf2-write.c; docs/formats/ctf2.md "Writer").
 *
 *   OUT/metadata            TSDL text or CTF 2 JSON text sequence
 *                           (packetized on request)
 *   OUT/<stream>            one file per input stream, packets of
 *                           header (magic, uuid, stream_id, stream_instance_id)
 *                           + context (timestamp_begin/end, content_size,
 *                           packet_size, packet_seq_num, events_discarded,
 *                           then the input's other packet context fields)
 *                           + events (header: id, full 64-bit timestamp;
 *                           then common context, specific context, payload)
 *
 * Several input traces go to OUT/<trace name>/ each.  Everything is written
 * under a temporary directory next to OUT and renamed at the end.
 *
 * Discarded event/packet messages shape the packets so that a reader
 * computes them back: the packet before ends at the range's beginning, the
 * packet after has the counter raised (events, ending at the range's end)
 * or its sequence number moved on (packets, beginning at the range's end).
 *
 * Only the model is read (src/ir): any format a reader maps onto it can be
 * written.  Buffers are per stream and reused: nothing is allocated per event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf/ctf-write.h"
#include "sink/sink.h"
#include "traceio/traceio.h"

#define CTF_MAGIC 0xC1FC1FC1u
#define META_MAGIC 0x75D11D57u
#define DEFAULT_PACKET_SIZE (256 * 1024)

typedef struct wevc {
	wplan spec, payload;
} wevc;

typedef struct wsclass {
	const tio_stream_class *sc;
	bool timed;
	unsigned id_bits;
	uint32_t ts_begin_off, ts_end_off, content_off, packet_off, seq_off, disc_off; /* bytes */
	uint32_t extra_off;	/* bytes: first extra packet context member */
	uint32_t *extra_member; /* model member index of each extra */
	uint32_t *extra_node;	/* plan node of each extra */
	uint32_t nextras;
	wplan extras, common;
	/* CTF 2: members of the input's event header written after id/timestamp */
	uint32_t *hx_member, *hx_node;
	uint32_t nhx;
	wplan hx;
	wevc *ecs;	  /* parallel to sc->ecs */
	uint32_t *by_id;  /* event class id -> index in sc->ecs (dense ids), or NULL */
	uint64_t nby_id;
} wsclass;

typedef struct wstream {
	const tio_stream *in;
	wsclass *c;
	char *fname;
	FILE *f;
	uint8_t *buf;
	size_t cap;	/* bytes */
	size_t hw;	/* bytes possibly non-zero since the last clear */
	uint64_t pos;	/* bits */
	bool open;
	uint32_t nevents;
	uint64_t first_ts, last_ts;
	bool pin_begin, pin_end;
	uint64_t pin_begin_v, pin_end_v;
	bool any_packet;
	uint64_t last_end;
	uint64_t seq, disc;
	/* encoded extra packet context members: bytes from extra_off to the bit *bits */
	uint8_t *xcur, *xtmp;
	size_t xcur_cap, xtmp_cap, xtmp_hw;
	uint64_t xcur_bits, xtmp_bits;
	bool has_x;
	uint64_t npackets, nevents_total;
} wstream;

typedef struct wtrace {
	const tio_trace *in;
	const tio_trace_class *tc;
	char *dir;
	bool ns_mode;
	bool be;
	unsigned sid_bits;
	uint32_t hdr_bytes;
	tio_buf meta;
	wsclass *scs;
	wstream *streams;
	bool ready; /* prepare() done */
} wtrace;

typedef struct ctfw {
	tio_sink base;
	char *out;
	bool force;
	bool packetize;
	int version;	      /* 1 (CTF 1.8) or 2 (CTF 2) */
	uint64_t packet_size; /* bytes: content limit */
	char *tmpdir;
	wtrace **traces;
	size_t ntraces, cap;
	wtrace *last;
	bool failed;
	bool done;
	tio_sink_inputs inputs; /* option input: trace_dir_name */
} ctfw;

/* ---------------------------------------------------------------- packet buffer */

/* Make room for `bits` more bits (new bytes are zero). */
static int grow(wstream *s, uint64_t bits)
{
	size_t need = (size_t)((s->pos + bits + 7) / 8) + 16;
	size_t ncap = s->cap ? s->cap : 4096;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return tio_err_set(TIO_ERR_LIMIT, "CTF writer: packet of %zu bytes too large", need);
		ncap *= 2;
	}
	uint8_t *nb = tio_realloc(s->buf, ncap);
	if (!nb)
		return TIO_ERR_NOMEM;
	memset(nb + s->cap, 0, ncap - s->cap);
	s->buf = nb;
	s->cap = ncap;
	return 0;
}

static inline int reserve(wstream *s, uint64_t bits)
{
	if (TIO_LIKELY((s->pos + bits + 7) / 8 + 16 <= s->cap))
		return 0;
	return grow(s, bits);
}

/* Bytes before the current position may be non-zero: clear them at the next packet. */
static inline void mark_dirty(wstream *s)
{
	size_t end = (size_t)((s->pos + 7) / 8);
	if (end > s->hw)
		s->hw = end;
}

static inline void align_to(wstream *s, uint32_t align)
{
	if (align > 1)
		s->pos = (s->pos + align - 1) & ~(uint64_t)(align - 1);
}

static inline int put_uint(wstream *s, uint32_t align, uint32_t size, bool be, uint64_t v)
{
	align_to(s, align);
	if (TIO_UNLIKELY((s->pos + size + 7) / 8 + 16 > s->cap)) {
		int r = grow(s, size);
		if (r)
			return r;
	}
	uint8_t *q = s->buf + s->pos / 8;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if ((s->pos & 7) == 0) {
		switch (size) {
		case 8: *q = (uint8_t)v; s->pos += 8; return 0;
		case 16: { uint16_t x = be ? tio_bswap16((uint16_t)v) : (uint16_t)v; memcpy(q, &x, 2); s->pos += 16; return 0; }
		case 32: { uint32_t x = be ? tio_bswap32((uint32_t)v) : (uint32_t)v; memcpy(q, &x, 4); s->pos += 32; return 0; }
		case 64: { uint64_t x = be ? tio_bswap64(v) : v; memcpy(q, &x, 8); s->pos += 64; return 0; }
		}
	}
#endif
	if (be)
		tio_put_bits_be(s->buf, s->pos, size, v);
	else
		tio_put_bits_le(s->buf, s->pos, size, v);
	s->pos += size;
	return 0;
}

static int put_bytes(wstream *s, const void *p, uint64_t n, uint64_t total)
{
	align_to(s, 8);
	int r = reserve(s, total * 8);
	if (r)
		return r;
	if (n)
		memcpy(s->buf + s->pos / 8, p, (size_t)n);
	if (total > n)
		memset(s->buf + s->pos / 8 + n, 0, (size_t)(total - n));
	s->pos += total * 8;
	return 0;
}

/* Patch a byte-aligned integer already reserved. */
static void set_uint(uint8_t *q, unsigned bits, bool be, uint64_t v)
{
	for (unsigned k = 0; k < bits / 8; k++) {
		unsigned sh = be ? (bits - 8 - 8 * k) : 8 * k;
		q[k] = (uint8_t)(v >> sh);
	}
}

/* ---------------------------------------------------------------- values */

static int bad_value(const tio_fc *fc)
{
	return tio_err_set(TIO_ERR_FORMAT, "CTF writer: a value does not match its field class (kind %d)",
			   fc ? (int)fc->kind : -1);
}

static uint64_t synth_value(const tio_val *v, const wnode *nd)
{
	if (nd->synth == SYN_TAG)
		return v->opt;
	if (nd->synth == SYN_ON)
		return v->n;
	if (nd->op == W_DBYTES)
		return v->v.s.len;
	if (v->n == 0 && v->v.s.p)
		return v->v.s.len;
	return v->n;
}

/* CTF 2 variable-length integer: 7 bits a byte, low bits first (CTF2-SPEC-2.0). */
static int put_leb128(wstream *s, uint64_t v, bool sgn)
{
	align_to(s, 8);
	int r = reserve(s, 80);
	if (r)
		return r;
	uint8_t *q = s->buf + s->pos / 8;
	unsigned n = 0;
	for (;;) {
		uint8_t byte = v & 0x7f;
		bool done;
		if (sgn) {
			int64_t x = (int64_t)v >> 7; /* arithmetic shift: gcc and clang */
			done = (x == 0 && !(byte & 0x40)) || (x == -1 && (byte & 0x40));
			v = (uint64_t)x;
		} else {
			v >>= 7;
			done = v == 0;
		}
		q[n++] = (uint8_t)(byte | (done ? 0 : 0x80));
		if (done)
			break;
	}
	s->pos += 8 * n;
	return 0;
}

static int put_val(wstream *s, const wnode *nodes, uint32_t ni, const tio_val *vals, uint32_t vi, bool be_default)
{
	const wnode *nd = &nodes[ni];
	const tio_val *v = &vals[vi];
	int r = 0;
	switch (nd->op) {
	case W_INT:
		if (TIO_UNLIKELY(nd->rev))
			return put_uint(s, nd->align, nd->size, nd->be, tio_bit_reverse(v->v.u, nd->size));
		return put_uint(s, nd->align, nd->size, nd->be, v->v.u);
	case W_VARINT:
		return put_uint(s, 8, 64, nd->be, v->v.u);
	case W_FLOAT: {
		uint64_t bits = tio_float_bits(v->v.d, nd->fc->f.exp_dig, nd->fc->f.mant_dig);
		if (TIO_UNLIKELY(nd->rev))
			bits = tio_bit_reverse(bits, nd->size);
		return put_uint(s, nd->align, nd->size, nd->be, bits);
	}
	case W_STRING: {
		if (nd->n > 1) { /* UTF-16/32: whole code units, then a zero one */
			uint64_t len = v->v.s.p ? v->v.s.len / nd->n * nd->n : 0;
			return put_bytes(s, v->v.s.p, len, len + nd->n);
		}
		uint64_t len = v->v.s.p ? strnlen(v->v.s.p, (size_t)v->v.s.len) : 0;
		return put_bytes(s, v->v.s.p, len, len + 1);
	}
	case W_LEB128:
		return put_leb128(s, v->v.u, nd->fc->vi.is_signed);
	case W_BIGINT:
		align_to(s, nd->align);
		return put_bytes(s, v->v.big, v->v.big ? nd->n : 0, nd->n);
	case W_OPTIONAL:
		if (v->n > 1)
			return bad_value(nd->fc);
		return v->n ? put_val(s, nodes, ni + 1, vals, vi + 1, be_default) : 0;
	case W_SBYTES: {
		uint64_t len = v->v.s.p ? (v->v.s.len < nd->n ? v->v.s.len : nd->n) : 0;
		return put_bytes(s, v->v.s.p, len, nd->n);
	}
	case W_DBYTES:
		return put_bytes(s, v->v.s.p, v->v.s.p ? v->v.s.len : 0, v->v.s.p ? v->v.s.len : 0);
	case W_STRUCT: {
		if (v->n != nd->nchild)
			return bad_value(nd->fc);
		align_to(s, nd->align);
		uint32_t c = ni + 1, j = vi + 1;
		for (uint32_t k = 0; k < nd->nchild; k++) {
			if (TIO_UNLIKELY(nodes[c].synth) &&
			    (r = put_uint(s, 8, 32, be_default, synth_value(&vals[j], &nodes[c]))))
				return r;
			if ((r = put_val(s, nodes, c, vals, j, be_default)))
				return r;
			c = nodes[c].next;
			j = vals[j].end;
		}
		return 0;
	}
	case W_ARRAY:
	case W_SEQ: {
		if (v->n == 0 && v->v.s.p && nd->text) {
			uint64_t n = nd->op == W_ARRAY ? nd->n : v->v.s.len;
			uint64_t have = v->v.s.len < n ? v->v.s.len : n;
			align_to(s, nd->align);
			return put_bytes(s, v->v.s.p, have, n);
		}
		if (nd->op == W_ARRAY && v->n != nd->n)
			return bad_value(nd->fc);
		align_to(s, nd->align);
		uint32_t j = vi + 1;
		for (uint32_t k = 0; k < v->n; k++) {
			if ((r = put_val(s, nodes, ni + 1, vals, j, be_default)))
				return r;
			j = vals[j].end;
		}
		return 0;
	}
	case W_VARIANT: {
		if (v->n != 1 || v->opt >= nd->nchild)
			return bad_value(nd->fc);
		uint32_t c = ni + 1;
		for (uint32_t k = 0; k < v->opt; k++)
			c = nodes[c].next;
		return put_val(s, nodes, c, vals, vi + 1, be_default);
	}
	}
	return bad_value(nd->fc);
}

/* Zero values for a plan (extras of a packet opened before any event). */
static int put_zero(wstream *s, const wnode *nodes, uint32_t ni, bool be_default)
{
	const wnode *nd = &nodes[ni];
	int r = 0;
	switch (nd->op) {
	case W_INT:
	case W_VARINT:
	case W_FLOAT:
		return put_uint(s, nd->align, nd->size, nd->be, 0);
	case W_STRING:
		return put_bytes(s, NULL, 0, nd->n > 1 ? nd->n : 1);
	case W_SBYTES:
	case W_BIGINT:
		return put_bytes(s, NULL, 0, nd->n);
	case W_LEB128:
		return put_leb128(s, 0, false);
	case W_DBYTES:
	case W_SEQ:
	case W_OPTIONAL:
		return 0;
	case W_STRUCT: {
		uint32_t c = ni + 1;
		align_to(s, nd->align);
		for (uint32_t k = 0; k < nd->nchild && !r; k++) {
			if (nodes[c].synth)
				r = put_uint(s, 8, 32, be_default, 0);
			if (!r)
				r = put_zero(s, nodes, c, be_default);
			c = nodes[c].next;
		}
		return r;
	}
	case W_ARRAY:
		align_to(s, nd->align);
		for (uint64_t k = 0; k < nd->n && !r; k++)
			r = put_zero(s, nodes, ni + 1, be_default);
		return r;
	case W_VARIANT:
		return put_zero(s, nodes, ni + 1, be_default);
	}
	return 0;
}

/* ---------------------------------------------------------------- packets */

static int stream_file(ctfw *w, wtrace *t, wstream *s)
{
	char *p = tio_path_join(t->dir, s->fname);
	if (!p)
		return TIO_ERR_NOMEM;
	s->f = fopen(p, "wbx");
	int e = errno;
	free(p);
	if (!s->f)
		return tio_err_set(TIO_ERR_IO, "%s/%s: cannot create: %s", w->out, s->fname, strerror(e));
	return 0;
}

/* Encode the extra packet context members of an event into s->xtmp. */
static int encode_extras(wtrace *t, wstream *s, const tio_val *ctx, const tio_val *vals)
{
	wsclass *c = s->c;
	/* a scratch stream positioned as the packet's extras are */
	if (s->xtmp_hw)
		memset(s->xtmp, 0, s->xtmp_hw);
	wstream x = {.buf = s->xtmp, .cap = s->xtmp_cap, .pos = (uint64_t)c->extra_off * 8};
	int r = 0;
	uint32_t j = (uint32_t)(ctx - vals) + 1, k = 0;
	for (uint32_t mi = 0; mi < ctx->n && !r; mi++) {
		if (k < c->nextras && c->extra_member[k] == mi) {
			const wnode *nd = &c->extras.nodes[c->extra_node[k]];
			if (nd->synth)
				r = put_uint(&x, 8, 32, t->be, synth_value(&vals[j], nd));
			if (!r)
				r = put_val(&x, c->extras.nodes, c->extra_node[k], vals, j, t->be);
			k++;
		}
		j = vals[j].end;
	}
	s->xtmp = x.buf;
	s->xtmp_cap = x.cap;
	mark_dirty(&x);
	s->xtmp_hw = x.hw;
	s->xtmp_bits = x.pos;
	if (!r && k != c->nextras)
		r = tio_err_set(TIO_ERR_FORMAT, "CTF writer: packet context value has %" PRIu32 " members, its class more",
				ctx->n);
	return r;
}

static void swap_extras(wstream *s)
{
	uint8_t *p = s->xcur;
	size_t cap = s->xcur_cap;
	s->xcur = s->xtmp;
	s->xcur_cap = s->xtmp_cap;
	s->xcur_bits = s->xtmp_bits;
	s->xtmp = p;
	s->xtmp_cap = cap;
	s->xtmp_hw = cap; /* unknown content: clear all of it next time */
	s->has_x = true;
}

static int open_packet(wtrace *t, wstream *s)
{
	wsclass *c = s->c;
	if (s->hw)
		memset(s->buf, 0, s->hw);
	s->hw = 0;
	s->pos = 0;
	int r = reserve(s, (uint64_t)c->extra_off * 8);
	if (r)
		return r;
	put_uint(s, 8, 32, t->be, CTF_MAGIC);
	if (t->tc->has_uuid)
		put_bytes(s, t->tc->uuid, 16, 16);
	put_uint(s, 8, t->sid_bits, t->be, c->sc->id);
	put_uint(s, 8, 64, t->be, s->in->id);
	s->pos = (uint64_t)c->extra_off * 8; /* role fields are patched at the end */
	if (c->nextras) {
		if (s->has_x) {
			uint64_t bits = s->xcur_bits - (uint64_t)c->extra_off * 8;
			if ((r = reserve(s, bits)))
				return r;
			memcpy(s->buf + c->extra_off, s->xcur + c->extra_off, (size_t)((bits + 7) / 8));
			s->pos = s->xcur_bits;
		} else {
			uint32_t k = 0;
			for (; k < c->nextras && !r; k++) {
				const wnode *nd = &c->extras.nodes[c->extra_node[k]];
				if (nd->synth)
					r = put_uint(s, 8, 32, t->be, 0);
				if (!r)
					r = put_zero(s, c->extras.nodes, c->extra_node[k], t->be);
			}
			if (r)
				return r;
		}
	}
	mark_dirty(s);
	s->open = true;
	s->nevents = 0;
	return 0;
}

static int close_packet(ctfw *w, wtrace *t, wstream *s, bool has_end, uint64_t end)
{
	wsclass *c = s->c;
	uint64_t content = s->pos;
	uint64_t bytes = (content + 7) / 8;
	int r = reserve(s, 0);
	if (r)
		return r;
	if (c->timed) {
		uint64_t b, e;
		if (s->pin_begin)
			b = s->pin_begin_v;
		else if (s->nevents)
			b = s->first_ts;
		else
			b = has_end ? end : (s->pin_end ? s->pin_end_v : s->last_end);
		if (has_end)
			e = end;
		else if (s->pin_end)
			e = s->pin_end_v;
		else
			e = s->nevents ? s->last_ts : b;
		if (s->nevents && e < s->last_ts)
			e = s->last_ts;
		if (e < b)
			e = b;
		set_uint(s->buf + c->ts_begin_off, 64, t->be, b);
		set_uint(s->buf + c->ts_end_off, 64, t->be, e);
		s->last_end = e;
	}
	set_uint(s->buf + c->content_off, 64, t->be, content);
	set_uint(s->buf + c->packet_off, 64, t->be, bytes * 8);
	set_uint(s->buf + c->seq_off, 64, t->be, s->seq);
	set_uint(s->buf + c->disc_off, 64, t->be, s->disc);
	if (!s->f && (r = stream_file(w, t, s)))
		return r;
	if (fwrite(s->buf, 1, (size_t)bytes, s->f) != bytes)
		return tio_err_set(TIO_ERR_IO, "%s/%s: write error: %s", w->out, s->fname, strerror(errno));
	s->seq++;
	s->npackets++;
	s->any_packet = true;
	s->open = false;
	s->pin_begin = s->pin_end = false;
	return 0;
}

/* ---------------------------------------------------------------- metadata */

static bool is_ident(const char *s)
{
	if (!s || !*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static char *ident(const char *s, const char *fallback)
{
	if (!s || !*s)
		return tio_strdup(fallback);
	char *r = tio_malloc(strlen(s) + 2);
	if (!r)
		return NULL;
	char *q = r;
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		*q++ = '_';
	for (; *s; s++)
		*q++ = ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')) ? *s : '_';
	*q = 0;
	return r;
}

static void uuid_text(tio_buf *b, const uint8_t *u)
{
	tio_buf_addf(b, "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"", u[0], u[1], u[2],
		     u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

static void u_field(tio_buf *b, const char *name, unsigned bits, bool be, unsigned base, const char *clock)
{
	tio_buf_addf(b, "\t\tinteger { size = %u; align = 8; signed = false; byte_order = %s; base = %u;", bits,
		     be ? "be" : "le", base);
	if (clock)
		tio_buf_addf(b, " map = clock.%s.value;", clock);
	tio_buf_addf(b, " } %s;\n", name);
}

static int wevc_free_all(wsclass *c)
{
	for (uint32_t k = 0; c->ecs && k < c->sc->necs; k++) {
		wplan_free(&c->ecs[k].spec);
		wplan_free(&c->ecs[k].payload);
	}
	free(c->ecs);
	free(c->by_id);
	free(c->extra_member);
	free(c->extra_node);
	free(c->hx_member);
	free(c->hx_node);
	wplan_free(&c->hx);
	wplan_free(&c->extras);
	wplan_free(&c->common);
	return 0;
}

/* Does `fc` or anything inside it carry a role? */
static bool has_role(const tio_fc *fc)
{
	if (!fc)
		return false;
	if (fc->role != TIO_ROLE_NONE)
		return true;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t k = 0; k < fc->st.nmembers; k++)
			if (has_role(fc->st.members[k].fc))
				return true;
		return false;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		return has_role(fc->a.elem);
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		for (uint32_t k = 0; k < fc->v.noptions; k++)
			if (has_role(fc->v.options[k].fc))
				return true;
		return false;
	default:
		return false;
	}
}

/*
 * Metadata for one stream class and its event classes, TSDL (`tw`) or CTF 2
 * (`jw`); fills the plans.  The packet layout (offsets of the fields the
 * writer patches) is the same for both.
 */
static int meta_stream_class(wtrace *t, tsdlw *tw, ctf2w *jw, wsclass *c, const tio_stream_class *sc)
{
	tio_buf *b = &t->meta;
	int r = 0;
	c->sc = sc;
	c->timed = sc->clock >= 0 && (uint32_t)sc->clock < t->tc->nclocks;
	const char *clk = c->timed && tw ? tw->clock_names[sc->clock] : NULL;
	uint64_t maxid = 0;
	for (uint32_t k = 0; k < sc->necs; k++)
		if (sc->ecs[k]->id > maxid)
			maxid = sc->ecs[k]->id;
	c->id_bits = maxid <= UINT16_MAX ? 16 : maxid <= UINT32_MAX ? 32 : 64;
	if (sc->necs && maxid < 65536) {
		c->nby_id = maxid + 1;
		if (!(c->by_id = tio_calloc((size_t)c->nby_id, sizeof(uint32_t))))
			return TIO_ERR_NOMEM;
		memset(c->by_id, 0xff, (size_t)c->nby_id * sizeof(uint32_t));
		for (uint32_t k = sc->necs; k-- > 0;)
			c->by_id[sc->ecs[k]->id] = k;
	}

	if (tw) {
		tio_buf_addf(b, "stream {\n\tid = %" PRIu64 ";\n", sc->id);
		tio_buf_addl(b, "\tpacket.context := struct {\n");
	}
	uint32_t off = t->hdr_bytes;
	if (c->timed) {
		if (tw) {
			u_field(b, "timestamp_begin", 64, t->be, 10, clk);
			u_field(b, "timestamp_end", 64, t->be, 10, clk);
		}
		c->ts_begin_off = off;
		c->ts_end_off = off + 8;
		off += 16;
	}
	if (tw) {
		u_field(b, "content_size", 64, t->be, 10, NULL);
		u_field(b, "packet_size", 64, t->be, 10, NULL);
		u_field(b, "packet_seq_num", 64, t->be, 10, NULL);
		u_field(b, "events_discarded", 64, t->be, 10, NULL);
	}
	c->content_off = off;
	c->packet_off = off + 8;
	c->seq_off = off + 16;
	c->disc_off = off + 24;
	off += 32;
	c->extra_off = off;
	const tio_fc *pc = sc->pkt_ctx;
	if (pc && pc->kind == TIO_FC_STRUCT && pc->st.nmembers) {
		c->extra_member = tio_calloc(pc->st.nmembers, sizeof(uint32_t));
		c->extra_node = tio_calloc(pc->st.nmembers, sizeof(uint32_t));
		if (!c->extra_member || !c->extra_node)
			return TIO_ERR_NOMEM;
		if (tw)
			tw->scope = "stream.packet.context";
		for (uint32_t k = 0; k < pc->st.nmembers && !r; k++) {
			const tio_member *m = &pc->st.members[k];
			if (m->fc->role != TIO_ROLE_NONE)
				continue;
			c->extra_member[c->nextras] = k;
			c->extra_node[c->nextras++] = (uint32_t)c->extras.n;
			if (tw)
				r = tsdlw_member(tw, &c->extras, m->fc, m->name, 2, "stream.packet.context", pc->st.members, k);
		}
		if (r)
			return r;
	}
	c->ecs = tio_calloc(sc->necs ? sc->necs : 1, sizeof(wevc));
	if (!c->ecs)
		return TIO_ERR_NOMEM;
	if (jw) {
		/*
		 * The input's event header members with no role in them: other
		 * fields may take a length or selector there (yactfr's vars).
		 */
		const tio_fc *eh = sc->ev_header;
		if (eh && eh->kind == TIO_FC_STRUCT && eh->st.nmembers) {
			c->hx_member = tio_calloc(eh->st.nmembers, sizeof(uint32_t));
			c->hx_node = tio_calloc(eh->st.nmembers, sizeof(uint32_t));
			if (!c->hx_member || !c->hx_node)
				return TIO_ERR_NOMEM;
			for (uint32_t k = 0; k < eh->st.nmembers; k++)
				if (!has_role(eh->st.members[k].fc))
					c->hx_member[c->nhx++] = k;
		}
		ctf2w_extras hx = {c->hx_member, c->nhx, &c->hx, c->hx_node};
		r = ctf2w_stream_class(jw, sc, c->id_bits, c->timed, c->extra_member, c->nextras, &c->extras,
				       c->extra_node, &hx, &c->common);
		for (uint32_t k = 0; k < sc->necs && !r; k++)
			r = ctf2w_event_class(jw, sc->ecs[k], &c->ecs[k].spec, &c->ecs[k].payload);
		return r;
	}
	tio_buf_addl(b, "\t};\n\tevent.header := struct {\n");
	tio_buf_addf(b, "\t\tinteger { size = %u; align = 8; signed = false; byte_order = %s; base = 10; } id;\n",
		     c->id_bits, t->be ? "be" : "le");
	if (c->timed)
		u_field(b, "timestamp", 64, t->be, 10, clk);
	tio_buf_addl(b, "\t};\n");
	if (sc->ev_common_ctx && (r = tsdlw_scope(tw, &c->common, "event.context", sc->ev_common_ctx, 1,
						  "stream.event.context")))
		return r;
	tio_buf_addl(b, "};\n\n");

	size_t keep = tw->npaths;
	for (uint32_t k = 0; k < sc->necs && !r; k++) {
		const tio_event_class *ec = sc->ecs[k];
		char where[300];
		snprintf(where, sizeof(where), "event class '%.200s' (id %" PRIu64 ")", ec->name ? ec->name : "",
			 ec->id);
		tw->where = where;
		tio_buf_addl(b, "event {\n\tname = ");
		tsdlw_string(b, ec->name);
		tio_buf_addf(b, ";\n\tid = %" PRIu64 ";\n\tstream_id = %" PRIu64 ";\n", ec->id, sc->id);
		if (ec->loglevel != INT64_MIN)
			tio_buf_addf(b, "\tloglevel = %" PRId64 ";\n", ec->loglevel);
		if (ec->emf_uri) {
			tio_buf_addl(b, "\tmodel.emf.uri = ");
			tsdlw_string(b, ec->emf_uri);
			tio_buf_addl(b, ";\n");
		}
		for (uint32_t a = 0; a < ec->nattrs; a++) {
			const tio_kv *kv = &ec->attrs[a];
			static const char *const reserved[] = {"name", "id", "stream_id", "loglevel", "context", "fields"};
			bool ok = is_ident(kv->key);
			for (size_t q = 0; ok && q < TIO_ARRAY_LEN(reserved); q++)
				ok = strcmp(kv->key, reserved[q]) != 0;
			if (!ok)
				continue;
			tio_buf_addf(b, "\t%s = ", kv->key);
			if (kv->is_int)
				tio_buf_addf(b, "%" PRId64, kv->ival);
			else
				tsdlw_string(b, kv->sval);
			tio_buf_addl(b, ";\n");
		}
		if (ec->spec_ctx && (r = tsdlw_scope(tw, &c->ecs[k].spec, "context", ec->spec_ctx, 1, "event.context")))
			break;
		if (ec->payload && (r = tsdlw_scope(tw, &c->ecs[k].payload, "fields", ec->payload, 1, "event.fields")))
			break;
		tio_buf_addl(b, "};\n\n");
		tsdlw_paths_truncate(tw, keep);
	}
	return r;
}

static int build_metadata(ctfw *w, wtrace *t)
{
	const tio_trace_class *tc = t->tc;
	tio_buf *b = &t->meta;
	tsdlw tw = {.out = b, .tc = tc, .ns_clocks = t->ns_mode, .map_clocks = !t->ns_mode, .where = "trace"};
	int r = 0;
	tw.clock_names = tio_calloc(tc->nclocks ? tc->nclocks : 1, sizeof(char *));
	if (!tw.clock_names)
		return TIO_ERR_NOMEM;
	for (uint32_t k = 0; k < tc->nclocks; k++) {
		char fb[32];
		snprintf(fb, sizeof(fb), "clock%" PRIu32, k);
		if (!(tw.clock_names[k] = ident(tc->clocks[k]->name, fb))) {
			r = TIO_ERR_NOMEM;
			goto out;
		}
		for (uint32_t j = 0; j < k; j++) /* names must stay unique */
			if (!strcmp(tw.clock_names[j], tw.clock_names[k])) {
				free(tw.clock_names[k]);
				if (!(tw.clock_names[k] = tio_asprintf("%s_%" PRIu32, fb, k))) {
					r = TIO_ERR_NOMEM;
					goto out;
				}
			}
	}
	uint64_t maxsid = 0;
	for (uint32_t k = 0; k < tc->nscs; k++)
		if (tc->scs[k]->id > maxsid)
			maxsid = tc->scs[k]->id;
	t->sid_bits = maxsid <= UINT32_MAX ? 32 : 64;
	t->hdr_bytes = 4 + (tc->has_uuid ? 16 : 0) + t->sid_bits / 8 + 8;
	if (w->version == 2) {
		ctf2w *jw = NULL;
		r = ctf2w_begin(&jw, b, tc, t->ns_mode, t->sid_bits);
		if (!r && !(t->scs = tio_calloc(tc->nscs ? tc->nscs : 1, sizeof(wsclass))))
			r = TIO_ERR_NOMEM;
		for (uint32_t k = 0; k < tc->nscs && !r; k++)
			r = meta_stream_class(t, NULL, jw, &t->scs[k], tc->scs[k]);
		ctf2w_free(jw);
		if (r)
			tio_err_push(r, "%s: CTF 2 writer", t->in->path ? t->in->path : "");
		goto out;
	}

	tio_buf_addl(b, "/* CTF 1.8 */\n\n/* written by traceio " TRACEIO_VERSION " */\n\ntrace {\n\tmajor = 1;\n\tminor = 8;\n");
	if (tc->has_uuid) {
		tio_buf_addl(b, "\tuuid = ");
		uuid_text(b, tc->uuid);
		tio_buf_addl(b, ";\n");
	}
	tio_buf_addf(b, "\tbyte_order = %s;\n\tpacket.header := struct {\n", t->be ? "be" : "le");
	u_field(b, "magic", 32, t->be, 16, NULL);
	if (tc->has_uuid)
		tio_buf_addf(b, "\t\tinteger { size = 8; align = 8; signed = false; byte_order = %s; base = 16; } uuid[16];\n",
			     t->be ? "be" : "le");
	u_field(b, "stream_id", t->sid_bits, t->be, 10, NULL);
	u_field(b, "stream_instance_id", 64, t->be, 10, NULL);
	tio_buf_addl(b, "\t};\n};\n\n");

	if (tc->nenv) {
		tio_buf_addl(b, "env {\n");
		for (uint32_t k = 0; k < tc->nenv; k++) {
			const tio_kv *kv = &tc->env[k];
			char *key = ident(kv->key, "key");
			if (!key) {
				r = TIO_ERR_NOMEM;
				goto out;
			}
			tio_buf_addf(b, "\t%s = ", key);
			free(key);
			if (kv->is_int)
				tio_buf_addf(b, "%" PRId64, kv->ival);
			else
				tsdlw_string(b, kv->sval);
			tio_buf_addl(b, ";\n");
		}
		tio_buf_addl(b, "};\n\n");
	}

	for (uint32_t k = 0; k < tc->nclocks; k++) {
		const tio_clock *c = tc->clocks[k];
		tio_buf_addf(b, "clock {\n\tname = \"%s\";\n", tw.clock_names[k]);
		if (c->has_uuid) {
			tio_buf_addl(b, "\tuuid = ");
			uuid_text(b, c->uuid);
			tio_buf_addl(b, ";\n");
		}
		if (c->description) {
			tio_buf_addl(b, "\tdescription = ");
			tsdlw_string(b, c->description);
			tio_buf_addl(b, ";\n");
		}
		uint64_t freq = t->ns_mode ? 1000000000 : c->freq;
		int64_t off_s = t->ns_mode ? 0 : c->offset_s, off = t->ns_mode ? 0 : c->offset;
		if (off < 0) { /* readers want cycles >= 0: move whole seconds to offset_s */
			int64_t sec = (-off + (int64_t)freq - 1) / (int64_t)freq;
			off_s -= sec;
			off += sec * (int64_t)freq;
		}
		tio_buf_addf(b, "\tfreq = %" PRIu64 ";\n\tprecision = %" PRIu64 ";\n\toffset_s = %" PRId64 ";\n\toffset = %" PRId64 ";\n",
			     freq, c->precision, off_s, off);
		tio_buf_addf(b, "\tabsolute = %s;\n};\n\n", c->origin_unix ? "true" : "false");
	}

	t->scs = tio_calloc(tc->nscs ? tc->nscs : 1, sizeof(wsclass));
	if (!t->scs) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < tc->nscs && !r; k++) {
		char where[64];
		snprintf(where, sizeof(where), "stream class %" PRIu64, tc->scs[k]->id);
		tw.where = where;
		r = meta_stream_class(t, &tw, NULL, &t->scs[k], tc->scs[k]);
	}
	if (r)
		tio_err_push(r, "%s: CTF writer", t->in->path ? t->in->path : "");
out:
	for (uint32_t k = 0; k < tc->nclocks; k++)
		free(tw.clock_names[k]);
	free(tw.clock_names);
	tsdlw_free(&tw);
	TIO_UNUSED(w);
	return r;
}

/* File names: the input's data file name when unique, else <channel>_<id>. */
static int name_streams(wtrace *t)
{
	const tio_trace *in = t->in;
	for (uint32_t k = 0; k < in->nstreams; k++) {
		const tio_stream *s = in->streams[k];
		const char *p = s->path ? s->path : s->name;
		const char *base = p ? strrchr(p, '/') : NULL;
		base = base ? base + 1 : p;
		bool unique = base && *base && strcmp(base, "metadata") && base[0] != '.';
		for (uint32_t j = 0; unique && j < in->nstreams; j++) {
			const tio_stream *o = in->streams[j];
			const char *q = o->path ? o->path : o->name;
			const char *ob = q ? strrchr(q, '/') : NULL;
			ob = ob ? ob + 1 : q;
			unique = j == k || !ob || strcmp(ob, base);
		}
		char *name;
		if (unique) {
			name = ident(base, "stream");
		} else {
			const char *ch = s->sc && s->sc->name && *s->sc->name ? s->sc->name : NULL;
			char *chn = ch ? ident(ch, "channel") : tio_asprintf("channel%" PRIu64, s->sc ? s->sc->id : 0);
			name = chn ? tio_asprintf("%s_%" PRIu64, chn, s->id) : NULL;
			free(chn);
		}
		if (!name)
			return TIO_ERR_NOMEM;
		/* still a duplicate (two classes with one name): add the position */
		for (uint32_t j = 0; j < k; j++)
			if (!strcmp(t->streams[j].fname, name)) {
				char *n2 = tio_asprintf("%s_%" PRIu32, name, k);
				free(name);
				if (!(name = n2))
					return TIO_ERR_NOMEM;
				break;
			}
		t->streams[k].fname = name;
	}
	return 0;
}

static void wtrace_free(wtrace *t)
{
	if (!t)
		return;
	for (uint32_t k = 0; t->scs && k < t->tc->nscs; k++)
		wevc_free_all(&t->scs[k]);
	free(t->scs);
	for (uint32_t k = 0; t->streams && k < t->in->nstreams; k++) {
		wstream *s = &t->streams[k];
		if (s->f)
			fclose(s->f);
		free(s->fname);
		free(s->buf);
		free(s->xcur);
		free(s->xtmp);
	}
	free(t->streams);
	tio_buf_free(&t->meta);
	free(t->dir);
	free(t);
}

/* ---------------------------------------------------------------- output directory */


static int start(ctfw *w)
{
	if (!w->out)
		return tio_err_set(TIO_ERR_USAGE, "CTF writer: no output path (option 'output')");
	struct stat st;
	if (!w->force && lstat(w->out, &st) == 0)
		return tio_err_set(TIO_ERR_USAGE, "%s: already exists (--force replaces it)", w->out);
	w->tmpdir = tio_asprintf("%s.tmp-XXXXXX", w->out);
	if (!w->tmpdir)
		return TIO_ERR_NOMEM;
	if (tio_mkdtemp(w->tmpdir)) {
		int e = errno;
		free(w->tmpdir);
		w->tmpdir = NULL;
		return tio_err_set(TIO_ERR_IO, "%s: cannot create a directory next to it: %s", w->out, strerror(e));
	}
	return 0;
}

static wtrace *register_trace(ctfw *w, const tio_trace *in)
{
	if (tio_grow(&w->traces, &w->cap, w->ntraces + 1, sizeof(wtrace *)))
		return NULL;
	wtrace *t = tio_calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	w->traces[w->ntraces++] = t;
	t->in = in;
	t->tc = in->tc;
	t->be = in->tc->byte_order == TIO_BE;
	return t;
}

/* Metadata, plans and streams of a trace: at its first message (`m`), or at the end (NULL). */
static int prepare(ctfw *w, wtrace *t, const tio_msg *m)
{
	const tio_trace *in = t->in;
	int r;
	if (!w->tmpdir && (r = start(w)))
		return r;
	/*
	 * Clock values are written as the reader counted them unless its ns
	 * are not the clock's (LTTng 0.x: LTTV's own conversion): then the
	 * stream's clock is written as ns from the origin at 1 GHz.
	 */
	const tio_stream_class *sc = m ? m->stream->sc : NULL;
	if (sc && sc->clock >= 0 && (uint32_t)sc->clock < in->tc->nclocks) {
		const tio_clock *c = in->tc->clocks[sc->clock];
		int64_t ns;
		bool has = m->has_ts || m->has_range;
		uint64_t cy = m->has_ts ? m->cycles : m->begin_cycles;
		int64_t want = m->has_ts ? m->ns : m->begin_ns;
		if (has && (tio_clock_ns(c, cy, &ns) || ns != want))
			t->ns_mode = true;
	}
	size_t idx = 0;
	while (w->traces[idx] != t)
		idx++;
	if (!(t->dir = tio_asprintf("%s/.w%zu", w->tmpdir, idx)))
		return TIO_ERR_NOMEM;
	if (mkdir(t->dir, 0777))
		return tio_err_set(TIO_ERR_IO, "%s: %s", t->dir, strerror(errno));
	if ((r = build_metadata(w, t)))
		return r;
	t->streams = tio_calloc(in->nstreams ? in->nstreams : 1, sizeof(wstream));
	if (!t->streams)
		return TIO_ERR_NOMEM;
	for (uint32_t k = 0; k < in->nstreams; k++) {
		wstream *s = &t->streams[k];
		s->in = in->streams[k];
		for (uint32_t j = 0; j < in->tc->nscs; j++)
			if (in->tc->scs[j] == s->in->sc)
				s->c = &t->scs[j];
		if (!s->c)
			return tio_err_set(TIO_ERR_FORMAT, "%s: stream %" PRIu32 " has no class in its trace", in->path, k);
	}
	if ((r = name_streams(t)))
		return r;
	t->ready = true;
	return 0;
}

static wtrace *find_trace(ctfw *w, const tio_trace *in)
{
	if (w->last && w->last->in == in)
		return w->last;
	for (size_t k = 0; k < w->ntraces; k++)
		if (w->traces[k]->in == in)
			return w->last = w->traces[k];
	return NULL;
}

/* ---------------------------------------------------------------- messages */

static const wevc *find_ec(const wsclass *c, const tio_event_class *ec)
{
	const tio_stream_class *sc = c->sc;
	if (TIO_LIKELY(ec->id < c->nby_id)) {
		uint32_t k = c->by_id[ec->id];
		if (TIO_LIKELY(k < sc->necs && sc->ecs[k] == ec))
			return &c->ecs[k];
	}
	uint32_t lo = 0, hi = sc->necs;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (sc->ecs[mid]->id < ec->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = lo; k < sc->necs && sc->ecs[k]->id == ec->id; k++)
		if (sc->ecs[k] == ec)
			return &c->ecs[k];
	for (uint32_t k = 0; k < sc->necs; k++) /* classes not sorted after all */
		if (sc->ecs[k] == ec)
			return &c->ecs[k];
	return NULL;
}

static int put_scope(wtrace *t, wstream *s, const wplan *p, const tio_msg *m, int scope)
{
	if (!p->n)
		return 0;
	const tio_val *v = m->scope[scope];
	if (!v)
		return tio_err_set(TIO_ERR_FORMAT, "CTF writer: event '%s' has no value for a scope its class declares",
				   m->ec->name ? m->ec->name : "");
	return put_val(s, p->nodes, 0, m->vals, (uint32_t)(v - m->vals), t->be);
}

/* CTF 2: the input's event header members kept after id/timestamp (zeros when it has no header value). */
static int put_header_extras(wtrace *t, wstream *s, const tio_msg *m)
{
	const wsclass *c = s->c;
	const tio_val *h = m->scope[TIO_SCOPE_EV_HEADER];
	int r = 0;
	if (!h) {
		for (uint32_t k = 0; k < c->nhx && !r; k++) {
			const wnode *nd = &c->hx.nodes[c->hx_node[k]];
			if (nd->synth)
				r = put_uint(s, 8, 32, t->be, 0);
			if (!r)
				r = put_zero(s, c->hx.nodes, c->hx_node[k], t->be);
		}
		return r;
	}
	uint32_t j = (uint32_t)(h - m->vals) + 1, k = 0;
	for (uint32_t mi = 0; mi < h->n && k < c->nhx && !r; mi++) {
		if (c->hx_member[k] == mi) {
			const wnode *nd = &c->hx.nodes[c->hx_node[k]];
			if (nd->synth)
				r = put_uint(s, 8, 32, t->be, synth_value(&m->vals[j], nd));
			if (!r)
				r = put_val(s, c->hx.nodes, c->hx_node[k], m->vals, j, t->be);
			k++;
		}
		j = m->vals[j].end;
	}
	if (!r && k != c->nhx)
		r = tio_err_set(TIO_ERR_FORMAT, "CTF writer: event header value has %" PRIu32 " members, its class more", h->n);
	return r;
}

static int put_event(wtrace *t, wstream *s, const wevc *e, const tio_msg *m, uint64_t ts)
{
	wsclass *c = s->c;
	int r = put_uint(s, 8, c->id_bits, t->be, m->ec->id);
	if (!r && c->timed)
		r = put_uint(s, 8, 64, t->be, ts);
	if (!r && c->nhx)
		r = put_header_extras(t, s, m);
	if (!r)
		r = put_scope(t, s, &c->common, m, TIO_SCOPE_EV_COMMON_CTX);
	if (!r)
		r = put_scope(t, s, &e->spec, m, TIO_SCOPE_EV_SPEC_CTX);
	if (!r)
		r = put_scope(t, s, &e->payload, m, TIO_SCOPE_PAYLOAD);
	return r;
}

static int write_event(ctfw *w, wtrace *t, wstream *s, const tio_msg *m)
{
	wsclass *c = s->c;
	const wevc *e = find_ec(c, m->ec);
	if (!e)
		return tio_err_set(TIO_ERR_FORMAT, "CTF writer: event class '%s' is not in its stream class",
				   m->ec->name ? m->ec->name : "");
	uint64_t ts = 0;
	if (c->timed) {
		if (!m->has_ts)
			return tio_err_set(TIO_ERR_FORMAT, "%s@0x%" PRIx64 ": event '%s' has no timestamp in a timed stream",
					   s->in->path ? s->in->path : "", m->offset, m->ec->name ? m->ec->name : "");
		if (t->ns_mode && m->ns < 0)
			return tio_err_set(TIO_ERR_UNSUPPORTED, "%s@0x%" PRIx64 ": event before the clock origin",
					   s->in->path ? s->in->path : "", m->offset);
		ts = t->ns_mode ? (uint64_t)m->ns : m->cycles;
	}
	int r;
	if (s->open && s->pin_end && ts > s->pin_end_v && (r = close_packet(w, t, s, false, 0)))
		return r;
	if (c->nextras && m->scope[TIO_SCOPE_PKT_CTX]) {
		if ((r = encode_extras(t, s, m->scope[TIO_SCOPE_PKT_CTX], m->vals)))
			return r;
		bool same = s->has_x && s->xcur_bits == s->xtmp_bits &&
			    !memcmp(s->xcur + c->extra_off, s->xtmp + c->extra_off,
				    (size_t)((s->xcur_bits + 7) / 8 - c->extra_off));
		if (!same) {
			bool rewrite = s->open && s->nevents == 0;
			if (s->open && !rewrite && (r = close_packet(w, t, s, false, 0)))
				return r;
			swap_extras(s);
			if (rewrite) {
				/*
				 * A packet opened by a discarded record, before any
				 * event told the context values: write them now, it
				 * keeps its pinned times.
				 */
				size_t from = c->extra_off, to = (size_t)((s->pos + 7) / 8);
				memset(s->buf + from, 0, to - from);
				uint64_t bits = s->xcur_bits - (uint64_t)c->extra_off * 8;
				s->pos = (uint64_t)c->extra_off * 8;
				if ((r = reserve(s, bits)))
					return r;
				memcpy(s->buf + c->extra_off, s->xcur + c->extra_off, (size_t)((bits + 7) / 8));
				s->pos = s->xcur_bits;
				mark_dirty(s);
			}
		}
	}
	for (int attempt = 0;; attempt++) {
		if (!s->open && (r = open_packet(t, s)))
			return r;
		uint64_t at = s->pos;
		if ((r = put_event(t, s, e, m, ts)))
			return r;
		if (s->pos <= w->packet_size * 8 || s->nevents == 0 || s->pin_end || attempt)
			break;
		/*
		 * Too big for this packet: end it before this event and write
		 * the event again.  The event began at a byte boundary (its
		 * header is byte-aligned): clear its bytes.
		 */
		size_t from = (size_t)((at + 7) / 8), to = (size_t)((s->pos + 7) / 8);
		memset(s->buf + from, 0, to - from);
		s->pos = at;
		if ((r = close_packet(w, t, s, false, 0)))
			return r;
	}
	mark_dirty(s);
	if (!s->nevents)
		s->first_ts = ts;
	s->nevents++;
	s->nevents_total++;
	s->last_ts = ts;
	return 0;
}

/*
 * Make the last packet before a discarded range end at `b`: end the open
 * packet there, or write an empty packet [b, b] when the previous packet
 * ended elsewhere (or there is none and the reader needs one).
 */
static int end_before(ctfw *w, wtrace *t, wstream *s, bool timed, uint64_t b, bool need_prev)
{
	int r;
	if (s->open)
		return close_packet(w, t, s, timed, b);
	if ((timed && s->any_packet && s->last_end != b) || (need_prev && !s->any_packet)) {
		/* keep a beginning pinned for the next packet */
		bool pb = s->pin_begin;
		uint64_t pbv = s->pin_begin_v;
		if ((r = open_packet(t, s)))
			return r;
		s->pin_begin = timed;
		s->pin_begin_v = b;
		if ((r = close_packet(w, t, s, timed, b)))
			return r;
		s->pin_begin = pb;
		s->pin_begin_v = pbv;
	}
	return 0;
}

static int write_discarded(ctfw *w, wtrace *t, wstream *s, const tio_msg *m)
{
	bool timed = s->c->timed && m->has_range;
	uint64_t b = 0, e = 0;
	if (timed) {
		if (t->ns_mode && (m->begin_ns < 0 || m->end_ns < 0))
			return tio_err_set(TIO_ERR_UNSUPPORTED, "CTF writer: discarded range before the clock origin");
		b = t->ns_mode ? (uint64_t)m->begin_ns : m->begin_cycles;
		e = t->ns_mode ? (uint64_t)m->end_ns : m->end_cycles;
	}
	int r;
	if (m->type == TIO_MSG_DISCARDED_PACKETS) {
		if (s->open && s->nevents == 0 && s->pin_end) {
			/*
			 * Discarded events of the same input packet came first
			 * (babeltrace2's order): the packet they opened is the
			 * one after the gap.
			 */
			s->seq += m->count ? m->count : 1;
			if (timed) {
				s->pin_begin = true;
				s->pin_begin_v = e;
			}
			return 0;
		}
		if ((r = end_before(w, t, s, timed, b, true)))
			return r;
		s->seq += m->count ? m->count : 1;
		if (timed) {
			s->pin_begin = true;
			s->pin_begin_v = e;
		}
		return 0;
	}
	bool unknown = m->count == 0 && !s->any_packet && !s->open;
	if (unknown) {
		/* the first packet's counter is not zero: a reader cannot say how many */
		s->disc += 1;
		if (timed) {
			s->pin_begin = true;
			s->pin_begin_v = b;
		}
	} else {
		if ((r = end_before(w, t, s, timed, b, true)))
			return r;
		s->disc += m->count ? m->count : 1;
	}
	if ((r = open_packet(t, s)))
		return r;
	if (timed) {
		s->pin_end = true;
		s->pin_end_v = e;
	}
	return 0;
}

static int ctfw_add_trace(tio_sink *sk, const tio_trace *in)
{
	ctfw *w = (ctfw *)sk;
	if (find_trace(w, in))
		return 0;
	return register_trace(w, in) ? 0 : TIO_ERR_NOMEM;
}

static int ctfw_consume(tio_sink *sk, const tio_msg *m)
{
	ctfw *w = (ctfw *)sk;
	if (w->failed)
		return tio_err_set(TIO_ERR_USAGE, "CTF writer: already failed");
	if (m->type != TIO_MSG_EVENT && m->type != TIO_MSG_DISCARDED_EVENTS && m->type != TIO_MSG_DISCARDED_PACKETS)
		return 0;
	if (!m->stream || !m->stream->trace)
		return 0;
	wtrace *t = find_trace(w, m->stream->trace);
	int r = 0;
	if (!t && !(t = register_trace(w, m->stream->trace))) {
		w->failed = true;
		return TIO_ERR_NOMEM;
	}
	if (!t->ready && (r = prepare(w, t, m))) {
		w->failed = true;
		return r;
	}
	w->last = t;
	uint32_t si = m->stream->index;
	if (si >= t->in->nstreams || t->streams[si].in != m->stream) {
		w->failed = true;
		return tio_err_set(TIO_ERR_FORMAT, "CTF writer: message from an unknown stream");
	}
	wstream *s = &t->streams[si];
	r = m->type == TIO_MSG_EVENT ? write_event(w, t, s, m) : write_discarded(w, t, s, m);
	if (r) {
		w->failed = true;
		if (m->type == TIO_MSG_EVENT)
			tio_err_push(r, "%s@0x%" PRIx64, s->in->path ? s->in->path : "", m->offset);
	}
	return r;
}

/* ---------------------------------------------------------------- the end */

static int write_metadata(ctfw *w, wtrace *t)
{
	char *p = tio_path_join(t->dir, "metadata");
	if (!p)
		return TIO_ERR_NOMEM;
	FILE *f = fopen(p, "wbx");
	int e = errno;
	free(p);
	if (!f)
		return tio_err_set(TIO_ERR_IO, "%s/metadata: cannot create: %s", w->out, strerror(e));
	int r = 0;
	const char *text = t->meta.p ? t->meta.p : "";
	size_t len = t->meta.len;
	if (!w->packetize) {
		if (fwrite(text, 1, len, f) != len)
			r = TIO_ERR_IO;
	} else {
		/* 4 KiB packets: 37-byte header (CTF 1.8.3 section 7.1) then text */
		enum { PKT = 4096, HDR = 37 };
		uint8_t pkt[PKT];
		for (size_t off = 0; off < len && !r;) {
			size_t n = len - off < PKT - HDR ? len - off : PKT - HDR;
			memset(pkt, 0, sizeof(pkt));
			set_uint(pkt, 32, t->be, META_MAGIC);
			if (t->tc->has_uuid)
				memcpy(pkt + 4, t->tc->uuid, 16);
			set_uint(pkt + 20, 32, t->be, 0); /* checksum */
			set_uint(pkt + 24, 32, t->be, (uint32_t)((HDR + n) * 8));
			set_uint(pkt + 28, 32, t->be, PKT * 8);
			pkt[32] = pkt[33] = pkt[34] = 0; /* compression, encryption, checksum schemes */
			pkt[35] = w->version == 2 ? 2 : 1; /* major, minor (CTF2-PMETA-1.0: 2, 0) */
			pkt[36] = w->version == 2 ? 0 : 8;
			memcpy(pkt + HDR, text + off, n);
			if (fwrite(pkt, 1, PKT, f) != PKT)
				r = TIO_ERR_IO;
			off += n;
		}
	}
	if (fclose(f) && !r)
		r = TIO_ERR_IO;
	if (r)
		return tio_err_set(TIO_ERR_IO, "%s/metadata: write error: %s", w->out, strerror(errno));
	return 0;
}

/* Input trace j (tio_sink_trace_path). */
static const tio_trace *trace_at(const void *ctx, size_t j) { return ((const ctfw *)ctx)->traces[j]->in; }

/*
 * A directory name for trace `k` when there are several: its path below
 * the directory holding every input (tio_sink_trace_path: a fleet's
 * hosts/<host>/trace.dat), else its name below its input; `trace<k>` when
 * that is empty or an earlier trace's (`names[0..k)`).
 */
static char *trace_dir_name(ctfw *w, size_t k, char *const *names)
{
	char *abs;
	int err;
	const char *n = tio_sink_trace_path(&w->inputs, trace_at, w, w->ntraces, k, &abs, &err);
	if (err)
		return NULL;
	if (!n)
		n = w->traces[k]->in->name;
	tio_buf b = {0};
	bool comp_start = true;
	for (const char *p = n ? n : ""; *p; p++) {
		char c = *p;
		if (c == '/') {
			if (!comp_start)
				tio_buf_addc(&b, '/');
			comp_start = true;
			continue;
		}
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			  c == '-' || (c == '.' && !comp_start);
		tio_buf_addc(&b, ok ? c : '_');
		comp_start = false;
	}
	while (b.len && b.p[b.len - 1] == '/')
		b.len--;
	free(abs);
	bool dup = !b.len;
	for (size_t j = 0; j < k && !dup; j++)
		dup = !strcmp(names[j], tio_buf_cstr(&b));
	if (dup) {
		tio_buf_reset(&b);
		tio_buf_addf(&b, "trace%zu", k);
	}
	char *r = tio_strdup(tio_buf_cstr(&b));
	tio_buf_free(&b);
	return r;
}

static int mkdirs(char *p)
{
	for (char *q = strchr(p + 1, '/'); q; q = strchr(q + 1, '/')) {
		*q = 0;
		int r = mkdir(p, 0777);
		int e = errno;
		*q = '/';
		if (r && e != EEXIST)
			return tio_err_set(TIO_ERR_IO, "%s: %s", p, strerror(e));
	}
	return 0;
}

static int ctfw_finish(tio_sink *sk)
{
	ctfw *w = (ctfw *)sk;
	int r = 0;
	if (w->failed)
		return tio_err_set(TIO_ERR_USAGE, "CTF writer: nothing written after an error");
	if (!w->ntraces)
		return tio_err_set(TIO_ERR_USAGE, "%s: nothing to write: no input trace", w->out ? w->out : "CTF writer");
	for (size_t k = 0; k < w->ntraces && !r; k++) {
		wtrace *t = w->traces[k];
		if (!t->ready && (r = prepare(w, t, NULL)))
			break;
		for (uint32_t j = 0; j < t->in->nstreams && !r; j++) {
			wstream *s = &t->streams[j];
			if (s->open)
				r = close_packet(w, t, s, false, 0);
			if (!r && s->f) {
				if (fclose(s->f))
					r = tio_err_set(TIO_ERR_IO, "%s/%s: write error: %s", w->out, s->fname, strerror(errno));
				s->f = NULL;
			}
		}
		if (!r)
			r = write_metadata(w, t);
	}
	if (r) {
		w->failed = true;
		return r;
	}
	/* several traces: OUT/<name>/ each; one: OUT itself */
	char *src = NULL;
	if (w->ntraces == 1) {
		src = tio_strdup(w->traces[0]->dir);
	} else {
		char **names = tio_calloc(w->ntraces, sizeof(*names));
		if (!names)
			r = TIO_ERR_NOMEM;
		for (size_t k = 0; k < w->ntraces && !r; k++) {
			names[k] = trace_dir_name(w, k, names);
			char *dst = names[k] ? tio_asprintf("%s/%s", w->tmpdir, names[k]) : NULL;
			if (!dst)
				r = TIO_ERR_NOMEM;
			else if (!(r = mkdirs(dst)) && rename(w->traces[k]->dir, dst))
				r = tio_err_set(TIO_ERR_IO, "%s: %s", dst, strerror(errno));
			free(dst);
		}
		for (size_t k = 0; names && k < w->ntraces; k++)
			free(names[k]);
		free(names);
		src = tio_strdup(w->tmpdir);
	}
	if (!src)
		r = TIO_ERR_NOMEM;
	if (!r)
		r = tio_dir_replace(src, w->out, w->force, "metadata", "a CTF trace");
	free(src);
	if (!r && w->ntraces == 1)
		rmdir(w->tmpdir);
	if (!r) {
		free(w->tmpdir);
		w->tmpdir = NULL;
		w->done = true;
	} else {
		w->failed = true;
	}
	return r;
}

static int ctfw_init(tio_sink *sk)
{
	ctfw *w = (ctfw *)sk;
	w->packet_size = DEFAULT_PACKET_SIZE;
	w->version = 1;
	return 0;
}

static int ctfw_set(tio_sink *sk, const char *key, const char *value)
{
	ctfw *w = (ctfw *)sk;
	if (!strcmp(key, "output")) {
		if (!value || !*value)
			return tio_err_set(TIO_ERR_USAGE, "option output: empty path");
		free(w->out);
		w->out = tio_strdup(value);
		/* no trailing '/': OUT.tmp-XXXXXX must be its sibling */
		size_t l = w->out ? strlen(w->out) : 0;
		while (l > 1 && w->out[l - 1] == '/')
			w->out[--l] = 0;
		return w->out ? 0 : TIO_ERR_NOMEM;
	}
	if (!strcmp(key, "force"))
		return tio_sink_bool(key, value, &w->force);
	if (!strcmp(key, "packetize-metadata"))
		return tio_sink_bool(key, value, &w->packetize);
	if (!strcmp(key, "ctf-version")) {
		if (value && (!strcmp(value, "1.8") || !strcmp(value, "1")))
			w->version = 1;
		else if (value && (!strcmp(value, "2") || !strcmp(value, "2.0")))
			w->version = 2;
		else
			return tio_err_set(TIO_ERR_USAGE, "option ctf-version: '%s': 1.8 or 2", value ? value : "");
		return 0;
	}
	if (!strcmp(key, "packet-size")) {
		char *e;
		unsigned long long v = strtoull(value ? value : "", &e, 10);
		if (*e == 'k' || *e == 'K')
			v *= 1024, e++;
		else if (*e == 'm' || *e == 'M')
			v *= 1024 * 1024, e++;
		if (*e || v < 512 || v > (1ULL << 32))
			return tio_err_set(TIO_ERR_USAGE, "option packet-size: '%s': bytes from 512 to 4G (K, M suffixes)",
					   value ? value : "");
		w->packet_size = v;
		return 0;
	}
	if (!strcmp(key, "input")) /* each input as given: trace_dir_name */
		return tio_sink_input_add(&w->inputs, value);
	return tio_err_set(TIO_ERR_USAGE,
			   "sink ctf takes no option '%s' (output, force, packet-size, packetize-metadata, ctf-version, "
			   "input)",
			   key);
}

static void ctfw_fini(tio_sink *sk)
{
	ctfw *w = (ctfw *)sk;
	if (w->tmpdir) /* not finished: leave nothing behind */
		tio_rm_tree(w->tmpdir);
	for (size_t k = 0; k < w->ntraces; k++)
		wtrace_free(w->traces[k]);
	free(w->traces);
	free(w->tmpdir);
	free(w->out);
	tio_sink_inputs_free(&w->inputs);
}

const tio_sink_ops tio_sink_ctf_ops = {
	.name = "ctf",
	.size = sizeof(ctfw),
	.init = ctfw_init,
	.set = ctfw_set,
	.add_trace = ctfw_add_trace,
	.consume = ctfw_consume,
	.finish = ctfw_finish,
	.fini = ctfw_fini,
};

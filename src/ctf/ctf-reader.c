/*
 * CTF 1.8 trace reader: finds the data stream files of a trace directory,
 * groups them into streams, and decodes packets and event records with the
 * compiled plans (ctf-plan.c).  CTF 1.8.3 sections 5 (packets), 6 (event
 * records), 8 (clocks); file layout as written by LTTng and barectf.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ctf/ctf-plan.h"
#include "ctf/ctf.h"

#define CTF_MAGIC 0xC1FC1FC1u
#define MAX_VALS (1u << 22) /* values in one event: refuse more */

typedef struct ctf_trace {
	tio_ctf_meta meta;
	plan pkt_header;
	uint32_t nslots;
	uint8_t magic[4]; /* the packet magic as stored (resync), when has_magic */
	bool has_magic;
} ctf_trace;

/*
 * An event class, its decoding (ec->user) and what run_lin needs to go on
 * from the header to the class's first scope after it, side by side: loaded
 * at once rather than one after the other.
 */
typedef struct ctf_ec_ent {
	const tio_event_class *ec;
	const struct ctf_ec *cec;
	const plan *first;   /* cec->after[0] (nafter > 0) */
	const lin_op *lin0;  /* its program */
	uint32_t vals0;	     /* its lin_vals */
	uint8_t scope0;	     /* cec->after_scope[0] */
	uint8_t nafter;
	bool fused;
} ctf_ec_ent;

typedef struct ctf_sc {
	plan pkt_ctx, ev_header, ev_common_ctx;
	ctf_ec_ent *by_id; /* direct look-up when ids are small, else NULL */
	uint32_t nby_id;
} ctf_sc;

typedef struct ctf_ec {
	plan spec_ctx, payload;
	/* the scopes after the header that have values (common context,
	   specific context, payload), run by the header's run_lin call when
	   every one has a flat program (fused); their message scope indexes */
	const plan *after[3];
	uint8_t after_scope[3];
	uint8_t nafter;
	bool fused;
} ctf_ec;

/* decode_event's header ended on an id no event class has (run_lin) */
#define DEC_NO_CLASS 1

/* The event class of a stream class with this id (NULL: none). */
static inline const tio_event_class *ec_by_id(const ctf_sc *csc, const tio_stream_class *sc, uint64_t id)
{
	if (csc->by_id)
		return id < csc->nby_id ? csc->by_id[id].ec : NULL;
	return tio_stream_class_find_ec(sc, id);
}

/* What decoding a scope learned besides values. */
typedef struct dec {
	const uint8_t *base; /* packet start */
	uint64_t pos, end;   /* bits from base; end = content size */
	tio_val *vals;
	size_t nvals, cap;
	size_t lim_base;     /* values before the event's own that MAX_VALS does not count (ctf_mt_cut) */
	uint64_t *slots;
	uint64_t clock;
	bool has_clock_val;
	uint64_t role_val[TIO_ROLE_METADATA_UUID + 1];
	uint32_t role_set;   /* bit per role */
	uint32_t uuid_val;   /* index of the UUID array value */
	uint64_t bo_end;     /* where the last integer ending inside a byte ended (UINT64_MAX: none) */
	bool bo_be;          /* and its byte order */
	/*
	 * An event record in one run_lin call: when ev_stage is 1, the header's
	 * end looks the event class up (ev_csc, ev_sc) and goes on with the
	 * class's fused scopes (stage 2) instead of returning.
	 */
	uint8_t ev_stage, ev_i;
	bool ev_fused;       /* the class's other scopes ran in the same call */
	const ctf_sc *ev_csc;
	const tio_stream_class *ev_sc;
	const tio_event_class *ev_ec;
	const ctf_ec *ev_cec;
	uint64_t ev_id;      /* DEC_NO_CLASS: the id */
	uint32_t ev_root[3]; /* value index of each fused scope (UINT32_MAX: none) */
	/* for messages */
	const char *path;
	uint64_t file_off;   /* packet offset in file */
	const char *scope;
} dec;

/* A packet listed by LTTng's index (index/FILE.idx): offset and size in bytes, and
   (entries of 48 bytes or more) its begin/end timestamps and discarded counter. */
typedef struct ctf_idx {
	uint64_t off, size;
	uint64_t begin, end, disc;
} ctf_idx;

typedef struct ctf_file {
	tio_map map;
	uint64_t first_ts; /* the first packet's timestamp_begin, to order a stream's files */
	bool has_first_ts;
	/* read to recover a trace without packet magic (see resync()) and to
	   cross-check the packet index (build_packets) */
	ctf_idx *idx;
	uint32_t nidx;
	bool idx_read;
	bool idx_times; /* entries hold begin, end and discarded */
} ctf_file;

enum { ST_NEED_PACKET, ST_IN_PACKET, ST_DONE };

/* A packet of a stream's index (ctf_seek): where it is, and the snapshots begin_packet takes from it. */
enum { PK_BEGIN = 1, PK_END = 2, PK_SEQ = 4, PK_DISC = 8 };
typedef struct ctf_pkt {
	uint64_t off;
	uint64_t sig[6]; /* as ctf_stream.sig: begin, end, packet bits, content bits, seq, discarded */
	int64_t begin_ns, end_ns; /* end_ns: begin_ns when the packet has no end time */
	uint32_t file;
	uint8_t has;	 /* PK_* */
	uint32_t events_at; /* bits of headers before the first event */
} ctf_pkt;

typedef struct ctf_stream {
	tio_stream base;
	ctf_trace *ct;
	ctf_file *files;
	uint32_t nfiles, cur;
	uint64_t pkt_off;
	uint64_t pkt_bits, content_bits;
	int state;
	dec d;
	size_t pkt_nvals;
	uint32_t hdr_val, ctx_val; /* indexes of the packet scopes, UINT32_MAX if none */
	tio_msg msg;
	const tio_val *msg_base; /* msg's vals, and its packet scopes set for it (NULL: not set) */
	tio_msg queue[3]; /* packet beginning, discarded records: emitted before the packet's events */
	int nqueue, qhead;
	/* previous packet's snapshots */
	uint64_t prev_disc, prev_seq, prev_end;
	bool has_prev_disc, has_prev_seq, has_prev_end, seen_packet;
	/* this packet's */
	uint64_t cur_begin, cur_end;
	bool has_cur_begin, has_cur_end;
	char *pending_err; /* error found while opening, returned by the first next() */
	uint64_t sig[6];   /* the last packet's times, sizes and counters, and its file */
	uint32_t sig_file;
	bool has_sig;
	bool fast_clock;   /* the default clock ticks at 1 GHz: ns = clock_base + value */
	int64_t clock_base;
	/* recovery after a damaged packet (see resync()) */
	dec scratch;	   /* decodes candidate packet headers without touching d */
	uint64_t good_end; /* end of the content of the last good packet of the current file */
	bool has_good_end;
	uint64_t scan_min; /* resync never starts before this offset again */
	/* without packet magic: a good packet's offset and size, the size repeated
	   by the next good packet (or the file's first), and the last good size */
	uint64_t step_off, step, last_size;
	/* read-ahead: bytes of file ahead_file before ahead_upto were handed to
	   the helper (tio_map_prefetch) */
	uint32_t ahead_file;
	uint64_t ahead_upto;
	/* decoding on a worker thread (ctf_mt_cut): values go one message after
	   the other from app_pos in array arr[slot] (d.vals is that array) */
	bool app, has_arr;
	size_t app_pos;
	unsigned slot;
	tio_val *arr[TIO_MT_SLOTS];
	size_t arrcap[TIO_MT_SLOTS];
	uint32_t cut_file[TIO_MT_SLOTS]; /* where each slot's batch began */
	uint64_t cut_off[TIO_MT_SLOTS];
	uint32_t rel_file; /* files before it were handed back whole */
	/* the packet index (ctf_seek, ctf_index), built on first use */
	ctf_pkt *pk;
	uint32_t npk;
	int8_t pk_state; /* 0: not built; 1: every packet located and timed (seekable); -1: not */
	int64_t pk_begin_ns, pk_end_ns; /* the first packet's beginning, the latest end */
	uint64_t pk_event_bits; /* bits of event records in every packet */
	/* a part of the stream (ctf_part_keep): the stream ends at this packet */
	bool has_stop;
	uint32_t stop_file;
	uint64_t stop_off;
} ctf_stream;

/* ---------------------------------------------------------------- decoding */

static int dec_err(dec *d, const plan *p, uint32_t i, const char *fmt, ...) TIO_PRINTF(4, 5);

static void field_path(tio_buf *b, const plan *p, uint32_t i)
{
	uint32_t chain[64];
	int n = 0;
	for (uint32_t k = i; k != UINT32_MAX && n < 64; k = p->ins[k].parent)
		chain[n++] = k;
	tio_buf_adds(b, p->scope);
	for (int k = n - 1; k >= 0; k--) {
		const plan_ins *in = &p->ins[chain[k]];
		if (in->parent == UINT32_MAX)
			continue;
		const plan_ins *par = &p->ins[in->parent];
		if (par->op == OP_ARRAY || par->op == OP_SEQ)
			tio_buf_adds(b, "[]");
		else if (in->name)
			tio_buf_addf(b, ".%s", in->name);
	}
}

static int dec_err(dec *d, const plan *p, uint32_t i, const char *fmt, ...)
{
	tio_buf b = {0};
	tio_buf_addf(&b, "%s@0x%llx: ", d->path, (unsigned long long)(d->file_off + d->pos / 8));
	if (p)
		field_path(&b, p, i);
	else
		tio_buf_adds(&b, d->scope ? d->scope : "packet");
	tio_buf_adds(&b, ": ");
	va_list ap;
	va_start(ap, fmt);
	tio_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	tio_err_set(TIO_ERR_FORMAT, "%s", tio_buf_cstr(&b));
	tio_buf_free(&b);
	return TIO_ERR_FORMAT;
}

static inline int need(dec *d, const plan *p, uint32_t i, uint64_t bits)
{
	if (TIO_UNLIKELY(d->pos > d->end || d->end - d->pos < bits))
		return dec_err(d, p, i, "cannot read %llu bits: %llu bits left in the packet content",
			       (unsigned long long)bits,
			       (unsigned long long)(d->pos > d->end ? 0 : d->end - d->pos));
	return 0;
}

static inline int new_val(dec *d, const plan *p, uint32_t i, uint32_t *vi)
{
	if (TIO_UNLIKELY(d->nvals >= d->cap)) {
		if (d->nvals - d->lim_base >= MAX_VALS)
			return dec_err(d, p, i, "more than %u fields in one event", MAX_VALS);
		if (tio_grow(&d->vals, &d->cap, d->nvals + 1, sizeof(tio_val)))
			return TIO_ERR_NOMEM;
	}
	*vi = (uint32_t)d->nvals++;
	return 0;
}

/* CTF 1.8.3 8: an N-bit clock field holds the low bits; a smaller value means it wrapped. */
static inline void clock_update(dec *d, uint64_t v, uint32_t size)
{
	if (size >= 64) {
		d->clock = v;
	} else {
		uint64_t mask = (1ULL << size) - 1;
		uint64_t cur_low = d->clock & mask;
		uint64_t nv = (d->clock & ~mask) | v;
		if (v < cur_low)
			nv += mask + 1;
		d->clock = nv;
	}
	d->has_clock_val = true;
}

static double float_from_bits(uint64_t bits, uint32_t exp_dig, uint32_t mant_dig)
{
	uint32_t mbits = mant_dig - 1;
	uint64_t mant = bits & ((1ULL << mbits) - 1);
	uint64_t e = (bits >> mbits) & ((1ULL << exp_dig) - 1);
	int sign = (int)((bits >> (mbits + exp_dig)) & 1);
	int64_t bias = (1LL << (exp_dig - 1)) - 1;
	double v;
	if (e == (1ULL << exp_dig) - 1)
		v = mant ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp((double)mant, (int)(1 - bias - (int64_t)mbits));
	else
		v = ldexp((double)(mant | (1ULL << mbits)), (int)((int64_t)e - bias - (int64_t)mbits));
	return sign ? -v : v;
}

static int run(dec *d, const plan *p, uint32_t i, int depth);
static void ec_ent_fill(ctf_ec_ent *e, const tio_event_class *ec);

/* A variant's option for a selector value (ranges sorted, signed keys biased), or NULL. */
static inline const plan_vrange *variant_option(const plan_ins *in, uint64_t key)
{
	if (in->flags & PF_SIGNED)
		key ^= 1ULL << 63;
	for (uint32_t k = 0; k < in->n; k++) {
		if (in->vr[k].lo > key)
			break;
		if (key <= in->vr[k].hi)
			return &in->vr[k];
	}
	return NULL;
}

/* What an integer that is saved, has a role or sets the clock does besides its value
   (val: as stored, raw: its bits). */
static inline void int_effects(dec *d, const plan_ins *in, uint64_t val, uint64_t raw)
{
	if (in->flags & PF_SAVE)
		d->slots[in->slot] = val;
	if (in->flags & PF_ROLE) {
		d->role_val[in->role] = raw;
		d->role_set |= 1u << in->role;
	}
	if ((in->flags & PF_CLOCK) && in->role != TIO_ROLE_END_TS)
		clock_update(d, raw, in->size);
}

static inline __attribute__((always_inline)) int run_int(dec *d, const plan *p, uint32_t i,
							  const plan_ins *in, uint32_t vi)
{
	const uint8_t *b = d->base;
	uint64_t u;
	int r = need(d, p, i, in->size);
	if (r)
		return r;
	switch (in->op) {
	case OP_U8: u = b[d->pos >> 3]; break;
	case OP_U16LE: u = tio_le16(b + (d->pos >> 3)); break;
	case OP_U32LE: u = tio_le32(b + (d->pos >> 3)); break;
	case OP_U64LE: u = tio_le64(b + (d->pos >> 3)); break;
	case OP_U16BE: u = tio_be16(b + (d->pos >> 3)); break;
	case OP_U32BE: u = tio_be32(b + (d->pos >> 3)); break;
	case OP_U64BE: u = tio_be64(b + (d->pos >> 3)); break;
	case OP_BITSLE:
	default:
		/* CTF: two integers sharing a byte have the same byte order (yactfr refuses it too) */
		if (TIO_UNLIKELY((d->pos & 7) && d->bo_end >> 3 == d->pos >> 3 && d->bo_be != (in->op != OP_BITSLE)))
			return dec_err(d, p, i, "byte order changes within a byte (from %s-endian to %s-endian)",
				       d->bo_be ? "big" : "little", d->bo_be ? "little" : "big");
		u = in->op == OP_BITSLE ? tio_bits_le(b, d->pos, in->size) : tio_bits_be(b, d->pos, in->size);
		if ((d->pos + in->size) & 7) {
			d->bo_end = d->pos + in->size;
			d->bo_be = in->op != OP_BITSLE;
		}
		break;
	}
	d->pos += in->size;
	if (TIO_UNLIKELY(in->flags & PF_BITREV))
		u = tio_bit_reverse(u, in->size);
	tio_val *v = &d->vals[vi];
	if (in->flags & PF_SIGNED)
		v->v.i = tio_sext(u, in->size);
	else
		v->v.u = u;
	if (TIO_UNLIKELY(in->flags & (PF_SAVE | PF_CLOCK | PF_ROLE)))
		int_effects(d, in, v->v.u, u);
	return 0;
}

/*
 * A run of byte-aligned integers (plan_ins.run_n): one bound check, then
 * each member read as 8 bytes and masked (little-endian) or swapped and
 * shifted (big-endian), without a branch on its size.  Returns the
 * instruction after the run, or UINT32_MAX when the fast way does not
 * apply here (near the packet end, full value array): the caller goes on
 * member by member.
 */
static inline uint32_t run_ints(dec *d, const plan *p, uint32_t j)
{
	const plan_ins *c = &p->ins[j];
	uint64_t bits = c->run_bits;
	if ((d->pos & 7) || d->pos > d->end || d->end - d->pos < bits + 64 || d->nvals + c->run_n > d->cap)
		return UINT32_MAX;
	const uint8_t *src = d->base + (d->pos >> 3);
	uint32_t vi = (uint32_t)d->nvals;
	tio_val *v = d->vals + vi;
	for (uint32_t k = c->run_n; k; k--, v++) {
		c = &p->ins[j];
		uint64_t u = (c->flags & PF_BE) ? tio_be64(src) >> c->sh : tio_le64(src) & (UINT64_MAX >> c->sh);
		if (c->flags & PF_SIGNED)
			u = (uint64_t)((int64_t)(u << c->sh) >> c->sh);
		v->fc = c->fc;
		v->n = 0;
		v->end = ++vi;
		v->v.u = u;
		src += c->size >> 3;
		j = c->next;
	}
	d->nvals = vi;
	d->pos += bits;
	return j;
}

static int run_children(dec *d, const plan *p, uint32_t first, uint32_t n, int depth)
{
	uint32_t j = first;
	for (uint32_t k = 0; k < n; k++) {
		const plan_ins *c = &p->ins[j];
		int r;
		if (c->run_n > 1) {
			if (c->align > 1)
				d->pos = (d->pos + c->align - 1) & ~(uint64_t)(c->align - 1);
			uint32_t nk = c->run_n;
			uint32_t after = run_ints(d, p, j);
			if (after != UINT32_MAX) {
				k += nk - 1;
				j = after;
				continue;
			}
		}
		/* the common case inline: a member that is a plain integer */
		if (TIO_LIKELY(c->op <= OP_BITSBE && d->nvals < d->cap && !c->bf_unit)) {
			if (c->align > 1)
				d->pos = (d->pos + c->align - 1) & ~(uint64_t)(c->align - 1);
			uint32_t vi = (uint32_t)d->nvals++;
			tio_val *v = &d->vals[vi];
			v->fc = c->fc;
			v->n = 0;
			v->end = vi + 1;
			r = run_int(d, p, j, c, vi);
		} else {
			r = run(d, p, j, depth + 1);
		}
		if (r)
			return r;
		j = c->next;
	}
	return 0;
}

/*
 * Aligning moved the cursor past the end of the packet content: the field
 * cannot start there, even when it reads nothing (an empty structure, a
 * zero-length array), as babeltrace 1 says ("Unexpected end of packet").
 */
static __attribute__((noinline, cold)) int past_end(dec *d, const plan *p, uint32_t i)
{
	return dec_err(d, p, i, "aligned on %u bits, the field starts %llu bits past the end of the packet content",
		       p->ins[i].align, (unsigned long long)(d->pos - d->end));
}

/*
 * A structure without going through run()'s dispatch: scopes and variant
 * options are nearly always structures, and this saves a call per level.
 */
static inline int run_struct(dec *d, const plan *p, uint32_t i, int depth)
{
	const plan_ins *in = &p->ins[i];
	uint32_t vi = 0;
	int r;
	if (in->align > 1)
		d->pos = (d->pos + in->align - 1) & ~(uint64_t)(in->align - 1);
	if (TIO_UNLIKELY(d->pos > d->end))
		return past_end(d, p, i);
	if ((r = new_val(d, p, i, &vi)))
		return r;
	d->vals[vi].fc = in->fc;
	d->vals[vi].n = in->n;
	if ((r = run_children(d, p, i + 1, in->n, depth)))
		return r;
	d->vals[vi].end = (uint32_t)d->nvals;
	return 0;
}

static int run_repeat(dec *d, const plan *p, uint32_t i, uint64_t len, int depth)
{
	const plan_ins *el = &p->ins[i + 1];
	uint64_t left = d->pos > d->end ? 0 : d->end - d->pos;
	/* each element takes at least one bit unless it is an empty structure */
	if (len > left && !(el->op == OP_STRUCT && el->n == 0 && len <= 65536))
		return dec_err(d, p, i, "length %llu exceeds the %llu bits left in the packet content",
			       (unsigned long long)len, (unsigned long long)left);
	if (el->op <= OP_U64BE && !(el->flags & (PF_SAVE | PF_CLOCK | PF_ROLE)) &&
	    el->align <= el->size && d->pos % 8 == 0 && el->align % 8 == 0) {
		/* packed byte-aligned integers: one bound check, a tight loop */
		uint64_t bits = len * el->size;
		int r = need(d, p, i + 1, bits);
		if (r)
			return r;
		if (d->nvals + len > d->cap) {
			if (d->nvals - d->lim_base + len > MAX_VALS)
				return dec_err(d, p, i, "more than %u fields in one event", MAX_VALS);
			if (tio_grow(&d->vals, &d->cap, d->nvals + len, sizeof(tio_val)))
				return TIO_ERR_NOMEM;
		}
		tio_val *v = d->vals + d->nvals;
		const uint8_t *src = d->base + d->pos / 8;
		const tio_fc *efc = el->fc;
		bool sgn = el->flags & PF_SIGNED;
		uint32_t vi = (uint32_t)d->nvals;
		for (uint64_t k = 0; k < len; k++, vi++) {
			uint64_t u;
			switch (el->op) {
			case OP_U8: u = src[k]; break;
			case OP_U16LE: u = tio_le16(src + 2 * k); break;
			case OP_U32LE: u = tio_le32(src + 4 * k); break;
			case OP_U64LE: u = tio_le64(src + 8 * k); break;
			case OP_U16BE: u = tio_be16(src + 2 * k); break;
			case OP_U32BE: u = tio_be32(src + 4 * k); break;
			default: u = tio_be64(src + 8 * k); break;
			}
			v[k].fc = efc;
			v[k].n = 0;
			v[k].end = vi + 1;
			v[k].v.i = sgn ? tio_sext(u, el->size) : (int64_t)u;
		}
		d->nvals += len;
		d->pos += bits;
		return 0;
	}
	for (uint64_t k = 0; k < len; k++) {
		int r = run(d, p, i + 1, depth + 1);
		if (r)
			return r;
	}
	return 0;
}

static int run(dec *d, const plan *p, uint32_t i, int depth)
{
	const plan_ins *in = &p->ins[i];
	uint32_t vi = 0;
	int r;
	if (TIO_UNLIKELY(depth > 256))
		return dec_err(d, p, i, "nesting deeper than 256");
	if (in->align > 1)
		d->pos = (d->pos + in->align - 1) & ~(uint64_t)(in->align - 1);
	if (TIO_UNLIKELY(d->pos > d->end))
		return past_end(d, p, i);
	if (TIO_UNLIKELY(in->bf_unit) && d->pos % in->bf_unit + in->size > in->bf_unit)
		d->pos += in->bf_unit - d->pos % in->bf_unit; /* would cross its unit: next unit */
	if ((r = new_val(d, p, i, &vi)))
		return r;
	d->vals[vi].fc = in->fc;
	d->vals[vi].n = 0;
	switch (in->op) {
	case OP_U8:
	case OP_U16LE:
	case OP_U32LE:
	case OP_U64LE:
	case OP_U16BE:
	case OP_U32BE:
	case OP_U64BE:
	case OP_BITSLE:
	case OP_BITSBE:
		r = run_int(d, p, i, in, vi);
		break;
	case OP_BIGINT:
		if (d->pos % 8)
			return dec_err(d, p, i, "integer of %u bits not byte-aligned", in->size);
		if ((r = need(d, p, i, in->size)))
			return r;
		d->vals[vi].v.big = d->base + d->pos / 8;
		d->pos += in->size;
		break;
	case OP_F32:
	case OP_F64:
	case OP_FLOAT: {
		if ((r = need(d, p, i, in->size)))
			return r;
		uint64_t bits;
		if (d->pos % 8 == 0 && (in->size == 32 || in->size == 64)) {
			const uint8_t *q = d->base + d->pos / 8;
			if (in->size == 32)
				bits = (in->flags & PF_BE) ? tio_be32(q) : tio_le32(q);
			else
				bits = (in->flags & PF_BE) ? tio_be64(q) : tio_le64(q);
		} else {
			bits = (in->flags & PF_BE) ? tio_bits_be(d->base, d->pos, in->size)
						   : tio_bits_le(d->base, d->pos, in->size);
		}
		d->pos += in->size;
		if (in->flags & PF_BITREV)
			bits = tio_bit_reverse(bits, in->size);
		if (in->op == OP_F32) {
			uint32_t b32 = (uint32_t)bits;
			float f;
			memcpy(&f, &b32, 4);
			d->vals[vi].v.d = f;
		} else if (in->op == OP_F64) {
			double f;
			memcpy(&f, &bits, 8);
			d->vals[vi].v.d = f;
		} else {
			d->vals[vi].v.d = float_from_bits(bits, in->fc->f.exp_dig, in->fc->f.mant_dig);
		}
		break;
	}
	case OP_STRING: {
		if ((r = need(d, p, i, 8 * in->unit)))
			return r;
		const char *s = (const char *)d->base + d->pos / 8;
		uint64_t max = (d->end - d->pos) / 8;
		uint64_t len;
		if (in->unit == 1) {
			const char *z = memchr(s, 0, max);
			if (!z)
				return dec_err(d, p, i, "string not terminated within the packet content");
			len = (uint64_t)(z - s);
		} else {
			/* UTF-16/32: the terminator is a whole zero code unit */
			uint64_t k = 0;
			for (;; k += in->unit) {
				if (k + in->unit > max)
					return dec_err(d, p, i, "string not terminated within the packet content");
				bool zero = true;
				for (unsigned b = 0; b < in->unit; b++)
					zero &= s[k + b] == 0;
				if (zero)
					break;
			}
			len = k;
		}
		d->vals[vi].v.s.p = s;
		d->vals[vi].v.s.len = len;
		d->pos += (len + in->unit) * 8;
		break;
	}
	case OP_VARINT: {
		/* CTF 2 variable-length integer: LEB128, 7 bits a byte, low bits first */
		uint64_t u = 0;
		unsigned sh = 0;
		for (;;) {
			if ((r = need(d, p, i, 8)))
				return r;
			uint8_t byte = d->base[d->pos / 8];
			d->pos += 8;
			if (sh < 63) {
				u |= (uint64_t)(byte & 0x7f) << sh;
			} else {
				/* the 10th byte holds bit 63: the bits above are 0 (unsigned) or copies of it */
				uint8_t hi = byte & 0x7f;
				if ((in->flags & PF_SIGNED) ? (hi != 0 && hi != 0x7f) : hi > 1)
					return dec_err(d, p, i, "variable-length integer does not fit in 64 bits");
				u |= (uint64_t)(hi & 1) << 63;
			}
			sh += 7;
			if (!(byte & 0x80))
				break;
			if (sh >= 70)
				return dec_err(d, p, i, "variable-length integer longer than 10 bytes");
		}
		if ((in->flags & PF_SIGNED) && sh < 64)
			u = (uint64_t)tio_sext(u, sh);
		d->vals[vi].v.u = u;
		if (in->flags & PF_SAVE)
			d->slots[in->slot] = u;
		if (in->flags & PF_ROLE) {
			d->role_val[in->role] = u;
			d->role_set |= 1u << in->role;
		}
		if (in->flags & PF_CLOCK) {
			d->clock = u;
			d->has_clock_val = true;
		}
		break;
	}
	case OP_SBYTES:
	case OP_DBYTES: {
		uint64_t len = in->op == OP_SBYTES ? in->n : d->slots[in->slot];
		if (len > UINT64_MAX / 8)
			return dec_err(d, p, i, "length %llu too large", (unsigned long long)len);
		if ((r = need(d, p, i, len * 8)))
			return r;
		d->vals[vi].v.s.p = (const char *)d->base + d->pos / 8;
		d->vals[vi].v.s.len = len;
		d->pos += len * 8;
		break;
	}
	case OP_OPTIONAL: {
		uint64_t key = d->slots[in->slot];
		bool on;
		if (in->flags & PF_BOOLSEL) {
			on = key != 0;
		} else {
			if (in->flags & PF_SIGNED)
				key ^= 1ULL << 63;
			on = false;
			for (uint32_t k = 0; k < in->n && !on; k++)
				on = in->vr[k].lo <= key && key <= in->vr[k].hi;
		}
		d->vals[vi].n = on;
		if (on)
			r = run(d, p, i + 1, depth + 1);
		break;
	}
	case OP_TEXT: {
		uint64_t len = (in->flags & PF_SEQ_TEXT) ? d->slots[in->slot] : in->n;
		if (len > UINT64_MAX / 8 || (r = need(d, p, i, len * 8)))
			return r ? r : dec_err(d, p, i, "length %llu too large", (unsigned long long)len);
		d->vals[vi].v.s.p = (const char *)d->base + d->pos / 8;
		d->vals[vi].v.s.len = len;
		d->pos += len * 8;
		break;
	}
	case OP_STRUCT:
		d->vals[vi].n = in->n;
		r = run_children(d, p, i + 1, in->n, depth);
		break;
	case OP_ARRAY:
		d->vals[vi].n = in->n;
		d->vals[vi].v.s.p = NULL;
		r = run_repeat(d, p, i, in->n, depth);
		break;
	case OP_SEQ: {
		uint64_t len = d->slots[in->slot];
		if (len > UINT32_MAX)
			return dec_err(d, p, i, "sequence length %llu too large", (unsigned long long)len);
		d->vals[vi].n = (uint32_t)len;
		d->vals[vi].v.s.p = NULL;
		r = run_repeat(d, p, i, len, depth);
		break;
	}
	case OP_VARIANT: {
		uint64_t key = d->slots[in->slot];
		const plan_vrange *sel = variant_option(in, key);
		if (!sel) {
			if (in->flags & PF_SIGNED)
				return dec_err(d, p, i, "selector value %lld selects no option", (long long)key);
			return dec_err(d, p, i, "selector value %llu selects no option",
				       (unsigned long long)key);
		}
		d->vals[vi].n = 1;
		d->vals[vi].opt = sel->ord;
		r = p->ins[sel->opt].op == OP_STRUCT ? run_struct(d, p, sel->opt, depth + 1)
						     : run(d, p, sel->opt, depth + 1);
		break;
	}
	default:
		return dec_err(d, p, i, "bad instruction");
	}
	if (r)
		return r;
	d->vals[vi].end = (uint32_t)d->nvals;
	return 0;
}

/* Decode one scope at the current position; *root = its value index or UINT32_MAX. */
/* Room for `more` values after the current ones (an event has at most MAX_VALS). */
static __attribute__((noinline)) int grow_vals(dec *d, const plan *p, uint32_t i, size_t more)
{
	if (d->nvals - d->lim_base + more > MAX_VALS)
		return dec_err(d, p, i, "more than %u fields in one event", MAX_VALS);
	return tio_grow(&d->vals, &d->cap, d->nvals + more, sizeof(tio_val)) ? TIO_ERR_NOMEM : 0;
}

static inline int reserve_vals(dec *d, const plan *p, uint32_t i, size_t more)
{
	return TIO_LIKELY(d->nvals + more <= d->cap) ? 0 : grow_vals(d, p, i, more);
}

/* v->end and v->n in one 64-bit store (adjacent in tio_val; little-endian host, as tio_le64) */
_Static_assert(offsetof(tio_val, n) == offsetof(tio_val, end) + 4, "tio_val: n must follow end");
#define SET_END_N(v, e, nn)                                                                     \
	do {                                                                                    \
		uint64_t en_ = (uint32_t)(e) | (uint64_t)(uint32_t)(nn) << 32;                  \
		memcpy((char *)(v) + offsetof(tio_val, end), &en_, 8);                          \
	} while (0)

#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~(uint64_t)((a) - 1))

/*
 * A scope's flat program (plan.lin).  The cursor and the value count live
 * in locals, written back around calls and errors; room for every in-line
 * value is reserved first (again after each call, which may have used it).
 */
static int run_lin(dec *d, const plan *p)
{
	int r = reserve_vals(d, p, 0, p->lin_vals);
	if (r)
		return r;
	uint32_t stack[32];
	int top = 0;
	uint64_t pos = d->pos;
	const uint64_t end = d->end;
	/* bounds in one signed comparison: positions and sizes stay far below 2^63 */
	const int64_t iend = end > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)end;
	const int64_t lim64 = iend - 64; /* a 64-bit load at pos stays in the content */
	const uint8_t *base = d->base;
	tio_val *vals = d->vals;
	uint32_t nv = (uint32_t)d->nvals;
	const lin_op *o = p->lin;
	/* direct threading (GNU C labels as values): each op jumps to the next
	   itself, which branch predictors follow better than one switch */
	static const void *const go[] = {
		[LK_SB] = &&sb, [LK_SE] = &&se, [LK_RUN] = &&run, [LK_RUNMEM] = &&one_int,
		[LK_INT] = &&one_int, [LK_F32] = &&flt, [LK_F64] = &&flt, [LK_STR] = &&str,
		[LK_CALL] = &&call, [LK_END] = &&done, [LK_VAR] = &&var, [LK_VEND] = &&vend,
		[LK_ARR] = &&arr, [LK_TEXT] = &&text, [LK_SE_END] = &&se_end, [LK_FINT] = &&fint,
		[LK_FINT_CLK] = &&fint_clk, [LK_FINT_SAVE] = &&fint_save, [LK_FINT_SR] = &&fint_sr,
		[LK_SBF] = &&sbf, [LK_SB0] = &&sb0, [LK_VEND_SE_END] = &&vend_se_end,
	};
#define SYNC() (d->pos = pos, d->nvals = nv)
#define NEXT() goto *go[(++o)->kind]
#define ALIGN() (pos = (pos + o->amask) & ~(uint64_t)o->amask) /* branch-free */
	goto *go[o->kind];
sb:
	ALIGN();
	vals[nv].fc = o->fc;
	vals[nv].n = o->n;
	stack[top++] = nv++;
	NEXT();
sbf:
	ALIGN();
	vals[nv].fc = o->fc;
	SET_END_N(&vals[nv], nv + o->aux, o->n);
	nv++;
	NEXT();
sb0:
	ALIGN();
	if (TIO_UNLIKELY((int64_t)pos > iend)) {
		SYNC();
		return run(d, p, o->ins, top + 1); /* its own error */
	}
	vals[nv].fc = o->fc;
	SET_END_N(&vals[nv], nv + 1, 0);
	nv++;
	NEXT();
se:
	vals[stack[--top]].end = nv;
	NEXT();
se_end:
	vals[stack[--top]].end = nv;
	goto scope_end;
run:
	ALIGN();
	if (TIO_UNLIKELY((pos & 7) || (int64_t)(pos + o->size) > lim64))
		NEXT(); /* near the end: member by member (LK_RUNMEM), with bound checks */
	{
		const uint8_t *src = base + (pos >> 3);
		pos += o->size;
		for (uint32_t k = o->n; k; k--) {
			o++;
			/* branch-free: the field's bytes to the top, then shifted down */
			uint64_t w = (o->flags & PF_BE) ? tio_be64(src) : tio_le64(src) << o->sh;
			uint64_t u = (o->flags & PF_SIGNED) ? (uint64_t)((int64_t)w >> o->sh) : w >> o->sh;
			tio_val *v = &vals[nv];
			v->fc = o->fc;
			SET_END_N(v, nv + 1, 0);
			nv++;
			v->v.u = u;
			src += o->size >> 3;
		}
	}
	NEXT();
	/* a byte-aligned 8/16/32/64-bit integer that is saved, has a role or
	   sets the clock (event ids, timestamps, lengths): read in line, then
	   acted on in line (u: the raw bits, as run_int keeps them for roles
	   and the clock) */
#define FINT_READ()                                                                         \
	ALIGN();                                                                            \
	if (TIO_UNLIKELY((int64_t)pos > lim64))                                             \
		goto one_int_aligned;                                                       \
	const uint8_t *src = base + (pos >> 3);                                             \
	uint64_t w = (o->flags & PF_BE) ? tio_be64(src) : tio_le64(src) << o->sh;           \
	uint64_t u = w >> o->sh;                                                            \
	tio_val *v = &vals[nv];                                                             \
	v->fc = o->fc;                                                                      \
	SET_END_N(v, nv + 1, 0);                                                          \
	nv++;                                                                               \
	v->v.u = (o->flags & PF_SIGNED) ? (uint64_t)((int64_t)w >> o->sh) : u;              \
	pos += o->size
fint: {
	FINT_READ();
	int_effects(d, &p->ins[o->ins], v->v.u, u);
	NEXT();
}
fint_clk: {
	FINT_READ();
	if (o->flags & PF_ROLE) {
		d->role_val[o->aux] = u;
		d->role_set |= 1u << o->aux;
	}
	clock_update(d, u, o->size);
	NEXT();
}
fint_sr: {
	FINT_READ();
	d->slots[o->n] = v->v.u;
	d->role_val[o->aux] = u;
	d->role_set |= 1u << o->aux;
	NEXT();
}
fint_save: {
	FINT_READ();
	d->slots[o->n] = v->v.u;
	NEXT();
}
#undef FINT_READ
one_int:
	ALIGN();
one_int_aligned:
	vals[nv].fc = o->fc;
	SET_END_N(&vals[nv], nv + 1, 0);
	SYNC();
	if ((r = run_int(d, p, o->ins, &p->ins[o->ins], nv)))
		return r;
	pos = d->pos;
	nv++;
	NEXT();
flt:
	ALIGN();
	if (TIO_UNLIKELY((int64_t)(pos + o->size) > iend)) {
		SYNC();
		return need(d, p, o->ins, o->size);
	}
	{
		const uint8_t *q = base + (pos >> 3);
		double f;
		if (o->kind == LK_F32) {
			uint32_t b32 = (o->flags & PF_BE) ? tio_be32(q) : tio_le32(q);
			float f32;
			memcpy(&f32, &b32, 4);
			f = f32;
		} else {
			uint64_t b64 = (o->flags & PF_BE) ? tio_be64(q) : tio_le64(q);
			memcpy(&f, &b64, 8);
		}
		vals[nv].fc = o->fc;
		SET_END_N(&vals[nv], nv + 1, 0);
		vals[nv].v.d = f;
		nv++;
		pos += o->size;
	}
	NEXT();
str:
	ALIGN();
	if (TIO_UNLIKELY((pos & 7) || (int64_t)(pos + 8) > iend)) {
		SYNC();
		return run(d, p, o->ins, top + 1); /* its own error */
	}
	{
		const char *s = (const char *)base + (pos >> 3);
		uint64_t len;
		/* a short string (most are): its NUL found in one or two words read
		   in the content, without calling memchr (the lowest byte flagged
		   is the first NUL) */
		uint64_t z0 = 0, z1 = 0;
		bool inword = false;
		if (TIO_LIKELY((int64_t)pos + 64 <= lim64)) {
			uint64_t w0 = tio_le64(s), w1 = tio_le64(s + 8);
			z0 = (w0 - 0x0101010101010101ull) & ~w0 & 0x8080808080808080ull;
			z1 = (w1 - 0x0101010101010101ull) & ~w1 & 0x8080808080808080ull;
			inword = z0 || z1;
		}
		if (inword) {
			len = z0 ? (uint64_t)__builtin_ctzll(z0) >> 3 : 8 + ((uint64_t)__builtin_ctzll(z1) >> 3);
		} else {
			const char *z = memchr(s, 0, (end - pos) >> 3);
			if (TIO_UNLIKELY(!z)) {
				SYNC();
				return dec_err(d, p, o->ins, "string not terminated within the packet content");
			}
			len = (uint64_t)(z - s);
		}
		vals[nv].fc = o->fc;
		SET_END_N(&vals[nv], nv + 1, 0);
		vals[nv].v.s.p = s;
		vals[nv].v.s.len = len;
		nv++;
		pos += (len + 1) * 8;
	}
	NEXT();
call:
	SYNC();
	if ((r = run(d, p, o->ins, top + 1)))
		return r;
	if ((r = reserve_vals(d, p, o->ins, o->n)))
		return r;
	pos = d->pos;
	nv = (uint32_t)d->nvals;
	vals = d->vals;
	NEXT();
var: {
	const plan_vrange *sel = variant_option(&p->ins[o->ins], d->slots[o->n]);
	if (TIO_UNLIKELY(!sel)) { /* the tree interpreter says why */
		SYNC();
		return run(d, p, o->ins, top + 1);
	}
	ALIGN();
	vals[nv].fc = o->fc;
	vals[nv].n = 1;
	vals[nv].opt = sel->ord;
	stack[top++] = nv++;
	o = p->lin + sel->lin;
	goto *go[o->kind];
}
vend:
	vals[stack[--top]].end = nv;
	o = p->lin + o->n;
	goto *go[o->kind];
vend_se_end:
	vals[stack[--top]].end = nv;
	vals[stack[--top]].end = nv;
	goto scope_end;
arr: {
	uint64_t len = (o->flags & PF_SEQ_TEXT) ? d->slots[o->aux] : o->n;
	ALIGN();
	const lin_op *el = o + 1;
	uint64_t bits = len * el->size;
	/* room for the elements and for the in-line values after them (el->n) */
	if (TIO_UNLIKELY((pos & 7) || len > UINT32_MAX || (int64_t)(pos + bits) > lim64 ||
			 nv + len + 1 + el->n > d->cap)) {
		/* near the end, long or odd: the tree interpreter (bound checks, errors, room) */
		SYNC();
		if ((r = run(d, p, o->ins, top + 1)))
			return r;
		if ((r = reserve_vals(d, p, o->ins, el->n)))
			return r;
		pos = d->pos;
		nv = (uint32_t)d->nvals;
		vals = d->vals;
		o++;
		NEXT();
	}
	tio_val *v = &vals[nv];
	v->fc = o->fc;
	SET_END_N(v, nv + 1 + (uint32_t)len, (uint32_t)len);
	v->v.s.p = NULL;
	uint32_t vi = ++nv;
	const uint8_t *src = base + (pos >> 3);
	const tio_fc *efc = el->fc;
	unsigned sh = el->sh, step = el->size >> 3;
	/* one loop per byte order and signedness: no choice per element */
#define ARR_LOOP(W, U)                                                          \
	for (tio_val *e = &vals[vi], *const elast = e + len; e < elast; e++, src += step) { \
		uint64_t w = (W);                                               \
		e->fc = efc;                                                    \
		SET_END_N(e, ++vi, 0);                                          \
		e->v.u = (U);                                                   \
	}
	switch (el->flags & (PF_BE | PF_SIGNED)) {
	case 0: ARR_LOOP(tio_le64(src) << sh, w >> sh); break;
	case PF_SIGNED: ARR_LOOP(tio_le64(src) << sh, (uint64_t)((int64_t)w >> sh)); break;
	case PF_BE: ARR_LOOP(tio_be64(src), w >> sh); break;
	default: ARR_LOOP(tio_be64(src), (uint64_t)((int64_t)w >> sh)); break;
	}
#undef ARR_LOOP
	nv = vi;
	pos += bits;
	o++; /* the element op */
	NEXT();
}
text: {
	ALIGN();
	uint64_t len = (o->flags & PF_SEQ_TEXT) ? d->slots[p->ins[o->ins].slot] : o->n;
	if (TIO_UNLIKELY(pos > end || len > (end - pos) / 8)) {
		SYNC();
		return run(d, p, o->ins, top + 1); /* its own error */
	}
	vals[nv].fc = o->fc;
	SET_END_N(&vals[nv], nv + 1, 0);
	vals[nv].v.s.p = (const char *)base + (pos >> 3);
	vals[nv].v.s.len = len;
	nv++;
	pos += len * 8;
	NEXT();
}
done:
scope_end:
	/* an event record: after the header, the event class's other scopes
	   (stage 2: more to come; 0 once the last one runs, so that its end
	   returns at once) */
	if (d->ev_stage) {
		const ctf_ec *cec;
		if (d->ev_stage == 1) {
			uint64_t id = (d->role_set & (1u << TIO_ROLE_EVENT_CLASS_ID)) ? d->role_val[TIO_ROLE_EVENT_CLASS_ID] : 0;
			const tio_event_class *ec;
			const ctf_sc *csc = d->ev_csc;
			const ctf_ec_ent *e;
			ctf_ec_ent big;
			if (TIO_LIKELY(csc->by_id != NULL)) {
				e = &csc->by_id[id < csc->nby_id ? id : 0];
				ec = id < csc->nby_id ? e->ec : NULL;
			} else {
				ec = ec_by_id(csc, d->ev_sc, id);
				if (ec)
					ec_ent_fill(&big, ec);
				e = &big;
			}
			if (TIO_UNLIKELY(!ec)) {
				d->ev_id = id;
				SYNC();
				return DEC_NO_CLASS;
			}
			d->ev_ec = ec;
			if (!e->fused) { /* decode_event runs the rest scope by scope */
				SYNC();
				return 0;
			}
			d->ev_fused = true;
			d->ev_cec = e->cec;
			d->ev_root[0] = d->ev_root[1] = d->ev_root[2] = UINT32_MAX;
			if (e->nafter) { /* the first scope after the header, as below */
				d->ev_i = 1;
				d->ev_stage = e->nafter > 1 ? 2 : 0;
				p = e->first;
				d->ev_root[e->scope0] = nv;
				if (TIO_UNLIKELY(nv + e->vals0 > d->cap)) {
					SYNC();
					if ((r = grow_vals(d, p, 0, p->lin_vals)))
						return r;
					vals = d->vals;
				}
				o = e->lin0;
				goto *go[o->kind];
			}
			SYNC();
			return 0;
		} else {
			cec = d->ev_cec;
		}
		uint32_t k = d->ev_i;
		if (k < cec->nafter) {
			d->ev_i = (uint8_t)(k + 1);
			d->ev_stage = k + 1 < cec->nafter ? 2 : 0;
			p = cec->after[k];
			d->ev_root[cec->after_scope[k]] = nv;
			if (TIO_UNLIKELY(nv + p->lin_vals > d->cap)) {
				SYNC();
				if ((r = grow_vals(d, p, 0, p->lin_vals)))
					return r;
				vals = d->vals;
			}
			o = p->lin;
			goto *go[o->kind];
		}
	}
	SYNC();
	return 0;
#undef SYNC
#undef NEXT
#undef ALIGN
}

static int run_scope(dec *d, const plan *p, uint32_t *root)
{
	if (!p->n) {
		*root = UINT32_MAX;
		return 0;
	}
	*root = (uint32_t)d->nvals;
	d->scope = p->scope;
	if (p->lin)
		return run_lin(d, p);
	return p->ins[0].op == OP_STRUCT ? run_struct(d, p, 0, 0) : run(d, p, 0, 0);
}

/* ---------------------------------------------------------------- packets */

static inline bool role_has(const dec *d, int role) { return d->role_set & (1u << role); }

static ctf_sc *sc_of(const tio_stream_class *sc) { return sc->user; }

static int check_header(ctf_stream *s, uint32_t hdr)
{
	dec *d = &s->d;
	ctf_trace *ct = s->ct;
	const tio_trace_class *tc = s->base.trace->tc;
	if (role_has(d, TIO_ROLE_MAGIC) && d->role_val[TIO_ROLE_MAGIC] != CTF_MAGIC)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: packet.header.magic: 0x%llx is not the CTF magic 0xc1fc1fc1",
				   d->path, (unsigned long long)d->file_off,
				   (unsigned long long)d->role_val[TIO_ROLE_MAGIC]);
	/*
	 * A packet UUID that differs from the metadata's is not an error:
	 * babeltrace2 reads such traces (the intersection suite), and so do we.
	 */
	TIO_UNUSED(hdr);
	TIO_UNUSED(tc);
	TIO_UNUSED(ct);
	return 0;
}

static void queue_msg(ctf_stream *s, const tio_msg *m)
{
	if (s->nqueue < (int)TIO_ARRAY_LEN(s->queue))
		s->queue[s->nqueue++] = *m;
}

static inline __attribute__((always_inline)) int clock_ns(ctf_stream *s, uint64_t cycles, int64_t *ns)
{
	/* 1 GHz clocks (nearly all): ns = offset in ns + value, checked for overflow */
	if (TIO_LIKELY(s->fast_clock && cycles <= (uint64_t)(INT64_MAX - s->clock_base))) {
		*ns = s->clock_base + (int64_t)cycles;
		return 0;
	}
	const tio_trace_class *tc = s->base.trace->tc;
	return tio_clock_ns(tc->clocks[s->base.sc->clock], cycles, ns);
}

/* Begin the packet at s->pkt_off of the current file. */
static int begin_packet(ctf_stream *s)
{
	ctf_file *f = &s->files[s->cur];
	dec *d = &s->d;
	ctf_trace *ct = s->ct;
	uint64_t left = f->map.size - s->pkt_off;
	d->base = f->map.p + s->pkt_off;
	d->pos = 0;
	d->end = left > INT64_MAX / 8 ? INT64_MAX : left * 8; /* run_lin compares positions signed */
	d->nvals = s->app ? s->app_pos : 0; /* after the values of the messages returned (ctf_mt_cut) */
	d->lim_base = d->nvals;
	d->role_set = 0;
	d->bo_end = UINT64_MAX;
	d->path = f->map.path;
	d->file_off = s->pkt_off;
	s->hdr_val = s->ctx_val = UINT32_MAX;
	s->msg_base = NULL; /* decode_event sets the packet's scopes in s->msg again */
	int r = run_scope(d, &ct->pkt_header, &s->hdr_val);
	if (r)
		return r;
	if ((r = check_header(s, s->hdr_val)))
		return r;
	const tio_stream_class *sc = s->base.sc;
	if (role_has(d, TIO_ROLE_STREAM_CLASS_ID) && d->role_val[TIO_ROLE_STREAM_CLASS_ID] != sc->id)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: packet.header.stream_id: %llu, but this file's stream class is %llu",
				   d->path, (unsigned long long)d->file_off,
				   (unsigned long long)d->role_val[TIO_ROLE_STREAM_CLASS_ID],
				   (unsigned long long)sc->id);
	d->has_clock_val = false;
	if ((r = run_scope(d, &sc_of(sc)->pkt_ctx, &s->ctx_val)))
		return r;
	uint64_t pkt_bits = d->end, content_bits;
	if (role_has(d, TIO_ROLE_PACKET_SIZE))
		pkt_bits = d->role_val[TIO_ROLE_PACKET_SIZE];
	content_bits = role_has(d, TIO_ROLE_CONTENT_SIZE) ? d->role_val[TIO_ROLE_CONTENT_SIZE] : pkt_bits;
	if (!role_has(d, TIO_ROLE_PACKET_SIZE) && role_has(d, TIO_ROLE_CONTENT_SIZE))
		pkt_bits = (content_bits + 7) & ~7ULL;
	if (pkt_bits % 8 || pkt_bits == 0 || pkt_bits > d->end || content_bits > pkt_bits || content_bits < d->pos) {
		d->pos = 0;
		d->scope = "packet.context";
		return tio_err_set(TIO_ERR_FORMAT,
				   "%s@0x%llx: packet.context: invalid packet size %llu bits / content size %llu bits (%llu bits left in the file, %llu in the headers)",
				   d->path, (unsigned long long)s->pkt_off, (unsigned long long)pkt_bits,
				   (unsigned long long)content_bits, (unsigned long long)d->end,
				   (unsigned long long)d->pos);
	}
	s->pkt_bits = pkt_bits;
	s->content_bits = content_bits;
	d->end = content_bits;
	/* this packet's pages mapped in one go unless the helper did it, and the
	   next packet's (taken to be as big) handed to the read-ahead helper */
	tio_map *map = &s->files[s->cur].map;
	if (s->ahead_file != s->cur || s->ahead_upto < s->pkt_off + pkt_bits / 8)
		tio_map_populate(map, s->pkt_off, (content_bits + 7) / 8);
	if (!s->base.in_part && (s->ahead_file != s->cur || s->ahead_upto < s->pkt_off + 2 * (pkt_bits / 8))) {
		uint64_t from = s->pkt_off + pkt_bits / 8;
		if (s->ahead_file == s->cur && s->ahead_upto > from)
			from = s->ahead_upto;
		tio_map_prefetch(map, from, s->pkt_off + 2 * (pkt_bits / 8) - from);
		s->ahead_file = s->cur;
		s->ahead_upto = s->pkt_off + 2 * (pkt_bits / 8);
	}
	s->pkt_nvals = d->nvals;
	s->app_pos = d->nvals;

	/* snapshots, discarded events and packets (CTF 1.8.3 5.2) */
	s->has_cur_begin = role_has(d, TIO_ROLE_BEGIN_TS);
	s->cur_begin = d->role_val[TIO_ROLE_BEGIN_TS];
	s->has_cur_end = role_has(d, TIO_ROLE_END_TS);
	s->cur_end = d->role_val[TIO_ROLE_END_TS];
	if (s->has_cur_begin && sc->clock >= 0)
		d->clock = s->cur_begin;
	s->nqueue = s->qhead = 0;
	bool timed = sc->clock >= 0;
	/*
	 * The same trace found in several places (merged by UUID) may hold the
	 * same packet twice: read it once, as babeltrace2 does.
	 */
	uint64_t sig[6] = {s->cur_begin, s->cur_end, s->pkt_bits, s->content_bits,
			   d->role_val[TIO_ROLE_SEQ_NUM], d->role_val[TIO_ROLE_DISCARDED]};
	if (s->has_sig && s->sig_file != s->cur && !memcmp(sig, s->sig, sizeof(sig)) && s->has_cur_begin)
		return 1;
	memcpy(s->sig, sig, sizeof(sig));
	s->has_sig = true;
	s->sig_file = s->cur;
	/* as babeltrace2: discarded events first, then discarded packets */
	if (role_has(d, TIO_ROLE_DISCARDED)) {
		uint64_t disc = d->role_val[TIO_ROLE_DISCARDED];
		bool emit = s->has_prev_disc ? disc != s->prev_disc : disc != 0;
		if (emit) {
			tio_msg m = {.type = TIO_MSG_DISCARDED_EVENTS, .stream = &s->base};
			uint64_t beg = 0;
			bool has_beg = false;
			if (s->has_prev_disc) {
				m.count = disc - s->prev_disc;
				beg = s->prev_end;
				has_beg = s->has_prev_end;
			} else {
				m.count = 0; /* unknown: discarded before or within this packet */
				beg = s->cur_begin;
				has_beg = s->has_cur_begin;
			}
			if (timed && has_beg && s->has_cur_end) {
				m.has_range = true;
				m.begin_cycles = beg;
				m.end_cycles = s->cur_end;
				if (clock_ns(s, m.begin_cycles, &m.begin_ns) || clock_ns(s, m.end_cycles, &m.end_ns))
					m.has_range = false;
			}
			queue_msg(s, &m);
		}
		s->prev_disc = disc;
		s->has_prev_disc = true;
	}
	if (role_has(d, TIO_ROLE_SEQ_NUM)) {
		uint64_t seq = d->role_val[TIO_ROLE_SEQ_NUM];
		if (s->has_prev_seq && seq > s->prev_seq + 1) {
			tio_msg m = {.type = TIO_MSG_DISCARDED_PACKETS, .stream = &s->base};
			m.count = seq - s->prev_seq - 1;
			if (timed && s->has_prev_end && s->has_cur_begin) {
				m.has_range = true;
				m.begin_cycles = s->prev_end;
				m.end_cycles = s->cur_begin;
				if (clock_ns(s, m.begin_cycles, &m.begin_ns) || clock_ns(s, m.end_cycles, &m.end_ns))
					m.has_range = false;
			}
			queue_msg(s, &m);
		}
		s->prev_seq = seq;
		s->has_prev_seq = true;
	}
	/*
	 * then the packet's own message: its header and context values, its
	 * beginning time.  Discarded records come first, as in babeltrace2: their
	 * range starts at the previous packet's end, before this packet begins.
	 */
	tio_msg pm = {.type = TIO_MSG_PACKET_BEGIN, .stream = &s->base, .vals = d->vals,
		      .nvals = (uint32_t)d->nvals, .offset = s->pkt_off};
	pm.scope[TIO_SCOPE_PKT_HEADER] = s->hdr_val != UINT32_MAX ? d->vals + s->hdr_val : NULL;
	pm.scope[TIO_SCOPE_PKT_CTX] = s->ctx_val != UINT32_MAX ? d->vals + s->ctx_val : NULL;
	if (timed && s->has_cur_begin && !clock_ns(s, s->cur_begin, &pm.ns)) {
		pm.has_ts = true;
		pm.cycles = s->cur_begin;
	}
	if (timed && s->has_cur_end && !clock_ns(s, s->cur_end, &pm.pkt_end_ns))
		pm.has_pkt_end = true;
	queue_msg(s, &pm);
	s->prev_end = s->cur_end;
	s->has_prev_end = s->has_cur_end;
	s->seen_packet = true;
	return 0;
}

static inline __attribute__((always_inline)) int decode_event(ctf_stream *s)
{
	dec *d = &s->d;
	const tio_stream_class *sc = s->base.sc;
	ctf_sc *csc = sc_of(sc);
	tio_msg *m = &s->msg;
	uint64_t start = d->pos;
	d->nvals = s->app ? s->app_pos : s->pkt_nvals;
	if (TIO_UNLIKELY(s->app)) {
		/* the limit counts the packet's values and the event's, as without ctf_mt_cut */
		size_t from = s->pkt_nvals;
		if (s->hdr_val < from)
			from = s->hdr_val;
		if (s->ctx_val < from)
			from = s->ctx_val;
		d->lim_base = s->app_pos - (s->pkt_nvals - from);
	}
	d->role_set &= ~(1u << TIO_ROLE_EVENT_CLASS_ID);
	uint32_t hdr, cctx, sctx, pl;
	const tio_event_class *ec;
	uint64_t id;
	int r;
	if (TIO_LIKELY(csc->ev_header.lin != NULL)) {
		/* one run_lin call: the header, then (fused classes) the rest */
		hdr = (uint32_t)d->nvals;
		d->ev_stage = 1;
		d->ev_fused = false;
		d->ev_csc = csc;
		d->ev_sc = sc;
		r = run_lin(d, &csc->ev_header);
		bool fused = d->ev_fused;
		d->ev_stage = 0;
		if (TIO_UNLIKELY(r)) {
			if (r != DEC_NO_CLASS)
				return r;
			id = d->ev_id;
			goto no_class;
		}
		ec = d->ev_ec;
		if (fused) {
			cctx = d->ev_root[0];
			sctx = d->ev_root[1];
			pl = d->ev_root[2];
			goto decoded;
		}
	} else {
		if ((r = run_scope(d, &csc->ev_header, &hdr)))
			return r;
		id = role_has(d, TIO_ROLE_EVENT_CLASS_ID) ? d->role_val[TIO_ROLE_EVENT_CLASS_ID] : 0;
		if (!(ec = ec_by_id(csc, sc, id)))
			goto no_class;
	}
	if ((r = run_scope(d, &csc->ev_common_ctx, &cctx)))
		return r;
	const ctf_ec *cec = ec->user;
	if ((r = run_scope(d, &cec->spec_ctx, &sctx)))
		return r;
	if ((r = run_scope(d, &cec->payload, &pl)))
		return r;
decoded:
	if (TIO_UNLIKELY(d->pos == start))
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: event record of class %llu%s%s%s is empty (0 bits): cannot advance",
				   d->path, (unsigned long long)(d->file_off + start / 8), (unsigned long long)ec->id,
				   ec->name ? " '" : "", ec->name ? ec->name : "", ec->name ? "'" : "");
	const tio_val *v = d->vals;
	if (TIO_UNLIKELY(v != s->msg_base)) { /* a new packet, or the values moved */
		s->msg_base = v;
		m->type = TIO_MSG_EVENT;
		m->stream = &s->base;
		m->has_ts = sc->clock >= 0;
		m->vals = v;
		m->scope[TIO_SCOPE_PKT_HEADER] = s->hdr_val != UINT32_MAX ? v + s->hdr_val : NULL;
		m->scope[TIO_SCOPE_PKT_CTX] = s->ctx_val != UINT32_MAX ? v + s->ctx_val : NULL;
	}
	m->ec = ec;
	if (m->has_ts) {
		m->cycles = d->clock;
		if ((r = clock_ns(s, d->clock, &m->ns)))
			return tio_err_push(r, "%s@0x%llx", d->path, (unsigned long long)(d->file_off + start / 8));
	}
	m->nvals = (uint32_t)d->nvals;
	m->scope[TIO_SCOPE_EV_HEADER] = hdr != UINT32_MAX ? v + hdr : NULL;
	m->scope[TIO_SCOPE_EV_COMMON_CTX] = cctx != UINT32_MAX ? v + cctx : NULL;
	m->scope[TIO_SCOPE_EV_SPEC_CTX] = sctx != UINT32_MAX ? v + sctx : NULL;
	m->scope[TIO_SCOPE_PAYLOAD] = pl != UINT32_MAX ? v + pl : NULL;
	m->offset = d->file_off + start / 8;
	s->app_pos = d->nvals;
	return 0;
no_class:
	d->pos = start;
	return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: event.header: no event class with id %llu in stream class %llu",
			   d->path, (unsigned long long)(d->file_off + start / 8), (unsigned long long)id,
			   (unsigned long long)sc->id);
}

static void next_packet(ctf_stream *s)
{
	s->pkt_off += s->pkt_bits / 8;
	if (!s->app) /* else ctf_mt_cut, behind the batches in flight */
		tio_map_release(&s->files[s->cur].map, s->pkt_off);
	s->state = ST_NEED_PACKET;
}

/* Give up on the rest of the current file (its packets cannot be located). */
static void skip_file(ctf_stream *s)
{
	s->cur++;
	s->pkt_off = 0;
	s->has_good_end = false;
	s->scan_min = 0;
	s->step_off = s->last_size = 0; /* a file begins with a packet: s->step still applies */
	s->state = ST_NEED_PACKET;
}

/*
 * Does a packet that can be decoded begin at `off` of file `fi`?  Its
 * header must hold the CTF magic and this stream's class, its context
 * sizes that fit the file.  Decodes into s->scratch (whose roles then hold
 * the packet's snapshots): the current packet's values stay intact.
 */
static bool packet_head(ctf_stream *s, uint32_t fi, uint64_t off, uint64_t *pkt_bits, uint64_t *content_bits)
{
	ctf_file *f = &s->files[fi];
	dec *d = &s->scratch;
	if (!d->slots && !(d->slots = tio_calloc(s->ct->nslots ? s->ct->nslots : 1, sizeof(uint64_t))))
		return false;
	if (off >= f->map.size)
		return false;
	d->base = f->map.p + off;
	d->pos = 0;
	d->end = (f->map.size - off) * 8;
	d->nvals = 0;
	d->role_set = 0;
	d->path = f->map.path;
	d->file_off = off;
	d->bo_end = UINT64_MAX;
	uint32_t root;
	bool ok = !run_scope(d, &s->ct->pkt_header, &root) &&
		  (role_has(d, TIO_ROLE_MAGIC) ? d->role_val[TIO_ROLE_MAGIC] == CTF_MAGIC : !s->ct->has_magic) &&
		  (!role_has(d, TIO_ROLE_STREAM_CLASS_ID) || d->role_val[TIO_ROLE_STREAM_CLASS_ID] == s->base.sc->id) &&
		  !run_scope(d, &sc_of(s->base.sc)->pkt_ctx, &root);
	if (ok) {
		uint64_t pkt = role_has(d, TIO_ROLE_PACKET_SIZE) ? d->role_val[TIO_ROLE_PACKET_SIZE] : d->end;
		uint64_t content = role_has(d, TIO_ROLE_CONTENT_SIZE) ? d->role_val[TIO_ROLE_CONTENT_SIZE] : pkt;
		if (!role_has(d, TIO_ROLE_PACKET_SIZE) && role_has(d, TIO_ROLE_CONTENT_SIZE))
			pkt = (content + 7) & ~7ULL;
		ok = pkt % 8 == 0 && pkt && pkt <= d->end && content <= pkt && content >= d->pos;
		*pkt_bits = pkt;
		*content_bits = content;
	}
	return ok;
}

/* packet_head in the current file; *bytes: the packet's size. */
static bool packet_at(ctf_stream *s, uint64_t off, uint64_t *bytes)
{
	uint64_t pkt = 0, content;
	bool ok = packet_head(s, s->cur, off, &pkt, &content);
	*bytes = pkt / 8;
	return ok;
}

/* The first offset in [from, to) of the current file where a decodable packet begins, or `to`. */
static uint64_t find_packet(ctf_stream *s, uint64_t from, uint64_t to)
{
	const tio_map *m = &s->files[s->cur].map;
	if (!s->ct->has_magic || to > m->size)
		return to;
	while (from < to && to - from >= 4) {
		const uint8_t *hit = memmem(m->p + from, to - from, s->ct->magic, 4);
		if (!hit)
			break;
		uint64_t off = (uint64_t)(hit - m->p), bytes;
		if (packet_at(s, off, &bytes))
			return off;
		from = off + 1;
	}
	return to;
}

/*
 * LTTng's index of the current file's packets (DIR/index/FILE.idx next to
 * DIR/FILE), read once, when a trace without packet magic needs it: u32 BE
 * magic 0xc1f1dcc1, major 1, minor, entry size (>= 24 bytes); then entries of
 * u64 BE offset (bytes), packet size and content size (bits), ...  An index
 * that does not fit these rules is not used.
 */
static void read_index(ctf_file *f)
{
	f->idx_read = true;
	const char *path = f->map.path, *base = strrchr(path, '/');
	char *ip = base ? tio_asprintf("%.*s/index/%s.idx", (int)(base - path), path, base + 1)
			: tio_asprintf("index/%s.idx", path);
	char *data = NULL;
	size_t len = 0;
	if (!ip || !tio_is_file(ip) || tio_read_file(ip, &data, &len) || len < 16) {
		free(ip);
		free(data);
		return;
	}
	const uint8_t *p = (const uint8_t *)data;
	uint32_t esize = tio_be32(p + 12);
	if (tio_be32(p) == 0xC1F1DCC1u && tio_be32(p + 4) == 1 && esize >= 24 && esize <= 4096 &&
	    (f->nidx = (uint32_t)((len - 16) / esize < 65536 * 16 ? (len - 16) / esize : 0)) &&
	    (f->idx = tio_calloc(f->nidx, sizeof(ctf_idx)))) {
		f->idx_times = esize >= 48;
		for (uint32_t i = 0; i < f->nidx; i++) {
			const uint8_t *e = p + 16 + (size_t)i * esize;
			f->idx[i].off = tio_be64(e);
			f->idx[i].size = tio_be64(e + 8) / 8;
			if (f->idx_times) {
				f->idx[i].begin = tio_be64(e + 24);
				f->idx[i].end = tio_be64(e + 32);
				f->idx[i].disc = tio_be64(e + 40);
			}
		}
	} else {
		f->nidx = 0;
	}
	free(ip);
	free(data);
}

/*
 * Without packet magic: the first offset in (after, to) of the current file
 * where a packet of the expected size decodes, or `to`.  Candidates: the
 * packets of LTTng's index when there is one, else the multiples of the
 * packet size that two good packets in a row had (s->step, from a good
 * packet's offset; across the files of a stream too).  A candidate must
 * decode (header, this stream's class, context) and declare that size.
 */
static uint64_t find_sized(ctf_stream *s, uint64_t after, uint64_t to)
{
	ctf_file *f = &s->files[s->cur];
	uint64_t bytes;
	if (!f->idx_read)
		read_index(f);
	if (to > f->map.size)
		to = f->map.size;
	if (f->nidx) {
		/* entries in file order: the first one after `after` */
		uint32_t lo = 0, hi = f->nidx;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (f->idx[mid].off <= after)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t i = lo; i < f->nidx && f->idx[i].off < to; i++)
			if (f->idx[i].off > after && packet_at(s, f->idx[i].off, &bytes) && bytes == f->idx[i].size)
				return f->idx[i].off;
		return to;
	}
	if (!s->step || to <= s->step_off)
		return to;
	uint64_t k = after >= s->step_off ? (after - s->step_off) / s->step + 1 : 1;
	if (k > (to - s->step_off) / s->step)
		return to;
	for (uint64_t off = s->step_off + k * s->step; off < to; off += s->step)
		if (packet_at(s, off, &bytes) && bytes == s->step)
			return off;
	return to;
}

/*
 * After a packet that cannot be begun at s->pkt_off, go on at the next
 * packet of the file: the first offset after the last good packet's content
 * (its size field may be what was damaged) or after the failed offset where
 * the packet magic starts a decodable header.  Scans only go forward.
 * Without a magic number, packets are looked for where the index or the
 * sizes of the good packets say they are (find_sized()); when neither is
 * known, the rest of the file is skipped.
 */
static void resync(ctf_stream *s)
{
	uint64_t failed = s->pkt_off;
	if (!s->ct->has_magic) {
		/* after the last good packet (its size may be what was damaged) */
		uint64_t after = s->has_good_end && s->good_end && s->good_end <= failed ? s->good_end - 1 : failed;
		if (after < s->scan_min)
			after = s->scan_min;
		uint64_t end = s->files[s->cur].map.size, off = find_sized(s, after, end);
		if (off >= end) {
			skip_file(s);
			return;
		}
		s->scan_min = off; /* a candidate that fails is not tried again */
		s->pkt_off = off;
		s->state = ST_NEED_PACKET;
		return;
	}
	uint64_t from = s->has_good_end && s->good_end <= failed ? s->good_end : failed + 1;
	if (from < s->scan_min)
		from = s->scan_min > failed ? s->scan_min : failed + 1;
	s->scan_min = from + 1;
	uint64_t size = s->files[s->cur].map.size;
	uint64_t off = find_packet(s, from, size);
	if (off >= size) {
		skip_file(s);
		return;
	}
	s->pkt_off = off;
	s->state = ST_NEED_PACKET;
}

/*
 * A packet whose padding holds the start of a decodable packet has a
 * damaged size: end it there, so that the packets it would swallow are read.
 */
static int check_padding(ctf_stream *s)
{
	uint64_t content_end = s->pkt_off + (s->content_bits + 7) / 8, end = s->pkt_off + s->pkt_bits / 8;
	s->good_end = content_end;
	s->has_good_end = true;
	uint64_t next = end;
	if (!s->ct->has_magic) {
		/* the first packet, or a size unlike the good packets': does the
		   next packet (index, or good packets' size) begin inside? */
		uint64_t bytes = s->pkt_bits / 8;
		if (!s->step || bytes != s->step || s->files[s->cur].nidx)
			next = find_sized(s, s->pkt_off, end);
		if (next >= end && (!s->last_size || bytes == s->last_size)) {
			s->step_off = s->pkt_off;
			s->step = bytes;
		}
		s->last_size = next >= end ? bytes : 0;
	} else if (end - content_end >= 4) {
		next = find_packet(s, content_end, end);
	}
	if (next >= end)
		return 0;
	uint64_t declared = s->pkt_bits;
	s->pkt_bits = (next - s->pkt_off) * 8;
	return tio_err_set(TIO_ERR_FORMAT,
			   "%s@0x%llx: packet.context.packet_size: %llu bits, but a packet begins at 0x%llx: size taken as %llu bits",
			   s->files[s->cur].map.path, (unsigned long long)s->pkt_off,
			   (unsigned long long)declared, (unsigned long long)next,
			   (unsigned long long)s->pkt_bits);
}

static int ctf_next_(ctf_stream *s, const tio_msg **out)
{
	if (s->pending_err) {
		tio_err_set(TIO_ERR_FORMAT, "%s", s->pending_err);
		free(s->pending_err);
		s->pending_err = NULL;
		resync(s); /* the first packet is damaged: look for the next one */
		return TIO_ERR_FORMAT;
	}
	for (;;) {
		if (s->qhead < s->nqueue) {
			*out = &s->queue[s->qhead++];
			return 1;
		}
		if (s->state == ST_NEED_PACKET) {
			if (s->cur >= s->nfiles) {
				s->state = ST_DONE;
				return 0;
			}
			if (s->pkt_off >= s->files[s->cur].map.size) {
				skip_file(s);
				continue;
			}
			if (TIO_UNLIKELY(s->has_stop) &&
			    (s->cur > s->stop_file || (s->cur == s->stop_file && s->pkt_off >= s->stop_off))) {
				s->state = ST_DONE; /* the next part's first packet */
				return 0;
			}
			int r = begin_packet(s);
			if (r > 0) { /* a copy of the previous packet (merged traces): skip it */
				next_packet(s);
				continue;
			}
			if (r) {
				resync(s);
				return r;
			}
			s->state = ST_IN_PACKET;
			if ((r = check_padding(s)))
				return r;
			continue;
		}
		if (s->state == ST_DONE)
			return 0;
		if (s->d.pos >= s->content_bits) {
			/* babeltrace2: the packet's end time becomes the stream's clock value,
			   which a next packet without a begin time starts from */
			if (s->has_cur_end && s->base.sc->clock >= 0)
				s->d.clock = s->cur_end;
			next_packet(s);
			continue;
		}
		int r = decode_event(s);
		if (r) {
			next_packet(s);
			return r;
		}
		*out = &s->msg;
		return 1;
	}
}

static int ctf_next(tio_stream *base, const tio_msg **out)
{
	ctf_stream *s = (ctf_stream *)base;
	int r = ctf_next_(s, out);
	s->base.mt_vals = s->d.vals; /* it may have grown (ctf_mt_cut) */
	return r;
}

/*
 * tio_stream_ops.mt_cut: the values of the next messages go into array
 * `slot`, from its beginning, after a copy of the current packet's values
 * (the packet scopes of its next events) made relative to their new place;
 * the packet and discarded-records messages still queued point there too.
 */
static void ctf_mt_cut(tio_stream *base, unsigned slot)
{
	ctf_stream *s = (ctf_stream *)base;
	dec *d = &s->d;
	if (slot >= TIO_MT_SLOTS) { /* back to one message at a time */
		s->app = false;
		d->lim_base = 0;
		return;
	}
	if (!s->has_arr) { /* the array so far becomes this slot's */
		s->has_arr = true;
		s->slot = slot;
	}
	s->app = true;
	s->arr[s->slot] = d->vals;
	s->arrcap[s->slot] = d->cap;
	const tio_val *old = d->vals;
	/* the current packet's values: [from, pkt_nvals) */
	size_t from = s->pkt_nvals;
	if (s->hdr_val != UINT32_MAX && s->hdr_val < from)
		from = s->hdr_val;
	if (s->ctx_val != UINT32_MAX && s->ctx_val < from)
		from = s->ctx_val;
	size_t k = s->pkt_nvals - from;
	tio_val *dst = s->arr[slot];
	if (k > s->arrcap[slot]) {
		if (tio_grow(&dst, &s->arrcap[slot], k, sizeof(tio_val))) {
			k = 0; /* out of memory: the packet's next events see no packet scopes */
			s->hdr_val = s->ctx_val = UINT32_MAX;
			dst = s->arr[slot];
		}
		s->arr[slot] = dst;
	}
	if (k)
		memmove(dst, old + from, k * sizeof(tio_val));
	for (size_t i = 0; i < k; i++)
		dst[i].end -= (uint32_t)from;
	if (s->hdr_val != UINT32_MAX)
		s->hdr_val -= (uint32_t)from;
	if (s->ctx_val != UINT32_MAX)
		s->ctx_val -= (uint32_t)from;
	for (int q = s->qhead; q < s->nqueue; q++) {
		tio_msg *m = &s->queue[q];
		if (m->vals != old)
			continue;
		m->vals = dst;
		m->nvals = (uint32_t)k;
		for (int sc = 0; sc < TIO_NSCOPES; sc++)
			if (m->scope[sc])
				m->scope[sc] = (size_t)(m->scope[sc] - old) >= from ? dst + (m->scope[sc] - old - from) : NULL;
	}
	s->slot = slot;
	d->vals = dst;
	d->cap = s->arrcap[slot];
	d->nvals = k;
	d->lim_base = 0;
	s->pkt_nvals = k;
	s->app_pos = k;
	s->msg_base = NULL;
	s->base.mt_vals = d->vals;
	/* pages are handed back (tio_map_release) only before the oldest batch
	   that may still be read: the one begun after the batch that had this slot */
	s->cut_file[slot] = s->cur;
	s->cut_off[slot] = s->pkt_off;
	unsigned oldest = (slot + 1) % TIO_MT_SLOTS;
	uint32_t of = s->cut_file[oldest];
	uint64_t oo = s->cut_off[oldest];
	if (of > s->cur || (of == s->cur && oo > s->pkt_off)) /* not cut yet since a seek */
		of = s->cur, oo = 0;
	for (; s->rel_file < of && s->rel_file < s->nfiles; s->rel_file++)
		tio_map_release(&s->files[s->rel_file].map, s->files[s->rel_file].map.size);
	if (of < s->nfiles && of == s->rel_file)
		tio_map_release(&s->files[of].map, oo);
}

static void ctf_stream_free(tio_stream *base)
{
	ctf_stream *s = (ctf_stream *)base;
	for (uint32_t i = 0; i < s->nfiles; i++) {
		tio_map_close(&s->files[i].map);
		free(s->files[i].idx);
	}
	free(s->files);
	free(s->pk);
	if (s->has_arr)
		s->arr[s->slot] = s->d.vals; /* it may have moved since ctf_mt_cut */
	for (int i = 0; i < TIO_MT_SLOTS; i++)
		if (s->arr[i] != s->d.vals)
			free(s->arr[i]);
	free(s->d.vals);
	free(s->d.slots);
	free(s->scratch.vals);
	free(s->scratch.slots);
	free(s->pending_err);
	free(s);
}

/* ---------------------------------------------------------------- packet index and seek */

/*
 * The stream's packet index: every packet's header and context decoded
 * (no event), file after file, each packet's pages dropped again so that
 * memory stays flat.  The stream is seekable when every packet decodes,
 * has a begin time that converts to ns, begins no earlier than the one
 * before, and (with packet magic) has no packet starting in its padding
 * (check_padding would shorten it).  End times are not trusted for seeking
 * (an event may come after its packet's end: babeltrace's
 * lttng-event-after-packet trace); an event is never earlier than its
 * packet's beginning.  Anything else leaves pk_state -1:
 * ctf_seek then reads from the beginning, as without an index.  LTTng's
 * index/ files are not needed: the packet headers say the same, one page
 * read per packet.
 */
static void cross_check_idx(ctf_stream *s, uint32_t fi, uint32_t first, uint32_t n);

/*
 * Give back the pages of [from, to) of file fi that reading packet headers
 * mapped (with large folios, a header read maps much more than its page),
 * but for the packet being decoded.
 */
static void drop_headers(ctf_stream *s, uint32_t fi, uint64_t from, uint64_t to)
{
	tio_map *m = &s->files[fi].map;
	if (fi != s->cur || s->state != ST_IN_PACKET) {
		tio_map_drop(m, from, to - from);
		return;
	}
	uint64_t at = s->pkt_off, end = s->pkt_off + s->pkt_bits / 8;
	if (from < at)
		tio_map_drop(m, from, (to < at ? to : at) - from);
	if (end < to)
		tio_map_drop(m, end > from ? end : from, to - (end > from ? end : from));
}

static void build_packets(ctf_stream *s)
{
	s->pk_state = -1;
	bool ok = s->base.sc && s->base.sc->clock >= 0 && !s->pending_err;
	size_t cap = 0;
	int64_t last_begin = INT64_MIN;
	for (uint32_t fi = 0; ok && fi < s->nfiles; fi++) {
		ctf_file *f = &s->files[fi];
		uint64_t off = 0, dropped = 0;
		uint32_t first = s->npk;
		tio_map_sparse(&f->map, 0, f->map.size, true);
		while (off < f->map.size) {
			uint64_t pkt, content;
			if (off - dropped >= (8u << 20)) { /* RSS stays flat while the headers are read */
				drop_headers(s, fi, dropped, off);
				dropped = off;
			}
			if (!packet_head(s, fi, off, &pkt, &content)) {
				ok = false;
				break;
			}
			dec *d = &s->scratch;
			ctf_pkt e = {.off = off, .file = fi, .events_at = (uint32_t)(d->pos < UINT32_MAX ? d->pos : UINT32_MAX)};
			e.sig[0] = d->role_val[TIO_ROLE_BEGIN_TS];
			e.sig[1] = d->role_val[TIO_ROLE_END_TS];
			e.sig[2] = pkt;
			e.sig[3] = content;
			e.sig[4] = d->role_val[TIO_ROLE_SEQ_NUM];
			e.sig[5] = d->role_val[TIO_ROLE_DISCARDED];
			e.has = (role_has(d, TIO_ROLE_BEGIN_TS) ? PK_BEGIN : 0) | (role_has(d, TIO_ROLE_END_TS) ? PK_END : 0) |
				(role_has(d, TIO_ROLE_SEQ_NUM) ? PK_SEQ : 0) | (role_has(d, TIO_ROLE_DISCARDED) ? PK_DISC : 0);
			if (!(e.has & PK_BEGIN) || clock_ns(s, e.sig[0], &e.begin_ns) || e.begin_ns < last_begin) {
				ok = false;
				break;
			}
			if (!(e.has & PK_END) || clock_ns(s, e.sig[1], &e.end_ns) || e.end_ns < e.begin_ns)
				e.end_ns = e.begin_ns;
			uint64_t content_end = off + (content + 7) / 8, end = off + pkt / 8;
			if (s->ct->has_magic && end - content_end >= 4 && end <= f->map.size &&
			    memmem(f->map.p + content_end, end - content_end, s->ct->magic, 4)) {
				ok = false;
				break;
			}
			if (s->npk == cap) {
				size_t nc = cap ? 2 * cap : 64;
				ctf_pkt *np = nc < UINT32_MAX ? realloc(s->pk, nc * sizeof(*np)) : NULL;
				if (!np) {
					ok = false;
					break;
				}
				s->pk = np;
				cap = nc;
			}
			if (!s->npk)
				s->pk_begin_ns = e.begin_ns;
			s->pk_end_ns = s->npk && s->pk_end_ns > e.end_ns ? s->pk_end_ns : e.end_ns;
			s->pk[s->npk++] = e;
			s->pk_event_bits += content - e.events_at;
			last_begin = e.begin_ns;
			off = end;
		}
		tio_map_sparse(&f->map, 0, f->map.size, false);
		if (ok)
			cross_check_idx(s, fi, first, s->npk - first);
		drop_headers(s, fi, dropped, f->map.size);
	}
	if (ok)
		s->pk_state = 1;
}

/*
 * LTTng's index/FILE.idx against the packets the headers of file fi gave
 * (pk[first, first + n)): the same packets at the same offsets, sizes,
 * times and discarded counters, or a warning of the trace (traceio check
 * lists it); the headers are what is used either way.
 */
static void cross_check_idx(ctf_stream *s, uint32_t fi, uint32_t first, uint32_t n)
{
	ctf_file *f = &s->files[fi];
	if (!f->idx_read)
		read_index(f);
	if (!f->nidx)
		return;
	const char *what = NULL;
	uint32_t i = 0;
	uint64_t want = 0, got = 0;
	if (f->nidx != n) {
		what = "packets";
		want = n;
		got = f->nidx;
	}
	for (; !what && i < n; i++) {
		const ctf_pkt *p = &s->pk[first + i];
		const ctf_idx *e = &f->idx[i];
		if (e->off != p->off)
			what = "offset", want = p->off, got = e->off;
		else if (e->size != p->sig[2] / 8)
			what = "packet size (bytes)", want = p->sig[2] / 8, got = e->size;
		else if (f->idx_times && (p->has & PK_BEGIN) && e->begin != p->sig[0])
			what = "timestamp_begin", want = p->sig[0], got = e->begin;
		else if (f->idx_times && (p->has & PK_END) && e->end != p->sig[1])
			what = "timestamp_end", want = p->sig[1], got = e->end;
		else if (f->idx_times && (p->has & PK_DISC) && e->disc != p->sig[5])
			what = "events_discarded", want = p->sig[5], got = e->disc;
		if (what)
			break;
	}
	if (!what)
		return;
	char at[32] = "";
	if (f->nidx == n)
		snprintf(at, sizeof(at), " at entry %u", i);
	tio_trace_class_warn(s->base.trace->tc, "%s: LTTng's index of this file says %s %llu%s, the packet headers %llu: the headers are used",
			     f->map.path, what, (unsigned long long)got, at, (unsigned long long)want);
}

/* Back to the beginning, or to packet k of the index, as if read up to it. */
static void goto_packet(ctf_stream *s, uint32_t k)
{
	s->nqueue = s->qhead = 0;
	s->state = ST_NEED_PACKET;
	s->msg_base = NULL;
	s->has_good_end = false;
	s->scan_min = 0;
	s->step_off = s->step = s->last_size = 0;
	s->ahead_upto = 0;
	s->d.clock = 0;
	s->has_prev_disc = s->has_prev_seq = s->has_prev_end = s->seen_packet = s->has_sig = false;
	s->has_cur_begin = s->has_cur_end = false;
	if (k == 0) {
		s->cur = 0;
		s->pkt_off = 0;
	} else if (k >= s->npk) {
		s->cur = s->nfiles; /* past the last packet: next() ends */
		s->pkt_off = 0;
		return;
	} else {
		const ctf_pkt *p = &s->pk[k - 1];
		s->cur = s->pk[k].file;
		s->pkt_off = s->pk[k].off;
		s->prev_end = p->sig[1];
		s->prev_seq = p->sig[4];
		s->prev_disc = p->sig[5];
		s->has_prev_end = p->has & PK_END;
		s->has_prev_seq = p->has & PK_SEQ;
		s->has_prev_disc = p->has & PK_DISC;
		s->d.clock = p->sig[1];
		s->seen_packet = true;
		memcpy(s->sig, p->sig, sizeof(s->sig));
		s->sig_file = p->file;
		s->has_sig = true;
	}
	if (s->rel_file > s->cur) /* back before what ctf_mt_cut handed back */
		s->rel_file = s->cur;
	if (s->cur < s->nfiles)
		tio_map_rewind(&s->files[s->cur].map, s->pkt_off);
}

/* The packets that begin before `ns`: a count (ctf_seek, tio_stream_ops.part_bytes). */
static uint32_t pk_cut(const ctf_stream *s, int64_t ns)
{
	if (ns == INT64_MAX)
		return s->npk;
	uint32_t lo = 0, hi = s->npk;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->pk[mid].begin_ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * tio_stream_ops.seek: the last packet that begins before `ns` (binary
 * search of the index): the packets after it begin at or after `ns`, so
 * its events are the only earlier ones that can reach `ns`.
 */
static int ctf_seek(tio_stream *base, int64_t ns)
{
	ctf_stream *s = (ctf_stream *)base;
	uint32_t k = 0;
	if (ns != INT64_MIN) {
		if (!s->pk_state)
			build_packets(s);
		if (s->pk_state > 0) {
			uint32_t c = pk_cut(s, ns);
			k = c ? c - 1 : 0;
		}
	}
	goto_packet(s, k);
	return 0;
}

/* tio_stream_ops.part_bytes: the bytes of the packets before pk_cut(ns). */
static uint64_t ctf_part_bytes(tio_stream *base, int64_t ns)
{
	ctf_stream *s = (ctf_stream *)base;
	if (!s->pk_state)
		build_packets(s);
	if (s->pk_state <= 0)
		return UINT64_MAX;
	uint64_t bytes = 0;
	for (uint32_t k = 0, n = pk_cut(s, ns); k < n; k++)
		bytes += s->pk[k].sig[2] / 8;
	return bytes;
}

/* tio_stream_ops.part_keep: packets [pk_cut(lo), pk_cut(hi)) only. */
static int ctf_part_keep(tio_stream *base, int64_t lo, int64_t hi)
{
	ctf_stream *s = (ctf_stream *)base;
	if (!s->pk_state)
		build_packets(s);
	if (s->pk_state <= 0)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: this stream has no packet index to cut it in parts",
				   s->base.name ? s->base.name : "stream");
	uint32_t a = pk_cut(s, lo), b = pk_cut(s, hi);
	goto_packet(s, a);
	s->has_stop = b < s->npk && b > a;
	if (b <= a)
		s->cur = s->nfiles; /* nothing: next() ends */
	if (s->has_stop) {
		s->stop_file = s->pk[b].file;
		s->stop_off = s->pk[b].off;
	}
	return 0;
}

/*
 * Events in the first packets that have some (up to 8, until 10000
 * events), decoded by a copy of the stream that shares its files: *bits,
 * the bits of event records they hold.  For ctf_index's estimate; the
 * stream itself is not moved, and the pages read are dropped again.
 */
static uint64_t sample_events(ctf_stream *s, uint64_t *bits)
{
	ctf_stream c;
	memset(&c, 0, sizeof(c));
	c.base = s->base;
	c.ct = s->ct;
	c.files = s->files;
	c.nfiles = s->nfiles;
	c.fast_clock = s->fast_clock;
	c.clock_base = s->clock_base;
	c.ahead_file = UINT32_MAX;
	c.d.slots = tio_calloc(s->ct->nslots ? s->ct->nslots : 1, sizeof(uint64_t));
	uint64_t n = 0;
	*bits = 0;
	/* a few hundred KiB: not the read-ahead window of each (8 MiB on some machines) */
	for (uint32_t fi = 0; fi < s->nfiles; fi++)
		tio_map_sparse(&s->files[fi].map, 0, s->files[fi].map.size, true);
	for (uint32_t k = 0, used = 0; c.d.slots && k < s->npk && used < 8 && n < 10000; k++) {
		c.cur = s->pk[k].file;
		c.pkt_off = s->pk[k].off;
		c.ahead_file = c.cur; /* no read-ahead: only the pages decoded are touched */
		c.ahead_upto = UINT64_MAX;
		if (begin_packet(&c) < 0)
			break;
		uint64_t from = c.d.pos, got = 0;
		while (c.d.pos < c.content_bits && n + got < 10000 && !decode_event(&c))
			got++; /* a big packet: its first 10000 events say its density */
		/* file-backed pages: a read of them later maps them again (the
		   packet the stream is in is left alone, it is being decoded) */
		if (c.cur != s->cur || c.pkt_off != s->pkt_off || s->state != ST_IN_PACKET)
			tio_map_drop(&s->files[c.cur].map, c.pkt_off, s->pk[k].sig[2] / 8);
		if (!got)
			continue;
		n += got;
		*bits += c.d.pos - from;
		used++;
	}
	for (uint32_t fi = 0; fi < s->nfiles; fi++)
		tio_map_sparse(&s->files[fi].map, 0, s->files[fi].map.size, false);
	tio_err_clear();
	free(c.d.vals);
	free(c.d.slots);
	free(c.scratch.vals);
	free(c.scratch.slots);
	return n;
}

/* tio_stream_ops.index: packets, their time range and bytes, and an estimate of the events. */
static int ctf_index(tio_stream *base, tio_stream_index *out)
{
	ctf_stream *s = (ctf_stream *)base;
	if (!s->pk_state)
		build_packets(s);
	memset(out, 0, sizeof(*out));
	out->packets = s->npk;
	out->bytes = s->pk_event_bits / 8;
	out->seekable = s->pk_state > 0;
	if (s->pk_state > 0 && s->npk) {
		out->has_range = true;
		out->begin_ns = s->pk_begin_ns;
		out->end_ns = s->pk_end_ns;
	}
	if (s->pk_state > 0 && s->npk && (s->pk[s->npk - 1].has & PK_DISC)) {
		out->has_discarded = true;
		out->discarded = s->pk[s->npk - 1].sig[5];
	}
	uint64_t bits, n = sample_events(s, &bits);
	if (bits)
		out->events = (uint64_t)((double)s->pk_event_bits * (double)n / (double)bits + 0.5);
	out->events_exact = false;
	return 0;
}

/* tio_stream_ops.bytes_left: the rest of the current file (from the current packet) and the later files. */
static uint64_t ctf_bytes_left(tio_stream *base, uint64_t cap)
{
	(void)cap; /* the files' sizes: no reason to stop early */
	const ctf_stream *s = (const ctf_stream *)base;
	uint64_t n = 0;
	for (uint32_t i = s->cur; i < s->nfiles; i++) {
		uint64_t size = s->files[i].map.size, from = i == s->cur ? s->pkt_off : 0;
		n += size > from ? size - from : 0;
	}
	return n;
}

static const tio_stream_ops ctf_stream_ops = {.next = ctf_next, .free = ctf_stream_free, .seek = ctf_seek,
					     .index = ctf_index, .mt_cut = ctf_mt_cut,
					     .part_bytes = ctf_part_bytes, .part_keep = ctf_part_keep,
					     .bytes_left = ctf_bytes_left};

/* ---------------------------------------------------------------- opening */

static int ctf_probe(const char *path)
{
	if (!tio_is_dir(path))
		return 0;
	char *m = tio_path_join(path, "metadata");
	if (!m)
		return 0;
	int score = tio_is_file(m) ? 90 : 0;
	free(m);
	return score;
}

/* What the first packet header of a data file says. */
typedef struct file_info {
	char *path;
	tio_map map;
	uint64_t sc_id, inst_id, ts;
	bool has_inst, has_ts;
	char *err;
} file_info;

static void peek_file(ctf_trace *ct, tio_trace_class *tc, dec *d, file_info *fi)
{
	d->base = fi->map.p;
	d->pos = 0;
	d->end = fi->map.size * 8;
	d->nvals = 0;
	d->role_set = 0;
	d->bo_end = UINT64_MAX;
	d->path = fi->map.path;
	d->file_off = 0;
	uint32_t root;
	int r = run_scope(d, &ct->pkt_header, &root);
	if (!r) {
		fi->sc_id = role_has(d, TIO_ROLE_STREAM_CLASS_ID) ? d->role_val[TIO_ROLE_STREAM_CLASS_ID]
								  : (tc->nscs ? tc->scs[0]->id : 0);
		fi->has_inst = role_has(d, TIO_ROLE_STREAM_ID);
		fi->inst_id = d->role_val[TIO_ROLE_STREAM_ID];
		tio_stream_class *sc = tio_trace_class_find_sc(tc, fi->sc_id);
		if (!sc) {
			r = tio_err_set(TIO_ERR_FORMAT, "%s@0x0: packet.header.stream_id: no stream class with id %llu",
					fi->map.path, (unsigned long long)fi->sc_id);
		} else {
			uint32_t ctx;
			d->role_set = 0;
			if (!run_scope(d, &sc_of(sc)->pkt_ctx, &ctx) && role_has(d, TIO_ROLE_BEGIN_TS)) {
				fi->has_ts = true;
				fi->ts = d->role_val[TIO_ROLE_BEGIN_TS];
			}
		}
	}
	if (r)
		fi->err = tio_strdup(tio_error_message());
}

static int fi_cmp(const void *a, const void *b)
{
	const file_info *x = a, *y = b;
	/* group by stream class, then instance, then time, then name */
	if (x->sc_id != y->sc_id)
		return x->sc_id < y->sc_id ? -1 : 1;
	if (x->has_inst != y->has_inst)
		return x->has_inst ? 1 : -1;
	if (x->has_inst && x->inst_id != y->inst_id)
		return x->inst_id < y->inst_id ? -1 : 1;
	if (x->has_inst && x->has_ts && y->has_ts && x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_files(const char *dir, char ***out, size_t *n)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return tio_err_set(TIO_ERR_IO, "%s: cannot open directory", dir);
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		char *p = tio_path_join(dir, de->d_name);
		if (!p || tio_grow(&v, &cap, *n + 1, sizeof(*v))) {
			free(p);
			r = TIO_ERR_NOMEM;
			break;
		}
		if (!tio_is_file(p)) {
			free(p);
			continue;
		}
		v[(*n)++] = p;
	}
	closedir(dp);
	if (*n > 1)
		qsort(v, *n, sizeof(*v), name_cmp);
	*out = v;
	return r;
}

/*
 * Can decode_event run this class's scopes after the header in the
 * header's run_lin call?  Only when each of them that has values has a
 * flat program.
 */
static void fuse(const ctf_sc *csc, ctf_ec *cec)
{
	const plan *scopes[3] = {&csc->ev_common_ctx, &cec->spec_ctx, &cec->payload};
	cec->nafter = 0;
	cec->fused = csc->ev_header.lin != NULL;
	for (uint8_t k = 0; k < 3; k++) {
		if (!scopes[k]->n)
			continue;
		if (!scopes[k]->lin)
			cec->fused = false;
		cec->after[cec->nafter] = scopes[k];
		cec->after_scope[cec->nafter++] = k;
	}
}

static void ec_ent_fill(ctf_ec_ent *e, const tio_event_class *ec)
{
	const ctf_ec *cec = ec->user;
	*e = (ctf_ec_ent){.ec = ec, .cec = cec, .nafter = cec->nafter, .fused = cec->fused};
	if (cec->nafter) {
		e->first = cec->after[0];
		e->lin0 = e->first->lin;
		e->vals0 = e->first->lin_vals;
		e->scope0 = cec->after_scope[0];
	}
}

static int compile_all(ctf_trace *ct, tio_trace_class *tc)
{
	int r = plan_assign_slots(tc, &ct->nslots);
	if (!r)
		r = plan_compile(&ct->pkt_header, tc->pkt_header, "packet.header", -1, &ct->nslots);
	for (uint32_t i = 0; !r && i < tc->nscs; i++) {
		tio_stream_class *sc = tc->scs[i];
		ctf_sc *csc = tio_calloc(1, sizeof(*csc));
		if (!csc)
			return TIO_ERR_NOMEM;
		sc->user = csc;
		r = plan_compile(&csc->pkt_ctx, sc->pkt_ctx, "packet.context", sc->clock, &ct->nslots);
		if (!r)
			r = plan_compile(&csc->ev_header, sc->ev_header, "event.header", sc->clock, &ct->nslots);
		if (!r)
			r = plan_compile(&csc->ev_common_ctx, sc->ev_common_ctx, "event.common_context", sc->clock, &ct->nslots);
		uint64_t max_id = 0;
		for (uint32_t j = 0; j < sc->necs; j++)
			max_id = sc->ecs[j]->id > max_id ? sc->ecs[j]->id : max_id;
		/* a direct table when the ids are dense enough: a sparse one costs its
		   pages for nothing (65536 stream classes of one event of id 65535
		   took 900 MB); else tio_stream_class_find_ec's binary search */
		if (!r && sc->necs && max_id < 65536 && max_id < 64 + 16 * (uint64_t)sc->necs) {
			csc->nby_id = (uint32_t)max_id + 1;
			csc->by_id = tio_calloc(csc->nby_id, sizeof(*csc->by_id));
			if (!csc->by_id)
				return TIO_ERR_NOMEM;
		}
		for (uint32_t j = 0; !r && j < sc->necs; j++) {
			ctf_ec *cec = tio_calloc(1, sizeof(*cec));
			if (!cec)
				return TIO_ERR_NOMEM;
			sc->ecs[j]->user = cec;
			r = plan_compile(&cec->spec_ctx, sc->ecs[j]->spec_ctx, "event.specific_context", sc->clock, &ct->nslots);
			if (!r)
				r = plan_compile(&cec->payload, sc->ecs[j]->payload, "event.payload", sc->clock, &ct->nslots);
			if (r)
				tio_err_push(r, "event class '%s'", sc->ecs[j]->name ? sc->ecs[j]->name : "?");
			else
				fuse(csc, cec);
			if (csc->by_id)
				ec_ent_fill(&csc->by_id[sc->ecs[j]->id], sc->ecs[j]);
		}
	}
	return r;
}

static int add_stream(tio_trace *t, ctf_trace *ct, file_info *fis, size_t n, uint64_t id)
{
	ctf_stream *s = tio_calloc(1, sizeof(*s));
	if (!s)
		return TIO_ERR_NOMEM;
	s->base.ops = &ctf_stream_ops;
	s->base.trace = t;
	s->ct = ct;
	s->files = tio_calloc(n, sizeof(ctf_file));
	s->d.slots = tio_calloc(ct->nslots ? ct->nslots : 1, sizeof(uint64_t));
	if (!s->files || !s->d.slots) {
		ctf_stream_free(&s->base);
		return TIO_ERR_NOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		s->files[k].map = fis[k].map;
		s->files[k].first_ts = fis[k].ts;
		s->files[k].has_first_ts = fis[k].has_ts;
		memset(&fis[k].map, 0, sizeof(fis[k].map));
		if (fis[k].err && !s->pending_err) {
			s->pending_err = fis[k].err;
			fis[k].err = NULL;
		}
	}
	s->nfiles = (uint32_t)n;
	s->base.sc = tio_trace_class_find_sc(t->tc, fis[0].sc_id);
	s->base.id = fis[0].has_inst ? fis[0].inst_id : id;
	/* babeltrace2 names streams by their absolute path, symbolic links kept */
	s->base.path = tio_path_abs(fis[0].path);
	s->base.name = s->base.path ? tio_strdup(s->base.path) : NULL;
	if (!s->base.sc && !s->pending_err)
		s->pending_err = tio_asprintf("%s@0x0: packet.header.stream_id: no stream class with id %llu",
					      fis[0].path, (unsigned long long)fis[0].sc_id);
	if (!s->base.sc) {
		/* keep a stream class so the stream can report its error */
		s->base.sc = t->tc->nscs ? t->tc->scs[0] : NULL;
	}
	if (!s->base.sc) {
		free(s->base.name);
		free(s->base.path);
		ctf_stream_free(&s->base);
		return tio_err_set(TIO_ERR_FORMAT, "%s: trace has data files but no stream class", t->path);
	}
	if (s->base.sc->clock >= 0) {
		const tio_clock *c = t->tc->clocks[s->base.sc->clock];
		s->fast_clock = c->freq == 1000000000ULL && !tio_clock_ns(c, 0, &s->clock_base) &&
				s->clock_base >= 0;
	}
	if (tio_grow(&t->streams, &(size_t){t->nstreams}, t->nstreams + 1, sizeof(*t->streams))) {
		free(s->base.name);
		free(s->base.path);
		ctf_stream_free(&s->base);
		return TIO_ERR_NOMEM;
	}
	t->streams[t->nstreams++] = &s->base;
	return 0;
}

static int ctf_open(tio_trace *t, const char *path)
{
	ctf_trace *ct = tio_calloc(1, sizeof(*ct));
	if (!ct)
		return TIO_ERR_NOMEM;
	t->user = ct;
	int r = tio_ctf_meta_load(path, &ct->meta);
	if (r)
		return r;
	if (ct->meta.ctf_major != 1 && ct->meta.ctf_major != 2)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s/metadata: CTF %d metadata is not read", path,
				   ct->meta.ctf_major);
	char *mname = tio_path_join(path, "metadata");
	if (!mname)
		return TIO_ERR_NOMEM;
	if (ct->meta.ctf_major == 2)
		r = tio_ctf2_parse(ct->meta.text, ct->meta.len, mname, &t->tc);
	else
		r = tio_tsdl_parse(ct->meta.text, ct->meta.len, mname, &t->tc);
	if (!r && ct->meta.ctf_major == 2 && t->tc->nscs == 0)
		r = tio_err_set(TIO_ERR_FORMAT, "%s: no data stream class fragment in the metadata stream", mname);
	free(mname);
	if (r)
		return r;
	if ((r = compile_all(ct, t->tc)))
		return r;
	/* the packet magic, when the header starts with it: what resync() looks for */
	const tio_fc *ph = t->tc->pkt_header;
	if (ph && ph->kind == TIO_FC_STRUCT && ph->st.nmembers) {
		const tio_fc *mf = ph->st.members[0].fc;
		if (mf->role == TIO_ROLE_MAGIC && mf->kind == TIO_FC_INT && mf->i.size == 32 && !mf->i.bit_rev) {
			static const uint8_t le[4] = {0xc1, 0x1f, 0xfc, 0xc1}, be[4] = {0xc1, 0xfc, 0x1f, 0xc1};
			memcpy(ct->magic, mf->i.byte_order == TIO_BE ? be : le, 4);
			ct->has_magic = true;
		}
	}

	char **names = NULL;
	size_t n = 0;
	if ((r = list_files(path, &names, &n)))
		return r;
	file_info *fis = tio_calloc(n ? n : 1, sizeof(*fis));
	dec d = {0};
	d.slots = tio_calloc(ct->nslots ? ct->nslots : 1, sizeof(uint64_t));
	if (!fis || !d.slots) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		file_info *fi = &fis[nf];
		fi->path = names[i];
		names[i] = NULL;
		if ((r = tio_map_open(&fi->map, fi->path)))
			goto out_files;
		nf++;
		if (fi->map.size == 0) { /* empty stream files hold no packet */
			tio_map_close(&fi->map);
			free(fi->path);
			fi->path = NULL;
			nf--;
			continue;
		}
		peek_file(ct, t->tc, &d, fi);
	}
	if (nf > 1)
		qsort(fis, nf, sizeof(*fis), fi_cmp);
	/* one stream per (stream class, instance id); files without an instance id stand alone */
	uint64_t counter = 0;
	for (size_t i = 0; i < nf && !r;) {
		size_t j = i + 1;
		while (j < nf && fis[j].has_inst && fis[i].has_inst && fis[j].sc_id == fis[i].sc_id &&
		       fis[j].inst_id == fis[i].inst_id)
			j++;
		r = add_stream(t, ct, fis + i, j - i, counter++);
		i = j;
	}
out_files:
	for (size_t i = 0; i < n; i++) {
		free(fis[i].path);
		free(fis[i].err);
		tio_map_close(&fis[i].map);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(fis);
	free(d.vals);
	free(d.slots);
	return r;
}

static void ctf_free(tio_trace *t)
{
	ctf_trace *ct = t->user;
	if (!ct)
		return;
	if (t->tc) {
		for (uint32_t i = 0; i < t->tc->nscs; i++) {
			tio_stream_class *sc = t->tc->scs[i];
			ctf_sc *csc = sc->user;
			if (csc) {
				plan_free(&csc->pkt_ctx);
				plan_free(&csc->ev_header);
				plan_free(&csc->ev_common_ctx);
				free(csc->by_id);
				free(csc);
				sc->user = NULL;
			}
			for (uint32_t j = 0; j < sc->necs; j++) {
				ctf_ec *cec = sc->ecs[j]->user;
				if (cec) {
					plan_free(&cec->spec_ctx);
					plan_free(&cec->payload);
					free(cec);
					sc->ecs[j]->user = NULL;
				}
			}
		}
	}
	plan_free(&ct->pkt_header);
	tio_ctf_meta_free(&ct->meta);
	free(ct);
	t->user = NULL;
}

static int file_cmp(const void *x, const void *y)
{
	const ctf_file *a = x, *b = y;
	if (a->has_first_ts != b->has_first_ts)
		return a->has_first_ts ? -1 : 1;
	if (a->first_ts != b->first_ts)
		return a->first_ts < b->first_ts ? -1 : 1;
	return strcmp(a->map.path ? a->map.path : "", b->map.path ? b->map.path : "");
}

/* Are two stream files the same file (the same trace given twice, by two paths or the same one)? */
static bool same_file(const ctf_file *a, const ctf_file *b)
{
	struct stat x, y;
	return a->map.path && b->map.path && !stat(a->map.path, &x) && !stat(b->map.path, &y) &&
	       x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static void swap_traces(tio_trace *a, tio_trace *b)
{
	tio_trace t = *a;
	*a = *b;
	*b = t;
	for (uint32_t i = 0; i < a->nstreams; i++)
		a->streams[i]->trace = a;
	for (uint32_t i = 0; i < b->nstreams; i++)
		b->streams[i]->trace = b;
}

/*
 * babeltrace2 takes CTF traces with the same UUID for one trace (the same
 * trace given twice, chunks of a rotated LTTng session): streams with the
 * same class and id join, their files ordered by first timestamp then path.
 * The longer metadata must extend the shorter one (LTTng appends to it);
 * it describes both.
 */
static int ctf_merge(tio_trace *into, tio_trace *from)
{
	ctf_trace *a = into->user, *b = from->user;
	if (!a || !b || !into->tc || !from->tc || !into->tc->has_uuid || !from->tc->has_uuid ||
	    memcmp(into->tc->uuid, from->tc->uuid, 16))
		return 0;
	if (b->meta.len > a->meta.len) {
		if (memcmp(b->meta.text, a->meta.text, a->meta.len))
			return 0;
		swap_traces(into, from);
		a = into->user;
		b = from->user;
	} else if (memcmp(a->meta.text, b->meta.text, b->meta.len)) {
		return 0;
	}
	for (uint32_t i = 0; i < from->nstreams; i++) {
		ctf_stream *ss = (ctf_stream *)from->streams[i];
		const tio_stream_class *sc = tio_trace_class_find_sc(into->tc, ss->base.sc->id);
		if (!sc)
			return tio_err_set(TIO_ERR_FORMAT, "%s: stream class %llu of %s is not in the merged metadata",
					   into->path, (unsigned long long)ss->base.sc->id, from->path);
		ctf_stream *ds = NULL;
		for (uint32_t k = 0; k < into->nstreams && !ds; k++) {
			ctf_stream *c = (ctf_stream *)into->streams[k];
			if (c->base.sc->id == sc->id && c->base.id == ss->base.id)
				ds = c;
		}
		if (ds) {
			ctf_file *f = tio_realloc(ds->files, (ds->nfiles + ss->nfiles) * sizeof(*f));
			if (!f)
				return TIO_ERR_NOMEM;
			ds->files = f;
			/* a file already there (the trace given twice) is read once: its packets would
			   follow their own copies, which the packet signatures below do not catch */
			uint32_t had = ds->nfiles;
			for (uint32_t k = 0; k < ss->nfiles; k++) {
				bool dup = false;
				for (uint32_t j = 0; j < had && !dup; j++)
					dup = same_file(&ds->files[j], &ss->files[k]);
				if (dup) {
					tio_map_close(&ss->files[k].map);
					free(ss->files[k].idx);
				} else {
					ds->files[ds->nfiles++] = ss->files[k];
				}
			}
			ss->nfiles = 0;
			qsort(ds->files, ds->nfiles, sizeof(*f), file_cmp);
			if (!ds->pending_err) {
				ds->pending_err = ss->pending_err;
				ss->pending_err = NULL;
			}
			free(ss->base.name);
			free(ss->base.path);
			ctf_stream_free(&ss->base);
		} else {
			/* a stream of its own: decode it with the merged trace's classes */
			uint64_t *slots = tio_realloc(ss->d.slots, (a->nslots ? a->nslots : 1) * sizeof(uint64_t));
			tio_stream **v = tio_realloc(into->streams, (into->nstreams + 1) * sizeof(*v));
			if (slots)
				ss->d.slots = slots;
			if (v)
				into->streams = v;
			if (!slots || !v)
				return TIO_ERR_NOMEM;
			ss->base.sc = sc;
			ss->ct = a;
			ss->base.trace = into;
			into->streams[into->nstreams++] = &ss->base;
		}
		from->streams[i] = NULL;
	}
	from->nstreams = 0;
	return 1;
}

const tio_format_ops tio_format_ctf = {
	.merge = ctf_merge,
	.name = "ctf",
	.probe = ctf_probe,
	.open = ctf_open,
	.free = ctf_free,
	.bt2_trace_order = true,
};

/*
 * Writer of seed 000's 2008 LTTng layout, the sink "lttng0" (`traceio
 * convert --to lttng0`): any model trace to a directory of cpu_N and
 * control/NAME_N tracefiles (layout: ltt08.h, ltt08-read.c reads it back).
 *
 * Each input stream class becomes a facility, each event class an event of
 * it described by a marker format string (marker_id + marker_format events
 * in control/facilities_0, written at the end); integers of up to 64 bits
 * and strings are all a marker format can carry, anything else is refused
 * naming the event and the field.  Time: the input clock when it gives the
 * reader's ns exactly, else ns (start_freq 1 GHz).  Input of the 2008 layout
 * keeps its trace header, ids, formats and tracefiles: the same bytes again.
 *
 * Options (tio_sink_set): "output" (required), "force", "block-size" bytes,
 * "byte-order" little|big, "arch-size" 4|8, "alignment" 0|1|2|4|8,
 * "tsc-bits" 32|64.  docs/formats/ltt0x.md, "The 2008 layout: writer".
 * Every tracefile is built in one reused block buffer; nothing is allocated
 * per event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ltt/ltt08.h"
#include "sink/sink.h"

#define W8_DEFAULT_BLOCK 65536u

enum { W8_INT = 1, W8_STR, W8_TEXT };

typedef struct w8_field {
	uint8_t kind, size; /* W8_INT: size in bytes */
	bool net;
	bool is_signed;
} w8_field;

typedef struct w8_mk {
	uint16_t id; /* facility << 8 | event */
	char *name, *format;
	uint8_t sizes[5];
	w8_field *fields;
	uint32_t nfields;
} w8_mk;

typedef struct w8_ec {
	const tio_event_class *src;
	w8_mk *mk;	/* NULL until its first event */
	char *refused;	/* why it cannot be written */
	bool skip;	/* core marker_id/marker_format of a 2008 input: written again */
	bool heartbeat; /* core time_heartbeat of a 2008 input */
} w8_ec;

typedef struct w8_fac {
	char *name;
	const void *key; /* the input stream class (NULL: from a 2008 input's ids) */
	uint8_t id;
	uint32_t next_ev;
} w8_fac;

typedef struct w8_src {
	const tio_trace *t;
	w8_ec **ecs; /* [sc index][ec index] */
	bool l8;     /* the 2008 layout: tracefile names kept, core events handled */
	bool keep_ids; /* the only input, in its own time: ids and formats kept */
} w8_src;

typedef struct w8_file {
	char *name;
	tio_outfile out;
	bool opened, in_block, facilities;
	uint32_t nblocks;
	uint8_t *blk;
	uint32_t pos;
	uint64_t first, last;
	uint64_t *hb; /* facilities files: heartbeat TSCs, written after the markers */
	size_t nhb, hbcap;
} w8_file;

typedef struct w8 {
	tio_sink base;
	char *final, *outdir;
	bool force, started, published;
	/* trace header */
	bool be;
	uint8_t arch_size, alignment, heartbeat, major, minor, flight, tlt, cds;
	uint32_t arch_type, arch_variant, fwo, freq_scale, block;
	uint64_t start_freq, start_tsc, start_mono;
	uint32_t start_sec, start_nsec;
	bool be_set, arch_set, align_set, hb_set, block_set;
	/* time */
	int mode; /* 0: input cycles (2008 input), 1: one input clock, 2: ns */
	tio_clock clk;
	int64_t zero_ns;
	/* classes */
	w8_src *srcs;
	uint32_t nsrcs;
	w8_fac *facs;
	uint32_t nfacs;
	w8_mk **mks;
	uint32_t nmks;
	w8_file **files;
	uint32_t nfiles;
	const tio_stream *last_stream;
	w8_file *last_file;
	tio_buf text; /* scratch for text arrays */
	const tio_trace *first;
	uint32_t ninputs;
	uint64_t discarded, discarded_unknown, time_off, written;
} w8;

/* ---------------------------------------------------------------- options */

static int w8_set(tio_sink *s, const char *key, const char *value)
{
	w8 *w = (w8 *)s;
	if (w->started)
		return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: option %s set after the first message", key);
	/* the one option that may come without a value */
	if (!strcmp(key, "force"))
		return tio_sink_bool(key, value, &w->force);
	if (!value)
		return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: option %s needs a value", key);
	if (!strcmp(key, "output")) {
		free(w->final);
		free(w->outdir);
		size_t l = strlen(value);
		while (l > 1 && value[l - 1] == '/')
			l--;
		w->final = tio_strndup(value, l);
		w->outdir = w->final ? tio_asprintf("%s.tmp-traceio-%ld", w->final, (long)getpid()) : NULL;
		return w->outdir ? 0 : TIO_ERR_NOMEM;
	}
	if (!strcmp(key, "byte-order")) {
		if (strcmp(value, "little") && strcmp(value, "big"))
			return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: byte-order '%s' is not little or big", value);
		w->be = !strcmp(value, "big");
		w->be_set = true;
		return 0;
	}
	char *e;
	errno = 0;
	unsigned long long v = strtoull(value, &e, 10);
	bool num = !errno && *value && !*e;
	if (!strcmp(key, "arch-size")) {
		if (!num || (v != 4 && v != 8))
			return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: arch-size '%s' is not 4 or 8", value);
		w->arch_size = (uint8_t)v;
		w->arch_set = true;
		return 0;
	}
	if (!strcmp(key, "alignment")) {
		if (!num || v > 8 || (v & (v - 1)))
			return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: alignment '%s' is not 0, 1, 2, 4 or 8", value);
		w->alignment = (uint8_t)v;
		w->align_set = true;
		return 0;
	}
	if (!strcmp(key, "tsc-bits")) {
		if (!num || (v != 32 && v != 64))
			return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: tsc-bits '%s' is not 32 or 64", value);
		w->heartbeat = v == 32;
		w->hb_set = true;
		return 0;
	}
	if (!strcmp(key, "block-size")) {
		if (!num || v < L8_BLOCK_MIN || v > L8_BLOCK_MAX)
			return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: block-size '%s' is not in [%u, %u]", value, L8_BLOCK_MIN,
					   L8_BLOCK_MAX);
		w->block = (uint32_t)v;
		w->block_set = true;
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE,
			   "lttng0 writer: no option '%s' (output, force, block-size, byte-order, arch-size, alignment, tsc-bits)", key);
}

static int w8_add_trace(tio_sink *s, const tio_trace *t)
{
	w8 *w = (w8 *)s;
	if (!w->first)
		w->first = t;
	w->ninputs++;
	return 0;
}

/* ---------------------------------------------------------------- files */

static void put(bool be, uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		p[be ? n - 1 - k : k] = (uint8_t)(v >> (8 * k));
}

static int mkdirs(const char *path)
{
	char *p = tio_strdup(path);
	if (!p)
		return TIO_ERR_NOMEM;
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q)
			continue;
		char c = *q;
		*q = 0;
		if (mkdir(p, 0777) && errno != EEXIST) {
			int r = tio_err_set(TIO_ERR_IO, "%s: cannot create directory: %s", p, strerror(errno));
			free(p);
			return r;
		}
		if (!c)
			break;
		*q = c;
	}
	free(p);
	return 0;
}

static w8_file *file_get(w8 *w, const char *name)
{
	for (uint32_t i = 0; i < w->nfiles; i++)
		if (!strcmp(w->files[i]->name, name))
			return w->files[i];
	w8_file **n = tio_realloc(w->files, (w->nfiles + 1) * sizeof(*n));
	if (!n)
		return NULL;
	w->files = n;
	w8_file *f = tio_calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = tio_strdup(name);
	f->blk = tio_calloc(1, w->block);
	char *full = f->name ? tio_path_join(w->outdir, name) : NULL;
	int r = full ? 0 : TIO_ERR_NOMEM;
	if (full) {
		char *slash = strrchr(full, '/');
		*slash = 0;
		r = mkdirs(full);
		*slash = '/';
	}
	if (!f->blk || r || tio_outfile_open(&f->out, full)) {
		free(full);
		free(f->name);
		free(f->blk);
		free(f);
		return NULL;
	}
	free(full);
	f->opened = true;
	f->facilities = !strncmp(name, "control/facilities_", 19);
	w->files[w->nfiles++] = f;
	return f;
}

/* The block start/end header and the trace header, then the block to the file. */
static int block_close(w8 *w, w8_file *f)
{
	uint8_t *p = f->blk;
	bool be = w->be;
	put(be, p + L8_BEGIN_TSC, f->first, 8);
	put(be, p + L8_BEGIN_FREQ, w->start_freq, 8);
	put(be, p + L8_END_TSC, f->last, 8);
	put(be, p + L8_END_FREQ, w->start_freq, 8);
	put(be, p + L8_LOST_SIZE, w->block - f->pos, 4);
	put(be, p + L8_BUF_SIZE, w->block, 4);
	put(be, p + L8_MAGIC_OFF, L8_MAGIC, 4);
	put(be, p + L8_ARCH_TYPE, w->arch_type, 4);
	put(be, p + L8_ARCH_VARIANT, w->arch_variant, 4);
	put(be, p + L8_FLOAT_WORD_ORDER, w->fwo, 4);
	p[L8_ARCH_SIZE] = w->arch_size;
	p[L8_MAJOR] = w->major;
	p[L8_MINOR] = w->minor;
	p[L8_FLIGHT_RECORDER] = w->flight;
	p[L8_HAS_HEARTBEAT] = w->heartbeat;
	p[L8_ALIGNMENT] = w->alignment;
	p[L8_TSC_LSB_TRUNCATE] = w->tlt;
	p[L8_TSCBITS] = 0;
	p[L8_COMPACT_DATA_SHIFT] = w->cds;
	put(be, p + L8_FREQ_SCALE, w->freq_scale, 4);
	put(be, p + L8_START_FREQ, w->start_freq, 8);
	put(be, p + L8_START_TSC, w->start_tsc, 8);
	put(be, p + L8_START_MONOTONIC, w->start_mono, 8);
	put(be, p + L8_START_SEC, w->start_sec, 4);
	put(be, p + L8_START_NSEC, w->start_nsec, 4);
	f->in_block = false;
	f->nblocks++;
	if (fwrite(p, 1, w->block, f->out.f) != w->block)
		return tio_err_set(TIO_ERR_IO, "%s: cannot write: %s", f->out.path, strerror(errno));
	memset(p, 0, w->block);
	return 0;
}

/* A value reader over the members of up to three scope structures. */
typedef struct w8_cursor {
	const tio_val *vals[3];
	uint32_t at[3], end[3];
	uint32_t k;
} w8_cursor;

static const tio_val *cursor_next(w8_cursor *c, const tio_val **base)
{
	while (c->k < 3) {
		if (c->vals[c->k] && c->at[c->k] < c->end[c->k]) {
			const tio_val *v = &c->vals[c->k][c->at[c->k]];
			*base = c->vals[c->k];
			c->at[c->k] = v->end;
			return v;
		}
		c->k++;
	}
	return NULL;
}

/*
 * Encode the event at block offset f->pos: 1 when it fits, 0 when it does
 * not (nothing changed), < 0 on error.
 */
static int encode(w8 *w, w8_file *f, const w8_mk *mk, uint64_t tsc, w8_cursor *cur, const char *what)
{
	uint8_t *b = f->blk;
	uint32_t cap = w->block, tsz = w->heartbeat ? 4 : 8;
	uint64_t pos = f->pos + l8_pad(f->pos, tsz, w->alignment);
	uint64_t hdr = pos;
	pos += tsz + 4;
	uint64_t data = pos + l8_pad(pos, w->arch_size, w->alignment);
	if (data > cap)
		return 0;
	uint64_t at = data;
	for (uint32_t i = 0; i < mk->nfields; i++) {
		const w8_field *fd = &mk->fields[i];
		const tio_val *base = NULL;
		const tio_val *v = cursor_next(cur, &base);
		if (!v)
			return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: %s: fewer values than fields", what);
		if (fd->kind == W8_INT) {
			at += l8_pad(at, fd->size, mk->sizes[4]);
			if (at + fd->size > cap)
				return 0;
			put(fd->net || w->be, b + at, v->v.u, fd->size);
			at += fd->size;
			continue;
		}
		const char *s = NULL;
		size_t len = 0;
		if (v->fc->kind == TIO_FC_ARRAY || v->fc->kind == TIO_FC_SEQUENCE) {
			if (v->v.s.p && v->n == 0) {
				s = v->v.s.p;
				len = strnlen(s, v->v.s.len);
			} else {
				tio_buf_reset(&w->text);
				for (uint32_t j = (uint32_t)(v - base) + 1; j < v->end; j++) {
					if (!base[j].v.u)
						break;
					if (tio_buf_addc(&w->text, (char)base[j].v.u))
						return TIO_ERR_NOMEM;
				}
				s = w->text.p ? w->text.p : "";
				len = w->text.len;
			}
		} else {
			s = v->v.s.p ? v->v.s.p : "";
			len = v->v.s.p ? strnlen(s, v->v.s.len) : 0;
		}
		if (at + len + 1 > cap)
			return 0;
		memcpy(b + at, s, len);
		b[at + len] = 0;
		at += len + 1;
	}
	if (at - data > 0xffff)
		return tio_err_set(TIO_ERR_LIMIT, "lttng0 writer: %s: %llu bytes of data, more than the event header's 16-bit event_size",
				   what, (unsigned long long)(at - data));
	put(w->be, b + hdr, tsc, tsz);
	b[hdr + tsz] = (uint8_t)(mk->id >> 8);
	b[hdr + tsz + 1] = (uint8_t)mk->id;
	put(w->be, b + hdr + tsz + 2, at - data, 2);
	f->pos = (uint32_t)at;
	return 1;
}

/* Append one event to tracefile f. */
static int emit(w8 *w, w8_file *f, const w8_mk *mk, uint64_t tsc, const w8_cursor *cur0, const char *what)
{
	for (int tries = 0; tries < 2; tries++) {
		if (f->in_block && w->heartbeat && (tsc < f->last || tsc - f->last >= (1ull << 32))) {
			/* a 32-bit TSC extends from the previous one: a gap this long starts a block */
			int r = block_close(w, f);
			if (r)
				return r;
		}
		if (!f->in_block) {
			f->in_block = true;
			f->pos = L8_HDR;
			f->first = f->last = tsc;
		}
		w8_cursor cur = *cur0;
		int r = encode(w, f, mk, tsc, &cur, what);
		if (r == 0) /* the part that was encoded is padding again */
			memset(f->blk + f->pos, 0, w->block - f->pos);
		if (r < 0)
			return r;
		if (r == 1) {
			f->last = tsc;
			w->written++;
			return 0;
		}
		if (f->pos == L8_HDR)
			break;
		r = block_close(w, f);
		if (r)
			return r;
	}
	return tio_err_set(TIO_ERR_LIMIT, "lttng0 writer: %s does not fit in a %u-byte block (block-size)", what, w->block);
}

/* ---------------------------------------------------------------- markers */

static const tio_kv *ec_attr(const tio_event_class *ec, const char *key)
{
	for (uint32_t i = 0; i < ec->nattrs; i++)
		if (!strcmp(ec->attrs[i].key, key))
			return &ec->attrs[i];
	return NULL;
}

static int64_t ec_int(const tio_event_class *ec, const char *key, int64_t dflt)
{
	const tio_kv *kv = ec_attr(ec, key);
	return kv && kv->is_int ? kv->ival : dflt;
}

/* Parse `format` as the reader will, giving the fields to encode. */
static int mk_fields(w8_mk *m, char **why)
{
	ltt0x_marker p = {0};
	p.format = m->format;
	p.int_size = m->sizes[0];
	p.long_size = m->sizes[1];
	p.pointer_size = m->sizes[2];
	p.size_t_size = m->sizes[3];
	p.alignment = m->sizes[4];
	int r = ltt0x_marker_parse(&p);
	if (!r && p.bad) {
		*why = tio_asprintf("its format cannot be read back: %s", p.bad);
		r = *why ? 0 : TIO_ERR_NOMEM;
	} else if (!r && p.nfields) {
		m->fields = tio_calloc(p.nfields, sizeof(*m->fields));
		if (!m->fields)
			r = TIO_ERR_NOMEM;
		for (uint32_t i = 0; !r && i < p.nfields; i++) {
			const ltt0x_field *f = &p.fields[i];
			m->fields[i].kind = f->type == LTT0X_STRING ? W8_STR : W8_INT;
			m->fields[i].size = f->size;
			m->fields[i].net = f->net_order;
			m->fields[i].is_signed = f->type == LTT0X_SIGNED;
		}
		m->nfields = r ? 0 : p.nfields;
	}
	p.format = NULL;
	ltt0x_marker_clear_fields(&p);
	return r;
}

static bool scalar_text(const tio_fc *fc)
{
	return (fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE) && fc->a.text && fc->a.elem &&
	       (fc->a.elem->kind == TIO_FC_INT || fc->a.elem->kind == TIO_FC_ENUM) && fc->a.elem->i.size == 8;
}

static const char *kind_name(tio_fc_kind k)
{
	static const char *const n[] = {"integer", "enumeration", "boolean", "bit map", "floating point number",
					"variable-length integer", "string", "static-length string", "dynamic-length string",
					"static-length BLOB", "dynamic-length BLOB", "structure", "static-length array",
					"dynamic-length array", "variant", "optional"};
	return (unsigned)k < TIO_ARRAY_LEN(n) ? n[k] : "field";
}

/* A marker format for the fields of an event class (context scopes, then the payload), or why there is none. */
static int make_format(const tio_event_class *ec, tio_buf *b, char **why)
{
	const tio_fc *scopes[3] = {ec->sc ? ec->sc->ev_common_ctx : NULL, ec->spec_ctx, ec->payload};
	uint32_t n = 0;
	for (int s = 0; s < 3; s++) {
		const tio_fc *st = scopes[s];
		if (!st)
			continue;
		if (st->kind != TIO_FC_STRUCT) {
			*why = tio_asprintf("a scope that is a %s, not a structure", kind_name(st->kind));
			return *why ? 0 : TIO_ERR_NOMEM;
		}
		for (uint32_t i = 0; i < st->st.nmembers; i++) {
			const tio_fc *fc = st->st.members[i].fc;
			const char *name = st->st.members[i].name ? st->st.members[i].name : "";
			if (n++ && tio_buf_addc(b, ' '))
				return TIO_ERR_NOMEM;
			/* the name is the word before the conversion: no space, '%' or '#' */
			if (!*name && tio_buf_addf(b, "field_%u", n))
				return TIO_ERR_NOMEM;
			for (const char *p = name; *p; p++)
				if (tio_buf_addc(b, *p == ' ' || *p == '%' || *p == '#' ? '_' : *p))
					return TIO_ERR_NOMEM;
			int r = 0;
			switch (fc->kind) {
			case TIO_FC_INT:
			case TIO_FC_ENUM:
			case TIO_FC_BOOL:
			case TIO_FC_BITMAP: {
				if (fc->i.size > 64) {
					*why = tio_asprintf("field '%s': a %u-bit integer (64 bits at most)", name, fc->i.size);
					return *why ? 0 : TIO_ERR_NOMEM;
				}
				unsigned sz = fc->i.size <= 8 ? 1 : fc->i.size <= 16 ? 2 : fc->i.size <= 32 ? 4 : 8;
				bool sg = fc->kind != TIO_FC_BOOL && fc->kind != TIO_FC_BITMAP && fc->i.is_signed;
				char conv = fc->i.encoding && fc->i.size == 8 ? 'c'
					    : fc->i.base == 16			 ? 'x'
					    : fc->i.base == 8			 ? 'o'
					    : sg				 ? 'd'
										 : 'u';
				r = tio_buf_addf(b, " #%s%u%c%%%s%c", fc->i.byte_order == TIO_BE ? "n" : "", sz, sg ? 'd' : 'u',
						 conv == 'c' ? "" : "ll", conv);
				break;
			}
			case TIO_FC_VARINT:
				r = tio_buf_addf(b, " #8%c%%ll%c", fc->vi.is_signed ? 'd' : 'u',
						 fc->vi.base == 16 ? 'x' : fc->vi.is_signed ? 'd' : 'u');
				break;
			case TIO_FC_STRING:
			case TIO_FC_SSTRING:
			case TIO_FC_DSTRING:
				if (fc->s.encoding == TIO_ENC_UTF16 || fc->s.encoding == TIO_ENC_UTF32) {
					*why = tio_asprintf("field '%s': a UTF-%d string (marker strings are bytes)", name,
							    fc->s.encoding == TIO_ENC_UTF16 ? 16 : 32);
					return *why ? 0 : TIO_ERR_NOMEM;
				}
				r = tio_buf_addl(b, " %s");
				break;
			default:
				if (scalar_text(fc)) {
					r = tio_buf_addl(b, " %s");
					break;
				}
				*why = tio_asprintf("field '%s': a %s (a marker format has integers of up to 64 bits and strings only)",
						    name, kind_name(fc->kind));
				return *why ? 0 : TIO_ERR_NOMEM;
			}
			if (r)
				return TIO_ERR_NOMEM;
		}
	}
	return 0;
}

static int fac_new(w8 *w, const char *name, const void *key, uint8_t id, w8_fac **out)
{
	w8_fac *n = tio_realloc(w->facs, (w->nfacs + 1) * sizeof(*n));
	if (!n)
		return TIO_ERR_NOMEM;
	w->facs = n;
	w8_fac *f = &n[w->nfacs];
	memset(f, 0, sizeof(*f));
	f->name = tio_strdup(name);
	if (!f->name)
		return TIO_ERR_NOMEM;
	f->key = key;
	f->id = id;
	w->nfacs++;
	*out = f;
	return 0;
}

static int mk_add(w8 *w, uint16_t id, const char *name, char *format, const uint8_t sizes[5], w8_mk **out, char **why)
{
	w8_mk **n = tio_realloc(w->mks, (w->nmks + 1) * sizeof(*n));
	if (!n) {
		free(format);
		return TIO_ERR_NOMEM;
	}
	w->mks = n;
	w8_mk *m = tio_calloc(1, sizeof(*m));
	if (!m) {
		free(format);
		return TIO_ERR_NOMEM;
	}
	w->mks[w->nmks++] = m;
	m->id = id;
	m->format = format;
	m->name = tio_strdup(name);
	memcpy(m->sizes, sizes, 5);
	if (!m->name)
		return TIO_ERR_NOMEM;
	*out = m;
	return mk_fields(m, why);
}

/* The facility and marker of an event class with fields of its own (not of a 2008 input). */
static int assign(w8 *w, w8_ec *e, bool lttng0)
{
	const tio_event_class *ec = e->src;
	const tio_stream_class *sc = ec->sc;
	/* the format: kept from an LTTng 0.x input when it describes the payload alone */
	const tio_kv *fmt = lttng0 ? ec_attr(ec, "format") : NULL;
	bool keep = fmt && !fmt->is_int && (!sc || !sc->ev_common_ctx) && !ec->spec_ctx;
	char *format = NULL;
	if (keep) {
		format = tio_strdup(fmt->sval);
		if (!format)
			return TIO_ERR_NOMEM;
	} else {
		tio_buf b = {0};
		int r = make_format(ec, &b, &e->refused);
		if (r || e->refused) {
			tio_buf_free(&b);
			return r;
		}
		format = tio_strdup(tio_buf_cstr(&b));
		tio_buf_free(&b);
		if (!format)
			return TIO_ERR_NOMEM;
	}
	uint8_t sizes[5] = {4, w->arch_size, w->arch_size, w->arch_size, w->alignment};
	if (keep) {
		sizes[0] = (uint8_t)ec_int(ec, "int_size", 4);
		sizes[1] = (uint8_t)ec_int(ec, "long_size", w->arch_size);
		sizes[2] = (uint8_t)ec_int(ec, "pointer_size", w->arch_size);
		sizes[3] = (uint8_t)ec_int(ec, "size_t_size", w->arch_size);
		sizes[4] = (uint8_t)ec_int(ec, "alignment", w->alignment);
	}
	/* the facility of the stream class with room for one more event */
	w8_fac *fac = NULL;
	for (uint32_t i = 0; i < w->nfacs; i++)
		if (w->facs[i].key == sc && w->facs[i].next_ev < 256)
			fac = &w->facs[i];
	if (!fac) {
		if (w->nfacs >= 255) {
			free(format);
			e->refused = tio_asprintf("more than 255 facilities (stream classes) are needed");
			return e->refused ? 0 : TIO_ERR_NOMEM;
		}
		char base[200], name[220];
		snprintf(base, sizeof(base), "%s", sc && sc->name && *sc->name ? sc->name : "");
		if (!*base)
			snprintf(base, sizeof(base), "stream_class_%" PRIu64, sc ? sc->id : 0);
		snprintf(name, sizeof(name), "%s", base);
		for (unsigned k = 2;; k++) {
			bool taken = !strcmp(name, "core");
			for (uint32_t i = 0; i < w->nfacs && !taken; i++)
				taken = !strcmp(w->facs[i].name, name);
			if (!taken)
				break;
			snprintf(name, sizeof(name), "%s_%u", base, k);
		}
		uint8_t id = 1;
		for (uint32_t i = 0; i < w->nfacs; i++)
			if (w->facs[i].id >= id)
				id = (uint8_t)(w->facs[i].id + 1);
		int r = fac_new(w, name, sc, id, &fac);
		if (r) {
			free(format);
			return r;
		}
	}
	uint16_t id = (uint16_t)(fac->id << 8 | fac->next_ev++);
	return mk_add(w, id, ec->name ? ec->name : "", format, sizes, &e->mk, &e->refused);
}

/* ---------------------------------------------------------------- sources */

static bool is_l8(const tio_trace *t) { return t->fmt && !strcmp(t->fmt->name, "lttng0-2008"); }

static int64_t env_int(const tio_trace *t, const char *key, int64_t dflt)
{
	const tio_kv *kv = tio_trace_class_env(t->tc, key);
	return kv && kv->is_int ? kv->ival : dflt;
}

/* A 2008 input: every described marker of it keeps its ids and format. */
static int register_l8(w8 *w, w8_src *s)
{
	const tio_trace_class *tc = s->t->tc;
	for (uint32_t i = 0; i < tc->nscs; i++)
		for (uint32_t k = 0; k < tc->scs[i]->necs; k++) {
			const tio_event_class *ec = tc->scs[i]->ecs[k];
			w8_ec *e = &s->ecs[i][k];
			uint16_t id = (uint16_t)ec->id;
			if (id >> 8 == 0) {
				e->skip = id == L8_CORE_MARKER_ID || id == L8_CORE_MARKER_FORMAT;
				e->heartbeat = id == L8_CORE_HEARTBEAT;
				if (e->heartbeat || e->skip)
					continue;
			}
			for (uint32_t m = 0; m < w->nmks && !e->mk; m++)
				if (w->mks[m]->id == id)
					e->mk = w->mks[m];
			if (e->mk)
				continue;
			const tio_kv *fac = ec_attr(ec, "facility"), *fmt = ec_attr(ec, "format");
			bool have = false;
			for (uint32_t f = 0; f < w->nfacs; f++)
				have |= w->facs[f].id == id >> 8;
			w8_fac *nf;
			int r = have ? 0 : fac_new(w, fac && !fac->is_int ? fac->sval : "?", NULL, (uint8_t)(id >> 8), &nf);
			if (r)
				return r;
			char *format = fmt && !fmt->is_int ? tio_strdup(fmt->sval) : tio_strdup("");
			if (!format)
				return TIO_ERR_NOMEM;
			uint8_t sizes[5] = {(uint8_t)ec_int(ec, "int_size", 4), (uint8_t)ec_int(ec, "long_size", w->arch_size),
					    (uint8_t)ec_int(ec, "pointer_size", w->arch_size),
					    (uint8_t)ec_int(ec, "size_t_size", w->arch_size),
					    (uint8_t)ec_int(ec, "alignment", w->alignment)};
			r = mk_add(w, id, ec->name ? ec->name : "", format, sizes, &e->mk, &e->refused);
			if (r)
				return r;
		}
	return 0;
}

static int src_get(w8 *w, const tio_trace *t, w8_src **out)
{
	for (uint32_t i = 0; i < w->nsrcs; i++)
		if (w->srcs[i].t == t) {
			*out = &w->srcs[i];
			return 0;
		}
	w8_src *n = tio_realloc(w->srcs, (w->nsrcs + 1) * sizeof(*n));
	if (!n)
		return TIO_ERR_NOMEM;
	w->srcs = n;
	w8_src *s = &n[w->nsrcs++];
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->l8 = is_l8(t);
	s->keep_ids = s->l8 && w->mode == 0;
	const tio_trace_class *tc = t->tc;
	s->ecs = tio_calloc(tc->nscs ? tc->nscs : 1, sizeof(*s->ecs));
	if (!s->ecs)
		return TIO_ERR_NOMEM;
	for (uint32_t i = 0; i < tc->nscs; i++) {
		s->ecs[i] = tio_calloc(tc->scs[i]->necs ? tc->scs[i]->necs : 1, sizeof(**s->ecs));
		if (!s->ecs[i])
			return TIO_ERR_NOMEM;
		for (uint32_t k = 0; k < tc->scs[i]->necs; k++)
			s->ecs[i][k].src = tc->scs[i]->ecs[k];
	}
	*out = s;
	if (s->l8)
		for (uint32_t i = 0; i < tc->nscs; i++)
			for (uint32_t k = 0; k < tc->scs[i]->necs; k++) {
				uint64_t id = tc->scs[i]->ecs[k]->id;
				s->ecs[i][k].skip = id == L8_CORE_MARKER_ID || id == L8_CORE_MARKER_FORMAT;
				s->ecs[i][k].heartbeat = id == L8_CORE_HEARTBEAT;
			}
	return s->keep_ids ? register_l8(w, s) : 0;
}

static w8_ec *ec_of(const w8_src *s, const tio_event_class *ec)
{
	const tio_trace_class *tc = s->t->tc;
	for (uint32_t i = 0; i < tc->nscs; i++) {
		const tio_stream_class *sc = tc->scs[i];
		if (sc != ec->sc)
			continue;
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
				return &s->ecs[i][k];
	}
	return NULL;
}

/* The output tracefile of an input stream. */
static w8_file *file_of(w8 *w, const w8_src *s, const tio_stream *st)
{
	if (st == w->last_stream)
		return w->last_file;
	char name[300];
	const char *scn = st->sc && st->sc->name ? st->sc->name : "";
	uint64_t n = st->id < 65536 ? st->id : st->index;
	if (s->l8 && st->name && (!strncmp(st->name, "cpu_", 4) || !strncmp(st->name, "control/", 8)))
		snprintf(name, sizeof(name), "%s", st->name);
	else if (!strcmp(scn, "interrupts") || !strcmp(scn, "modules") || !strcmp(scn, "network") || !strcmp(scn, "processes"))
		snprintf(name, sizeof(name), "control/%s_%" PRIu64, scn, n);
	else
		snprintf(name, sizeof(name), "cpu_%" PRIu64, n);
	w8_file *f = file_get(w, name);
	if (f) {
		w->last_stream = st;
		w->last_file = f;
	}
	return f;
}

/* ---------------------------------------------------------------- time and start */

/* The trace header's parameters and the time mode, from the first event (m may be NULL). */
static void start(w8 *w, const tio_msg *m)
{
	const tio_trace *t = m ? m->stream->trace : w->first;
	bool l8 = t && is_l8(t) && w->ninputs <= 1;
	w->major = L8_MAJOR_VERSION;
	w->minor = L8_MINOR_VERSION;
	w->freq_scale = 1;
	if (l8) {
		w->mode = 0;
		if (!w->be_set)
			w->be = t->tc->byte_order == TIO_BE;
		if (!w->arch_set)
			w->arch_size = (uint8_t)env_int(t, "arch_size", 8);
		if (!w->align_set)
			w->alignment = (uint8_t)env_int(t, "alignment", 0);
		if (!w->hb_set)
			w->heartbeat = (uint8_t)env_int(t, "has_heartbeat", 0);
		if (!w->block_set)
			w->block = (uint32_t)env_int(t, "block_size", W8_DEFAULT_BLOCK);
		w->major = (uint8_t)env_int(t, "ltt_major_version", L8_MAJOR_VERSION);
		w->minor = (uint8_t)env_int(t, "ltt_minor_version", L8_MINOR_VERSION);
		w->arch_type = (uint32_t)env_int(t, "arch_type", 0);
		w->arch_variant = (uint32_t)env_int(t, "arch_variant", 0);
		w->fwo = (uint32_t)env_int(t, "float_word_order", 0);
		w->flight = (uint8_t)env_int(t, "flight_recorder", 0);
		w->tlt = (uint8_t)env_int(t, "tsc_lsb_truncate", 0);
		w->cds = (uint8_t)env_int(t, "compact_data_shift", 0);
		w->freq_scale = (uint32_t)env_int(t, "freq_scale", 1);
		w->start_freq = (uint64_t)env_int(t, "start_freq", 1000000000);
		w->start_tsc = (uint64_t)env_int(t, "start_tsc", 0);
		w->start_mono = (uint64_t)env_int(t, "start_monotonic", 0);
		w->start_sec = (uint32_t)env_int(t, "start_time_sec", 0);
		w->start_nsec = (uint32_t)env_int(t, "start_time_nsec", 0);
		if (w->block < L8_BLOCK_MIN || w->block > L8_BLOCK_MAX)
			w->block = W8_DEFAULT_BLOCK;
		return;
	}
	if (!w->be_set)
		w->be = t && t->tc->byte_order == TIO_BE;
	if (!w->arch_set)
		w->arch_size = 8;
	if (!w->block_set)
		w->block = W8_DEFAULT_BLOCK;
	/* one input clock that gives the reader's times: its cycles are the TSC */
	const tio_stream_class *sc = m ? m->stream->sc : NULL;
	const tio_trace_class *tc = t ? t->tc : NULL;
	const tio_clock *c = sc && sc->clock >= 0 && (uint32_t)sc->clock < tc->nclocks ? tc->clocks[sc->clock] : NULL;
	int64_t ns = 0, zero = 0;
	if (c && c->freq && m->has_ts && !tio_clock_ns(c, m->cycles, &ns) && ns == m->ns && !tio_clock_ns(c, 0, &zero) &&
	    zero >= 0 && zero / 1000000000 <= UINT32_MAX) {
		w->mode = 1;
		w->clk = *c;
		w->zero_ns = zero;
	} else {
		w->mode = 2; /* ns: LTTng 0.x inputs (LTTV's rounding), clock-less ones */
		w->clk.freq = 1000000000;
		w->zero_ns = 0;
	}
	w->start_freq = w->clk.freq;
	w->start_tsc = 0;
	w->start_sec = (uint32_t)(w->zero_ns / 1000000000);
	w->start_nsec = (uint32_t)(w->zero_ns % 1000000000);
}

static uint64_t out_tsc(w8 *w, const tio_msg *m, const w8_file *f)
{
	if (!m->has_ts)
		return f->in_block ? f->last : w->start_tsc;
	if (w->mode == 0)
		return m->cycles;
	const tio_stream_class *sc = m->stream->sc;
	const tio_trace_class *tc = m->stream->trace->tc;
	const tio_clock *c = sc && sc->clock >= 0 && (uint32_t)sc->clock < tc->nclocks ? tc->clocks[sc->clock] : NULL;
	if (w->mode == 1 && c && c->freq == w->clk.freq && c->offset_s == w->clk.offset_s && c->offset == w->clk.offset)
		return m->cycles;
	/* through ns: the smallest TSC whose time is m->ns */
	__int128 d = (__int128)m->ns - w->zero_ns;
	if (d < 0) {
		w->time_off++;
		return 0;
	}
	__int128 t = (d * w->clk.freq + 999999999) / 1000000000;
	if ((t * 1000000000) / w->clk.freq != d)
		w->time_off++;
	return t > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

static int begin(w8 *w, const tio_msg *m)
{
	if (!w->outdir)
		return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: no output directory (option output)");
	struct stat st;
	if (!w->force && !lstat(w->final, &st))
		return tio_err_set(TIO_ERR_IO, "%s: already exists (force replaces it)", w->final);
	tio_rm_tree(w->outdir);
	int r = mkdirs(w->outdir);
	if (r)
		return r;
	start(w, m);
	w->started = true;
	return 0;
}

/* ---------------------------------------------------------------- messages */

static int w8_consume(tio_sink *sk, const tio_msg *m)
{
	w8 *w = (w8 *)sk;
	if (m->type == TIO_MSG_DISCARDED_EVENTS || m->type == TIO_MSG_DISCARDED_PACKETS) {
		if (m->count)
			w->discarded += m->count;
		else
			w->discarded_unknown++;
		return 0;
	}
	if (m->type != TIO_MSG_EVENT || !m->ec)
		return 0;
	int r;
	if (!w->started && (r = begin(w, m)))
		return r;
	w8_src *s;
	r = src_get(w, m->stream->trace, &s);
	if (r)
		return r;
	w8_ec *e = ec_of(s, m->ec);
	if (!e)
		return tio_err_set(TIO_ERR_USAGE, "lttng0 writer: event %s of no known class", m->ec->name);
	if (e->skip)
		return 0;
	if (!e->mk && !e->refused && !e->heartbeat) {
		r = assign(w, e, !strcmp(m->stream->trace->fmt->name, "lttng0") || s->l8);
		if (r)
			return r;
	}
	if (e->refused)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "lttng0 writer: event %s: %s", m->ec->name, e->refused);
	w8_file *f = file_of(w, s, m->stream);
	if (!f)
		return tio_err_push(TIO_ERR_IO, "lttng0 writer: %s", w->outdir);
	uint64_t tsc = out_tsc(w, m, f);
	if (f->facilities) {
		if (!e->heartbeat)
			return tio_err_set(TIO_ERR_UNSUPPORTED, "lttng0 writer: event %s of %s: a facilities tracefile holds core events only",
					   m->ec->name, f->name);
		if (tio_grow(&f->hb, &f->hbcap, f->nhb + 1, sizeof(*f->hb)))
			return TIO_ERR_NOMEM;
		f->hb[f->nhb++] = tsc;
		return 0;
	}
	static const w8_mk hb_mk = {.id = L8_CORE_HEARTBEAT};
	w8_cursor cur = {0};
	const tio_val *roots[3] = {m->scope[TIO_SCOPE_EV_COMMON_CTX], m->scope[TIO_SCOPE_EV_SPEC_CTX], m->scope[TIO_SCOPE_PAYLOAD]};
	for (int k = 0; k < 3; k++)
		if (roots[k]) {
			cur.vals[k] = m->vals;
			cur.at[k] = (uint32_t)(roots[k] - m->vals) + 1;
			cur.end[k] = roots[k]->end;
		}
	char what[300];
	snprintf(what, sizeof(what), "event %s at offset %" PRIu64 " of %s", m->ec->name, m->offset,
		 m->stream->name ? m->stream->name : "?");
	return emit(w, f, e->heartbeat ? &hb_mk : e->mk, tsc, &cur, what);
}

static int mk_cmp(const void *a, const void *b)
{
	const w8_mk *x = *(w8_mk *const *)a, *y = *(w8_mk *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* control/facilities_N: the markers (in _0), then the heartbeats each one had. */
static int write_facilities(w8 *w)
{
	w8_file *f0 = file_get(w, "control/facilities_0");
	if (!f0)
		return tio_err_push(TIO_ERR_IO, "lttng0 writer: %s", w->outdir);
	w8_mk core[2] = {{.id = L8_CORE_MARKER_ID, .format = (char *)l8_core_formats[0]},
			 {.id = L8_CORE_MARKER_FORMAT, .format = (char *)l8_core_formats[1]}};
	char *why = NULL;
	for (int i = 0; i < 2; i++) {
		uint8_t sz[5] = {4, w->arch_size, w->arch_size, w->arch_size, w->alignment};
		memcpy(core[i].sizes, sz, 5);
		int r = mk_fields(&core[i], &why);
		if (r || why) {
			free(core[0].fields);
			free(core[1].fields);
			free(why);
			return r ? r : tio_err_set(TIO_ERR_USAGE, "lttng0 writer: core marker format");
		}
	}
	if (w->nmks > 1)
		qsort(w->mks, w->nmks, sizeof(*w->mks), mk_cmp);
	int r = 0;
	tio_fc sfc = {.kind = TIO_FC_STRING};
	tio_fc ifc = {.kind = TIO_FC_INT};
	for (uint32_t i = 0; !r && i < w->nmks; i++) {
		const w8_mk *m = w->mks[i];
		const char *fac = "?";
		for (uint32_t k = 0; k < w->nfacs; k++)
			if (w->facs[k].id == m->id >> 8)
				fac = w->facs[k].name;
		tio_val v[10];
		memset(v, 0, sizeof(v));
		const char *strs[3] = {fac, m->name, m->format};
		/* marker_id: facility, facility_id, name, event_id, 5 sizes */
		uint64_t ints[9] = {0, m->id >> 8, 0, m->id & 0xff, m->sizes[0], m->sizes[1], m->sizes[2], m->sizes[3], m->sizes[4]};
		for (int k = 0; k < 9; k++) {
			v[1 + k].end = 2 + k;
			v[1 + k].fc = (k == 0 || k == 2) ? &sfc : &ifc;
			if (k == 0 || k == 2) {
				v[1 + k].v.s.p = strs[k / 2];
				v[1 + k].v.s.len = strlen(strs[k / 2]);
			} else {
				v[1 + k].v.u = ints[k];
			}
		}
		w8_cursor cur = {.vals = {v}, .at = {1}, .end = {10}};
		r = emit(w, f0, &core[0], w->start_tsc, &cur, "marker_id");
		for (int k = 0; k < 3; k++) {
			v[1 + k].end = 2 + k;
			v[1 + k].fc = &sfc;
			v[1 + k].v.s.p = strs[k];
			v[1 + k].v.s.len = strlen(strs[k]);
		}
		w8_cursor cur2 = {.vals = {v}, .at = {1}, .end = {4}};
		r = r ? r : emit(w, f0, &core[1], w->start_tsc, &cur2, "marker_format");
	}
	free(core[0].fields);
	free(core[1].fields);
	static const w8_mk hb_mk = {.id = L8_CORE_HEARTBEAT};
	for (uint32_t i = 0; !r && i < w->nfiles; i++) {
		w8_file *f = w->files[i];
		for (size_t k = 0; !r && k < f->nhb; k++) {
			w8_cursor cur = {0};
			r = emit(w, f, &hb_mk, f->hb[k], &cur, "time_heartbeat");
		}
	}
	if (!r && !f0->in_block && !f0->nblocks) {
		/* an empty trace still has a block to carry the trace header */
		f0->in_block = true;
		f0->pos = L8_HDR;
		f0->first = f0->last = w->start_tsc;
	}
	return r;
}

static int publish(w8 *w)
{
	struct stat st;
	if (!lstat(w->final, &st)) {
		if (!w->force)
			return tio_err_set(TIO_ERR_IO, "%s: already exists (force replaces it)", w->final);
		tio_rm_tree(w->final);
	}
	if (rename(w->outdir, w->final))
		return tio_err_set(TIO_ERR_IO, "%s: cannot rename %s to it: %s", w->final, w->outdir, strerror(errno));
	return 0;
}

static int w8_finish(tio_sink *sk)
{
	w8 *w = (w8 *)sk;
	int r;
	if (!w->started && (r = begin(w, NULL)))
		return r;
	/* facilities files go first in the directory listing but are filled last */
	r = write_facilities(w);
	for (uint32_t i = 0; !r && i < w->nfiles; i++) {
		w8_file *f = w->files[i];
		if (f->in_block)
			r = block_close(w, f);
		if (!r) {
			r = tio_outfile_commit(&f->out);
			f->opened = false;
		}
	}
	r = r ? r : publish(w);
	w->published = !r;
	if (!r && w->time_off && sk->err)
		fprintf(sk->err, "traceio: warning: lttng0 writer: the times of %" PRIu64 " events are not exact in the output clock (%" PRIu64 " Hz)\n",
			w->time_off, w->start_freq);
	if (!r && (w->discarded || w->discarded_unknown) && sk->err)
		fprintf(sk->err,
			"traceio: warning: lttng0 writer: %" PRIu64 " discarded events%s and their time ranges are not written (the 2008 layout has no lost-event count)\n",
			w->discarded, w->discarded_unknown ? " (and an unknown number)" : "");
	return r;
}

static void w8_fini(tio_sink *sk)
{
	w8 *w = (w8 *)sk;
	for (uint32_t i = 0; i < w->nfiles; i++) {
		w8_file *f = w->files[i];
		if (f->opened)
			tio_outfile_abort(&f->out);
		free(f->name);
		free(f->blk);
		free(f->hb);
		free(f);
	}
	free(w->files);
	for (uint32_t i = 0; i < w->nsrcs; i++) {
		const tio_trace_class *tc = w->srcs[i].t->tc;
		for (uint32_t k = 0; w->srcs[i].ecs && k < tc->nscs; k++) {
			if (!w->srcs[i].ecs[k])
				continue;
			for (uint32_t e = 0; e < tc->scs[k]->necs; e++)
				free(w->srcs[i].ecs[k][e].refused);
			free(w->srcs[i].ecs[k]);
		}
		free(w->srcs[i].ecs);
	}
	free(w->srcs);
	for (uint32_t i = 0; i < w->nmks; i++) {
		free(w->mks[i]->name);
		free(w->mks[i]->format);
		free(w->mks[i]->fields);
		free(w->mks[i]);
	}
	free(w->mks);
	for (uint32_t i = 0; i < w->nfacs; i++)
		free(w->facs[i].name);
	free(w->facs);
	tio_buf_free(&w->text);
	if (w->started && !w->published && w->outdir)
		tio_rm_tree(w->outdir);
	free(w->outdir);
	free(w->final);
}

const tio_sink_ops tio_sink_lttng0_ops = {
	.name = "lttng0",
	.size = sizeof(w8),
	.set = w8_set,
	.add_trace = w8_add_trace,
	.consume = w8_consume,
	.finish = w8_finish,
	.fini = w8_fini,
};

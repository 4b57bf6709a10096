/*
 * New LTT format writer (seed 001), the sink "ltt": any model trace to a
 * trace directory (eventdefs/NAME.xml, info/system.xml, info/bookmarks.xml,
 * control/facilities, cpu/N and the control files of a new LTT source).
 *
 * Options (tio_sink_set): "output" the directory to write (required),
 * "byte-order" little|big, "arch" LP32|ILP32|LP64|ILP64, "block-size" bytes.
 * Defaults come from the first input trace: its system.xml values when it
 * is a new LTT trace, else its byte order, LP64 and 65536-byte blocks.
 *
 * Every tracefile is written block by block from one reused buffer; an
 * event is encoded into one reused scratch buffer.  Facilities and the
 * control/facilities file are written at the end.  docs/formats/ltt.md says
 * what the format cannot express and what the writer does about it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include <zlib.h>

#include "ltt/lttnew.h"
#include "sink/sink.h"

#define LW_DEFAULT_BLOCK 65536u

typedef struct lw_file {
	char *name; /* "cpu/0", "control/processes" */
	tio_outfile out;
	bool opened;
	uint8_t *blk;
	uint32_t pos;
	bool in_block;
	uint32_t block_id;
	uint64_t base, last;
} lw_file;

typedef struct lw_ec {
	const tio_event_class *src;
	uint32_t id;
	bool skip;	  /* builtin event of a new LTT source: the writer makes its own */
	char *refused;	  /* why it cannot be written, NULL when it can */
	uint8_t scopes[4];
	uint8_t nscopes;
	lw_file *file;	  /* cache: file of the last event of this class */
	const tio_stream *file_of;
	/* the facility version it came from (ec_facility), fac NULL when unknown */
	char *fac, *desc;
	uint32_t fac_sum, fac_base;
} lw_ec;

typedef struct lw_sc {
	const tio_stream_class *src;
	lw_ec *ecs; /* same order as src->ecs */
} lw_sc;

typedef struct lw_src {
	const tio_trace *t;
	lw_sc *scs; /* same order as t->tc->scs */
	bool ltt;   /* a new LTT trace (event classes carry their facility) */
	bool copy;  /* another format's copy of one: every event class kept its facility (ec_facility) */
} lw_src;

typedef struct lw_fac {
	char *name;
	uint32_t base, nevents, checksum;
	char *text;
	uint64_t load_cycles;
} lw_fac;

typedef struct lw {
	tio_sink base;
	char *final;  /* the output directory */
	char *outdir; /* where it is written: a temporary directory next to it */
	bool force;
	bool be, be_set;
	lt_arch arch;
	char arch_word[8];
	bool arch_set;
	uint32_t block;
	bool block_set;
	bool started, published;
	tio_clock clk; /* the output clock */
	bool clk_ns;   /* inputs had different clocks: time is written as ns */
	const tio_trace *first;
	lw_src *srcs;
	uint32_t nsrcs;
	lw_fac *facs;
	uint32_t nfacs;
	lw_file **files;
	uint32_t nfiles;
	tio_buf ev;
	uint64_t discarded, discarded_unknown, written;
	uint64_t time_off;    /* events whose time cannot be written exactly */
	uint64_t last_cycles; /* for events without a time */
	lw_file *last_file;
	const tio_stream *last_stream;
} lw;

/* ---------------------------------------------------------------- bytes */

static void put(bool be, uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		p[be ? n - 1 - k : k] = (uint8_t)(v >> (8 * k));
}

static int buf_put(tio_buf *b, bool be, uint64_t v, unsigned n)
{
	if (tio_buf_reserve(b, n))
		return TIO_ERR_NOMEM;
	put(be, (uint8_t *)b->p + b->len, v, n);
	b->len += n;
	return 0;
}

/* ---------------------------------------------------------------- options */

static int lw_set(tio_sink *s, const char *key, const char *value)
{
	lw *w = (lw *)s;
	if (w->started)
		return tio_err_set(TIO_ERR_USAGE, "ltt writer: option %s set after the first message", key);
	/* the one option that may come without a value */
	if (!strcmp(key, "force"))
		return tio_sink_bool(key, value, &w->force);
	if (!value)
		return tio_err_set(TIO_ERR_USAGE, "ltt writer: option %s needs a value", key);
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
			return tio_err_set(TIO_ERR_USAGE, "ltt writer: byte-order '%s' is not little or big", value);
		w->be = !strcmp(value, "big");
		w->be_set = true;
		return 0;
	}
	if (!strcmp(key, "arch")) {
		if (!lt_arch_parse(value, &w->arch))
			return tio_err_set(TIO_ERR_USAGE, "ltt writer: arch '%s' is not LP32, ILP32, LP64 or ILP64", value);
		snprintf(w->arch_word, sizeof(w->arch_word), "%s", value);
		w->arch_set = true;
		return 0;
	}
	if (!strcmp(key, "block-size")) {
		char *e;
		errno = 0;
		unsigned long long v = strtoull(value, &e, 10);
		if (errno || *e || v < LT_BLOCK_MIN || v > LT_BLOCK_MAX)
			return tio_err_set(TIO_ERR_USAGE, "ltt writer: block-size '%s' is not in [%u, %u]", value,
					   LT_BLOCK_MIN, LT_BLOCK_MAX);
		w->block = (uint32_t)v;
		w->block_set = true;
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE, "ltt writer: no option '%s' (output, force, byte-order, arch, block-size)", key);
}

/* ---------------------------------------------------------------- files and blocks */

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

/* Move the finished temporary directory to the output path. */
static int publish(lw *w)
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

/* Open dir/name for writing (atomically replaced when committed). */
static int open_out(lw *w, const char *name, tio_outfile *o)
{
	char *full = tio_path_join(w->outdir, name);
	if (!full)
		return TIO_ERR_NOMEM;
	char *slash = strrchr(full, '/');
	int r = 0;
	if (slash) {
		*slash = 0;
		r = mkdirs(full);
		*slash = '/';
	}
	r = r ? r : tio_outfile_open(o, full);
	free(full);
	return r;
}

static lw_file *file_get(lw *w, const char *name)
{
	for (uint32_t i = 0; i < w->nfiles; i++)
		if (!strcmp(w->files[i]->name, name))
			return w->files[i];
	lw_file **n = tio_realloc(w->files, (w->nfiles + 1) * sizeof(*n));
	if (!n)
		return NULL;
	w->files = n;
	lw_file *f = tio_calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = tio_strdup(name);
	f->blk = tio_malloc(w->block);
	if (!f->name || !f->blk || open_out(w, name, &f->out)) {
		free(f->name);
		free(f->blk);
		free(f);
		return NULL;
	}
	f->opened = true;
	w->files[w->nfiles++] = f;
	return f;
}

static void timespec_of(const lw *w, uint64_t cyc, uint32_t *s, uint32_t *ns)
{
	int64_t t = 0;
	tio_clock_ns(&w->clk, cyc, &t);
	if (t < 0)
		t = 0;
	*s = (uint32_t)((uint64_t)t / 1000000000u);
	*ns = (uint32_t)((uint64_t)t % 1000000000u);
}

/* A block_start, block_end or time_heartbeat event at f->pos. */
static void put_frame(lw *w, lw_file *f, uint16_t id, uint32_t delta, uint64_t cyc)
{
	uint8_t *p = f->blk + f->pos;
	uint32_t s, ns;
	timespec_of(w, cyc, &s, &ns);
	put(w->be, p, id, 2);
	put(w->be, p + 2, delta, 4);
	put(w->be, p + LT_EV_HDR, s, 4);
	put(w->be, p + LT_EV_HDR + 4, ns, 4);
	put(w->be, p + LT_EV_HDR + 8, cyc, 8);
	f->pos += LT_EV_HDR + LT_TIMESTAMP;
	if (id != LT_ID_HEARTBEAT) {
		put(w->be, p + LT_EV_HDR + LT_TIMESTAMP, f->block_id, 4);
		f->pos += 4;
	}
}

static void block_open(lw *w, lw_file *f, uint64_t cyc)
{
	memset(f->blk, 0, w->block);
	f->pos = 0;
	put_frame(w, f, LT_ID_BLOCK_START, 0, cyc);
	f->base = f->last = cyc;
	f->in_block = true;
}

static int block_close(lw *w, lw_file *f)
{
	uint32_t at = f->pos;
	put_frame(w, f, LT_ID_BLOCK_END, (uint32_t)(f->last - f->base), f->last);
	put(w->be, f->blk + w->block - 4, at, 4);
	f->in_block = false;
	f->block_id++;
	if (fwrite(f->blk, 1, w->block, f->out.f) != w->block)
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->out.path, strerror(errno));
	return 0;
}

/* Append the event in w->ev (header with a zero delta, then its payload) at `cyc`. */
static int file_event(lw *w, lw_file *f, uint64_t cyc, const char *what)
{
	uint32_t len = (uint32_t)w->ev.len;
	if ((uint64_t)w->ev.len + 2 * LT_FRAME + 4 > w->block)
		return tio_err_set(TIO_ERR_LIMIT, "ltt writer: %s: %zu bytes do not fit a %u-byte block (block-size)",
				   what, w->ev.len, w->block);
	uint32_t hb = 0;
	if (f->in_block) {
		if (cyc < f->base || cyc - f->base > UINT32_MAX)
			hb = LT_EV_HDR + LT_TIMESTAMP;
		if ((uint64_t)f->pos + hb + len + LT_FRAME + 4 > w->block) {
			int r = block_close(w, f);
			if (r)
				return r;
		}
	}
	if (!f->in_block) {
		block_open(w, f, cyc);
	} else if (hb) {
		put_frame(w, f, LT_ID_HEARTBEAT, (uint32_t)(cyc - f->base), cyc);
		f->base = cyc;
	}
	uint8_t *p = f->blk + f->pos;
	memcpy(p, w->ev.p, len);
	put(w->be, p + 2, cyc - f->base, 4);
	f->pos += len;
	f->last = cyc;
	return 0;
}

/* ---------------------------------------------------------------- values */

static int enc(lw *w, const tio_val *vals, uint32_t i, bool drop_roles);

/*
 * A union after CTF 1.8 (LT_SHAPE_UNION_TAGGED: tag, value__tag, value):
 * the tag, then the chosen option; value__tag is the CTF writer's own.  The
 * tag must select the option the value holds, or the union would read back
 * as another option.
 */
static int enc_tagged_union(lw *w, const tio_val *vals, uint32_t i)
{
	const tio_val *tag = &vals[i + 1], *var = &vals[vals[tag->end].end];
	const tio_fc *vfc = var->fc;
	if (!var->n || tag->v.u != var->opt)
		return tio_err_set(TIO_ERR_UNSUPPORTED,
				   "a union whose tag %" PRIu64 " does not select its option %u (%s)", tag->v.u, var->opt,
				   var->n && vfc->v.options[var->opt].name ? vfc->v.options[var->opt].name : "none");
	int r = buf_put(&w->ev, w->be, tag->v.u, tag->fc->i.size / 8);
	return r ? r : enc(w, vals, (uint32_t)(var - vals), false);
}

static int enc(lw *w, const tio_val *vals, uint32_t i, bool drop_roles)
{
	const tio_val *v = &vals[i];
	const tio_fc *fc = v->fc;
	tio_buf *b = &w->ev;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
		return buf_put(b, w->be, v->v.u, fc->i.size / 8);
	case TIO_FC_FLOAT:
		if (fc->f.mant_dig == 24) {
			float x = (float)v->v.d;
			uint32_t u;
			memcpy(&u, &x, 4);
			return buf_put(b, w->be, u, 4);
		} else {
			uint64_t u;
			memcpy(&u, &v->v.d, 8);
			return buf_put(b, w->be, u, 8);
		}
	case TIO_FC_STRING: {
		size_t n = v->v.s.p ? strnlen(v->v.s.p, v->v.s.len) : 0;
		if (tio_buf_add(b, v->v.s.p, n))
			return TIO_ERR_NOMEM;
		return tio_buf_addc(b, 0);
	}
	case TIO_FC_SSTRING:
	case TIO_FC_SBLOB: {
		/* an array of N chars or bytes: the bytes, zero padded */
		uint64_t len = fc->s.length, n = v->v.s.p ? v->v.s.len : 0;
		n = n < len ? n : len;
		if ((n && tio_buf_add(b, v->v.s.p, n)) || tio_buf_reserve(b, len - n))
			return TIO_ERR_NOMEM;
		memset((char *)b->p + b->len, 0, len - n);
		b->len += len - n;
		return 0;
	}
	case TIO_FC_DBLOB: {
		/* a sequence of bytes with a 4-byte length (lt_type_from_fc) */
		uint64_t n = v->v.s.p ? v->v.s.len : 0;
		if (n > UINT32_MAX)
			return tio_err_set(TIO_ERR_LIMIT, "a BLOB of %" PRIu64 " bytes (sequence lengths have 32 bits)", n);
		int r = buf_put(b, w->be, n, 4);
		return r ? r : n && tio_buf_add(b, v->v.s.p, n) ? TIO_ERR_NOMEM : 0;
	}
	case TIO_FC_DSTRING: /* the elements of a text sequence (lt_fc_shape): its length came before */
		return v->v.s.len && tio_buf_add(b, v->v.s.p, v->v.s.len) ? TIO_ERR_NOMEM : 0;
	case TIO_FC_STRUCT: {
		uint32_t j = i + 1;
		const tio_fc *last = v->n ? fc->st.members[v->n - 1].fc : NULL;
		if (v->n == 3 && last->kind == TIO_FC_VARIANT && lt_fc_shape(fc) == LT_SHAPE_UNION_TAGGED)
			return enc_tagged_union(w, vals, i);
		/* a text sequence after CTF 2: the string's bytes are the sequence's elements */
		if (v->n == 2 && last->kind == TIO_FC_DSTRING && vals[j].v.u != vals[vals[j].end].v.s.len)
			return tio_err_set(TIO_ERR_FORMAT, "a text sequence of length %" PRIu64 " holds %" PRIu64
					   " bytes", vals[j].v.u, vals[vals[j].end].v.s.len);
		for (uint32_t k = 0; k < v->n; k++) {
			if (!(drop_roles && fc->st.members[k].fc->role != TIO_ROLE_NONE)) {
				int r = enc(w, vals, j, false);
				if (r)
					return r;
			}
			j = vals[j].end;
		}
		return 0;
	}
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE: {
		if (v->n == 0 && v->v.s.p) /* bytes kept as a span (text, packed bytes) */
			return tio_buf_add(b, v->v.s.p, v->v.s.len);
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < v->n; k++) {
			int r = enc(w, vals, j, false);
			if (r)
				return r;
			j = vals[j].end;
		}
		return 0;
	}
	case TIO_FC_VARIANT:
		return v->n ? enc(w, vals, i + 1, false) : 0;
	default:
		return tio_err_set(TIO_ERR_UNSUPPORTED, "field class kind %d", fc->kind);
	}
}

/* ---------------------------------------------------------------- classes to facilities */

static const tio_kv *ec_attr(const tio_event_class *ec, const char *key)
{
	for (uint32_t i = 0; i < ec->nattrs; i++)
		if (!strcmp(ec->attrs[i].key, key))
			return &ec->attrs[i];
	return NULL;
}

/* A struct with the role-free members of `st` (borrowed member classes). */
static tio_fc *role_free(const tio_fc *st)
{
	tio_fc *fc = tio_fc_new(TIO_FC_STRUCT);
	if (!fc)
		return NULL;
	fc->st.members = tio_calloc(st->st.nmembers ? st->st.nmembers : 1, sizeof(tio_member));
	if (!fc->st.members) {
		free(fc);
		return NULL;
	}
	for (uint32_t k = 0; k < st->st.nmembers; k++)
		if (st->st.members[k].fc->role == TIO_ROLE_NONE)
			fc->st.members[fc->st.nmembers++] = st->st.members[k];
	return fc;
}

static void role_free_drop(tio_fc *fc)
{
	if (fc) {
		free(fc->st.members);
		free(fc);
	}
}

static bool pkt_has_fields(const tio_stream_class *sc)
{
	if (!sc->pkt_ctx || sc->pkt_ctx->kind != TIO_FC_STRUCT)
		return false;
	for (uint32_t k = 0; k < sc->pkt_ctx->st.nmembers; k++)
		if (sc->pkt_ctx->st.members[k].fc->role == TIO_ROLE_NONE)
			return true;
	return false;
}

/* The new LTT type of an event class (its scopes wrapped when it has contexts). */
static int ec_type(const tio_event_class *ec, lw_ec *le, lt_type **out)
{
	const tio_stream_class *sc = ec->sc;
	const tio_fc *parts[4] = {0};
	static const char *const names[4] = {LT_WRAP_PKT, LT_WRAP_COMMON, LT_WRAP_SPEC, LT_WRAP_FIELDS};
	static const uint8_t scopes[4] = {TIO_SCOPE_PKT_CTX, TIO_SCOPE_EV_COMMON_CTX, TIO_SCOPE_EV_SPEC_CTX,
					  TIO_SCOPE_PAYLOAD};
	tio_fc *pkt = NULL;
	if (pkt_has_fields(sc) && !(pkt = role_free(sc->pkt_ctx)))
		return TIO_ERR_NOMEM;
	parts[0] = pkt;
	parts[1] = sc->ev_common_ctx && sc->ev_common_ctx->kind == TIO_FC_STRUCT ? sc->ev_common_ctx : NULL;
	parts[2] = ec->spec_ctx && ec->spec_ctx->kind == TIO_FC_STRUCT ? ec->spec_ctx : NULL;
	parts[3] = ec->payload;
	int r = 0;
	char path[300];
	lt_type *t = NULL;
	if ((sc->ev_common_ctx && !parts[1]) || (ec->spec_ctx && !parts[2])) {
		r = tio_err_set(TIO_ERR_UNSUPPORTED, "event %s: a context that is not a structure", ec->name);
		goto out;
	}
	if (!parts[0] && !parts[1] && !parts[2]) {
		le->nscopes = 1;
		le->scopes[0] = TIO_SCOPE_PAYLOAD;
		snprintf(path, sizeof(path), "event %s: event.fields", ec->name ? ec->name : "");
		if (ec->payload)
			r = lt_type_from_fc(ec->payload, path, &t);
		else if (!(t = tio_calloc(1, sizeof(*t))))
			r = TIO_ERR_NOMEM;
		else
			t->kind = LT_STRUCT;
		goto out;
	}
	t = tio_calloc(1, sizeof(*t));
	if (!t || !(t->fields = tio_calloc(4, sizeof(lt_field)))) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	t->kind = LT_STRUCT;
	le->nscopes = 0;
	for (int k = 0; k < 4 && !r; k++) {
		if (!parts[k] && k < 3)
			continue;
		lt_field *f = &t->fields[t->nfields++];
		le->scopes[le->nscopes++] = scopes[k];
		f->name = tio_strdup(names[k]);
		snprintf(path, sizeof(path), "event %s: %s", ec->name ? ec->name : "", names[k]);
		if (!f->name)
			r = TIO_ERR_NOMEM;
		else if (parts[k])
			r = lt_type_from_fc(parts[k], path, &f->t);
		else if (!(f->t = tio_calloc(1, sizeof(lt_type))))
			r = TIO_ERR_NOMEM;
		else
			f->t->kind = LT_STRUCT;
	}
out:
	role_free_drop(pkt);
	if (r) {
		lt_type_free(t);
		return r;
	}
	*out = t;
	return 0;
}

/* Is [base, base+n) free of every facility's ids? */
static bool range_free(const lw *w, uint64_t base, uint64_t n)
{
	if (base < LT_NBUILTIN || base + n > 65536)
		return false;
	for (uint32_t i = 0; i < w->nfacs; i++)
		if (base < (uint64_t)w->facs[i].base + w->facs[i].nevents && w->facs[i].base < base + n)
			return false;
	return true;
}

static uint32_t next_base(const lw *w)
{
	uint32_t b = LT_NBUILTIN;
	for (uint32_t i = 0; i < w->nfacs; i++)
		if (w->facs[i].base + w->facs[i].nevents > b)
			b = w->facs[i].base + w->facs[i].nevents;
	return b;
}

static bool fac_name_used(const lw *w, const char *name)
{
	for (uint32_t i = 0; i < w->nfacs; i++)
		if (!strcmp(w->facs[i].name, name))
			return true;
	return false;
}

/* Add a facility; its name must be unique unless it is a version of a new LTT source's. */
static int fac_add(lw *w, const lt_facility *f, const char *text, uint32_t base, uint64_t cyc)
{
	lw_fac *n = tio_realloc(w->facs, (w->nfacs + 1) * sizeof(*n));
	if (!n)
		return TIO_ERR_NOMEM;
	w->facs = n;
	lw_fac *lf = &n[w->nfacs];
	memset(lf, 0, sizeof(*lf));
	lf->name = tio_strdup(f->name);
	lf->text = tio_strdup(text);
	lf->base = base;
	lf->nevents = f->nevents;
	lf->checksum = (uint32_t)crc32(0L, (const Bytef *)text, (uInt)strlen(text));
	lf->load_cycles = cyc;
	if (!lf->name || !lf->text) {
		free(lf->name);
		free(lf->text);
		return TIO_ERR_NOMEM;
	}
	w->nfacs++;
	return 0;
}

/* A facility name from a stream class: letters, digits, _ . - only, unique. */
static void fac_name(const lw *w, const tio_stream_class *sc, char *out, size_t n)
{
	char base[200];
	if (sc->name && *sc->name)
		snprintf(base, sizeof(base), "%s", sc->name);
	else
		snprintf(base, sizeof(base), "stream_class_%" PRIu64, sc->id);
	for (char *p = base; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '-' || *p == '.'))
			*p = '_';
	if (!strcmp(base, "builtin"))
		snprintf(base, sizeof(base), "builtin_");
	snprintf(out, n, "%s", base);
	for (int k = 2; fac_name_used(w, out); k++)
		snprintf(out, n, "%s_%d", base, k);
}

/* Two event classes of one loaded facility version: the same name, checksum and base code. */
static bool same_facility(const lw_ec *a, const lw_ec *b)
{
	return b->fac && !strcmp(a->fac, b->fac) && a->fac_sum == b->fac_sum && a->fac_base == b->fac_base;
}

/*
 * The facility version an event class came from: the new LTT reader's
 * attributes ltt_facility, ltt_facility_checksum, ltt_facility_base and
 * description, as a new LTT trace has them, as a CTF 1.8 copy keeps them
 * (event attributes) or as a CTF 2 copy keeps them (the event record
 * class's `traceio` attributes, in the model's "attributes" JSON text).
 * le->fac stays NULL when they are not all there.
 */
static int ec_facility(const tio_event_class *ec, lw_ec *le)
{
	const tio_kv *fn = ec_attr(ec, "ltt_facility"), *fs = ec_attr(ec, "ltt_facility_checksum"),
		     *fb = ec_attr(ec, "ltt_facility_base"), *d = ec_attr(ec, "description");
	const char *name = fn && !fn->is_int ? fn->sval : NULL, *desc = d && !d->is_int ? d->sval : NULL;
	int64_t sum = fs && fs->is_int ? fs->ival : -1, base = fb && fb->is_int ? fb->ival : -1;
	const tio_kv *ja = ec_attr(ec, "attributes");
	json_object *root = NULL, *t = NULL, *x;
	if (!name && ja && !ja->is_int && ja->sval && (root = json_tokener_parse(ja->sval)) &&
	    json_object_object_get_ex(root, "traceio", &t) && json_object_is_type(t, json_type_object)) {
		if (json_object_object_get_ex(t, "ltt_facility", &x) && json_object_is_type(x, json_type_string))
			name = json_object_get_string(x);
		if (json_object_object_get_ex(t, "ltt_facility_checksum", &x) && json_object_is_type(x, json_type_int))
			sum = json_object_get_int64(x);
		if (json_object_object_get_ex(t, "ltt_facility_base", &x) && json_object_is_type(x, json_type_int))
			base = json_object_get_int64(x);
		if (json_object_object_get_ex(t, "description", &x) && json_object_is_type(x, json_type_string))
			desc = json_object_get_string(x);
	}
	int r = 0;
	if (name && sum >= 0 && sum <= UINT32_MAX && base >= 0 && base <= 65535) {
		le->fac = tio_strdup(name);
		le->desc = desc ? tio_strdup(desc) : NULL;
		le->fac_sum = (uint32_t)sum;
		le->fac_base = (uint32_t)base;
		if (!le->fac || (desc && !le->desc))
			r = TIO_ERR_NOMEM;
	}
	json_object_put(root);
	return r;
}

/*
 * The facilities of a new LTT source's stream class: event classes grouped
 * by the facility version they came from; the text is the source's when
 * the writer's arch reads it the same way, ids are kept when they are free.
 */
static int register_ltt_sc(lw *w, lw_src *s, lw_sc *ls, uint64_t cyc)
{
	const tio_stream_class *sc = ls->src;
	const tio_trace_class *tc = s->t->tc;
	const tio_kv *arch = tio_trace_class_env(tc, "arch_size");
	bool same_arch = arch && !arch->is_int && arch->sval && !strcmp(arch->sval, w->arch_word);
	for (uint32_t i = 0; i < sc->necs; i++) {
		lw_ec *le = &ls->ecs[i];
		if (le->skip || le->refused || le->id != UINT32_MAX)
			continue;
		char key[300];
		snprintf(key, sizeof(key), "ltt_facility %s %08x", le->fac, le->fac_sum);
		const tio_kv *txt = same_arch ? tio_trace_class_table(tc, key) : NULL;
		lt_facility *f = NULL;
		int r = 0;
		if (txt) {
			lx_node *root = NULL;
			r = lx_parse(txt->sval, strlen(txt->sval), key, &root);
			if (!r && root->nkids)
				r = lt_facility_from_xml(root->kids[0], key, &f);
			lx_free(root);
			if (r || !f || f->checksum != le->fac_sum) {
				lt_facility_free(f);
				f = NULL;
				tio_err_clear();
				r = 0;
			}
		}
		uint32_t base = le->fac_base;
		if (f) {
			/* the source's facility as it was: every event of it */
			if (!range_free(w, base, f->nevents))
				base = next_base(w);
			tio_buf b = {0};
			r = lt_facility_text(f, &b);
			r = r ? r : fac_add(w, f, tio_buf_cstr(&b), base, cyc);
			tio_buf_free(&b);
			for (uint32_t k = i; !r && k < sc->necs; k++) {
				const tio_event_class *e2 = sc->ecs[k];
				const lw_ec *l2 = &ls->ecs[k];
				if (!same_facility(le, l2))
					continue;
				/* nscopes 0: the scopes are written as the new LTT reader laid them out */
				ls->ecs[k].id = base + (uint32_t)(e2->id - (uint64_t)le->fac_base);
				ls->ecs[k].nscopes = 0;
			}
			lt_facility_free(f);
			if (r)
				return r;
			continue;
		}
		/* rebuilt from the model: the events of this facility version in id order */
		lt_facility nf = {0};
		char name[256];
		snprintf(name, sizeof(name), "%s", le->fac);
		nf.name = name;
		lt_event *evs = tio_calloc(sc->necs, sizeof(*evs));
		uint32_t *idx = tio_calloc(sc->necs, sizeof(*idx));
		if (!evs || !idx) {
			free(evs);
			free(idx);
			return TIO_ERR_NOMEM;
		}
		for (uint32_t k = i; !r && k < sc->necs; k++) {
			const tio_event_class *e2 = sc->ecs[k];
			if (!same_facility(le, &ls->ecs[k]) || ls->ecs[k].refused || ls->ecs[k].skip)
				continue;
			lt_type *t;
			r = ec_type(e2, &ls->ecs[k], &t);
			if (r == TIO_ERR_UNSUPPORTED) {
				ls->ecs[k].refused = tio_strdup(tio_error_message());
				tio_err_clear();
				r = ls->ecs[k].refused ? 0 : TIO_ERR_NOMEM;
				continue;
			}
			if (r)
				break;
			evs[nf.nevents].name = e2->name;
			evs[nf.nevents].desc = ls->ecs[k].desc;
			evs[nf.nevents].t = t;
			idx[nf.nevents++] = k;
		}
		nf.events = evs;
		if (!range_free(w, base, nf.nevents))
			base = next_base(w);
		tio_buf b = {0};
		r = r ? r : lt_facility_text(&nf, &b);
		r = r ? r : fac_add(w, &nf, tio_buf_cstr(&b), base, cyc);
		tio_buf_free(&b);
		for (uint32_t k = 0; k < nf.nevents; k++) {
			lt_type_free(evs[k].t);
			if (!r)
				ls->ecs[idx[k]].id = base + k;
		}
		free(evs);
		free(idx);
		if (r)
			return r;
	}
	return 0;
}

/* One facility per stream class of another format, events in id order. */
static int register_sc(lw *w, lw_sc *ls, uint64_t cyc)
{
	const tio_stream_class *sc = ls->src;
	lt_facility nf = {0};
	char name[256];
	fac_name(w, sc, name, sizeof(name));
	nf.name = name;
	lt_event *evs = tio_calloc(sc->necs ? sc->necs : 1, sizeof(*evs));
	uint32_t *idx = tio_calloc(sc->necs ? sc->necs : 1, sizeof(*idx));
	int r = evs && idx ? 0 : TIO_ERR_NOMEM;
	for (uint32_t k = 0; !r && k < sc->necs; k++) {
		lt_type *t;
		r = ec_type(sc->ecs[k], &ls->ecs[k], &t);
		if (r == TIO_ERR_UNSUPPORTED) {
			ls->ecs[k].refused = tio_strdup(tio_error_message());
			tio_err_clear();
			r = ls->ecs[k].refused ? 0 : TIO_ERR_NOMEM;
			continue;
		}
		if (r)
			break;
		evs[nf.nevents].name = sc->ecs[k]->name ? sc->ecs[k]->name : "";
		evs[nf.nevents].t = t;
		idx[nf.nevents++] = k;
	}
	nf.events = evs;
	uint32_t base = next_base(w);
	if (!r && base + nf.nevents > 65536)
		r = tio_err_set(TIO_ERR_LIMIT, "ltt writer: more than 65536 event types (16-bit ids)");
	tio_buf b = {0};
	if (!r && nf.nevents)
		r = lt_facility_text(&nf, &b);
	if (!r && nf.nevents)
		r = fac_add(w, &nf, tio_buf_cstr(&b), base, cyc);
	tio_buf_free(&b);
	for (uint32_t k = 0; k < nf.nevents; k++) {
		lt_type_free(evs[k].t);
		if (!r)
			ls->ecs[idx[k]].id = base + k;
	}
	free(evs);
	free(idx);
	return r;
}

static const char *env_str(const tio_trace_class *tc, const char *key)
{
	const tio_kv *kv = tio_trace_class_env(tc, key);
	return kv && !kv->is_int ? kv->sval : NULL;
}

/* The writer's parameters, from the options or the first trace. */
static void start(lw *w, const tio_msg *m)
{
	const tio_trace *t = m->stream->trace;
	const tio_trace_class *tc = t->tc;
	w->first = t;
	bool ltt = !strcmp(t->fmt->name, "ltt");
	if (!w->be_set) {
		const char *e = ltt ? env_str(tc, "endian") : NULL;
		w->be = e ? !strcmp(e, "big") : tc->byte_order == TIO_BE;
	}
	if (!w->arch_set) {
		const char *a = env_str(tc, "arch_size");
		if (!a || !lt_arch_parse(a, &w->arch))
			a = "LP64";
		lt_arch_parse(a, &w->arch);
		snprintf(w->arch_word, sizeof(w->arch_word), "%s", a);
	}
	w->arch.be = w->be;
	if (!w->block_set) {
		const tio_kv *b = tio_trace_class_env(tc, "ltt_block_size");
		w->block = b && b->is_int && b->ival >= LT_BLOCK_MIN && b->ival <= LT_BLOCK_MAX ? (uint32_t)b->ival
												 : LW_DEFAULT_BLOCK;
	}
	const tio_stream_class *sc = m->stream->sc;
	const tio_clock *c = sc && sc->clock >= 0 && (uint32_t)sc->clock < tc->nclocks ? tc->clocks[sc->clock] : NULL;
	int64_t ns = 0;
	if (c && c->freq && m->has_ts && !tio_clock_ns(c, m->cycles, &ns) && ns == m->ns) {
		w->clk = *c;
		w->clk.user = NULL;
	} else {
		/* no clock, or one that does not give the reader's own times
		 * (LTTng 0.x: LTTV's rounding): time is written in ns */
		w->clk.freq = 1000000000;
		w->clk.origin_unix = c && c->origin_unix;
		w->clk.name = c ? c->name : NULL;
		w->clk_ns = true;
	}
	w->clk.description = NULL;
	if (!w->clk.name)
		w->clk.name = "cycles";
}

static lw_src *src_of(lw *w, const tio_trace *t)
{
	for (uint32_t i = 0; i < w->nsrcs; i++)
		if (w->srcs[i].t == t)
			return &w->srcs[i];
	return NULL;
}

/* First event of a trace: every event class gets its id (or the reason it has none). */
static int register_trace(lw *w, const tio_trace *t, uint64_t cyc, lw_src **out)
{
	lw_src *n = tio_realloc(w->srcs, (w->nsrcs + 1) * sizeof(*n));
	if (!n)
		return TIO_ERR_NOMEM;
	w->srcs = n;
	lw_src *s = &n[w->nsrcs++];
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->ltt = !strcmp(t->fmt->name, "ltt");
	const tio_trace_class *tc = t->tc;
	s->scs = tio_calloc(tc->nscs ? tc->nscs : 1, sizeof(*s->scs));
	if (!s->scs)
		return TIO_ERR_NOMEM;
	int r = 0;
	for (uint32_t i = 0; !r && i < tc->nscs; i++) {
		lw_sc *ls = &s->scs[i];
		ls->src = tc->scs[i];
		ls->ecs = tio_calloc(ls->src->necs ? ls->src->necs : 1, sizeof(*ls->ecs));
		if (!ls->ecs)
			return TIO_ERR_NOMEM;
		/* every event class with its facility: a new LTT trace, or a copy of one */
		bool all_ltt = ls->src->necs > 0;
		for (uint32_t k = 0; !r && k < ls->src->necs; k++) {
			const tio_event_class *ec = ls->src->ecs[k];
			lw_ec *le = &ls->ecs[k];
			le->src = ec;
			le->id = UINT32_MAX;
			r = ec_facility(ec, le);
			all_ltt &= le->fac != NULL;
			if (le->fac && !strcmp(le->fac, "builtin")) {
				le->skip = s->ltt; /* the writer makes its own */
				all_ltt &= s->ltt;
			}
		}
		if (r)
			return r;
		s->copy |= all_ltt && !s->ltt;
		r = all_ltt ? register_ltt_sc(w, s, ls, cyc) : register_sc(w, ls, cyc);
	}
	*out = s;
	return r;
}

static lw_ec *ec_of(lw_src *s, const tio_msg *m)
{
	const tio_event_class *ec = m->ec;
	const tio_stream_class *sc = ec->sc;
	const tio_trace_class *tc = s->t->tc;
	for (uint32_t i = 0; i < tc->nscs; i++) {
		if (tc->scs[i] != sc)
			continue;
		/* sc->ecs is sorted by id */
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
				return &s->scs[i].ecs[k];
	}
	return NULL;
}

/* A file name of letters, digits, '_', '-' and '.', not "." or "..". */
static bool plain_name(const char *n)
{
	if (!*n || !strcmp(n, ".") || !strcmp(n, ".."))
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') || *n == '_' ||
		      *n == '-' || *n == '.'))
			return false;
	return true;
}

/* The output tracefile of an input stream. */
static lw_file *file_of(lw *w, const lw_src *s, const tio_stream *st)
{
	if (st == w->last_stream)
		return w->last_file;
	char name[300];
	const char *base = st->name ? strrchr(st->name, '/') : NULL;
	base = base ? base + 1 : st->name;
	if (s->ltt && st->name && (!strncmp(st->name, "cpu/", 4) || !strncmp(st->name, "control/", 8)) &&
	    !strchr(strchr(st->name, '/') + 1, '/') && strcmp(st->name, "control/facilities"))
		snprintf(name, sizeof(name), "%s", st->name);
	else if (s->copy && st->id >> 32 && base && plain_name(base) && strcmp(base, "facilities"))
		/* a copy's control file: the new LTT reader numbers them from 2^32, the copy kept its name */
		snprintf(name, sizeof(name), "control/%s", base);
	else
		snprintf(name, sizeof(name), "cpu/%" PRIu64, st->id < 65536 ? st->id : (uint64_t)st->index);
	lw_file *f = file_get(w, name);
	if (f) {
		w->last_stream = st;
		w->last_file = f;
	}
	return f;
}

static uint64_t out_cycles(lw *w, const tio_msg *m)
{
	const tio_stream_class *sc = m->stream->sc;
	const tio_trace_class *tc = m->stream->trace->tc;
	const tio_clock *c = sc && sc->clock >= 0 && (uint32_t)sc->clock < tc->nclocks ? tc->clocks[sc->clock] : NULL;
	if (!m->has_ts)
		return w->last_cycles;
	if (!w->clk_ns && c && c->freq == w->clk.freq && c->offset_s == w->clk.offset_s && c->offset == w->clk.offset)
		return m->cycles;
	/* another clock: through ns from the origin */
	int64_t zero = 0;
	tio_clock_ns(&w->clk, 0, &zero);
	int64_t d = m->ns - zero;
	if (d <= 0)
		return 0;
	return (uint64_t)((__int128)d * w->clk.freq / 1000000000);
}

static int lw_consume(tio_sink *sk, const tio_msg *m)
{
	lw *w = (lw *)sk;
	if (m->type == TIO_MSG_DISCARDED_EVENTS || m->type == TIO_MSG_DISCARDED_PACKETS) {
		if (m->count)
			w->discarded += m->count;
		else
			w->discarded_unknown++;
		return 0;
	}
	if (m->type != TIO_MSG_EVENT || !m->ec)
		return 0;
	if (!w->started) {
		if (!w->outdir)
			return tio_err_set(TIO_ERR_USAGE, "ltt writer: no output directory (option output)");
		struct stat st;
		if (!w->force && !lstat(w->final, &st))
			return tio_err_set(TIO_ERR_IO, "%s: already exists (force replaces it)", w->final);
		tio_rm_tree(w->outdir);
		int r = mkdirs(w->outdir);
		if (r)
			return r;
		start(w, m);
		w->started = true;
	}
	uint64_t cyc = out_cycles(w, m);
	if (m->has_ts) {
		int64_t back = 0;
		tio_clock_ns(&w->clk, cyc, &back);
		w->time_off += back != m->ns;
	}
	w->last_cycles = cyc;
	lw_src *s = src_of(w, m->stream->trace);
	if (!s) {
		int r = register_trace(w, m->stream->trace, cyc, &s);
		if (r)
			return r;
	}
	lw_ec *le = ec_of(s, m);
	if (!le)
		return tio_err_set(TIO_ERR_USAGE, "ltt writer: event %s of no known class", m->ec->name);
	if (le->skip)
		return 0;
	if (le->refused)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "ltt writer: %s (the new LTT format has no such type)",
				   le->refused);
	lw_file *f = file_of(w, s, m->stream);
	if (!f)
		return TIO_ERR_NOMEM;
	tio_buf_reset(&w->ev);
	int r = buf_put(&w->ev, w->be, le->id, 2);
	r = r ? r : buf_put(&w->ev, w->be, 0, 4);
	if (s->ltt && le->nscopes == 0) {
		/* as the new LTT reader laid the event out: its scopes in scope order */
		for (int k = 0; !r && k < TIO_NSCOPES; k++)
			if (m->scope[k])
				r = enc(w, m->vals, (uint32_t)(m->scope[k] - m->vals), false);
	} else {
		for (uint32_t k = 0; !r && k < le->nscopes; k++) {
			const tio_val *v = m->scope[le->scopes[k]];
			if (v)
				r = enc(w, m->vals, (uint32_t)(v - m->vals), le->scopes[k] == TIO_SCOPE_PKT_CTX);
			else if (le->scopes[k] != TIO_SCOPE_PAYLOAD || m->ec->payload)
				r = tio_err_set(TIO_ERR_FORMAT, "no %s",
						le->scopes[k] == TIO_SCOPE_PAYLOAD ? "payload" : "context");
		}
	}
	/* the value encoders say what; the event and where it is come here */
	if (r && r != TIO_ERR_NOMEM)
		return tio_err_push(r, "ltt writer: event %s at 0x%" PRIx64 " of %s", m->ec->name ? m->ec->name : "",
				    m->offset, m->stream->name ? m->stream->name : "?");
	if (r)
		return r;
	r = file_event(w, f, cyc, m->ec->name ? m->ec->name : "event");
	w->written += !r;
	return r;
}

/* ---------------------------------------------------------------- the end: metadata files */

static int xml_attr(tio_buf *b, const char *name, const char *v)
{
	int r = tio_buf_addf(b, " %s=\"", name);
	for (const char *p = v; !r && *p; p++) {
		switch (*p) {
		case '"': r = tio_buf_adds(b, "&quot;"); break;
		case '&': r = tio_buf_adds(b, "&amp;"); break;
		case '<': r = tio_buf_adds(b, "&lt;"); break;
		case '>': r = tio_buf_adds(b, "&gt;"); break;
		default: r = tio_buf_addc(b, *p);
		}
	}
	return r ? r : tio_buf_addc(b, '"');
}

static int xml_text(tio_buf *b, const char *v)
{
	int r = 0;
	for (const char *p = v; !r && *p; p++) {
		switch (*p) {
		case '&': r = tio_buf_adds(b, "&amp;"); break;
		case '<': r = tio_buf_adds(b, "&lt;"); break;
		case '>': r = tio_buf_adds(b, "&gt;"); break;
		default: r = tio_buf_addc(b, *p);
		}
	}
	return r;
}

static int write_text(lw *w, const char *name, const tio_buf *b)
{
	tio_outfile o;
	int r = open_out(w, name, &o);
	if (r)
		return r;
	if (b->len && fwrite(b->p, 1, b->len, o.f) != b->len) {
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", o.path, strerror(errno));
		tio_outfile_abort(&o);
		return r;
	}
	return tio_outfile_commit(&o);
}

static bool xml_name_ok(const char *k)
{
	if (!*k || !((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_'))
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_' ||
		      *k == '-' || *k == '.'))
			return false;
	return true;
}

static int write_system(lw *w)
{
	static const char *const own[] = {"cpu", "arch_size", "endian", "ltt_block_size", "cycle_frequency",
					  "clock_offset_s", "clock_offset", "clock_origin", "clock_name"};
	char vals[TIO_ARRAY_LEN(own)][64];
	uint64_t ncpu = 0;
	for (uint32_t i = 0; i < w->nfiles; i++) {
		const char *n = w->files[i]->name;
		if (!strncmp(n, "cpu/", 4) && strtoull(n + 4, NULL, 10) + 1 > ncpu)
			ncpu = strtoull(n + 4, NULL, 10) + 1;
	}
	snprintf(vals[0], 64, "%" PRIu64, ncpu);
	snprintf(vals[1], 64, "%s", w->arch_word);
	snprintf(vals[2], 64, "%s", w->be ? "big" : "little");
	snprintf(vals[3], 64, "%u", w->block);
	snprintf(vals[4], 64, "%" PRIu64, w->clk.freq);
	snprintf(vals[5], 64, "%" PRId64, w->clk.offset_s);
	snprintf(vals[6], 64, "%" PRId64, w->clk.offset);
	snprintf(vals[7], 64, "%s", w->clk.origin_unix ? "unix" : "unknown");
	snprintf(vals[8], 64, "%.63s", w->clk.name);
	bool done[TIO_ARRAY_LEN(own)] = {0};
	tio_buf b = {0};
	int r = tio_buf_adds(&b, "<system");
	/* the first trace's environment, in its order, then what the writer sets */
	const tio_trace_class *tc = w->first ? w->first->tc : NULL;
	for (uint32_t i = 0; !r && tc && i < tc->nenv; i++) {
		const tio_kv *kv = &tc->env[i];
		if (!xml_name_ok(kv->key))
			continue;
		r = tio_buf_adds(&b, "\n ");
		size_t k = 0;
		while (k < TIO_ARRAY_LEN(own) && strcmp(own[k], kv->key))
			k++;
		if (k < TIO_ARRAY_LEN(own)) {
			done[k] = true;
			r = r ? r : xml_attr(&b, kv->key, vals[k]);
		} else if (kv->is_int) {
			char num[32];
			snprintf(num, sizeof(num), "%" PRId64, kv->ival);
			r = r ? r : xml_attr(&b, kv->key, num);
		} else {
			r = r ? r : xml_attr(&b, kv->key, kv->sval ? kv->sval : "");
		}
	}
	for (size_t k = 0; !r && k < TIO_ARRAY_LEN(own); k++) {
		if (done[k])
			continue;
		r = tio_buf_adds(&b, "\n ");
		r = r ? r : xml_attr(&b, own[k], vals[k]);
	}
	r = r ? r : tio_buf_adds(&b, ">\n");
	const tio_kv *txt = tc ? tio_trace_class_table(tc, "ltt_system_text") : NULL;
	if (!r && txt && txt->sval) {
		r = xml_text(&b, txt->sval);
		r = r ? r : tio_buf_addc(&b, '\n');
	}
	r = r ? r : tio_buf_adds(&b, "</system>\n");
	r = r ? r : write_text(w, "info/system.xml", &b);
	tio_buf_free(&b);
	return r;
}

static int write_bookmarks(lw *w)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->nsrcs; i++)
		n += w->srcs[i].t->tc->nannotations;
	if (!n)
		return 0;
	tio_buf b = {0};
	int r = tio_buf_adds(&b, "<bookmarks>\n");
	for (uint32_t i = 0; !r && i < w->nsrcs; i++) {
		const tio_trace_class *tc = w->srcs[i].t->tc;
		for (uint32_t k = 0; !r && k < tc->nannotations; k++) {
			const tio_annotation *a = &tc->annotations[k];
			r = tio_buf_adds(&b, "  <location");
			if (!r && a->name)
				r = xml_attr(&b, "name", a->name);
			if (!r && a->cpu >= 0)
				r = tio_buf_addf(&b, " cpu=\"%" PRId64 "\"", a->cpu);
			if (!r && a->in_cycles && a->begin == a->end)
				r = tio_buf_addf(&b, " cycle=\"%" PRIu64 "\"", a->begin);
			else if (!r && a->in_cycles)
				r = tio_buf_addf(&b, " start_cycle=\"%" PRIu64 "\" end_cycle=\"%" PRIu64 "\"", a->begin, a->end);
			else if (!r && a->begin == a->end)
				r = tio_buf_addf(&b, " time=\"%" PRIu64 ".%09" PRIu64 "\"", a->begin / 1000000000,
						 a->begin % 1000000000);
			else if (!r)
				r = tio_buf_addf(&b, " start_time=\"%" PRIu64 ".%09" PRIu64 "\" end_time=\"%" PRIu64 ".%09" PRIu64 "\"",
						 a->begin / 1000000000, a->begin % 1000000000, a->end / 1000000000,
						 a->end % 1000000000);
			r = r ? r : tio_buf_addc(&b, '>');
			if (!r && a->text)
				r = xml_text(&b, a->text);
			r = r ? r : tio_buf_adds(&b, "</location>\n");
		}
	}
	r = r ? r : tio_buf_adds(&b, "</bookmarks>\n");
	r = r ? r : write_text(w, "info/bookmarks.xml", &b);
	tio_buf_free(&b);
	return r;
}

/* eventdefs/NAME.xml: every version of facility NAME, in the order they were added. */
static int write_eventdefs(lw *w)
{
	int r = 0;
	for (uint32_t i = 0; !r && i < w->nfacs; i++) {
		bool seen = false;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = !strcmp(w->facs[k].name, w->facs[i].name);
		if (seen)
			continue;
		tio_buf b = {0};
		for (uint32_t k = i; !r && k < w->nfacs; k++)
			if (!strcmp(w->facs[k].name, w->facs[i].name))
				r = tio_buf_adds(&b, w->facs[k].text);
		char name[300];
		snprintf(name, sizeof(name), "eventdefs/%s.xml", w->facs[i].name);
		for (char *p = name + 10; *p; p++)
			if (*p == '/')
				*p = '_';
		r = r ? r : write_text(w, name, &b);
		tio_buf_free(&b);
	}
	return r;
}

/* control/facilities: one facility_load per facility, at the time it was first needed. */
static int write_facilities(lw *w)
{
	lw_file *f = file_get(w, "control/facilities");
	if (!f)
		return TIO_ERR_NOMEM;
	int r = 0;
	for (uint32_t i = 0; !r && i < w->nfacs; i++) {
		const lw_fac *lf = &w->facs[i];
		tio_buf_reset(&w->ev);
		r = buf_put(&w->ev, w->be, LT_ID_FACILITY_LOAD, 2);
		r = r ? r : buf_put(&w->ev, w->be, 0, 4);
		r = r ? r : tio_buf_add(&w->ev, lf->name, strlen(lf->name) + 1);
		r = r ? r : buf_put(&w->ev, w->be, lf->checksum, 4);
		r = r ? r : buf_put(&w->ev, w->be, lf->base, 4);
		r = r ? r : file_event(w, f, lf->load_cycles, "facility_load");
	}
	return r;
}

static int lw_finish(tio_sink *sk)
{
	lw *w = (lw *)sk;
	if (!w->outdir)
		return tio_err_set(TIO_ERR_USAGE, "ltt writer: no output directory (option output)");
	if (!w->started) {
		/* no event at all: an empty trace with the options' parameters */
		int r = mkdirs(w->outdir);
		if (r)
			return r;
		if (!w->block_set)
			w->block = LW_DEFAULT_BLOCK;
		if (!w->arch_set) {
			lt_arch_parse("LP64", &w->arch);
			snprintf(w->arch_word, sizeof(w->arch_word), "LP64");
		}
		w->clk.freq = 1000000000;
		w->clk.name = "cycles";
		w->started = true;
	}
	int r = write_facilities(w);
	for (uint32_t i = 0; !r && i < w->nfiles; i++) {
		lw_file *f = w->files[i];
		if (f->in_block)
			r = block_close(w, f);
		if (!r) {
			r = tio_outfile_commit(&f->out);
			f->opened = false;
		}
	}
	r = r ? r : write_eventdefs(w);
	r = r ? r : write_system(w);
	r = r ? r : write_bookmarks(w);
	r = r ? r : publish(w);
	w->published = !r;
	if (!r && w->time_off && sk->err)
		fprintf(sk->err,
			"traceio: warning: ltt writer: the times of %" PRIu64 " events are not exact in the output clock (%" PRIu64 " Hz)\n",
			w->time_off, w->clk.freq);
	if (!r && (w->discarded || w->discarded_unknown) && sk->err)
		fprintf(sk->err,
			"traceio: warning: ltt writer: %" PRIu64 " discarded events%s and their time ranges are not written (the new LTT format cannot record them)\n",
			w->discarded, w->discarded_unknown ? " (and an unknown number)" : "");
	return r;
}

static void lw_fini(tio_sink *sk)
{
	lw *w = (lw *)sk;
	for (uint32_t i = 0; i < w->nfiles; i++) {
		if (w->files[i]->opened)
			tio_outfile_abort(&w->files[i]->out);
		free(w->files[i]->name);
		free(w->files[i]->blk);
		free(w->files[i]);
	}
	free(w->files);
	for (uint32_t i = 0; i < w->nsrcs; i++) {
		const tio_trace_class *tc = w->srcs[i].t->tc;
		for (uint32_t k = 0; w->srcs[i].scs && k < tc->nscs; k++) {
			if (!w->srcs[i].scs[k].ecs)
				continue;
			for (uint32_t e = 0; e < tc->scs[k]->necs; e++) {
				free(w->srcs[i].scs[k].ecs[e].refused);
				free(w->srcs[i].scs[k].ecs[e].fac);
				free(w->srcs[i].scs[k].ecs[e].desc);
			}
			free(w->srcs[i].scs[k].ecs);
		}
		free(w->srcs[i].scs);
	}
	free(w->srcs);
	for (uint32_t i = 0; i < w->nfacs; i++) {
		free(w->facs[i].name);
		free(w->facs[i].text);
	}
	free(w->facs);
	tio_buf_free(&w->ev);
	if (w->started && !w->published && w->outdir)
		tio_rm_tree(w->outdir);
	free(w->outdir);
	free(w->final);
}

const tio_sink_ops tio_sink_ltt_ops = {
	.name = "ltt",
	.size = sizeof(lw),
	.set = lw_set,
	.consume = lw_consume,
	.finish = lw_finish,
	.fini = lw_fini,
};

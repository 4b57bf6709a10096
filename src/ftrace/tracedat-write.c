/*
 * The "tracedat" sink: writes a trace.dat file (trace-cmd.dat(5), file
 * versions 6 and 7, uncompressed or with zlib/zstd compressed sections
 * and flyrecord chunks) from the common model.  See docs/formats/tracedat.md,
 * "Writer".
 *
 *   - Events read from a trace.dat (their class has the ftrace "format" and
 *     "system" attributes and the message carries the raw record) are copied
 *     record by record into new ring-buffer pages, with their original format
 *     files, header_page/header_event, kallsyms, printk formats, saved
 *     cmdlines and options, so that `trace-cmd report` of the output prints
 *     what it prints for the input.
 *   - Events of other formats (CTF, LTT) get a format file synthesized from
 *     their field classes (contexts then payload, nested structures
 *     flattened) and a print fmt that prints every field as name=value.
 *
 * Pages are built per (buffer instance, CPU) as messages arrive (the mux
 * gives them in time order, so each CPU's timestamps never go back) and
 * spilled to an unlinked temporary file per CPU; finish() lays the file out
 * (twice: once to learn every offset, once to write) under a temporary name
 * and renames it.  Memory stays flat: one page (v7 compressed: one chunk of
 * CHUNK_PAGES pages) per CPU; nothing is allocated per event.
 *
 * Options: output=PATH, version=7|6, compression=none|zlib|zstd, force.
 */
#define _GNU_SOURCE /* copy_file_range */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "sink/sink.h"

#define CHUNK_PAGES 10 /* pages per compressed flyrecord chunk, as trace-cmd 3.1 */
#define TS_DELTA_MAX ((1ULL << 27) - 1)
#define MISSING_EVENTS (1u << 31)
#define MISSING_STORED (1u << 30)
#define MAX_CMDLINES 65536

enum { COMP_NONE, COMP_ZLIB, COMP_ZSTD };

/* ---------------------------------------------------------------- synthesized formats */

enum sf_kind {
	SF_INT,	  /* fixed 1/2/4/8-byte integer */
	SF_FLOAT, /* "float" (binary32) or "double": the IEEE 754 bits */
	SF_STR,	  /* __data_loc char[]: a string value */
	SF_ARRAY, /* __data_loc T[]: an array or sequence of integers */
	SF_VSEL,  /* __data_loc char[]: the name of a variant's chosen option */
	SF_TEXT,  /* __data_loc char[]: anything else, rendered as text */
};

typedef struct sfield {
	uint8_t kind;	   /* enum sf_kind */
	uint8_t size;	   /* SF_INT, SF_FLOAT: bytes; SF_ARRAY: element bytes */
	uint8_t is_signed;
	uint32_t offset;   /* in the record */
	const tio_fc *fc;  /* the leaf's field class */
} sfield;

/* One output event class: one format file in the output. */
typedef struct wclass {
	uint32_t id;
	char *system, *name;
	char *format;	   /* the whole format file text */
	bool raw;	   /* records copied from a trace.dat */
	uint32_t in_id;	   /* raw: common_type in the input records */
	uint32_t type_off, type_size;
	sfield *f;	   /* synthesized: leaves in value pre-order */
	uint32_t nf;
	uint32_t fixed;	   /* synthesized: bytes of the fixed part */
	int32_t pid_leaf;  /* leaf giving common_pid (tid, vtid, pid, vpid context), -1 */
	int32_t pid_rank;  /* which of those it is (the first in that list wins) */
	int32_t comm_leaf; /* leaf giving the comm (procname context), -1 */
} wclass;

/* ---------------------------------------------------------------- pages */

typedef struct wcpu {
	FILE *tmp;	   /* finished pages, or compressed chunks */
	uint64_t bytes;	   /* written to tmp */
	uint32_t nchunks;
	uint8_t *page;
	uint32_t used;	   /* data bytes in the page */
	bool open;	   /* the page has its timestamp */
	uint64_t last_ts;
	int64_t missed;	   /* for the next page: 0 none, -1 unknown count, > 0 count */
	uint8_t *chunk;	   /* compressed output: pages of the chunk being gathered */
	uint32_t chunk_pages;
	uint64_t events;
} wcpu;

typedef struct wbuf {
	char *name; /* "" = the top instance */
	wcpu **cpus; /* by CPU id, NULL when no data */
	uint32_t ncpus;
} wbuf;

/* Pointer-keyed map (input event class / stream -> output), open addressing. */
typedef struct pmap {
	const void **keys;
	void **vals;
	size_t cap, n;
} pmap;

typedef struct wstream {
	wbuf *b;
	uint32_t cpu;
} wstream;

typedef struct twsink {
	tio_sink base;
	char *out;
	int version, comp;
	bool force;
	/* output layout, from the first trace.dat input (else host defaults) */
	bool layout_set, be;
	uint32_t long_size, page_size;
	uint32_t hp_ts_off, hp_commit_off, hp_commit_size, hp_data_off;
	const tio_trace_class *meta; /* the first trace.dat input: tables and options */
	const tio_trace **traces;
	size_t ntraces, tcap;
	const tio_trace *last_trace; /* of the previous message (registered) */
	wclass **classes;
	size_t nclasses, ccap;
	uint32_t next_id;
	wbuf **bufs;
	size_t nbufs, bcap;
	pmap ecmap, smap;
	uint32_t dense_cpus; /* next CPU for an input stream without a CPU of its own */
	uint32_t cpus;	     /* "cpus=" of the output */
	tio_buf rec;	     /* a synthesized record */
	tio_buf text;	     /* SF_TEXT rendering */
	tio_buf cmdlines;    /* synthesized saved_cmdlines ("pid comm" lines) */
	pmap pids;	     /* pids already in cmdlines (key = pid + 1) */
	size_t ncmd;
	uint8_t *zbuf;	     /* compression output */
	size_t zcap;
	ZSTD_CCtx *zctx;
	bool failed;
} twsink;

/* ---------------------------------------------------------------- small helpers */

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static void *pmap_get(const pmap *m, const void *key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = ptr_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static int pmap_put(pmap *m, const void *key, void *val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		const void **nk = tio_calloc(nc, sizeof(*nk));
		void **nv = tio_calloc(nc, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return TIO_ERR_NOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = ptr_hash(m->keys[i], nc);
			while (nk[j])
				j = (j + 1) & (nc - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = nc;
	}
	size_t i = ptr_hash(key, m->cap);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

static void pmap_free(pmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static void put16(const twsink *w, uint8_t *p, uint16_t v)
{
	if (w->be)
		v = tio_bswap16(v);
	memcpy(p, &v, 2);
}

static void put32(const twsink *w, uint8_t *p, uint32_t v)
{
	if (w->be)
		v = tio_bswap32(v);
	memcpy(p, &v, 4);
}

static void put64(const twsink *w, uint8_t *p, uint64_t v)
{
	if (w->be)
		v = tio_bswap64(v);
	memcpy(p, &v, 8);
}

static void putn(const twsink *w, uint8_t *p, uint64_t v, unsigned size)
{
	switch (size) {
	case 1: *p = (uint8_t)v; break;
	case 2: put16(w, p, (uint16_t)v); break;
	case 4: put32(w, p, (uint32_t)v); break;
	default: put64(w, p, v); break;
	}
}

static const char *ec_attr(const tio_event_class *ec, const char *key)
{
	for (uint32_t i = 0; i < ec->nattrs; i++)
		if (!strcmp(ec->attrs[i].key, key))
			return ec->attrs[i].sval;
	return NULL;
}

static const char *env_str(const tio_trace_class *tc, const char *key)
{
	const tio_kv *kv = tc ? tio_trace_class_env(tc, key) : NULL;
	return kv && !kv->is_int ? kv->sval : NULL;
}

static int64_t env_int(const tio_trace_class *tc, const char *key, int64_t dflt)
{
	const tio_kv *kv = tc ? tio_trace_class_env(tc, key) : NULL;
	return kv && kv->is_int ? kv->ival : dflt;
}

static const char *table(const tio_trace_class *tc, const char *key)
{
	const tio_kv *kv = tc ? tio_trace_class_table(tc, key) : NULL;
	return kv ? kv->sval : NULL;
}

extern const tio_format_ops tio_format_tracedat; /* tracedat-file.c */

/*
 * A class whose records can be copied: it came from a trace.dat, read by the
 * trace.dat reader (which gives each event its raw record).  A copy in
 * another format (CTF keeps "format" and "system") has the values only: its
 * classes get formats synthesized like any other format's.
 */
static bool is_ftrace_class(const tio_trace *t, const tio_event_class *ec)
{
	return t && t->fmt == &tio_format_tracedat && ec_attr(ec, "format") && ec_attr(ec, "system");
}

/* offset/size of `field:... NAME;` in a format text (0 when absent). */
static bool format_field(const char *fmt, const char *name, uint32_t *off, uint32_t *size)
{
	size_t nl = strlen(name);
	for (const char *p = strstr(fmt, name); p; p = strstr(p + 1, name)) {
		if (p[nl] != ';' || (p > fmt && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '*'))
			continue;
		const char *o = strstr(p, "offset:"), *s = strstr(p, "size:");
		if (!o || !s)
			return false;
		*off = (uint32_t)strtoul(o + 7, NULL, 10);
		*size = (uint32_t)strtoul(s + 5, NULL, 10);
		return true;
	}
	return false;
}

/* ---------------------------------------------------------------- header_page */

static void parse_header_page(twsink *w, const char *t)
{
	uint32_t o, s;
	w->hp_ts_off = 0;
	w->hp_commit_off = 8;
	w->hp_commit_size = w->long_size;
	w->hp_data_off = 8 + w->long_size;
	if (!t)
		return;
	if (format_field(t, "timestamp", &o, &s))
		w->hp_ts_off = o;
	if (format_field(t, "commit", &o, &s) && (s == 4 || s == 8)) {
		w->hp_commit_off = o;
		w->hp_commit_size = s;
	}
	if (format_field(t, "data", &o, &s))
		w->hp_data_off = o;
}

/* The kernel's header_page / header_event text for our layout (inputs without them). */
static char *make_header_page(const twsink *w)
{
	uint32_t data = 8 + w->long_size;
	return tio_asprintf("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			    "\tfield: local_t commit;\toffset:8;\tsize:%u;\tsigned:1;\n"
			    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			    "\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:0;\n",
			    w->long_size, data, w->page_size - data);
}

static const char header_event_text[] = "# compressed entry header\n"
					"\ttype_len    :    5 bits\n"
					"\ttime_delta  :   27 bits\n"
					"\tarray       :   32 bits\n"
					"\n"
					"\tpadding     : type == 29\n"
					"\ttime_extend : type == 30\n"
					"\ttime_stamp : type == 31\n"
					"\tdata max type_len  == 28\n";

/* ---------------------------------------------------------------- options */

static int tw_init(tio_sink *s)
{
	twsink *w = (twsink *)s;
	w->version = 7;
	w->comp = COMP_NONE;
	w->next_id = 1; /* 0 is no ftrace event's id */
	return 0;
}

static int tw_set(tio_sink *s, const char *key, const char *value)
{
	twsink *w = (twsink *)s;
	const char *v = value ? value : "";
	if (!strcmp(key, "output")) {
		if (!*v)
			return tio_err_set(TIO_ERR_USAGE, "option output: empty path");
		free(w->out);
		w->out = tio_strdup(v);
		return w->out ? 0 : TIO_ERR_NOMEM;
	}
	if (!strcmp(key, "version")) {
		if (strcmp(v, "6") && strcmp(v, "7"))
			return tio_err_set(TIO_ERR_USAGE, "option version: '%s': 6 or 7", v);
		w->version = v[0] - '0';
		return 0;
	}
	if (!strcmp(key, "compression")) {
		if (!strcmp(v, "none"))
			w->comp = COMP_NONE;
		else if (!strcmp(v, "zlib"))
			w->comp = COMP_ZLIB;
		else if (!strcmp(v, "zstd"))
			w->comp = COMP_ZSTD;
		else
			return tio_err_set(TIO_ERR_USAGE, "option compression: '%s': none, zlib or zstd", v);
		return 0;
	}
	if (!strcmp(key, "force"))
		return tio_sink_bool(key, value, &w->force);
	return tio_err_set(TIO_ERR_USAGE,
			   "sink tracedat takes no option '%s' (output, version, compression, force)", key);
}

/* ---------------------------------------------------------------- classes */

static int add_class(twsink *w, wclass *c)
{
	if (tio_grow(&w->classes, &w->ccap, w->nclasses + 1, sizeof(*w->classes)))
		return TIO_ERR_NOMEM;
	w->classes[w->nclasses++] = c;
	return 0;
}

static void class_free(wclass *c)
{
	if (!c)
		return;
	free(c->system);
	free(c->name);
	free(c->format);
	free(c->f);
	free(c);
}

static bool id_used(const twsink *w, uint32_t id)
{
	for (size_t i = 0; i < w->nclasses; i++)
		if (w->classes[i]->id == id)
			return true;
	return false;
}

static int new_id(twsink *w, uint32_t *id)
{
	while (w->next_id < 65535 && id_used(w, w->next_id))
		w->next_id++;
	if (w->next_id >= 65535)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: more than 65534 event classes", w->out);
	*id = w->next_id++;
	return 0;
}

/* A trace.dat class: its format file as it was (the ID line rewritten if the id moves). */
static int ftrace_class(twsink *w, const tio_event_class *ec, wclass **out)
{
	const char *fmt = ec_attr(ec, "format"), *sys = ec_attr(ec, "system");
	/* the same format from another input (or instance) maps to the same class */
	for (size_t i = 0; i < w->nclasses; i++) {
		wclass *c = w->classes[i];
		if (c->raw && c->in_id == ec->id && !strcmp(c->system, sys) && !strcmp(c->name, ec->name)) {
			*out = c;
			return 0;
		}
	}
	wclass *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return TIO_ERR_NOMEM;
	c->raw = true;
	c->in_id = (uint32_t)ec->id;
	c->pid_leaf = c->comm_leaf = -1;
	c->system = tio_strdup(sys);
	c->name = tio_strdup(ec->name);
	if (!format_field(fmt, "common_type", &c->type_off, &c->type_size))
		c->type_off = 0, c->type_size = 2;
	int e = 0;
	if (ec->id < 65535 && !id_used(w, (uint32_t)ec->id)) {
		c->id = (uint32_t)ec->id;
		c->format = tio_strdup(fmt);
	} else if (!(e = new_id(w, &c->id))) {
		/* rewrite "ID: n" */
		const char *idl = strstr(fmt, "\nID: ");
		if (idl) {
			const char *eol = strchr(idl + 1, '\n');
			c->format = tio_asprintf("%.*s\nID: %u%s", (int)(idl - fmt), fmt, c->id, eol ? eol : "\n");
		} else {
			c->format = tio_strdup(fmt);
		}
	}
	if (e || !c->system || !c->name || !c->format || add_class(w, c)) {
		class_free(c);
		return e ? e : TIO_ERR_NOMEM;
	}
	*out = c;
	return 0;
}

/* Build state of a synthesized format. */
typedef struct synth {
	twsink *w;
	wclass *c;
	tio_buf fields; /* "\tfield:..." lines */
	tio_buf pfmt;	/* print fmt string */
	tio_buf pargs;	/* its arguments */
	size_t cap;
	char **names;	/* used names, to make them unique */
	uint32_t nnames;
	int err;
} synth;

/* A C identifier from a CTF name (ftrace field names are identifiers). */
static char *ident(const char *prefix, const char *name)
{
	char *s = tio_asprintf("%s%s%s", prefix, prefix[0] ? "_" : "", name && *name ? name : "field");
	if (!s)
		return NULL;
	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			*p = '_';
	if ((s[0] >= '0' && s[0] <= '9') || !strncmp(s, "common_", 7)) {
		char *t = tio_asprintf("f_%s", s);
		free(s);
		return t;
	}
	return s;
}

static char *unique_name(synth *y, char *n)
{
	if (!n)
		return NULL;
	for (unsigned k = 2;; k++) {
		bool used = false;
		for (uint32_t i = 0; i < y->nnames && !used; i++)
			used = !strcmp(y->names[i], n);
		if (!used)
			break;
		char *base = n;
		size_t bl = strlen(base);
		/* strip a previous _k suffix we added */
		char *u = strrchr(base, '_');
		if (u && k > 2)
			bl = (size_t)(u - base);
		char *t = tio_asprintf("%.*s_%u", (int)bl, base, k);
		free(n);
		if (!t)
			return NULL;
		n = t;
	}
	char **nn = tio_realloc(y->names, (y->nnames + 1) * sizeof(char *));
	if (!nn) {
		free(n);
		return NULL;
	}
	y->names = nn;
	y->names[y->nnames++] = n;
	return n;
}

/*
 * An enumeration's labels as the kernel shows them:
 * `__print_symbolic(REC->x, { 0, "Running" }, ...)` (trace-cmd prints the
 * label, or 0x + hex for a value without one).  Values as the record holds
 * them (unsigned, `size` bytes: libtraceevent reads fields without sign
 * extension); ranges of up to 64 values are listed value by value, wider
 * ones and labels that are not plain printable text are left out.  Returns
 * false when no label could be written (the field prints as a number).
 */
#define MAX_SYMBOLS 1024
static bool add_symbols(tio_buf *pa, const tio_fc *fc, const char *n, unsigned size)
{
	size_t start = pa->len;
	unsigned count = 0;
	uint64_t mask = size >= 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;
	tio_buf_addf(pa, ", __print_symbolic(REC->%s", n);
	for (uint32_t k = 0; k < fc->i.nmappings && count < MAX_SYMBOLS; k++) {
		const tio_mapping *mp = &fc->i.mappings[k];
		bool plain = mp->label && *mp->label;
		for (const char *c = mp->label; plain && *c; c++)
			plain = *c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\';
		for (uint32_t r = 0; plain && r < mp->nranges; r++) {
			uint64_t lo = (uint64_t)mp->ranges[r].lo, hi = (uint64_t)mp->ranges[r].hi;
			bool rev = fc->i.is_signed ? mp->ranges[r].hi < mp->ranges[r].lo : hi < lo;
			if (rev || hi - lo > 63) /* unsigned difference: right for both when lo <= hi */
				continue;
			for (uint64_t v = lo;; v++) {
				if (count++ < MAX_SYMBOLS)
					tio_buf_addf(pa, ", { %llu, \"%s\" }", (unsigned long long)(v & mask), mp->label);
				if (v == hi)
					break;
			}
		}
	}
	if (!count) {
		pa->len = start;
		return false;
	}
	tio_buf_addc(pa, ')');
	return true;
}

static int add_leaf(synth *y, const tio_fc *fc, const char *name, bool in_ctx)
{
	wclass *c = y->c;
	char *n = unique_name(y, ident("", name));
	if (!n)
		return TIO_ERR_NOMEM;
	sfield f = {.fc = fc};
	const tio_fc *el = NULL;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		if (fc->i.size > 64) {
			f.kind = SF_TEXT;
			break;
		}
		f.kind = SF_INT;
		f.size = fc->i.size <= 8 ? 1 : fc->i.size <= 16 ? 2 : fc->i.size <= 32 ? 4 : 8;
		f.is_signed = fc->i.is_signed;
		/* libtraceevent does not sign-extend fields: "%d" of an s8/s16 would show
		   the unsigned value, so small signed integers take 4 bytes */
		if (f.is_signed && f.size < 4)
			f.size = 4;
		break;
	case TIO_FC_VARINT:
		f.kind = SF_INT;
		f.size = 8;
		f.is_signed = fc->vi.is_signed;
		break;
	case TIO_FC_FLOAT:
		/* the model holds a double: binary32 stays a float, every other size is
		   exact as a double */
		f.kind = SF_FLOAT;
		f.size = fc->f.exp_dig == 8 && fc->f.mant_dig == 24 ? 4 : 8;
		f.is_signed = 1;
		break;
	case TIO_FC_VARIANT:
		f.kind = SF_VSEL; /* the option fields follow (add_node) */
		break;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
		f.kind = SF_STR;
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		el = fc->a.elem;
		if (fc->a.text) {
			f.kind = SF_STR;
		} else if (el && (el->kind == TIO_FC_INT || el->kind == TIO_FC_ENUM || el->kind == TIO_FC_BOOL) &&
			   el->i.size <= 64) {
			f.kind = SF_ARRAY;
			f.size = el->i.size <= 8 ? 1 : el->i.size <= 16 ? 2 : el->i.size <= 32 ? 4 : 8;
			f.is_signed = el->i.is_signed;
		} else {
			f.kind = SF_TEXT;
		}
		break;
	default:
		f.kind = SF_TEXT; /* BLOBs, optionals, arrays of compounds or floats */
		break;
	}
	uint32_t sz = f.kind == SF_INT || f.kind == SF_FLOAT ? f.size : 4;
	c->fixed = (c->fixed + sz - 1) / sz * sz;
	f.offset = c->fixed;
	c->fixed += sz;
	static const char *const itype[2][9] = {
		{"", "u8", "u16", "", "u32", "", "", "", "u64"},
		{"", "s8", "s16", "", "s32", "", "", "", "s64"},
	};
	tio_buf *fl = &y->fields, *pf = &y->pfmt, *pa = &y->pargs;
	if (c->nf)
		tio_buf_addc(pf, ' ');
	switch (f.kind) {
	case SF_INT: {
		bool hex = fc->kind == TIO_FC_INT && (fc->i.base == 16 || fc->i.base == 2);
		bool oct = fc->kind == TIO_FC_INT && fc->i.base == 8;
		const char *ll = f.size == 8 ? "ll" : "";
		tio_buf_addf(fl, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", itype[f.is_signed][f.size], n,
			     f.offset, f.size, f.is_signed);
		if (fc->kind == TIO_FC_ENUM && add_symbols(pa, fc, n, f.size)) {
			tio_buf_addf(pf, "%s=%%s", n);
			break;
		}
		tio_buf_addf(pf, "%s=%s%%%s%s", n, hex ? "0x" : oct ? "0" : "", ll,
			     hex ? "x" : oct ? "o" : f.is_signed ? "d" : "u");
		tio_buf_addf(pa, ", REC->%s", n);
		break;
	}
	case SF_FLOAT:
		/* libtraceevent has no floating-point conversion: trace-cmd shows the bits,
		   the declared type tells traceio's reader to read them back as a float */
		tio_buf_addf(fl, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:1;\n", f.size == 4 ? "float" : "double",
			     n, f.offset, f.size);
		tio_buf_addf(pf, "%s=0x%%%sx", n, f.size == 8 ? "ll" : "");
		tio_buf_addf(pa, ", REC->%s", n);
		break;
	case SF_ARRAY:
		/* C99 element names: libtraceevent reads "u8[]" as text */
		tio_buf_addf(fl, "\tfield:__data_loc %sint%u_t[] %s;\toffset:%u;\tsize:4;\tsigned:%d;\n",
			     f.is_signed ? "" : "u", f.size * 8, n, f.offset, f.is_signed);
		tio_buf_addf(pf, "%s=%%s", n);
		tio_buf_addf(pa, ", __print_array(__get_dynamic_array(%s), __get_dynamic_array_len(%s) / %u, %u)", n, n,
			     f.size, f.size);
		break;
	default:
		tio_buf_addf(fl, "\tfield:__data_loc char[] %s;\toffset:%u;\tsize:4;\tsigned:0;\n", n, f.offset);
		tio_buf_addf(pf, "%s=%%s", n);
		tio_buf_addf(pa, ", __get_str(%s)", n);
		break;
	}
	if (tio_grow(&c->f, &y->cap, c->nf + 1, sizeof(sfield)))
		return TIO_ERR_NOMEM;
	/* contexts that say which process: common_pid and the cmdlines */
	if (in_ctx && f.kind == SF_INT && name) {
		static const char *const pidn[] = {"tid", "vtid", "pid", "vpid"};
		for (size_t i = 0; i < TIO_ARRAY_LEN(pidn); i++) {
			if (strcmp(name, pidn[i]) && !(name[0] == '_' && !strcmp(name + 1, pidn[i])))
				continue;
			if (c->pid_leaf < 0 || (int32_t)i < c->pid_rank) {
				c->pid_leaf = (int32_t)c->nf;
				c->pid_rank = (int32_t)i;
			}
		}
	}
	if (in_ctx && f.kind == SF_STR && name && (!strcmp(name, "procname") || !strcmp(name, "_procname")))
		c->comm_leaf = (int32_t)c->nf;
	c->f[c->nf++] = f;
	return 0;
}

/*
 * Name of a variant option in field names: its own, or its index when it
 * has none (CTF 2).  Writes into buf.
 */
static const char *option_name(const tio_fc *var, uint32_t k, char *buf, size_t n)
{
	const char *on = var->v.options[k].name;
	if (on && *on)
		return on;
	snprintf(buf, n, "%u", k);
	return buf;
}

/*
 * The fields of a value: structures are flattened (member names joined by
 * '_'); a variant NAME becomes NAME (its chosen option's name, a string) then
 * the fields of every option under NAME_OPTION, which only the chosen one
 * fills (the others hold 0 / empty); any other value is one field.
 */
static int add_node(synth *y, const tio_fc *fc, const char *name, bool in_ctx)
{
	if (fc->kind != TIO_FC_STRUCT && fc->kind != TIO_FC_VARIANT)
		return add_leaf(y, fc, name[0] ? name : "value", in_ctx);
	if (fc->kind == TIO_FC_VARIANT) {
		int e = add_leaf(y, fc, name[0] ? name : "value", in_ctx);
		for (uint32_t k = 0; !e && k < fc->v.noptions; k++) {
			char ib[16];
			const char *on = option_name(fc, k, ib, sizeof(ib));
			char *full = name[0] ? tio_asprintf("%s_%s", name, on) : tio_strdup(on);
			if (!full)
				return TIO_ERR_NOMEM;
			e = add_node(y, fc->v.options[k].fc, full, in_ctx);
			free(full);
		}
		return e;
	}
	for (uint32_t i = 0; i < fc->st.nmembers; i++) {
		const tio_member *m = &fc->st.members[i];
		const char *mn = m->name ? m->name : "field";
		char *full = name[0] ? tio_asprintf("%s_%s", name, mn) : tio_strdup(mn);
		if (!full)
			return TIO_ERR_NOMEM;
		int e = add_node(y, m->fc, full, in_ctx);
		free(full);
		if (e)
			return e;
	}
	return 0;
}

/* Leaves of a scope (NULL: none). */
static int add_scope(synth *y, const tio_fc *fc, bool in_ctx)
{
	return fc ? add_node(y, fc, "", in_ctx) : 0;
}

/* A format file for an event class of another format. */
static int synth_class(twsink *w, const tio_trace *t, const tio_event_class *ec, wclass **out)
{
	wclass *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return TIO_ERR_NOMEM;
	c->pid_leaf = c->comm_leaf = -1;
	c->fixed = 8; /* common fields */
	synth y = {.w = w, .c = c};
	const char *colon = ec->name ? strchr(ec->name, ':') : NULL;
	const char *nm = ec->name && *ec->name ? ec->name : "event";
	if (colon && colon[1] && colon != ec->name) {
		c->system = tio_strndup(ec->name, (size_t)(colon - ec->name));
		nm = colon + 1;
		while (*nm == ':')
			nm++;
		if (!*nm)
			nm = ec->name;
	} else {
		c->system = tio_strdup(t->fmt && t->fmt->name ? t->fmt->name : "traceio");
	}
	c->name = tio_strdup(nm);
	int e = !c->system || !c->name ? TIO_ERR_NOMEM : 0;
	if (!e) {
		/* libtraceevent reads both as one token: C identifier characters only */
		for (char *p = c->system; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
				*p = '_';
		for (char *p = c->name; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
				*p = '_';
	}
	if (!e)
		e = new_id(w, &c->id);
	const tio_stream_class *sc = ec->sc;
	if (!e && sc)
		e = add_scope(&y, sc->ev_common_ctx, true);
	if (!e)
		e = add_scope(&y, ec->spec_ctx, true);
	if (!e)
		e = add_scope(&y, ec->payload, false);
	if (!e) {
		c->format = tio_asprintf("name: %s\nID: %u\nformat:\n"
					 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
					 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
					 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
					 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
					 "%s\nprint fmt: \"%s\"%s\n",
					 c->name, c->id, tio_buf_cstr(&y.fields) ? tio_buf_cstr(&y.fields) : "",
					 tio_buf_cstr(&y.pfmt) ? tio_buf_cstr(&y.pfmt) : "",
					 tio_buf_cstr(&y.pargs) ? tio_buf_cstr(&y.pargs) : "");
		if (!c->format)
			e = TIO_ERR_NOMEM;
	}
	tio_buf_free(&y.fields);
	tio_buf_free(&y.pfmt);
	tio_buf_free(&y.pargs);
	for (uint32_t i = 0; i < y.nnames; i++)
		free(y.names[i]);
	free(y.names);
	if (!e && c->fixed > 0xffff)
		e = tio_err_set(TIO_ERR_UNSUPPORTED, "event %s: too many fields for a trace.dat record", c->name);
	if (e || add_class(w, c)) {
		class_free(c);
		return e ? e : TIO_ERR_NOMEM;
	}
	*out = c;
	return 0;
}

/* ---------------------------------------------------------------- inputs */

static int set_layout(twsink *w, const tio_trace *t)
{
	const tio_trace_class *tc = t->tc;
	bool ft = false;
	for (uint32_t i = 0; i < tc->nscs && !ft; i++)
		for (uint32_t j = 0; j < tc->scs[i]->necs && !ft; j++)
			ft = is_ftrace_class(t, tc->scs[i]->ecs[j]);
	if (!ft)
		return 0;
	bool be = tc->byte_order == TIO_BE;
	uint32_t ls = (uint32_t)env_int(tc, "long_size", 8), ps = (uint32_t)env_int(tc, "page_size", 4096);
	if (w->meta) {
		if (be != w->be || ls != w->long_size || ps != w->page_size)
			return tio_err_set(TIO_ERR_UNSUPPORTED,
					   "%s: cannot merge trace.dat inputs of different byte order, long size or "
					   "page size into one file",
					   t->path ? t->path : "input");
		return 0;
	}
	if (w->nclasses)
		return tio_err_set(TIO_ERR_UNSUPPORTED,
				   "%s: a trace.dat input must come before inputs of other formats", t->path);
	w->meta = tc;
	w->be = be;
	w->long_size = ls == 4 ? 4 : 8;
	w->page_size = ps >= 256 && ps <= (1u << 20) ? ps : 4096;
	w->layout_set = true;
	parse_header_page(w, table(tc, "header_page"));
	if (w->hp_data_off + 64 > w->page_size)
		parse_header_page(w, NULL);
	uint32_t cpus = (uint32_t)env_int(tc, "cpus", 0);
	if (cpus > w->cpus && cpus <= 65536)
		w->cpus = cpus;
	return 0;
}

static int tw_add_trace(tio_sink *s, const tio_trace *t)
{
	twsink *w = (twsink *)s;
	for (size_t i = 0; i < w->ntraces; i++)
		if (w->traces[i] == t)
			return 0;
	if (tio_grow(&w->traces, &w->tcap, w->ntraces + 1, sizeof(*w->traces)))
		return TIO_ERR_NOMEM;
	w->traces[w->ntraces++] = t;
	int e = set_layout(w, t);
	if (e)
		return e;
	if (!w->layout_set) {
		w->layout_set = true;
		w->be = false;
		w->long_size = 8;
		w->page_size = 4096;
		parse_header_page(w, NULL);
	}
	const tio_trace_class *tc = t->tc;
	/* trace.dat classes keep their ids: first all of them, then the others */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < tc->nscs; i++) {
			const tio_stream_class *sc = tc->scs[i];
			for (uint32_t j = 0; j < sc->necs; j++) {
				const tio_event_class *ec = sc->ecs[j];
				bool ft = is_ftrace_class(t, ec);
				if (ft != (pass == 0) || pmap_get(&w->ecmap, ec))
					continue;
				wclass *c;
				e = ft ? ftrace_class(w, ec, &c) : synth_class(w, t, ec, &c);
				if (!e)
					e = pmap_put(&w->ecmap, ec, c);
				if (e)
					return e;
			}
		}
	}
	return 0;
}

static wbuf *get_buf(twsink *w, const char *name)
{
	for (size_t i = 0; i < w->nbufs; i++)
		if (!strcmp(w->bufs[i]->name, name))
			return w->bufs[i];
	if (tio_grow(&w->bufs, &w->bcap, w->nbufs + 1, sizeof(*w->bufs)))
		return NULL;
	wbuf *b = tio_calloc(1, sizeof(*b));
	if (!b || !(b->name = tio_strdup(name))) {
		free(b);
		return NULL;
	}
	/* the top instance first */
	if (!name[0]) {
		memmove(&w->bufs[1], &w->bufs[0], w->nbufs * sizeof(*w->bufs));
		w->bufs[0] = b;
	} else {
		w->bufs[w->nbufs] = b;
	}
	w->nbufs++;
	return b;
}

static wcpu *get_cpu(twsink *w, wbuf *b, uint32_t cpu)
{
	if (cpu >= 65536) {
		tio_err_set(TIO_ERR_UNSUPPORTED, "CPU %u: too many CPUs", cpu);
		return NULL;
	}
	if (cpu >= b->ncpus) {
		wcpu **n = tio_realloc(b->cpus, (cpu + 1) * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + b->ncpus, 0, (cpu + 1 - b->ncpus) * sizeof(*n));
		b->cpus = n;
		b->ncpus = cpu + 1;
	}
	if (!b->cpus[cpu]) {
		wcpu *c = tio_calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->page = tio_calloc(1, w->page_size);
		c->tmp = tmpfile();
		if (w->version >= 7 && w->comp != COMP_NONE)
			c->chunk = tio_malloc((size_t)w->page_size * CHUNK_PAGES);
		if (!c->page || !c->tmp || (w->version >= 7 && w->comp != COMP_NONE && !c->chunk)) {
			if (!c->tmp)
				tio_err_set(TIO_ERR_IO, "temporary file: %s", strerror(errno));
			else
				fclose(c->tmp);
			free(c->page);
			free(c->chunk);
			free(c);
			return NULL;
		}
		b->cpus[cpu] = c;
	}
	if (cpu + 1 > w->cpus)
		w->cpus = cpu + 1;
	return b->cpus[cpu];
}

/* The packet context's cpu_id, if the stream has one (LTTng). */
static bool msg_cpu_id(const tio_msg *m, uint32_t *cpu)
{
	const tio_val *pc = m->scope[TIO_SCOPE_PKT_CTX];
	if (!pc || !pc->fc || pc->fc->kind != TIO_FC_STRUCT)
		return false;
	int k = tio_fc_member_index(pc->fc, "cpu_id");
	if (k < 0 || (uint32_t)k >= pc->n)
		return false;
	uint32_t j = (uint32_t)(pc - m->vals) + 1;
	for (int t = 0; t < k && j < m->nvals; t++)
		j = m->vals[j].end;
	if (j >= m->nvals || m->vals[j].fc->kind != TIO_FC_INT || m->vals[j].v.u >= 4096)
		return false;
	*cpu = (uint32_t)m->vals[j].v.u;
	return true;
}

static wstream *get_stream(twsink *w, const tio_msg *m)
{
	const tio_stream *st = m->stream;
	wstream *ws = pmap_get(&w->smap, st);
	if (ws)
		return ws;
	ws = tio_calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	bool ft = m->ec && is_ftrace_class(st->trace, m->ec);
	if (!m->ec && st->sc)
		for (uint32_t j = 0; j < st->sc->necs && !ft; j++)
			ft = is_ftrace_class(st->trace, st->sc->ecs[j]);
	uint32_t cpu;
	if (ft) {
		ws->b = get_buf(w, st->sc && st->sc->name ? st->sc->name : "");
		cpu = (uint32_t)st->id;
	} else {
		ws->b = get_buf(w, "");
		if (!msg_cpu_id(m, &cpu))
			cpu = w->dense_cpus++;
	}
	ws->cpu = cpu;
	if (!ws->b || !get_cpu(w, ws->b, cpu) || pmap_put(&w->smap, st, ws)) {
		free(ws);
		return NULL;
	}
	return ws;
}

/* ---------------------------------------------------------------- pages */

static size_t zbound(const twsink *w, size_t n)
{
	return w->comp == COMP_ZSTD ? ZSTD_compressBound(n) : (size_t)compressBound((uLong)n);
}

/* Compress src into w->zbuf; returns the compressed size, 0 on error (set). */
static size_t zcompress(twsink *w, const void *src, size_t n)
{
	size_t bound = zbound(w, n);
	if (bound > w->zcap) {
		uint8_t *nb = tio_realloc(w->zbuf, bound);
		if (!nb)
			return 0;
		w->zbuf = nb;
		w->zcap = bound;
	}
	if (w->comp == COMP_ZSTD) {
		if (!w->zctx && !(w->zctx = ZSTD_createCCtx())) {
			tio_err_oom();
			return 0;
		}
		size_t r = ZSTD_compressCCtx(w->zctx, w->zbuf, w->zcap, src, n, 3);
		if (ZSTD_isError(r)) {
			tio_err_set(TIO_ERR_IO, "zstd: %s", ZSTD_getErrorName(r));
			return 0;
		}
		return r;
	}
	uLongf dl = (uLongf)w->zcap;
	int r = compress2(w->zbuf, &dl, src, (uLong)n, Z_DEFAULT_COMPRESSION);
	if (r != Z_OK) {
		tio_err_set(TIO_ERR_IO, "zlib: error %d", r);
		return 0;
	}
	return (size_t)dl;
}

static int tmp_write(wcpu *c, const void *p, size_t n)
{
	if (fwrite(p, 1, n, c->tmp) != n)
		return tio_err_set(TIO_ERR_IO, "temporary file: write error: %s", strerror(errno));
	c->bytes += n;
	return 0;
}

static int flush_chunk(twsink *w, wcpu *c)
{
	if (!c->chunk_pages)
		return 0;
	size_t us = (size_t)c->chunk_pages * w->page_size;
	size_t cs = zcompress(w, c->chunk, us);
	if (!cs)
		return TIO_ERR_IO;
	uint8_t h[8];
	put32(w, h, (uint32_t)cs);
	put32(w, h + 4, (uint32_t)us);
	int e = tmp_write(c, h, 8);
	if (!e)
		e = tmp_write(c, w->zbuf, cs);
	c->nchunks++;
	c->chunk_pages = 0;
	return e;
}

/* Close the current page: commit word (with the lost-events flags), then out. */
static int flush_page(twsink *w, wcpu *c)
{
	if (!c->open)
		return 0;
	uint64_t commit = c->used;
	if (c->missed) {
		commit |= MISSING_EVENTS;
		if (c->missed > 0) {
			commit |= MISSING_STORED;
			putn(w, c->page + w->hp_data_off + c->used, (uint64_t)c->missed, w->long_size);
		}
		c->missed = 0;
	}
	putn(w, c->page + w->hp_commit_off, commit, w->hp_commit_size);
	int e = 0;
	if (c->chunk) {
		memcpy(c->chunk + (size_t)c->chunk_pages * w->page_size, c->page, w->page_size);
		if (++c->chunk_pages == CHUNK_PAGES)
			e = flush_chunk(w, c);
	} else {
		e = tmp_write(c, c->page, w->page_size);
	}
	memset(c->page, 0, w->page_size);
	c->used = 0;
	c->open = false;
	return e;
}

static void event_header(const twsink *w, uint8_t *p, uint32_t type_len, uint32_t delta)
{
	put32(w, p, w->be ? (type_len << 27) | (delta & TS_DELTA_MAX) : (delta << 5) | type_len);
}

/* Append one record (len bytes, a multiple of 4) at time ts. */
static int put_record(twsink *w, wcpu *c, const uint8_t *data, uint32_t len, uint64_t ts)
{
	uint32_t cap = w->page_size - w->hp_data_off;
	uint32_t hdr = len && len <= 28 * 4 ? 4 : 8;
	if (ts < c->last_ts)
		ts = c->last_ts; /* never back in time inside a CPU */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!c->open) {
			put64(w, c->page + w->hp_ts_off, ts);
			c->open = true;
			c->last_ts = ts;
		}
		uint64_t delta = ts - c->last_ts;
		uint32_t ext = delta > TS_DELTA_MAX ? 8 : 0;
		uint32_t reserve = c->missed > 0 ? w->long_size : 0;
		if (c->used + ext + hdr + len + reserve <= cap) {
			uint8_t *p = c->page + w->hp_data_off + c->used;
			if (ext) {
				event_header(w, p, 30, (uint32_t)(delta & TS_DELTA_MAX));
				put32(w, p + 4, (uint32_t)(delta >> 27));
				p += 8;
				delta = 0;
			}
			if (hdr == 4) {
				event_header(w, p, len / 4, (uint32_t)delta);
			} else {
				event_header(w, p, 0, (uint32_t)delta);
				put32(w, p + 4, len + 4);
			}
			memcpy(p + hdr, data, len);
			c->used += ext + hdr + len;
			c->last_ts = ts;
			c->events++;
			return 0;
		}
		if (!c->used) /* a fresh page cannot hold it */
			break;
		int e = flush_page(w, c);
		if (e)
			return e;
	}
	return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: a record of %u bytes does not fit in a %u-byte page", w->out,
			   len, w->page_size);
}

/* ---------------------------------------------------------------- synthesized records */

static void render_text(tio_buf *b, const tio_msg *m, uint32_t i);

/* Text of a value subtree (SF_TEXT fields and array elements). */
static void render_text(tio_buf *b, const tio_msg *m, uint32_t i)
{
	const tio_val *v = &m->vals[i];
	const tio_fc *fc = v->fc;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		if (fc->i.size > 64) {
			/* "0x" and hex digits, most significant first, no leading zeros */
			tio_buf_addl(b, "0x");
			unsigned n = (fc->i.size + 7) / 8;
			bool lead = true;
			for (unsigned k = 0; k < 2 * n; k++) {
				unsigned byte = fc->i.byte_order == TIO_BE ? v->v.big[k / 2] : v->v.big[n - 1 - k / 2];
				unsigned nib = k % 2 ? byte & 15 : byte >> 4;
				if (lead && !nib && k + 1 < 2 * n)
					continue;
				lead = false;
				tio_buf_addc(b, "0123456789abcdef"[nib]);
			}
		} else if (fc->i.is_signed) {
			tio_buf_addi(b, v->v.i);
		} else if (fc->i.base == 16) {
			tio_buf_addl(b, "0x");
			tio_buf_addx(b, v->v.u, false);
		} else {
			tio_buf_addu(b, v->v.u);
		}
		return;
	case TIO_FC_VARINT:
		if (fc->vi.is_signed)
			tio_buf_addi(b, v->v.i);
		else
			tio_buf_addu(b, v->v.u);
		return;
	case TIO_FC_FLOAT:
		/* enough digits to read the same binary32 / binary64 back */
		tio_buf_addf(b, fc->f.mant_dig <= 24 ? "%.9g" : "%.17g", v->v.d);
		return;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
		tio_buf_add(b, v->v.s.p, v->v.s.len);
		return;
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		for (uint64_t k = 0; k < v->v.s.len; k++) {
			uint8_t c = (uint8_t)v->v.s.p[k];
			tio_buf_addc(b, "0123456789abcdef"[c >> 4]);
			tio_buf_addc(b, "0123456789abcdef"[c & 15]);
		}
		return;
	case TIO_FC_STRUCT: {
		tio_buf_addc(b, '{');
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < v->n && j < v->end; k++) {
			if (k)
				tio_buf_addl(b, ", ");
			if (k < fc->st.nmembers && fc->st.members[k].name) {
				tio_buf_adds(b, fc->st.members[k].name);
				tio_buf_addc(b, '=');
			}
			render_text(b, m, j);
			j = m->vals[j].end;
		}
		tio_buf_addc(b, '}');
		return;
	}
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		if (fc->a.text && v->v.s.p) {
			tio_buf_add(b, v->v.s.p, strnlen(v->v.s.p, v->v.s.len));
			return;
		}
		if (fc->a.text) {
			/* characters up to the first NUL */
			uint32_t j = i + 1;
			for (uint32_t k = 0; k < v->n && j < v->end; k++) {
				if (!m->vals[j].v.u)
					break;
				tio_buf_addc(b, (char)m->vals[j].v.u);
				j = m->vals[j].end;
			}
			return;
		}
		/* fallthrough */
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL: {
		bool arr = fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE;
		if (arr)
			tio_buf_addc(b, '[');
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < v->n && j < v->end; k++) {
			if (k)
				tio_buf_addl(b, ", ");
			render_text(b, m, j);
			j = m->vals[j].end;
		}
		if (arr)
			tio_buf_addc(b, ']');
		return;
	}
	}
}

/* Leaves of a value subtree, in the order add_scope() made them. */
typedef struct enc {
	twsink *w;
	const tio_msg *m;
	const wclass *c;
	uint32_t leaf;
	uint8_t *rec;	 /* fixed part, already sized */
	uint32_t budget; /* bytes the dynamic part may still use */
	int64_t pid;
	const char *comm;
	size_t comm_len;
} enc;

/* Append dynamic data and fill the __data_loc word (offset | len << 16). */
static int put_dyn(enc *x, const sfield *f, const void *p, size_t n, bool nul)
{
	twsink *w = x->w;
	size_t want = n + (nul ? 1 : 0);
	if (want > x->budget)
		want = x->budget;
	if (want > 0xffff)
		want = 0xffff;
	size_t at = w->rec.len;
	if (tio_buf_reserve(&w->rec, want))
		return TIO_ERR_NOMEM;
	size_t copy = nul ? (want ? want - 1 : 0) : want;
	if (copy > n)
		copy = n;
	memcpy(w->rec.p + at, p, copy);
	if (nul && want)
		w->rec.p[at + copy] = 0;
	size_t used = copy + (nul && want ? 1 : 0);
	w->rec.len = at + used;
	x->budget -= (uint32_t)used;
	/* the fixed part may have moved with the buffer */
	put32(w, (uint8_t *)w->rec.p + f->offset, (uint32_t)at | ((uint32_t)used << 16));
	return 0;
}

static int enc_leaf(enc *x, uint32_t i)
{
	twsink *w = x->w;
	const tio_msg *m = x->m;
	if (x->leaf >= x->c->nf)
		return 0;
	const sfield *f = &x->c->f[x->leaf];
	const tio_val *v = &m->vals[i];
	uint8_t *rec = (uint8_t *)w->rec.p;
	switch (f->kind) {
	case SF_INT:
		putn(w, rec + f->offset, v->v.u, f->size);
		if ((int32_t)x->leaf == x->c->pid_leaf)
			x->pid = v->v.i;
		break;
	case SF_FLOAT:
		if (f->size == 4) {
			float fv = (float)v->v.d;
			uint32_t bits;
			memcpy(&bits, &fv, 4);
			putn(w, rec + f->offset, bits, 4);
		} else {
			uint64_t bits;
			memcpy(&bits, &v->v.d, 8);
			putn(w, rec + f->offset, bits, 8);
		}
		break;
	case SF_VSEL: {
		char ib[16];
		const char *on = v->opt < v->fc->v.noptions ? option_name(v->fc, v->opt, ib, sizeof(ib)) : "";
		if (put_dyn(x, f, on, strlen(on), true))
			return TIO_ERR_NOMEM;
		break;
	}
	case SF_STR:
		if (v->fc->kind == TIO_FC_ARRAY || v->fc->kind == TIO_FC_SEQUENCE) {
			/* a text array: its bytes, up to the first NUL */
			tio_buf_reset(&w->text);
			render_text(&w->text, m, i);
			if ((int32_t)x->leaf == x->c->comm_leaf) {
				x->comm = w->text.p;
				x->comm_len = w->text.len;
			}
			if (put_dyn(x, f, w->text.p ? w->text.p : "", w->text.len, true))
				return TIO_ERR_NOMEM;
		} else {
			if ((int32_t)x->leaf == x->c->comm_leaf) {
				x->comm = v->v.s.p;
				x->comm_len = v->v.s.len;
			}
			if (put_dyn(x, f, v->v.s.p, strnlen(v->v.s.p ? v->v.s.p : "", v->v.s.len), true))
				return TIO_ERR_NOMEM;
		}
		break;
	case SF_ARRAY: {
		/* elements in the output's byte order, one size */
		uint32_t n = v->n;
		size_t bytes = (size_t)n * f->size;
		if (bytes > x->budget)
			n = x->budget / f->size, bytes = (size_t)n * f->size;
		size_t at = w->rec.len;
		if (tio_buf_reserve(&w->rec, bytes))
			return TIO_ERR_NOMEM;
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < n && j < v->end; k++) {
			putn(w, (uint8_t *)w->rec.p + at + (size_t)k * f->size, m->vals[j].v.u, f->size);
			j = m->vals[j].end;
		}
		w->rec.len = at + bytes;
		x->budget -= (uint32_t)bytes;
		put32(w, (uint8_t *)w->rec.p + f->offset, (uint32_t)at | ((uint32_t)bytes << 16));
		break;
	}
	default:
		tio_buf_reset(&w->text);
		render_text(&w->text, m, i);
		if (put_dyn(x, f, w->text.p ? w->text.p : "", w->text.len, true))
			return TIO_ERR_NOMEM;
		break;
	}
	x->leaf++;
	return 0;
}

/* The fields of a value that is absent (a variant's options not chosen): 0 or empty. */
static int enc_absent(enc *x, const tio_fc *fc)
{
	if (fc->kind == TIO_FC_STRUCT) {
		for (uint32_t k = 0; k < fc->st.nmembers; k++) {
			int e = enc_absent(x, fc->st.members[k].fc);
			if (e)
				return e;
		}
		return 0;
	}
	if (x->leaf >= x->c->nf)
		return 0;
	const sfield *f = &x->c->f[x->leaf++];
	/* the fixed part is zeroed; dynamic fields get an empty string or array
	   (a __data_loc of length 0 would show the record's first bytes as text) */
	if (f->kind == SF_STR || f->kind == SF_VSEL || f->kind == SF_TEXT) {
		if (put_dyn(x, f, "", 0, true))
			return TIO_ERR_NOMEM;
	} else if (f->kind == SF_ARRAY) {
		put32(x->w, (uint8_t *)x->w->rec.p + f->offset, (uint32_t)x->w->rec.len);
	}
	if (fc->kind == TIO_FC_VARIANT) {
		for (uint32_t k = 0; k < fc->v.noptions; k++) {
			int e = enc_absent(x, fc->v.options[k].fc);
			if (e)
				return e;
		}
	}
	return 0;
}

/* Fill the fields add_node() made for the value at i (of class fc). */
static int enc_node(enc *x, const tio_fc *fc, uint32_t i)
{
	const tio_val *v = &x->m->vals[i];
	if (fc->kind == TIO_FC_VARIANT) {
		int e = enc_leaf(x, i);
		for (uint32_t k = 0; !e && k < fc->v.noptions; k++)
			e = k == v->opt && v->n && i + 1 < v->end ? enc_node(x, fc->v.options[k].fc, i + 1)
								 : enc_absent(x, fc->v.options[k].fc);
		return e;
	}
	if (fc->kind != TIO_FC_STRUCT)
		return enc_leaf(x, i);
	uint32_t j = i + 1;
	for (uint32_t k = 0; k < fc->st.nmembers; k++) {
		const tio_fc *mf = fc->st.members[k].fc;
		/* a value tree shorter than its class still fills every field */
		int e = k < v->n && j < v->end ? enc_node(x, mf, j) : enc_absent(x, mf);
		if (e)
			return e;
		if (k < v->n && j < v->end)
			j = x->m->vals[j].end;
	}
	return 0;
}

/* Remember pid -> comm for saved_cmdlines (first comm seen for a pid). */
static void note_comm(twsink *w, int64_t pid, const char *comm, size_t len)
{
	if (pid <= 0 || pid > INT32_MAX || !comm || w->ncmd >= MAX_CMDLINES)
		return;
	const void *key = (const void *)(uintptr_t)(pid + 1);
	if (pmap_get(&w->pids, key))
		return;
	if (pmap_put(&w->pids, key, (void *)1))
		return;
	len = strnlen(comm, len);
	tio_buf_addu(&w->cmdlines, (uint64_t)pid);
	tio_buf_addc(&w->cmdlines, ' ');
	for (size_t k = 0; k < len && k < 64; k++)
		tio_buf_addc(&w->cmdlines, comm[k] == '\n' ? ' ' : comm[k]);
	tio_buf_addc(&w->cmdlines, '\n');
	w->ncmd++;
}

static int synth_record(twsink *w, wcpu *cpu, const wclass *c, const tio_msg *m, uint64_t ts)
{
	uint32_t cap = w->page_size - w->hp_data_off - 8 - w->long_size;
	tio_buf *r = &w->rec;
	tio_buf_reset(r);
	if (c->fixed > cap)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "event %s: %u bytes of fields do not fit in a page", c->name,
				   c->fixed);
	if (tio_buf_reserve(r, c->fixed))
		return TIO_ERR_NOMEM;
	memset(r->p, 0, c->fixed);
	r->len = c->fixed;
	enc x = {.w = w, .m = m, .c = c, .budget = cap - c->fixed, .pid = 0};
	static const int scopes[] = {TIO_SCOPE_EV_COMMON_CTX, TIO_SCOPE_EV_SPEC_CTX, TIO_SCOPE_PAYLOAD};
	const tio_fc *fcs[] = {c && m->ec && m->ec->sc ? m->ec->sc->ev_common_ctx : NULL, m->ec->spec_ctx,
			       m->ec->payload};
	for (size_t k = 0; k < TIO_ARRAY_LEN(scopes); k++) {
		const tio_val *root = m->scope[scopes[k]];
		if (!fcs[k] || !root)
			continue;
		int e = enc_node(&x, fcs[k], (uint32_t)(root - m->vals));
		if (e)
			return e;
	}
	uint8_t *p = (uint8_t *)r->p;
	put16(w, p, (uint16_t)c->id);
	put32(w, p + 4, (uint32_t)x.pid);
	if (c->comm_leaf >= 0)
		note_comm(w, x.pid, x.comm, x.comm_len);
	while (r->len % 4)
		tio_buf_addc(r, 0);
	return put_record(w, cpu, (const uint8_t *)r->p, (uint32_t)r->len, ts);
}

/* ---------------------------------------------------------------- messages */

static int tw_consume(tio_sink *s, const tio_msg *m)
{
	twsink *w = (twsink *)s;
	if (!m->stream || !m->stream->trace)
		return 0;
	if (m->type != TIO_MSG_EVENT && m->type != TIO_MSG_DISCARDED_EVENTS)
		return 0;
	if (m->stream->trace != w->last_trace) {
		int e = tw_add_trace(s, m->stream->trace);
		if (e)
			return e;
		w->last_trace = m->stream->trace;
	}
	wstream *ws = get_stream(w, m);
	if (!ws)
		return TIO_ERR_NOMEM;
	wcpu *c = ws->b->cpus[ws->cpu];
	if (m->type == TIO_MSG_DISCARDED_EVENTS) {
		/* the next record starts a page that says so */
		int e = flush_page(w, c);
		if (e)
			return e;
		/* several before one record add up (an unknown count stays unknown) */
		if (!m->count || c->missed < 0)
			c->missed = -1;
		else if (c->missed + (int64_t)m->count > 0)
			c->missed += (int64_t)m->count;
		else
			c->missed = -1;
		return 0;
	}
	if (!m->ec)
		return 0;
	const wclass *wc = pmap_get(&w->ecmap, m->ec);
	if (!wc)
		return tio_err_set(TIO_ERR_FORMAT, "%s: event class %s not announced", w->out, m->ec->name);
	uint64_t ts = m->has_ts ? (m->ns < 0 ? 0 : (uint64_t)m->ns) : c->last_ts;
	if (wc->raw) {
		if (!m->raw)
			return tio_err_set(TIO_ERR_FORMAT, "%s: event %s has no raw record", w->out, m->ec->name);
		if (m->raw_len > 0xffff)
			return tio_err_set(TIO_ERR_FORMAT, "event %s: record too large", m->ec->name);
		if (wc->id == wc->in_id)
			return put_record(w, c, m->raw, (uint32_t)m->raw_len, ts);
		/* another id in the output: patch common_type in a copy */
		tio_buf_reset(&w->rec);
		if (tio_buf_add(&w->rec, m->raw, m->raw_len))
			return TIO_ERR_NOMEM;
		if (wc->type_off + wc->type_size <= m->raw_len)
			putn(w, (uint8_t *)w->rec.p + wc->type_off, wc->id, wc->type_size);
		return put_record(w, c, (const uint8_t *)w->rec.p, (uint32_t)m->raw_len, ts);
	}
	return synth_record(w, c, wc, m, ts);
}

/* ---------------------------------------------------------------- the file */

/* Output with a position: pass 1 (f NULL) only counts, pass 2 writes. */
typedef struct out {
	FILE *f;
	uint64_t pos;
	const twsink *w;
	int err;
} out;

static void o_bytes(out *o, const void *p, size_t n)
{
	if (o->f && !o->err && n && fwrite(p, 1, n, o->f) != n)
		o->err = tio_err_set(TIO_ERR_IO, "%s: write error: %s", o->w->out, strerror(errno));
	o->pos += n;
}

static void o_u16(out *o, uint16_t v)
{
	uint8_t b[2];
	put16(o->w, b, v);
	o_bytes(o, b, 2);
}

static void o_u32(out *o, uint32_t v)
{
	uint8_t b[4];
	put32(o->w, b, v);
	o_bytes(o, b, 4);
}

static void o_u64(out *o, uint64_t v)
{
	uint8_t b[8];
	put64(o->w, b, v);
	o_bytes(o, b, 8);
}

static void o_str(out *o, const char *s) { o_bytes(o, s, strlen(s) + 1); }

static void o_pad(out *o, uint64_t align)
{
	static const uint8_t zero[4096];
	while (o->pos % align) {
		uint64_t n = align - o->pos % align;
		o_bytes(o, zero, n > sizeof(zero) ? sizeof(zero) : (size_t)n);
	}
}

static void o_tmp(out *o, wcpu *c)
{
	if (!c || !c->bytes)
		return;
	if (!o->f) {
		o->pos += c->bytes;
		return;
	}
	char buf[65536];
	rewind(c->tmp);
	uint64_t left = c->bytes;
	/* in the kernel when it can (no copy through user space; none at all on
	   a file system that shares extents), else read and write */
	if (!o->err && !fflush(o->f)) {
		int in = fileno(c->tmp), outfd = fileno(o->f);
		loff_t off_in = 0;
		while (left) {
			ssize_t n = copy_file_range(in, &off_in, outfd, NULL, left > (1u << 30) ? (1u << 30) : (size_t)left, 0);
			if (n <= 0)
				break;
			left -= (uint64_t)n;
			o->pos += (uint64_t)n;
		}
		/* the stream goes on where the copy ended (o->pos: the file's offset,
		   set explicitly rather than trusting stdio's cached one); the rest,
		   if any, by hand */
		if (fseeko(o->f, (off_t)o->pos, SEEK_SET) || fseeko(c->tmp, off_in, SEEK_SET)) {
			o->err = tio_err_set(TIO_ERR_IO, "%s: seek error: %s", o->w->out, strerror(errno));
			return;
		}
	}
	while (left && !o->err) {
		size_t n = fread(buf, 1, left < sizeof(buf) ? (size_t)left : sizeof(buf), c->tmp);
		if (!n) {
			o->err = tio_err_set(TIO_ERR_IO, "temporary file: read error");
			break;
		}
		o_bytes(o, buf, n);
		left -= n;
	}
}

/* The metadata blobs, each in the layout of its v6 part / v7 section. */
typedef struct meta {
	tio_buf part[6]; /* header, ftrace formats, event formats, kallsyms, printk, cmdlines */
} meta;

static void b_u32(const twsink *w, tio_buf *b, uint32_t v)
{
	uint8_t t[4];
	put32(w, t, v);
	tio_buf_add(b, t, 4);
}

static void b_u64(const twsink *w, tio_buf *b, uint64_t v)
{
	uint8_t t[8];
	put64(w, t, v);
	tio_buf_add(b, t, 8);
}

static void b_text64(const twsink *w, tio_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	b_u64(w, b, n);
	tio_buf_add(b, s ? s : "", n);
}

static void b_text32(const twsink *w, tio_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	b_u32(w, b, (uint32_t)n);
	tio_buf_add(b, s ? s : "", n);
}

static int build_meta(twsink *w, meta *mt)
{
	const tio_trace_class *tc = w->meta;
	char *hp = NULL;
	const char *hpt = table(tc, "header_page");
	if (!hpt && !(hpt = hp = make_header_page(w)))
		return TIO_ERR_NOMEM;
	const char *het = table(tc, "header_event");
	tio_buf *b = &mt->part[0];
	tio_buf_add(b, "header_page", 12);
	b_text64(w, b, hpt);
	tio_buf_add(b, "header_event", 13);
	b_text64(w, b, het ? het : header_event_text);
	free(hp);
	/* ftrace formats, then the other systems in the order they first appear */
	b = &mt->part[1];
	uint32_t n = 0;
	for (size_t i = 0; i < w->nclasses; i++)
		n += !strcmp(w->classes[i]->system, "ftrace");
	b_u32(w, b, n);
	for (size_t i = 0; i < w->nclasses; i++)
		if (!strcmp(w->classes[i]->system, "ftrace"))
			b_text64(w, b, w->classes[i]->format);
	b = &mt->part[2];
	uint32_t nsys = 0;
	for (size_t i = 0; i < w->nclasses; i++) {
		const char *sys = w->classes[i]->system;
		bool first = strcmp(sys, "ftrace") != 0;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(w->classes[j]->system, sys) != 0;
		nsys += first;
	}
	b_u32(w, b, nsys);
	for (size_t i = 0; i < w->nclasses; i++) {
		const char *sys = w->classes[i]->system;
		bool first = strcmp(sys, "ftrace") != 0;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(w->classes[j]->system, sys) != 0;
		if (!first)
			continue;
		tio_buf_add(b, sys, strlen(sys) + 1);
		uint32_t cnt = 0;
		for (size_t j = i; j < w->nclasses; j++)
			cnt += !strcmp(w->classes[j]->system, sys);
		b_u32(w, b, cnt);
		for (size_t j = i; j < w->nclasses; j++)
			if (!strcmp(w->classes[j]->system, sys))
				b_text64(w, b, w->classes[j]->format);
	}
	b_text32(w, &mt->part[3], table(tc, "kallsyms"));
	b_text32(w, &mt->part[4], table(tc, "printk_formats"));
	/* cmdlines: the input's, then the ones learnt from contexts */
	const char *cl = table(tc, "saved_cmdlines");
	tio_buf all = {0};
	if (cl)
		tio_buf_adds(&all, cl);
	if (w->cmdlines.len)
		tio_buf_add(&all, w->cmdlines.p, w->cmdlines.len);
	b_text64(w, &mt->part[5], tio_buf_cstr(&all));
	tio_buf_free(&all);
	for (int i = 0; i < 6; i++)
		if (!mt->part[i].p && tio_buf_reserve(&mt->part[i], 1))
			return TIO_ERR_NOMEM;
	return 0;
}

static void o_option(out *o, uint16_t id, const void *d, uint32_t n)
{
	o_u16(o, id);
	o_u32(o, n);
	o_bytes(o, d, n);
}

static void o_option_str(out *o, uint16_t id, const char *s)
{
	o_option(o, id, s, (uint32_t)strlen(s) + 1);
}

static void o_option_u64(out *o, uint16_t id, uint64_t v)
{
	uint8_t b[8];
	put64(o->w, b, v);
	o_option(o, id, b, 8);
}

/* Options every version carries (from the first trace.dat input). */
static void o_common_options(out *o, const twsink *w, tio_buf *tmp)
{
	const tio_trace_class *tc = w->meta;
	const char *s;
	tio_buf_reset(tmp);
	s = env_str(tc, "trace_clocks");
	const char *clk = env_str(tc, "trace_clock");
	if (clk && !strcmp(clk, "tsc2nsec") && (!s || !strstr(s, "[tsc2nsec]")))
		/* a TSC2NSEC file: its stamps were turned into ns when read, and the list
		   names the raw clock ([x86-tsc]); trace-cmd names the ns clock so */
		tio_buf_adds(tmp, "[tsc2nsec]");
	else if (s)
		tio_buf_adds(tmp, s);
	else
		tio_buf_adds(tmp, "[local]");
	tio_buf_addl(tmp, "\n");
	tio_buf_addc(tmp, 0);
	o_option(o, 4, tmp->p, (uint32_t)tmp->len);
	if ((s = env_str(tc, "uname")))
		o_option_str(o, 5, s);
	if ((s = env_str(tc, "tracer_version")))
		o_option_str(o, 9, s);
	const tio_kv *id = tc ? tio_trace_class_env(tc, "trace_id") : NULL;
	if (id && id->is_int)
		o_option_u64(o, 11, (uint64_t)id->ival);
	/* no DATE: the reader added it to the time stamps, which are written as they are */
}

enum { P_HEADER, P_FTRACE, P_EVENTS, P_KALLSYMS, P_PRINTK, P_CMDLINES };

typedef struct layout {
	uint64_t *cpu_off; /* nbufs x cpus */
	uint64_t *buf_off; /* v6: instance table; v7: flyrecord section */
	uint64_t *bopt_off; /* v7: the options section of each buffer */
	uint64_t sec_off[6];
	uint64_t opt1;
} layout;

static uint64_t cpu_size(const twsink *w, const wcpu *c)
{
	if (!c)
		return 0;
	if (w->version >= 7 && w->comp != COMP_NONE)
		return 4 + c->bytes;
	return c->bytes;
}

static void o_cpu_data(out *o, const twsink *w, wcpu *c)
{
	if (!c)
		return;
	if (w->version >= 7 && w->comp != COMP_NONE)
		o_u32(o, c->nchunks);
	o_tmp(o, c);
}

/* v6 flyrecord table of one buffer (NULL: none), then its data on page boundaries. */
static void o_v6_buffer(out *o, const twsink *w, const wbuf *b, size_t bi, layout *L, const layout *R)
{
	uint32_t cpus = w->cpus;
	o_bytes(o, "flyrecord", 10);
	for (uint32_t c = 0; c < cpus; c++) {
		wcpu *wc = b && c < b->ncpus ? b->cpus[c] : NULL;
		o_u64(o, b ? R->cpu_off[bi * cpus + c] : 0);
		o_u64(o, cpu_size(w, wc));
	}
	o_pad(o, w->page_size);
	for (uint32_t c = 0; b && c < cpus; c++) {
		L->cpu_off[bi * cpus + c] = o->pos;
		o_cpu_data(o, w, c < b->ncpus ? b->cpus[c] : NULL);
	}
}

static void write_v6(out *o, twsink *w, layout *L, layout *R, tio_buf *tmp)
{
	o_u32(o, w->cpus);
	o_bytes(o, "options  ", 10);
	o_common_options(o, w, tmp);
	for (size_t i = 0; i < w->nbufs; i++) {
		if (!w->bufs[i]->name[0])
			continue;
		tio_buf_reset(tmp);
		b_u64(w, tmp, R->buf_off[i]);
		tio_buf_add(tmp, w->bufs[i]->name, strlen(w->bufs[i]->name) + 1);
		o_option(o, 3, tmp->p, (uint32_t)tmp->len);
	}
	o_u16(o, 0);
	/* the top instance's table follows the options; each instance's is on a page of its own */
	bool top = w->nbufs && !w->bufs[0]->name[0];
	o_v6_buffer(o, w, top ? w->bufs[0] : NULL, 0, L, R);
	for (size_t i = top ? 1 : 0; i < w->nbufs; i++) {
		o_pad(o, w->page_size);
		L->buf_off[i] = o->pos;
		o_v6_buffer(o, w, w->bufs[i], i, L, R);
	}
}

/* v7: string ids are offsets in the strings section. */
static uint32_t str_id(tio_buf *strs, const char *s)
{
	uint32_t id = (uint32_t)strs->len;
	tio_buf_add(strs, s, strlen(s) + 1);
	return id;
}

static void o_section_head(out *o, uint16_t id, uint16_t flags, uint32_t sid, uint64_t size)
{
	o_u16(o, id);
	o_u16(o, flags);
	o_u32(o, sid);
	o_u64(o, size);
}

static int write_v7(out *o, twsink *w, meta *mt, layout *L, layout *R, tio_buf *tmp)
{
	tio_buf strs = {0};
	static const char *const sec_desc[6] = {"headers", "ftrace events", "events format",
						"kallsyms", "printk", "command lines"};
	static const uint16_t sec_id[6] = {16, 17, 18, 19, 20, 21};
	int e = 0;
	for (int i = 0; i < 6; i++) {
		L->sec_off[i] = o->pos;
		uint32_t sid = str_id(&strs, sec_desc[i]);
		if (w->comp == COMP_NONE) {
			o_section_head(o, sec_id[i], 0, sid, mt->part[i].len);
			o_bytes(o, mt->part[i].p, mt->part[i].len);
		} else {
			size_t cs = zcompress(w, mt->part[i].p, mt->part[i].len);
			if (!cs) {
				e = TIO_ERR_IO;
				break;
			}
			o_section_head(o, sec_id[i], 1, sid, 8 + cs);
			o_u32(o, (uint32_t)cs);
			o_u32(o, (uint32_t)mt->part[i].len);
			o_bytes(o, w->zbuf, cs);
		}
	}
	/* the first options section */
	L->opt1 = o->pos;
	uint32_t sid = str_id(&strs, "options");
	tio_buf opts = {0};
	out oo = {.f = NULL, .w = w};
	for (int pass = 0; pass < 2 && !e; pass++) {
		/* measure, then write: the section size comes first */
		out *t = pass ? o : &oo;
		if (pass)
			o_section_head(o, 0, 0, sid, oo.pos);
		uint64_t start = t->pos;
		for (int i = 0; i < 5; i++)
			o_option_u64(t, (uint16_t)(16 + i), R->sec_off[i]);
		o_common_options(t, w, tmp);
		o_option_u64(t, 21, R->sec_off[P_CMDLINES]);
		uint8_t b4[4];
		put32(w, b4, w->cpus);
		o_option(t, 8, b4, 4);
		o_option_u64(t, 0, w->nbufs ? R->bopt_off[0] : 0);
		if (!pass)
			oo.pos -= start;
	}
	tio_buf_free(&opts);
	/* one options section (a BUFFER option) + one flyrecord section per instance */
	uint32_t cpus = w->cpus;
	for (size_t i = 0; i < w->nbufs && !e; i++) {
		wbuf *b = w->bufs[i];
		L->bopt_off[i] = o->pos;
		uint32_t osid = str_id(&strs, "options");
		tio_buf_reset(tmp);
		uint8_t t8[8];
		put64(w, t8, R->buf_off[i]);
		tio_buf_add(tmp, t8, 8);
		tio_buf_add(tmp, b->name, strlen(b->name) + 1);
		const char *clk = env_str(w->meta, "trace_clock");
		if (!clk)
			clk = "local";
		tio_buf_add(tmp, clk, strlen(clk) + 1);
		b_u32(w, tmp, w->page_size);
		b_u32(w, tmp, cpus);
		for (uint32_t c = 0; c < cpus; c++) {
			b_u32(w, tmp, c);
			b_u64(w, tmp, R->cpu_off[i * cpus + c]);
			b_u64(w, tmp, cpu_size(w, c < b->ncpus ? b->cpus[c] : NULL));
		}
		o_section_head(o, 0, 0, osid, 6 + tmp->len + 6 + 8);
		o_option(o, 3, tmp->p, (uint32_t)tmp->len);
		o_option_u64(o, 0, i + 1 < w->nbufs ? R->bopt_off[i + 1] : 0);
		/* flyrecord: header, padding to a page, the CPUs' data */
		char *desc = tio_asprintf("buffer flyrecord %s", b->name);
		if (!desc) {
			e = TIO_ERR_NOMEM;
			break;
		}
		uint32_t fsid = str_id(&strs, desc);
		free(desc);
		L->buf_off[i] = o->pos;
		uint64_t size = R->cpu_off[i * cpus + (cpus ? cpus - 1 : 0)] +
				cpu_size(w, cpus && cpus - 1 < b->ncpus ? b->cpus[cpus - 1] : NULL) - (o->pos + 16);
		o_section_head(o, 3, w->comp != COMP_NONE, fsid, size);
		o_pad(o, w->page_size);
		for (uint32_t c = 0; c < cpus; c++) {
			L->cpu_off[i * cpus + c] = o->pos;
			o_cpu_data(o, w, c < b->ncpus ? b->cpus[c] : NULL);
		}
	}
	/* the strings section closes the file */
	if (!e) {
		uint32_t ssid = str_id(&strs, "strings");
		o_section_head(o, 15, 0, ssid, strs.len);
		o_bytes(o, strs.p, strs.len);
	}
	tio_buf_free(&strs);
	return e;
}

static int write_file(out *o, twsink *w, meta *mt, layout *L, layout *R)
{
	static const uint8_t magic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	tio_buf tmp = {0};
	o_bytes(o, magic, sizeof(magic));
	o_str(o, w->version >= 7 ? "7" : "6");
	uint8_t el[2] = {w->be ? 1 : 0, (uint8_t)w->long_size};
	o_bytes(o, el, 2);
	o_u32(o, w->page_size);
	int e = 0;
	if (w->version >= 7) {
		if (w->comp == COMP_NONE) {
			o_str(o, "none");
			o_str(o, "");
		} else if (w->comp == COMP_ZSTD) {
			o_str(o, "zstd");
			o_str(o, ZSTD_versionString());
		} else {
			o_str(o, "zlib");
			o_str(o, zlibVersion());
		}
		o_u64(o, R->opt1);
		e = write_v7(o, w, mt, L, R, &tmp);
	} else {
		for (int i = 0; i < 6; i++)
			o_bytes(o, mt->part[i].p, mt->part[i].len);
		write_v6(o, w, L, R, &tmp);
	}
	tio_buf_free(&tmp);
	return e ? e : o->err;
}

static int tw_finish(tio_sink *s)
{
	twsink *w = (twsink *)s;
	if (!w->out)
		return tio_err_set(TIO_ERR_USAGE, "sink tracedat needs the option output=PATH");
	if (w->version < 7 && w->comp != COMP_NONE)
		return tio_err_set(TIO_ERR_USAGE, "trace.dat version 6 has no compression");
	if (!w->layout_set) {
		w->page_size = 4096;
		w->long_size = 8;
		parse_header_page(w, NULL);
	}
	int e = 0;
	uint64_t late = 0, late_unknown = 0;
	for (size_t i = 0; i < w->nbufs && !e; i++)
		for (uint32_t c = 0; c < w->bufs[i]->ncpus && !e; c++) {
			wcpu *wc = w->bufs[i]->cpus[c];
			if (!wc)
				continue;
			/* a lost-events count goes with the first record of a page: after a
			   CPU's last record there is none to carry it */
			if (wc->missed > 0)
				late += (uint64_t)wc->missed;
			else if (wc->missed < 0)
				late_unknown++;
			e = flush_page(w, wc);
			if (!e && wc->chunk)
				e = flush_chunk(w, wc);
			if (!e && fflush(wc->tmp))
				e = tio_err_set(TIO_ERR_IO, "temporary file: write error: %s", strerror(errno));
		}
	if (!w->cpus)
		w->cpus = 1;
	if (!w->nbufs && !get_buf(w, ""))
		return TIO_ERR_NOMEM;
	meta mt = {0};
	size_t n = w->nbufs * w->cpus;
	layout L = {0}, R = {0};
	L.cpu_off = tio_calloc(n ? n : 1, sizeof(uint64_t));
	L.buf_off = tio_calloc(w->nbufs, sizeof(uint64_t));
	L.bopt_off = tio_calloc(w->nbufs, sizeof(uint64_t));
	R.cpu_off = tio_calloc(n ? n : 1, sizeof(uint64_t));
	R.buf_off = tio_calloc(w->nbufs, sizeof(uint64_t));
	R.bopt_off = tio_calloc(w->nbufs, sizeof(uint64_t));
	tio_outfile of = {0};
	if (!e && (!L.cpu_off || !L.buf_off || !L.bopt_off || !R.cpu_off || !R.buf_off || !R.bopt_off))
		e = TIO_ERR_NOMEM;
	if (!e)
		e = build_meta(w, &mt);
	if (!e) {
		/* pass 1: where everything goes */
		out o1 = {.f = NULL, .w = w};
		e = write_file(&o1, w, &mt, &L, &R);
	}
	if (!e) {
		memcpy(R.cpu_off, L.cpu_off, n * sizeof(uint64_t));
		memcpy(R.buf_off, L.buf_off, w->nbufs * sizeof(uint64_t));
		memcpy(R.bopt_off, L.bopt_off, w->nbufs * sizeof(uint64_t));
		memcpy(R.sec_off, L.sec_off, sizeof(R.sec_off));
		R.opt1 = L.opt1;
		e = tio_outfile_open(&of, w->out);
	}
	if (!e) {
		/* mkstemp made it 0600: give it the mode a new file gets */
		mode_t um = umask(0);
		umask(um);
		if (fchmod(fileno(of.f), 0666 & ~um))
			e = tio_err_set(TIO_ERR_IO, "%s: chmod: %s", w->out, strerror(errno));
	}
	if (!e) {
		out o2 = {.f = of.f, .w = w};
		e = write_file(&o2, w, &mt, &L, &R);
		if (e)
			tio_outfile_abort(&of);
		else
			e = tio_outfile_commit(&of);
	} else if (of.f) {
		tio_outfile_abort(&of);
	}
	for (int i = 0; i < 6; i++)
		tio_buf_free(&mt.part[i]);
	free(L.cpu_off);
	free(L.buf_off);
	free(L.bopt_off);
	free(R.cpu_off);
	free(R.buf_off);
	free(R.bopt_off);
	if (!e && (late || late_unknown) && s->err)
		fprintf(s->err,
			"traceio: warning: tracedat writer: %llu discarded events%s after the last event of their CPU "
			"are not written (trace.dat gives a lost-event count to the next page's first record)\n",
			(unsigned long long)late, late_unknown ? " (and some of unknown count)" : "");
	return e;
}

static void tw_fini(tio_sink *s)
{
	twsink *w = (twsink *)s;
	for (size_t i = 0; i < w->nbufs; i++) {
		wbuf *b = w->bufs[i];
		for (uint32_t c = 0; c < b->ncpus; c++) {
			wcpu *wc = b->cpus[c];
			if (!wc)
				continue;
			if (wc->tmp)
				fclose(wc->tmp);
			free(wc->page);
			free(wc->chunk);
			free(wc);
		}
		free(b->cpus);
		free(b->name);
		free(b);
	}
	free(w->bufs);
	for (size_t i = 0; i < w->nclasses; i++)
		class_free(w->classes[i]);
	free(w->classes);
	for (size_t i = 0; i < w->smap.cap; i++)
		if (w->smap.keys[i])
			free(w->smap.vals[i]);
	pmap_free(&w->smap);
	pmap_free(&w->ecmap);
	pmap_free(&w->pids);
	free(w->traces);
	tio_buf_free(&w->rec);
	tio_buf_free(&w->text);
	tio_buf_free(&w->cmdlines);
	free(w->zbuf);
	ZSTD_freeCCtx(w->zctx);
	free(w->out);
}

const tio_sink_ops tio_sink_tracedat_ops = {
	.name = "tracedat",
	.size = sizeof(twsink),
	.init = tw_init,
	.set = tw_set,
	.add_trace = tw_add_trace,
	.consume = tw_consume,
	.finish = tw_finish,
	.fini = tw_fini,
};

/*
 * trace.dat container, versions 6 and 7 (trace-cmd.dat(5); the v7 part is
 * ../shared/seeds/003_d359d8e8b359e63d.txt):
 *
 *   "\x17\x08\x44tracing" "<version>\0" endian(1) long_size(1) page_size(u32)
 *   v6: header_page/header_event, ftrace formats, event formats, kallsyms,
 *       printk formats, saved cmdlines, cpus(u32), "options  \0" + options
 *       (ended by id 0), "flyrecord\0" + per CPU (offset u64, size u64) or
 *       "latency  \0" + text;
 *   v7: "<compression>\0<version>\0" first_options(u64); sections anywhere,
 *       each: id(u16) flags(u16) string id(u32) size(u64) [compressed:
 *       csize(u32) usize(u32)] data; options sections chained by DONE.
 *
 * Everything is read from one read-only mapping; only compressed sections
 * and chunks are copied out (decompressed).
 */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "ftrace/tracedat.h"

static const char MAGIC[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

enum {
	SEC_OPTIONS = 0,
	SEC_FLYRECORD = 3,
	SEC_STRINGS = 15,
	SEC_HEADER = 16,
	SEC_FTRACE = 17,
	SEC_EVENTS = 18,
	SEC_KALLSYMS = 19,
	SEC_PRINTK = 20,
	SEC_CMDLINES = 21,
};

/* event classes of all buffer instances at most (build_model) */
#define TD_CLASS_COPIES_MAX 65536u
/* CPU buffers (streams) of all instances at most: every BUFFER option may
   point at one CPU table of 65536 CPUs (1 MB), each making 65536 streams */
#define TD_CPUS_ALL_MAX 262144u

enum {
	OPT_DONE = 0, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME, OPT_HOOK,
	OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION, OPT_PROCMAPS, OPT_TRACEID, OPT_TIME_SHIFT,
	OPT_GUEST, OPT_TSC2NSEC, OPT_STRINGS, OPT_HEADER_INFO, OPT_FTRACE_EVENTS,
	OPT_EVENT_FORMATS, OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES, OPT_BUFFER_TEXT,
};

/* A bounded reader over a section's bytes; errors name file, offset and section. */
typedef struct rd {
	td_file *f;
	const uint8_t *base, *p, *end;
	uint64_t file_off; /* file offset of base (decompressed sections: of the section) */
	bool copy;	   /* base is a decompressed copy: offsets are approximate */
	const char *sect;
} rd;

static int rd_err(rd *r, const char *what)
{
	uint64_t at = r->file_off + (r->copy ? 0 : (uint64_t)(r->p - r->base));
	return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: section %s%s: %s", r->f->path,
			   (unsigned long long)at, r->sect, r->copy ? " (decompressed)" : "", what);
}

static int rd_need(rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n)
		return rd_err(r, "truncated");
	return 0;
}

static int rd_u16(rd *r, uint16_t *v)
{
	if (rd_need(r, 2))
		return TIO_ERR_FORMAT;
	*v = td_u16(r->f, r->p);
	r->p += 2;
	return 0;
}

static int rd_u32(rd *r, uint32_t *v)
{
	if (rd_need(r, 4))
		return TIO_ERR_FORMAT;
	*v = td_u32(r->f, r->p);
	r->p += 4;
	return 0;
}

static int rd_u64(rd *r, uint64_t *v)
{
	if (rd_need(r, 8))
		return TIO_ERR_FORMAT;
	*v = td_u64(r->f, r->p);
	r->p += 8;
	return 0;
}

static int rd_str(rd *r, const char **s, size_t *len)
{
	const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
	*s = "";
	if (!z)
		return rd_err(r, "unterminated string");
	*s = (const char *)r->p;
	if (len)
		*len = (size_t)(z - r->p);
	r->p = z + 1;
	return 0;
}

static int rd_bytes(rd *r, uint64_t n, const uint8_t **b)
{
	*b = NULL;
	if (rd_need(r, n))
		return TIO_ERR_FORMAT;
	*b = r->p;
	r->p += n;
	return 0;
}

int td_decompress(const td_file *f, const uint8_t *src, uint64_t csize, uint8_t *dst,
		  uint64_t usize)
{
	if (!strcmp(f->comp, "zstd")) {
		size_t r = ZSTD_decompress(dst, usize, src, csize);
		if (ZSTD_isError(r))
			return tio_err_set(TIO_ERR_FORMAT, "zstd: %s", ZSTD_getErrorName(r));
		if (r != usize)
			return tio_err_set(TIO_ERR_FORMAT, "zstd: %zu bytes instead of %llu", r,
					   (unsigned long long)usize);
		return 0;
	}
	if (!strcmp(f->comp, "zlib")) {
		uLongf dl = (uLongf)usize;
		int r = uncompress(dst, &dl, src, (uLong)csize);
		if (r != Z_OK)
			return tio_err_set(TIO_ERR_FORMAT, "zlib: error %d", r);
		if (dl != usize)
			return tio_err_set(TIO_ERR_FORMAT, "zlib: %lu bytes instead of %llu",
					   (unsigned long)dl, (unsigned long long)usize);
		return 0;
	}
	return tio_err_set(TIO_ERR_UNSUPPORTED, "unknown compression '%s'", f->comp);
}

int td_usize_check(const td_file *f, const uint8_t *src, uint64_t csize, uint64_t usize)
{
	if (!strcmp(f->comp, "zstd")) {
		unsigned long long fs = ZSTD_getFrameContentSize(src, csize);
		if (fs == ZSTD_CONTENTSIZE_ERROR)
			return tio_err_set(TIO_ERR_FORMAT, "zstd: not a zstd frame");
		if (fs != ZSTD_CONTENTSIZE_UNKNOWN && fs != usize)
			return tio_err_set(TIO_ERR_LIMIT, "uncompressed size %llu, but the zstd frame holds %llu bytes",
					   (unsigned long long)usize, fs);
	} else if (!strcmp(f->comp, "zlib") && usize > csize * 1032 + 64) {
		return tio_err_set(TIO_ERR_LIMIT, "uncompressed size %llu cannot come from %llu zlib bytes",
				   (unsigned long long)usize, (unsigned long long)csize);
	}
	return 0;
}

/* ---------------------------------------------------------------- the trace being built */

typedef struct td_open {
	td_file *f;
	tio_trace *t;
	tio_trace_class *tc;
	/* v7 section offsets from options */
	uint64_t sec[32];
	bool have[32];
	char *clock; /* from TRACECLOCK: the one in [brackets] */
	bool clock_opt; /* it came from the TRACECLOCK option (v6: not only from the list after the CPU table) */
	tio_buf strings;
	uint32_t noptions; /* options as `trace-cmd dump` counts them (v7: DONE included) */
} td_open;

static int env_add(tio_kv **kv, uint32_t *n, const char *key, const char *s, size_t sl, bool is_int,
		   int64_t iv)
{
	tio_kv *nk = tio_realloc(*kv, (*n + 1) * sizeof(tio_kv));
	if (!nk)
		return TIO_ERR_NOMEM;
	*kv = nk;
	tio_kv *e = &nk[*n];
	memset(e, 0, sizeof(*e));
	e->key = tio_strdup(key);
	e->is_int = is_int;
	e->ival = iv;
	if (!is_int)
		e->sval = tio_strndup(s ? s : "", s ? sl : 0);
	if (!e->key || (!is_int && !e->sval)) {
		free(e->key);
		free(e->sval);
		return TIO_ERR_NOMEM;
	}
	(*n)++;
	return 0;
}

static int env_str(td_open *o, const char *key, const char *s, size_t sl)
{
	/* strip trailing NULs/newlines */
	while (sl && (s[sl - 1] == 0 || s[sl - 1] == '\n'))
		sl--;
	return env_add(&o->tc->env, &o->tc->nenv, key, s, strnlen(s, sl), false, 0);
}

static int env_int(td_open *o, const char *key, int64_t v)
{
	return env_add(&o->tc->env, &o->tc->nenv, key, NULL, 0, true, v);
}

/* A side table: the text up to its first NUL, its stored size in ival (ir.h). */
static int table_add(td_open *o, const char *key, const uint8_t *s, uint64_t len)
{
	int e = env_add(&o->tc->tables, &o->tc->ntables, key, (const char *)s,
			strnlen((const char *)s, len), false, 0);
	if (!e)
		o->tc->tables[o->tc->ntables - 1].ival = (int64_t)len;
	return e;
}

/* Set a string env entry, replacing one of the same key. */
static int env_set_str(td_open *o, const char *key, const char *s, size_t sl)
{
	for (uint32_t i = 0; i < o->tc->nenv; i++) {
		tio_kv *kv = &o->tc->env[i];
		if (kv->is_int || strcmp(kv->key, key))
			continue;
		while (sl && (s[sl - 1] == 0 || s[sl - 1] == '\n'))
			sl--;
		char *v = tio_strndup(s, strnlen(s, sl));
		if (!v)
			return TIO_ERR_NOMEM;
		free(kv->sval);
		kv->sval = v;
		return 0;
	}
	return env_str(o, key, s, sl);
}

/* The clock of a TRACECLOCK list: the one in [brackets]. */
static int pick_clock(td_open *o, const uint8_t *d, size_t size)
{
	const char *lb = memchr(d, '[', size);
	const char *rb = lb ? memchr(lb, ']', size - (size_t)((const uint8_t *)lb - d)) : NULL;
	if (lb && rb) {
		free(o->clock);
		o->clock = tio_strndup(lb + 1, (size_t)(rb - lb - 1));
		if (!o->clock)
			return TIO_ERR_NOMEM;
	}
	return 0;
}

/* header_page: where the commit and data are (offsets/sizes from the text). */
static void parse_header_page(td_file *f, const char *t, size_t len)
{
	f->hp_ts_off = 0;
	f->hp_commit_off = 8;
	f->hp_commit_size = f->long_size;
	f->hp_data_off = 8 + f->long_size;
	const char *p = t, *end = t + len;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *fl = memchr(p, ':', (size_t)(e - p));
		char line[256];
		size_t ll = (size_t)(e - p) < sizeof(line) - 1 ? (size_t)(e - p) : sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = 0;
		const char *off = strstr(line, "offset:"), *size = strstr(line, "size:");
		if (fl && off && size) {
			unsigned o = (unsigned)strtoul(off + 7, NULL, 0);
			unsigned sz = (unsigned)strtoul(size + 5, NULL, 0);
			char *semi = strchr(line, ';');
			if (semi) {
				*semi = 0;
				const char *nm = semi;
				while (nm > line && nm[-1] != ' ' && nm[-1] != '\t')
					nm--;
				if (!strcmp(nm, "timestamp"))
					f->hp_ts_off = o;
				else if (!strcmp(nm, "commit")) {
					f->hp_commit_off = o;
					if (sz == 4 || sz == 8)
						f->hp_commit_size = sz;
				} else if (!strcmp(nm, "data"))
					f->hp_data_off = o;
			}
		}
		p = e < end ? e + 1 : end;
	}
}

/*
 * Every page of buffer b is read at the header_page's offsets (an 8-byte
 * timestamp, the commit word, then the data): the file's text gives them,
 * so they must be checked against the buffer's page size.
 */
static int check_header_page(const td_file *f, const td_buffer *b)
{
	const char *field = NULL;
	uint32_t off = 0;
	if (f->hp_ts_off > b->page_size - 8)
		field = "timestamp", off = f->hp_ts_off;
	else if (f->hp_commit_off > b->page_size - f->hp_commit_size)
		field = "commit", off = f->hp_commit_off;
	else if (f->hp_data_off > b->page_size)
		field = "data", off = f->hp_data_off;
	if (!field)
		return 0;
	return tio_err_set(TIO_ERR_FORMAT,
			   "%s@0x%llx: section header_page: field %s: offset %u is outside the %u-byte pages of %s%s",
			   f->path, (unsigned long long)f->hp_at, field, off, b->page_size,
			   b->name[0] ? "instance " : "the top instance", b->name);
}

static int sec_header(td_open *o, rd *r)
{
	const char *s;
	uint64_t sz;
	const uint8_t *b;
	if (rd_str(r, &s, NULL) || strcmp(s, "header_page"))
		return rd_err(r, "expected \"header_page\"");
	if (rd_u64(r, &sz) || rd_bytes(r, sz, &b))
		return TIO_ERR_FORMAT;
	parse_header_page(o->f, (const char *)b, sz);
	o->f->hp_at = r->file_off + (r->copy ? 0 : (uint64_t)(b - r->base));
	/* kept as text for writers (the trace.dat writer copies them) */
	int e = table_add(o, "header_page", b, sz);
	if (e)
		return e;
	if (rd_str(r, &s, NULL) || strcmp(s, "header_event"))
		return rd_err(r, "expected \"header_event\"");
	if (rd_u64(r, &sz) || rd_bytes(r, sz, &b))
		return TIO_ERR_FORMAT;
	return table_add(o, "header_event", b, sz);
}

static int add_format(td_open *o, rd *r, const char *sys, const uint8_t *text, uint64_t len)
{
	td_file *f = o->f;
	tio_event_class *ec;
	int e = td_parse_format(f, sys, (const char *)text, len, &ec, &f->common_fc);
	if (e) {
		uint64_t at = r->file_off + (r->copy ? 0 : (uint64_t)(text - r->base));
		return e == TIO_ERR_NOMEM ? e : tio_err_push(e, "%s@0x%llx: section %s", f->path,
							    (unsigned long long)at, r->sect);
	}
	if (tio_grow(&f->ecs, &(size_t){f->necs}, f->necs + 1, sizeof(*f->ecs))) {
		td_ec_free_user(ec);
		tio_event_class_free(ec);
		return TIO_ERR_NOMEM;
	}
	f->ecs[f->necs++] = ec;
	return 0;
}

static int sec_ftrace(td_open *o, rd *r)
{
	uint32_t n;
	if (rd_u32(r, &n))
		return TIO_ERR_FORMAT;
	int e0 = env_int(o, "ftrace_events", n);
	if (e0)
		return e0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t sz;
		const uint8_t *b;
		if (rd_u64(r, &sz) || rd_bytes(r, sz, &b))
			return TIO_ERR_FORMAT;
		int e = add_format(o, r, "ftrace", b, sz);
		if (e)
			return e;
	}
	return 0;
}

static int sec_events(td_open *o, rd *r)
{
	uint32_t nsys;
	if (rd_u32(r, &nsys))
		return TIO_ERR_FORMAT;
	int e0 = env_int(o, "event_systems", nsys);
	if (e0)
		return e0;
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys;
		uint32_t n;
		if (rd_str(r, &sys, NULL) || rd_u32(r, &n))
			return TIO_ERR_FORMAT;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t sz;
			const uint8_t *b;
			if (rd_u64(r, &sz) || rd_bytes(r, sz, &b))
				return TIO_ERR_FORMAT;
			int e = add_format(o, r, sys, b, sz);
			if (e)
				return e;
		}
	}
	return 0;
}

static int td_load_table(tio_trace_class *tc, tio_kv *kv);

/*
 * kallsyms / printk_formats (a u32 size and the text): only where the text
 * is, and its size, until a sink asks for it (td_load_table): kallsyms
 * alone is megabytes, copied at each open of the file, and most readers
 * never look at it.  `id`: the v7 section, read again when compressed.
 */
static int sec_text32(td_open *o, rd *r, const char *table, uint16_t id)
{
	td_file *f = o->f;
	uint32_t sz;
	const uint8_t *b;
	if (rd_u32(r, &sz) || rd_bytes(r, sz, &b))
		return TIO_ERR_FORMAT;
	if (f->nlazy == TIO_ARRAY_LEN(f->lazy) || strlen(table) >= sizeof(f->lazy[0].key))
		return table_add(o, table, b, sz);
	int e = env_add(&o->tc->tables, &o->tc->ntables, table, NULL, 0, false, 0);
	if (e)
		return e;
	tio_kv *kv = &o->tc->tables[o->tc->ntables - 1];
	free(kv->sval);
	kv->sval = NULL;
	kv->ival = sz;
	struct td_lazy *z = &f->lazy[f->nlazy++];
	snprintf(z->key, sizeof(z->key), "%s", table);
	z->sect = r->copy;
	z->id = id;
	z->off = r->copy ? r->file_off : r->file_off + (uint64_t)(b - r->base);
	z->len = sz;
	o->tc->load_table = td_load_table;
	o->tc->table_ctx = f;
	return 0;
}

static int sec_cmdlines(td_open *o, rd *r)
{
	uint64_t sz;
	const uint8_t *b;
	if (rd_u64(r, &sz) || rd_bytes(r, sz, &b))
		return TIO_ERR_FORMAT;
	return table_add(o, "saved_cmdlines", b, sz);
}

static int add_buffer(td_open *o, td_buffer **out)
{
	td_file *f = o->f;
	td_buffer *nb = tio_realloc(f->bufs, (f->nbufs + 1) * sizeof(td_buffer));
	if (!nb)
		return TIO_ERR_NOMEM;
	f->bufs = nb;
	*out = &nb[f->nbufs++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

/* v6 CPU table: ncpus x (offset u64, size u64), CPU ids 0..n-1. */
static int read_cpu_table(td_open *o, rd *r, td_buffer *b, uint32_t ncpus)
{
	if (ncpus > 65536)
		return rd_err(r, "too many CPUs");
	if (o->f->ncpus_all + ncpus > TD_CPUS_ALL_MAX)
		return tio_err_set(TIO_ERR_LIMIT, "%s@0x%llx: section %s: more than %u CPU buffers over all instances",
				   o->f->path, (unsigned long long)r->file_off, r->sect, TD_CPUS_ALL_MAX);
	o->f->ncpus_all += ncpus;
	b->cpus = tio_calloc(ncpus ? ncpus : 1, sizeof(td_cpu));
	if (!b->cpus)
		return TIO_ERR_NOMEM;
	for (uint32_t i = 0; i < ncpus; i++) {
		b->cpus[i].cpu = i;
		if (rd_u64(r, &b->cpus[i].offset) || rd_u64(r, &b->cpus[i].size))
			return TIO_ERR_FORMAT;
		b->ncpus++;
	}
	return 0;
}

/* By time, then in file order (the first of equal times is kept). */
static int tsample_cmp(const void *a, const void *b)
{
	const td_tsample *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/*
 * TIME_SHIFT (a guest's trace.dat, `trace-cmd record -A`): u64 peer trace id,
 * u32 flags, s32 CPU count, per CPU u32 n and n times, n offsets, n scalings
 * (s64), then, when bytes remain, per CPU n fractions.  Read as trace-cmd
 * 3.1 reads it: ignored when shorter than 16 bytes or with no CPU; each
 * CPU's samples sorted by time, the first of equal times kept.
 */
static int read_time_shift(td_open *o, rd *s, uint32_t size)
{
	td_file *f = o->f;
	uint64_t peer;
	uint32_t flags, ncpu;
	char what[96];
	if (size < 16 || f->tsync)
		return 0;
	if (rd_u64(s, &peer) || rd_u32(s, &flags) || rd_u32(s, &ncpu))
		return TIO_ERR_FORMAT;
	if ((int32_t)ncpu < 0)
		return rd_err(s, "TIME_SHIFT option: negative CPU count");
	if (!ncpu)
		return 0;
	if (ncpu > (uint64_t)(s->end - s->p) / 4)
		return rd_err(s, "TIME_SHIFT option: CPU count past the option's end");
	td_tsync *y = tio_calloc(ncpu, sizeof(*y));
	if (!y)
		return TIO_ERR_NOMEM;
	f->tsync = y;
	f->ntsync = ncpu;
	for (uint32_t c = 0; c < ncpu; c++) {
		uint32_t n;
		if (rd_u32(s, &n))
			return TIO_ERR_FORMAT;
		if (n > (uint64_t)(s->end - s->p) / 24) {
			snprintf(what, sizeof(what), "TIME_SHIFT option: cpu %u: the option ends within its %u samples", c, n);
			return rd_err(s, what);
		}
		y[c].interp = flags & 1;
		y[c].s = tio_calloc(n ? n : 1, sizeof(td_tsample));
		if (!y[c].s)
			return TIO_ERR_NOMEM;
		y[c].n = n;
		for (int k = 0; k < 3; k++)
			for (uint32_t i = 0; i < n; i++) {
				uint64_t v = td_u64(f, s->p + 8 * ((uint64_t)k * n + i));
				int64_t *dst = k == 0 ? &y[c].s[i].time : k == 1 ? &y[c].s[i].offset : &y[c].s[i].scaling;
				*dst = (int64_t)v;
				y[c].s[i].ord = i;
			}
		s->p += 24 * (uint64_t)n;
	}
	if (s->p < s->end) { /* the fraction bits */
		for (uint32_t c = 0; c < ncpu; c++) {
			if ((uint64_t)(s->end - s->p) / 8 < y[c].n) {
				snprintf(what, sizeof(what), "TIME_SHIFT option: cpu %u: fraction bits truncated", c);
				return rd_err(s, what);
			}
			for (uint32_t i = 0; i < y[c].n; i++)
				y[c].s[i].fraction = (uint32_t)td_u64(f, s->p + 8 * (uint64_t)i) & 63;
			s->p += 8 * (uint64_t)y[c].n;
		}
	}
	for (uint32_t c = 0; c < ncpu; c++) {
		td_tsample *v = y[c].s;
		uint32_t n = y[c].n, m = 0;
		qsort(v, n, sizeof(*v), tsample_cmp);
		for (uint32_t i = 0; i < n; i++)
			if (!m || v[m - 1].time != v[i].time)
				v[m++] = v[i];
		y[c].n = m;
	}
	int e;
	if ((e = env_int(o, "time_shift_peer", (int64_t)peer)) || (e = env_int(o, "time_shift_flags", flags)))
		return e;
	return env_int(o, "time_shift_cpus", ncpu);
}

/* One sample pair's correction of trace-cmd 3.1 (timestamp_correction_calc), in wrapping arithmetic. */
static uint64_t tsync_calc(uint64_t ts, bool interp, const td_tsample *lo, const td_tsample *hi)
{
	uint64_t cor = (uint64_t)lo->offset;
	if (interp) {
		int64_t delta = (int64_t)((uint64_t)hi->time - (uint64_t)lo->time);
		int64_t num = (int64_t)((ts - (uint64_t)lo->time) * ((uint64_t)hi->offset - (uint64_t)lo->offset));
		num = (int64_t)((uint64_t)num + (uint64_t)(delta / 2));
		int64_t q = delta == -1 ? (int64_t)(0 - (uint64_t)num) : delta ? num / delta : 0;
		cor += (uint64_t)q;
	}
	return ((ts * (uint64_t)lo->scaling) >> lo->fraction) + cor;
}

uint64_t td_host_time(const td_tsync *y, uint64_t ts)
{
	const td_tsample *v = y->s;
	uint32_t n = y->n;
	if (n < 2)
		return n ? ts + (uint64_t)v[0].offset : ts; /* one sample: its offset alone */
	if (n == 2 || ts <= (uint64_t)v[0].time)
		return tsync_calc(ts, y->interp, &v[0], &v[1]);
	if (ts >= (uint64_t)v[n - 1].time)
		return tsync_calc(ts, y->interp, &v[n - 2], &v[n - 1]);
	/* the last sample at or before ts (compared unsigned, as trace-cmd does) */
	uint32_t lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if ((uint64_t)v[mid].time <= ts)
			lo = mid;
		else
			hi = mid;
	}
	return tsync_calc(ts, y->interp, &v[lo], &v[lo + 1]);
}

const td_tsync *td_tsync_of(const td_file *f, const td_buffer *b, uint32_t cpu)
{
	/* trace-cmd applies it to the top instance only (an instance's handle has no host data) */
	if (!f->tsync || (b->name && b->name[0]) || cpu >= f->ntsync)
		return NULL;
	return &f->tsync[cpu];
}

static int handle_option(td_open *o, rd *r, uint16_t id, const uint8_t *d, uint32_t size)
{
	td_file *f = o->f;
	rd s = {.f = f, .base = d, .p = d, .end = d + size, .file_off = r->file_off, .copy = r->copy,
		.sect = "options"};
	if (!r->copy)
		s.file_off = r->file_off + (uint64_t)(d - r->base);
	s.base = d;
	switch (id) {
	case OPT_DATE: {
		/* `record --date`: the offset of gettimeofday from the trace clock, in us
		   (as "0x..." text); trace-cmd adds it to every time stamp, in ns */
		char tmp[64];
		size_t l = size < sizeof(tmp) - 1 ? size : sizeof(tmp) - 1;
		memcpy(tmp, d, l);
		tmp[l] = 0;
		long long us = strtoll(tmp, NULL, 0);
		int64_t sum;
		if (us > -(INT64_MAX / 1000) && us < INT64_MAX / 1000 &&
		    !__builtin_add_overflow(f->ts_offset, (int64_t)us * 1000, &sum))
			f->ts_offset = sum;
		return env_str(o, "date", (const char *)d, size);
	}
	case OPT_UNAME:
		return env_str(o, "uname", (const char *)d, size);
	case OPT_VERSION:
		return env_str(o, "tracer_version", (const char *)d, size);
	case OPT_TRACECLOCK: {
		o->have[OPT_TRACECLOCK] = true; /* v6: a clock list follows the CPU table */
		int e = pick_clock(o, d, size);
		o->clock_opt = o->clock != NULL;
		return e ? e : env_set_str(o, "trace_clocks", (const char *)d, size);
	}
	case OPT_OFFSET: {
		char tmp[64];
		size_t l = size < sizeof(tmp) - 1 ? size : sizeof(tmp) - 1;
		memcpy(tmp, d, l);
		tmp[l] = 0;
		int64_t sum;
		if (!__builtin_add_overflow(f->ts_offset, (int64_t)strtoll(tmp, NULL, 0), &sum))
			f->ts_offset = sum;
		return 0;
	}
	case OPT_TSC2NSEC: {
		/* u32 mult, u32 shift, u64 offset (trace-cmd 3.1 never applies the offset) */
		uint32_t mult, shift;
		uint64_t toff;
		if (size < 16)
			return 0; /* trace-cmd ignores it too */
		if (rd_u32(&s, &mult) || rd_u32(&s, &shift) || rd_u64(&s, &toff))
			return TIO_ERR_FORMAT;
		f->tsc_mult = (int32_t)mult;
		f->tsc_shift = shift;
		int e;
		if ((e = env_int(o, "tsc2nsec_mult", (int32_t)mult)) || (e = env_int(o, "tsc2nsec_shift", shift)))
			return e;
		return env_int(o, "tsc2nsec_offset", (int64_t)toff);
	}
	case OPT_TIME_SHIFT:
		return read_time_shift(o, &s, size);
	case OPT_CPUCOUNT: {
		uint32_t n;
		if (rd_u32(&s, &n))
			return TIO_ERR_FORMAT;
		f->ncpus = n;
		return 0;
	}
	case OPT_TRACEID: {
		uint64_t v;
		if (rd_u64(&s, &v))
			return TIO_ERR_FORMAT;
		return env_int(o, "trace_id", (int64_t)v);
	}
	case OPT_BUFFER: {
		uint64_t off;
		const char *name, *clock = NULL;
		td_buffer *b;
		if (rd_u64(&s, &off) || rd_str(&s, &name, NULL))
			return TIO_ERR_FORMAT;
		if (f->version >= 7 && rd_str(&s, &clock, NULL))
			return TIO_ERR_FORMAT;
		int e = add_buffer(o, &b);
		if (e)
			return e;
		b->opt_at = s.file_off;
		b->name = tio_strdup(name);
		b->clock = clock ? tio_strdup(clock) : NULL;
		b->page_size = f->page_size;
		if (!b->name || (clock && !b->clock))
			return TIO_ERR_NOMEM;
		if (f->version < 7) {
			/* v6: the CPU table is at `off`, maybe behind "flyrecord\0" */
			if (off > f->map.size)
				return rd_err(&s, "BUFFER option offset past the end of the file");
			rd c = {.f = f, .base = f->map.p + off, .p = f->map.p + off,
				.end = f->map.p + f->map.size, .file_off = off, .sect = "flyrecord"};
			if (c.end - c.p >= 10 && !memcmp(c.p, "flyrecord", 10))
				c.p += 10;
			return read_cpu_table(o, &c, b, f->ncpus);
		}
		uint32_t ps, n;
		if (rd_u32(&s, &ps) || rd_u32(&s, &n))
			return TIO_ERR_FORMAT;
		if (ps >= 64 && ps <= (1u << 24))
			b->page_size = ps;
		if (n > 65536)
			return rd_err(&s, "BUFFER option: too many CPUs");
		if (f->ncpus_all + n > TD_CPUS_ALL_MAX)
			return tio_err_set(TIO_ERR_LIMIT, "%s@0x%llx: section options: BUFFER option '%s': more than %u CPU buffers over all instances",
					   f->path, (unsigned long long)s.file_off, name, TD_CPUS_ALL_MAX);
		f->ncpus_all += n;
		b->cpus = tio_calloc(n ? n : 1, sizeof(td_cpu));
		if (!b->cpus)
			return TIO_ERR_NOMEM;
		for (uint32_t i = 0; i < n; i++) {
			if (rd_u32(&s, &b->cpus[i].cpu) || rd_u64(&s, &b->cpus[i].offset) ||
			    rd_u64(&s, &b->cpus[i].size))
				return TIO_ERR_FORMAT;
			b->ncpus++;
		}
		/* the flyrecord section header says whether the data is compressed */
		if (off > f->map.size || f->map.size - off < 16)
			return rd_err(&s, "BUFFER option: flyrecord section past the end of the file");
		uint16_t flags = td_u16(f, f->map.p + off + 2);
		b->compressed = (flags & 1) != 0;
		return 0;
	}
	case OPT_HEADER_INFO:
	case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS:
	case OPT_KALLSYMS:
	case OPT_PRINTK:
	case OPT_CMDLINES: {
		uint64_t off;
		if (rd_u64(&s, &off))
			return TIO_ERR_FORMAT;
		o->sec[id] = off;
		o->have[id] = true;
		return 0;
	}
	case OPT_BUFFER_TEXT:
		return env_int(o, "latency_buffer", 1);
	default:
		return 0; /* CPUSTAT, HOOK, PROCMAPS, GUEST: not needed to read */
	}
}

/* v6: options up to id 0.  v7: options up to DONE, whose data is the next section. */
static int read_options(td_open *o, rd *r, uint64_t *next)
{
	*next = 0;
	for (int guard = 0; guard < 100000; guard++) {
		uint16_t id;
		uint32_t size;
		const uint8_t *d;
		if (rd_u16(r, &id))
			return TIO_ERR_FORMAT;
		if (id == OPT_DONE && o->f->version < 7)
			return 0;
		if (rd_u32(r, &size) || rd_bytes(r, size, &d))
			return TIO_ERR_FORMAT;
		o->noptions++;
		if (id == OPT_DONE) {
			if (size >= 8)
				*next = td_u64(o->f, d);
			return 0;
		}
		int e = handle_option(o, r, id, d, size);
		if (e)
			return e;
	}
	return rd_err(r, "too many options");
}

static const char *sec_name(uint16_t id)
{
	switch (id) {
	case SEC_OPTIONS: return "options";
	case SEC_FLYRECORD: return "flyrecord";
	case SEC_STRINGS: return "strings";
	case SEC_HEADER: return "header info";
	case SEC_FTRACE: return "ftrace events";
	case SEC_EVENTS: return "event formats";
	case SEC_KALLSYMS: return "kallsyms";
	case SEC_PRINTK: return "printk";
	case SEC_CMDLINES: return "cmdlines";
	}
	return "unknown";
}

/* Open a v7 section at `off` expecting id `want`: *r views its (decompressed) data. */
static int open_section(td_open *o, uint64_t off, uint16_t want, rd *r, uint8_t **copy)
{
	td_file *f = o->f;
	*copy = NULL;
	rd h = {.f = f, .base = f->map.p, .p = f->map.p, .end = f->map.p + f->map.size,
		.sect = sec_name(want)};
	if (off > f->map.size) {
		h.p = h.end;
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: section %s: offset past the end of the file",
				   f->path, (unsigned long long)off, sec_name(want));
	}
	h.p = f->map.p + off;
	uint16_t id, flags;
	uint32_t strid;
	uint64_t size;
	if (rd_u16(&h, &id) || rd_u16(&h, &flags) || rd_u32(&h, &strid) || rd_u64(&h, &size))
		return TIO_ERR_FORMAT;
	if (id != want)
		return tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: section %s: header says section id %u",
				   f->path, (unsigned long long)off, sec_name(want), id);
	const uint8_t *d;
	if (rd_bytes(&h, size, &d))
		return TIO_ERR_FORMAT;
	*r = (rd){.f = f, .base = d, .p = d, .end = d + size, .file_off = off + 16, .sect = sec_name(want)};
	if (!(flags & 1))
		return 0;
	uint32_t cs, us;
	if (rd_u32(r, &cs) || rd_u32(r, &us))
		return TIO_ERR_FORMAT;
	if (cs > (uint64_t)(r->end - r->p))
		return rd_err(r, "compressed size larger than the section");
	if (us > (1u << 30))
		return rd_err(r, "uncompressed size too large");
	int e0 = td_usize_check(f, r->p, cs, us);
	if (e0)
		return tio_err_push(e0, "%s@0x%llx: section %s", f->path, (unsigned long long)off, sec_name(want));
	uint8_t *buf = tio_malloc(us ? us : 1);
	if (!buf)
		return TIO_ERR_NOMEM;
	int e = td_decompress(f, r->p, cs, buf, us);
	if (e) {
		free(buf);
		return tio_err_push(e, "%s@0x%llx: section %s", f->path, (unsigned long long)off,
				    sec_name(want));
	}
	*copy = buf;
	*r = (rd){.f = f, .base = buf, .p = buf, .end = buf + us, .file_off = off, .copy = true,
		  .sect = sec_name(want)};
	return 0;
}

/*
 * tio_trace_class.load_table: the text of a table sec_text32 left unread,
 * read from the file again (it was read whole on opening: only memory can
 * fail here).  The pages read are given back, as on opening.
 */
static int td_load_table(tio_trace_class *tc, tio_kv *kv)
{
	td_file *f = tc->table_ctx;
	const struct td_lazy *z = NULL;
	for (uint32_t i = 0; f && i < f->nlazy && !z; i++)
		if (!strcmp(f->lazy[i].key, kv->key))
			z = &f->lazy[i];
	if (!z)
		return TIO_ERR_FORMAT;
	td_open o = {.f = f, .tc = tc};
	uint8_t *copy = NULL;
	const uint8_t *b = f->map.p + z->off;
	uint32_t sz = z->len;
	int e = 0;
	if (z->sect) {
		rd s;
		e = open_section(&o, z->off, z->id, &s, &copy);
		if (!e && (rd_u32(&s, &sz) || rd_bytes(&s, sz, &b)))
			e = TIO_ERR_FORMAT;
	} else if (z->off > f->map.size || z->len > f->map.size - z->off) {
		e = tio_err_set(TIO_ERR_FORMAT, "%s@0x%llx: %s past the end of the file", f->path,
				(unsigned long long)z->off, kv->key);
	}
	if (!e && !(kv->sval = tio_strndup((const char *)b, strnlen((const char *)b, sz))))
		e = TIO_ERR_NOMEM;
	free(copy);
	uint64_t n = z->len;
	if (z->sect && z->off <= f->map.size && f->map.size - z->off >= 16)
		n = 16 + td_u64(f, f->map.p + z->off + 8);
	tio_map_drop(&f->map, z->off, n);
	return e;
}

/*
 * Sections of a v7 file, as `trace-cmd dump` counts them: one after the
 * other from the end of the file header, each header telling its size.
 */
static int64_t count_sections(const td_file *f, uint64_t off)
{
	int64_t n = 0;
	while (off <= f->map.size && f->map.size - off >= 16 && n < (1 << 20)) {
		uint64_t size = td_u64(f, f->map.p + off + 8);
		if (size > f->map.size - off - 16)
			break;
		n++;
		off += 16 + size;
	}
	return n;
}

static int read_v7(td_open *o, rd *r)
{
	td_file *f = o->f;
	const char *cname, *cver;
	if (rd_str(r, &cname, NULL) || rd_str(r, &cver, NULL))
		return TIO_ERR_FORMAT;
	snprintf(f->comp, sizeof(f->comp), "%s", cname);
	int e = env_str(o, "compression", cname, strlen(cname));
	if (!e)
		e = env_str(o, "compression_version", cver, strlen(cver));
	if (e)
		return e;
	if (strcmp(f->comp, "none") && strcmp(f->comp, "zstd") && strcmp(f->comp, "zlib"))
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s@0x%llx: unknown compression '%s'", f->path,
				   (unsigned long long)(r->p - r->base), f->comp);
	uint64_t opt;
	if (rd_u64(r, &opt))
		return TIO_ERR_FORMAT;
	if ((e = env_int(o, "sections", count_sections(f, (uint64_t)(r->p - r->base)))))
		return e;
	/* each DONE option gives the next section: one read before would make
	   the chain loop, every pass adding its buffers and options again */
	uint64_t seen[1000];
	for (int n = 0; opt && n < 1000; n++) {
		rd s;
		uint8_t *copy;
		for (int k = 0; k < n; k++)
			if (seen[k] == opt)
				return tio_err_set(TIO_ERR_FORMAT,
						   "%s@0x%llx: section options: read before (the DONE option of the options at 0x%llx points back to it)",
						   f->path, (unsigned long long)opt, (unsigned long long)seen[n - 1]);
		seen[n] = opt;
		e = open_section(o, opt, SEC_OPTIONS, &s, &copy);
		if (!e)
			e = read_options(o, &s, &opt);
		free(copy);
		if (e)
			return e;
	}
	static const struct {
		int opt;
		uint16_t sec;
	} secs[] = {{OPT_HEADER_INFO, SEC_HEADER}, {OPT_FTRACE_EVENTS, SEC_FTRACE},
		    {OPT_EVENT_FORMATS, SEC_EVENTS}, {OPT_KALLSYMS, SEC_KALLSYMS},
		    {OPT_PRINTK, SEC_PRINTK},	     {OPT_CMDLINES, SEC_CMDLINES}};
	if ((e = env_int(o, "options", o->noptions)))
		return e;
	if (!o->have[OPT_HEADER_INFO])
		return tio_err_set(TIO_ERR_FORMAT, "%s: no HEADER_INFO option (section 16)", f->path);
	for (size_t i = 0; i < TIO_ARRAY_LEN(secs); i++) {
		if (!o->have[secs[i].opt])
			continue;
		rd s;
		uint8_t *copy;
		e = open_section(o, o->sec[secs[i].opt], secs[i].sec, &s, &copy);
		if (!e) {
			switch (secs[i].sec) {
			case SEC_HEADER: e = sec_header(o, &s); break;
			case SEC_FTRACE: e = sec_ftrace(o, &s); break;
			case SEC_EVENTS: e = sec_events(o, &s); break;
			case SEC_KALLSYMS: e = sec_text32(o, &s, "kallsyms", SEC_KALLSYMS); break;
			case SEC_PRINTK: e = sec_text32(o, &s, "printk_formats", SEC_PRINTK); break;
			case SEC_CMDLINES: e = sec_cmdlines(o, &s); break;
			}
		}
		free(copy);
		if (e)
			return e;
	}
	/* the top instance (name "") first, as trace-cmd lists it */
	for (uint32_t i = 1; i < f->nbufs; i++) {
		if (f->bufs[i].name[0])
			continue;
		td_buffer top = f->bufs[i];
		memmove(&f->bufs[1], &f->bufs[0], i * sizeof(td_buffer));
		f->bufs[0] = top;
		break;
	}
	if (!f->ncpus) {
		for (uint32_t i = 0; i < f->nbufs; i++)
			for (uint32_t j = 0; j < f->bufs[i].ncpus; j++)
				if (f->bufs[i].cpus[j].cpu + 1 > f->ncpus)
					f->ncpus = f->bufs[i].cpus[j].cpu + 1;
	}
	return 0;
}

/*
 * v6 keeps the trace clock list after the flyrecord CPU table: size (u64)
 * and text, "[local] global counter ...\n"; size 0 (or older files, whose
 * CPU data starts there) when none was saved.  The TRACECLOCK option of
 * these files is empty; `trace-cmd dump` shows the list (an empty line for
 * size 0) only when the file has that option, else "No tracing clock saved".
 */
static int read_v6_clock(td_open *o, rd *r)
{
	uint64_t sz;
	const uint8_t *b;
	if ((uint64_t)(r->end - r->p) < 8)
		return 0;
	sz = td_u64(o->f, r->p);
	if (!sz && o->have[OPT_TRACECLOCK]) /* stored, empty: `trace-cmd dump` prints an empty line */
		return table_add(o, "trace_clocks", r->p, 0);
	if (!sz || sz > 4096 || sz > (uint64_t)(r->end - r->p) - 8)
		return 0;
	r->p += 8;
	b = r->p;
	int e = pick_clock(o, b, (size_t)sz);
	/* the table is the list `trace-cmd dump` shows: only with the option */
	if (!e && o->have[OPT_TRACECLOCK])
		e = table_add(o, "trace_clocks", b, sz);
	return e ? e : env_set_str(o, "trace_clocks", (const char *)b, (size_t)sz);
}

static int read_v6(td_open *o, rd *r)
{
	td_file *f = o->f;
	snprintf(f->comp, sizeof(f->comp), "none");
	int e;
	r->sect = "header info";
	if ((e = sec_header(o, r)))
		return e;
	r->sect = "ftrace events";
	if ((e = sec_ftrace(o, r)))
		return e;
	r->sect = "event formats";
	if ((e = sec_events(o, r)))
		return e;
	r->sect = "kallsyms";
	if ((e = sec_text32(o, r, "kallsyms", 0)))
		return e;
	r->sect = "printk";
	if ((e = sec_text32(o, r, "printk_formats", 0)))
		return e;
	r->sect = "cmdlines";
	if ((e = sec_cmdlines(o, r)))
		return e;
	r->sect = "cpus";
	if ((e = rd_u32(r, &f->ncpus)))
		return e;
	td_buffer *top;
	if ((e = add_buffer(o, &top)))
		return e;
	top->name = tio_strdup("");
	top->page_size = f->page_size;
	if (!top->name)
		return TIO_ERR_NOMEM;
	for (;;) {
		const uint8_t *tag;
		r->sect = "options";
		if ((e = rd_bytes(r, 10, &tag)))
			return e;
		if (!memcmp(tag, "options  ", 10)) {
			uint64_t next;
			/* BUFFER options of v6 append buffers: keep the top one first */
			if ((e = read_options(o, r, &next)))
				return e;
			top = &f->bufs[0];
			continue;
		}
		if (!memcmp(tag, "latency  ", 10)) {
			if ((e = env_int(o, "options", o->noptions)))
				return e;
			return env_int(o, "latency_buffer", 1);
		}
		if (!memcmp(tag, "flyrecord", 10)) {
			r->sect = "flyrecord";
			td_buffer *b0 = &f->bufs[0];
			if ((e = env_int(o, "options", o->noptions)) || (e = read_cpu_table(o, r, b0, f->ncpus)))
				return e;
			return read_v6_clock(o, r);
		}
		r->p -= 10;
		return rd_err(r, "expected \"options  \", \"latency  \" or \"flyrecord\"");
	}
}

static void file_free(td_file *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nbufs; i++) {
		free(f->bufs[i].name);
		free(f->bufs[i].clock);
		free(f->bufs[i].cpus);
	}
	free(f->bufs);
	for (uint32_t i = 0; i < f->ntsync; i++)
		free(f->tsync[i].s);
	free(f->tsync);
	for (uint32_t i = 0; i < f->necs; i++) {
		td_ec_free_user(f->ecs[i]);
		tio_event_class_free(f->ecs[i]);
	}
	free(f->ecs);
	tio_fc_free(f->common_fc);
	td_plan_free(&f->common);
	tio_map_close(&f->map);
	free(f);
}

static int ec_cmp(const void *a, const void *b)
{
	const tio_event_class *x = *(tio_event_class *const *)a, *y = *(tio_event_class *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* td_time without the offset (times relative to it, as seeks and cuts ask). */
static uint64_t rel_time(const td_file *f, const td_tsync *y, uint64_t raw)
{
	return td_time(f, y, raw) - (uint64_t)f->ts_offset;
}

uint64_t td_raw_at(const td_file *f, const td_tsync *y, uint64_t rel)
{
	if (f->raw_ts || (!f->tsc_mult && !y && !f->ts2secs))
		return rel;
	/* td_time is monotonic for the multipliers, shifts and time shifts of
	   real files near their samples, and wraps far from them (a product of
	   64 bits): the search stays between the samples around rel, or goes
	   out from the first or last by doubling steps.  A damaged file's only
	   costs its seeks their precision. */
	uint64_t lo = 0, hi = UINT64_MAX;
	if (y && y->n) {
		const td_tsample *v = y->s;
		uint32_t n = y->n, i = 0;
		if (rel_time(f, y, (uint64_t)v[0].time) >= rel) {
			hi = (uint64_t)v[0].time;
			for (uint64_t step = 1u << 20; hi > 0; step *= 2) {
				lo = hi > step ? hi - step : 0;
				if (rel_time(f, y, lo) < rel || !lo || step > (UINT64_MAX >> 1))
					break;
				hi = lo;
			}
		} else if (rel_time(f, y, (uint64_t)v[n - 1].time) < rel) {
			lo = (uint64_t)v[n - 1].time;
			for (uint64_t step = 1u << 20;; step *= 2) {
				hi = UINT64_MAX - lo > step ? lo + step : UINT64_MAX;
				if (rel_time(f, y, hi) >= rel)
					break;
				if (hi == UINT64_MAX || step > (UINT64_MAX >> 1))
					return UINT64_MAX;
				lo = hi;
			}
		} else {
			while (i + 2 < n && rel_time(f, y, (uint64_t)v[i + 1].time) < rel)
				i++;
			lo = (uint64_t)v[i].time;
			hi = (uint64_t)v[i + 1].time;
		}
	} else if (rel_time(f, y, hi) < rel) {
		return UINT64_MAX;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (rel_time(f, y, mid) >= rel)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* One stream class per buffer instance, one stream per CPU. */
static int build_model(td_open *o)
{
	td_file *f = o->f;
	tio_trace_class *tc = o->tc;
	tio_trace *t = o->t;
	tio_clock *clk = tio_calloc(1, sizeof(*clk));
	tc->clocks = tio_calloc(1, sizeof(tio_clock *));
	if (!clk || !tc->clocks) {
		free(clk);
		return TIO_ERR_NOMEM;
	}
	tc->clocks[0] = clk;
	tc->nclocks = 1;
	/* TSC2NSEC: the stamps are ns whatever clock the TRACECLOCK option names (x86-tsc);
	   trace-cmd names the buffers' clock "tsc2nsec" */
	const char *cn = f->tsc_mult ? "tsc2nsec"
				     : o->clock ? o->clock : (f->nbufs && f->bufs[0].clock ? f->bufs[0].clock : "local");
	clk->name = tio_strdup(cn);
	clk->freq = 1000000000;
	if (!clk->name)
		return TIO_ERR_NOMEM;
	int e;
	f->clock_v6_list = o->clock && !o->clock_opt;
	if ((e = env_str(o, "trace_clock", cn, strlen(cn))) || (e = env_int(o, "file_version", f->version)) ||
	    (e = env_int(o, "long_size", f->long_size)) || (e = env_int(o, "page_size", f->page_size)) ||
	    (e = env_int(o, "cpus", f->ncpus)))
		return e;
	if (f->necs > 1) /* f->ecs is NULL without formats: qsort(NULL, 0) is undefined */
		qsort(f->ecs, f->necs, sizeof(*f->ecs), ec_cmp);
	tc->scs = tio_calloc(f->nbufs ? f->nbufs : 1, sizeof(tio_stream_class *));
	if (!tc->scs)
		return TIO_ERR_NOMEM;
	size_t nstreams = 0;
	for (uint32_t i = 0; i < f->nbufs; i++)
		nstreams += f->bufs[i].ncpus;
	t->streams = tio_calloc(nstreams ? nstreams : 1, sizeof(tio_stream *));
	if (!t->streams)
		return TIO_ERR_NOMEM;
	/* each instance gets a copy of every event class (some KB each): BUFFER
	   options of 15 bytes must not make gigabytes of them (a recording of
	   every event, 2,300 classes, can have 28 instances within the limit) */
	if ((uint64_t)f->nbufs * f->necs > TD_CLASS_COPIES_MAX) {
		const td_buffer *b = &f->bufs[TD_CLASS_COPIES_MAX / f->necs];
		return tio_err_set(TIO_ERR_LIMIT,
				   "%s@0x%llx: section options: BUFFER option '%s': %u instances of %u event classes each, more than %u classes in all",
				   f->path, (unsigned long long)b->opt_at, b->name ? b->name : "", f->nbufs,
				   f->necs, TD_CLASS_COPIES_MAX);
	}
	for (uint32_t i = 0; i < f->nbufs; i++) {
		td_buffer *b = &f->bufs[i];
		if ((e = check_header_page(f, b)))
			return e;
		tio_stream_class *sc = tio_calloc(1, sizeof(*sc));
		if (!sc)
			return TIO_ERR_NOMEM;
		tc->scs[tc->nscs++] = sc;
		sc->id = i;
		sc->tc = tc;
		sc->clock = 0;
		sc->name = tio_strdup(b->name);
		sc->ecs = tio_calloc(f->necs ? f->necs : 1, sizeof(tio_event_class *));
		if (!sc->name || !sc->ecs)
			return TIO_ERR_NOMEM;
		if (f->common_fc) {
			sc->ev_common_ctx = tio_fc_copy(f->common_fc);
			if (!sc->ev_common_ctx)
				return TIO_ERR_NOMEM;
		}
		for (uint32_t j = 0; j < f->necs; j++) {
			tio_event_class *ec;
			if (i == f->nbufs - 1) {
				ec = f->ecs[j]; /* the last instance takes the originals */
				f->ecs[j] = NULL;
			} else {
				ec = td_ec_copy(f->ecs[j]);
				if (!ec)
					return TIO_ERR_NOMEM;
			}
			ec->sc = sc;
			sc->ecs[sc->necs++] = ec;
		}
		b->sc = sc;
		uint64_t bytes = 0;
		for (uint32_t c = 0; c < b->ncpus; c++)
			bytes += b->cpus[c].size;
		const char *bc = b->clock ? b->clock : cn;
		if ((e = env_add(&sc->env, &sc->nenv, "clock", bc, strlen(bc), false, 0)) ||
		    (e = env_add(&sc->env, &sc->nenv, "page_size", NULL, 0, true, b->page_size)) ||
		    (e = env_add(&sc->env, &sc->nenv, "cpus", NULL, 0, true, b->ncpus)) ||
		    (e = env_add(&sc->env, &sc->nenv, "data_bytes", NULL, 0, true, (int64_t)bytes)))
			return e;
		for (uint32_t c = 0; c < b->ncpus; c++) {
			tio_stream *s;
			if ((e = td_stream_new(f, b, c, &s)))
				return e;
			t->streams[t->nstreams++] = s;
		}
	}
	if (f->nbufs)
		f->necs = 0;
	return 0;
}

static int tracedat_probe(const char *path)
{
	if (!tio_is_file(path))
		return 0;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return 0;
	char b[10];
	size_t n = fread(b, 1, sizeof(b), fp);
	fclose(fp);
	return n == sizeof(b) && !memcmp(b, MAGIC, sizeof(b)) ? 100 : 0;
}

static int tracedat_open(tio_trace *t, const char *path)
{
	td_file *f = tio_calloc(1, sizeof(*f));
	if (!f)
		return TIO_ERR_NOMEM;
	t->user = f;
	int e = tio_map_open(&f->map, path);
	if (e)
		return e;
	f->path = t->path;
	td_open o = {.f = f, .t = t};
	o.tc = tio_calloc(1, sizeof(*o.tc));
	if (!o.tc)
		return TIO_ERR_NOMEM;
	t->tc = o.tc;
	rd r = {.f = f, .base = f->map.p, .p = f->map.p, .end = f->map.p + f->map.size, .sect = "file header"};
	const uint8_t *m;
	const char *ver;
	if (rd_bytes(&r, 10, &m) || memcmp(m, MAGIC, 10))
		return rd_err(&r, "not a trace.dat file (bad magic)");
	if (rd_str(&r, &ver, NULL))
		return TIO_ERR_FORMAT;
	f->version = atoi(ver);
	if (f->version < 6 || f->version > 7)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s@0x%x: section file header: version '%s' (6 and 7 are read)",
				   path, 10, ver);
	const uint8_t *el;
	if (rd_bytes(&r, 2, &el))
		return TIO_ERR_FORMAT;
	f->be = el[0] != 0;
	f->long_size = el[1];
	if (f->long_size != 4 && f->long_size != 8)
		return rd_err(&r, "long size is neither 4 nor 8");
	if (rd_u32(&r, &f->page_size))
		return TIO_ERR_FORMAT;
	if (f->page_size < 64 || f->page_size > (1u << 24))
		return rd_err(&r, "implausible page size");
	o.tc->byte_order = f->be ? TIO_BE : TIO_LE;
	f->hp_commit_size = f->long_size;
	f->hp_commit_off = 8;
	f->hp_data_off = 8 + f->long_size;
	e = f->version >= 7 ? read_v7(&o, &r) : read_v6(&o, &r);
	if (!e)
		e = build_model(&o);
	/* the header sections read (kallsyms alone is megabytes, and with large
	   folios each page read maps more) are given back: what points there
	   maps them again when read */
	tio_map_drop(&f->map, 0, f->map.size);
	free(o.clock);
	tio_buf_free(&o.strings);
	return e;
}

static void tracedat_free(tio_trace *t)
{
	if (t->tc && t->tc->table_ctx == t->user) { /* its tables cannot be read any more */
		t->tc->load_table = NULL;
		t->tc->table_ctx = NULL;
	}
	file_free(t->user);
	t->user = NULL;
}

/*
 * Event classes own a decode plan in ec->user: free it before the trace
 * class goes (tio_trace_free frees the streams, then calls this, then the
 * trace class).
 */
static void tracedat_free_all(tio_trace *t)
{
	if (t->tc)
		for (uint32_t i = 0; i < t->tc->nscs; i++)
			for (uint32_t j = 0; j < t->tc->scs[i]->necs; j++)
				td_ec_free_user(t->tc->scs[i]->ecs[j]);
	tracedat_free(t);
}

/* Set the environment's integer `key` of trace t (added when absent). */
static int env_set_int(tio_trace *t, const char *key, int64_t v)
{
	for (uint32_t i = 0; i < t->tc->nenv; i++)
		if (!strcmp(t->tc->env[i].key, key) && t->tc->env[i].is_int) {
			t->tc->env[i].ival = v;
			return 0;
		}
	return env_add(&t->tc->env, &t->tc->nenv, key, NULL, 0, true, v);
}

/*
 * Reader options (tio_trace_set, before the first message):
 *   ts2secs = HZ: the stamps count at HZ per second (trace-cmd report's
 *   --ts2secs): each one times 1e9 / HZ, as a double, after TIME_SHIFT and
 *   instead of TSC2NSEC; how trace-cmd shows them (seconds or integers)
 *   stays the clock's.
 *   raw-ts = 1: the ring buffer's stamps as they are (trace-cmd report's
 *   --raw-ts): no TIME_SHIFT, ts2secs, TSC2NSEC nor OFFSET/DATE; trace-cmd
 *   shows them as integers.
 * Both go in the environment too (ts2secs, raw_ts), for the trace-cmd style.
 */
int tio_tracedat_set(tio_trace *t, const char *key, const char *value)
{
	td_file *f = t->user;
	if (f && !strcmp(key, "raw-ts")) {
		if (strcmp(value, "0") && strcmp(value, "1"))
			return tio_err_set(TIO_ERR_USAGE, "%s: raw-ts: '%s' is not 0 or 1", t->path, value);
		if (value[0] == '1' && !f->raw_ts) {
			f->raw_ts = true;
			f->saved_offset = f->ts_offset;
			f->ts_offset = 0;
		} else if (value[0] == '0' && f->raw_ts) {
			f->raw_ts = false;
			f->ts_offset = f->saved_offset;
		}
		return env_set_int(t, "raw_ts", f->raw_ts);
	}
	if (!f || strcmp(key, "ts2secs"))
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: format tracedat has no option '%s' (ts2secs, raw-ts)", t->path, key);
	char *e = NULL;
	errno = 0;
	unsigned long long hz = strtoull(value, &e, 10);
	if (!*value || *e || errno || !hz || value[0] == '-')
		return tio_err_set(TIO_ERR_USAGE, "ts2secs: '%s' is not a frequency in Hz (a positive integer)", value);
	f->ts2secs = 1e9 / (double)hz;
	/* trace-cmd's --ts-diff then counts in ns, and it does not read a v6 file's
	   clock list after the CPU table (its use_trace_clock): the stamps show as
	   a ns clock's (tcreport.c) */
	int r = env_set_int(t, "ts2secs", (int64_t)(hz > INT64_MAX ? INT64_MAX : hz));
	return r || !f->clock_v6_list ? r : env_set_int(t, "ts2secs_clock_unread", 1);
}

const tio_format_ops tio_format_tracedat = {
	.name = "tracedat",
	.probe = tracedat_probe,
	.open = tracedat_open,
	.free = tracedat_free_all,
};

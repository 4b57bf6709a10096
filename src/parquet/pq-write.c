/*
 * The Parquet file writer of pq.h: Thrift compact protocol, RLE/bit-packed
 * hybrid levels, PLAIN and dictionary encodings, pages, row groups and the
 * footer.  Written from apache/parquet-format's parquet.thrift and
 * Encodings.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "parquet/pq.h"

/* ---------------------------------------------------------------- Thrift compact protocol */

enum {
	T_TRUE = 1,
	T_FALSE = 2,
	T_BYTE = 3,
	T_I16 = 4,
	T_I32 = 5,
	T_I64 = 6,
	T_BINARY = 8,
	T_LIST = 9,
	T_STRUCT = 12
};

/* A writer of nested structs: the last field id of each open struct (field ids are deltas). */
typedef struct tw {
	tio_buf *b;
	int16_t last[64];
	int depth;
} tw;

/* An unsigned LEB128 varint, as Thrift compact writes sizes and (zigzagged) integers. */
static void varint(tio_buf *b, uint64_t v)
{
	char o[10];
	int n = 0;
	while (v >= 0x80) {
		o[n++] = (char)(v | 0x80);
		v >>= 7;
	}
	o[n++] = (char)v;
	tio_buf_add(b, o, (size_t)n);
}

/* Thrift compact's zigzag mapping of a signed integer. */
static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* A field header: the id as a delta from the previous field's when it fits in 4 bits. */
static void tw_field(tw *w, int16_t id, int type)
{
	int16_t d = (int16_t)(id - w->last[w->depth]);
	if (d > 0 && d <= 15) {
		tio_buf_addc(w->b, (char)((d << 4) | type));
	} else {
		tio_buf_addc(w->b, (char)type);
		varint(w->b, zigzag(id));
	}
	w->last[w->depth] = id;
}

/* An i32 field (also enums). */
static void tw_i32(tw *w, int16_t id, int32_t v)
{
	tw_field(w, id, T_I32);
	varint(w->b, zigzag(v));
}

/* An i64 field. */
static void tw_i64(tw *w, int16_t id, int64_t v)
{
	tw_field(w, id, T_I64);
	varint(w->b, zigzag(v));
}

/* An i8 (byte) field. */
static void tw_i8(tw *w, int16_t id, int8_t v)
{
	tw_field(w, id, T_BYTE);
	tio_buf_addc(w->b, (char)v);
}

/* A bool field: the value is in the field header's type. */
static void tw_bool(tw *w, int16_t id, bool v) { tw_field(w, id, v ? T_TRUE : T_FALSE); }

/* A binary or string field: length then bytes. */
static void tw_bin(tw *w, int16_t id, const void *p, size_t n)
{
	tw_field(w, id, T_BINARY);
	varint(w->b, n);
	tio_buf_add(w->b, p, n);
}

/* A struct field, or (id 0) a struct as a list element: its own field ids start from 0. */
static void tw_begin(tw *w, int16_t id)
{
	if (id)
		tw_field(w, id, T_STRUCT);
	if (w->depth < 63)
		w->last[++w->depth] = 0;
}

/* End the current struct (stop byte). */
static void tw_end(tw *w)
{
	tio_buf_addc(w->b, 0);
	if (w->depth > 0)
		w->depth--;
}

/* A list field's header: its elements follow. */
static void tw_list(tw *w, int16_t id, int elem_type, uint64_t n)
{
	tw_field(w, id, T_LIST);
	if (n < 15) {
		tio_buf_addc(w->b, (char)((n << 4) | (uint64_t)elem_type));
	} else {
		tio_buf_addc(w->b, (char)(0xF0 | elem_type));
		varint(w->b, n);
	}
}

/* ---------------------------------------------------------------- schema nodes */

pq_node *pq_node_new(const char *name, int rep)
{
	pq_node *n = tio_calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	if (!(n->name = tio_strdup(name ? name : ""))) {
		free(n);
		return NULL;
	}
	n->rep = (uint8_t)rep;
	n->col = -1;
	return n;
}

/* A leaf (column) node of physical type `phys` and logical type `logical`. */
pq_node *pq_leaf_new(const char *name, int rep, int phys, int logical)
{
	pq_node *n = pq_node_new(name, rep);
	if (n) {
		n->leaf = true;
		n->phys = (uint8_t)phys;
		n->logical = (uint8_t)logical;
	}
	return n;
}

/* Append a child to a group (the child is freed on failure). */
int pq_node_add(pq_node *parent, pq_node *kid)
{
	if (tio_grow(&parent->kids, &parent->kcap, parent->nkids + 1, sizeof(pq_node *))) {
		pq_node_free(kid);
		return TIO_ERR_NOMEM;
	}
	parent->kids[parent->nkids++] = kid;
	return 0;
}

/* Free a schema subtree. */
void pq_node_free(pq_node *n)
{
	if (!n)
		return;
	for (uint32_t k = 0; k < n->nkids; k++)
		pq_node_free(n->kids[k]);
	free(n->kids);
	free(n->name);
	free(n);
}

/* Number of leaves (columns) under a node. */
uint32_t pq_node_leaves(const pq_node *n)
{
	if (n->leaf)
		return 1;
	uint32_t c = 0;
	for (uint32_t k = 0; k < n->nkids; k++)
		c += pq_node_leaves(n->kids[k]);
	return c;
}

/* Integer bounds at their extremes, so that the first value sets both. */
static void bounds_reset(pq_col *c)
{
	if (c->phys == PQ_FLOAT || c->phys == PQ_DOUBLE)
		return;
	if (c->unsigned_order) {
		c->mn.u = UINT64_MAX;
		c->mx.u = 0;
	} else {
		c->mn.i = INT64_MAX;
		c->mx.i = INT64_MIN;
	}
}

/* Number the leaves depth first and give each column its levels and path. */
static int assign(pq_file *f, pq_node *n, const char **path, uint32_t depth, unsigned def,
		  unsigned rep)
{
	if (depth >= 200)
		return tio_err_set(TIO_ERR_LIMIT, "%s: schema nested more than 200 levels",
				   f->path);
	if (depth) {
		path[depth - 1] = n->name;
		if (n->rep != PQ_REQUIRED)
			def++;
		if (n->rep == PQ_REPEATED)
			rep++;
	}
	if (!n->leaf) {
		for (uint32_t k = 0; k < n->nkids; k++) {
			int r = assign(f, n->kids[k], path, depth + 1, def, rep);
			if (r)
				return r;
		}
		return 0;
	}
	pq_col *c = &f->cols[f->ncols];
	n->col = (int32_t)f->ncols++;
	c->node = n;
	c->file = f;
	c->max_def = (uint8_t)def;
	c->max_rep = (uint8_t)rep;
	c->phys = n->phys;
	c->unsigned_order = (n->logical == PQ_LT_INT && !n->int_signed) ||
			    n->phys == PQ_BYTE_ARRAY || n->phys == PQ_FLBA || n->phys == PQ_BOOLEAN;
	c->dict = n->phys == PQ_BYTE_ARRAY && n->dict;
	bounds_reset(c);
	c->npath = depth;
	if (!(c->path = tio_calloc(depth ? depth : 1, sizeof(char *))))
		return TIO_ERR_NOMEM;
	for (uint32_t k = 0; k < depth; k++)
		c->path[k] = (char *)path[k];
	return 0;
}

/* Number the columns, give them levels and paths, create the file with its magic. */
int pq_open(pq_file *f, const char *path, pq_node *root, int codec, int level, pq_shared *sh)
{
	memset(f, 0, sizeof(*f));
	f->sh = sh;
	f->dict_max = 65536;
	f->root = root;
	f->codec = codec;
	f->level = level;
	if (!(f->path = tio_strdup(path)))
		return TIO_ERR_NOMEM;
	uint32_t n = pq_node_leaves(root);
	if (!(f->cols = tio_calloc(n ? n : 1, sizeof(pq_col))))
		return TIO_ERR_NOMEM;
	const char *p[200];
	int r = assign(f, root, p, 0, 0, 0);
	if (r)
		return r;
	FILE *o = fopen(path, "wb");
	if (!o)
		return tio_err_set(TIO_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
	bool ok = fwrite("PAR1", 1, 4, o) == 4;
	if (fclose(o) || !ok)
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", path, strerror(errno));
	f->off = 4;
	if (codec == PQ_ZSTD && !sh->zctx && !(sh->zctx = ZSTD_createCCtx()))
		return tio_err_oom();
	return 0;
}

/* Empty a column after its row group was written (memory kept unless `release`). */
static void col_reset(pq_col *c, bool release)
{
	tio_buf *bufs[] = {&c->defs, &c->reps, &c->vals, &c->dbytes, &c->idx};
	for (size_t k = 0; k < TIO_ARRAY_LEN(bufs); k++) {
		bufs[k]->len = 0;
		if (release && bufs[k]->cap > (256u << 10))
			tio_buf_free(bufs[k]);
	}
	c->nlevels = c->nnull = c->nnan = 0;
	c->has_mm = false;
	bounds_reset(c);
	c->ndict = 0;
	if (c->nslots)
		memset(c->slots, 0, c->nslots * sizeof(uint32_t));
	if (release && c->dcap > 16384) {
		free(c->doff);
		free(c->dhash);
		free(c->slots);
		c->doff = c->dhash = c->slots = NULL;
		c->dcap = c->nslots = 0;
	}
	memset(c->seen, 0, sizeof(c->seen));
	c->dict = c->node->phys == PQ_BYTE_ARRAY && c->node->dict;
}

/* Free the shared encoding buffers and zstd context. */
void pq_shared_free(pq_shared *sh)
{
	tio_buf_free(&sh->out);
	tio_buf_free(&sh->cbuf);
	if (sh->zctx)
		ZSTD_freeCCtx(sh->zctx);
	memset(sh, 0, sizeof(*sh));
}

/* Free a file writer (the file itself stays as written). */
void pq_free(pq_file *f)
{
	for (uint32_t k = 0; k < f->ncols; k++) {
		pq_col *c = &f->cols[k];
		tio_buf_free(&c->defs);
		tio_buf_free(&c->reps);
		tio_buf_free(&c->vals);
		tio_buf_free(&c->dbytes);
		tio_buf_free(&c->idx);
		free(c->doff);
		free(c->dhash);
		free(c->slots);
		free(c->path);
	}
	free(f->cols);
	pq_node_free(f->root);
	tio_buf_free(&f->rgs);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* ---------------------------------------------------------------- values */

void pq_double(pq_col *c, double d, unsigned rep)
{
	if (isnan(d)) {
		c->nnan++;
	} else if (!c->has_mm) {
		c->has_mm = true;
		c->mn.d = c->mx.d = d;
	} else {
		if (d < c->mn.d || (d == 0 && signbit(d)))
			c->mn.d = d < c->mn.d ? d : (c->mn.d == 0 ? -0.0 : c->mn.d);
		if (d > c->mx.d || (d == 0 && !signbit(d) && c->mx.d == 0))
			c->mx.d = d > c->mx.d ? d : 0.0;
	}
	if (c->phys == PQ_FLOAT) {
		float x = (float)d;
		pq_fixed(c, &x, 4, rep);
	} else {
		pq_fixed(c, &d, 8, rep);
	}
}

/* A boolean value (one byte buffered, bit-packed when written). */
void pq_bool(pq_col *c, bool b, unsigned rep)
{
	uint8_t v = b;
	if (v < c->mn.u)
		c->mn.u = v;
	if (v > c->mx.u)
		c->mx.u = v;
	pq_fixed(c, &v, 1, rep);
}

/* A fast hash of a string for the dictionary. */
static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	uint64_t v = 0;
	memcpy(&v, p, n);
	h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/* Stop dictionary-encoding this row group's values: the indices become PLAIN values. */
static void dict_abandon(pq_col *c)
{
	const uint32_t *ix = (const uint32_t *)c->idx.p;
	size_t n = c->idx.len / 4;
	for (size_t k = 0; k < n; k++) {
		const char *e = c->dbytes.p + c->doff[ix[k]];
		if (tio_buf_add(&c->vals, e, 4 + tio_le32(e)))
			c->file->oom = true;
	}
	c->dict = false;
	c->idx.len = 0;
	c->dbytes.len = 0;
	c->ndict = 0;
	if (c->nslots)
		memset(c->slots, 0, c->nslots * sizeof(uint32_t));
	memset(c->seen, 0, sizeof(c->seen));
}

/* The dictionary entry of a string, added when new; false when the dictionary is full. */
static bool dict_find(pq_col *c, const void *p, uint32_t n, uint32_t *entry, bool stable)
{
	unsigned sl = (uint32_t)((uint32_t)((uintptr_t)p >> 3) * 0x9E3779B1u) >> 26;
	if (stable && c->seen[sl].p == p && c->seen[sl].len == n && p) {
		*entry = c->seen[sl].e;
		return true;
	}
	uint32_t h = hash_bytes(p, n);
	if (c->ndict * 2 + 2 > c->nslots) {
		/* grow the slots (and rehash) */
		uint32_t ns = c->nslots ? c->nslots * 2 : 256;
		uint32_t *s = calloc(ns, sizeof(uint32_t));
		if (!s) {
			c->file->oom = true;
			return false;
		}
		for (uint32_t e = 0; e < c->ndict; e++) {
			uint32_t k = c->dhash[e] & (ns - 1);
			while (s[k])
				k = (k + 1) & (ns - 1);
			s[k] = e + 1;
		}
		free(c->slots);
		c->slots = s;
		c->nslots = ns;
	}
	uint32_t k = h & (c->nslots - 1);
	for (uint32_t e; (e = c->slots[k]); k = (k + 1) & (c->nslots - 1)) {
		e--;
		const char *d = c->dbytes.p + c->doff[e];
		if (c->dhash[e] == h && tio_le32(d) == n && !memcmp(d + 4, p, n)) {
			*entry = e;
			if (stable) {
				c->seen[sl].p = p;
				c->seen[sl].len = n;
				c->seen[sl].e = e;
			}
			return true;
		}
	}
	/* a new entry: at most dict_max entries (64 Ki) and 4 MiB per row group, else PLAIN */
	if (c->ndict >= c->file->dict_max || c->dbytes.len + n + 4 > (4u << 20))
		return false;
	if (c->ndict >= c->dcap) {
		uint32_t nc = c->dcap ? c->dcap * 2 : 64;
		uint32_t *o = realloc(c->doff, nc * sizeof(uint32_t));
		if (o)
			c->doff = o;
		uint32_t *hh = o ? realloc(c->dhash, nc * sizeof(uint32_t)) : NULL;
		if (!hh) {
			c->file->oom = true;
			return false;
		}
		c->dhash = hh;
		c->dcap = nc;
	}
	uint32_t e = c->ndict++;
	c->doff[e] = (uint32_t)c->dbytes.len;
	c->dhash[e] = h;
	uint32_t l = n;
	if (tio_buf_add(&c->dbytes, &l, 4) || tio_buf_add(&c->dbytes, p, n))
		c->file->oom = true;
	c->slots[k] = e + 1;
	if (stable) {
		c->seen[sl].p = p;
		c->seen[sl].len = n;
		c->seen[sl].e = e;
	}
	*entry = e;
	return true;
}

/* A byte string: its dictionary entry, or PLAIN once the dictionary is full. */
static void put_bytes(pq_col *c, const void *p, size_t n, unsigned rep, bool stable)
{
	if (c->phys == PQ_FLBA) {
		pq_fixed(c, p, n, rep);
		return;
	}
	if (n > UINT32_MAX - 8)
		n = UINT32_MAX - 8;
	if (c->dict) {
		uint32_t e;
		if (dict_find(c, p, (uint32_t)n, &e, stable)) {
			pq_fixed(c, &e, 0, rep); /* levels */
			if (tio_buf_add(&c->idx, &e, 4))
				c->file->oom = true;
			return;
		}
		dict_abandon(c);
	}
	uint32_t l = (uint32_t)n;
	pq_levels(c, c->max_def, rep);
	if (tio_buf_add(&c->vals, &l, 4) || tio_buf_add(&c->vals, p, n))
		c->file->oom = true;
}

/* A BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value. */
void pq_bytes(pq_col *c, const void *p, size_t n, unsigned rep) { put_bytes(c, p, n, rep, false); }

/* A string whose pointer identifies it (see pq.h). */
void pq_str_stable(pq_col *c, const char *p, size_t n, unsigned rep)
{
	put_bytes(c, p, n, rep, true);
}

/* ---------------------------------------------------------------- encodings */

static unsigned bit_width(uint64_t max)
{
	unsigned w = 0;
	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/* Bit-pack n values (n a multiple of 8, or the last run padded with zeros) LSB first. */
static void bitpack(tio_buf *o, const uint8_t *v8, const uint32_t *v32, size_t from, size_t n,
		    size_t avail, unsigned bw)
{
	while (n) {
		size_t groups = (n + 7) / 8;
		if (groups > 63)
			groups = 63;
		size_t cnt = groups * 8;
		varint(o, (groups << 1) | 1);
		uint64_t acc = 0;
		unsigned nb = 0;
		for (size_t k = 0; k < cnt; k++) {
			size_t i = from + k;
			uint64_t v = i < avail ? (v8 ? v8[i] : v32[i]) : 0;
			acc |= v << nb;
			nb += bw;
			while (nb >= 8) {
				tio_buf_addc(o, (char)acc);
				acc >>= 8;
				nb -= 8;
			}
		}
		if (nb)
			tio_buf_addc(o, (char)acc);
		from += cnt;
		n = cnt < n ? n - cnt : 0;
	}
}

/*
 * The RLE / bit-packed hybrid of Encodings.md: runs of 8 or more equal
 * values are RLE runs, the rest bit-packed groups of 8.
 */
static void rle_hybrid(tio_buf *o, const uint8_t *v8, const uint32_t *v32, size_t n, unsigned bw)
{
	size_t i = 0, lit = 0;
	unsigned vb = (bw + 7) / 8;
#define VAL(k) (v8 ? (uint32_t)v8[k] : v32[k])
	while (i < n) {
		uint32_t v = VAL(i);
		size_t r = 1;
		while (i + r < n && VAL(i + r) == v)
			r++;
		if (r < 8) {
			i += r;
			continue;
		}
		size_t L = i - lit;
		if (L % 8) { /* literals must be whole groups of 8: take some of the run */
			size_t pad = 8 - L % 8;
			i += pad;
			r -= pad;
			L += pad;
		}
		if (L)
			bitpack(o, v8, v32, lit, L, n, bw);
		varint(o, (uint64_t)r << 1);
		for (unsigned b = 0; b < vb; b++)
			tio_buf_addc(o, (char)(v >> (8 * b)));
		i += r;
		lit = i;
	}
	if (n > lit)
		bitpack(o, v8, v32, lit, n - lit, n, bw);
#undef VAL
}

/* Levels of a v1 data page: a 4-byte length then the hybrid encoding. */
static void levels(tio_buf *o, const tio_buf *lv, size_t n, unsigned max)
{
	size_t at = o->len;
	uint32_t z = 0;
	tio_buf_add(o, &z, 4);
	rle_hybrid(o, (const uint8_t *)lv->p, NULL, n, bit_width(max));
	uint32_t len = (uint32_t)(o->len - at - 4);
	if (o->p)
		memcpy(o->p + at, &len, 4);
}

/* ---------------------------------------------------------------- statistics */

/* min/max of a BYTE_ARRAY column: over the dictionary or the PLAIN values. */
static void bytes_minmax(const pq_col *c, const char **mn, uint32_t *mnl, const char **mx,
			 uint32_t *mxl)
{
	*mn = *mx = NULL;
	const tio_buf *b = c->dict ? &c->dbytes : &c->vals;
	for (size_t at = 0; at + 4 <= b->len;) {
		uint32_t l = tio_le32(b->p + at);
		const char *p = b->p + at + 4;
		if (!*mn) {
			*mn = *mx = p;
			*mnl = *mxl = l;
		} else {
			int k = memcmp(p, *mn, l < *mnl ? l : *mnl);
			if (k < 0 || (k == 0 && l < *mnl)) {
				*mn = p;
				*mnl = l;
			}
			k = memcmp(p, *mx, l < *mxl ? l : *mxl);
			if (k > 0 || (k == 0 && l > *mxl)) {
				*mx = p;
				*mxl = l;
			}
		}
		at += 4 + (size_t)l;
	}
}

/* min/max of a FIXED_LEN_BYTE_ARRAY column (unsigned byte order). */
static void flba_minmax(const pq_col *c, const char **mn, const char **mx)
{
	size_t w = (size_t)c->node->type_length;
	*mn = *mx = NULL;
	for (size_t at = 0; w && at + w <= c->vals.len; at += w) {
		const char *p = c->vals.p + at;
		if (!*mn || memcmp(p, *mn, w) < 0)
			*mn = p;
		if (!*mx || memcmp(p, *mx, w) > 0)
			*mx = p;
	}
}

/* Statistics struct (field `id` of the enclosing struct). */
static void write_stats(tw *w, int16_t id, const pq_col *c)
{
	tw_begin(w, id);
	tw_i64(w, 3, (int64_t)c->nnull);
	bool any = c->nlevels > c->nnull; /* integers and booleans: a value was put */
	char a[8], b[8];
	const char *mn = NULL, *mx = NULL;
	uint32_t mnl = 0, mxl = 0;
	switch (c->phys) {
	case PQ_BOOLEAN:
		if (any) {
			a[0] = (char)c->mn.u;
			b[0] = (char)c->mx.u;
			mn = a, mx = b, mnl = mxl = 1;
		}
		break;
	case PQ_INT32:
		if (any) {
			int32_t x = (int32_t)c->mn.i, y = (int32_t)c->mx.i;
			memcpy(a, &x, 4);
			memcpy(b, &y, 4);
			mn = a, mx = b, mnl = mxl = 4;
		}
		break;
	case PQ_INT64:
		if (any) {
			memcpy(a, &c->mn.i, 8);
			memcpy(b, &c->mx.i, 8);
			mn = a, mx = b, mnl = mxl = 8;
		}
		break;
	case PQ_FLOAT:
		if (c->has_mm) {
			float x = (float)c->mn.d, y = (float)c->mx.d;
			memcpy(a, &x, 4);
			memcpy(b, &y, 4);
			mn = a, mx = b, mnl = mxl = 4;
		}
		break;
	case PQ_DOUBLE:
		if (c->has_mm) {
			memcpy(a, &c->mn.d, 8);
			memcpy(b, &c->mx.d, 8);
			mn = a, mx = b, mnl = mxl = 8;
		}
		break;
	case PQ_BYTE_ARRAY:
		bytes_minmax(c, &mn, &mnl, &mx, &mxl);
		/* long strings: no bounds (readers need none to read; pruning on them is rare) */
		if (mnl > 256 || mxl > 256)
			mn = mx = NULL;
		break;
	case PQ_FLBA:
		flba_minmax(c, &mn, &mx);
		mnl = mxl = (uint32_t)c->node->type_length;
		break;
	}
	if (mn && mx) {
		tw_bin(w, 5, mx, mxl);
		tw_bin(w, 6, mn, mnl);
		tw_bool(w, 7, true);
		tw_bool(w, 8, true);
	}
	if (c->phys == PQ_FLOAT || c->phys == PQ_DOUBLE)
		tw_i64(w, 9, (int64_t)c->nnan);
	tw_end(w);
}

/* ---------------------------------------------------------------- pages and chunks */

/* Compress f->sh->out into f->sh->cbuf (or leave it when uncompressed); the bytes to write. */
static int compress_body(pq_file *f, const char **p, size_t *n)
{
	if (f->codec == PQ_UNCOMPRESSED || !f->sh->out.len) {
		*p = f->sh->out.p ? f->sh->out.p : "";
		*n = f->sh->out.len;
		return 0;
	}
	size_t bound = f->codec == PQ_ZSTD ? ZSTD_compressBound(f->sh->out.len)
					   : snappy_max_compressed_length(f->sh->out.len);
	f->sh->cbuf.len = 0;
	if (tio_buf_reserve(&f->sh->cbuf, bound))
		return TIO_ERR_NOMEM;
	if (f->codec == PQ_ZSTD) {
		size_t r = ZSTD_compressCCtx(f->sh->zctx, f->sh->cbuf.p, bound, f->sh->out.p,
					     f->sh->out.len, f->level);
		if (ZSTD_isError(r))
			return tio_err_set(TIO_ERR_IO, "%s: zstd: %s", f->path,
					   ZSTD_getErrorName(r));
		f->sh->cbuf.len = r;
	} else {
		size_t outlen = bound;
		if (snappy_compress(f->sh->out.p, f->sh->out.len, f->sh->cbuf.p, &outlen) !=
		    SNAPPY_OK)
			return tio_err_set(TIO_ERR_IO, "%s: snappy compression failed", f->path);
		f->sh->cbuf.len = outlen;
	}
	*p = f->sh->cbuf.p;
	*n = f->sh->cbuf.len;
	return 0;
}

/*
 * Write one page: header (PageHeader, with a data or dictionary page
 * header) then the compressed f->sh->out.  Adds to the chunk's sizes.
 */
static int write_page(pq_file *f, FILE *o, const pq_col *c, bool dict_page, bool dict_enc,
		      uint64_t *usize, uint64_t *csize)
{
	const char *body = NULL;
	size_t blen = 0;
	int r = compress_body(f, &body, &blen);
	if (r)
		return r;
	if (f->sh->out.len > INT32_MAX || blen > INT32_MAX)
		return tio_err_set(TIO_ERR_LIMIT, "%s: a page of more than 2 GiB", f->path);
	tio_buf h = {0};
	tw w = {.b = &h};
	tw_i32(&w, 1, dict_page ? 2 : 0);
	tw_i32(&w, 2, (int32_t)f->sh->out.len);
	tw_i32(&w, 3, (int32_t)blen);
	if (dict_page) {
		tw_begin(&w, 7);
		tw_i32(&w, 1, (int32_t)c->ndict);
		tw_i32(&w, 2, 0); /* PLAIN */
		tw_end(&w);
	} else {
		tw_begin(&w, 5);
		tw_i32(&w, 1, (int32_t)c->nlevels);
		tw_i32(&w, 2, dict_enc ? 8 : 0); /* RLE_DICTIONARY or PLAIN */
		tw_i32(&w, 3, 3);		 /* RLE */
		tw_i32(&w, 4, 3);
		write_stats(&w, 5, c);
		tw_end(&w);
	}
	tio_buf_addc(&h, 0);
	if (!h.p) {
		tio_buf_free(&h);
		return TIO_ERR_NOMEM;
	}
	bool ok = fwrite(h.p, 1, h.len, o) == h.len && fwrite(body, 1, blen, o) == blen;
	*usize += h.len + f->sh->out.len;
	*csize += h.len + blen;
	f->off += h.len + blen;
	tio_buf_free(&h);
	if (!ok)
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path, strerror(errno));
	return 0;
}

/* Encode column c's buffered values as one column chunk and append its ColumnChunk to `rg`. */
static int write_chunk(pq_file *f, FILE *o, pq_col *c, tw *rg)
{
	uint64_t usize = 0, csize = 0, dict_off = 0;
	bool dict = c->dict && c->ndict;
	int r;
	if (c->dict && !c->ndict) /* only nulls */
		dict = false;
	if (dict) {
		dict_off = f->off;
		f->sh->out.len = 0;
		tio_buf_add(&f->sh->out, c->dbytes.p, c->dbytes.len);
		if (!f->sh->out.p && c->dbytes.len)
			return TIO_ERR_NOMEM;
		if ((r = write_page(f, o, c, true, false, &usize, &csize)))
			return r;
	}
	uint64_t data_off = f->off;
	f->sh->out.len = 0;
	if (c->max_rep)
		levels(&f->sh->out, &c->reps, c->nlevels, c->max_rep);
	if (c->max_def)
		levels(&f->sh->out, &c->defs, c->nlevels, c->max_def);
	if (dict) {
		unsigned bw = bit_width(c->ndict - 1);
		if (!bw)
			bw = 1;
		tio_buf_addc(&f->sh->out, (char)bw);
		rle_hybrid(&f->sh->out, NULL, (const uint32_t *)c->idx.p, c->idx.len / 4, bw);
	} else if (c->phys == PQ_BOOLEAN) {
		const uint8_t *v = (const uint8_t *)c->vals.p;
		for (size_t k = 0; k < c->vals.len; k += 8) {
			uint8_t byte = 0;
			for (size_t j = 0; j < 8 && k + j < c->vals.len; j++)
				byte |= (uint8_t)((v[k + j] & 1) << j);
			tio_buf_addc(&f->sh->out, (char)byte);
		}
	} else {
		tio_buf_add(&f->sh->out, c->vals.p, c->vals.len);
	}
	if (!f->sh->out.p)
		return TIO_ERR_NOMEM;
	if ((r = write_page(f, o, c, false, dict, &usize, &csize)))
		return r;

	/* ColumnChunk { file_offset, meta_data: ColumnMetaData } */
	tw_begin(rg, 0);
	tw_i64(rg, 2, 0);
	tw_begin(rg, 3);
	tw_i32(rg, 1, c->phys);
	tw_list(rg, 2, T_I32, dict ? 3 : 2);
	varint(rg->b, zigzag(0)); /* PLAIN (values or dictionary page) */
	varint(rg->b, zigzag(3)); /* RLE (levels) */
	if (dict)
		varint(rg->b, zigzag(8));
	tw_list(rg, 3, T_BINARY, c->npath);
	for (uint32_t k = 0; k < c->npath; k++) {
		size_t l = strlen(c->path[k]);
		varint(rg->b, l);
		tio_buf_add(rg->b, c->path[k], l);
	}
	tw_i32(rg, 4, f->codec);
	tw_i64(rg, 5, (int64_t)c->nlevels);
	tw_i64(rg, 6, (int64_t)usize);
	tw_i64(rg, 7, (int64_t)csize);
	tw_i64(rg, 9, (int64_t)data_off);
	if (dict)
		tw_i64(rg, 11, (int64_t)dict_off);
	write_stats(rg, 12, c);
	tw_end(rg);
	tw_end(rg);
	return 0;
}

/* Memory held by the buffered row group: the buffers' capacities. */
size_t pq_buffered(const pq_file *f)
{
	size_t n = 0;
	for (uint32_t k = 0; k < f->ncols; k++) {
		const pq_col *c = &f->cols[k];
		n += c->defs.cap + c->reps.cap + c->vals.cap + c->dbytes.cap + c->idx.cap +
		     (size_t)c->dcap * 8 + (size_t)c->nslots * 4;
	}
	return n;
}

/* Write the buffered rows as a row group: a column chunk per column, the RowGroup kept for the
 * footer. */
int pq_flush(pq_file *f, bool release)
{
	if (f->oom)
		return tio_err_set(TIO_ERR_NOMEM, "%s: out of memory while buffering a row group",
				   f->path);
	if (!f->rows)
		return 0;
	if (f->nrg >= 32767)
		return tio_err_set(TIO_ERR_LIMIT, "%s: more than 32767 row groups", f->path);
	FILE *o = fopen(f->path, "ab");
	if (!o)
		return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", f->path, strerror(errno));
	uint64_t start = f->off, usize_total = 0;
	size_t rg_at = f->rgs.len;
	tw rg = {.b = &f->rgs};
	tw_begin(&rg, 0);
	tw_list(&rg, 1, T_STRUCT, f->ncols);
	int r = 0;
	for (uint32_t k = 0; k < f->ncols && !r; k++) {
		uint64_t before = f->off;
		r = write_chunk(f, o, &f->cols[k], &rg);
		usize_total += f->off - before; /* refined below */
	}
	if (fclose(o) && !r)
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path, strerror(errno));
	if (r) {
		f->rgs.len = rg_at;
		return r;
	}
	usize_total = 0;
	for (uint32_t k = 0; k < f->ncols;
	     k++) /* uncompressed data: levels and values as buffered */
		usize_total += f->cols[k].defs.len + f->cols[k].reps.len + f->cols[k].vals.len +
			       f->cols[k].idx.len + f->cols[k].dbytes.len;
	tw_i64(&rg, 2, (int64_t)usize_total);
	tw_i64(&rg, 3, (int64_t)f->rows);
	tw_i64(&rg, 5, (int64_t)start);
	tw_i64(&rg, 6, (int64_t)(f->off - start));
	tw_field(&rg, 7, T_I16);
	varint(rg.b, zigzag((int64_t)f->nrg));
	tw_end(&rg);
	if (!f->rgs.p)
		return TIO_ERR_NOMEM;
	f->nrg++;
	f->total_rows += f->rows;
	f->rows = 0;
	for (uint32_t k = 0; k < f->ncols; k++)
		col_reset(&f->cols[k], release);
	return 0;
}

/* SchemaElements, depth first. */
static void write_schema(tw *w, const pq_node *n, bool root)
{
	tw_begin(w, 0);
	if (n->leaf) {
		tw_i32(w, 1, n->phys);
		if (n->phys == PQ_FLBA)
			tw_i32(w, 2, n->type_length);
	}
	if (!root)
		tw_i32(w, 3, n->rep);
	tw_bin(w, 4, n->name, strlen(n->name));
	if (!n->leaf)
		tw_i32(w, 5, (int32_t)n->nkids);
	switch (n->logical) {
	case PQ_LT_STRING:
		tw_i32(w, 6, 0); /* UTF8 */
		tw_begin(w, 10);
		tw_begin(w, 1);
		tw_end(w);
		tw_end(w);
		break;
	case PQ_LT_LIST:
		tw_i32(w, 6, 3); /* LIST */
		tw_begin(w, 10);
		tw_begin(w, 3);
		tw_end(w);
		tw_end(w);
		break;
	case PQ_LT_INT: {
		int ct = n->int_bits == 8 ? 0 : n->int_bits == 16 ? 1 : n->int_bits == 32 ? 2 : 3;
		tw_i32(w, 6, (n->int_signed ? 15 : 11) + ct); /* INT_8.. / UINT_8.. */
		tw_begin(w, 10);
		tw_begin(w, 10);
		tw_i8(w, 1, (int8_t)n->int_bits);
		tw_bool(w, 2, n->int_signed);
		tw_end(w);
		tw_end(w);
		break;
	}
	case PQ_LT_TIMESTAMP_NS:
		tw_begin(w, 10);
		tw_begin(w, 8);
		tw_bool(w, 1, n->utc);
		tw_begin(w, 2);
		tw_begin(w, 3);
		tw_end(w);
		tw_end(w);
		tw_end(w);
		tw_end(w);
		break;
	}
	tw_end(w);
	for (uint32_t k = 0; k < n->nkids; k++)
		write_schema(w, n->kids[k], false);
}

/* Number of schema elements of a subtree. */
static uint32_t count_nodes(const pq_node *n)
{
	uint32_t c = 1;
	for (uint32_t k = 0; k < n->nkids; k++)
		c += count_nodes(n->kids[k]);
	return c;
}

/* Last row group, then the footer: FileMetaData, its length, the magic. */
int pq_close(pq_file *f, const char *const *kv)
{
	int r = pq_flush(f, true);
	if (r)
		return r;
	tio_buf m = {0};
	tw w = {.b = &m};
	tw_i32(&w, 1, 1);
	tw_list(&w, 2, T_STRUCT, count_nodes(f->root));
	write_schema(&w, f->root, true);
	tw_i64(&w, 3, (int64_t)f->total_rows);
	tw_list(&w, 4, T_STRUCT, f->nrg);
	tio_buf_add(&m, f->rgs.p, f->rgs.len);
	size_t nkv = 0;
	while (kv && kv[2 * nkv])
		nkv++;
	if (nkv) {
		tw_list(&w, 5, T_STRUCT, nkv);
		for (size_t k = 0; k < nkv; k++) {
			tw_begin(&w, 0);
			tw_bin(&w, 1, kv[2 * k], strlen(kv[2 * k]));
			tw_bin(&w, 2, kv[2 * k + 1], strlen(kv[2 * k + 1]));
			tw_end(&w);
		}
	}
	static const char by[] = "traceio version 0.1.0";
	tw_bin(&w, 6, by, sizeof(by) - 1);
	tw_list(&w, 7, T_STRUCT, f->ncols);
	for (uint32_t k = 0; k < f->ncols; k++) { /* ColumnOrder: TYPE_ORDER */
		tw_begin(&w, 0);
		tw_begin(&w, 1);
		tw_end(&w);
		tw_end(&w);
	}
	tio_buf_addc(&m, 0);
	uint32_t len = (uint32_t)m.len;
	tio_buf_add(&m, &len, 4);
	tio_buf_add(&m, "PAR1", 4);
	if (!m.p)
		return TIO_ERR_NOMEM;
	FILE *o = fopen(f->path, "ab");
	if (!o) {
		tio_buf_free(&m);
		return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", f->path, strerror(errno));
	}
	bool ok = fwrite(m.p, 1, m.len, o) == m.len;
	f->off += m.len;
	tio_buf_free(&m);
	if (fclose(o) || !ok)
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path, strerror(errno));
	return 0;
}

/*
 * A Parquet file writer, written from the format's specification
 * (apache/parquet-format: parquet.thrift, Encodings.md, LogicalTypes.md):
 * no C Parquet library is packaged for Debian 12.  It knows nothing of
 * traces: src/parquet/parquet-sink.c maps the model onto it.
 *
 * A file has a schema tree (pq_node: groups, LIST groups and leaves); each
 * leaf is a column (pq_col) that buffers one row group of values in
 * memory, with their definition and repetition levels (Dremel), until
 * pq_flush() encodes every column as one column chunk and appends it to
 * the file: an optional dictionary page (strings: PLAIN dictionary,
 * RLE_DICTIONARY indices) and one data page (v1: RLE/bit-packed hybrid
 * levels, PLAIN values), compressed with zstd or snappy, with min/max and
 * null-count statistics.  pq_close() writes the footer (FileMetaData in the
 * Thrift compact protocol).  Values are appended into reused buffers:
 * nothing is allocated per value.
 */
#ifndef TIO_PQ_H
#define TIO_PQ_H

#include <stdio.h>

#include "common/common.h"

enum pq_phys {
	PQ_BOOLEAN = 0,
	PQ_INT32 = 1,
	PQ_INT64 = 2,
	PQ_FLOAT = 4,
	PQ_DOUBLE = 5,
	PQ_BYTE_ARRAY = 6,
	PQ_FLBA = 7
};
enum pq_repetition { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
enum pq_logical { PQ_LT_NONE = 0, PQ_LT_STRING, PQ_LT_INT, PQ_LT_TIMESTAMP_NS, PQ_LT_LIST };
enum pq_codec { PQ_UNCOMPRESSED = 0, PQ_SNAPPY = 1, PQ_ZSTD = 6 };

/* A schema node: a group (kids) or a leaf (a column). */
typedef struct pq_node {
	char *name;
	uint8_t rep; /* enum pq_repetition */
	bool leaf;
	uint8_t phys;	  /* leaves: enum pq_phys */
	uint8_t logical;  /* enum pq_logical */
	uint8_t int_bits; /* PQ_LT_INT: 8, 16, 32, 64 */
	bool int_signed;
	bool utc;	     /* PQ_LT_TIMESTAMP_NS: isAdjustedToUTC */
	bool dict;	     /* BYTE_ARRAY leaves: dictionary-encode (low-cardinality strings) */
	int32_t type_length; /* PQ_FLBA */
	struct pq_node **kids;
	uint32_t nkids;
	size_t kcap;
	int32_t col; /* leaves: the column index (set by pq_open) */
} pq_node;

/* A group or a leaf; NULL when out of memory (error set). */
pq_node *pq_node_new(const char *name, int rep);
pq_node *pq_leaf_new(const char *name, int rep, int phys, int logical);
int pq_node_add(pq_node *parent, pq_node *kid);
void pq_node_free(pq_node *n);
/* Leaves of the subtree. */
uint32_t pq_node_leaves(const pq_node *n);

/* One leaf column: the current row group's values. */
typedef struct pq_col {
	const pq_node *node;
	struct pq_file *file;
	char **path; /* path_in_schema */
	uint32_t npath;
	uint8_t max_def, max_rep;
	uint8_t phys;
	bool unsigned_order; /* statistics compare as unsigned */
	tio_buf defs, reps;  /* one byte per level (max level < 256) */
	tio_buf vals;	  /* PLAIN values; BOOLEAN: one byte each; BYTE_ARRAY not in a dictionary */
	uint64_t nlevels; /* values, nulls included */
	uint64_t nnull;
	uint64_t nnan;
	bool has_mm; /* FLOAT/DOUBLE: a non-NaN value was seen (integers: nlevels > nnull) */
	union {
		int64_t i;
		uint64_t u;
		double d;
	} mn, mx;
	/* dictionary (BYTE_ARRAY with node->dict): entries PLAIN in dbytes */
	bool dict;
	tio_buf dbytes;
	uint32_t *doff; /* entry -> offset of its length prefix in dbytes */
	uint32_t *dhash;
	uint32_t ndict, dcap;
	uint32_t *slots; /* open addressing: entry + 1, 0 empty */
	uint32_t nslots;
	tio_buf idx; /* uint32 indices, one per non-null value */
	struct {
		const void *p;
		uint32_t len, e;
	} seen[64]; /* stable strings: pointer -> entry */
} pq_col;

/* Encoding buffers and the zstd context, shared by the files of a writer (one flush at a time). */
typedef struct pq_shared {
	tio_buf out, cbuf; /* a page body and its compressed form */
	void *zctx;	   /* ZSTD_CCtx */
} pq_shared;

void pq_shared_free(pq_shared *sh);

typedef struct pq_file {
	char *path;
	pq_node *root; /* owned */
	pq_col *cols;
	uint32_t ncols;
	int codec;
	int level;     /* zstd level */
	uint64_t rows; /* rows buffered */
	uint64_t total_rows;
	uint64_t off; /* bytes in the file */
	tio_buf rgs;  /* serialized RowGroup structs */
	uint32_t nrg;
	bool oom;	   /* an append failed: reported by pq_flush/pq_close */
	uint32_t dict_max; /* dictionary entries per column chunk at most (then PLAIN); 65536 */
	pq_shared *sh;
} pq_file;

/*
 * Start a file at `path` (created, truncated) with the schema `root`
 * (taken over: freed by pq_free).  Writes the leading magic.  `sh`: the
 * encoding buffers, shared with other files (outlives them).
 */
int pq_open(pq_file *f, const char *path, pq_node *root, int codec, int level, pq_shared *sh);
/*
 * Encode the buffered rows as one row group (nothing when none).  `release`:
 * give back the buffers' memory (else kept for the next row group).
 */
int pq_flush(pq_file *f, bool release);
/* Bytes of memory the buffered row group holds (buffers' capacities). */
size_t pq_buffered(const pq_file *f);
/* Flush and write the footer; the file is complete.  `kv` key/value pairs (NULL-terminated list) or
 * NULL. */
int pq_close(pq_file *f, const char *const *kv);
void pq_free(pq_file *f);

/* ---------------------------------------------------------------- appending values */

/* Make room for n more bytes in b (false when out of memory: the file's oom is set). */
static inline __attribute__((always_inline)) bool pq_room(pq_col *c, tio_buf *b, size_t n)
{
	if (TIO_LIKELY(b->len + n + 1 <= b->cap))
		return true;
	if (tio_buf_reserve(b, n + 1)) {
		c->file->oom = true;
		return false;
	}
	return true;
}

static inline __attribute__((always_inline)) void pq_levels(pq_col *c, unsigned def, unsigned rep)
{
	if (c->max_def && pq_room(c, &c->defs, 1))
		c->defs.p[c->defs.len++] = (char)def;
	if (c->max_rep && pq_room(c, &c->reps, 1))
		c->reps.p[c->reps.len++] = (char)rep;
	c->nlevels++;
}

/* A null (or absent) value at definition level `def` < max_def. */
static inline __attribute__((always_inline)) void pq_null(pq_col *c, unsigned def, unsigned rep)
{
	pq_levels(c, def, rep);
	c->nnull++;
}

static inline __attribute__((always_inline)) void pq_fixed(pq_col *c, const void *p, size_t n,
							   unsigned rep)
{
	pq_levels(c, c->max_def, rep);
	if (pq_room(c, &c->vals, n)) {
		memcpy(c->vals.p + c->vals.len, p, n);
		c->vals.len += n;
	}
}

/*
 * An integer (INT32 or INT64 column).  Bounds start at the extremes
 * (pq_col_reset): no first-value test.
 */
static inline __attribute__((always_inline)) void pq_i64(pq_col *c, int64_t v, unsigned rep)
{
	if (c->unsigned_order) {
		if ((uint64_t)v < c->mn.u)
			c->mn.u = (uint64_t)v;
		if ((uint64_t)v > c->mx.u)
			c->mx.u = (uint64_t)v;
	} else {
		if (v < c->mn.i)
			c->mn.i = v;
		if (v > c->mx.i)
			c->mx.i = v;
	}
	if (c->phys == PQ_INT32) {
		int32_t w = (int32_t)v;
		pq_fixed(c, &w, 4, rep);
	} else {
		pq_fixed(c, &v, 8, rep);
	}
}

void pq_double(pq_col *c, double d, unsigned rep); /* FLOAT or DOUBLE column */
void pq_bool(pq_col *c, bool b, unsigned rep);
/* BYTE_ARRAY (dictionary or PLAIN) and FIXED_LEN_BYTE_ARRAY values. */
void pq_bytes(pq_col *c, const void *p, size_t n, unsigned rep);
/*
 * A string whose bytes at `p` never change while the file is written (class
 * names, comm names): the same pointer as the last one skips the hashing.
 */
void pq_str_stable(pq_col *c, const char *p, size_t n, unsigned rep);

#endif

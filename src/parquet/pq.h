/*
 * A Parquet file writer, written from the format's specification
 * (apache/parquet-format: parquet.thrift, Encodings.md, LogicalTypes.md):
 * no C Parquet library is packaged for Debian 12.  It knows nothing of
 * traces: src/parquet/parquet-sink.c maps the model onto it.
 *
 * A file has a schema tree (pq_node: groups, LIST groups and leaves); each
 * leaf is a column (pq_col).  Values are appended to the column's page
 * buffers with their definition and repetition levels (Dremel); at the end
 * of a row (pq_row), a column whose page is full (page_size bytes) has it
 * encoded (v1 data page: RLE/bit-packed hybrid levels, PLAIN values or
 * RLE_DICTIONARY indices), compressed with zstd or snappy, with min/max and
 * null-count statistics, into the column chunk's bytes kept in memory.
 * pq_flush() writes every column chunk of the row group (a dictionary page
 * first for strings, then its data pages) and pq_close() the footer
 * (FileMetaData in the Thrift compact protocol).  Pages are compressed by
 * a worker thread when there is one (pq_shared): the bytes are the same.
 * Buffers are reused: nothing is allocated per value.
 */
#ifndef TIO_PQ_H
#define TIO_PQ_H

#include <pthread.h>
#include <stdatomic.h>
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
/*
 * A column chunk's codec (pq_col.c_codec): the file's codec is tried on the
 * chunk's first data page; when it saves less than 1/16 of the page
 * (random 64-bit values, pointers, already-compressed bytes) the chunk is
 * written UNCOMPRESSED, its later pages not even tried (Parquet names the
 * codec per column chunk: ColumnMetaData.codec).  A chunk whose first data
 * page is dictionary-encoded, with a dictionary of 1 KiB or more by then, is
 * compressed without that trial: its dictionary page, written last, is
 * mostly text.
 */
enum { PQ_Z_UNDECIDED, PQ_Z_CODEC, PQ_Z_STORED };

/* Bytes of values (or levels) in a page before it is cut at the end of the row (default). */
#define PQ_PAGE (256u << 10)

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

/* A page buffer: appends are plain stores while len + n <= lim (the page size or the capacity). */
typedef struct pq_buf {
	char *p;
	size_t len, lim, cap;
} pq_buf;

/* Bounds of a page or a column chunk (statistics). */
typedef struct pq_stats {
	uint64_t nnull, nnan;
	bool has; /* min/max known */
	union {
		int64_t i;
		uint64_t u;
		double d;
	} mn, mx; /* numbers and booleans */
	const char *bmn, *bmx; /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
	uint32_t bmnl, bmxl;
} pq_stats;

/* One leaf column: its current page, and the pages of the row group's column chunk. */
typedef struct pq_col {
	unsigned inflight; /* its pages handed to the worker and not yet in the chunk (atomic) */
	/* the page being filled */
	pq_buf vals; /* PLAIN values; BOOLEAN: one byte each; BYTE_ARRAY: 4-byte length + bytes */
	/*
	 * Runs, in a REQUIRED integer column outside lists (pq_i32_req,
	 * pq_i64_req) whose page looks constant (`runs`, set by page_cut: the
	 * page before was one value, or began and ended with the same one):
	 * values equal to the last one stored (`last`, when vals.len is still
	 * `last_end`) are not stored, `run` counts them.  They count towards
	 * the page size as if they were (the same pages), are stored (pq_unrun)
	 * before any other append, and a page of one value and its run (a
	 * class's type, flags, syscall number: most pages of those columns) is
	 * encoded without them, so that its buffer stays small.
	 */
	bool runs;
	uint32_t run;
	uint32_t run_lim; /* run values that fit in the page (pq_run_more finds it), 0: not known */
	int64_t last;
	size_t last_end; /* PQ_NO_LAST: none */
	pq_buf idx;  /* dictionary-encoded page: uint32 entries, one per non-null value */
	pq_buf defs, reps; /* one byte per level (max level < 256); defs: after the leading run */
	size_t hw[4];	   /* vals, idx, defs, reps: the most bytes each held at a page cut since its release */
	uint32_t nlead;	   /* leading levels at max_def, not in defs (defs stays empty until a lower one) */
	uint32_t nlevels;  /* levels of the page, nulls included */
	uint32_t nnull;
	uint8_t max_def, max_rep;
	uint8_t phys;
	bool unsigned_order; /* statistics compare as unsigned */
	bool dict;	     /* this page is dictionary-encoded */
	bool due;	     /* a buffer is past the page size: cut the page at the end of the row */
	const pq_node *node;
	struct pq_file *file;
	char **path; /* path_in_schema */
	uint32_t npath;
	/* the column chunk (row group) */
	/*
	 * Its data pages, each a PageHeader and the (compressed) body: the
	 * first PQ_CHUNK_HEAD bytes in `head` (malloc), the rest in blocks of
	 * PQ_SEG bytes (pq_mem), filled in turn: a chunk's bytes never move
	 * and it holds at most one block not full.
	 */
	struct pq_chunk {
		tio_buf head;
		char **segs;
		uint32_t nsegs, scap;
		size_t sbytes; /* bytes in segs */
	} chunk;
	uint64_t c_levels, c_usize, c_csize;
	uint32_t c_pages, c_dict_pages;
	uint32_t c_delta_pages; /* DELTA_BINARY_PACKED pages (set by the page's encoder) */
	uint32_t delta_skip;	/* integer pages left to write PLAIN without trying DELTA_BINARY_PACKED */
	uint8_t c_codec;	/* PQ_Z_*: the chunk's pages compressed or stored (decided on its first page) */
	pq_stats cst;	     /* bounds of the chunk (bmn/bmx point into cmn/cmx) */
	tio_buf cmn, cmx;    /* BYTE_ARRAY / FLBA chunk bounds, copied */
	/* dictionary (BYTE_ARRAY with node->dict), for the column chunk: entries PLAIN in dbytes */
	tio_buf dbytes;
	uint32_t *doff; /* entry -> offset of its length prefix in dbytes */
	uint32_t *dhash;
	uint32_t *dstamp; /* entry -> the last page whose bounds counted it */
	uint32_t ndict, dcap, stamp;
	uint32_t dlast; /* the entry found last (a string as the one before it: no hashing) */
	uint32_t *slots; /* open addressing: entry + 1, 0 empty */
	/*
	 * A sort key (set by the caller: the sink's `ts`): the row group names
	 * it in its sorting_columns when its values came in ascending order
	 * (each page's in order, each page's first not below the last of the
	 * page before: sort_last) and none is null.  Found by the page's
	 * encoder, in page order.
	 */
	bool sort_key, unsorted, sort_any;
	int64_t sort_last;
	tio_buf pix;	 /* the chunk's pages for its page index: an entry per data page (finish_page) */
	uint64_t row0;	 /* the row group's row where the page being filled starts */
	uint32_t nslots;
	struct pq_seen {
		const void *p;
		uint32_t len, e;
	} *seen; /* PQ_SEEN slots, dictionary columns only: stable strings' pointer -> entry */
} pq_col;

/* pq_col.last_end when no value is stored since the page's start or the last append of another kind. */
#define PQ_NO_LAST SIZE_MAX

/* Slots of a dictionary column's cache of stable strings (pq_str_stable). */
#define PQ_SEEN 64

struct pq_worker;

/*
 * Where the big buffers of a writer's columns come from (page buffers of
 * PQ_MEM_MIN bytes or more, column chunks' blocks): memory mapped in 2 MiB
 * slabs the kernel may back with huge pages (MADV_HUGEPAGE), each slab cut
 * into blocks of one size (a multiple of 64 KiB), a block given back kept
 * for the next buffer of its size (a buffer of more than a slab is a
 * mapping of its own, unmapped when given back).  Before, malloc gave a
 * conversion new 4 KiB pages over and over (row groups written early to
 * keep within the budget, their buffers freed and grown again): a page
 * fault each, 29,000 for the 5.4 M-event UST trace.  A buffer of capacity
 * PQ_MEM_MIN or more is from here, a smaller one from malloc.  Under its
 * own lock: chunks grow on the worker thread.  The slabs stay until
 * pq_shared_free: what a writer holds is the most its buffers held at once.
 */
#define PQ_MEM_MIN (64u << 10)
#define PQ_MEM_SLAB (2u << 20)
/* A column chunk's first bytes (malloc: most chunks of a trace with many classes are small), its blocks. */
#define PQ_CHUNK_HEAD (64u << 10)
#define PQ_SEG (128u << 10)
typedef struct pq_mem {
	pthread_mutex_t mu;
	void *free[PQ_MEM_SLAB / PQ_MEM_MIN];	 /* blocks given back, by size / PQ_MEM_MIN - 1 */
	char *cur[PQ_MEM_SLAB / PQ_MEM_MIN];	 /* the slab being cut for that size, */
	uint32_t left[PQ_MEM_SLAB / PQ_MEM_MIN]; /* and its blocks not yet given */
	char **slabs;
	size_t nslabs, scap;
} pq_mem;

/* Encoding buffers and the compression worker, shared by the files of a writer. */
typedef struct pq_shared {
	pq_mem mem;		      /* the columns' big buffers (pq_shared_init, pq_shared_free) */
	tio_buf out, cbuf, hdr, tail; /* a page body, its compressed form, its header */
	tio_buf ix;		      /* the page's bounds for the page index (encode_page) */
	void *zctx;		      /* ZSTD_CCtx */
	struct pq_worker *w;	      /* compression thread, NULL: pages compressed inline */
	bool threads;		      /* compress in a worker thread (set by the caller) */
	bool tried;		      /* the worker was started (or failed to) */
} pq_shared;

/* Ready to use (zeroed, its lock made). */
void pq_shared_init(pq_shared *sh);
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
	tio_buf rgs;  /* serialized RowGroup structs (the latest: see spill) */
	uint32_t nrg;
	/*
	 * <path>.rowgroups, NULL until used: the RowGroups serialized before
	 * those in rgs once rgs holds PQ_RGS_SPILL bytes (records of their bytes
	 * and patches), so that a file's memory does not grow with its row groups;
	 * read back by pq_close and pq_append, removed by pq_close and pq_free.
	 */
	char *spill;
	uint64_t spilled; /* bytes in it */
	bool oom;	   /* an append failed: reported by pq_flush/pq_close */
	int err;	   /* a page could not be written (compression): reported by pq_flush */
	char errmsg[256];
	_Atomic size_t chunk_cap; /* capacity of the column chunks' buffers (the worker grows them) */
	uint64_t rg_usize;	  /* uncompressed bytes of the row group being written */
	uint32_t dict_max; /* dictionary entries per column chunk at most (then PLAIN); 65536 */
	size_t page_size;  /* bytes of a page's values (or levels) before it is cut; PQ_PAGE */
	uint32_t *due;	   /* columns whose page is to be cut at the end of the row */
	uint32_t ndue;
	uint32_t pages; /* data pages cut (dictionary stamps) */
	pq_shared *sh;
	/* the file, kept open from one row group to the next while fewer than
	   a few hundred are (pq_flush: file_out); NULL: opened for each write */
	FILE *fp;
	/* where rgs holds file offsets, row group ordinals and page index places (pq_append rewrites them) */
	struct pq_patch {
		size_t at;	 /* the varint's first byte in rgs */
		uint8_t len;	 /* its bytes (PQ_PATCH_INDEX: 0) */
		uint8_t kind;	 /* enum pq_patch_kind */
		int64_t v;
	} *patches;
	size_t npatches, pcap;
	/*
	 * The page index (ColumnIndex, OffsetIndex) of each column chunk
	 * written, a record per chunk in the file's order (pq-write.c: ix_rec),
	 * written between the last row group and the footer by pq_close; like
	 * rgs, the records go to a side file (<path>.pageindex) past
	 * PQ_RGS_SPILL bytes, so that memory does not grow with the row groups.
	 */
	tio_buf pix;
	char *pix_spill;
	uint64_t pix_spilled;
	uint64_t nchunks; /* column chunks written (their page index records) */
	/*
	 * pq_redirect may run on another thread while this file's rows are
	 * written: `io` (NULL: no such thread) is held while a row group is
	 * written (its bytes and `off` then change) and while pq_redirect
	 * moves the file.  Once moved, `redirect` is the file its bytes went
	 * to, at `redirect_at` (its offset 4 is there), and its row groups are
	 * appended to that file from then on.
	 */
	pthread_mutex_t *io;
	char *redirect;
	uint64_t redirect_at;
} pq_file;

/* What a patch of pq_file.rgs is. */
enum pq_patch_kind {
	PQ_PATCH_OFFSET,  /* a file offset (pq_append moves it) */
	PQ_PATCH_ORDINAL, /* a RowGroup ordinal (an i16; dropped past INT16_MAX) */
	PQ_PATCH_INDEX,	  /* where column chunk v's page index fields go (pq_close inserts them) */
};

/*
 * Start a file at `path` (created, truncated) with the schema `root`
 * (taken over: freed by pq_free).  Writes the leading magic.  `sh`: the
 * encoding buffers, shared with other files (outlives them).
 */
int pq_open(pq_file *f, const char *path, pq_node *root, int codec, int level, pq_shared *sh);
/* NULL when snappy compression can be used (libsnappy loaded), else why not. */
const char *pq_snappy(void);

/* What pq_flush gives back of the buffers' memory. */
enum pq_release {
	PQ_KEEP,       /* nothing: the next row group reuses it */
	PQ_KEEP_PAGES, /* the compressed chunks and dictionaries (the bulk), not the page buffers */
	PQ_RELEASE,    /* everything */
};
/* Bytes of serialized RowGroups a file keeps in memory before they go to its side file. */
#ifndef PQ_RGS_SPILL
#define PQ_RGS_SPILL (16u << 10)
#endif

/*
 * Encode the buffered rows as one row group (nothing when none); `release`:
 * enum pq_release.  RowGroup.ordinal (an i16) is written for the first
 * 32768 row groups of a file, not after (it is optional).
 */
int pq_flush(pq_file *f, int release);
/*
 * Bytes of memory the buffered row group holds: the column chunks' and
 * dictionaries' capacities, and each column's page buffers as big as
 * their growth makes them for the most they held since their release
 * (hw: the real capacities move between columns and the worker's slots);
 * `pages` (unless NULL): the page buffers' part.  After pq_sync, so that
 * decisions made on it (and the output) are the same whether pages are
 * compressed by the worker or inline.
 */
size_t pq_buffered(const pq_file *f, size_t *pages);
/* Wait until the worker has compressed every page handed to it. */
void pq_sync(pq_shared *sh);

/*
 * Work for the compression thread: fn(arg, bytes, len) runs there after
 * every page and job handed over before (at once here without a worker).
 * `data` is taken (left empty, with another buffer's memory).  fn must
 * touch only what no other thread touches until pq_sync: the parquet sink
 * hands it events.parquet's rows, a file with its own pq_shared (its pages
 * compressed inline, on that thread).
 */
typedef void (*pq_fn)(void *arg, const void *bytes, size_t len);
void pq_defer(pq_shared *sh, pq_fn fn, void *arg, tio_buf *data);
/*
 * Append the row groups of `from` (the same schema, written to its own
 * file: a part of the rows that come after those of `f`) to `f`: f's
 * buffered rows are written as a row group first, from's too, then from's
 * column chunks are copied to the end of f's file (unless pq_redirect put
 * them there) and its row groups' offsets moved.  The bytes are those of f
 * having written both.  from's file is left as it was (the caller removes
 * it); its side file is removed.
 */
int pq_append(pq_file *f, pq_file *from);
/*
 * The first half of pq_append, while `from` is still being written (by
 * another thread: from->io set): f must be complete but for its footer (its
 * rows flushed, its bytes all in its file); from's bytes so far are copied
 * after f's, and from's later row groups are written there too (from->redirect).
 * pq_append(f, from) then copies nothing.  0 also when nothing was moved
 * (schemas or codecs that differ: pq_append says so; f not complete; from
 * moved already).
 */
int pq_redirect(pq_file *f, pq_file *from);
/* Flush and write the footer; the file is complete.  `kv` key/value pairs (NULL-terminated list) or
 * NULL. */
int pq_close(pq_file *f, const char *const *kv);
void pq_free(pq_file *f);

/* Cut the pages of the columns marked due (at the end of a row). */
void pq_pages(pq_file *f);

/* A row's values are all appended: count it (and cut the full pages). */
static inline __attribute__((always_inline)) void pq_row(pq_file *f)
{
	f->rows++;
	if (TIO_UNLIKELY(f->ndue))
		pq_pages(f);
}

/* ---------------------------------------------------------------- appending values */

/* The slow path of pq_room: grow b, mark the page due past the page size; false when out of memory. */
bool pq_more(pq_col *c, pq_buf *b, size_t n);

/*
 * Make room for n more bytes in b (false when out of memory: the file's oom
 * is set).  The bytes 512 ahead are fetched for writing: a row's values go
 * to some 20 buffers at once, more streams than the hardware prefetcher
 * follows (10% less CPU on a trace.dat conversion).
 */
static inline __attribute__((always_inline)) bool pq_room(pq_col *c, pq_buf *b, size_t n)
{
	if (TIO_LIKELY(b->len + n <= b->lim)) {
		__builtin_prefetch(b->p + b->len + 512, 1, 3);
		return true;
	}
	return pq_more(c, b, n);
}

static inline __attribute__((always_inline)) void pq_levels(pq_col *c, unsigned def, unsigned rep)
{
	if (c->max_rep && pq_room(c, &c->reps, 1))
		c->reps.p[c->reps.len++] = (char)rep;
	if (c->max_def) {
		if (TIO_LIKELY(def == c->max_def && !c->defs.len))
			c->nlead++;
		else if (pq_room(c, &c->defs, 1))
			c->defs.p[c->defs.len++] = (char)def;
	}
	c->nlevels++;
}

/*
 * Runs of values stored by the caller without pq_room (events.parquet's rows):
 * pq_room_n gives how many values of w bytes fit in b below its limit (no page
 * grows or comes due before them); pq_levels_present counts the levels of k
 * present values of a column outside lists whose page holds no lower level
 * yet (defs empty), as k calls of pq_levels would.
 */
static inline size_t pq_room_n(const pq_buf *b, size_t w) { return b->len < b->lim ? (b->lim - b->len) / w : 0; }

static inline void pq_levels_present(pq_col *c, uint32_t k)
{
	if (c->max_def)
		c->nlead += k;
	c->nlevels += k;
}

/* Store the run of values equal to the last one (pq_col.run) in vals. */
void pq_unrun(pq_col *c);
/* Mark the column due for a page cut at the end of the row (a buffer past the page size). */
void pq_mark_due(pq_col *c);
/* A run reached run_lim: how many more values fit in the page, or the column due. */
void pq_run_more(pq_col *c);

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
	if (TIO_UNLIKELY(c->run))
		pq_unrun(c);
	if (pq_room(c, &c->vals, n)) {
		memcpy(c->vals.p + c->vals.len, p, n);
		c->vals.len += n;
	}
}

/* An integer (INT32 or INT64 column); bounds are found when the page is cut. */
static inline __attribute__((always_inline)) void pq_i64(pq_col *c, int64_t v, unsigned rep)
{
	if (c->phys == PQ_INT32) {
		int32_t w = (int32_t)v;
		pq_fixed(c, &w, 4, rep);
	} else {
		pq_fixed(c, &v, 8, rep);
	}
}

/* Store integer v in w bytes (4: as an int32_t) at the end of c's values. */
static inline __attribute__((always_inline)) void pq_put_int(pq_col *c, int64_t v, size_t w)
{
	if (w == 4) {
		int32_t x = (int32_t)v;
		memcpy(c->vals.p + c->vals.len, &x, 4);
	} else {
		memcpy(c->vals.p + c->vals.len, &v, 8);
	}
	c->vals.len += w;
}

/* pq_i32_req and pq_i64_req: an integer of w bytes (a constant), a run when it repeats the last one. */
static inline __attribute__((always_inline)) void pq_int_req(pq_col *c, int64_t v, size_t w)
{
	if (!c->runs) {
		if (pq_room(c, &c->vals, w))
			pq_put_int(c, v, w);
		c->nlevels++;
		return;
	}
	if (c->vals.len == c->last_end) {
		if (c->last == v) {
			if (TIO_UNLIKELY(c->run >= c->run_lim))
				pq_run_more(c);
			c->run++;
			c->nlevels++;
			return;
		}
		if (c->run)
			pq_unrun(c);
	}
	if (pq_room(c, &c->vals, w)) {
		pq_put_int(c, v, w);
		c->last = v;
		c->last_end = c->vals.len;
		c->run_lim = 0;
	}
	c->nlevels++;
}

/* An integer of a REQUIRED INT32 column outside lists (no levels to write). */
static inline __attribute__((always_inline)) void pq_i32_req(pq_col *c, int32_t v) { pq_int_req(c, v, 4); }

/* An integer of a REQUIRED INT64 column outside lists. */
static inline __attribute__((always_inline)) void pq_i64_req(pq_col *c, int64_t v) { pq_int_req(c, v, 8); }

/* FLOAT or DOUBLE column. */
static inline __attribute__((always_inline)) void pq_double(pq_col *c, double d, unsigned rep)
{
	if (c->phys == PQ_FLOAT) {
		float x = (float)d;
		pq_fixed(c, &x, 4, rep);
	} else {
		pq_fixed(c, &d, 8, rep);
	}
}

/* A boolean value (one byte buffered, bit-packed when the page is cut). */
static inline __attribute__((always_inline)) void pq_bool(pq_col *c, bool b, unsigned rep)
{
	uint8_t v = b;
	pq_fixed(c, &v, 1, rep);
}

/* BYTE_ARRAY (dictionary or PLAIN) and FIXED_LEN_BYTE_ARRAY values. */
void pq_bytes(pq_col *c, const void *p, size_t n, unsigned rep);
/* pq_str_stable when the pointer is not in the cache: the dictionary's hash table. */
void pq_str_stable_slow(pq_col *c, const char *p, size_t n, unsigned rep);

/* The cache slot of a stable string's pointer: of PQ_SEEN = 2^(32 - 26). */
static inline unsigned pq_seen_slot(const void *p)
{
	return (uint32_t)((uint32_t)((uintptr_t)p >> 3) * 0x9E3779B1u) >> 26;
}

/* The dictionary entry of a stable string (pq_str_stable) when its pointer is in the cache. */
static inline __attribute__((always_inline)) bool pq_seen(const pq_col *c, const char *p, size_t n,
							  uint32_t *e)
{
	unsigned sl = pq_seen_slot(p);
	if (TIO_LIKELY(c->dict && p && c->seen[sl].p == p && c->seen[sl].len == n)) { /* dict: seen is set */
		*e = c->seen[sl].e;
		return true;
	}
	return false;
}

/*
 * A string whose bytes at `p` never change while the file is written (class
 * names, comm names): a pointer seen before in this column chunk gives its
 * dictionary entry without hashing.
 */
static inline __attribute__((always_inline)) void pq_str_stable(pq_col *c, const char *p, size_t n,
								unsigned rep)
{
	uint32_t e;
	if (pq_seen(c, p, n, &e)) {
		pq_levels(c, c->max_def, rep);
		if (pq_room(c, &c->idx, 4)) {
			memcpy(c->idx.p + c->idx.len, &e, 4);
			c->idx.len += 4;
		}
		return;
	}
	pq_str_stable_slow(c, p, n, rep);
}

#endif

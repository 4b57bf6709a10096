/*
 * The Parquet file writer of pq.h: Thrift compact protocol, RLE/bit-packed
 * hybrid levels, PLAIN and dictionary encodings, pages, row groups and the
 * footer.  Written from apache/parquet-format's parquet.thrift and
 * Encodings.md.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
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

/*
 * libsnappy, loaded when first asked for (pq_snappy): linked, it would load
 * libstdc++ into every traceio process, 0.6 ms of each start.
 */
static struct {
	pthread_once_t once;
	__typeof__(snappy_compress) *compress;
	__typeof__(snappy_max_compressed_length) *max_len;
	char err[256];
} snappy = {PTHREAD_ONCE_INIT, NULL, NULL, ""};

static void snappy_load(void)
{
	void *h = dlopen("libsnappy.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		snappy.compress = (__typeof__(snappy_compress) *)dlsym(h, "snappy_compress");
		snappy.max_len = (__typeof__(snappy_max_compressed_length) *)dlsym(h, "snappy_max_compressed_length");
	}
	if (!snappy.compress || !snappy.max_len)
		snprintf(snappy.err, sizeof(snappy.err), "snappy: cannot load libsnappy.so.1 (Debian: libsnappy1v5): %s",
			 h ? "no snappy_compress" : dlerror());
}

const char *pq_snappy(void)
{
	pthread_once(&snappy.once, snappy_load);
	return snappy.compress ? NULL : snappy.err;
}

/* Note where rgs holds a value pq_append may rewrite (the slot's padding zeroed: it goes to the side file). */
static void add_patch(pq_file *f, size_t at, uint8_t len, int kind, int64_t v)
{
	struct pq_patch *p = &f->patches[f->npatches++];
	memset(p, 0, sizeof(*p));
	p->at = at;
	p->len = len;
	p->kind = (uint8_t)kind;
	p->v = v;
}

/*
 * An i64/i16 field whose value pq_append may rewrite (a file offset, a row
 * group ordinal): where its varint is goes in f's patches.
 */
static void tw_patch(tw *w, pq_file *f, int16_t id, int type, int64_t v, int kind)
{
	tw_field(w, id, type);
	size_t at = w->b->len;
	varint(w->b, zigzag(v));
	if (tio_grow(&f->patches, &f->pcap, f->npatches + 1, sizeof(*f->patches))) {
		f->oom = true;
		return;
	}
	add_patch(f, at, (uint8_t)(w->b->len - at), kind, v);
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

/* ---------------------------------------------------------------- the compression worker */

/*
 * Pages are compressed off the decoding thread when there is a second CPU:
 * the writer fills a slot (the page body and the end of its header), the
 * worker compresses it and appends header and body to the column chunk, in
 * the order the slots were filled.  The bytes are those the writer would
 * produce inline.  At most PQ_SLOTS pages are in flight (memory bounded);
 * pq_flush waits for them before it writes the chunks.
 */
#define PQ_SLOTS 8
/* pages of fewer bytes (values and levels) are compressed by the writer itself (page_cut) */
#define PQ_INLINE (4u << 10)

typedef struct pq_job {
	pq_col *c;
	int type;	       /* JOB_* */
	pq_buf vals, defs, reps; /* JOB_RAW: the page's buffers, taken from the column */
	uint32_t nlead, nlevels, nnull;
	tio_buf body; /* uncompressed page body */
	tio_buf tail; /* the PageHeader after compressed_page_size (its own stop byte included) */
	tio_buf ix;   /* the page's bounds for the page index (encode_page) */
	uint64_t row0; /* the page's first row in the row group */
	pq_fn fn;     /* JOB_FN: fn(arg, data) */
	void *arg;
	tio_buf data;
} pq_job;

enum {
	JOB_NONE,    /* nothing (the page was dropped) */
	JOB_RAW,     /* a PLAIN data page to encode, then compress */
	JOB_ENCODED, /* a data page encoded by the writer: compress it */
	JOB_FN,	     /* work handed over by pq_defer */
};

struct pq_worker {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t more, done;
	pq_job q[PQ_SLOTS];
	uint64_t prod, cons; /* slots filled, slots compressed */
	unsigned fn_inflight; /* JOB_FN among them (under mu) */
	bool stop;
	void *zctx;
	tio_buf cbuf, hdr;
};

static int finish_page(pq_col *c, const tio_buf *body, const tio_buf *tail, const tio_buf *ix,
		       uint64_t row0, int type, void *zctx, tio_buf *cbuf, tio_buf *hdr, char *msg,
		       size_t msz);
static bool encode_page(pq_col *c, bool dict, const pq_buf *vals, uint32_t run, const pq_buf *idx,
			const pq_buf *defs, const pq_buf *reps, uint32_t nlead, uint32_t nlevels,
			uint32_t nnull, uint32_t stamp, tio_buf *out, tio_buf *tail, tio_buf *ix);

/* The worker thread: compress the filled slots in order until told to stop. */
static void *worker_main(void *arg)
{
	struct pq_worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->cons == w->prod && !w->stop)
			pthread_cond_wait(&w->more, &w->mu);
		if (w->cons == w->prod)
			break;
		pq_job *j = &w->q[w->cons % PQ_SLOTS];
		pthread_mutex_unlock(&w->mu);
		char msg[256];
		int r = 0;
		if (j->type == JOB_FN) {
			j->fn(j->arg, j->data.p, j->data.len);
			j->type = JOB_NONE;
			pthread_mutex_lock(&w->mu);
			w->fn_inflight--;
			w->cons++;
			pthread_cond_broadcast(&w->done);
			continue;
		}
		if (j->type == JOB_RAW &&
		    !encode_page(j->c, false, &j->vals, 0, NULL, &j->defs, &j->reps, j->nlead,
				 j->nlevels, j->nnull, 0, &j->body, &j->tail, &j->ix)) {
			r = TIO_ERR_NOMEM;
			snprintf(msg, sizeof(msg), "out of memory encoding a page");
		}
		if (!r && j->type != JOB_NONE)
			r = finish_page(j->c, &j->body, &j->tail, &j->ix, j->row0, 0, w->zctx,
					&w->cbuf, &w->hdr, msg, sizeof(msg));
		pthread_mutex_lock(&w->mu);
		if (r && !j->c->file->err) {
			j->c->file->err = r;
			snprintf(j->c->file->errmsg, sizeof(j->c->file->errmsg), "%s", msg);
		}
		/* under mu, after the error: file_drain sees both */
		__atomic_sub_fetch(&j->c->inflight, 1, __ATOMIC_RELEASE);
		w->cons++;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Start the worker (false: none, pages are compressed inline). */
static bool worker_start(pq_shared *sh)
{
	struct pq_worker *w = tio_calloc(1, sizeof(*w));
	if (!w)
		return false;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->done, NULL);
	if (!(w->zctx = ZSTD_createCCtx())) {
		free(w);
		return false;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* signals stay with the caller's threads */
	int r = pthread_create(&w->th, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		ZSTD_freeCCtx(w->zctx);
		free(w);
		return false;
	}
	sh->w = w;
	return true;
}

/* Wait until every filled slot is compressed (the chunks are complete). */
static void worker_drain(struct pq_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->cons != w->prod)
		pthread_cond_wait(&w->done, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/*
 * Wait until no page of file f is in flight (its chunks are complete);
 * other files' pages and the JOB_FNs (events.parquet's rows) may be.
 */
static void file_drain(pq_file *f)
{
	struct pq_worker *w = f->sh->w;
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	for (uint32_t k = 0; k < f->ncols; k++)
		while (__atomic_load_n(&f->cols[k].inflight, __ATOMIC_ACQUIRE))
			pthread_cond_wait(&w->done, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/*
 * A free slot to fill.  When every slot is in flight: NULL when the work
 * can be done here instead (column c has no page in flight, or for a
 * JOB_FN, c NULL, no JOB_FN is), so that the writer works rather than
 * waits and the order of each column's pages (and of the JOB_FNs) stays;
 * else wait.
 */
static pq_job *worker_slot(struct pq_worker *w, const pq_col *c)
{
	pthread_mutex_lock(&w->mu);
	if (w->prod - w->cons >= PQ_SLOTS &&
	    (c ? !__atomic_load_n(&c->inflight, __ATOMIC_ACQUIRE) : !w->fn_inflight)) {
		pthread_mutex_unlock(&w->mu);
		return NULL;
	}
	while (w->prod - w->cons >= PQ_SLOTS)
		pthread_cond_wait(&w->done, &w->mu);
	pq_job *j = &w->q[w->prod % PQ_SLOTS];
	pthread_mutex_unlock(&w->mu);
	return j;
}

/* Hand the filled slot to the worker. */
static void worker_submit(struct pq_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->prod++;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->mu);
}

static void big_free(pq_shared *sh, char *p, size_t cap);

/* Stop and join sh's worker, free its slots. */
static void worker_stop(pq_shared *sh)
{
	struct pq_worker *w = sh->w;
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	for (int k = 0; k < PQ_SLOTS; k++) {
		tio_buf_free(&w->q[k].body);
		tio_buf_free(&w->q[k].tail);
		tio_buf_free(&w->q[k].ix);
		tio_buf_free(&w->q[k].data);
		big_free(sh, w->q[k].vals.p, w->q[k].vals.cap);
		big_free(sh, w->q[k].defs.p, w->q[k].defs.cap);
		big_free(sh, w->q[k].reps.p, w->q[k].reps.cap);
	}
	tio_buf_free(&w->cbuf);
	tio_buf_free(&w->hdr);
	ZSTD_freeCCtx(w->zctx);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->more);
	pthread_cond_destroy(&w->done);
	free(w);
}

/* ---------------------------------------------------------------- columns */

/* A page buffer's limit: the page size, or its capacity when smaller. */
static void buf_limit(pq_buf *b, size_t page) { b->lim = b->cap < page ? b->cap : page; }

/* Empty a page buffer (its memory freed too when `release`). */
static void buf_clear(pq_shared *sh, pq_buf *b, bool release, size_t page)
{
	b->len = 0;
	if (release) {
		big_free(sh, b->p, b->cap);
		b->p = NULL;
		b->cap = 0;
	}
	buf_limit(b, page);
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
	c->last_end = PQ_NO_LAST;
	c->runs = true; /* the first page probes */
	c->max_def = (uint8_t)def;
	c->max_rep = (uint8_t)rep;
	c->phys = n->phys;
	c->unsigned_order = (n->logical == PQ_LT_INT && !n->int_signed) ||
			    n->phys == PQ_BYTE_ARRAY || n->phys == PQ_FLBA || n->phys == PQ_BOOLEAN;
	c->dict = n->phys == PQ_BYTE_ARRAY && n->dict;
	if (c->dict && !(c->seen = tio_calloc(PQ_SEEN, sizeof(*c->seen))))
		return TIO_ERR_NOMEM;
	c->npath = depth;
	if (!(c->path = tio_calloc(depth ? depth : 1, sizeof(char *))))
		return TIO_ERR_NOMEM;
	for (uint32_t k = 0; k < depth; k++)
		c->path[k] = (char *)path[k];
	return 0;
}

/* The writer's lock (pq_file.io), when pq_redirect may run on another thread. */
static void io_lock(pq_file *f)
{
	if (f->io)
		pthread_mutex_lock(f->io);
}

static void io_unlock(pq_file *f)
{
	if (f->io)
		pthread_mutex_unlock(f->io);
}

/*
 * Files kept open between row groups, in the whole process (the parts'
 * writers included): opening and closing a file for each row group cost
 * four system calls more than its writes, most of the time of a conversion
 * into row groups of a hundred rows.  At most a quarter of the descriptors
 * allowed, and 256: the rest are opened for each write.
 */
static _Atomic unsigned open_files;
static unsigned open_max(void)
{
	static _Atomic unsigned max;
	unsigned m = atomic_load(&max);
	if (!m) {
		struct rlimit rl;
		rlim_t n = getrlimit(RLIMIT_NOFILE, &rl) ? 64 : rl.rlim_cur / 4;
		m = n > 256 ? 256 : n < 1 ? 1 : (unsigned)n;
		atomic_store(&max, m);
	}
	return m;
}

/* The file to append a row group to: f->fp, or opened now (and kept when there is room). */
static FILE *file_out(pq_file *f)
{
	if (f->fp)
		return f->fp;
	FILE *o = fopen(f->redirect ? f->redirect : f->path, "ab");
	if (o && atomic_fetch_add(&open_files, 1) < open_max())
		f->fp = o;
	else if (o)
		atomic_fetch_sub(&open_files, 1);
	return o;
}

/* Done writing to o (from file_out): flushed when kept, else closed.  Non-zero: a write error. */
static int file_done(pq_file *f, FILE *o)
{
	return o == f->fp ? fflush(o) : fclose(o);
}

/* Close the kept file, if any.  Non-zero: a write error. */
static int file_shut(pq_file *f)
{
	if (!f->fp)
		return 0;
	int r = fclose(f->fp);
	f->fp = NULL;
	atomic_fetch_sub(&open_files, 1);
	return r;
}

/* Number the columns, give them levels and paths, create the file with its magic. */
int pq_open(pq_file *f, const char *path, pq_node *root, int codec, int level, pq_shared *sh)
{
	memset(f, 0, sizeof(*f));
	f->sh = sh;
	f->dict_max = 65536;
	f->page_size = PQ_PAGE;
	f->root = root;
	f->codec = codec;
	f->level = level;
	if (!(f->path = tio_strdup(path)))
		return TIO_ERR_NOMEM;
	uint32_t n = pq_node_leaves(root);
	if (!(f->cols = tio_calloc(n ? n : 1, sizeof(pq_col))) ||
	    !(f->due = tio_calloc(n ? n : 1, sizeof(uint32_t))))
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
	if (codec != PQ_UNCOMPRESSED && sh->threads && !sh->w && !sh->tried) {
		sh->tried = true;
		worker_start(sh);
	}
	return 0;
}

void pq_shared_init(pq_shared *sh)
{
	memset(sh, 0, sizeof(*sh));
	pthread_mutex_init(&sh->mem.mu, NULL);
}

/* ---------------------------------------------------------------- big buffers (pq_mem) */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PQ_ASAN 1
#endif
#elif defined(__SANITIZE_ADDRESS__)
#define PQ_ASAN 1
#endif
#ifdef PQ_ASAN
#include <sanitizer/asan_interface.h>
/* blocks not given out are poisoned: a use past a buffer's end or after its release is reported */
#define MEM_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define MEM_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define MEM_POISON(p, n) ((void)(p), (void)(n))
#define MEM_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* `len` bytes (a multiple of PQ_MEM_SLAB) mapped at a multiple of PQ_MEM_SLAB, huge pages asked for; NULL. */
static char *mem_map(size_t len)
{
	if (len > SIZE_MAX - PQ_MEM_SLAB)
		return NULL;
	char *m = mmap(NULL, len + PQ_MEM_SLAB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)m + PQ_MEM_SLAB - 1) & ~(uintptr_t)(PQ_MEM_SLAB - 1);
	char *p = (char *)a;
	if (p > m)
		munmap(m, (size_t)(p - m));
	if (p + len < m + len + PQ_MEM_SLAB)
		munmap(p + len, (size_t)(m + len + PQ_MEM_SLAB - (p + len)));
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE); /* a hint: without it (THP off), 4 KiB pages */
#endif
	return p;
}

/* A buffer of at least n bytes (n >= PQ_MEM_MIN), its capacity in *cap; NULL (no error set). */
static char *mem_get(pq_shared *sh, size_t n, size_t *cap)
{
	pq_mem *m = &sh->mem;
	char *p = NULL;
	pthread_mutex_lock(&m->mu);
	if (n <= PQ_MEM_SLAB) {
		size_t sz = (n + PQ_MEM_MIN - 1) / PQ_MEM_MIN * PQ_MEM_MIN, k = sz / PQ_MEM_MIN - 1;
		if (m->free[k]) {
			p = m->free[k];
			MEM_UNPOISON(p, sizeof(void *));
			m->free[k] = *(void **)p;
		} else {
			if (!m->left[k] && m->nslabs == m->scap) { /* room to note one more slab */
				size_t nc = m->scap ? m->scap * 2 : 16;
				char **g = realloc(m->slabs, nc * sizeof(char *));
				if (g) {
					m->slabs = g;
					m->scap = nc;
				}
			}
			if (!m->left[k] && m->nslabs < m->scap && (m->cur[k] = mem_map(PQ_MEM_SLAB))) {
				m->slabs[m->nslabs++] = m->cur[k];
				m->left[k] = (uint32_t)(PQ_MEM_SLAB / sz);
				MEM_POISON(m->cur[k], PQ_MEM_SLAB);
			}
			if (m->left[k]) {
				p = m->cur[k];
				m->cur[k] += sz;
				m->left[k]--;
			}
		}
		if (p) {
			MEM_UNPOISON(p, sz);
			*cap = sz;
		}
	} else { /* a mapping of its own (a page buffer for a value of megabytes) */
		size_t sz = n <= SIZE_MAX - PQ_MEM_SLAB ? (n + PQ_MEM_SLAB - 1) / PQ_MEM_SLAB * PQ_MEM_SLAB : 0;
		if (sz && (p = mem_map(sz)))
			*cap = sz;
	}
	pthread_mutex_unlock(&m->mu);
	return p;
}

/* Give back a buffer of mem_get (cap: its capacity). */
static void mem_put(pq_shared *sh, char *p, size_t cap)
{
	pq_mem *m = &sh->mem;
	pthread_mutex_lock(&m->mu);
	if (cap <= PQ_MEM_SLAB) {
		size_t k = cap / PQ_MEM_MIN - 1;
		MEM_POISON(p, cap);
		MEM_UNPOISON(p, sizeof(void *));
		*(void **)p = m->free[k];
		MEM_POISON(p, sizeof(void *));
		m->free[k] = p;
	} else {
		munmap(p, cap);
	}
	pthread_mutex_unlock(&m->mu);
}

/* Free a page buffer's or a chunk's memory (from malloc or mem_get, as its capacity says). */
static void big_free(pq_shared *sh, char *p, size_t cap)
{
	if (p && cap >= PQ_MEM_MIN)
		mem_put(sh, p, cap);
	else
		free(p);
}

/*
 * Grow a buffer (p: len bytes used, cap) to at least `want` bytes: malloc's
 * realloc below PQ_MEM_MIN, mem_get from there (the bytes copied, the old
 * buffer given back).  0, or -1 with p unchanged (no error set: the caller
 * may be the worker).
 */
static int big_grow(pq_shared *sh, char **p, size_t len, size_t *cap, size_t want)
{
	if (want < PQ_MEM_MIN && *cap < PQ_MEM_MIN) {
		char *q = realloc(*p, want);
		if (!q)
			return -1;
		*p = q;
		*cap = want;
		return 0;
	}
	size_t ncap;
	char *q = mem_get(sh, want, &ncap);
	if (!q)
		return -1;
	if (len)
		memcpy(q, *p, len);
	big_free(sh, *p, *cap);
	*p = q;
	*cap = ncap;
	return 0;
}

/* Unmap everything (every buffer given back before). */
static void mem_free(pq_mem *m)
{
	for (size_t k = 0; k < m->nslabs; k++) {
		MEM_UNPOISON(m->slabs[k], PQ_MEM_SLAB);
		munmap(m->slabs[k], PQ_MEM_SLAB);
	}
	free(m->slabs);
	pthread_mutex_destroy(&m->mu);
}

/* Bytes of column c's chunk. */
static size_t chunk_len(const pq_col *c) { return c->chunk.head.len + c->chunk.sbytes; }

/* Memory it holds. */
static size_t chunk_cap(const pq_col *c) { return c->chunk.head.cap + (size_t)c->chunk.nsegs * PQ_SEG; }

/* Append n bytes to column c's chunk; TIO_ERR_NOMEM, no message (the caller may be the worker). */
static int chunk_add(pq_col *c, const void *p, size_t n)
{
	struct pq_chunk *k = &c->chunk;
	if (!k->nsegs && k->head.len + n + 1 <= PQ_CHUNK_HEAD)
		return tio_buf_add(&k->head, p, n) ? TIO_ERR_NOMEM : 0;
	const char *q = p;
	while (n) {
		size_t room = (size_t)k->nsegs * PQ_SEG - k->sbytes;
		if (!room) {
			size_t cap;
			char *s;
			if (k->nsegs == k->scap) {
				uint32_t nc = k->scap ? k->scap * 2 : 8;
				char **g = nc > k->scap ? realloc(k->segs, nc * sizeof(char *)) : NULL;
				if (!g)
					return TIO_ERR_NOMEM;
				k->segs = g;
				k->scap = nc;
			}
			if (!(s = mem_get(c->file->sh, PQ_SEG, &cap)))
				return TIO_ERR_NOMEM;
			k->segs[k->nsegs++] = s;
			room = PQ_SEG;
		}
		size_t m = n < room ? n : room, at = k->sbytes % PQ_SEG;
		memcpy(k->segs[k->nsegs - 1] + at, q, m);
		k->sbytes += m;
		q += m;
		n -= m;
	}
	return 0;
}

/* Write column c's chunk to o; false on a write error. */
static bool chunk_write(const pq_col *c, FILE *o)
{
	const struct pq_chunk *k = &c->chunk;
	if (k->head.len && fwrite(k->head.p, 1, k->head.len, o) != k->head.len)
		return false;
	for (uint32_t j = 0; j < k->nsegs; j++) {
		size_t m = j + 1 < k->nsegs ? PQ_SEG : k->sbytes - (size_t)j * PQ_SEG;
		if (m && fwrite(k->segs[j], 1, m, o) != m)
			return false;
	}
	return true;
}

/* Empty column c's chunk; `release`: its memory given back too (else its head kept, its blocks given back). */
static void chunk_clear(pq_col *c, bool release)
{
	struct pq_chunk *k = &c->chunk;
	for (uint32_t j = 0; j < k->nsegs; j++)
		mem_put(c->file->sh, k->segs[j], PQ_SEG);
	k->nsegs = 0;
	k->sbytes = 0;
	k->head.len = 0;
	if (release) {
		tio_buf_free(&k->head);
		free(k->segs);
		k->segs = NULL;
		k->scap = 0;
	}
}

/* Empty a column after its chunk was written (memory given back as `rel` says: enum pq_release). */
static void col_reset(pq_col *c, int rel)
{
	pq_buf *bufs[] = {&c->vals, &c->idx, &c->defs, &c->reps};
	for (size_t k = 0; k < TIO_ARRAY_LEN(bufs); k++)
		buf_clear(c->file->sh, bufs[k], rel == PQ_RELEASE, c->file->page_size);
	bool release = rel != PQ_KEEP;
	c->nlead = c->nlevels = c->nnull = 0;
	c->unsorted = c->sort_any = false;
	c->run = c->run_lim = 0;
	c->last_end = PQ_NO_LAST;
	chunk_clear(c, release);
	c->dbytes.len = 0;
	c->pix.len = 0;
	c->row0 = 0;
	if (release)
		tio_buf_free(&c->dbytes);
	if (rel == PQ_RELEASE)
		memset(c->hw, 0, sizeof(c->hw));
	c->c_levels = c->c_usize = c->c_csize = 0;
	c->c_pages = c->c_dict_pages = c->c_delta_pages = 0;
	c->c_codec = PQ_Z_UNDECIDED;
	memset(&c->cst, 0, sizeof(c->cst));
	c->cmn.len = c->cmx.len = 0;
	c->ndict = 0;
	if (c->nslots)
		memset(c->slots, 0, c->nslots * sizeof(uint32_t));
	if (release && c->dcap > 16384) {
		free(c->doff);
		free(c->dhash);
		free(c->dstamp);
		free(c->slots);
		c->doff = c->dhash = c->dstamp = c->slots = NULL;
		c->dcap = c->nslots = 0;
	}
	if (c->seen)
		memset(c->seen, 0, PQ_SEEN * sizeof(*c->seen));
	c->dict = c->node->phys == PQ_BYTE_ARRAY && c->node->dict;
}

/* Stop and join the worker; free the shared encoding buffers and zstd context. */
void pq_shared_free(pq_shared *sh)
{
	worker_stop(sh);
	tio_buf_free(&sh->out);
	tio_buf_free(&sh->cbuf);
	tio_buf_free(&sh->hdr);
	tio_buf_free(&sh->tail);
	tio_buf_free(&sh->ix);
	if (sh->zctx)
		ZSTD_freeCCtx(sh->zctx);
	mem_free(&sh->mem);
	memset(sh, 0, sizeof(*sh));
}

/* Free a file writer (the file itself stays as written); its pages in flight are waited for. */
void pq_free(pq_file *f)
{
	if (f->sh)
		worker_drain(f->sh->w);
	for (uint32_t k = 0; k < f->ncols; k++) {
		pq_col *c = &f->cols[k];
		big_free(f->sh, c->vals.p, c->vals.cap);
		big_free(f->sh, c->idx.p, c->idx.cap);
		big_free(f->sh, c->defs.p, c->defs.cap);
		big_free(f->sh, c->reps.p, c->reps.cap);
		chunk_clear(c, true);
		tio_buf_free(&c->pix);
		tio_buf_free(&c->cmn);
		tio_buf_free(&c->cmx);
		tio_buf_free(&c->dbytes);
		free(c->doff);
		free(c->dhash);
		free(c->dstamp);
		free(c->slots);
		free(c->seen);
		free(c->path);
	}
	free(f->cols);
	free(f->due);
	(void)file_shut(f);
	free(f->redirect);
	pq_node_free(f->root);
	tio_buf_free(&f->rgs);
	free(f->patches);
	if (f->spill)
		unlink(f->spill);
	free(f->spill);
	if (f->pix_spill)
		unlink(f->pix_spill);
	free(f->pix_spill);
	tio_buf_free(&f->pix);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* ---------------------------------------------------------------- values */

/*
 * The capacity of a page buffer for `need` bytes: from 64 bytes, doubling
 * (a class with few rows holds little: 2,300 classes of an `-e all`) up to
 * 32 KiB or the page; then from pq_mem, a block of PQ_SEG (as a chunk's
 * blocks: one given back serves either) and the page and a quarter (a page
 * is cut at the end of the row that fills it); past that, the bytes and a
 * quarter page.  pq_mem's multiple of 64 KiB from PQ_MEM_MIN on.
 */
static size_t buf_cap(size_t need, size_t page)
{
	size_t cap = 64;
	while (cap < need && cap < page && cap < PQ_MEM_MIN / 2)
		cap *= 2;
	if (cap >= need)
		return cap;
	if (need <= page + page / 4)
		cap = need <= PQ_SEG && PQ_SEG < page ? PQ_SEG : page + page / 4;
	else
		cap = need + page / 4;
	return cap >= PQ_MEM_MIN ? (cap + PQ_MEM_MIN - 1) / PQ_MEM_MIN * PQ_MEM_MIN : cap;
}

/*
 * The slow path of pq_room: grow the buffer (buf_cap), and past the page
 * size mark the column due for a page cut at the end of the row (appends go
 * on until then).
 */
bool pq_more(pq_col *c, pq_buf *b, size_t n)
{
	size_t page = c->file->page_size;
	if (b->len + n > b->cap) {
		size_t need = b->len + n, cap = buf_cap(need, page);
		size_t bc = b->cap;
		if (big_grow(c->file->sh, &b->p, b->len, &bc, cap)) {
			c->file->oom = true;
			return false;
		}
		b->cap = bc;
	}
	if (b->len + n > page) {
		pq_mark_due(c);
		b->lim = b->cap;
	} else {
		buf_limit(b, page);
	}
	return true;
}

void pq_mark_due(pq_col *c)
{
	if (!c->due) {
		c->due = true;
		c->file->due[c->file->ndue++] = (uint32_t)(c - c->file->cols);
	}
}

void pq_run_more(pq_col *c)
{
	size_t w = c->phys == PQ_INT32 ? 4 : 8, page = c->file->page_size;
	size_t fit = c->vals.len < page ? (page - c->vals.len) / w : 0;
	if (fit > UINT32_MAX - 1)
		fit = UINT32_MAX - 1;
	if (c->run + 1 > fit) { /* the run's next value goes past the page size, as a stored one would */
		pq_mark_due(c);
		c->run_lim = UINT32_MAX;
	} else {
		c->run_lim = (uint32_t)fit;
	}
}

void pq_unrun(pq_col *c)
{
	size_t w = c->phys == PQ_INT32 ? 4 : 8, n = c->run;
	c->run = c->run_lim = 0;
	if (!pq_room(c, &c->vals, n * w))
		return;
	char *o = c->vals.p + c->vals.len;
	const char *last = o - w;
	if (w == 4) {
		for (size_t k = 0; k < n; k++)
			memcpy(o + 4 * k, last, 4);
	} else {
		for (size_t k = 0; k < n; k++)
			memcpy(o + 8 * k, last, 8);
	}
	c->vals.len += n * w;
	c->last_end = c->vals.len; /* still the last value */
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

/*
 * Stop dictionary-encoding the column chunk: this page's indices become
 * PLAIN values, and so do the next pages' values.  Pages already cut keep
 * their dictionary (written with the chunk); without any, it is dropped.
 */
static void dict_abandon(pq_col *c)
{
	const uint32_t *ix = (const uint32_t *)c->idx.p;
	size_t n = c->idx.len / 4;
	for (size_t k = 0; k < n; k++) {
		const char *e = c->dbytes.p + c->doff[ix[k]];
		size_t l = 4 + tio_le32(e);
		if (pq_room(c, &c->vals, l)) {
			memcpy(c->vals.p + c->vals.len, e, l);
			c->vals.len += l;
		}
	}
	c->dict = false;
	c->idx.len = 0;
	if (!c->c_dict_pages) {
		c->dbytes.len = 0;
		c->ndict = 0;
		if (c->nslots)
			memset(c->slots, 0, c->nslots * sizeof(uint32_t));
	}
	if (c->seen)
		memset(c->seen, 0, PQ_SEEN * sizeof(*c->seen));
}

/* dict_find: the dictionary entries after which a chunk of mostly distinct strings turns PLAIN */
#define DICT_PROBE 4096
/* page_cut: the dictionary bytes from which a chunk is compressed without a trial */
#define DICT_ZIP 1024

/* The dictionary entry of a string, added when new; false when the dictionary is full. */
static bool dict_find(pq_col *c, const void *p, uint32_t n, uint32_t *entry, bool stable)
{
	unsigned sl = pq_seen_slot(p);
	stable = stable && c->seen;
	if (stable && c->seen[sl].p == p && c->seen[sl].len == n && p) {
		*entry = c->seen[sl].e;
		return true;
	}
	if (c->dlast < c->ndict) { /* the same string as the last one (a constant, a run) */
		const char *d = c->dbytes.p + c->doff[c->dlast];
		if (tio_le32(d) == n && !memcmp(d + 4, p, n)) {
			*entry = c->dlast;
			return true;
		}
	}
	uint32_t h = hash_bytes(p, n);
	if (c->ndict * 2 + 2 > c->nslots) {
		/* grow the slots (and rehash) */
		uint32_t ns = c->nslots ? c->nslots * 2 : 256;
		/*
		 * zeroed by writing, not calloc: a probe would read calloc's fresh
		 * pages first, mapping the shared zero page, and the insert's write
		 * then costs a copy-on-write fault, whose TLB flush interrupts every
		 * other CPU running a thread of the process (parts in parallel)
		 */
		uint32_t *s = malloc((size_t)ns * sizeof(uint32_t));
		if (!s) {
			c->file->oom = true;
			return false;
		}
		memset(s, 0, (size_t)ns * sizeof(uint32_t));
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
			*entry = c->dlast = e;
			if (stable) {
				c->seen[sl].p = p;
				c->seen[sl].len = n;
				c->seen[sl].e = e;
			}
			return true;
		}
	}
	/* a new entry: at most dict_max entries (64 Ki) and 4 MiB per column chunk, else PLAIN */
	if (c->ndict >= c->file->dict_max || c->dbytes.len + n + 4 > (4u << 20))
		return false;
	/*
	 * nor when the chunk's first values are mostly distinct (texts, ids,
	 * paths): PLAIN at once when DICT_PROBE entries came from fewer than
	 * twice as many values, instead of filling a table of dict_max entries
	 * (random look-ups in a growing table, the chunk's values then copied as
	 * PLAIN) and dropping it
	 */
	if (c->ndict == DICT_PROBE && !c->c_dict_pages && c->idx.len / 4 < 2 * DICT_PROBE)
		return false;
	if (c->ndict >= c->dcap) {
		uint32_t nc = c->dcap ? c->dcap * 2 : 64;
		uint32_t *o = realloc(c->doff, nc * sizeof(uint32_t));
		if (o)
			c->doff = o;
		uint32_t *hh = o ? realloc(c->dhash, nc * sizeof(uint32_t)) : NULL;
		if (hh)
			c->dhash = hh;
		uint32_t *st = hh ? realloc(c->dstamp, nc * sizeof(uint32_t)) : NULL;
		if (!st) {
			c->file->oom = true;
			return false;
		}
		c->dstamp = st;
		c->dcap = nc;
	}
	uint32_t e = c->ndict++;
	c->doff[e] = (uint32_t)c->dbytes.len;
	c->dhash[e] = h;
	c->dstamp[e] = 0;
	uint32_t l = n;
	if (tio_buf_add(&c->dbytes, &l, 4) || tio_buf_add(&c->dbytes, p, n))
		c->file->oom = true;
	c->slots[k] = e + 1;
	if (stable) {
		c->seen[sl].p = p;
		c->seen[sl].len = n;
		c->seen[sl].e = e;
	}
	*entry = c->dlast = e;
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
			pq_levels(c, c->max_def, rep);
			if (pq_room(c, &c->idx, 4)) {
				memcpy(c->idx.p + c->idx.len, &e, 4);
				c->idx.len += 4;
			}
			return;
		}
		dict_abandon(c);
	}
	uint32_t l = (uint32_t)n;
	pq_levels(c, c->max_def, rep);
	if (pq_room(c, &c->vals, 4 + n)) {
		memcpy(c->vals.p + c->vals.len, &l, 4);
		memcpy(c->vals.p + c->vals.len + 4, p, n);
		c->vals.len += 4 + n;
	}
}

/* A BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value. */
void pq_bytes(pq_col *c, const void *p, size_t n, unsigned rep) { put_bytes(c, p, n, rep, false); }

/* A string whose pointer identifies it, not in the pointer cache (see pq.h). */
void pq_str_stable_slow(pq_col *c, const char *p, size_t n, unsigned rep)
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

/* Bit-pack values [from, from + n) (groups of 8, the last one padded with zeros) LSB first. */
static void bitpack(tio_buf *o, const uint8_t *v8, const uint32_t *v32, size_t from, size_t n,
		    size_t avail, unsigned bw)
{
	while (n) {
		size_t groups = (n + 7) / 8;
		if (groups > 63)
			groups = 63;
		size_t cnt = groups * 8;
		varint(o, (groups << 1) | 1);
		if (tio_buf_reserve(o, groups * bw + 8))
			return;
		uint8_t *d = (uint8_t *)o->p + o->len;
		uint64_t acc = 0;
		unsigned nb = 0;
		size_t k = 0;
		/* levels of 0 and 1 (lists, optional values): 8 in a byte by one multiply (no two of its
		   partial products meet) */
		if (v8 && bw == 1)
			for (; k + 8 <= cnt && from + k + 8 <= avail; k += 8) {
				uint64_t x = tio_le64(v8 + from + k); /* byte i's bit 0 moves to bit 56 + i: */
				*d++ = (uint8_t)(((x & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56);
			}
		for (; k < cnt; k++) {
			size_t i = from + k;
			uint64_t v = i < avail ? (v8 ? v8[i] : v32[i]) : 0;
			acc |= v << nb;
			nb += bw;
			if (nb >= 32) {
				uint32_t w = (uint32_t)acc;
				memcpy(d, &w, 4);
				d += 4;
				acc >>= 32;
				nb -= 32;
			}
		}
		while (nb >= 8) {
			*d++ = (uint8_t)acc;
			acc >>= 8;
			nb -= 8;
		}
		if (nb)
			*d++ = (uint8_t)acc;
		o->len = (size_t)((char *)d - o->p);
		from += cnt;
		n = cnt < n ? n - cnt : 0;
	}
}

/* An RLE run of the hybrid encoding: count, then the value in (bw + 7) / 8 bytes. */
static void rle_run(tio_buf *o, uint64_t count, uint32_t v, unsigned bw)
{
	varint(o, count << 1);
	for (unsigned b = 0; b < (bw + 7) / 8; b++)
		tio_buf_addc(o, (char)(v >> (8 * b)));
}

/*
 * The RLE / bit-packed hybrid of Encodings.md: runs of 8 or more equal
 * values are RLE runs, the rest bit-packed groups of 8.
 */
static void rle_hybrid(tio_buf *o, const uint8_t *v8, const uint32_t *v32, size_t n, unsigned bw)
{
	size_t i = 0, lit = 0;
#define VAL(k) (v8 ? (uint32_t)v8[k] : v32[k])
	while (i < n) {
		uint32_t v = VAL(i);
		size_t r = 1;
		if (v8) { /* levels: 8 at a time, the run ending at the lowest byte that differs */
			uint64_t pat = 0x0101010101010101ull * v, d = 0;
			while (i + r + 8 <= n && !(d = tio_le64(v8 + i + r) ^ pat))
				r += 8;
			if (d)
				r += (size_t)__builtin_ctzll(d) / 8;
			else
				while (i + r < n && v8[i + r] == v)
					r++;
		} else {
			while (i + r < n && v32[i + r] == v)
				r++;
		}
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
		rle_run(o, r, v, bw);
		i += r;
		lit = i;
	}
	if (n > lit)
		bitpack(o, v8, v32, lit, n - lit, n, bw);
#undef VAL
}

/*
 * Levels of a v1 data page: a 4-byte length then the hybrid encoding of
 * `lead` levels at `max` followed by those in lv.
 */
static void levels(tio_buf *o, uint32_t lead, const pq_buf *lv, unsigned max)
{
	size_t at = o->len;
	uint32_t z = 0;
	tio_buf_add(o, &z, 4);
	unsigned bw = bit_width(max);
	if (lead)
		rle_run(o, lead, max, bw);
	rle_hybrid(o, (const uint8_t *)lv->p, NULL, lv->len, bw);
	uint32_t len = (uint32_t)(o->len - at - 4);
	if (o->p)
		memcpy(o->p + at, &len, 4);
}

/* ---------------------------------------------------------------- statistics */

/* Is byte string a (la bytes) before b (lb bytes), unsigned byte order? */
static bool bytes_lt(const char *a, uint32_t la, const char *b, uint32_t lb)
{
	int k = memcmp(a, b, la < lb ? la : lb);
	return k < 0 || (k == 0 && la < lb);
}

/* Count byte string p in bounds s. */
static void bytes_bound(pq_stats *s, const char *p, uint32_t l)
{
	if (!s->has) {
		s->has = true;
		s->bmn = s->bmx = p;
		s->bmnl = s->bmxl = l;
		return;
	}
	if (bytes_lt(p, l, s->bmn, s->bmnl)) {
		s->bmn = p;
		s->bmnl = l;
	}
	if (bytes_lt(s->bmx, s->bmxl, p, l)) {
		s->bmx = p;
		s->bmxl = l;
	}
}

/* Count a floating-point value in bounds s (NaNs counted apart; -0 below +0). */
static void double_bound(pq_stats *s, double d)
{
	if (isnan(d)) {
		s->nnan++;
	} else if (!s->has) {
		s->has = true;
		s->mn.d = s->mx.d = d;
	} else {
		if (d < s->mn.d || (d == 0 && signbit(d)))
			s->mn.d = d < s->mn.d ? d : (s->mn.d == 0 ? -0.0 : s->mn.d);
		if (d > s->mx.d || (d == 0 && !signbit(d) && s->mx.d == 0))
			s->mx.d = d > s->mx.d ? d : 0.0;
	}
}

/* Signed or unsigned bounds of n integers of type T at p. */
#define INT_BOUNDS(T, p, n, mn, mx)                                                                \
	do {                                                                                       \
		const char *p_ = (p);                                                              \
		T lo_, hi_;                                                                        \
		memcpy(&lo_, p_, sizeof(T));                                                       \
		hi_ = lo_;                                                                         \
		for (size_t k_ = 1; k_ < (n); k_++) {                                              \
			T v_;                                                                      \
			memcpy(&v_, p_ + k_ * sizeof(T), sizeof(T));                               \
			lo_ = v_ < lo_ ? v_ : lo_;                                                 \
			hi_ = v_ > hi_ ? v_ : hi_;                                                 \
		}                                                                                  \
		mn = lo_;                                                                          \
		mx = hi_;                                                                          \
	} while (0)

/*
 * Loops over a page's integers built twice: for the base ISA and for AVX2
 * (64-bit compares: vector loops), the second used when the CPU has it.
 * Chosen here at each call, not by an ifunc (target_clones): an ifunc
 * resolver runs while the program is loaded, before the runtimes of
 * -fprofile-generate and of ThreadSanitizer start, and crashes there (the
 * PGO training run of make build, tests/install/test-pgo.sh).
 */
#if defined(__x86_64__) && defined(__GNUC__)
static bool cpu_avx2(void)
{
	static int known; /* 0: not asked yet, 1: no, 2: yes */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (!k) {
		k = __builtin_cpu_supports("avx2") ? 2 : 1;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 2;
}
#define TWICE(NAME, PARAMS, ARGS, ...)                                                             \
	static void NAME##_base PARAMS __VA_ARGS__                                                  \
	__attribute__((target("avx2"))) static void NAME##_avx2 PARAMS __VA_ARGS__                 \
	static void NAME PARAMS                                                                     \
	{                                                                                          \
		if (cpu_avx2())                                                                    \
			NAME##_avx2 ARGS;                                                          \
		else                                                                               \
			NAME##_base ARGS;                                                          \
	}
#else
#define TWICE(NAME, PARAMS, ARGS, ...) static void NAME PARAMS __VA_ARGS__
#endif

/* Integer bounds of n values of type T at p. */
#define BOUNDS_FN(NAME, T)                                                                         \
	TWICE(NAME, (const char *p, size_t n, T *mn, T *mx), (p, n, mn, mx),                       \
	      { INT_BOUNDS(T, p, n, *mn, *mx); })
BOUNDS_FN(bounds_u32, uint32_t)
BOUNDS_FN(bounds_i32, int32_t)
BOUNDS_FN(bounds_u64, uint64_t)
BOUNDS_FN(bounds_i64, int64_t)

/* The bounds of the page being cut (byte strings point into the page or the dictionary). */
static void page_stats(pq_col *c, bool dict, const pq_buf *v, const pq_buf *idx, uint32_t nnull,
		       uint32_t stamp, pq_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->nnull = nnull;
	switch (c->phys) {
	case PQ_BOOLEAN:
		if (v->len) {
			s->has = true;
			s->mn.u = 1;
			s->mx.u = 0;
			for (size_t k = 0; k < v->len; k++) {
				uint8_t b = (uint8_t)v->p[k];
				s->mn.u &= b;
				s->mx.u |= b;
			}
		}
		break;
	case PQ_INT32:
		if (v->len >= 4) {
			s->has = true;
			if (c->unsigned_order) {
				uint32_t a, b;
				bounds_u32(v->p, v->len / 4, &a, &b);
				s->mn.u = a, s->mx.u = b;
			} else {
				int32_t a, b;
				bounds_i32(v->p, v->len / 4, &a, &b);
				s->mn.i = a, s->mx.i = b;
			}
		}
		break;
	case PQ_INT64:
		if (v->len >= 8) {
			s->has = true;
			if (c->unsigned_order)
				bounds_u64(v->p, v->len / 8, &s->mn.u, &s->mx.u);
			else
				bounds_i64(v->p, v->len / 8, &s->mn.i, &s->mx.i);
		}
		break;
	case PQ_FLOAT:
		for (size_t k = 0; k + 4 <= v->len; k += 4) {
			float x;
			memcpy(&x, v->p + k, 4);
			double_bound(s, x);
		}
		break;
	case PQ_DOUBLE:
		for (size_t k = 0; k + 8 <= v->len; k += 8) {
			double x;
			memcpy(&x, v->p + k, 8);
			double_bound(s, x);
		}
		break;
	case PQ_BYTE_ARRAY:
		if (dict) { /* each entry the page uses, once */
			const uint32_t *ix = (const uint32_t *)idx->p;
			for (size_t k = 0; k < idx->len / 4; k++) {
				uint32_t e = ix[k];
				if (c->dstamp[e] == stamp)
					continue;
				c->dstamp[e] = stamp;
				const char *d = c->dbytes.p + c->doff[e];
				bytes_bound(s, d + 4, tio_le32(d));
			}
		} else {
			for (size_t at = 0; at + 4 <= v->len;) {
				uint32_t l = tio_le32(v->p + at);
				bytes_bound(s, v->p + at + 4, l);
				at += 4 + (size_t)l;
			}
		}
		break;
	case PQ_FLBA: {
		size_t w = (size_t)c->node->type_length;
		for (size_t at = 0; w && at + w <= v->len; at += w)
			bytes_bound(s, v->p + at, (uint32_t)w);
		break;
	}
	}
}

/* Add a page's bounds to the column chunk's (byte strings copied); false when out of memory. */
static bool chunk_stats(pq_col *c, const pq_stats *s)
{
	pq_stats *t = &c->cst;
	t->nnull += s->nnull;
	t->nnan += s->nnan;
	if (!s->has)
		return true;
	switch (c->phys) {
	case PQ_FLOAT:
	case PQ_DOUBLE:
		if (!t->has) {
			t->has = true;
			t->mn.d = s->mn.d;
			t->mx.d = s->mx.d;
		} else {
			pq_stats x = *t;
			x.nnan = 0;
			double_bound(&x, s->mn.d);
			double_bound(&x, s->mx.d);
			t->mn.d = x.mn.d;
			t->mx.d = x.mx.d;
		}
		return true;
	case PQ_BYTE_ARRAY:
	case PQ_FLBA:
		if (!t->has || bytes_lt(s->bmn, s->bmnl, t->bmn, t->bmnl)) {
			c->cmn.len = 0;
			if (tio_buf_add(&c->cmn, s->bmn, s->bmnl))
				return false;
			t->bmn = c->cmn.p ? c->cmn.p : "";
			t->bmnl = s->bmnl;
		}
		if (!t->has || bytes_lt(t->bmx, t->bmxl, s->bmx, s->bmxl)) {
			c->cmx.len = 0;
			if (tio_buf_add(&c->cmx, s->bmx, s->bmxl))
				return false;
			t->bmx = c->cmx.p ? c->cmx.p : "";
			t->bmxl = s->bmxl;
		}
		t->has = true;
		return true;
	default:
		if (!t->has) {
			t->has = true;
			t->mn = s->mn;
			t->mx = s->mx;
		} else if (c->unsigned_order) {
			t->mn.u = s->mn.u < t->mn.u ? s->mn.u : t->mn.u;
			t->mx.u = s->mx.u > t->mx.u ? s->mx.u : t->mx.u;
		} else {
			t->mn.i = s->mn.i < t->mn.i ? s->mn.i : t->mn.i;
			t->mx.i = s->mx.i > t->mx.i ? s->mx.i : t->mx.i;
		}
	}
	return true;
}

/*
 * The bounds of s as the statistics write them (a and b: room for a
 * number's bytes); false when there are none (no values, only NaN, strings
 * of more than 256 bytes).
 */
static bool stat_bounds(const pq_col *c, const pq_stats *s, char a[8], char b[8], const char **mn,
			uint32_t *mnl, const char **mx, uint32_t *mxl)
{
	*mn = *mx = NULL;
	*mnl = *mxl = 0;
	if (!s->has)
		return false;
	switch (c->phys) {
	case PQ_BOOLEAN:
		a[0] = (char)s->mn.u;
		b[0] = (char)s->mx.u;
		*mn = a, *mx = b, *mnl = *mxl = 1;
		break;
	case PQ_INT32: {
		int32_t x = (int32_t)s->mn.i, y = (int32_t)s->mx.i;
		memcpy(a, &x, 4);
		memcpy(b, &y, 4);
		*mn = a, *mx = b, *mnl = *mxl = 4;
		break;
	}
	case PQ_INT64:
		memcpy(a, &s->mn.i, 8);
		memcpy(b, &s->mx.i, 8);
		*mn = a, *mx = b, *mnl = *mxl = 8;
		break;
	case PQ_FLOAT: {
		float x = (float)s->mn.d, y = (float)s->mx.d;
		memcpy(a, &x, 4);
		memcpy(b, &y, 4);
		*mn = a, *mx = b, *mnl = *mxl = 4;
		break;
	}
	case PQ_DOUBLE:
		memcpy(a, &s->mn.d, 8);
		memcpy(b, &s->mx.d, 8);
		*mn = a, *mx = b, *mnl = *mxl = 8;
		break;
	case PQ_BYTE_ARRAY:
		*mn = s->bmn, *mx = s->bmx, *mnl = s->bmnl, *mxl = s->bmxl;
		/* long strings: no bounds (readers need none to read; pruning on them is rare) */
		if (*mnl > 256 || *mxl > 256)
			*mn = *mx = NULL;
		break;
	case PQ_FLBA:
		*mn = s->bmn, *mx = s->bmx, *mnl = s->bmnl, *mxl = s->bmxl;
		break;
	}
	return *mn && *mx;
}

/* Statistics struct (field `id` of the enclosing struct). */
static void write_stats(tw *w, int16_t id, const pq_col *c, const pq_stats *s)
{
	tw_begin(w, id);
	tw_i64(w, 3, (int64_t)s->nnull);
	char a[8], b[8];
	const char *mn = NULL, *mx = NULL;
	uint32_t mnl = 0, mxl = 0;
	if (stat_bounds(c, s, a, b, &mn, &mnl, &mx, &mxl)) {
		tw_bin(w, 5, mx, mxl);
		tw_bin(w, 6, mn, mnl);
		tw_bool(w, 7, true);
		tw_bool(w, 8, true);
	}
	if (c->phys == PQ_FLOAT || c->phys == PQ_DOUBLE)
		tw_i64(w, 9, (int64_t)s->nnan);
	tw_end(w);
}

/* ---------------------------------------------------------------- the page index */

/*
 * A data page's part of its chunk's page index.  encode_page writes the
 * page's bounds (struct ix_page, then min and max) into a buffer that goes
 * with the page; finish_page adds where the page is in the chunk (struct
 * ix_ent, then the bounds) to the column's pix; write_chunk moves the
 * column's entries into the file's records (struct ix_rec, then the
 * entries), from which pq_close writes a ColumnIndex and an OffsetIndex
 * per chunk between the last row group and the footer.
 */
enum { IX_NULL, IX_BOUNDS, IX_NONE }; /* only nulls; bounds; values without bounds */

struct ix_page {
	uint64_t nnull;
	uint32_t mnl, mxl;
	uint8_t kind; /* IX_* */
	uint8_t pad[7];
};

struct ix_ent {
	uint64_t off;  /* of the page header, from the chunk's first data page */
	uint64_t row0; /* the page's first row in the row group */
	uint32_t size; /* header and (compressed) body */
	uint32_t pad;
	struct ix_page pg;
};

/* BoundaryOrder */
enum { IX_UNORDERED, IX_ASCENDING, IX_DESCENDING };

struct ix_rec {
	uint64_t data_off; /* the chunk's first data page in the file (pq_append moves it) */
	uint64_t nbytes;   /* of its entries */
	uint32_t npages;
	uint8_t ci;	  /* a ColumnIndex is written (every page has bounds or only nulls) */
	uint8_t boundary; /* IX_UNORDERED... */
	uint8_t pad[2];
};

/* The page's bounds (st) into ix; `values`: the page holds values that are not null. */
static void page_ix(const pq_col *c, const pq_stats *st, bool values, tio_buf *ix)
{
	char a[8], b[8];
	const char *mn = NULL, *mx = NULL;
	uint32_t mnl = 0, mxl = 0;
	bool has = values && stat_bounds(c, st, a, b, &mn, &mnl, &mx, &mxl);
	struct ix_page h = {.nnull = st->nnull, .kind = !values ? IX_NULL : has ? IX_BOUNDS : IX_NONE};
	if (has) {
		h.mnl = mnl;
		h.mxl = mxl;
	}
	ix->len = 0;
	tio_buf_add(ix, &h, sizeof(h));
	if (has) {
		tio_buf_add(ix, mn, mnl);
		tio_buf_add(ix, mx, mxl);
	}
}

/* A bound of an INT32/INT64 column as a number (compared as signed; unsigned ones flipped). */
static int64_t ix_int(const pq_col *c, const char *p)
{
	int64_t v;
	if (c->phys == PQ_INT32) {
		int32_t x;
		memcpy(&x, p, 4);
		v = c->unsigned_order ? (int64_t)(uint32_t)x : x;
	} else {
		memcpy(&v, p, 8);
		if (c->unsigned_order)
			v = (int64_t)((uint64_t)v ^ (1ull << 63));
	}
	return v;
}

/*
 * Column c's page entries as the file's next record (write_chunk, its
 * data pages at data_off): whether a ColumnIndex can be written, and the
 * order of the pages' bounds (integers only; others UNORDERED).
 */
static void ix_record(pq_file *f, pq_col *c, uint64_t data_off)
{
	struct ix_rec h = {.data_off = data_off, .nbytes = c->pix.len, .ci = 1};
	bool ints = c->phys == PQ_INT32 || c->phys == PQ_INT64, up = ints, down = ints;
	int64_t pmn = 0, pmx = 0;
	for (size_t at = 0; at + sizeof(struct ix_ent) <= c->pix.len; h.npages++) {
		struct ix_ent e;
		memcpy(&e, c->pix.p + at, sizeof(e));
		const char *b = c->pix.p + at + sizeof(e);
		if (e.pg.kind == IX_NONE)
			h.ci = 0;
		if (e.pg.kind != IX_BOUNDS) {
			up = down = false;
		} else if (ints) {
			int64_t mn = ix_int(c, b), mx = ix_int(c, b + e.pg.mnl);
			if (h.npages && (mn < pmn || mx < pmx))
				up = false;
			if (h.npages && (mn > pmn || mx > pmx))
				down = false;
			pmn = mn;
			pmx = mx;
		}
		at += sizeof(e) + e.pg.mnl + e.pg.mxl;
	}
	h.boundary = up ? IX_ASCENDING : down ? IX_DESCENDING : IX_UNORDERED;
	tio_buf_add(&f->pix, &h, sizeof(h));
	tio_buf_add(&f->pix, c->pix.p, c->pix.len);
	if (!f->pix.p)
		f->oom = true;
	c->pix.len = 0;
}

static int write_all(int fd, const void *p, size_t n);

/*
 * Append the n pieces of `v` to a side file of f, `*name` (<path><suffix>,
 * made on first use; truncated when nothing is in it yet, `*held` 0); their
 * bytes are added to *held.  Opened for each append: thousands of files may
 * be open at once.
 */
static int side_append(pq_file *f, char **name, const char *suffix, uint64_t *held, const struct iovec *v,
		       int n)
{
	if (!*name && !(*name = tio_asprintf("%s%s", f->path, suffix)))
		return TIO_ERR_NOMEM;
	int fd = open(*name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (*held ? 0 : O_TRUNC), 0600);
	if (fd < 0)
		return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", *name, strerror(errno));
	bool ok = true;
	uint64_t bytes = 0;
	for (int k = 0; k < n && ok; k++) {
		ok = !write_all(fd, v[k].iov_base, v[k].iov_len);
		bytes += v[k].iov_len;
	}
	if (close(fd) || !ok)
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", *name, strerror(errno));
	*held += bytes;
	return 0;
}

/* Move the page index records to the side file once they hold PQ_RGS_SPILL bytes. */
static int ix_spill(pq_file *f)
{
	if (f->oom)
		return tio_err_set(TIO_ERR_NOMEM, "%s: out of memory", f->path);
	if (f->pix.len < PQ_RGS_SPILL)
		return 0;
	int r = side_append(f, &f->pix_spill, ".pageindex", &f->pix_spilled,
			    &(struct iovec){f->pix.p, f->pix.len}, 1);
	if (!r)
		f->pix.len = 0;
	return r;
}

/* Reading a file's page index records in order: the side file's, then those in memory. */
typedef struct ix_iter {
	const pq_file *f;
	int fd;
	uint64_t pos; /* in the side file, then past its end into f->pix */
	tio_buf rec;  /* the record read (side file) */
} ix_iter;

static void ix_open(ix_iter *it, const pq_file *f)
{
	memset(it, 0, sizeof(*it));
	it->f = f;
	it->fd = -1;
}

static void ix_close(ix_iter *it)
{
	if (it->fd >= 0)
		close(it->fd);
	tio_buf_free(&it->rec);
}

/* The next record (h, its entries e); 1: one, 0: no more, < 0: an error (set). */
static int ix_next(ix_iter *it, struct ix_rec *h, const char **e)
{
	const pq_file *f = it->f;
	if (it->pos < f->pix_spilled) {
		if (it->fd < 0 && (it->fd = open(f->pix_spill, O_RDONLY | O_CLOEXEC)) < 0)
			return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", f->pix_spill, strerror(errno));
		uint64_t left = f->pix_spilled - it->pos;
		if (left < sizeof(*h) || pread(it->fd, h, sizeof(*h), (off_t)it->pos) != (ssize_t)sizeof(*h) ||
		    h->nbytes > left - sizeof(*h))
			return tio_err_set(TIO_ERR_IO, "%s: shorter than written (at byte %" PRIu64 ")",
					   f->pix_spill, it->pos);
		it->rec.len = 0;
		if (tio_buf_reserve(&it->rec, (size_t)h->nbytes + 1))
			return tio_err_oom();
		if (pread(it->fd, it->rec.p, (size_t)h->nbytes, (off_t)(it->pos + sizeof(*h))) !=
		    (ssize_t)h->nbytes)
			return tio_err_set(TIO_ERR_IO, "%s: read error at byte %" PRIu64, f->pix_spill, it->pos);
		*e = it->rec.p;
		it->pos += sizeof(*h) + h->nbytes;
		return 1;
	}
	uint64_t at = it->pos - f->pix_spilled;
	if (at + sizeof(*h) > f->pix.len)
		return 0;
	memcpy(h, f->pix.p + at, sizeof(*h));
	if (h->nbytes > f->pix.len - at - sizeof(*h))
		return tio_err_set(TIO_ERR_IO, "%s: page index records out of order", f->path);
	*e = f->pix.p + at + sizeof(*h);
	it->pos += sizeof(*h) + h->nbytes;
	return 1;
}

/* A record's ColumnIndex into b. */
static void ix_column_index(tio_buf *b, const struct ix_rec *h, const char *e)
{
	tw w = {.b = b};
	const char *p;
	size_t at;
	struct ix_ent x;
	tw_list(&w, 1, T_TRUE, h->npages); /* null_pages */
	for (at = 0; at < h->nbytes; at += sizeof(x) + x.pg.mnl + x.pg.mxl) {
		memcpy(&x, e + at, sizeof(x));
		tio_buf_addc(b, x.pg.kind == IX_NULL ? 1 : 2);
	}
	for (int k = 0; k < 2; k++) { /* min_values, max_values (empty for a page of nulls) */
		tw_list(&w, (int16_t)(2 + k), T_BINARY, h->npages);
		for (at = 0; at < h->nbytes; at += sizeof(x) + x.pg.mnl + x.pg.mxl) {
			memcpy(&x, e + at, sizeof(x));
			p = e + at + sizeof(x);
			varint(b, k ? x.pg.mxl : x.pg.mnl);
			tio_buf_add(b, k ? p + x.pg.mnl : p, k ? x.pg.mxl : x.pg.mnl);
		}
	}
	tw_i32(&w, 4, h->boundary);
	tw_list(&w, 5, T_I64, h->npages); /* null_counts */
	for (at = 0; at < h->nbytes; at += sizeof(x) + x.pg.mnl + x.pg.mxl) {
		memcpy(&x, e + at, sizeof(x));
		varint(b, zigzag((int64_t)x.pg.nnull));
	}
	tio_buf_addc(b, 0);
}

/* A record's OffsetIndex into b. */
static void ix_offset_index(tio_buf *b, const struct ix_rec *h, const char *e)
{
	tw w = {.b = b};
	struct ix_ent x;
	tw_list(&w, 1, T_STRUCT, h->npages); /* page_locations */
	for (size_t at = 0; at < h->nbytes; at += sizeof(x) + x.pg.mnl + x.pg.mxl) {
		memcpy(&x, e + at, sizeof(x));
		tw_begin(&w, 0);
		tw_i64(&w, 1, (int64_t)(h->data_off + x.off));
		tw_i32(&w, 2, (int32_t)x.size);
		tw_i64(&w, 3, (int64_t)x.row0);
		tw_end(&w);
	}
	tio_buf_addc(b, 0);
}

/* ---------------------------------------------------------------- pages and chunks */

/*
 * Compress a page body and append the page (header: type, sizes, then
 * `tail`; body) to the column chunk.  Runs in the worker thread or inline:
 * errors go to `msg`, never to the thread's error chain.
 */
static int finish_page(pq_col *c, const tio_buf *body, const tio_buf *tail, const tio_buf *ix,
		       uint64_t row0, int type, void *zctx, tio_buf *cbuf, tio_buf *hdr, char *msg,
		       size_t msz)
{
	const pq_file *f = c->file;
	const char *p = body->p ? body->p : "";
	size_t n = body->len;
	if (f->codec != PQ_UNCOMPRESSED && body->len && c->c_codec != PQ_Z_STORED) {
		size_t bound = f->codec == PQ_ZSTD ? ZSTD_compressBound(body->len)
						   : pq_snappy() ? 0 : snappy.max_len(body->len);
		if (f->codec == PQ_SNAPPY && pq_snappy()) {
			snprintf(msg, msz, "%s", pq_snappy());
			return TIO_ERR_UNSUPPORTED;
		}
		cbuf->len = 0;
		if (tio_buf_reserve(cbuf, bound)) {
			snprintf(msg, msz, "out of memory compressing a page");
			return TIO_ERR_NOMEM;
		}
		if (f->codec == PQ_ZSTD) {
			size_t r = ZSTD_compressCCtx(zctx, cbuf->p, bound, body->p, body->len,
						     f->level);
			if (ZSTD_isError(r)) {
				snprintf(msg, msz, "zstd: %s", ZSTD_getErrorName(r));
				return TIO_ERR_IO;
			}
			cbuf->len = r;
		} else {
			size_t outlen = bound;
			if (snappy.compress(body->p, body->len, cbuf->p, &outlen) != SNAPPY_OK) {
				snprintf(msg, msz, "snappy compression failed");
				return TIO_ERR_IO;
			}
			cbuf->len = outlen;
		}
		if (c->c_codec == PQ_Z_UNDECIDED) /* the chunk's first page: is the codec worth it? */
			c->c_codec = cbuf->len > body->len - body->len / 16 ? PQ_Z_STORED : PQ_Z_CODEC;
		if (c->c_codec == PQ_Z_CODEC) {
			p = cbuf->p;
			n = cbuf->len;
		}
	}
	if (body->len > INT32_MAX || n > INT32_MAX) {
		snprintf(msg, msz, "a page of more than 2 GiB");
		return TIO_ERR_LIMIT;
	}
	hdr->len = 0;
	tw w = {.b = hdr};
	tw_i32(&w, 1, type);
	tw_i32(&w, 2, (int32_t)body->len);
	tw_i32(&w, 3, (int32_t)n);
	tio_buf_add(hdr, tail->p, tail->len);
	size_t before = chunk_cap(c);
	/* a data page's entry of the page index: where it is, its first row, its bounds (encode_page) */
	struct ix_ent e = {.off = chunk_len(c), .row0 = row0, .size = (uint32_t)(hdr->len + n)};
	bool indexed = type == 0 && ix;
	if (indexed && (!ix->p || ix->len < sizeof(e.pg))) {
		snprintf(msg, msz, "out of memory buffering a page index");
		return TIO_ERR_NOMEM;
	}
	if (indexed)
		memcpy(&e.pg, ix->p, sizeof(e.pg));
	if (!hdr->p || chunk_add(c, hdr->p, hdr->len) || chunk_add(c, p, n) ||
	    (indexed && (tio_buf_add(&c->pix, &e, sizeof(e)) ||
			 tio_buf_add(&c->pix, ix->p + sizeof(e.pg), ix->len - sizeof(e.pg))))) {
		snprintf(msg, msz, "out of memory buffering a column chunk");
		return TIO_ERR_NOMEM;
	}
	atomic_fetch_add(&c->file->chunk_cap, chunk_cap(c) - before);
	c->c_usize += hdr->len + body->len;
	c->c_csize += hdr->len + n;
	return 0;
}

/*
 * One block of a page's integers for DELTA_BINARY_PACKED, and their bounds,
 * in one pass over the page: x[0..m) the block's values (x[-1] the value
 * before it), d[j] = x[j] - x[j-1] wrapped to the type.  b[]: running
 * state, updated: b[0]/b[1] the smallest/largest delta (signed), b[2] the
 * deltas' overflow bits (negative when one overflowed the type), b[3]/b[4]
 * the smallest/largest value XOR `flip` (the type's minimum for unsigned
 * statistics: compared as signed, that orders them as unsigned).  Built
 * twice like the bounds.
 */
#define DELTA_BLOCK(NAME, T, U)                                                                    \
	TWICE(NAME, (const T *x, size_t m, U *d, T *b, T flip), (x, m, d, b, flip), {              \
		T dlo = b[0], dhi = b[1], of = b[2], lo = b[3], hi = b[4];                         \
		const T *xp = x - 1;                                                               \
		for (size_t j = 0; j < m; j++) {                                                   \
			T a = x[j], p = xp[j];                                                     \
			U dd = (U)a - (U)p;                                                        \
			T s = (T)dd, o = (T)(a ^ flip);                                            \
			of |= (a ^ p) & (a ^ s);                                                   \
			dlo = s < dlo ? s : dlo;                                                   \
			dhi = s > dhi ? s : dhi;                                                   \
			lo = o < lo ? o : lo;                                                      \
			hi = o > hi ? o : hi;                                                      \
			d[j] = dd;                                                                 \
		}                                                                                  \
		b[0] = dlo, b[1] = dhi, b[2] = of, b[3] = lo, b[4] = hi;                           \
	})
DELTA_BLOCK(delta_block32, int32_t, uint32_t)
DELTA_BLOCK(delta_block64, int64_t, uint64_t)

/*
 * Do the n values of type T at x all equal x[0]?  (Most pages of a class's
 * type, flags and syscall number columns do.)  Looked at 64 at a time: a
 * page that is not ends the scan soon.  Built twice like the bounds.
 */
#define ALL_SAME(NAME, T)                                                                          \
	TWICE(NAME, (const T *x, size_t n, bool *same), (x, n, same), {                            \
		T x0 = x[0];                                                                       \
		*same = false;                                                                     \
		for (size_t k = 0; k < n; k += 64) {                                               \
			size_t e = n - k < 64 ? n : k + 64;                                        \
			T acc = 0;                                                                 \
			for (size_t j = k; j < e; j++)                                             \
				acc |= x[j] ^ x0;                                                  \
			if (acc)                                                                   \
				return;                                                            \
		}                                                                                  \
		*same = true;                                                                      \
	})
ALL_SAME(all_same32, int32_t)
ALL_SAME(all_same64, int64_t)

/*
 * Bit-pack 32 values of e[] (each below 2^w, w <= 56) at q, little-endian bit
 * order; q past them.  Values are joined 4 at a time when 4w <= 56 and 2 at a
 * time when 2w <= 56 (at most 7 bits are left over in the word, so 56 more fit),
 * then stored as one: the same bits in fewer steps.
 */
#define PACK32(q, e, w)                                                                            \
	do {                                                                                       \
		uint64_t acc_ = 0;                                                                 \
		unsigned nb_ = 0, w_ = (w);                                                        \
		if (w_ <= 14) {                                                                    \
			for (unsigned j_ = 0; j_ < 32; j_ += 4) {                                  \
				uint64_t g_ = (uint64_t)(e)[j_] | (uint64_t)(e)[j_ + 1] << w_ |    \
					      (uint64_t)(e)[j_ + 2] << 2 * w_ |                    \
					      (uint64_t)(e)[j_ + 3] << 3 * w_;                     \
				PACK_PUT(q, acc_, nb_, g_, 4 * w_);                                \
			}                                                                          \
		} else if (w_ <= 28) {                                                             \
			for (unsigned j_ = 0; j_ < 32; j_ += 2) {                                  \
				uint64_t g_ = (uint64_t)(e)[j_] | (uint64_t)(e)[j_ + 1] << w_;     \
				PACK_PUT(q, acc_, nb_, g_, 2 * w_);                                \
			}                                                                          \
		} else {                                                                           \
			for (unsigned j_ = 0; j_ < 32; j_++)                                       \
				PACK_PUT(q, acc_, nb_, (uint64_t)(e)[j_], w_);                     \
		}                                                                                  \
	} while (0)
/* Append the n bits of g (n <= 56) to the nb bits (< 8) in acc; the whole bytes stored at q. */
#define PACK_PUT(q, acc, nb, g, n)                                                                 \
	do {                                                                                       \
		(acc) |= (g) << (nb);                                                              \
		(nb) += (n);                                                                       \
		memcpy((q), &(acc), 8);                                                            \
		(q) += (nb) >> 3;                                                                  \
		(acc) >>= (nb) & ~7u;                                                              \
		(nb) &= 7;                                                                         \
	} while (0)

/*
 * delta_packed's last step for W-bit values: the page's bounds into st, those of
 * the values an abandoned encoding did not reach (from `done` on) added first.
 */
#define PAGE_BOUNDS(W, b, f)                                                                       \
	do {                                                                                       \
		if (done < n) {                                                                    \
			int##W##_t lo, hi;                                                         \
			if (uns) {                                                                 \
				uint##W##_t ulo, uhi;                                              \
				bounds_u##W(vals->p + W / 8 * done, n - done, &ulo, &uhi);         \
				lo = (int##W##_t)ulo ^ (f), hi = (int##W##_t)uhi ^ (f);            \
			} else {                                                                   \
				bounds_i##W(vals->p + W / 8 * done, n - done, &lo, &hi);           \
			}                                                                          \
			(b)[3] = lo < (b)[3] ? lo : (b)[3];                                        \
			(b)[4] = hi > (b)[4] ? hi : (b)[4];                                        \
		}                                                                                  \
		if (uns)                                                                           \
			st->mn.u = (uint##W##_t)((b)[3] ^ (f)), st->mx.u = (uint##W##_t)((b)[4] ^ (f)); \
		else                                                                               \
			st->mn.i = (b)[3], st->mx.i = (b)[4];                                      \
	} while (0)

/*
 * The DELTA_BINARY_PACKED encoding (Encodings.md) of a page's integers
 * (INT32 when `i32`, else INT64), appended to `out`: a header (blocks of
 * 128 values, 4 miniblocks of 32, the count, the first value), then per
 * block the smallest delta and each miniblock's deltas above it, bit-packed
 * at the miniblock's width.  Used only when it is at most 3/4 of the PLAIN
 * size and no delta overflows the type (readers that add in 64 bits and
 * those that wrap then agree): false (and `out` as it was) otherwise.
 * Either way the page's bounds are set in `st` (unsigned order when `uns`),
 * found in the same pass over the values.
 */
static bool delta_packed(tio_buf *out, const pq_buf *vals, uint32_t run, bool i32, bool uns, pq_stats *st)
{
	size_t n = vals->len / (i32 ? 4 : 8) + run, at = out->len, done = 1, plain = n * (i32 ? 4 : 8);
	if (!n)
		return false;
	int64_t first = i32 ? (int64_t)(int32_t)tio_le32(vals->p) : (int64_t)tio_le64(vals->p);
	int32_t b32[5], f32 = uns ? INT32_MIN : 0;
	int64_t b64[5], f64 = uns ? INT64_MIN : 0;
	b32[3] = b32[4] = (int32_t)first ^ f32;
	b64[3] = b64[4] = first ^ f64;
	varint(out, 128);
	varint(out, 4);
	varint(out, n);
	varint(out, zigzag(first));
	bool ok = out->p != NULL, same = run; /* a run: one value stored (page_cut) */
	if (!same && i32)
		all_same32((const int32_t *)(const void *)vals->p, n, &same);
	else if (!same)
		all_same64((const int64_t *)(const void *)vals->p, n, &same);
	if (same) { /* every block: its smallest delta 0, 4 widths 0 (what the loop below writes) */
		done = n;
		for (size_t k = 1; ok && k < n; k += 128) {
			if (tio_buf_reserve(out, 5)) {
				ok = false;
				break;
			}
			memset(out->p + out->len, 0, 5);
			out->len += 5;
		}
	}
	uint64_t d[128];
	uint32_t d32[128];
	for (size_t k = 1; ok && !same && k < n; k += 128) {
		size_t m = n - k < 128 ? n - k : 128;
		int64_t mn, mx, of;
		if (i32) {
			b32[0] = INT32_MAX, b32[1] = INT32_MIN, b32[2] = 0;
			delta_block32((const int32_t *)(const void *)vals->p + k, m, d32, b32, f32);
			mn = b32[0], mx = b32[1], of = b32[2];
		} else {
			b64[0] = INT64_MAX, b64[1] = INT64_MIN, b64[2] = 0;
			delta_block64((const int64_t *)(const void *)vals->p + k, m, d, b64, f64);
			mn = b64[0], mx = b64[1], of = b64[2];
		}
		done = k + m;
		int64_t span;
		/* room for the block: its minimum, 4 widths, 4 x 32 values of 64 bits, 8 bytes past the end */
		if (of < 0 || __builtin_sub_overflow(mx, mn, &span) || tio_buf_reserve(out, 10 + 4 + 1024 + 8)) {
			ok = false;
			break;
		}
		varint(out, zigzag(mn));
		uint8_t *bw = (uint8_t *)out->p + out->len, *q = bw + 4;
		memset(bw, 0, 4);
		for (unsigned c = 0; c < 4 && 32 * c < m; c++) {
			size_t cnt = m - 32 * c < 32 ? m - 32 * c : 32;
			unsigned w;
			if (i32) {
				uint32_t o = 0, u = (uint32_t)mn, *e = d32 + 32 * c;
				for (size_t j = 0; j < cnt; j++)
					o |= e[j] -= u;
				for (size_t j = cnt; j < 32; j++)
					e[j] = 0; /* the last miniblock's padding */
				w = bit_width(o);
				if (w)
					PACK32(q, e, w);
			} else {
				uint64_t o = 0, u = (uint64_t)mn, *e = d + 32 * c;
				for (size_t j = 0; j < cnt; j++)
					o |= e[j] -= u;
				for (size_t j = cnt; j < 32; j++)
					e[j] = 0;
				w = bit_width(o);
				if (w && w <= 56) {
					/* up to 7 bits left over + 56 fit in 64: the whole word is
					   stored each time and the bytes completed are kept (the
					   reserve above leaves room for the 8 bytes past the end) */
					PACK32(q, e, w);
				} else if (w) {
					unsigned __int128 acc = 0;
					unsigned nb = 0;
					for (unsigned j = 0; j < 32; j++) {
						acc |= (unsigned __int128)e[j] << nb;
						nb += w;
						while (nb >= 8) {
							*q++ = (uint8_t)acc;
							acc >>= 8;
							nb -= 8;
						}
					}
				}
			}
			bw[c] = (uint8_t)w;
		}
		out->len = (size_t)((char *)q - out->p);
		if (out->len - at > plain * 3 / 4)
			ok = false;
	}
	if (i32)
		PAGE_BOUNDS(32, b32, f32);
	else
		PAGE_BOUNDS(64, b64, f64);
	st->has = true;
	if (ok && out->len - at <= plain * 3 / 4)
		return true;
	out->len = at;
	return false;
}

/*
 * A sort key's page (its values, `nnull` nulls; a run after them repeats the
 * last): still in ascending order after the pages before it?  (Signed or
 * unsigned as the column's statistics compare.)
 */
static void sort_page(pq_col *c, const pq_buf *vals, uint32_t nnull)
{
	bool i32 = c->phys == PQ_INT32;
	size_t n = vals->len / (i32 ? 4 : 8);
	if (nnull || (!i32 && c->phys != PQ_INT64)) {
		c->unsorted = true;
		return;
	}
	if (!n)
		return;
	/* compared as signed with the sign bit flipped when the order is unsigned */
	int64_t flip = c->unsigned_order ? (i32 ? INT32_MIN : INT64_MIN) : 0, first, last;
	bool down = false;
	if (i32) {
		const int32_t *v = (const int32_t *)(const void *)vals->p;
		for (size_t i = 1; i < n; i++)
			down |= (v[i] ^ (int32_t)flip) < (v[i - 1] ^ (int32_t)flip);
		first = v[0] ^ (int32_t)flip;
		last = v[n - 1] ^ (int32_t)flip;
	} else {
		const int64_t *v = (const int64_t *)(const void *)vals->p;
		for (size_t i = 1; i < n; i++)
			down |= (v[i] ^ flip) < (v[i - 1] ^ flip);
		first = v[0] ^ flip;
		last = v[n - 1] ^ flip;
	}
	if (down || (c->sort_any && first < c->sort_last))
		c->unsorted = true;
	c->sort_last = last;
	c->sort_any = true;
}

/*
 * Encode a page: bounds, the body (levels then values: dictionary indices,
 * bit-packed booleans or PLAIN values) into `out`, the end of its header
 * (after compressed_page_size: data_page_header, stop) into `tail`; the
 * bounds are added to the chunk's.  Runs in the worker for PLAIN pages
 * (never `dict`: the dictionary belongs to the writer).  False when out of
 * memory.
 */
static bool encode_page(pq_col *c, bool dict, const pq_buf *vals, uint32_t run, const pq_buf *idx,
			const pq_buf *defs, const pq_buf *reps, uint32_t nlead, uint32_t nlevels,
			uint32_t nnull, uint32_t stamp, tio_buf *out, tio_buf *tail, tio_buf *ix)
{
	pq_stats st;
	bool ints = !dict && (c->phys == PQ_INT32 || c->phys == PQ_INT64) && vals->len;
	if (ints && !c->delta_skip) { /* bounds found while trying DELTA_BINARY_PACKED */
		memset(&st, 0, sizeof(st));
		st.nnull = nnull;
	} else {
		page_stats(c, dict, vals, idx, nnull, stamp, &st);
	}
	bool delta = false;
	out->len = 0;
	if (c->max_rep)
		levels(out, 0, reps, c->max_rep);
	if (c->max_def)
		levels(out, nlead, defs, c->max_def);
	if (dict) {
		unsigned bw = bit_width(c->ndict - 1);
		if (!bw)
			bw = 1;
		tio_buf_addc(out, (char)bw);
		rle_hybrid(out, NULL, (const uint32_t *)idx->p, idx->len / 4, bw);
	} else if (c->phys == PQ_BOOLEAN) {
		const uint8_t *v = (const uint8_t *)vals->p;
		for (size_t k = 0; k < vals->len; k += 8) {
			uint8_t byte = 0;
			for (size_t i = 0; i < 8 && k + i < vals->len; i++)
				byte |= (uint8_t)((v[k + i] & 1) << i);
			tio_buf_addc(out, (char)byte);
		}
	} else if (ints && !c->delta_skip &&
		   delta_packed(out, vals, run, c->phys == PQ_INT32, c->unsigned_order, &st)) {
		delta = true;
	} else if (run) {
		return false; /* out of memory: a run needs DELTA_BINARY_PACKED */
	} else if (vals->len) {
		if (ints)
			c->delta_skip = c->delta_skip ? c->delta_skip - 1 : 15;
		tio_buf_add(out, vals->p, vals->len);
	}
	if (delta)
		c->c_delta_pages++;
	if (c->sort_key && !c->unsorted)
		sort_page(c, vals, nnull);
	tail->len = 0;
	tw w = {.b = tail};
	w.last[0] = 3;
	tw_begin(&w, 5);
	tw_i32(&w, 1, (int32_t)nlevels);
	tw_i32(&w, 2, dict ? 8 : delta ? 5 : 0); /* RLE_DICTIONARY, DELTA_BINARY_PACKED or PLAIN */
	tw_i32(&w, 3, 3);	     /* RLE */
	tw_i32(&w, 4, 3);
	write_stats(&w, 5, c, &st);
	tw_end(&w);
	tio_buf_addc(tail, 0);
	page_ix(c, &st, vals->len || (dict && idx->len), ix);
	return chunk_stats(c, &st) && out->p && tail->p && ix->p;
}

/* Swap two page buffers (a column's and a worker slot's). */
static void buf_swap(pq_buf *a, pq_buf *b)
{
	pq_buf t = *a;
	*a = *b;
	*b = t;
}

/*
 * Cut column c's page.  With a worker, a PLAIN page's buffers go to a slot
 * as they are (the column takes the slot's empty ones) and the worker
 * encodes and compresses it; a dictionary page is encoded here (the
 * dictionary changes as values come) and compressed there.  Without a
 * worker, both are done here.
 */
static void page_cut(pq_file *f, pq_col *c)
{
	/* a run stays out of the page's buffer only after a single value, when the page will be
	   DELTA_BINARY_PACKED for sure (many values; the column not skipping it); stored, it must
	   not mark the column due again (pq_more) while the page is being cut */
	size_t w = c->phys == PQ_INT32 ? 4 : 8;
	bool one = c->run && c->vals.len == w;
	if (c->run && (!one || c->run < 64 || c->delta_skip)) {
		c->due = true;
		pq_unrun(c);
	}
	c->due = false;
	/* the next page in runs when this one was a single value, or (a probe) began and ended with
	   the same value; only pq_i32_req/pq_i64_req look at it */
	if ((c->phys == PQ_INT32 || c->phys == PQ_INT64) && !c->max_def && !c->max_rep && c->vals.len >= w)
		c->runs = one || (!c->runs && !memcmp(c->vals.p, c->vals.p + c->vals.len - w, w));
	if (!c->nlevels)
		return;
	f->pages++;
	uint64_t row0 = c->row0;
	bool dict = c->dict && c->idx.len; /* without values: a PLAIN page, no dictionary needed */
	c->c_levels += c->nlevels;
	c->c_pages++;
	if (dict)
		c->c_dict_pages++;
	/* a chunk whose first page is dictionary-encoded, with a dictionary of 1 KiB or more by
	   then, is compressed whatever that page gives: its dictionary page, written last, holds the
	   strings (ids of a few bits each may not shrink by 1/16 where the text shrinks tenfold); a
	   few names are left to the trial (zstd would add bytes to them).  Only at the first page:
	   no page of the chunk is then with the worker, which sets c_codec after its trial */
	if (dict && c->c_pages == 1 && c->dbytes.len >= DICT_ZIP)
		c->c_codec = PQ_Z_CODEC;
	const size_t held[4] = {c->vals.len, c->idx.len, c->defs.len, c->reps.len};
	for (int b = 0; b < 4; b++)
		if (held[b] > c->hw[b])
			c->hw[b] = held[b];
	pq_shared *sh = f->sh;
	/* a small page (the last of a row group, or row groups of a few rows)
	   is done here when none of its column is in flight: handing it over
	   costs more than compressing it */
	bool small = held[0] + held[1] + held[2] + held[3] < PQ_INLINE &&
		     !__atomic_load_n(&c->inflight, __ATOMIC_ACQUIRE);
	pq_job *j = sh->w && !small ? worker_slot(sh->w, c) : NULL;
	if (j && !c->dict && !c->run) {
		buf_swap(&j->vals, &c->vals);
		buf_swap(&j->defs, &c->defs);
		buf_swap(&j->reps, &c->reps);
		j->nlead = c->nlead;
		j->nlevels = c->nlevels;
		j->nnull = c->nnull;
		j->type = f->oom ? JOB_NONE : JOB_RAW;
	} else {
		tio_buf *out = j ? &j->body : &sh->out, *tail = j ? &j->tail : &sh->tail,
			*ix = j ? &j->ix : &sh->ix;
		if (!encode_page(c, dict, &c->vals, c->run, &c->idx, &c->defs, &c->reps, c->nlead,
				 c->nlevels, c->nnull, f->pages, out, tail, ix))
			f->oom = true;
		if (j) {
			j->type = f->oom ? JOB_NONE : JOB_ENCODED;
		} else if (!f->oom) {
			char msg[256];
			int r = finish_page(c, out, tail, ix, row0, 0, sh->zctx, &sh->cbuf,
					    &sh->hdr, msg, sizeof(msg));
			if (sh->w) /* the worker may be setting it too */
				pthread_mutex_lock(&sh->w->mu);
			if (r && !f->err) {
				f->err = r;
				snprintf(f->errmsg, sizeof(f->errmsg), "%s", msg);
			}
			if (sh->w)
				pthread_mutex_unlock(&sh->w->mu);
		}
	}
	c->vals.len = c->idx.len = c->defs.len = c->reps.len = 0;
	c->run = c->run_lim = 0;
	c->last_end = PQ_NO_LAST;
	buf_limit(&c->vals, f->page_size);
	buf_limit(&c->idx, f->page_size);
	buf_limit(&c->defs, f->page_size);
	buf_limit(&c->reps, f->page_size);
	c->nlead = c->nlevels = c->nnull = 0;
	c->row0 = f->rows; /* pages are cut at the end of a row: the next starts at the next row */
	if (j) {
		j->c = c;
		j->row0 = row0;
		__atomic_add_fetch(&c->inflight, 1, __ATOMIC_RELAXED);
		worker_submit(sh->w);
	}
}

/* Cut the pages of the columns marked due (the end of a row). */
void pq_pages(pq_file *f)
{
	for (uint32_t k = 0; k < f->ndue; k++)
		page_cut(f, &f->cols[f->due[k]]);
	f->ndue = 0;
}

/* Write column c's chunk: its dictionary page, its data pages; its ColumnChunk into `rg`. */
static int write_chunk(pq_file *f, FILE *o, pq_col *c, tw *rg)
{
	uint64_t usize = c->c_usize, csize = c->c_csize, dict_off = 0;
	bool dict = c->c_dict_pages > 0;
	pq_shared *sh = f->sh;
	if (dict) {
		dict_off = f->off;
		tio_buf body = {.p = c->dbytes.p, .len = c->dbytes.len, .cap = c->dbytes.cap};
		sh->tail.len = 0;
		tw w = {.b = &sh->tail};
		w.last[0] = 3;
		tw_begin(&w, 7);
		tw_i32(&w, 1, (int32_t)c->ndict);
		tw_i32(&w, 2, 0); /* PLAIN */
		tw_end(&w);
		tio_buf_addc(&sh->tail, 0);
		/* the dictionary page goes first: put it in a chunk of its own */
		struct pq_chunk data = c->chunk;
		uint64_t u0 = c->c_usize, c0 = c->c_csize;
		c->chunk = (struct pq_chunk){0};
		char msg[256];
		int r = sh->tail.p ? finish_page(c, &body, &sh->tail, NULL, 0, 2, sh->zctx, &sh->cbuf,
						 &sh->hdr, msg, sizeof(msg))
				   : TIO_ERR_NOMEM;
		bool ok = !r && chunk_write(c, o);
		size_t dlen = chunk_len(c);
		atomic_fetch_sub(&f->chunk_cap, chunk_cap(c));
		chunk_clear(c, true);
		c->chunk = data;
		usize += c->c_usize - u0;
		csize += c->c_csize - c0;
		c->c_usize = u0;
		c->c_csize = c0;
		if (r)
			return tio_err_set(r, "%s: %s", f->path, r == TIO_ERR_NOMEM ? "out of memory" : msg);
		if (!ok)
			return tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path,
					   strerror(errno));
		f->off += dlen;
	}
	uint64_t data_off = f->off;
	if (!chunk_write(c, o))
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path, strerror(errno));
	f->off += chunk_len(c);

	/* ColumnChunk { file_offset, meta_data: ColumnMetaData } */
	tw_begin(rg, 0);
	tw_i64(rg, 2, 0);
	tw_begin(rg, 3);
	tw_i32(rg, 1, c->phys);
	tw_list(rg, 2, T_I32, 2 + (dict ? 1 : 0) + (c->c_delta_pages ? 1 : 0));
	varint(rg->b, zigzag(0)); /* PLAIN (values or dictionary page) */
	varint(rg->b, zigzag(3)); /* RLE (levels) */
	if (dict)
		varint(rg->b, zigzag(8));
	if (c->c_delta_pages)
		varint(rg->b, zigzag(5)); /* DELTA_BINARY_PACKED */
	tw_list(rg, 3, T_BINARY, c->npath);
	for (uint32_t k = 0; k < c->npath; k++) {
		size_t l = strlen(c->path[k]);
		varint(rg->b, l);
		tio_buf_add(rg->b, c->path[k], l);
	}
	tw_i32(rg, 4, c->c_codec == PQ_Z_STORED ? PQ_UNCOMPRESSED : f->codec);
	tw_i64(rg, 5, (int64_t)c->c_levels);
	tw_i64(rg, 6, (int64_t)usize);
	tw_i64(rg, 7, (int64_t)csize);
	tw_patch(rg, f, 9, T_I64, (int64_t)data_off, PQ_PATCH_OFFSET);
	if (dict)
		tw_patch(rg, f, 11, T_I64, (int64_t)dict_off, PQ_PATCH_OFFSET);
	write_stats(rg, 12, c, &c->cst);
	tw_end(rg);
	/* ColumnChunk's page index fields (4-7) go here when pq_close knows where its indexes are */
	if (tio_grow(&f->patches, &f->pcap, f->npatches + 1, sizeof(*f->patches)))
		f->oom = true;
	else
		add_patch(f, rg->b->len, 0, PQ_PATCH_INDEX, (int64_t)f->nchunks);
	ix_record(f, c, data_off);
	f->nchunks++;
	tw_end(rg);
	f->rg_usize += usize;
	return 0;
}

/* Wait for the pages in flight: the chunks' sizes are then those the inline writer would have. */
void pq_sync(pq_shared *sh) { worker_drain(sh->w); }

void pq_defer(pq_shared *sh, pq_fn fn, void *arg, tio_buf *data)
{
	if (!sh->w) {
		fn(arg, data->p, data->len);
		data->len = 0;
		return;
	}
	pq_job *j = worker_slot(sh->w, NULL);
	if (!j) {
		fn(arg, data->p, data->len);
		data->len = 0;
		return;
	}
	tio_buf t = j->data;
	j->data = *data;
	*data = t;
	data->len = 0;
	j->type = JOB_FN;
	j->fn = fn;
	j->arg = arg;
	j->c = NULL;
	pthread_mutex_lock(&sh->w->mu);
	sh->w->fn_inflight++;
	pthread_mutex_unlock(&sh->w->mu);
	worker_submit(sh->w);
}

/* The capacity pq_more gives a page buffer that held n bytes (buf_cap). */
static size_t page_cap(size_t n, size_t page) { return n ? buf_cap(n, page) : 0; }

/* Memory held by the buffered row group (after pq_sync; see pq.h). */
size_t pq_buffered(const pq_file *f, size_t *pages)
{
	size_t n = atomic_load(&f->chunk_cap), pg = 0;
	for (uint32_t k = 0; k < f->ncols; k++) {
		const pq_col *c = &f->cols[k];
		const size_t now[4] = {c->vals.len, c->idx.len, c->defs.len, c->reps.len};
		for (int b = 0; b < 4; b++)
			pg += page_cap(now[b] > c->hw[b] ? now[b] : c->hw[b], f->page_size);
		n += c->dbytes.cap + (size_t)c->dcap * 12 + (size_t)c->nslots * 4;
	}
	if (pages)
		*pages = pg;
	return n + pg;
}

/* ---------------------------------------------------------------- the footer's row groups */

/* A record of the side file (pq_file.spill): then its patches (`at` from its bytes' start), its bytes. */
struct spill_rec {
	uint64_t nbytes, npatches;
};

static int write_all(int fd, const void *p, size_t n)
{
	for (const char *b = p; n;) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Move the serialized RowGroups of memory to the side file once they hold PQ_RGS_SPILL bytes. */
static int spill_rgs(pq_file *f)
{
	if (f->oom)
		return tio_err_set(TIO_ERR_NOMEM, "%s: out of memory", f->path);
	if (f->rgs.len < PQ_RGS_SPILL)
		return 0;
	struct spill_rec h = {f->rgs.len, f->npatches};
	const struct iovec v[] = {{&h, sizeof(h)},
				  {f->patches, f->npatches * sizeof(*f->patches)},
				  {f->rgs.p, f->rgs.len}};
	int r = side_append(f, &f->spill, ".rowgroups", &f->spilled, v, 3);
	if (!r)
		f->rgs.len = f->npatches = 0;
	return r;
}

typedef int (*rgs_fn)(void *arg, const char *bytes, size_t n, const struct pq_patch *p, size_t np);

/* fn on f's serialized RowGroups in order, record by record: the side file's, then those in memory. */
static int rgs_each(pq_file *f, rgs_fn fn, void *arg)
{
	int r = 0;
	if (f->spilled) {
		int fd = open(f->spill, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", f->spill, strerror(errno));
		char *buf = NULL;
		size_t cap = 0;
		for (uint64_t pos = 0; pos < f->spilled && !r;) {
			struct spill_rec h;
			ssize_t k = pread(fd, &h, sizeof(h), (off_t)pos);
			uint64_t left = f->spilled - pos - (k > 0 ? (uint64_t)k : 0);
			if (k != (ssize_t)sizeof(h) || h.npatches > left / sizeof(struct pq_patch) ||
			    h.nbytes > left - h.npatches * sizeof(struct pq_patch)) {
				r = tio_err_set(TIO_ERR_IO, "%s: shorter than written (at byte %" PRIu64 ")",
						f->spill, pos);
				break;
			}
			size_t need = (size_t)(h.npatches * sizeof(struct pq_patch) + h.nbytes);
			if (need > cap) {
				char *nb = realloc(buf, need);
				if (!nb) {
					r = tio_err_oom();
					break;
				}
				buf = nb;
				cap = need;
			}
			if (pread(fd, buf, need, (off_t)(pos + sizeof(h))) != (ssize_t)need) {
				r = tio_err_set(TIO_ERR_IO, "%s: read error at byte %" PRIu64, f->spill, pos);
				break;
			}
			size_t pb = (size_t)h.npatches * sizeof(struct pq_patch);
			r = fn(arg, buf + pb, (size_t)h.nbytes, (const struct pq_patch *)(void *)buf,
			       (size_t)h.npatches);
			pos += sizeof(h) + need;
		}
		free(buf);
		close(fd);
	}
	if (!r && f->rgs.len)
		r = fn(arg, f->rgs.p, f->rgs.len, f->patches, f->npatches);
	return r;
}

/* Write the buffered rows as a row group: a column chunk per column, the RowGroup kept for the
 * footer. */
int pq_flush(pq_file *f, int release)
{
	if (f->oom)
		return tio_err_set(TIO_ERR_NOMEM, "%s: out of memory while buffering a row group",
				   f->path);
	if (!f->rows) {
		if (release == PQ_RELEASE) /* the page buffers kept by an earlier flush */
			for (uint32_t k = 0; k < f->ncols; k++)
				col_reset(&f->cols[k], PQ_RELEASE);
		return 0;
	}
	for (uint32_t k = 0; k < f->ncols; k++)
		page_cut(f, &f->cols[k]);
	f->ndue = 0;
	file_drain(f);
	if (f->oom)
		return tio_err_set(TIO_ERR_NOMEM, "%s: out of memory while buffering a row group",
				   f->path);
	if (f->err)
		return tio_err_set(f->err, "%s: %s", f->path, f->errmsg);
	io_lock(f); /* the bytes and f->off, against pq_redirect */
	FILE *o = file_out(f);
	if (!o) {
		io_unlock(f);
		return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", f->redirect ? f->redirect : f->path,
				   strerror(errno));
	}
	uint64_t start = f->off;
	size_t rg_at = f->rgs.len, patch_at = f->npatches;
	tw rg = {.b = &f->rgs};
	tw_begin(&rg, 0);
	tw_list(&rg, 1, T_STRUCT, f->ncols);
	f->rg_usize = 0;
	int r = 0;
	for (uint32_t k = 0; k < f->ncols && !r; k++)
		r = write_chunk(f, o, &f->cols[k], &rg);
	if (file_done(f, o) && !r)
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path, strerror(errno));
	io_unlock(f);
	if (r) {
		f->rgs.len = rg_at;
		f->npatches = patch_at;
		return r;
	}
	tw_i64(&rg, 2, (int64_t)f->rg_usize);
	tw_i64(&rg, 3, (int64_t)f->rows);
	uint32_t nsort = 0;
	for (uint32_t k = 0; k < f->ncols; k++)
		nsort += f->cols[k].sort_key && f->cols[k].sort_any && !f->cols[k].unsorted;
	if (nsort) { /* sorting_columns: SortingColumn { column_idx, descending, nulls_first } */
		tw_list(&rg, 4, T_STRUCT, nsort);
		for (uint32_t k = 0; k < f->ncols; k++) {
			const pq_col *c = &f->cols[k];
			if (!c->sort_key || !c->sort_any || c->unsorted)
				continue;
			tw_begin(&rg, 0);
			tw_i32(&rg, 1, (int32_t)k);
			tw_bool(&rg, 2, false);
			tw_bool(&rg, 3, false);
			tw_end(&rg);
		}
	}
	tw_patch(&rg, f, 5, T_I64, (int64_t)start, PQ_PATCH_OFFSET);
	tw_i64(&rg, 6, (int64_t)(f->off - start));
	if (f->nrg <= INT16_MAX) /* optional: an i16 */
		tw_patch(&rg, f, 7, T_I16, (int64_t)f->nrg, PQ_PATCH_ORDINAL);
	tw_end(&rg);
	if (!f->rgs.p || f->oom)
		return tio_err_set(TIO_ERR_NOMEM, "%s: out of memory", f->path);
	f->nrg++;
	f->total_rows += f->rows;
	f->rows = 0;
	size_t cap = 0;
	for (uint32_t k = 0; k < f->ncols; k++) {
		col_reset(&f->cols[k], release);
		cap += chunk_cap(&f->cols[k]);
	}
	atomic_store(&f->chunk_cap, cap);
	r = spill_rgs(f);
	return r ? r : ix_spill(f);
}

/* Copy `len` bytes at `off` of file `src` to offset `at` of file `dst` (in the kernel when it can). */
static int copy_bytes(const char *src, uint64_t off, uint64_t len, const char *dst, uint64_t at)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = in < 0 ? -1 : open(dst, O_WRONLY | O_CLOEXEC);
	int r = 0;
	if (in < 0 || out < 0) {
		r = tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", in < 0 ? src : dst, strerror(errno));
		goto done;
	}
	loff_t o_in = (loff_t)off, o_out = (loff_t)at;
	bool kernel = true;
	char *buf = NULL;
	while (len) {
		ssize_t n;
		if (kernel) {
			n = copy_file_range(in, &o_in, out, &o_out, len > (1u << 30) ? (1u << 30) : len, 0);
			if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
				      errno == EBADF)) {
				kernel = false;
				continue;
			}
		} else {
			if (!buf && !(buf = malloc(1u << 20))) {
				r = tio_err_oom();
				break;
			}
			n = pread(in, buf, len < (1u << 20) ? len : (1u << 20), o_in);
			if (n > 0) {
				for (ssize_t w = 0; w < n;) {
					ssize_t k = pwrite(out, buf + w, (size_t)(n - w), o_out);
					if (k <= 0) {
						r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", dst,
								k < 0 ? strerror(errno) : "nothing written");
						break;
					}
					w += k;
					o_out += k;
				}
				if (r)
					break;
				o_in += n;
			}
		}
		if (n < 0) {
			r = tio_err_set(TIO_ERR_IO, "%s: copy to %s: %s", src, dst, strerror(errno));
			break;
		}
		if (n == 0) {
			r = tio_err_set(TIO_ERR_IO, "%s: shorter than written", src);
			break;
		}
		len -= (uint64_t)n;
	}
	free(buf);
done:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) && !r)
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", dst, strerror(errno));
	return r;
}

/*
 * Where pq_append puts from's row groups: their offsets moved by `shift`,
 * ordinals by `base`, column chunk numbers (page index records) by `cbase`.
 */
struct app {
	pq_file *f;
	int64_t shift;
	uint32_t base;
	uint64_t cbase;
};

/* A record of from's RowGroups, its offsets and ordinals rewritten, into f's (pq_append). */
static int append_rec(void *arg, const char *b, size_t n, const struct pq_patch *pp, size_t np)
{
	struct app *a = arg;
	pq_file *f = a->f;
	size_t pos = 0;
	for (size_t k = 0; k < np && !f->oom; k++) {
		const struct pq_patch *p = &pp[k];
		if (p->at < pos || p->at + p->len > n)
			return tio_err_set(TIO_ERR_IO, "%s: row group metadata out of order", f->path);
		tio_buf_add(&f->rgs, b + pos, p->at - pos);
		pos = p->at + p->len;
		if (p->kind == PQ_PATCH_INDEX) { /* nothing there yet: a place */
			if (tio_grow(&f->patches, &f->pcap, f->npatches + 1, sizeof(*f->patches))) {
				f->oom = true;
				break;
			}
			add_patch(f, f->rgs.len, 0, PQ_PATCH_INDEX, p->v + (int64_t)a->cbase);
			continue;
		}
		bool ordinal = p->kind == PQ_PATCH_ORDINAL;
		int64_t v = p->v + (ordinal ? (int64_t)a->base : a->shift);
		if (ordinal && v > INT16_MAX) {
			/* past an i16: no ordinal (the field's one-byte header goes too; the stop byte follows) */
			if (f->rgs.len)
				f->rgs.len--;
			continue;
		}
		size_t at = f->rgs.len;
		varint(&f->rgs, zigzag(v));
		if (tio_grow(&f->patches, &f->pcap, f->npatches + 1, sizeof(*f->patches))) {
			f->oom = true;
			break;
		}
		add_patch(f, at, (uint8_t)(f->rgs.len - at), p->kind, v);
	}
	tio_buf_add(&f->rgs, b + pos, n - pos);
	if (!f->rgs.p)
		f->oom = true;
	return spill_rgs(f);
}

int pq_append(pq_file *f, pq_file *from)
{
	int r = pq_flush(f, PQ_RELEASE);
	if (!r)
		r = pq_flush(from, PQ_RELEASE);
	if (r || !from->nrg)
		return r;
	if (f->ncols != from->ncols || f->codec != from->codec)
		return tio_err_set(TIO_ERR_USAGE, "%s: a part of another schema (%s)", f->path, from->path);
	/* both flushed: from's bytes are all in its file (or after f's: pq_redirect); f's kept
	   file appends after these */
	if (file_shut(from))
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", from->path, strerror(errno));
	if (from->redirect) {
		if (strcmp(from->redirect, f->path) || from->redirect_at != f->off)
			return tio_err_set(TIO_ERR_USAGE, "%s: a part moved elsewhere (%s)", f->path, from->path);
	} else if ((r = copy_bytes(from->path, 4, from->off - 4, f->path, f->off))) {
		return r;
	}
	struct app a = {f, (int64_t)f->off - 4, f->nrg, f->nchunks};
	if ((r = rgs_each(from, append_rec, &a)))
		return r;
	/* from's page index records, their pages moved with the chunks */
	ix_iter it;
	ix_open(&it, from);
	struct ix_rec h;
	const char *e = NULL;
	while ((r = ix_next(&it, &h, &e)) > 0) {
		h.data_off += (uint64_t)a.shift;
		tio_buf_add(&f->pix, &h, sizeof(h));
		tio_buf_add(&f->pix, e, (size_t)h.nbytes);
		if (!f->pix.p)
			f->oom = true;
		if ((r = ix_spill(f)))
			break;
	}
	ix_close(&it);
	if (r)
		return r;
	if (from->spill)
		unlink(from->spill);
	if (from->pix_spill)
		unlink(from->pix_spill);
	f->nchunks += from->nchunks;
	f->nrg += from->nrg;
	f->total_rows += from->total_rows;
	f->off += from->off - 4;
	return 0;
}

int pq_redirect(pq_file *f, pq_file *from)
{
	struct stat st;
	if (f->ncols != from->ncols || f->codec != from->codec || f->rows || f->redirect ||
	    stat(f->path, &st) || (uint64_t)st.st_size != f->off)
		return 0;
	io_lock(from);
	uint64_t a = from->off;
	bool moved = from->redirect != NULL;
	io_unlock(from);
	if (moved)
		return 0;
	/* the bytes written so far, while from may write more of them (after these) */
	int r = a > 4 ? copy_bytes(from->path, 4, a - 4, f->path, f->off) : 0;
	if (r)
		return r;
	io_lock(from);
	uint64_t b = from->off;
	if (b > a)
		r = copy_bytes(from->path, a, b - a, f->path, f->off + a - 4);
	if (!r && file_shut(from))
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", from->path, strerror(errno));
	if (!r && !(from->redirect = tio_strdup(f->path)))
		r = TIO_ERR_NOMEM;
	from->redirect_at = f->off;
	io_unlock(from);
	return r;
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

/*
 * The footer's output: bytes so far, write errors; for the ColumnChunks'
 * page index fields, the records read again in the order the indexes were
 * written, and where the next chunk's ColumnIndex and OffsetIndex are.
 */
struct foot {
	FILE *o;
	uint64_t len;
	bool ok;
	ix_iter it;
	uint64_t ci_at, oi_at;
	tio_buf scratch, fields;
};

static void put_bytes_out(struct foot *o, const char *b, size_t n)
{
	o->ok = o->ok && fwrite(b, 1, n, o->o) == n;
	o->len += n;
}

static int put_rec(void *arg, const char *b, size_t n, const struct pq_patch *pp, size_t np)
{
	struct foot *o = arg;
	size_t pos = 0;
	for (size_t k = 0; k < np; k++) {
		if (pp[k].kind != PQ_PATCH_INDEX)
			continue;
		if (pp[k].at < pos || pp[k].at > n)
			return tio_err_set(TIO_ERR_IO, "%s: row group metadata out of order", o->it.f->path);
		put_bytes_out(o, b + pos, pp[k].at - pos);
		pos = pp[k].at;
		struct ix_rec h;
		const char *e = NULL;
		int r = ix_next(&o->it, &h, &e);
		if (r <= 0)
			return r ? r : tio_err_set(TIO_ERR_IO, "%s: a column chunk without its page index record",
						   o->it.f->path);
		/* ColumnChunk fields 4-7 after meta_data (3): the lengths as pq_close wrote them */
		o->fields.len = 0;
		tw w = {.b = &o->fields};
		w.last[0] = 3;
		o->scratch.len = 0;
		ix_offset_index(&o->scratch, &h, e);
		tw_i64(&w, 4, (int64_t)o->oi_at);
		tw_i32(&w, 5, (int32_t)o->scratch.len);
		o->oi_at += o->scratch.len;
		if (h.ci) {
			o->scratch.len = 0;
			ix_column_index(&o->scratch, &h, e);
			tw_i64(&w, 6, (int64_t)o->ci_at);
			tw_i32(&w, 7, (int32_t)o->scratch.len);
			o->ci_at += o->scratch.len;
		}
		if (!o->fields.p || !o->scratch.p)
			return tio_err_oom();
		put_bytes_out(o, o->fields.p, o->fields.len);
	}
	put_bytes_out(o, b + pos, n - pos);
	return 0;
}

/*
 * The page index between the last row group and the footer: every chunk's
 * ColumnIndex (when it has one), then every OffsetIndex, as other writers
 * place them; *oi_start: where the OffsetIndexes start.
 */
static int write_page_index(pq_file *f, FILE *o, uint64_t *oi_start)
{
	tio_buf b = {0};
	int r = 0;
	for (int pass = 0; pass < 2 && !r; pass++) {
		if (pass)
			*oi_start = f->off;
		ix_iter it;
		ix_open(&it, f);
		struct ix_rec h;
		const char *e = NULL;
		while ((r = ix_next(&it, &h, &e)) > 0) {
			if (!pass && !h.ci)
				continue;
			b.len = 0;
			if (pass)
				ix_offset_index(&b, &h, e);
			else
				ix_column_index(&b, &h, e);
			if (!b.p) {
				r = tio_err_oom();
				break;
			}
			if (fwrite(b.p, 1, b.len, o) != b.len) {
				r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path, strerror(errno));
				break;
			}
			f->off += b.len;
		}
		ix_close(&it);
	}
	tio_buf_free(&b);
	return r;
}

/* Last row group, then the footer: FileMetaData, its length, the magic. */
int pq_close(pq_file *f, const char *const *kv)
{
	int r = pq_flush(f, PQ_RELEASE);
	if (r)
		return r;
	FILE *o = file_out(f);
	if (!o)
		return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", f->path, strerror(errno));
	uint64_t ci_start = f->off, oi_start = f->off;
	r = write_page_index(f, o, &oi_start);
	if (r) {
		if (o != f->fp)
			fclose(o);
		return r;
	}
	/* FileMetaData: the fields before the row groups, the row groups (from the side file), the rest */
	tio_buf m = {0};
	tw w = {.b = &m};
	tw_i32(&w, 1, 1);
	tw_list(&w, 2, T_STRUCT, count_nodes(f->root));
	write_schema(&w, f->root, true);
	tw_i64(&w, 3, (int64_t)f->total_rows);
	tw_list(&w, 4, T_STRUCT, f->nrg);
	struct foot out = {.o = o, .ok = m.p != NULL, .ci_at = ci_start, .oi_at = oi_start};
	ix_open(&out.it, f);
	put_rec(&out, m.p, m.len, NULL, 0);
	m.len = 0;
	r = rgs_each(f, put_rec, &out);
	ix_close(&out.it);
	tio_buf_free(&out.scratch);
	tio_buf_free(&out.fields);
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
	uint64_t len = out.len + m.len;
	uint32_t len32 = (uint32_t)len;
	tio_buf_add(&m, &len32, 4);
	tio_buf_add(&m, "PAR1", 4);
	if (!r && !m.p)
		r = tio_err_oom();
	if (!r && len > UINT32_MAX)
		r = tio_err_set(TIO_ERR_LIMIT, "%s: a footer of more than 4 GiB (%" PRIu64 " row groups)",
				f->path, (uint64_t)f->nrg);
	if (!r)
		put_rec(&out, m.p, m.len, NULL, 0);
	f->off += out.len;
	tio_buf_free(&m);
	int e = o == f->fp ? file_shut(f) : fclose(o);
	if ((e || !out.ok) && !r)
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", f->path, strerror(errno));
	if (f->spill) {
		unlink(f->spill);
		free(f->spill);
		f->spill = NULL;
		f->spilled = 0;
	}
	if (f->pix_spill) {
		unlink(f->pix_spill);
		free(f->pix_spill);
		f->pix_spill = NULL;
		f->pix_spilled = 0;
	}
	f->pix.len = 0;
	return r;
}

/* Errors, allocation, buffers, files: see common.h. */
#define _GNU_SOURCE
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- errors */

static _Thread_local char err_msg[4096];

static void err_vset(bool push, const char *fmt, va_list ap)
{
	char tmp[sizeof(err_msg)];
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	if (push && err_msg[0]) {
		/* new context first, then ": ", then the cause, cut to fit */
		char old[sizeof(err_msg)];
		memcpy(old, err_msg, sizeof(old));
		size_t a = strlen(tmp), b = strlen(old), cap = sizeof(err_msg) - 1;
		size_t n = 0;
		memcpy(err_msg, tmp, a);
		n = a;
		if (n + 2 <= cap) {
			memcpy(err_msg + n, ": ", 2);
			n += 2;
			size_t k = b < cap - n ? b : cap - n;
			memcpy(err_msg + n, old, k);
			n += k;
		}
		err_msg[n] = 0;
	} else {
		memcpy(err_msg, tmp, sizeof(err_msg));
	}
}

int tio_err_set(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(false, fmt, ap);
	va_end(ap);
	return status;
}

int tio_err_push(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(true, fmt, ap);
	va_end(ap);
	return status;
}

int tio_err_oom(void) { return tio_err_set(TIO_ERR_NOMEM, "out of memory"); }

void tio_err_clear(void) { err_msg[0] = 0; }

const char *tio_error_message(void) { return err_msg; }

void tio_error_clear(void) { tio_err_clear(); }

/* ---------------------------------------------------------------- allocation */

void *tio_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		tio_err_oom();
	return p;
}

void *tio_calloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		tio_err_oom();
	return p;
}

void *tio_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		tio_err_oom();
	return q;
}

char *tio_strdup(const char *s) { return tio_strndup(s, strlen(s)); }

char *tio_strndup(const char *s, size_t n)
{
	char *p = tio_malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *tio_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0) {
		p = NULL;
		tio_err_oom();
	}
	va_end(ap);
	return p;
}

int tio_grow(void *arr, size_t *cap, size_t need, size_t sz)
{
	void **pa = arr;
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 8;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / sz)
			return tio_err_oom();
		nc *= 2;
	}
	void *p = tio_realloc(*pa, nc * sz);
	if (!p)
		return TIO_ERR_NOMEM;
	*pa = p;
	*cap = nc;
	return 0;
}

/* ---------------------------------------------------------------- buffers */

int tio_buf_grow_(tio_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap;
	return tio_grow(&b->p, &cap, b->len + extra + 1, 1) ? TIO_ERR_NOMEM : (b->cap = cap, 0);
}

int tio_buf_add_cp(tio_buf *b, uint32_t cp)
{
	char o[4];
	size_t n;
	if (cp < 0x80) {
		o[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		o[0] = (char)(0xF0 | cp >> 18);
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return tio_buf_add(b, o, n);
}

size_t tio_utf8_seq(const uint8_t *s, size_t left, size_t *skip)
{
	uint8_t c = s[0];
	size_t need;
	uint8_t lo = 0x80, hi = 0xBF;
	*skip = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 1;
	else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	for (size_t k = 1; k <= need; k++) {
		if (k >= left || s[k] < lo || s[k] > hi) {
			*skip = k;
			return 0;
		}
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}



int tio_buf_vaddf(tio_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	size_t room = b->cap > b->len ? b->cap - b->len : 0;
	int n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return tio_err_set(TIO_ERR_USAGE, "bad format string");
	if ((size_t)n + 1 > room) {
		if (tio_buf_reserve(b, (size_t)n))
			return TIO_ERR_NOMEM;
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
	return 0;
}

int tio_buf_addf(tio_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = tio_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				 "8081828384858687888990919293949596979899";

/* Decimal digits of v: log2 from the leading zeros, times log10(2), corrected once. */
static inline unsigned ndigits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned t = ((64 - (unsigned)__builtin_clzll(v | 1)) * 1233) >> 12; /* <= digits, >= digits - 1 */
	return t + (v >= pow10[t]) + (v == 0);
}

/* Exactly 8 digits of x < 10^8: four independent pairs (no chain of divisions). */
static inline void put8(char *q, uint32_t x)
{
	uint32_t hi = x / 10000, lo = x % 10000;
	memcpy(q, digits2 + hi / 100 * 2, 2);
	memcpy(q + 2, digits2 + hi % 100 * 2, 2);
	memcpy(q + 4, digits2 + lo / 100 * 2, 2);
	memcpy(q + 6, digits2 + lo % 100 * 2, 2);
}

int tio_buf_addu_pad(tio_buf *b, uint64_t v, unsigned width)
{
	if (width > 20)
		width = 20;
	unsigned n = ndigits(v);
	if (n < width)
		n = width;
	if (TIO_UNLIKELY(b->len + n + 1 > b->cap) && tio_buf_reserve(b, n))
		return TIO_ERR_NOMEM;
	char *q = b->p + b->len + n; /* digits written backwards */
	b->len += n;
	char *first = q - n;
	while (v >= 100000000) { /* 8 digits at a time, the rest in 32 bits */
		uint64_t t = v / 100000000;
		q -= 8;
		put8(q, (uint32_t)(v - t * 100000000));
		v = t;
	}
	uint32_t x = (uint32_t)v;
	while (x >= 100) {
		uint32_t d = x % 100 * 2;
		x /= 100;
		*--q = digits2[d + 1];
		*--q = digits2[d];
	}
	if (x >= 10) {
		*--q = digits2[x * 2 + 1];
		*--q = digits2[x * 2];
	} else {
		*--q = (char)('0' + x);
	}
	while (q > first)
		*--q = '0';
	return 0;
}

int tio_buf_addu(tio_buf *b, uint64_t v) { return tio_buf_addu_pad(b, v, 0); }

int tio_buf_addi(tio_buf *b, int64_t v)
{
	if (v < 0) {
		if (tio_buf_addc(b, '-'))
			return TIO_ERR_NOMEM;
		return tio_buf_addu(b, (uint64_t)0 - (uint64_t)v);
	}
	return tio_buf_addu(b, (uint64_t)v);
}

int tio_buf_addx(tio_buf *b, uint64_t v, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned n = 1;
	for (uint64_t t = v >> 4; t; t >>= 4)
		n++;
	if (tio_buf_reserve(b, n))
		return TIO_ERR_NOMEM;
	char *end = b->p + b->len + n;
	for (unsigned k = 0; k < n; k++, v >>= 4)
		*--end = digits[v & 15];
	b->len += n;
	return 0;
}

void tio_buf_free(tio_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

const char *tio_buf_cstr(tio_buf *b)
{
	if (tio_buf_reserve(b, 0))
		return "";
	b->p[b->len] = 0;
	return b->p;
}

/* ---------------------------------------------------------------- files */

int tio_map_open(tio_map *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return tio_err_set(TIO_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return tio_err_set(TIO_ERR_IO, "%s: not a regular file", path);
	}
	m->path = tio_strdup(path);
	if (!m->path) {
		close(fd);
		return TIO_ERR_NOMEM;
	}
	m->size = (uint64_t)st.st_size;
	if (m->size) {
		void *p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(fd);
			free(m->path);
			m->path = NULL;
			return tio_err_set(TIO_ERR_IO, "%s: cannot map: %s", path, strerror(e));
		}
		m->p = p;
	}
	close(fd);
	return 0;
}

static uint64_t page_size(void)
{
	static long page; /* filled by whichever thread asks first, with the same value */
	long p = __atomic_load_n(&page, __ATOMIC_RELAXED);
	if (!p) {
		p = sysconf(_SC_PAGESIZE);
		__atomic_store_n(&page, p, __ATOMIC_RELAXED);
	}
	return (uint64_t)p;
}

/* [off, off + len) of m cut to the file and widened to a page start: false when empty */
static bool map_range(const tio_map *m, uint64_t off, uint64_t len, uintptr_t *at, size_t *n)
{
	if (!m->p || off >= m->size || !len)
		return false;
	if (len > m->size - off)
		len = m->size - off;
	uint64_t start = off & ~(page_size() - 1);
	*at = (uintptr_t)(m->p + start);
	*n = (size_t)(len + (off - start));
	return true;
}

/*
 * The read-ahead helper: one thread for the process, started by the first
 * tio_map_prefetch, that maps pages ahead of the reader (MADV_POPULATE_READ)
 * and drops the pages behind it (MADV_DONTNEED), so that the reading thread
 * spends its time decoding rather than in the kernel.  Its requests name
 * address ranges, never a tio_map (which may move); tio_map_close removes
 * the requests of its range and waits while the helper works in it, before
 * munmap (a DONTNEED on whatever is mapped there next would be harmful).
 */
enum { AHEAD_POPULATE, AHEAD_DROP, AHEAD_QLEN = 64 };

typedef struct ahead_req {
	uintptr_t at;
	size_t len;
	int op;
} ahead_req;

static struct {
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	ahead_req q[AHEAD_QLEN];
	unsigned head, n;
	uintptr_t busy_at; /* the range the helper works in now (busy_len 0: none) */
	size_t busy_len;
	int state; /* 0: not started, 1: running, -1: none (one CPU, disabled, or failed) */
} ahead = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void ahead_do(const ahead_req *rq)
{
	if (rq->op == AHEAD_DROP) {
		madvise((void *)rq->at, rq->len, MADV_DONTNEED);
		return;
	}
#ifdef MADV_POPULATE_READ
	if (!madvise((void *)rq->at, rq->len, MADV_POPULATE_READ))
		return;
#endif
	/* older kernels: touch a byte a page */
	volatile const uint8_t *p = (const uint8_t *)rq->at;
	for (size_t k = 0; k < rq->len; k += (size_t)page_size())
		(void)p[k];
}

static void *ahead_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ahead.mu);
	for (;;) {
		while (!ahead.n)
			pthread_cond_wait(&ahead.work, &ahead.mu);
		ahead_req rq = ahead.q[ahead.head];
		ahead.head = (ahead.head + 1) % AHEAD_QLEN;
		ahead.n--;
		ahead.busy_at = rq.at;
		ahead.busy_len = rq.len;
		pthread_mutex_unlock(&ahead.mu);
		ahead_do(&rq);
		pthread_mutex_lock(&ahead.mu);
		ahead.busy_len = 0;
		pthread_cond_broadcast(&ahead.idle);
	}
	return NULL;
}

/* fork(): the child has no helper; it starts its own if it prefetches */
static void ahead_prepare(void) { pthread_mutex_lock(&ahead.mu); }
static void ahead_parent(void) { pthread_mutex_unlock(&ahead.mu); }
static void ahead_child(void)
{
	if (ahead.state > 0)
		ahead.state = 0;
	ahead.n = 0;
	ahead.busy_len = 0;
	pthread_mutex_unlock(&ahead.mu);
}

/* Called with ahead.mu held: is the helper there (started now if need be)? */
static bool ahead_running(void)
{
	if (ahead.state)
		return ahead.state > 0;
	ahead.state = -1;
	const char *env = getenv("TIO_READAHEAD");
	if ((env && !strcmp(env, "0")) || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return false;
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	if (pthread_attr_init(&attr))
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	/* the helper takes no signals: they stay with the caller's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	static bool atfork;
	if (!atfork && !pthread_atfork(ahead_prepare, ahead_parent, ahead_child))
		atfork = true;
	if (atfork && !pthread_create(&t, &attr, ahead_main, NULL))
		ahead.state = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return ahead.state > 0;
}

/* Queue a request; false when there is no helper or no room (then the caller does it or drops it). */
static bool ahead_push(uintptr_t at, size_t len, int op)
{
	pthread_mutex_lock(&ahead.mu);
	bool ok = ahead_running() && ahead.n < AHEAD_QLEN;
	if (ok) {
		ahead.q[(ahead.head + ahead.n) % AHEAD_QLEN] = (ahead_req){at, len, op};
		ahead.n++;
		pthread_cond_signal(&ahead.work);
	}
	pthread_mutex_unlock(&ahead.mu);
	return ok;
}

/* No request of the helper touches [at, at + len) once this returns. */
static void ahead_forget(uintptr_t at, size_t len)
{
	pthread_mutex_lock(&ahead.mu);
	unsigned k = 0;
	for (unsigned i = 0; i < ahead.n; i++) {
		ahead_req rq = ahead.q[(ahead.head + i) % AHEAD_QLEN];
		if (rq.at + rq.len <= at || rq.at >= at + len)
			ahead.q[(ahead.head + k++) % AHEAD_QLEN] = rq;
	}
	ahead.n = k;
	while (ahead.busy_len && !(ahead.busy_at + ahead.busy_len <= at || ahead.busy_at >= at + len))
		pthread_cond_wait(&ahead.idle, &ahead.mu);
	pthread_mutex_unlock(&ahead.mu);
}

void tio_map_release(tio_map *m, uint64_t upto)
{
	uint64_t end = upto & ~(page_size() - 1);
	if (m->p && end > m->released && end <= m->size) {
		if (!m->ahead || !ahead_push((uintptr_t)(m->p + m->released), end - m->released, AHEAD_DROP))
			madvise((void *)(m->p + m->released), end - m->released, MADV_DONTNEED);
		m->released = end;
	}
}

void tio_map_prefetch(tio_map *m, uint64_t off, uint64_t len)
{
	uintptr_t at;
	size_t n;
	if (map_range(m, off, len, &at, &n) && ahead_push(at, n, AHEAD_POPULATE))
		m->ahead = true;
}

/*
 * What one fault may map around the byte it is for: a huge page when the
 * page cache holds the file in huge folios (a file read from disk, on
 * kernels with large folios), else the fault-around window (64 KiB).
 */
static uint64_t fault_unit(void)
{
	static uint64_t unit; /* filled by whichever thread asks first, with the same value */
	uint64_t u = __atomic_load_n(&unit, __ATOMIC_RELAXED);
	if (!u) {
		u = 64u << 10;
		FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
		unsigned long long v = 0;
		if (f) {
			if (fscanf(f, "%llu", &v) == 1 && v > u && v <= (32u << 20) && !(v & (v - 1)))
				u = v;
			fclose(f);
		}
		if (u < page_size())
			u = page_size();
		__atomic_store_n(&unit, u, __ATOMIC_RELAXED);
	}
	return u;
}

/*
 * Dropping only the pages read would leave the rest of what their faults
 * mapped: with huge folios, 2 MiB around each packet header an index
 * reads (seen: `info` at 123 MB of RSS instead of 9 on a 258 MB trace).
 * So the range is widened to whole fault units.  The mapping is read-only
 * and file-backed: pages dropped that are still in use are read again.
 */
void tio_map_drop(tio_map *m, uint64_t off, uint64_t len)
{
	if (!m->p || off >= m->size || !len)
		return;
	if (len > m->size - off)
		len = m->size - off;
	/* whole units of the address space (a huge page is mapped at an aligned address) */
	uintptr_t u = (uintptr_t)fault_unit(), lo = (uintptr_t)m->p,
		  hi = lo + (uintptr_t)((m->size + page_size() - 1) & ~(page_size() - 1));
	uintptr_t a = (lo + (uintptr_t)off) & ~(u - 1), e = lo + (uintptr_t)(off + len);
	e = e > hi - u ? hi : (e + u - 1) & ~(u - 1);
	if (a < lo)
		a = lo;
	if (e > hi)
		e = hi;
	(void)madvise((void *)a, e - a, MADV_DONTNEED);
}

void tio_map_sparse(tio_map *m, uint64_t off, uint64_t len, bool on)
{
	uintptr_t at;
	size_t n;
	if (map_range(m, off, len, &at, &n))
		(void)madvise((void *)at, n, on ? MADV_RANDOM : MADV_NORMAL);
}

void tio_map_rewind(tio_map *m, uint64_t off)
{
	uint64_t start = off & ~(page_size() - 1);
	if (start < m->released)
		m->released = start;
}

void tio_map_populate(tio_map *m, uint64_t off, uint64_t len)
{
#ifdef MADV_POPULATE_READ
	uintptr_t at;
	size_t n;
	if (map_range(m, off, len, &at, &n))
		(void)madvise((void *)at, n, MADV_POPULATE_READ);
#else
	(void)m;
	(void)off;
	(void)len;
#endif
}

void tio_map_close(tio_map *m)
{
	if (m->p && m->ahead)
		ahead_forget((uintptr_t)m->p, m->size);
	if (m->p)
		munmap((void *)m->p, m->size);
	free(m->path);
	memset(m, 0, sizeof(*m));
}

int tio_read_file(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return tio_err_set(TIO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	tio_buf b = {0};
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
		if (tio_buf_add(&b, tmp, n)) {
			fclose(f);
			tio_buf_free(&b);
			return TIO_ERR_NOMEM;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		tio_buf_free(&b);
		return tio_err_set(TIO_ERR_IO, "%s: read error", path);
	}
	tio_buf_cstr(&b);
	if (!b.p) {
		b.p = tio_calloc(1, 1);
		if (!b.p)
			return TIO_ERR_NOMEM;
	}
	*out = b.p;
	if (len)
		*len = b.len;
	return 0;
}

bool tio_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool tio_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *tio_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	if (la && a[la - 1] == '/')
		return tio_asprintf("%s%s", a, b);
	return tio_asprintf("%s/%s", a, b);
}

char *tio_path_abs(const char *path)
{
	char *joined;
	if (path[0] == '/') {
		joined = tio_strdup(path);
	} else {
		const char *pwd = getenv("PWD");
		struct stat a, b;
		char *cwd = NULL;
		if (!pwd || pwd[0] != '/' || stat(pwd, &a) || stat(".", &b) || a.st_dev != b.st_dev ||
		    a.st_ino != b.st_ino) {
			cwd = getcwd(NULL, 0);
			pwd = cwd ? cwd : "/";
		}
		joined = tio_path_join(pwd, path);
		free(cwd);
	}
	if (!joined)
		return NULL;
	/* fold components in place: out never runs ahead of in */
	char *out = joined, *in = joined;
	while (*in) {
		while (*in == '/')
			in++;
		char *seg = in;
		while (*in && *in != '/')
			in++;
		size_t len = (size_t)(in - seg);
		if (len == 0 || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > joined && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, seg, len);
		out += len;
	}
	if (out == joined)
		*out++ = '/';
	*out = 0;
	return joined;
}

int tio_outfile_open(tio_outfile *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = tio_strdup(path);
	o->tmp = tio_asprintf("%s.tmp-XXXXXX", path);
	if (!o->path || !o->tmp)
		goto oom;
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;
		free(o->path);
		free(o->tmp);
		return tio_err_set(TIO_ERR_IO, "%s: cannot create: %s", path, strerror(e));
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		goto oom;
	}
	return 0;
oom:
	free(o->path);
	free(o->tmp);
	return tio_err_oom();
}

int tio_outfile_commit(tio_outfile *o)
{
	int r = 0;
	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", o->path, strerror(errno));
	if (fclose(o->f) && !r)
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", o->path, strerror(errno));
	o->f = NULL;
	if (!r && rename(o->tmp, o->path))
		r = tio_err_set(TIO_ERR_IO, "%s: cannot rename: %s", o->path, strerror(errno));
	if (r)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return r;
}

void tio_outfile_abort(tio_outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

/* ---------------------------------------------------------------- bits */

uint64_t tio_bits_le(const uint8_t *p, uint64_t at, unsigned len)
{
	const uint8_t *q = p + (at >> 3);
	unsigned sh = (unsigned)(at & 7);
	unsigned nbytes = (sh + len + 7) >> 3;
	uint64_t v = 0;
	if (nbytes <= 8) {
		for (unsigned i = 0; i < nbytes; i++)
			v |= (uint64_t)q[i] << (8 * i);
		v >>= sh;
	} else { /* 9 bytes: sh + len > 64 */
		for (unsigned i = 0; i < 8; i++)
			v |= (uint64_t)q[i] << (8 * i);
		v >>= sh;
		v |= (uint64_t)q[8] << (64 - sh);
	}
	return len == 64 ? v : v & ((1ULL << len) - 1);
}

uint64_t tio_bits_be(const uint8_t *p, uint64_t at, unsigned len)
{
	const uint8_t *q = p + (at >> 3);
	unsigned sh = (unsigned)(at & 7);
	unsigned nbytes = (sh + len + 7) >> 3;
	uint64_t v = 0;
	if (nbytes <= 8) {
		for (unsigned i = 0; i < nbytes; i++)
			v = (v << 8) | q[i];
		v >>= (nbytes * 8 - sh - len);
	} else {
		/* bits sh..sh+len of 9 bytes: take 8 bytes then shift in the rest */
		for (unsigned i = 0; i < 8; i++)
			v = (v << 8) | q[i];
		unsigned extra = sh + len - 64; /* bits needed from q[8] */
		v = (v << extra) | (q[8] >> (8 - extra));
	}
	return len == 64 ? v : v & ((1ULL << len) - 1);
}

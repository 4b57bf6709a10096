/*
 * Shared low-level pieces that depend on nothing else in the tree:
 * errors, allocation, growable buffers, mapped files, bit reading.
 */
#ifndef TIO_COMMON_H
#define TIO_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "traceio/error.h"

#define TIO_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define TIO_UNUSED(x) ((void)(x))

#if defined(__GNUC__)
#define TIO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TIO_LIKELY(x) __builtin_expect(!!(x), 1)
#define TIO_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TIO_PRINTF(a, b)
#define TIO_LIKELY(x) (x)
#define TIO_UNLIKELY(x) (x)
#endif

/* ---------------------------------------------------------------- errors
 *
 * A thread-local chain of causes.  The innermost layer calls tio_err_set()
 * with what went wrong and where (file, byte offset or line:column, field
 * path); each outer layer may add context with tio_err_push().  The message
 * a user sees is the chain, outermost first, joined by ": ".
 * Every function that sets an error returns the status it passes.
 */
int tio_err_set(int status, const char *fmt, ...) TIO_PRINTF(2, 3);
int tio_err_push(int status, const char *fmt, ...) TIO_PRINTF(2, 3);
int tio_err_oom(void);
void tio_err_clear(void);

/* ---------------------------------------------------------------- allocation */

void *tio_malloc(size_t n);		 /* sets the error on failure */
void *tio_calloc(size_t n, size_t sz);	 /* sets the error on failure, checks overflow */
void *tio_realloc(void *p, size_t n);	 /* sets the error on failure; p unchanged */
char *tio_strdup(const char *s);
char *tio_strndup(const char *s, size_t n);
char *tio_asprintf(const char *fmt, ...) TIO_PRINTF(1, 2);

/* Grow *arr (of *cap elements of size sz) to hold at least `need` elements. */
int tio_grow(void *arr, size_t *cap, size_t need, size_t sz);

/* ---------------------------------------------------------------- byte buffers */

typedef struct tio_buf {
	char *p;
	size_t len, cap;
} tio_buf;

/* The slow path of tio_buf_reserve and tio_buf_add: grow b for `extra` more bytes (and a NUL). */
int tio_buf_grow_(tio_buf *b, size_t extra);
/* Room for `extra` more bytes and a NUL: 0, or TIO_ERR_NOMEM. */
static inline int tio_buf_reserve(tio_buf *b, size_t extra)
{
	return TIO_LIKELY(b->len + extra + 1 <= b->cap) ? 0 : tio_buf_grow_(b, extra);
}
static inline int tio_buf_add(tio_buf *b, const void *p, size_t n)
{
	if (TIO_UNLIKELY(b->len + n + 1 > b->cap) && tio_buf_grow_(b, n))
		return TIO_ERR_NOMEM;
	if (n <= 16) { /* short pieces (names, punctuation): no call */
		char *d = b->p + b->len;
		const char *s = (const char *)p;
		for (size_t k = 0; k < n; k++)
			d[k] = s[k];
	} else {
		memcpy(b->p + b->len, p, n);
	}
	b->len += n;
	return 0;
}
/* Append a C string: one pass for short ones (no strlen, then copy). */
static inline int tio_buf_adds(tio_buf *b, const char *s)
{
	if (TIO_LIKELY(b->len + 33 <= b->cap)) {
		char *dst = b->p + b->len;
		for (int k = 0; k < 32; k++) {
			if (!s[k]) {
				b->len += (size_t)k;
				return 0;
			}
			dst[k] = s[k];
		}
	}
	return tio_buf_add(b, s, strlen(s));
}
static inline int tio_buf_addc(tio_buf *b, char c)
{
	if (TIO_UNLIKELY(b->len + 2 > b->cap) && tio_buf_grow_(b, 1))
		return TIO_ERR_NOMEM;
	b->p[b->len++] = c;
	return 0;
}
/* Append a string literal (length known at compile time). */
#define tio_buf_addl(b, lit) tio_buf_add((b), "" lit, sizeof(lit) - 1) /* literals only */
int tio_buf_addf(tio_buf *b, const char *fmt, ...) TIO_PRINTF(2, 3);
int tio_buf_vaddf(tio_buf *b, const char *fmt, va_list ap);
void tio_buf_free(tio_buf *b);
/* Append code point cp as UTF-8. */
int tio_buf_add_cp(tio_buf *b, uint32_t cp);
/*
 * Length of the valid UTF-8 sequence at s (1..4; `left` bytes there), or 0
 * when invalid; then *skip is the length of its maximal valid prefix (at
 * least 1), which becomes one U+FFFD (Unicode's "maximal subpart" practice,
 * as Python's "replace").
 */
size_t tio_utf8_seq(const uint8_t *s, size_t left, size_t *skip);
/* Fast number formatting (no printf): decimal, zero-padded decimal, hex. */
int tio_buf_addu(tio_buf *b, uint64_t v);
int tio_buf_addi(tio_buf *b, int64_t v);
int tio_buf_addu_pad(tio_buf *b, uint64_t v, unsigned width);
int tio_buf_addx(tio_buf *b, uint64_t v, bool upper);
static inline void tio_buf_reset(tio_buf *b) { b->len = 0; }
/* NUL-terminated view (b->p may be NULL when empty). */
const char *tio_buf_cstr(tio_buf *b);

/* ---------------------------------------------------------------- files */

/* A read-only mapping of a whole file.  Empty files map to p == NULL, size 0. */
typedef struct tio_map {
	const uint8_t *p;
	uint64_t size;
	char *path;
	uint64_t released; /* bytes before this were handed back (tio_map_release) */
	bool ahead;	   /* tio_map_prefetch was called: the helper thread has work on it */
} tio_map;

int tio_map_open(tio_map *m, const char *path);
void tio_map_close(tio_map *m);
/*
 * Tell the kernel the bytes before `upto` will not be read again, so that
 * resident memory stays flat however big the file is (pages are dropped,
 * and read again from the file if they ever are).
 */
void tio_map_release(tio_map *m, uint64_t upto);
/* Map [off, off + len) in one go ahead of reading it (fewer page faults); a hint only. */
void tio_map_populate(tio_map *m, uint64_t off, uint64_t len);
/*
 * The same, done by a helper thread while the caller reads on: for the
 * bytes the caller reads next, not now (a hint only; returns at once).
 * After a first call on `m`, tio_map_release hands its work to the helper
 * too.  With one CPU, or TIO_READAHEAD=0 in the environment, there is no
 * helper and this does nothing (tio_map_release stays synchronous).
 */
void tio_map_prefetch(tio_map *m, uint64_t off, uint64_t len);
/* Drop the pages of [off, off + len) now (a hint: they are read again if needed). */
void tio_map_drop(tio_map *m, uint64_t off, uint64_t len);
/*
 * Reads here and there in [off, off + len) (sparse: an index's packet
 * headers, a binary search) from now until tio_map_sparse(m, off, len,
 * false): a fault on a page not cached then reads that page, not the
 * read-ahead window (which can be 8 MiB: a cold index would read the file).
 */
void tio_map_sparse(tio_map *m, uint64_t off, uint64_t len, bool on);
/* The reader goes back to `off` (a seek): tio_map_release drops from there again. */
void tio_map_rewind(tio_map *m, uint64_t off);

/* Remove a directory tree, symbolic links not followed (NULL: nothing). src/common/outdir.c */
void tio_rm_tree(const char *path);
/*
 * A writer's finished directory `src` put at `out` in one rename.  An
 * existing `out` needs `force`, and a directory there is replaced only when
 * empty or when it holds a file named `marker` ("metadata", "meta.json":
 * what the writer writes; the error then says "a directory without
 * `what`"); it is moved aside first and removed once `src` is in place.
 */
int tio_dir_replace(const char *src, const char *out, bool force, const char *marker, const char *what);
/*
 * mkdtemp with the permissions of mkdir(path, 0777): `tmpl` ends in XXXXXX,
 * replaced by the name made.  mkdtemp's 0700 would stay on an output that
 * is the temporary directory renamed (several traces), and other users (a
 * query engine's service account) could not read it.  0, or -1 with errno.
 */
int tio_mkdtemp(char *tmpl);

/* Read a whole (small) file into a malloc'd NUL-terminated buffer. */
int tio_read_file(const char *path, char **out, size_t *len);

bool tio_is_dir(const char *path);
bool tio_is_file(const char *path);
char *tio_path_join(const char *a, const char *b);
/*
 * An absolute, lexically normalized path ("." and ".." folded) without
 * resolving symbolic links: relative paths are taken from $PWD when it
 * names the current directory (as the shell and babeltrace2 show it).
 */
char *tio_path_abs(const char *path);

/*
 * Write a file atomically: open a temp file next to `path`, let the caller
 * fill it, then rename over `path` (or remove it on failure).
 */
typedef struct tio_outfile {
	FILE *f;
	char *path;
	char *tmp;
} tio_outfile;

int tio_outfile_open(tio_outfile *o, const char *path);
int tio_outfile_commit(tio_outfile *o);
void tio_outfile_abort(tio_outfile *o);

/* ---------------------------------------------------------------- byte order */

static inline uint16_t tio_bswap16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t tio_bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t tio_bswap64(uint64_t v) { return __builtin_bswap64(v); }

static inline uint16_t tio_le16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t tio_le32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t tio_le64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint16_t tio_be16(const void *p) { return tio_bswap16(tio_le16(p)); }
static inline uint32_t tio_be32(const void *p) { return tio_bswap32(tio_le32(p)); }
static inline uint64_t tio_be64(const void *p) { return tio_bswap64(tio_le64(p)); }

/*
 * Read `len` (1..64) bits at bit offset `at` of `p`, CTF style:
 * little-endian fields fill from the least significant bit of each byte,
 * big-endian ones from the most significant.  The caller guarantees the
 * bytes exist.
 */
uint64_t tio_bits_le(const uint8_t *p, uint64_t at, unsigned len);
uint64_t tio_bits_be(const uint8_t *p, uint64_t at, unsigned len);

/* The low `len` (1..64) bits of v in the reverse order (CTF 2 bit order opposite to the byte order). */
static inline uint64_t tio_bit_reverse(uint64_t v, unsigned len)
{
	uint64_t r = 0;
	for (unsigned k = 0; k < len; k++)
		r |= ((v >> k) & 1) << (len - 1 - k);
	return r;
}

static inline int64_t tio_sext(uint64_t v, unsigned len)
{
	if (len >= 64)
		return (int64_t)v;
	uint64_t m = 1ULL << (len - 1);
	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

#endif

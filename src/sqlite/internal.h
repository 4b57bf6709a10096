/* Pieces shared by the files of src/sqlite/ (not installed). */
#ifndef TIO_SQLITE_INTERNAL_H
#define TIO_SQLITE_INTERNAL_H

#include <traceio/traceio.h>

#include "tio-sqlite.h"

/* A growable text buffer reused from row to row (no allocation per event once grown). */
typedef struct jbuf {
	char *p;
	size_t len, cap;
	bool oom;
} jbuf;

void jb_reset(jbuf *b);
void jb_free(jbuf *b);
void jb_put(jbuf *b, const char *s, size_t n);
void jb_putc(jbuf *b, char c);
void jb_puts(jbuf *b, const char *s);
void jb_u64(jbuf *b, uint64_t u);
void jb_i64(jbuf *b, int64_t i);
/* A JSON string from UTF-8 text (invalid sequences become U+FFFD). */
void jb_json_str(jbuf *b, const char *s, size_t len);
/* A value as JSON, with the conventions of `print --style json` (docs/formats/json.md). */
void jb_json_value(jbuf *b, const tio_field *f, int depth);
/* An integer wider than 64 bits: "0x..." hex digits, most significant first (no quotes). */
void jb_big_hex(jbuf *b, const tio_field *f);

/* Result of one value as an SQL value: integers, reals, text, BLOBs, JSON text for compounds. */
void tio_sqlite_result_field(sqlite3_context *ctx, const tio_field *f, jbuf *scratch);

/* ------------------------------------------------------------ derived tables (derived.c) */

enum tio_table_kind {
	TK_EVENTS = 0,
	TK_CLASS,
	TK_DISCARDED,
	TK_CLOCKS,
	TK_ENV,
	TK_SCHED_SLICE,
	TK_THREAD_STATE,
	TK_THREAD,
	TK_PROCESS,
	TK_COUNTER,
};

struct dstate;
/* Column declarations of a derived table ("ts INTEGER, dur INTEGER, ..."). */
const char *tio_derived_schema(int kind);
/* Whether a derived table's rows are in ts order (sched_slice, thread_state, counter). */
bool tio_derived_by_ts(int kind);
/* A derived table's state over one walk of the traces. */
struct dstate *tio_derived_new(int kind);
void tio_derived_free(struct dstate *d);
/*
 * Feed one message (NULL: the end of the traces).  Every row is kept;
 * at the end they are sorted by ts (tio_derived_by_ts) and the walk's
 * state is freed, so the traces may then be closed.  0, or -1 when out
 * of memory.
 */
int tio_derived_feed(struct dstate *d, const tio_msg *m);
/* After the end: the number of rows (0 before the end). */
size_t tio_derived_rows(const struct dstate *d);
/* Row i's ts, its cpu (false when NULL), the first row with ts >= a bound (tables in ts order). */
int64_t tio_derived_ts(const struct dstate *d, size_t i);
bool tio_derived_cpu(const struct dstate *d, size_t i, int64_t *cpu);
size_t tio_derived_lower(const struct dstate *d, int64_t ts);
/* Column `col` of row `i` (0-based) into ctx. */
void tio_derived_column(const struct dstate *d, size_t i, int col, sqlite3_context *ctx);

#endif

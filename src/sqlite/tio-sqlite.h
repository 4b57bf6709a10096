/*
 * traceio's SQLite virtual tables: SQL over opened traces, read directly
 * (no import: every query opens the traces again and walks their merged
 * messages, so memory stays flat).  Used by `traceio sql`, `traceio convert
 * --to sqlite` and the loadable extension libtraceio_sqlite.so; built on the
 * public API (include/traceio/) alone.  docs/sql.md describes the tables.
 *
 * The same sources are compiled twice: linked with libsqlite3 for the CLI,
 * and with -DTIO_SQLITE_EXTENSION (sqlite3ext.h's routine table) for the
 * loadable extension.
 */
#ifndef TIO_SQLITE_H
#define TIO_SQLITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef TIO_SQLITE_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif

/* The module's state for one connection (client data of module "traceio"). */
typedef struct tio_sqlite tio_sqlite;

/* A warning (a damaged packet skipped...) is handed to fn; default: stderr. */
typedef void (*tio_sqlite_warn_fn)(void *arg, const char *msg);

/*
 * Register module "traceio" and the SQL functions traceio_attach() on db.
 * *out (may be NULL) receives the module's state, owned by db (freed when
 * db is closed).
 */
int tio_sqlite_register(sqlite3 *db, tio_sqlite **out);
void tio_sqlite_set_warn(tio_sqlite *s, tio_sqlite_warn_fn fn, void *arg);
/* Warnings given so far (damaged units skipped while reading). */
uint64_t tio_sqlite_warnings(const tio_sqlite *s);

/* Options of a set of traces, as the module's arguments give them. */
typedef struct tio_sqlite_args {
	char **paths;	  /* malloc'd, npaths of them, each malloc'd */
	size_t npaths;
	char *table;	  /* "events", "discarded", a class name... (malloc'd, NULL: events) */
	char *format;	  /* reader name or NULL */
	bool clock_exact;
	char *ts2secs;	  /* trace.dat reader option ts2secs (Hz, digits) or NULL */
	bool raw_ts;	  /* trace.dat reader option raw-ts */
} tio_sqlite_args;

/*
 * Parse a virtual table's arguments (argv as xCreate gets them, after the
 * module, database and table names): 'PATH' ['TABLE'] or key=value items
 * path=, table=, format=, clock_exact=, ts2secs=, raw_ts=.  0, or -1 with *err set (malloc'd
 * message).  Pure: opens nothing (fuzz/sqlargs_fuzzer.c).
 */
int tio_sqlite_parse_args(int argc, const char *const *argv, tio_sqlite_args *a, char **err);
void tio_sqlite_args_free(tio_sqlite_args *a);

/*
 * Create, in schema `schema` ("main", "temp"...), a virtual table for each
 * table the traces give: events, discarded, clocks, env, one per event class,
 * the derived scheduling tables.  `a->table` is ignored.  0 or an SQLite
 * error code with *err set (sqlite3_malloc'd).
 */
int tio_sqlite_attach(tio_sqlite *s, sqlite3 *db, const char *schema, const tio_sqlite_args *a, char **err);

/*
 * `traceio convert --to sqlite`: every table of the traces (the event
 * classes that have events) copied into a database file at `out`, with an
 * index on ts; written to a temporary file renamed at the end.  0, or an
 * SQLite code with *err set (sqlite3_malloc'd).  *warnings: damaged parts
 * skipped.
 */
int tio_sqlite_materialize(const tio_sqlite_args *a, const char *out, tio_sqlite_warn_fn warn, void *warn_arg,
			   uint64_t *warnings, char **err);

/*
 * `traceio convert --to sqlite`: every table of the traces (the event
 * classes that have events) copied into a database file at `out`, with an
 * index on ts; written to a temporary file renamed at the end.  0, or an
 * SQLite code with *err set (sqlite3_malloc'd).  *warnings: damaged parts
 * skipped.
 */
int tio_sqlite_materialize(const tio_sqlite_args *a, const char *out, tio_sqlite_warn_fn warn, void *warn_arg,
			   uint64_t *warnings, char **err);

#endif

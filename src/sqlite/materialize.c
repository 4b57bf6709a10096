/*
 * `traceio convert --to sqlite`: the virtual tables materialized into an
 * SQLite database file (ordinary tables, an index on ts), for tools that
 * read SQLite files.  Written under a temporary name beside the output and
 * renamed at the end: a failure leaves no partial file.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tio-sqlite.h"

/* Run one statement; 0, or the SQLite code with *err set. */
static int exec(sqlite3 *db, char *sql, char **err)
{
	if (!sql)
		return SQLITE_NOMEM;
	char *e = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &e);
	sqlite3_free(sql);
	if (rc != SQLITE_OK && !*err)
		*err = sqlite3_mprintf("%s", e ? e : sqlite3_errstr(rc));
	sqlite3_free(e);
	return rc;
}

/* Whether table `t` of schema main has a column `ts`. */
static bool has_ts(sqlite3 *db, const char *t)
{
	sqlite3_stmt *st;
	bool yes = false;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = 'ts'", -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int tio_sqlite_materialize(const tio_sqlite_args *a, const char *out, tio_sqlite_warn_fn warn, void *warn_arg,
			   uint64_t *warnings, char **err)
{
	sqlite3 *db = NULL;
	tio_sqlite *s = NULL;
	char *tmp = NULL;
	int rc;
	*err = NULL;
	if (!(tmp = malloc(strlen(out) + 16)))
		return SQLITE_NOMEM;
	sprintf(tmp, "%s.tmp-XXXXXX", out);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		*err = sqlite3_mprintf("%s: cannot create a temporary file beside it", out);
		free(tmp);
		return SQLITE_CANTOPEN;
	}
	mode_t um = umask(0); /* the mode a new file gets, not mkstemp's 0600 */
	umask(um);
	fchmod(fd, 0666 & ~um);
	close(fd);
	rc = sqlite3_open(":memory:", &db);
	if (rc == SQLITE_OK)
		rc = tio_sqlite_register(db, &s);
	if (rc != SQLITE_OK)
		goto fail;
	tio_sqlite_set_warn(s, warn, warn_arg);
	if ((rc = tio_sqlite_attach(s, db, "main", a, err)) != SQLITE_OK)
		goto fail;
	if ((rc = exec(db, sqlite3_mprintf("ATTACH %Q AS out", tmp), err)) != SQLITE_OK ||
	    (rc = exec(db, sqlite3_mprintf("PRAGMA out.journal_mode = OFF; PRAGMA out.synchronous = OFF; BEGIN"), err)) !=
		    SQLITE_OK)
		goto fail;
	/* the tables: the fixed and derived ones, and the classes that have events (one read) */
	sqlite3_stmt *st;
	rc = sqlite3_prepare_v2(db,
				"SELECT name FROM main.sqlite_schema WHERE type = 'table' AND (name IN ('events', "
				"'discarded', 'clocks', 'env', 'sched_slice', 'thread_state', 'thread', 'process', "
				"'counter') OR name IN (SELECT DISTINCT name FROM events) OR name IN (SELECT 'class:' || "
				"name FROM events)) ORDER BY name",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		*err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
		goto fail;
	}
	char **names = NULL;
	size_t n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup((const char *)sqlite3_column_text(st, 0)))) {
			names = v ? v : names;
			rc = SQLITE_NOMEM;
			break;
		}
		names = v;
		n++;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_NOMEM && !*err)
		*err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
		rc = exec(db, sqlite3_mprintf("CREATE TABLE out.\"%w\" AS SELECT * FROM main.\"%w\"", names[i], names[i]),
			  err);
		if (rc == SQLITE_OK && has_ts(db, names[i]))
			rc = exec(db, sqlite3_mprintf("CREATE INDEX out.\"%w:ts\" ON \"%w\"(ts)", names[i], names[i]), err);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc != SQLITE_OK)
		goto fail;
	if ((rc = exec(db, sqlite3_mprintf("COMMIT"), err)) != SQLITE_OK ||
	    (rc = exec(db, sqlite3_mprintf("DETACH out"), err)) != SQLITE_OK)
		goto fail;
	if (warnings)
		*warnings = tio_sqlite_warnings(s);
	sqlite3_close(db);
	if (rename(tmp, out)) {
		*err = sqlite3_mprintf("%s: cannot rename the temporary file to it", out);
		unlink(tmp);
		free(tmp);
		return SQLITE_CANTOPEN;
	}
	free(tmp);
	return SQLITE_OK;
fail:
	if (!*err)
		*err = sqlite3_mprintf("%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	int prim = rc & 0xff;
	if (*err && strncmp(*err, "traceio:", 8) &&
	    (prim == SQLITE_FULL || prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN ||
	     prim == SQLITE_READONLY)) {
		/* writing the output failed: name it */
		char *m = sqlite3_mprintf("%s: %s", out, *err);
		if (m) {
			sqlite3_free(*err);
			*err = m;
		}
	}
	if (warnings && s)
		*warnings = tio_sqlite_warnings(s);
	sqlite3_close(db);
	unlink(tmp);
	free(tmp);
	return rc ? rc : SQLITE_ERROR;
}

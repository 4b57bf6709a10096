/*
 * libtraceio_sqlite.so: the virtual tables as a loadable SQLite extension
 * (`.load libtraceio_sqlite` in the sqlite3 shell, load_extension() from
 * Python's sqlite3).  Registers module "traceio" and traceio_attach().
 */
#include "tio-sqlite.h"

SQLITE_EXTENSION_INIT1

/* The entry point SQLite derives from the file name (libtraceio_sqlite.so). */
__attribute__((visibility("default"))) int sqlite3_traceiosqlite_init(sqlite3 *db, char **err,
								     const sqlite3_api_routines *api)
{
	SQLITE_EXTENSION_INIT2(api);
	int rc = tio_sqlite_register(db, NULL);
	if (rc != SQLITE_OK && err)
		*err = sqlite3_mprintf("traceio: cannot register the module: %s", sqlite3_errstr(rc));
	return rc;
}

/* The generic entry point, for a copy under another name. */
__attribute__((visibility("default"))) int sqlite3_extension_init(sqlite3 *db, char **err,
								 const sqlite3_api_routines *api)
{
	return sqlite3_traceiosqlite_init(db, err, api);
}

/*
 * Module "traceio": SQLite virtual tables over traces (docs/sql.md).
 *
 * A table is declared from the traces' classes (opened once per set of
 * paths and shared by the tables of that set); each query (xFilter) opens
 * the traces again, merges their streams with a tio_mux and walks the
 * messages: nothing is imported and memory does not grow with the trace.
 * The derived tables (sched_slice, thread_state, thread, process, counter)
 * are the exception: one walk on a table's first query makes their rows,
 * kept in the table (struct vtab) for every later query and cursor, a ts
 * bound found by binary search.
 * `ts` bounds go to tio_mux_set_begin/end, `cpu`, `stream` and (events)
 * `name` equalities are checked before a row is made, and a per-class
 * table looks its event classes up by pointer.  Values are read only for
 * the columns a query asks for (xColumn).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct tset;

struct tio_sqlite {
	tio_sqlite_warn_fn warn;
	void *warn_arg;
	uint64_t warnings;
	struct tset *sets; /* traces opened for declaring tables, shared by key */
};

/* A column of a per-class table: its name and the path of its value. */
typedef struct colinfo {
	char *name;
	char *path; /* "payload.a.b", "context.vtid", "common_context.common_pid" */
	const char *type;
} colinfo;

/* Traces opened to declare tables, shared by the tables made from the same arguments. */
typedef struct tset {
	struct tset *next;
	int refs;
	char *key;
	tio_sqlite_args args;
	tio_trace **traces;
	size_t ntraces;
} tset;

typedef struct vtab {
	sqlite3_vtab base;
	tio_sqlite *s;
	tset *set;
	int kind;
	char *cls; /* TK_CLASS: the event class name */
	colinfo *cols; /* TK_CLASS: the columns after the fixed ones */
	size_t ncols;
	struct dstate *d; /* derived tables: the rows, made by the first query (NULL before) */
} vtab;

/* Fixed columns. */
enum { EV_TS, EV_NAME, EV_CPU, EV_STREAM, EV_TRACE, EV_PID, EV_TID, EV_COMM, EV_ARGS, EV_N };
enum { CL_TS, CL_CPU, CL_STREAM, CL_TRACE, CL_N };
enum { DI_TS, DI_TS_END, DI_COUNT, DI_KIND, DI_CPU, DI_STREAM, DI_TRACE };
enum { CK_TRACE, CK_NAME, CK_DESC, CK_FREQ, CK_OFF_S, CK_OFF_C, CK_PREC, CK_UNIX, CK_UUID };
enum { EN_TRACE, EN_KEY, EN_VALUE };

static const char *const fixed_tables[] = {"events", "discarded", "clocks", "env", "sched_slice",
					   "thread_state", "thread", "process", "counter", NULL};
static const int fixed_kinds[] = {TK_EVENTS, TK_DISCARDED, TK_CLOCKS, TK_ENV, TK_SCHED_SLICE,
				  TK_THREAD_STATE, TK_THREAD, TK_PROCESS, TK_COUNTER};

/* Per event class, what a cursor needs (found by the class pointer). */
typedef struct ecinfo {
	const tio_event_class *ec;
	bool match;	/* a row of this table (class name, name = constraint) */
	bool tracedat;	/* tid from common_pid, comm from the saved cmdlines */
	int has;	/* bits: 1 tid, 2 pid, 4 comm */
	tio_field_ref tid, pid, comm;
	tio_field_ref *refs; /* TK_CLASS: one per column */
	bool *ok;
	uint64_t count; /* grouped scan: rows of this class */
} ecinfo;

/* Grouped scan: a name and how many rows have it. */
typedef struct group {
	const char *name; /* NULL: unnamed class */
	uint64_t n;
} group;

typedef struct cursor {
	sqlite3_vtab_cursor base;
	tio_trace **traces;
	size_t ntraces;
	tio_mux *mux;
	const tio_msg *msg;
	ecinfo *cur;
	bool eof;
	sqlite3_int64 rowid;
	/* constraints */
	bool has_cpu, has_stream, has_begin, has_end;
	uint64_t cpu, stream;
	int64_t begin, end;
	char *name_eq;
	/* event classes seen, hashed by pointer */
	ecinfo **map;
	size_t mapcap, mapn;
	jbuf scratch;
	/* clocks, env: trace index and row within it */
	size_t ti, ri;
	/* derived tables: the row of the table's rows (vtab.d) */
	size_t di;
	/* grouped scan (events: only `name` read, grouped by it) */
	bool grouped;
	/*
	 * events, class and discarded tables: the traces and mux stay open from
	 * one xFilter to the next (the inner loop of a join) and the next query
	 * seeks (tio_mux_seek) instead of opening them again; the end bound is
	 * then checked here (reusable: every stream in time order, no LTTng 0.x)
	 */
	bool reusable;
	group *groups;
	size_t ngroups, gi;
	uint64_t gleft;
} cursor;

/* ------------------------------------------------------------ warnings */

/* Default warning printer: stderr, as `traceio print` warns. */
static void warn_stderr(void *arg, const char *msg)
{
	fprintf(stderr, "traceio: warning: %s\n", msg);
}

/* Where warnings go (damaged parts skipped); NULL: stderr. */
void tio_sqlite_set_warn(tio_sqlite *s, tio_sqlite_warn_fn fn, void *arg)
{
	s->warn = fn ? fn : warn_stderr;
	s->warn_arg = arg;
}

/* How many warnings the tables gave (the CLI exits 1 when any). */
uint64_t tio_sqlite_warnings(const tio_sqlite *s)
{
	return s->warnings;
}

/* ------------------------------------------------------------ opening traces */

/* Free traces opened by open_traces. */
static void free_traces(tio_trace **t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tio_trace_free(t[i]);
	free(t);
}

/*
 * Open every trace the arguments name, as the CLI does (directories
 * searched, one trace found twice merged), with their reader options.
 * 0, or an SQLite code with *err set.
 */
static int open_traces(const tio_sqlite_args *a, tio_trace ***out, size_t *nout, char **err)
{
	tio_trace **all = NULL;
	size_t n = 0;
	for (size_t i = 0; i < a->npaths; i++) {
		tio_trace **v;
		size_t k;
		if (tio_trace_open_all(a->paths[i], a->format, &v, &k)) {
			*err = sqlite3_mprintf("traceio: %s", tio_error_message());
			free_traces(all, n);
			return SQLITE_ERROR;
		}
		tio_trace **nall = realloc(all, (n + k) * sizeof(*all));
		if (!nall) {
			free_traces(v, k);
			free_traces(all, n);
			return SQLITE_NOMEM;
		}
		all = nall;
		memcpy(all + n, v, k * sizeof(*v));
		n += k;
		free(v);
	}
	if (tio_traces_merge(all, &n)) {
		*err = sqlite3_mprintf("traceio: %s", tio_error_message());
		free_traces(all, n);
		return SQLITE_ERROR;
	}
	size_t tracedat = 0;
	for (size_t i = 0; i < n; i++) {
		bool td = !strcmp(tio_trace_format(all[i]), "tracedat");
		tracedat += td;
		if ((a->clock_exact && tio_trace_set(all[i], "clock-exact", "1")) ||
		    (td && a->ts2secs && tio_trace_set(all[i], "ts2secs", a->ts2secs)) ||
		    (td && a->raw_ts && tio_trace_set(all[i], "raw-ts", "1"))) {
			*err = sqlite3_mprintf("traceio: %s", tio_error_message());
			free_traces(all, n);
			return SQLITE_ERROR;
		}
	}
	if ((a->ts2secs || a->raw_ts) && !tracedat) {
		*err = sqlite3_mprintf("traceio: %s is for trace.dat inputs, and none is one", a->ts2secs ? "ts2secs" : "raw_ts");
		free_traces(all, n);
		return SQLITE_ERROR;
	}
	*out = all;
	*nout = n;
	return SQLITE_OK;
}

/* The key of a set of traces: its paths and reader options. */
static char *set_key(const tio_sqlite_args *a)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	sqlite3_str_appendf(s, "%s|%d|%s|%d", a->format ? a->format : "", a->clock_exact, a->ts2secs ? a->ts2secs : "",
			    a->raw_ts);
	for (size_t i = 0; i < a->npaths; i++)
		sqlite3_str_appendf(s, "|%d:%s", (int)strlen(a->paths[i]), a->paths[i]);
	return sqlite3_str_finish(s);
}

/* Copy arguments (paths and options; not the table). */
static int args_copy(tio_sqlite_args *to, const tio_sqlite_args *a)
{
	memset(to, 0, sizeof(*to));
	to->paths = calloc(a->npaths ? a->npaths : 1, sizeof(char *));
	if (!to->paths)
		return SQLITE_NOMEM;
	for (size_t i = 0; i < a->npaths; i++) {
		if (!(to->paths[i] = strdup(a->paths[i]))) {
			tio_sqlite_args_free(to);
			return SQLITE_NOMEM;
		}
		to->npaths++;
	}
	if (a->format && !(to->format = strdup(a->format))) {
		tio_sqlite_args_free(to);
		return SQLITE_NOMEM;
	}
	to->clock_exact = a->clock_exact;
	to->raw_ts = a->raw_ts;
	if (a->ts2secs && !(to->ts2secs = strdup(a->ts2secs))) {
		tio_sqlite_args_free(to);
		return SQLITE_NOMEM;
	}
	return SQLITE_OK;
}

/* The shared set for these arguments, opened on first use; a reference is taken. */
static int set_get(tio_sqlite *s, const tio_sqlite_args *a, tset **out, char **err)
{
	char *key = set_key(a);
	if (!key)
		return SQLITE_NOMEM;
	for (tset *t = s->sets; t; t = t->next) {
		if (!strcmp(t->key, key)) {
			sqlite3_free(key);
			t->refs++;
			*out = t;
			return SQLITE_OK;
		}
	}
	tset *t = calloc(1, sizeof(*t));
	if (!t) {
		sqlite3_free(key);
		return SQLITE_NOMEM;
	}
	t->key = key;
	int rc = args_copy(&t->args, a);
	if (rc == SQLITE_OK)
		rc = open_traces(a, &t->traces, &t->ntraces, err);
	if (rc != SQLITE_OK) {
		tio_sqlite_args_free(&t->args);
		sqlite3_free(key);
		free(t);
		return rc;
	}
	t->refs = 1;
	t->next = s->sets;
	s->sets = t;
	*out = t;
	return SQLITE_OK;
}

/* Drop a reference to a set; the last one closes its traces. */
static void set_put(tio_sqlite *s, tset *t)
{
	if (!t || --t->refs > 0)
		return;
	for (tset **p = &s->sets; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			break;
		}
	}
	free_traces(t->traces, t->ntraces);
	tio_sqlite_args_free(&t->args);
	sqlite3_free(t->key);
	free(t);
}

/* ------------------------------------------------------------ per-class columns */

/* The SQL type of a leaf field class. */
static const char *leaf_type(const tio_field_class *fc)
{
	switch (tio_field_class_kind(fc)) {
	case TIO_FIELD_INT:
	case TIO_FIELD_ENUM:
	case TIO_FIELD_BITMAP:
		return tio_field_class_int_size(fc) > 64 ? "TEXT" : "INTEGER";
	case TIO_FIELD_BOOL:
	case TIO_FIELD_VARINT:
		return "INTEGER";
	case TIO_FIELD_FLOAT:
		return "REAL";
	case TIO_FIELD_STATIC_BLOB:
	case TIO_FIELD_DYNAMIC_BLOB:
		return "BLOB";
	default:
		return "TEXT"; /* strings; arrays, variants, optionals as JSON */
	}
}

typedef struct colset {
	colinfo *v;
	size_t n, cap;
	bool oom;
} colset;

#define MAX_CLASS_COLUMNS 1900 /* SQLite allows 2000 columns */

/* The column named `name` (case-insensitive, as SQLite compares), or -1. */
static long col_find(const colset *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!sqlite3_stricmp(c->v[i].name, name))
			return (long)i;
	return -1;
}

/* Add a column unless one with its name and path exists; names taken by another path get the scope's prefix. */
static void col_add(colset *c, const char *scope, const char *name, const char *type)
{
	static const char *const fixed[] = {"ts", "cpu", "stream", "trace", NULL};
	char *path = sqlite3_mprintf("%s.%s", scope, name);
	if (!path) {
		c->oom = true;
		return;
	}
	char *cname = sqlite3_mprintf("%s", name);
	bool clash = false;
	for (int i = 0; fixed[i]; i++)
		clash |= !sqlite3_stricmp(fixed[i], name);
	long at = col_find(c, name);
	if (at >= 0 && !strcmp(c->v[at].path, path)) {
		sqlite3_free(path);
		sqlite3_free(cname);
		return;
	}
	if (clash || at >= 0) {
		sqlite3_free(cname);
		cname = sqlite3_mprintf("%s", path);
		if (cname && col_find(c, cname) >= 0) {
			sqlite3_free(path);
			sqlite3_free(cname);
			return;
		}
	}
	if (!cname || c->n >= MAX_CLASS_COLUMNS) {
		c->oom |= !cname;
		sqlite3_free(path);
		sqlite3_free(cname);
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		colinfo *v = realloc(c->v, cap * sizeof(*v));
		if (!v) {
			c->oom = true;
			sqlite3_free(path);
			sqlite3_free(cname);
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (colinfo){cname, path, type};
}

/* The leaves of a structure's members, names joined with '.'. */
static void col_walk(colset *c, const char *scope, const char *prefix, const tio_field_class *fc, int depth)
{
	uint32_t n = tio_field_class_member_count(fc);
	for (uint32_t i = 0; i < n && !c->oom; i++) {
		const char *m = tio_field_class_member_name(fc, i);
		const tio_field_class *mc = tio_field_class_member_class(fc, i);
		if (!m || !mc || strchr(m, '.') || strchr(m, '['))
			continue; /* not reachable by a path */
		char *name = prefix ? sqlite3_mprintf("%s.%s", prefix, m) : sqlite3_mprintf("%s", m);
		if (!name) {
			c->oom = true;
			return;
		}
		if (tio_field_class_kind(mc) == TIO_FIELD_STRUCT && depth + 2 < TIO_FIELD_REF_MAX_DEPTH)
			col_walk(c, scope, name, mc, depth + 1);
		else
			col_add(c, scope, name, leaf_type(mc));
		sqlite3_free(name);
	}
}

/* Columns of every event class named `cls` in the traces: payload, then contexts. */
static int class_columns(tset *t, const char *cls, colset *c, bool *found)
{
	static const struct { int scope; const char *name; } scopes[] = {
		{TIO_SCOPE_EVENT_PAYLOAD, "payload"},
		{TIO_SCOPE_SPECIFIC_CONTEXT, "context"},
		{TIO_SCOPE_COMMON_CONTEXT, "common_context"},
	};
	*found = false;
	for (size_t ti = 0; ti < t->ntraces; ti++) {
		const tio_trace *tr = t->traces[ti];
		for (uint32_t si = 0; si < tio_trace_stream_class_count(tr); si++) {
			const tio_stream_class *sc = tio_trace_stream_class(tr, si);
			for (uint32_t ei = 0; ei < tio_stream_class_event_class_count(sc); ei++) {
				const tio_event_class *ec = tio_stream_class_event_class(sc, ei);
				const char *name = tio_event_class_name(ec);
				if (!name || strcmp(name, cls))
					continue;
				*found = true;
				for (size_t k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++) {
					const tio_field_class *fc = tio_event_class_scope(ec, scopes[k].scope);
					if (fc && tio_field_class_kind(fc) == TIO_FIELD_STRUCT)
						col_walk(c, scopes[k].name, NULL, fc, 0);
				}
			}
		}
	}
	return c->oom ? SQLITE_NOMEM : SQLITE_OK;
}

/* ------------------------------------------------------------ xCreate / xConnect */

/* Free a table. */
static void vtab_free(vtab *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->ncols; i++) {
		sqlite3_free(v->cols[i].name);
		sqlite3_free(v->cols[i].path);
	}
	free(v->cols);
	free(v->cls);
	tio_derived_free(v->d);
	set_put(v->s, v->set);
	sqlite3_free(v);
}

/* The CREATE TABLE statement that declares a table of kind `kind`. */
static char *table_schema(vtab *v)
{
	switch (v->kind) {
	case TK_EVENTS:
		return sqlite3_mprintf("CREATE TABLE x(ts INTEGER, name TEXT, cpu INTEGER, stream INTEGER, "
				       "trace TEXT, pid INTEGER, tid INTEGER, comm TEXT, args TEXT)");
	case TK_DISCARDED:
		return sqlite3_mprintf("CREATE TABLE x(ts INTEGER, ts_end INTEGER, count INTEGER, kind TEXT, "
				       "cpu INTEGER, stream INTEGER, trace TEXT)");
	case TK_CLOCKS:
		return sqlite3_mprintf("CREATE TABLE x(trace TEXT, name TEXT, description TEXT, frequency INTEGER, "
				       "offset_s INTEGER, offset_cycles INTEGER, precision INTEGER, "
				       "origin_unix_epoch INTEGER, uuid TEXT)");
	case TK_ENV:
		return sqlite3_mprintf("CREATE TABLE x(trace TEXT, key TEXT, value)");
	case TK_CLASS: {
		sqlite3_str *s = sqlite3_str_new(NULL);
		sqlite3_str_appendall(s, "CREATE TABLE x(ts INTEGER, cpu INTEGER, stream INTEGER, trace TEXT");
		for (size_t i = 0; i < v->ncols; i++)
			sqlite3_str_appendf(s, ", \"%w\" %s", v->cols[i].name, v->cols[i].type);
		sqlite3_str_appendall(s, ")");
		return sqlite3_str_finish(s);
	}
	default:
		return sqlite3_mprintf("CREATE TABLE x(%s)", tio_derived_schema(v->kind));
	}
}

/* xCreate and xConnect: parse the arguments, open (or share) the traces, declare the table. */
static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	tio_sqlite *s = aux;
	tio_sqlite_args a;
	char *perr = NULL;
	if (tio_sqlite_parse_args(argc - 3, argv + 3, &a, &perr)) {
		*err = sqlite3_mprintf("%s", perr ? perr : "traceio: out of memory");
		free(perr);
		return SQLITE_ERROR;
	}
	vtab *v = sqlite3_malloc(sizeof(*v));
	if (!v) {
		tio_sqlite_args_free(&a);
		return SQLITE_NOMEM;
	}
	memset(v, 0, sizeof(*v));
	v->s = s;
	int rc = set_get(s, &a, &v->set, err);
	if (rc != SQLITE_OK)
		goto fail;
	const char *table = a.table && *a.table ? a.table : "events";
	v->kind = -1;
	for (int i = 0; fixed_tables[i]; i++)
		if (!strcmp(table, fixed_tables[i]))
			v->kind = fixed_kinds[i];
	if (!strncmp(table, "class:", 6)) /* a class whose name is one of the tables above */
		table += 6;
	if (v->kind < 0) {
		colset c = {0};
		bool found;
		v->kind = TK_CLASS;
		rc = class_columns(v->set, table, &c, &found);
		v->cols = c.v;
		v->ncols = c.n;
		if (rc == SQLITE_OK && !found) {
			*err = sqlite3_mprintf("traceio: no event class or table named '%s' in %s%s "
					       "(tables: events, discarded, clocks, env, sched_slice, "
					       "thread_state, thread, process, counter, or an event class)",
					       table, a.paths[0], a.npaths > 1 ? "..." : "");
			rc = SQLITE_ERROR;
		}
		if (rc != SQLITE_OK)
			goto fail;
		if (!(v->cls = strdup(table))) {
			rc = SQLITE_NOMEM;
			goto fail;
		}
	}
	char *schema = table_schema(v);
	if (!schema) {
		rc = SQLITE_NOMEM;
		goto fail;
	}
	rc = sqlite3_declare_vtab(db, schema);
	sqlite3_free(schema);
	if (rc != SQLITE_OK)
		goto fail;
	tio_sqlite_args_free(&a);
	*out = &v->base;
	return SQLITE_OK;
fail:
	tio_sqlite_args_free(&a);
	vtab_free(v);
	return rc;
}

/* xDisconnect / xDestroy. */
static int vt_disconnect(sqlite3_vtab *base)
{
	vtab_free((vtab *)base);
	return SQLITE_OK;
}

/* ------------------------------------------------------------ xBestIndex */

/* Column numbers of ts, cpu, stream, name for a table kind (-1: none). */
static void key_columns(const vtab *v, int *ts, int *cpu, int *stream, int *name)
{
	*ts = *cpu = *stream = *name = -1;
	if (v->kind == TK_EVENTS) {
		*ts = EV_TS;
		*cpu = EV_CPU;
		*stream = EV_STREAM;
		*name = EV_NAME;
	} else if (v->kind == TK_CLASS) {
		*ts = CL_TS;
		*cpu = CL_CPU;
		*stream = CL_STREAM;
	} else if (v->kind == TK_DISCARDED) {
		*cpu = DI_CPU;
		*stream = DI_STREAM;
	} else if (tio_derived_by_ts(v->kind)) { /* sched_slice, thread_state: cpu 2; counter: cpu 3 */
		*ts = 0;
		*cpu = v->kind == TK_COUNTER ? 3 : 2;
	}
}

/*
 * Which constraints the cursor applies itself: ts bounds (=, <, <=, >, >=;
 * BETWEEN arrives as >= and <=) become the mux's begin and end, cpu, stream
 * and name equalities filter before a row is made.  SQLite still checks
 * every constraint (omit stays 0): a bound given as text or real is then
 * right too.  idxStr lists, per argument, what it is.
 */
static int vt_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	vtab *v = (vtab *)base;
	int ts, cpu, stream, name, argi = 0;
	char codes[64];
	double cost = 1e9;
	key_columns(v, &ts, &cpu, &stream, &name);
	for (int i = 0; i < info->nConstraint && argi < 60; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		char code = 0;
		if (!c->usable)
			continue;
		if (c->iColumn == ts && ts >= 0) {
			switch (c->op) {
			case SQLITE_INDEX_CONSTRAINT_EQ: code = '='; cost /= 1000; break;
			case SQLITE_INDEX_CONSTRAINT_GT: code = 'B'; cost /= 4; break;
			case SQLITE_INDEX_CONSTRAINT_GE: code = 'b'; cost /= 4; break;
			case SQLITE_INDEX_CONSTRAINT_LT: code = 'E'; cost /= 4; break;
			case SQLITE_INDEX_CONSTRAINT_LE: code = 'e'; cost /= 4; break;
			}
		} else if (c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
			if (c->iColumn == cpu && cpu >= 0)
				code = 'c';
			else if (c->iColumn == stream && stream >= 0)
				code = 's';
			else if (c->iColumn == name && name >= 0)
				code = 'n';
			if (code)
				cost /= 2;
		}
		if (!code)
			continue;
		codes[argi++] = code;
		info->aConstraintUsage[i].argvIndex = argi;
		info->aConstraintUsage[i].omit = 0;
	}
	codes[argi] = 0;
	/*
	 * events read for their name alone and grouped by it (GROUP BY name,
	 * DISTINCT name): one pass counts the rows of each class, then each
	 * name's rows come out together, sorted, and SQLite needs no sorter
	 */
	if (v->kind == TK_EVENTS && info->nOrderBy == 1 && info->aOrderBy[0].iColumn == EV_NAME &&
	    !info->aOrderBy[0].desc && (info->colUsed & ~((sqlite3_uint64)1 << EV_NAME)) == 0 &&
	    sqlite3_vtab_distinct(info) >= 1) {
		info->orderByConsumed = 1;
		info->idxNum = 1;
	}
	if (argi) {
		info->idxStr = sqlite3_mprintf("%s", codes);
		if (!info->idxStr)
			return SQLITE_NOMEM;
		info->needToFreeIdxStr = 1;
	}
	info->estimatedCost = cost;
	info->estimatedRows = (sqlite3_int64)(cost > 1 ? cost : 1);
	return SQLITE_OK;
}

/* ------------------------------------------------------------ cursors */

/* xOpen: an empty cursor; xFilter opens the traces. */
static int vt_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

/* Forget what the previous query of this cursor opened. */
static void cursor_reset(cursor *c, bool keep)
{
	if (!keep) {
		for (size_t i = 0; i < c->mapcap; i++) {
			if (c->map[i]) {
				free(c->map[i]->refs);
				free(c->map[i]->ok);
				free(c->map[i]);
			}
		}
		free(c->map);
		c->map = NULL;
		c->mapcap = c->mapn = 0;
		if (c->mux)
			tio_mux_free(c->mux);
		c->mux = NULL;
		free_traces(c->traces, c->ntraces);
		c->traces = NULL;
		c->ntraces = 0;
		c->reusable = false;
		c->cur = NULL;
	}
	c->di = 0;
	sqlite3_free(c->name_eq);
	c->name_eq = NULL;
	c->has_cpu = c->has_stream = c->has_begin = c->has_end = false;
	c->msg = NULL;
	c->eof = true;
	c->rowid = 0;
	c->ti = c->ri = 0;
	free(c->groups);
	c->groups = NULL;
	c->ngroups = c->gi = 0;
	c->gleft = 0;
	c->grouped = false;
}

/* xClose: the cursor's traces, mux and buffers go. */
static int vt_close(sqlite3_vtab_cursor *base)
{
	cursor *c = (cursor *)base;
	cursor_reset(c, false);
	jb_free(&c->scratch);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Hash of a pointer for the event class table. */
static size_t ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

/* Resolve `path` for ec into *ref; false (error cleared) when the class has no such field. */
static bool resolve(const tio_event_class *ec, const char *path, tio_field_ref *ref)
{
	if (tio_field_ref_resolve(ec, path, ref) == 0)
		return true;
	tio_error_clear();
	return false;
}

/* What this cursor needs to know of event class ec, made once per class. */
static ecinfo *ecinfo_make(cursor *c, vtab *v, const tio_msg *m, const tio_event_class *ec)
{
	ecinfo *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->ec = ec;
	const char *name = tio_event_class_name(ec);
	if (v->kind == TK_EVENTS) {
		e->match = !c->name_eq || (name && !strcmp(name, c->name_eq));
		const tio_stream *st = tio_msg_stream(m);
		const tio_trace *t = st ? tio_stream_trace(st) : NULL;
		const char *fmt = t ? tio_trace_format(t) : "";
		e->tracedat = fmt && !strcmp(fmt, "tracedat");
		if (e->tracedat) {
			if (resolve(ec, "common_context.common_pid", &e->tid))
				e->has |= 1 | 4;
		} else {
			/* LTTng: contexts of the event class or of the channel (common context) */
			static const char *const tids[] = {"context.tid", "context.vtid", "common_context.tid",
							   "common_context.vtid"};
			static const char *const pids[] = {"context.pid", "context.vpid", "common_context.pid",
							   "common_context.vpid"};
			for (int k = 0; k < 4 && !(e->has & 1); k++)
				if (resolve(ec, tids[k], &e->tid))
					e->has |= 1;
			for (int k = 0; k < 4 && !(e->has & 2); k++)
				if (resolve(ec, pids[k], &e->pid))
					e->has |= 2;
			if (resolve(ec, "context.procname", &e->comm) || resolve(ec, "common_context.procname", &e->comm))
				e->has |= 4;
		}
	} else if (v->kind == TK_CLASS) {
		e->match = name && !strcmp(name, v->cls);
		if (e->match && v->ncols) {
			e->refs = calloc(v->ncols, sizeof(*e->refs));
			e->ok = calloc(v->ncols, sizeof(*e->ok));
			if (!e->refs || !e->ok) {
				free(e->refs);
				free(e->ok);
				free(e);
				return NULL;
			}
			for (size_t i = 0; i < v->ncols; i++)
				e->ok[i] = resolve(ec, v->cols[i].path, &e->refs[i]);
		}
	}
	return e;
}

/* The info of the class of event m, made on first sight; NULL when out of memory. */
static ecinfo *ecinfo_get(cursor *c, vtab *v, const tio_msg *m)
{
	const tio_event_class *ec = tio_msg_event_class(m);
	if (c->cur && c->cur->ec == ec)
		return c->cur;
	if (c->mapcap) {
		for (size_t i = ptr_hash(ec) & (c->mapcap - 1);; i = (i + 1) & (c->mapcap - 1)) {
			if (!c->map[i])
				break;
			if (c->map[i]->ec == ec)
				return c->map[i];
		}
	}
	if ((c->mapn + 1) * 2 > c->mapcap) {
		size_t cap = c->mapcap ? c->mapcap * 2 : 64;
		ecinfo **map = calloc(cap, sizeof(*map));
		if (!map)
			return NULL;
		for (size_t i = 0; i < c->mapcap; i++) {
			if (!c->map[i])
				continue;
			size_t k = ptr_hash(c->map[i]->ec) & (cap - 1);
			while (map[k])
				k = (k + 1) & (cap - 1);
			map[k] = c->map[i];
		}
		free(c->map);
		c->map = map;
		c->mapcap = cap;
	}
	ecinfo *e = ecinfo_make(c, v, m, ec);
	if (!e)
		return NULL;
	size_t k = ptr_hash(ec) & (c->mapcap - 1);
	while (c->map[k])
		k = (k + 1) & (c->mapcap - 1);
	c->map[k] = e;
	c->mapn++;
	return e;
}

/* A damaged unit was skipped: warn, as `traceio print` does, and go on. */
static void warn_skip(vtab *v)
{
	v->s->warnings++;
	v->s->warn(v->s->warn_arg, tio_error_message());
	tio_error_clear();
}

/* Set the table's error from the library's last error. */
static int vt_error(vtab *v, int status)
{
	if (status == TIO_ERR_NOMEM)
		return SQLITE_NOMEM;
	sqlite3_free(v->base.zErrMsg);
	v->base.zErrMsg = sqlite3_mprintf("traceio: %s", tio_error_message());
	return SQLITE_ERROR;
}

/* Next message from the mux; 1, 0 at the end, or an SQLite error (negative) already set. */
static int next_msg(cursor *c, vtab *v, const tio_msg **m)
{
	for (;;) {
		int r = tio_mux_next(c->mux, m);
		if (r >= 0)
			return r;
		if (r == TIO_ERR_NOMEM)
			return -SQLITE_NOMEM;
		warn_skip(v);
	}
}

/* With reused traces the end bound is ours: a message past it ends the query (eof set). */
static bool past_end(cursor *c, const tio_msg *m)
{
	int64_t ns;
	if (tio_msg_time_ns(m, &ns) && ns > c->end) {
		c->eof = true;
		return true;
	}
	return false;
}

/* The cursor's cpu = and stream = constraints (xFilter), checked before a row is made. */
static bool cpu_stream_ok(const cursor *c, const tio_msg *m)
{
	uint64_t cpu;
	if (c->has_cpu && (!tio_msg_cpu(m, &cpu) || cpu != c->cpu))
		return false;
	const tio_stream *st = c->has_stream ? tio_msg_stream(m) : NULL;
	return !c->has_stream || (st && tio_stream_id(st) == c->stream);
}

/* Advance an events or per-class cursor to its next row. */
static int next_event(cursor *c, vtab *v)
{
	for (;;) {
		const tio_msg *m;
		int r = next_msg(c, v, &m);
		if (r < 0)
			return -r;
		if (r == 0) {
			c->eof = true;
			return SQLITE_OK;
		}
		if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT)
			continue;
		if (c->reusable && c->has_end && past_end(c, m))
			return SQLITE_OK;
		ecinfo *e = ecinfo_get(c, v, m);
		if (!e)
			return SQLITE_NOMEM;
		c->cur = e;
		if (!e->match)
			continue;
		if (!cpu_stream_ok(c, m))
			continue;
		c->msg = m;
		c->rowid++;
		return SQLITE_OK;
	}
}

/* Advance a discarded-records cursor. */
static int next_discarded(cursor *c, vtab *v)
{
	for (;;) {
		const tio_msg *m;
		int r = next_msg(c, v, &m);
		if (r < 0)
			return -r;
		if (r == 0) {
			c->eof = true;
			return SQLITE_OK;
		}
		int k = tio_msg_kind(m);
		if (k != TIO_MSG_KIND_DISCARDED_EVENTS && k != TIO_MSG_KIND_DISCARDED_PACKETS)
			continue;
		if (c->reusable && c->has_end && past_end(c, m))
			return SQLITE_OK;
		if (!cpu_stream_ok(c, m))
			continue;
		c->msg = m;
		c->rowid++;
		return SQLITE_OK;
	}
}

/* Advance clocks/env: the next (trace, index) that exists. */
static int next_static(cursor *c, vtab *v)
{
	tset *t = v->set;
	c->ri++;
	while (c->ti < t->ntraces) {
		uint32_t n = v->kind == TK_CLOCKS ? tio_trace_clock_count(t->traces[c->ti])
						  : tio_trace_env_count(t->traces[c->ti]);
		if (c->ri < n)
			break;
		c->ti++;
		c->ri = 0;
	}
	c->eof = c->ti >= t->ntraces;
	c->rowid++;
	return SQLITE_OK;
}

/*
 * Make a derived table's rows: one walk of the traces (opened for it and
 * closed after), the rows kept in the table for every later query.  Not
 * kept when the walk fails (the next query tries again).
 */
static int derived_make(vtab *v)
{
	tio_trace **t = NULL;
	size_t n = 0;
	tio_mux *mux = NULL;
	char *err = NULL;
	int rc = open_traces(&v->set->args, &t, &n, &err);
	if (rc != SQLITE_OK) {
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg = err;
		return rc;
	}
	struct dstate *d = tio_derived_new(v->kind);
	if (!d || tio_mux_new(t, n, &mux)) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	for (;;) {
		const tio_msg *m = NULL;
		int r = tio_mux_next(mux, &m);
		if (r == TIO_ERR_NOMEM) {
			rc = SQLITE_NOMEM;
			goto out;
		}
		if (r < 0) {
			warn_skip(v);
			continue;
		}
		if (tio_derived_feed(d, r ? m : NULL) < 0) {
			rc = SQLITE_NOMEM;
			goto out;
		}
		if (r == 0)
			break;
	}
	v->d = d;
	d = NULL;
out:
	tio_derived_free(d);
	if (mux)
		tio_mux_free(mux);
	free_traces(t, n);
	return rc;
}

/* A derived table's cursor at row c->di or the next that passes the end and cpu bounds (else eof). */
static int settle_derived(cursor *c, vtab *v)
{
	size_t n = tio_derived_rows(v->d);
	for (; c->di < n; c->di++) {
		if (c->has_end && tio_derived_ts(v->d, c->di) > c->end)
			break; /* the rows are in ts order */
		int64_t cpu;
		if (c->has_cpu && (!tio_derived_cpu(v->d, c->di, &cpu) || (uint64_t)cpu != c->cpu))
			continue;
		c->rowid = (sqlite3_int64)c->di + 1;
		return SQLITE_OK;
	}
	c->eof = true;
	return SQLITE_OK;
}

/* Advance a derived table: its next row in memory. */
static int next_derived(cursor *c, vtab *v)
{
	c->di++;
	return settle_derived(c, v);
}

/* Order of groups: by name as SQLite's BINARY collation, NULL first. */
static int group_cmp(const void *a, const void *b)
{
	const group *x = a, *y = b;
	if (!x->name || !y->name)
		return !!x->name - !!y->name;
	return strcmp(x->name, y->name);
}

/* Grouped scan: count the rows of every class in one pass, then make the groups. */
static int grouped_start(cursor *c, vtab *v)
{
	int rc;
	c->grouped = true;
	while ((rc = next_event(c, v)) == SQLITE_OK && !c->eof)
		c->cur->count++;
	if (rc != SQLITE_OK)
		return rc;
	if (c->mapn && !(c->groups = calloc(c->mapn, sizeof(*c->groups))))
		return SQLITE_NOMEM;
	for (size_t i = 0; i < c->mapcap; i++) {
		ecinfo *e = c->map[i];
		if (!e || !e->count)
			continue;
		const char *name = tio_event_class_name(e->ec);
		size_t k;
		for (k = 0; k < c->ngroups; k++)
			if ((!name && !c->groups[k].name) ||
			    (name && c->groups[k].name && !strcmp(name, c->groups[k].name)))
				break;
		if (k == c->ngroups)
			c->groups[c->ngroups++] = (group){name, 0};
		c->groups[k].n += e->count;
	}
	qsort(c->groups, c->ngroups, sizeof(*c->groups), group_cmp);
	c->gi = 0;
	c->gleft = c->ngroups ? c->groups[0].n : 0;
	c->eof = c->ngroups == 0;
	c->rowid = 1;
	return SQLITE_OK;
}

/* Grouped scan: the next row (the same name until its count is used up). */
static int grouped_next(cursor *c)
{
	if (c->gleft > 1) {
		c->gleft--;
	} else if (++c->gi < c->ngroups) {
		c->gleft = c->groups[c->gi].n;
	} else {
		c->eof = true;
	}
	c->rowid++;
	return SQLITE_OK;
}

/* xNext: by table kind (a grouped scan first). */
static int vt_next(sqlite3_vtab_cursor *base)
{
	cursor *c = (cursor *)base;
	vtab *v = (vtab *)base->pVtab;
	if (c->grouped)
		return grouped_next(c);
	switch (v->kind) {
	case TK_EVENTS:
	case TK_CLASS:
		return next_event(c, v);
	case TK_DISCARDED:
		return next_discarded(c, v);
	case TK_CLOCKS:
	case TK_ENV:
		return next_static(c, v);
	default:
		return next_derived(c, v);
	}
}

/* An integer argument of xFilter for a ts bound: false when it is not a number. */
static bool arg_ns(sqlite3_value *a, int round_up, int64_t *ns)
{
	int t = sqlite3_value_numeric_type(a);
	if (t == SQLITE_INTEGER) {
		*ns = sqlite3_value_int64(a);
		return true;
	}
	if (t == SQLITE_FLOAT) {
		double d = sqlite3_value_double(a);
		d = round_up ? ceil(d) : floor(d);
		if (!(d > -9.2e18 && d < 9.2e18))
			return false;
		*ns = (int64_t)d;
		return true;
	}
	return false;
}

/* Start a query: the constraints xBestIndex chose, then open the traces and the mux. */
static int vt_filter(sqlite3_vtab_cursor *base, int idxNum, const char *idxStr, int argc, sqlite3_value **argv)
{
	cursor *c = (cursor *)base;
	vtab *v = (vtab *)base->pVtab;
	bool keep = c->reusable && c->mux && !(idxNum & 1);
	cursor_reset(c, keep);
	c->eof = false;
	for (int i = 0; idxStr && idxStr[i] && i < argc; i++) {
		int64_t ns;
		switch (idxStr[i]) {
		case '=':
		case 'b':
		case 'B':
			if (arg_ns(argv[i], 1, &ns)) {
				if (idxStr[i] == 'B' && (sqlite3_value_numeric_type(argv[i]) == SQLITE_INTEGER)) {
					if (ns == INT64_MAX) {
						c->eof = true;
						return SQLITE_OK;
					}
					ns++;
				}
				if (!c->has_begin || ns > c->begin)
					c->begin = ns;
				c->has_begin = true;
			}
			if (idxStr[i] != '=')
				break;
			__attribute__((fallthrough)); /* = is both bounds */
		case 'e':
		case 'E':
			if (arg_ns(argv[i], 0, &ns)) {
				if (idxStr[i] == 'E' && (sqlite3_value_numeric_type(argv[i]) == SQLITE_INTEGER)) {
					if (ns == INT64_MIN) {
						c->eof = true;
						return SQLITE_OK;
					}
					ns--;
				}
				if (!c->has_end || ns < c->end)
					c->end = ns;
				c->has_end = true;
			}
			break;
		case 'c':
		case 's': {
			if (sqlite3_value_numeric_type(argv[i]) != SQLITE_INTEGER || sqlite3_value_int64(argv[i]) < 0) {
				c->eof = true; /* cpu = 'x', cpu = -1: nothing */
				return SQLITE_OK;
			}
			uint64_t u = (uint64_t)sqlite3_value_int64(argv[i]);
			if (idxStr[i] == 'c') {
				if (c->has_cpu && c->cpu != u)
					c->eof = true;
				c->has_cpu = true;
				c->cpu = u;
			} else {
				if (c->has_stream && c->stream != u)
					c->eof = true;
				c->has_stream = true;
				c->stream = u;
			}
			break;
		}
		case 'n': {
			const unsigned char *t = sqlite3_value_text(argv[i]);
			if (!t || sqlite3_value_type(argv[i]) != SQLITE_TEXT) {
				c->eof = true;
				return SQLITE_OK;
			}
			if (c->name_eq && strcmp(c->name_eq, (const char *)t))
				c->eof = true;
			sqlite3_free(c->name_eq);
			c->name_eq = sqlite3_mprintf("%s", t);
			if (!c->name_eq)
				return SQLITE_NOMEM;
			break;
		}
		}
	}
	if (c->has_begin && c->has_end && c->begin > c->end)
		c->eof = true;
	if (c->eof)
		return SQLITE_OK;
	if (v->kind == TK_CLOCKS || v->kind == TK_ENV) {
		c->ti = 0;
		c->ri = (size_t)-1;
		return next_static(c, v);
	}
	if (v->kind >= TK_SCHED_SLICE) { /* rows in memory, made by the table's first query */
		int rc = v->d ? SQLITE_OK : derived_make(v);
		if (rc != SQLITE_OK)
			return rc;
		c->di = c->has_begin && tio_derived_by_ts(v->kind) ? tio_derived_lower(v->d, c->begin) : 0;
		return settle_derived(c, v);
	}
	if (keep) { /* the traces of the previous query: go to the begin bound */
		if (v->kind == TK_EVENTS) /* the name = constraint may differ */
			for (size_t i = 0; i < c->mapcap; i++)
				if (c->map[i]) {
					const char *n = tio_event_class_name(c->map[i]->ec);
					c->map[i]->match = !c->name_eq || (n && !strcmp(n, c->name_eq));
				}
		int r = tio_mux_seek(c->mux, c->has_begin ? c->begin : INT64_MIN);
		if (r < 0)
			return vt_error(v, r);
		return vt_next(base);
	}
	char *err = NULL;
	int rc = open_traces(&v->set->args, &c->traces, &c->ntraces, &err);
	if (rc != SQLITE_OK) {
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg = err;
		return rc;
	}
	if (tio_mux_new(c->traces, c->ntraces, &c->mux))
		return vt_error(v, TIO_ERR_NOMEM);
	c->reusable = v->kind == TK_EVENTS || v->kind == TK_CLASS || v->kind == TK_DISCARDED;
	for (size_t i = 0; i < c->ntraces && c->reusable; i++)
		c->reusable = strncmp(tio_trace_format(c->traces[i]), "lttng0", 6) != 0;
	if (c->has_begin)
		tio_mux_set_begin(c->mux, c->begin);
	if (c->has_end && !c->reusable)
		tio_mux_set_end(c->mux, c->end);
	if (v->kind == TK_EVENTS && (idxNum & 1))
		return grouped_start(c, v);
	return vt_next(base);
}

/* xEof. */
static int vt_eof(sqlite3_vtab_cursor *base)
{
	return ((cursor *)base)->eof;
}

/* xRowid: the row's number in this query (not stable across queries). */
static int vt_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
	*rowid = ((cursor *)base)->rowid;
	return SQLITE_OK;
}

/* The message's time, stream, cpu, trace columns. */
static bool common_column(sqlite3_context *ctx, const tio_msg *m, int which)
{
	const tio_stream *st = tio_msg_stream(m);
	switch (which) {
	case 0: {
		int64_t ns;
		if (tio_msg_time_ns(m, &ns))
			sqlite3_result_int64(ctx, ns);
		return true;
	}
	case 1: {
		uint64_t cpu;
		if (tio_msg_cpu(m, &cpu))
			sqlite3_result_int64(ctx, (sqlite3_int64)cpu);
		return true;
	}
	case 2:
		if (st)
			sqlite3_result_int64(ctx, (sqlite3_int64)tio_stream_id(st));
		return true;
	case 3:
		if (st && tio_stream_trace(st))
			sqlite3_result_text(ctx, tio_trace_path(tio_stream_trace(st)), -1, SQLITE_TRANSIENT);
		return true;
	}
	return false;
}

/* An integer value read through ref into an int64; false when absent. */
static bool ref_int(const tio_msg *m, const tio_field_ref *ref, int64_t *out)
{
	const tio_field *f = tio_msg_field(m, ref);
	if (!f)
		return false;
	if (tio_field_int(f, out)) {
		tio_error_clear();
		return false;
	}
	return true;
}

/* The events table's columns. */
static void events_column(cursor *c, sqlite3_context *ctx, int col)
{
	const tio_msg *m = c->msg;
	ecinfo *e = ecinfo_get(c, (vtab *)c->base.pVtab, m);
	int64_t i;
	switch (col) {
	case EV_TS: common_column(ctx, m, 0); return;
	case EV_CPU: common_column(ctx, m, 1); return;
	case EV_STREAM: common_column(ctx, m, 2); return;
	case EV_TRACE: common_column(ctx, m, 3); return;
	case EV_NAME: {
		const char *n = tio_msg_event_name(m);
		if (n)
			sqlite3_result_text(ctx, n, -1, SQLITE_TRANSIENT);
		return;
	}
	case EV_TID:
		if (e && (e->has & 1) && ref_int(m, &e->tid, &i))
			sqlite3_result_int64(ctx, i);
		return;
	case EV_PID:
		if (e && (e->has & 2) && ref_int(m, &e->pid, &i))
			sqlite3_result_int64(ctx, i);
		return;
	case EV_COMM:
		if (!e || !(e->has & 4))
			return;
		if (e->tracedat) {
			if (ref_int(m, &e->tid, &i)) {
				const char *comm = tio_trace_comm(tio_stream_trace(tio_msg_stream(m)), i);
				if (comm)
					sqlite3_result_text(ctx, comm, -1, SQLITE_TRANSIENT);
			}
		} else {
			const tio_field *f = tio_msg_field(m, &e->comm);
			if (f)
				tio_sqlite_result_field(ctx, f, &c->scratch);
		}
		return;
	case EV_ARGS: {
		const tio_field *p = tio_msg_scope(m, TIO_SCOPE_EVENT_PAYLOAD);
		jb_reset(&c->scratch);
		if (p)
			jb_json_value(&c->scratch, p, 0);
		else
			jb_puts(&c->scratch, "{}");
		if (c->scratch.oom) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		sqlite3_result_text(ctx, c->scratch.p, (int)c->scratch.len, SQLITE_TRANSIENT);
		sqlite3_result_subtype(ctx, 'J'); /* JSON for json_object(), json_array()... */
		return;
	}
	}
}

/* The discarded table's columns. */
static void discarded_column(cursor *c, sqlite3_context *ctx, int col)
{
	const tio_msg *m = c->msg;
	uint64_t count = 0;
	bool has_range = false;
	int64_t b = 0, e = 0;
	tio_msg_discarded(m, &count, &has_range, &b, &e);
	switch (col) {
	case DI_TS:
		if (has_range)
			sqlite3_result_int64(ctx, b);
		return;
	case DI_TS_END:
		if (has_range)
			sqlite3_result_int64(ctx, e);
		return;
	case DI_COUNT:
		if (count)
			sqlite3_result_int64(ctx, (sqlite3_int64)count);
		return;
	case DI_KIND:
		sqlite3_result_text(ctx, tio_msg_kind(m) == TIO_MSG_KIND_DISCARDED_EVENTS ? "events" : "packets", -1,
				    SQLITE_STATIC);
		return;
	case DI_CPU: common_column(ctx, m, 1); return;
	case DI_STREAM: common_column(ctx, m, 2); return;
	case DI_TRACE: common_column(ctx, m, 3); return;
	}
}

/* The clocks and env tables' columns. */
static void static_column(cursor *c, vtab *v, sqlite3_context *ctx, int col)
{
	const tio_trace *t = v->set->traces[c->ti];
	if (col == 0) {
		sqlite3_result_text(ctx, tio_trace_path(t), -1, SQLITE_TRANSIENT);
		return;
	}
	if (v->kind == TK_ENV) {
		int64_t iv = 0;
		const char *sv = NULL;
		if (col == EN_KEY) {
			sqlite3_result_text(ctx, tio_trace_env_key(t, (uint32_t)c->ri), -1, SQLITE_TRANSIENT);
		} else if (tio_trace_env_value(t, (uint32_t)c->ri, &iv, &sv)) {
			sqlite3_result_int64(ctx, iv);
		} else if (sv) {
			sqlite3_result_text(ctx, sv, -1, SQLITE_TRANSIENT);
		}
		return;
	}
	const tio_clock *k = tio_trace_clock(t, (uint32_t)c->ri);
	int64_t s, cy;
	uint8_t uuid[16];
	tio_clock_offset(k, &s, &cy);
	switch (col) {
	case CK_NAME: sqlite3_result_text(ctx, tio_clock_name(k), -1, SQLITE_TRANSIENT); return;
	case CK_DESC:
		if (tio_clock_description(k))
			sqlite3_result_text(ctx, tio_clock_description(k), -1, SQLITE_TRANSIENT);
		return;
	case CK_FREQ: sqlite3_result_int64(ctx, (sqlite3_int64)tio_clock_frequency(k)); return;
	case CK_OFF_S: sqlite3_result_int64(ctx, s); return;
	case CK_OFF_C: sqlite3_result_int64(ctx, cy); return;
	case CK_PREC: sqlite3_result_int64(ctx, (sqlite3_int64)tio_clock_precision(k)); return;
	case CK_UNIX: sqlite3_result_int(ctx, tio_clock_origin_is_unix_epoch(k)); return;
	case CK_UUID:
		if (tio_clock_uuid(k, uuid)) {
			char u[37];
			static const char hx[] = "0123456789abcdef";
			int o = 0;
			for (int i = 0; i < 16; i++) {
				if (i == 4 || i == 6 || i == 8 || i == 10)
					u[o++] = '-';
				u[o++] = hx[uuid[i] >> 4];
				u[o++] = hx[uuid[i] & 15];
			}
			u[o] = 0;
			sqlite3_result_text(ctx, u, -1, SQLITE_TRANSIENT);
		}
		return;
	}
}

/* xColumn: values are read only for the columns a query asks for. */
static int vt_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
	cursor *c = (cursor *)base;
	vtab *v = (vtab *)base->pVtab;
	switch (v->kind) {
	case TK_EVENTS:
		if (c->grouped) {
			/* static: the name lives in the cursor's traces until its next xFilter or xClose */
			if (col == EV_NAME && c->gi < c->ngroups && c->groups[c->gi].name)
				sqlite3_result_text(ctx, c->groups[c->gi].name, -1, SQLITE_STATIC);
			break;
		}
		events_column(c, ctx, col);
		break;
	case TK_CLASS:
		if (col < CL_N) {
			common_column(ctx, c->msg, col);
		} else if (c->cur && c->cur->ok && c->cur->ok[col - CL_N]) {
			const tio_field *f = tio_msg_field(c->msg, &c->cur->refs[col - CL_N]);
			if (f)
				tio_sqlite_result_field(ctx, f, &c->scratch);
		}
		break;
	case TK_DISCARDED:
		discarded_column(c, ctx, col);
		break;
	case TK_CLOCKS:
	case TK_ENV:
		static_column(c, v, ctx, col);
		break;
	default:
		tio_derived_column(v->d, c->di, col, ctx);
	}
	return SQLITE_OK;
}

static sqlite3_module module = {
	.iVersion = 1,
	.xCreate = vt_connect,
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
};

/* ------------------------------------------------------------ creating every table */

/* Whether `name` is one of the fixed tables' names (case-insensitive). */
static bool is_fixed_table(const char *name)
{
	for (int i = 0; fixed_tables[i]; i++)
		if (!sqlite3_stricmp(name, fixed_tables[i]))
			return true;
	return !sqlite3_strnicmp(name, "sqlite_", 7); /* SQLite's own names: refused as table names */
}

/* The arguments of a table of set `a` as module arguments: path='...', ..., table='...'. */
static char *module_args(const tio_sqlite_args *a, const char *table)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	for (size_t i = 0; i < a->npaths; i++)
		sqlite3_str_appendf(s, "%spath=%Q", i ? ", " : "", a->paths[i]);
	if (a->format)
		sqlite3_str_appendf(s, ", format=%Q", a->format);
	if (a->clock_exact)
		sqlite3_str_appendall(s, ", clock_exact=1");
	if (a->ts2secs)
		sqlite3_str_appendf(s, ", ts2secs=%Q", a->ts2secs);
	if (a->raw_ts)
		sqlite3_str_appendall(s, ", raw_ts=1");
	sqlite3_str_appendf(s, ", table=%Q", table);
	return sqlite3_str_finish(s);
}

/* Create every table of the traces in `schema` (tio-sqlite.h). */
int tio_sqlite_attach(tio_sqlite *s, sqlite3 *db, const char *schema, const tio_sqlite_args *a, char **err)
{
	tset *t = NULL;
	int rc;
	char *perr = NULL;
	*err = NULL;
	rc = set_get(s, a, &t, &perr);
	if (rc != SQLITE_OK) {
		*err = perr;
		return rc;
	}
	/* the names of the tables made, to give duplicates (case only) another one */
	char **made = NULL;
	size_t nmade = 0;
	rc = SQLITE_OK;
	for (int i = 0; fixed_tables[i] && rc == SQLITE_OK; i++) {
		char *args = module_args(a, fixed_tables[i]);
		char *sql = args ? sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".\"%w\" USING traceio(%s)", schema,
						   fixed_tables[i], args)
				 : NULL;
		rc = sql ? sqlite3_exec(db, sql, NULL, NULL, err) : SQLITE_NOMEM;
		sqlite3_free(args);
		sqlite3_free(sql);
	}
	for (size_t ti = 0; ti < t->ntraces && rc == SQLITE_OK; ti++) {
		const tio_trace *tr = t->traces[ti];
		for (uint32_t si = 0; si < tio_trace_stream_class_count(tr) && rc == SQLITE_OK; si++) {
			const tio_stream_class *sc = tio_trace_stream_class(tr, si);
			for (uint32_t ei = 0; ei < tio_stream_class_event_class_count(sc) && rc == SQLITE_OK; ei++) {
				const char *name = tio_event_class_name(tio_stream_class_event_class(sc, ei));
				if (!name || !*name)
					continue;
				bool dup = false, casedup = false;
				for (size_t k = 0; k < nmade && !dup; k++) {
					dup = !strcmp(made[k], name);
					casedup |= !sqlite3_stricmp(made[k], name);
				}
				if (dup)
					continue;
				char **nm = realloc(made, (nmade + 1) * sizeof(*made));
				if (!nm || !(nm[nmade] = strdup(name))) {
					made = nm ? nm : made;
					rc = SQLITE_NOMEM;
					break;
				}
				made = nm;
				nmade++;
				/* a class named like a fixed table: "class:NAME"; differing in case only: "NAME#2" */
				char *tname = is_fixed_table(name) ? sqlite3_mprintf("class:%s", name)
					      : casedup	      ? sqlite3_mprintf("%s#%d", name, (int)nmade)
								      : sqlite3_mprintf("%s", name);
				char *args = module_args(a, is_fixed_table(name) ? tname : name);
				char *sql = tname && args ? sqlite3_mprintf(
								    "CREATE VIRTUAL TABLE \"%w\".\"%w\" USING traceio(%s)",
								    schema, tname, args)
							  : NULL;
				rc = sql ? sqlite3_exec(db, sql, NULL, NULL, err) : SQLITE_NOMEM;
				sqlite3_free(tname);
				sqlite3_free(args);
				sqlite3_free(sql);
			}
		}
	}
	for (size_t k = 0; k < nmade; k++)
		free(made[k]);
	free(made);
	set_put(s, t);
	return rc;
}

/*
 * SQL function traceio_attach('PATH' [, 'PATH'...]): every table of the
 * traces at once in schema main (events, discarded, clocks, env, the
 * derived tables, one per event class).  Returns the number of tables
 * made by this call.
 */
static void fn_attach(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	tio_sqlite *s = sqlite3_user_data(ctx);
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	tio_sqlite_args a;
	memset(&a, 0, sizeof(a));
	if (argc < 1) {
		sqlite3_result_error(ctx, "traceio_attach: give the path of a trace", -1);
		return;
	}
	if (!(a.paths = calloc((size_t)argc, sizeof(char *)))) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (int i = 0; i < argc; i++) {
		const unsigned char *p = sqlite3_value_text(argv[i]);
		if (!p || !*p) {
			tio_sqlite_args_free(&a);
			sqlite3_result_error(ctx, "traceio_attach: an empty or NULL path", -1);
			return;
		}
		if (!(a.paths[a.npaths++] = strdup((const char *)p))) {
			tio_sqlite_args_free(&a);
			sqlite3_result_error_nomem(ctx);
			return;
		}
	}
	sqlite3_stmt *q;
	int n0 = 0, n1 = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM main.sqlite_schema", -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			n0 = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	char *err = NULL;
	int rc = tio_sqlite_attach(s, db, "main", &a, &err);
	tio_sqlite_args_free(&a);
	if (rc != SQLITE_OK) {
		if (rc == SQLITE_NOMEM && !err)
			sqlite3_result_error_nomem(ctx);
		else
			sqlite3_result_error(ctx, err ? err : sqlite3_errstr(rc), -1);
		sqlite3_free(err);
		return;
	}
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM main.sqlite_schema", -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			n1 = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	sqlite3_result_int(ctx, n1 - n0);
}

/* The module's state goes with the connection. */
static void state_free(void *p)
{
	tio_sqlite *s = p;
	while (s->sets) { /* tables not disconnected (should not happen): close their traces */
		tset *t = s->sets;
		s->sets = t->next;
		free_traces(t->traces, t->ntraces);
		tio_sqlite_args_free(&t->args);
		sqlite3_free(t->key);
		free(t);
	}
	free(s);
}

/* Register module "traceio" and traceio_attach() on db (tio-sqlite.h). */
int tio_sqlite_register(sqlite3 *db, tio_sqlite **out)
{
	tio_sqlite *s = calloc(1, sizeof(*s));
	if (!s)
		return SQLITE_NOMEM;
	s->warn = warn_stderr;
	int rc = sqlite3_create_module_v2(db, "traceio", &module, s, state_free);
	if (rc != SQLITE_OK)
		return rc; /* create_module_v2 calls state_free on failure */
	rc = sqlite3_create_function_v2(db, "traceio_attach", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, s, fn_attach, NULL,
					NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (out)
		*out = s;
	return SQLITE_OK;
}

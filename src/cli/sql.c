/*
 * traceio sql: SQL queries over traces with SQLite (docs/sql.md).  The
 * traces are SQLite virtual tables (src/sqlite/): events, one table per
 * event class, discarded, clocks, env and the scheduling tables; nothing is
 * imported, each query reads the traces again.  Results go to stdout as an
 * aligned table, CSV or JSON, only once the query has run to its end (kept
 * in an unlinked temporary file until then): an error prints SQLite's and
 * traceio's message and no part of a result.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dlfcn.h>
#include <editline/readline.h>

#include "cli.h"
#include "tio-sqlite.h"

enum mode { MODE_TABLE, MODE_CSV, MODE_JSON };

typedef struct sqlcli {
	sqlite3 *db;
	tio_sqlite *mod;
	enum mode mode;
	bool header;
	int status;
} sqlcli;

/* traceio sql --help (also the man page traceio-sql.1). */
static void help(void)
{
	printf("usage: traceio sql [OPTIONS] TRACE... ['QUERY']\n"
	       "\n"
	       "Runs SQL (SQLite's) over the traces: every TRACE (any format traceio reads) is\n"
	       "read directly through virtual tables, nothing is imported, memory stays flat\n"
	       "(the derived tables, sched_slice to counter below, are computed on their first\n"
	       "query and then held in memory: a row per switch, wakeup, counter event).\n"
	       "The query is the last argument when it is not a path, or each -q; without\n"
	       "any, an interactive prompt (line editing and history; SQL statements end with\n"
	       "';', and .tables, .schema TABLE, .mode table|csv|json, .help, .quit).\n"
	       "\n"
	       "tables (docs/sql.md):\n"
	       "  events        ts, name, cpu, stream, trace, pid, tid, comm, args (the payload\n"
	       "                as JSON: json_extract(args, '$.next_tid'))\n"
	       "  <class>       one per event class, named after it (sched_switch,\n"
	       "                \"my_provider:my_event\"): ts, cpu, stream, trace, then a typed\n"
	       "                column per payload and context field (nested names joined with\n"
	       "                '.', arrays and variants as JSON text)\n"
	       "  discarded     ts, ts_end, count, kind, cpu, stream, trace\n"
	       "  clocks, env   the traces' clocks and environment\n"
	       "  sched_slice   ts, dur, cpu, utid, tid, comm, priority, end_state (Perfetto's)\n"
	       "  thread_state  ts, dur, cpu, utid, tid, state (Running, R, S, D...)\n"
	       "  thread        utid, tid, name, start_ts, end_ts, upid, pid\n"
	       "  process       upid, pid, name, start_ts, end_ts, ppid\n"
	       "  counter       ts, value, name (cpufreq, cpuidle), cpu\n"
	       "ts is ns from the clock origin; a bound on it (ts > X, ts BETWEEN X AND Y)\n"
	       "starts the reading at X and stops it after Y.\n"
	       "\n"
	       "  -q, --query SQL       a query to run (several: in order)\n"
	       "  --csv                 results as CSV (RFC 4180) with a header line\n"
	       "  --json                results as one JSON array of objects per query\n"
	       "  --table               an aligned table (the default)\n"
	       "  --no-header           no header line (table, CSV)\n"
	       "  -i, --format FMT      read the inputs as FMT instead of guessing\n"
	       "  --clock-exact         clock values to ns as exact integer floors\n"
	       "  --ts2secs HZ          trace.dat: the time stamps count at HZ per second\n"
	       "                        (trace-cmd report --ts2secs; counter, x86-tsc clocks)\n"
	       "  --raw-ts              trace.dat: the ring buffer's stamps without corrections\n"
	       "\n"
	       "The same tables in the sqlite3 shell: .load libtraceio_sqlite, then\n"
	       "CREATE VIRTUAL TABLE t USING traceio('TRACE' [, 'TABLE']) or\n"
	       "SELECT traceio_attach('TRACE').  Exit status: 0; 1 when a query failed or a\n"
	       "damaged part of a trace was skipped (a warning says where; the answer comes\n"
	       "from the rest); 2 on bad usage.\n");
}

/* Warnings from the tables (damaged packets skipped): stderr, as print does. */
static void on_warn(void *arg, const char *msg)
{
	fprintf(stderr, "traceio: warning: %s\n", msg);
}

/* Width in terminal cells of UTF-8 text (one per code point: good enough for trace text). */
static size_t text_width(const unsigned char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += (s[i] & 0xC0) != 0x80;
	return w;
}

/* Write one value of a kept row: type byte, length, bytes. */
static void keep_value(FILE *f, sqlite3_stmt *st, int i)
{
	int t = sqlite3_column_type(st, i);
	const unsigned char *p = t == SQLITE_NULL ? NULL : sqlite3_column_text(st, i);
	uint32_t n = p ? (uint32_t)sqlite3_column_bytes(st, i) : 0;
	char tc = (char)t;
	fwrite(&tc, 1, 1, f);
	fwrite(&n, sizeof(n), 1, f);
	if (n)
		fwrite(p, 1, n, f);
}

/* Print JSON text for s (n bytes). */
static void json_str(FILE *o, const unsigned char *s, size_t n)
{
	putc('"', o);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", o);
		else if (c == '\t')
			fputs("\\t", o);
		else if (c == '\r')
			fputs("\\r", o);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			putc(c, o);
	}
	putc('"', o);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *o, const unsigned char *s, size_t n)
{
	bool q = false;
	for (size_t i = 0; i < n && !q; i++)
		q = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!q) {
		fwrite(s, 1, n, o);
		return;
	}
	putc('"', o);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			putc('"', o);
		putc(s[i], o);
	}
	putc('"', o);
}

/*
 * Run one statement: its rows go to a temporary file, then to stdout once
 * the statement has finished.  0, or 1 with the error printed.
 */
static int run_stmt(sqlcli *c, sqlite3_stmt *st)
{
	int ncol = sqlite3_column_count(st);
	FILE *tmp = tmpfile();
	size_t *width = calloc((size_t)(ncol ? ncol : 1), sizeof(size_t));
	bool *numeric = calloc((size_t)(ncol ? ncol : 1), sizeof(bool));
	uint64_t nrows = 0;
	int rc;
	if (!tmp || !width || !numeric) {
		fprintf(stderr, "traceio: sql: cannot make a temporary file or out of memory\n");
		if (tmp)
			fclose(tmp);
		free(width);
		free(numeric);
		return 1;
	}
	for (int i = 0; i < ncol; i++) {
		const char *n = sqlite3_column_name(st, i);
		width[i] = text_width((const unsigned char *)n, strlen(n));
		numeric[i] = true;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncol; i++) {
			int t = sqlite3_column_type(st, i);
			keep_value(tmp, st, i);
			if (t != SQLITE_NULL) {
				const unsigned char *p = sqlite3_column_text(st, i);
				size_t w = text_width(p, (size_t)sqlite3_column_bytes(st, i));
				if (w > width[i])
					width[i] = w;
				if (t != SQLITE_INTEGER && t != SQLITE_FLOAT)
					numeric[i] = false;
			}
		}
		nrows++;
	}
	if (rc != SQLITE_DONE || ferror(tmp)) {
		const char *m = sqlite3_errmsg(c->db);
		if (ferror(tmp))
			fprintf(stderr, "traceio: sql: writing the temporary result failed\n");
		else if (!strncmp(m, "traceio:", 8))
			fprintf(stderr, "%s\n", m);
		else
			fprintf(stderr, "traceio: sql: %s\n", m);
		fclose(tmp);
		free(width);
		free(numeric);
		return 1;
	}
	rewind(tmp);
	FILE *o = stdout;
	unsigned char *buf = NULL;
	size_t cap = 0;
	if (c->mode == MODE_JSON)
		fputs("[", o);
	if (ncol && c->header && c->mode != MODE_JSON) {
		for (int i = 0; i < ncol; i++) {
			const char *n = sqlite3_column_name(st, i);
			if (c->mode == MODE_CSV) {
				if (i)
					putc(',', o);
				csv_field(o, (const unsigned char *)n, strlen(n));
			} else {
				size_t w = text_width((const unsigned char *)n, strlen(n));
				if (i)
					fputs("  ", o);
				if (numeric[i] && nrows)
					fprintf(o, "%*s%s", (int)(width[i] - w), "", n);
				else
					fprintf(o, "%s%*s", n, i + 1 < ncol ? (int)(width[i] - w) : 0, "");
			}
		}
		putc('\n', o);
		if (c->mode == MODE_TABLE) {
			for (int i = 0; i < ncol; i++) {
				if (i)
					fputs("  ", o);
				for (size_t k = 0; k < width[i]; k++)
					putc('-', o);
			}
			putc('\n', o);
		}
	}
	for (uint64_t r = 0; r < nrows; r++) {
		if (c->mode == MODE_JSON)
			fputs(r ? ",\n{" : "\n{", o);
		for (int i = 0; i < ncol; i++) {
			char t = 0;
			uint32_t n = 0;
			if (fread(&t, 1, 1, tmp) != 1 || fread(&n, sizeof(n), 1, tmp) != 1)
				break;
			if (n + 1 > cap) {
				unsigned char *nb = realloc(buf, n + 1);
				if (!nb)
					break;
				buf = nb;
				cap = n + 1;
			}
			if (n && fread(buf, 1, n, tmp) != n)
				break;
			buf[n] = 0;
			if (c->mode == MODE_CSV) {
				if (i)
					putc(',', o);
				if (t != SQLITE_NULL)
					csv_field(o, buf, n);
			} else if (c->mode == MODE_JSON) {
				const char *name = sqlite3_column_name(st, i);
				if (i)
					putc(',', o);
				json_str(o, (const unsigned char *)name, strlen(name));
				putc(':', o);
				if (t == SQLITE_NULL)
					fputs("null", o);
				else if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
					fwrite(buf, 1, n, o);
				else
					json_str(o, buf, n);
			} else {
				size_t w = text_width(buf, n);
				if (i)
					fputs("  ", o);
				if (numeric[i])
					fprintf(o, "%*s", (int)(width[i] - w), "");
				fwrite(buf, 1, n, o);
				if (!numeric[i] && i + 1 < ncol)
					fprintf(o, "%*s", (int)(width[i] - w), "");
			}
		}
		if (c->mode == MODE_JSON)
			putc('}', o);
		else
			putc('\n', o);
	}
	if (c->mode == MODE_JSON)
		fputs(nrows ? "\n]\n" : "]\n", o);
	free(buf);
	fclose(tmp);
	free(width);
	free(numeric);
	fflush(o);
	return 0;
}

/* Run every statement of `sql`, in order; stops at the first error.  0 or 1. */
static int run_sql(sqlcli *c, const char *sql)
{
	const char *tail = sql;
	while (tail && *tail) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(c->db, tail, -1, &st, &tail) != SQLITE_OK) {
			const char *m = sqlite3_errmsg(c->db);
			fprintf(stderr, strncmp(m, "traceio:", 8) ? "traceio: sql: %s\n" : "%s\n", m);
			return 1;
		}
		if (!st) /* blanks or a comment */
			continue;
		int r = run_stmt(c, st);
		sqlite3_finalize(st);
		if (r)
			return 1;
	}
	return 0;
}

/* The columns of a table as a CREATE TABLE statement (.schema). */
static void show_schema(sqlcli *c, const char *name)
{
	sqlite3_stmt *st;
	const char *q = name && *name ? "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ?1 ORDER BY name"
				      : "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name";
	if (sqlite3_prepare_v2(c->db, q, -1, &st, NULL) != SQLITE_OK)
		return;
	if (name && *name)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	bool any = false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		char *pq = sqlite3_mprintf("SELECT name, type FROM pragma_table_info(%Q)", t);
		sqlite3_stmt *ps;
		any = true;
		if (!pq || sqlite3_prepare_v2(c->db, pq, -1, &ps, NULL) != SQLITE_OK) {
			sqlite3_free(pq);
			continue;
		}
		char *id = sqlite3_mprintf("%w", t);
		printf("CREATE TABLE \"%s\"(", id ? id : "");
		sqlite3_free(id);
		for (int i = 0; sqlite3_step(ps) == SQLITE_ROW; i++) {
			char *cn = sqlite3_mprintf("%w", (const char *)sqlite3_column_text(ps, 0));
			printf("%s\"%s\" %s", i ? ", " : "", cn ? cn : "", sqlite3_column_text(ps, 1));
			sqlite3_free(cn);
		}
		printf(");\n");
		sqlite3_finalize(ps);
		sqlite3_free(pq);
	}
	sqlite3_finalize(st);
	if (!any)
		fprintf(stderr, "traceio: sql: no table named '%s'\n", name);
}

/* A dot command of the prompt; false for .quit. */
static bool dot_command(sqlcli *c, char *line)
{
	char *arg = line + strcspn(line, " \t");
	if (*arg)
		*arg++ = 0;
	arg += strspn(arg, " \t");
	arg[strcspn(arg, " \t;\r\n")] = 0;
	if (!strcmp(line, ".quit") || !strcmp(line, ".exit") || !strcmp(line, ".q"))
		return false;
	if (!strcmp(line, ".tables")) {
		enum mode m = c->mode;
		bool h = c->header;
		c->mode = MODE_CSV;
		c->header = false;
		run_sql(c, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
		c->mode = m;
		c->header = h;
	} else if (!strcmp(line, ".schema")) {
		show_schema(c, arg);
	} else if (!strcmp(line, ".mode")) {
		if (!strcmp(arg, "csv"))
			c->mode = MODE_CSV;
		else if (!strcmp(arg, "json"))
			c->mode = MODE_JSON;
		else if (!strcmp(arg, "table") || !strcmp(arg, "column"))
			c->mode = MODE_TABLE;
		else
			fprintf(stderr, "traceio: sql: .mode table, csv or json\n");
	} else if (!strcmp(line, ".help")) {
		printf(".tables            list the tables\n"
		       ".schema [TABLE]    the columns of TABLE (or of every table)\n"
		       ".mode table|csv|json\n"
		       ".quit              leave\n"
		       "SQL statements end with ';'\n");
	} else {
		fprintf(stderr, "traceio: sql: unknown command %s (try .help)\n", line);
	}
	return true;
}

/* Append a line to the statement being typed. */
static char *append_line(char *stmt, const char *line)
{
	size_t a = stmt ? strlen(stmt) : 0, b = strlen(line);
	char *n = realloc(stmt, a + b + 2);
	if (!n)
		return stmt;
	memcpy(n + a, line, b);
	n[a + b] = '\n';
	n[a + b + 1] = 0;
	return n;
}

/*
 * libedit, loaded for the prompt on a terminal only: linked, it (and the
 * libraries it needs) would load into every traceio process, 0.3 ms of
 * each start.
 */
static struct {
	__typeof__(readline) *readline;
	__typeof__(add_history) *add_history;
} edit;

static bool edit_load(void)
{
	void *h = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		edit.readline = (__typeof__(readline) *)dlsym(h, "readline");
		edit.add_history = (__typeof__(add_history) *)dlsym(h, "add_history");
	}
	return edit.readline && edit.add_history;
}

/*
 * The prompt: lines are read (with libedit's line editing and history on a
 * terminal, plain lines otherwise) until a statement is complete.
 */
static int interactive(sqlcli *c)
{
	bool tty = isatty(0);
	if (tty && !edit_load())
		fprintf(stderr, "traceio: no line editing: cannot load libedit.so.2 (Debian: libedit2)\n");
	char *stmt = NULL;
	int status = 0;
	if (tty)
		printf("traceio %s: SQL over traces; .help for help, .quit to leave\n", TRACEIO_VERSION);
	for (;;) {
		char *line;
		char *plain = NULL;
		if (tty && edit.readline) {
			line = edit.readline(stmt ? "   ...> " : "traceio> ");
		} else {
			if (tty) {
				fputs(stmt ? "   ...> " : "traceio> ", stdout);
				fflush(stdout);
			}
			size_t cap = 0;
			ssize_t n = getline(&plain, &cap, stdin);
			if (n < 0) {
				free(plain);
				line = NULL;
			} else {
				if (n && plain[n - 1] == '\n')
					plain[n - 1] = 0;
				line = plain;
			}
		}
		if (!line)
			break;
		if (!stmt && line[strspn(line, " \t")] == '.') {
			if (tty && *line && edit.add_history)
				edit.add_history(line);
			bool go = dot_command(c, line + strspn(line, " \t"));
			free(line);
			if (!go)
				break;
			continue;
		}
		stmt = append_line(stmt, line);
		free(line);
		if (stmt && sqlite3_complete(stmt)) {
			if (tty && edit.add_history) {
				char *h = strdup(stmt);
				if (h) {
					h[strcspn(h, "\0")] = 0;
					size_t n = strlen(h);
					if (n && h[n - 1] == '\n')
						h[n - 1] = 0;
					edit.add_history(h);
					free(h);
				}
			}
			if (run_sql(c, stmt))
				status = 1;
			free(stmt);
			stmt = NULL;
		}
	}
	if (stmt && stmt[strspn(stmt, " \t\n")] && run_sql(c, stmt))
		status = 1;
	free(stmt);
	return status;
}

/* traceio sql: options, the tables, then each query or the prompt.  Exit status. */
int cli_sql(int argc, char **argv)
{
	sqlcli c = {.mode = MODE_TABLE, .header = true};
	tio_sqlite_args a = {0};
	const char **queries = calloc((size_t)argc + 1, sizeof(char *));
	char **inputs = calloc((size_t)argc + 1, sizeof(char *));
	size_t nq = 0, ninputs = 0;
	int status = 2;
	if (!queries || !inputs) {
		fprintf(stderr, "traceio: out of memory\n");
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		char *s = argv[i];
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			help();
			status = 0;
			goto out;
		} else if (!strcmp(s, "-q") || !strcmp(s, "--query")) {
			if (++i >= argc) {
				fprintf(stderr, "traceio: sql: %s needs a query\n", s);
				goto out;
			}
			queries[nq++] = argv[i];
		} else if (!strcmp(s, "--csv")) {
			c.mode = MODE_CSV;
		} else if (!strcmp(s, "--json")) {
			c.mode = MODE_JSON;
		} else if (!strcmp(s, "--table")) {
			c.mode = MODE_TABLE;
		} else if (!strcmp(s, "--no-header")) {
			c.header = false;
		} else if (!strcmp(s, "--clock-exact")) {
			a.clock_exact = true;
		} else if (!strcmp(s, "--raw-ts")) {
			a.raw_ts = true;
		} else if (!strcmp(s, "--ts2secs")) {
			if (++i >= argc) {
				fprintf(stderr, "traceio: sql: %s needs a frequency in Hz\n", s);
				goto out;
			}
			a.ts2secs = argv[i];
		} else if (!strcmp(s, "-i") || !strcmp(s, "--format")) {
			if (++i >= argc) {
				fprintf(stderr, "traceio: sql: %s needs a format (%s)\n", s, cli_format_list());
				goto out;
			}
			a.format = argv[i];
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "traceio: sql: unknown option %s (try traceio help sql)\n", s);
			goto out;
		} else if (cli_path_exists(s)) {
			inputs[ninputs++] = s;
		} else if (i == argc - 1 && ninputs) {
			queries[nq++] = s; /* the last argument, not a path: the query */
		} else {
			fprintf(stderr, "traceio: sql: %s: no such file or directory\n", s);
			status = 1;
			goto out;
		}
	}
	if (!ninputs) {
		fprintf(stderr, "usage: traceio sql [OPTIONS] TRACE... ['QUERY'] (try traceio help sql)\n");
		goto out;
	}
	a.paths = inputs;
	a.npaths = ninputs;
	status = 1;
	if (sqlite3_open(":memory:", &c.db) != SQLITE_OK) {
		fprintf(stderr, "traceio: sql: cannot open SQLite\n");
		goto out;
	}
	if (tio_sqlite_register(c.db, &c.mod) != SQLITE_OK) {
		fprintf(stderr, "traceio: sql: cannot register the traceio module\n");
		goto out;
	}
	tio_sqlite_set_warn(c.mod, on_warn, NULL);
	char *err = NULL;
	if (tio_sqlite_attach(c.mod, c.db, "main", &a, &err) != SQLITE_OK) {
		fprintf(stderr, "%s%s\n", err && !strncmp(err, "traceio:", 8) ? "" : "traceio: sql: ",
			err ? err : sqlite3_errmsg(c.db));
		sqlite3_free(err);
		goto out;
	}
	/* the opening warnings, once (the tables open the traces again per query) */
	{
		tio_trace **t;
		size_t n;
		if (cli_open_inputs(inputs, ninputs, a.format, &t, &n) == 0)
			cli_free_traces(t, n);
	}
	status = 0;
	if (!nq) {
		status = interactive(&c);
	} else {
		for (size_t i = 0; i < nq && !status; i++)
			status = run_sql(&c, queries[i]);
	}
	if (!status && tio_sqlite_warnings(c.mod))
		status = 1;
out:
	if (c.db)
		sqlite3_close(c.db);
	free(queries);
	free(inputs);
	return status;
}

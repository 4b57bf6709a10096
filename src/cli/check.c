/*
 * traceio check: read every input to the end and list every problem found,
 * each with its location (file and byte offset, or metadata line:column,
 * and the field), as the readers report them.  Besides what the readers
 * refuse, it checks what only a whole read can see: event times that go
 * backwards after the merge (a stream whose clock is not monotonic).
 * Events a reader keeps in file order although they are a little earlier
 * than an event before them (tio_msg_out_of_order: LTTng 0.x) are listed
 * as notes, which are not problems.
 * A trace that does not open is a problem; the other traces under the same
 * directory are still checked.  Exit status: 0 clean, 1 problems found,
 * 2 usage.
 */
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void print_help(void)
{
	printf("usage: traceio check [-i FORMAT] [-q] [--max N] [--ltt-tsc RULE] [--ts2secs HZ] [--raw-ts] [--clock-exact] TRACE...\n"
	       "\n"
	       "Reads every TRACE (of any format; a directory is searched for traces) to\n"
	       "the end and lists every problem found with its location: file and byte\n"
	       "offset (or metadata line:column) and the field.  Damaged packets, pages or\n"
	       "blocks are skipped and reading goes on, so every problem is listed.\n"
	       "\n"
	       "  -i, --format FMT   read the inputs as FMT (%s) instead of guessing\n"
	       "  -q, --quiet        print only the one-line summary of each trace\n"
	       "  --max N            stop listing (not reading) after N problems (and N notes)\n"
	       "                     per trace\n"
	       CLI_READER_OPTS_HELP
	       "\n"
	       "Notes are not problems: an event its reader keeps in file order although it\n"
	       "is earlier than an event before it in its file (LTTng 0.x: an interrupt's\n"
	       "event a few µs out of order) is listed as 'note: FILE@OFFSET: ... N ns (C\n"
	       "cycles) earlier than ...'.\n"
	       "\n"
	       "Exit status: 0 when every trace is clean (notes only), 1 when a problem was\n"
	       "found, 2 on bad usage.\n"
	       "\n"
	       "A big trace (32 MiB or more per CPU in its packet index, 8 CPUs at most,\n"
	       "or TIO_THREADS=N) is read in parts on every core first; when a part finds\n"
	       "anything to list, or a stream's times go back where the parts meet, it is\n"
	       "read again on one thread, which lists the problems in order.\n",
	       cli_format_list());
}

typedef struct check_opts {
	const char *format;
	bool quiet;
	uint64_t max;
	cli_reader_opts ropts;
} check_opts;

typedef struct tally {
	uint64_t problems, notes, events, discarded_events, discarded_packets;
} tally;

static void problem(const check_opts *o, tally *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(const check_opts *o, tally *t, const char *fmt, ...)
{
	t->problems++;
	if (o->quiet || (o->max && t->problems > o->max))
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("  ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

static void note(const check_opts *o, tally *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(const check_opts *o, tally *t, const char *fmt, ...)
{
	t->notes++;
	if (o->quiet || (o->max && t->notes > o->max))
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("  note: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

/*
 * A clean trace on every core: each thread opens the trace again and reads
 * one part of it (tio_mux_set_part).  A part is clean when it reads to its
 * end without an error or a note, and each stream's message times (the
 * merge's keys: the time, or a discarded range's beginning) never go back
 * in it.  When every part is clean and each stream's times also hold
 * across the cuts, every stream is in time order, so the whole merge is,
 * and a read on one thread would list no problem either: the summary is
 * all there is to print.  Otherwise the caller reads the trace on one
 * thread as before, and lists what it finds in order.
 */
typedef struct cpart {
	const check_opts *o;
	const char *in;	  /* the input path the trace was opened from, */
	size_t ti, ntr;	  /* as trace ti of ntr */
	unsigned k, n;
	uint32_t nstreams;
	tally t;
	int64_t *first, *last; /* each stream's first and last time in this part */
	bool *seen;
	bool clean;
	pthread_t th;
} cpart;

static void *check_part(void *arg)
{
	cpart *p = arg;
	tio_trace **v = NULL, *tr;
	size_t nv = 0;
	tio_mux *mux = NULL;
	tio_index_info ix;
	if (tio_trace_open_all(p->in, p->o->format, &v, &nv) || nv != p->ntr)
		goto out;
	tr = v[p->ti];
	if (cli_set_reader_opts(&tr, 1, &p->o->ropts) || tio_trace_index(tr, &ix) || tio_trace_warning(tr, 0) ||
	    ix.streams != p->nstreams ||
	    tio_mux_new(&tr, 1, &mux) || tio_mux_set_part(mux, p->k, p->n))
		goto out;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0)
			goto out;
		int kind = tio_msg_kind(m);
		int64_t ns, back_ns, end;
		uint64_t count, back_cycles;
		bool range, has = tio_msg_time_ns(m, &ns);
		if (kind == TIO_MSG_KIND_DISCARDED_EVENTS || kind == TIO_MSG_KIND_DISCARDED_PACKETS) {
			if (kind == TIO_MSG_KIND_DISCARDED_EVENTS)
				p->t.discarded_events++;
			else
				p->t.discarded_packets++;
			if (!has && tio_msg_discarded(m, &count, &range, &ns, &end) && range)
				has = true;
		} else if (kind == TIO_MSG_KIND_EVENT) {
			p->t.events++;
			if (has && tio_msg_out_of_order(m, &back_ns, &back_cycles))
				goto out; /* a note to list */
		}
		if (!has)
			continue;
		uint32_t s = tio_msg_stream_number(m);
		if (s >= p->nstreams || (p->seen[s] && ns < p->last[s]))
			goto out;
		if (!p->seen[s])
			p->first[s] = ns;
		p->seen[s] = true;
		p->last[s] = ns;
	}
	p->clean = true;
out:
	tio_mux_free(mux);
	cli_free_traces(v, nv);
	tio_error_clear();
	return NULL;
}

/* True when the trace, read in parts, is clean (see cpart); *t then holds its tally. */
static bool check_in_parts(const check_opts *o, tio_trace *trace, const char *in, size_t ti, size_t ntr,
			   tally *t)
{
	tio_index_info ix;
	if (tio_trace_warning(trace, 0) || tio_trace_index(trace, &ix) || tio_trace_warning(trace, 0)) {
		tio_error_clear();
		return false;
	}
	unsigned n = cli_parts(&trace, 1);
	if (n < 2 || !ix.streams)
		return false;
	cpart *ps = calloc(n, sizeof(*ps));
	bool clean = ps != NULL;
	unsigned started = 0;
	for (unsigned k = 0; clean && k < n; k++) {
		ps[k] = (cpart){.o = o, .in = in, .ti = ti, .ntr = ntr, .k = k, .n = n, .nstreams = ix.streams};
		ps[k].first = calloc(ix.streams, sizeof(int64_t));
		ps[k].last = calloc(ix.streams, sizeof(int64_t));
		ps[k].seen = calloc(ix.streams, sizeof(bool));
		if (!ps[k].first || !ps[k].last || !ps[k].seen || (k && pthread_create(&ps[k].th, NULL, check_part, &ps[k])))
			clean = false;
		else
			started = k + 1;
	}
	if (clean)
		check_part(&ps[0]);
	for (unsigned k = 1; k < started; k++)
		pthread_join(ps[k].th, NULL);
	for (unsigned k = 0; clean && k < n; k++) {
		clean = ps[k].clean;
		t->events += ps[k].t.events;
		t->discarded_events += ps[k].t.discarded_events;
		t->discarded_packets += ps[k].t.discarded_packets;
	}
	/* each stream's times hold across the cuts */
	for (uint32_t s = 0; clean && s < ix.streams; s++) {
		bool seen = false;
		int64_t last = 0;
		for (unsigned k = 0; clean && k < n; k++) {
			if (!ps[k].seen[s])
				continue;
			clean = !seen || ps[k].first[s] >= last;
			seen = true;
			last = ps[k].last[s];
		}
	}
	for (unsigned k = 0; ps && k < n; k++) {
		free(ps[k].first);
		free(ps[k].last);
		free(ps[k].seen);
	}
	free(ps);
	return clean;
}

/* Read one opened trace (trace ti of the ntr that input `in` opens) to the end; returns the number of problems. */
static uint64_t check_trace(const check_opts *o, tio_trace *trace, const char *in, size_t ti, size_t ntr)
{
	tally t = {0};
	tio_mux *mux = NULL;
	const char *path = tio_trace_path(trace);
	if (!o->quiet)
		printf("%s: %s\n", path, tio_trace_format(trace));
	fflush(stdout);
	if (check_in_parts(o, trace, in, ti, ntr, &t))
		goto out;
	t = (tally){0};
	/* what the reader found on opening and read past (e.g. a clock offset out
	   of range), and in building the packet index (e.g. LTTng's index/ files
	   disagreeing with the packet headers) */
	tio_index_info ix;
	if (tio_trace_index(trace, &ix))
		tio_error_clear();
	const char *w;
	for (size_t k = 0; (w = tio_trace_warning(trace, k)); k++)
		problem(o, &t, "%s", w);
	if (tio_mux_new(&trace, 1, &mux)) {
		problem(o, &t, "%s", tio_error_message());
		goto out;
	}
	cli_decode_only_threads(mux);
	bool has_last = false;
	int64_t last_ns = 0;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0) {
			problem(o, &t, "%s", tio_error_message());
			tio_error_clear();
			if (r == TIO_ERR_NOMEM)
				break;
			continue;
		}
		int kind = tio_msg_kind(m);
		if (kind == TIO_MSG_KIND_DISCARDED_EVENTS)
			t.discarded_events++;
		else if (kind == TIO_MSG_KIND_DISCARDED_PACKETS)
			t.discarded_packets++;
		if (kind != TIO_MSG_KIND_EVENT)
			continue;
		t.events++;
		int64_t ns;
		if (!tio_msg_time_ns(m, &ns))
			continue;
		int64_t back_ns;
		uint64_t back_cycles;
		if (tio_msg_out_of_order(m, &back_ns, &back_cycles)) {
			/* kept in file order by its reader: not a problem */
			const char *f = tio_msg_stream_path(m);
			note(o, &t,
			     "%s@0x%" PRIx64 ": event '%s': %" PRId64 " ns (%" PRIu64 " cycles) earlier than an event before it in its file, kept in file order",
			     f ? f : path, tio_msg_offset(m), tio_msg_event_name(m) ? tio_msg_event_name(m) : "?",
			     back_ns, back_cycles);
			continue;
		}
		if (has_last && ns < last_ns) {
			const char *f = tio_msg_stream_path(m);
			problem(o, &t,
				"%s@0x%" PRIx64 ": event '%s': time %" PRId64 " ns is before the previous event's (%" PRId64 " ns): its stream's clock went backwards",
				f ? f : path, tio_msg_offset(m), tio_msg_event_name(m) ? tio_msg_event_name(m) : "?",
				ns, last_ns);
		}
		if (!has_last || ns > last_ns)
			last_ns = ns;
		has_last = true;
	}
out:
	tio_mux_free(mux);
	if (o->max && t.problems > o->max && !o->quiet)
		printf("  ... %" PRIu64 " more problems not listed\n", t.problems - o->max);
	if (o->max && t.notes > o->max && !o->quiet)
		printf("  ... %" PRIu64 " more notes not listed\n", t.notes - o->max);
	printf("%s: %" PRIu64 " events", path, t.events);
	if (t.discarded_events || t.discarded_packets)
		printf(" (%" PRIu64 " discarded-events and %" PRIu64 " discarded-packets records)",
		       t.discarded_events, t.discarded_packets);
	if (t.notes)
		printf(", %" PRIu64 " note%s", t.notes, t.notes > 1 ? "s" : "");
	if (t.problems)
		printf(", %" PRIu64 " problem%s\n", t.problems, t.problems > 1 ? "s" : "");
	else
		printf(", ok\n");
	fflush(stdout);
	return t.problems;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Check every trace under `path`.  When one of them does not open, the
 * others are still checked: a directory that is not a trace itself is
 * searched entry by entry.  A trace that does not open is one problem.
 */
static uint64_t check_path(const check_opts *o, const char *path, int depth)
{
	tio_trace **traces = NULL;
	size_t k = 0;
	if (!tio_trace_open_all(path, o->format, &traces, &k)) {
		uint64_t problems = 0;
		if (cli_apply_reader_opts(traces, k, &o->ropts)) {
			cli_free_traces(traces, k);
			return 1;
		}
		for (size_t j = 0; j < k; j++)
			problems += check_trace(o, traces[j], path, j, k);
		cli_free_traces(traces, k);
		return problems;
	}
	char *why = strdup(tio_error_message());
	tio_error_clear();
	struct stat st;
	tio_trace *t = NULL;
	bool container = false;
	if (depth < 32 && !stat(path, &st) && S_ISDIR(st.st_mode)) {
		if (!tio_trace_open(path, o->format, &t))
			tio_trace_free(t); /* a trace itself: its own error stands */
		else
			container = strstr(tio_error_message(), "not a trace of any known format") != NULL;
		tio_error_clear();
	}
	if (!container) {
		printf("%s: cannot be opened\n  %s\n%s: 0 events, 1 problem\n", path, why ? why : "?", path);
		free(why);
		return 1;
	}
	free(why);
	uint64_t problems = 0;
	DIR *d = opendir(path);
	char **names = NULL;
	size_t nn = 0, cap = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		size_t l = strlen(path) + strlen(de->d_name) + 2;
		char *c = malloc(l);
		if (!c)
			break;
		snprintf(c, l, "%s/%s", path, de->d_name);
		if (stat(c, &st) || !S_ISDIR(st.st_mode)) {
			free(c);
			continue;
		}
		if (nn == cap) {
			char **nv = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));
			if (!nv) {
				free(c);
				break;
			}
			names = nv;
		}
		names[nn++] = c;
	}
	if (d)
		closedir(d);
	if (nn > 1)
		qsort(names, nn, sizeof(*names), name_cmp);
	for (size_t j = 0; j < nn; j++) {
		problems += check_path(o, names[j], depth + 1);
		free(names[j]);
	}
	free(names);
	return problems;
}

int cli_check(int argc, char **argv)
{
	check_opts o = {0};
	char **inputs = calloc((size_t)argc, sizeof(char *));
	size_t n = 0;
	if (!inputs) {
		fprintf(stderr, "traceio: out of memory\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_help();
			free(inputs);
			return 0;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o.quiet = true;
		} else if (!strncmp(a, "--ltt-tsc", 9) || !strncmp(a, "--ts2secs", 9) || !strcmp(a, "--clock-exact") ||
			   !strcmp(a, "--raw-ts")) {
			if (cli_reader_opt(argc, argv, &i, &o.ropts) <= 0) {
				if (strcmp(a, "--ltt-tsc") && strncmp(a, "--ltt-tsc=", 10) && strcmp(a, "--ts2secs") &&
				    strncmp(a, "--ts2secs=", 10))
					fprintf(stderr, "traceio: unknown option '%s' (see traceio check --help)\n", a);
				free(inputs);
				return 2;
			}
		} else if (!strcmp(a, "-i") || !strcmp(a, "--format") || !strcmp(a, "--max")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "traceio: %s needs a value\n", a);
				free(inputs);
				return 2;
			}
			if (!strcmp(a, "--max")) {
				char *e;
				o.max = strtoull(argv[++i], &e, 10);
				if (*e || !o.max) {
					fprintf(stderr, "traceio: --max needs a positive number\n");
					free(inputs);
					return 2;
				}
			} else {
				o.format = argv[++i];
			}
		} else if (!strncmp(a, "--format=", 9)) {
			o.format = a + 9;
		} else if (!strcmp(a, "--")) {
			while (++i < argc)
				inputs[n++] = argv[i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "traceio: unknown option '%s' (see traceio check --help)\n", a);
			free(inputs);
			return 2;
		} else {
			inputs[n++] = argv[i];
		}
	}
	if (!n) {
		fprintf(stderr, "traceio: no input trace (see traceio check --help)\n");
		free(inputs);
		return 2;
	}
	uint64_t problems = 0;
	for (size_t i = 0; i < n; i++)
		problems += check_path(&o, inputs[i], 0);
	free(inputs);
	return problems ? 1 : 0;
}

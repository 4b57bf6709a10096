/* Helpers shared by the subcommands: opening inputs, the message loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

bool cli_path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

const char *cli_format_list(void)
{
	static char buf[256];
	if (!buf[0]) {
		const char *const *f = tio_formats();
		for (size_t i = 0; f[i]; i++) {
			if (i)
				strncat(buf, ", ", sizeof(buf) - strlen(buf) - 1);
			strncat(buf, f[i], sizeof(buf) - strlen(buf) - 1);
		}
	}
	return buf;
}

static _Thread_local FILE *err_to;

FILE *cli_err(void) { return err_to ? err_to : stderr; }

void cli_err_to(FILE *f) { err_to = f; }

void cli_error(const char *what)
{
	const char *m = tio_error_message();
	if (what && *m)
		fprintf(cli_err(), "traceio: %s: %s\n", what, m);
	else
		fprintf(cli_err(), "traceio: %s\n", *m ? m : (what ? what : "error"));
}

/* Open `paths` (merged, warnings printed, unless quiet: then nothing is printed at all). */
static int open_inputs(char **paths, size_t npaths, const char *format, bool quiet, tio_trace ***traces,
		       size_t *ntraces)
{
	tio_trace **all = NULL;
	size_t n = 0;
	for (size_t i = 0; i < npaths; i++) {
		tio_trace **v;
		size_t k;
		if (tio_trace_open_all(paths[i], format, &v, &k)) {
			if (!quiet)
				cli_error(NULL);
			cli_free_traces(all, n);
			return 1;
		}
		tio_trace **nall = realloc(all, (n + k) * sizeof(*all));
		if (!nall) {
			if (!quiet)
				fprintf(cli_err(), "traceio: out of memory\n");
			cli_free_traces(v, k);
			cli_free_traces(all, n);
			return 1;
		}
		all = nall;
		memcpy(all + n, v, k * sizeof(*v));
		n += k;
		free(v);
	}
	if (tio_traces_merge(all, &n)) {
		if (!quiet)
			cli_error(NULL);
		cli_free_traces(all, n);
		return 1;
	}
	if (!quiet)
		cli_print_warnings(all, n);
	*traces = all;
	*ntraces = n;
	return 0;
}

int cli_open_inputs(char **paths, size_t npaths, const char *format, tio_trace ***traces,
		    size_t *ntraces)
{
	return open_inputs(paths, npaths, format, false, traces, ntraces);
}

static const char *opts_unused(tio_trace **traces, size_t n, const cli_reader_opts *o);

int cli_open_inputs_quiet(char **paths, size_t npaths, const char *format, const cli_reader_opts *o,
			  tio_trace ***traces, size_t *ntraces)
{
	if (open_inputs(paths, npaths, format, true, traces, ntraces))
		return 1;
	if (!opts_unused(*traces, *ntraces, o) && !cli_set_reader_opts(*traces, *ntraces, o))
		return 0;
	cli_free_traces(*traces, *ntraces);
	*traces = NULL;
	*ntraces = 0;
	return 1;
}

void cli_free_traces(tio_trace **traces, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tio_trace_free(traces[i]);
	free(traces);
}

int cli_run(tio_mux *mux, tio_sink *sink, bool strict, cli_filter *cf)
{
	int status = 0;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0) {
			cli_error(NULL);
			status = 1;
			if (strict || r == TIO_ERR_NOMEM)
				break;
			continue;
		}
		int keep = cf ? cli_filter_keep(cf, m) : 1;
		if (keep < 0 || (keep ? tio_sink_consume(sink, m) : tio_sink_filtered(sink, m))) {
			cli_error(NULL);
			status = 1;
			break;
		}
	}
	if (tio_sink_finish(sink)) {
		cli_error(NULL);
		status = 1;
	}
	return status;
}

int cli_reader_opt(int argc, char **argv, int *i, cli_reader_opts *o)
{
	const char *a = argv[*i], *v;
	if (!strcmp(a, "--clock-exact")) {
		o->clock_exact = true;
		return 1;
	}
	if (!strcmp(a, "--raw-ts")) {
		o->raw_ts = true;
		return 1;
	}
	if (!strcmp(a, "--ts2secs") || !strncmp(a, "--ts2secs=", 10)) {
		if (a[9] == '=') {
			v = a + 10;
		} else if (*i + 1 < argc) {
			v = argv[++*i];
		} else {
			fprintf(stderr, "traceio: --ts2secs needs a value (a frequency in Hz)\n");
			return -1;
		}
		char *e;
		errno = 0;
		unsigned long long hz = strtoull(v, &e, 10);
		if (!*v || *e || errno || !hz || v[0] == '-') {
			fprintf(stderr, "traceio: --ts2secs: '%s' is not a frequency in Hz (a positive integer)\n", v);
			return -1;
		}
		o->ts2secs = v;
		return 1;
	}
	if (!strcmp(a, "--ltt-tsc")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "traceio: --ltt-tsc needs a value (auto, nocarry, lttv)\n");
			return -1;
		}
		v = argv[++*i];
	} else if (!strncmp(a, "--ltt-tsc=", 10)) {
		v = a + 10;
	} else {
		return 0;
	}
	if (strcmp(v, "auto") && strcmp(v, "nocarry") && strcmp(v, "lttv")) {
		fprintf(stderr, "traceio: --ltt-tsc: '%s' is not a rule (auto, nocarry, lttv)\n", v);
		return -1;
	}
	o->ltt_tsc = v;
	return 1;
}

int cli_set_reader_opts(tio_trace **traces, size_t n, const cli_reader_opts *o)
{
	for (size_t i = 0; i < n; i++)
		if ((o->clock_exact && tio_trace_set(traces[i], "clock-exact", "1")) ||
		    (o->ltt_tsc && !strcmp(tio_trace_format(traces[i]), "lttng0") &&
		     tio_trace_set(traces[i], "ltt-tsc", o->ltt_tsc)) ||
		    (o->ts2secs && !strcmp(tio_trace_format(traces[i]), "tracedat") &&
		     tio_trace_set(traces[i], "ts2secs", o->ts2secs)) ||
		    (o->raw_ts && !strcmp(tio_trace_format(traces[i]), "tracedat") &&
		     tio_trace_set(traces[i], "raw-ts", "1")))
			return 1;
	return 0;
}

void cli_formats_seen(tio_trace **traces, size_t n, cli_seen *seen)
{
	for (size_t i = 0; i < n; i++) {
		seen->tracedat += !strcmp(tio_trace_format(traces[i]), "tracedat");
		seen->lttng0 += !strcmp(tio_trace_format(traces[i]), "lttng0");
	}
}

/* Why `o` has an option that no reader of the inputs seen takes, or NULL. */
static const char *opts_unused_seen(const cli_seen *seen, const cli_reader_opts *o)
{
	if (o->ts2secs && !seen->tracedat)
		return "--ts2secs is for trace.dat inputs, and none is one";
	if (o->raw_ts && !seen->tracedat)
		return "--raw-ts is for trace.dat inputs, and none is one";
	if (o->ltt_tsc && !seen->lttng0)
		return "--ltt-tsc is for LTTng 0.x inputs, and none is one";
	return NULL;
}

/* Why `o` has an option that no input's reader takes, or NULL. */
static const char *opts_unused(tio_trace **traces, size_t n, const cli_reader_opts *o)
{
	cli_seen seen = {0};
	cli_formats_seen(traces, n, &seen);
	return opts_unused_seen(&seen, o);
}

int cli_reader_opts_unused_seen(const cli_seen *seen, const cli_reader_opts *o)
{
	const char *why = opts_unused_seen(seen, o);
	if (why)
		fprintf(cli_err(), "traceio: %s\n", why);
	return why != NULL;
}

int cli_reader_opts_unused(tio_trace **traces, size_t n, const cli_reader_opts *o)
{
	const char *why = opts_unused(traces, n, o);
	if (why)
		fprintf(cli_err(), "traceio: %s\n", why);
	return why != NULL;
}

int cli_apply_reader_opts(tio_trace **traces, size_t n, const cli_reader_opts *o)
{
	if (!cli_set_reader_opts(traces, n, o))
		return 0;
	cli_error(NULL);
	return 1;
}

void cli_print_warnings(tio_trace **traces, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *w;
		for (size_t k = 0; (w = tio_trace_warning(traces[i], k)); k++)
			fprintf(cli_err(), "traceio: warning: %s\n", w);
	}
}

void cli_decode_only_threads(tio_mux *mux)
{
	const char *e = getenv("TIO_THREADS");
	if (!e || !*e)
		tio_mux_set_threads(mux, 1);
}

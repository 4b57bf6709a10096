/*
 * traceio print: every event of every input, merged by time, as text.
 * Options follow babeltrace2's names for CTF-style text and trace-cmd
 * report's for trace.dat-style text.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* Options handed to the sink as key/value: the sink decides what they mean. */
typedef struct sink_opt {
	const char *longname;
	char shortname;
	bool takes_value;
	const char *key; /* sink option key */
	const char *help;
} sink_opt;

static const sink_opt sink_opts[] = {
	{"names", 'n', true, "names", "NAME,...: print field names of: payload, context, scope, header, all, none"},
	{"fields", 'f', true, "fields", "NAME,...: print: trace, trace:hostname, trace:domain, trace:procname, trace:vpid, loglevel, emf, callsite, all"},
	{"no-delta", 0, false, "no-delta", "do not print the time since the previous event"},
	{"clock-cycles", 0, false, "clock-cycles", "print timestamps in clock cycles"},
	{"clock-seconds", 0, false, "clock-seconds", "print timestamps as seconds.ns"},
	{"clock-date", 0, false, "clock-date", "print the date too"},
	{"clock-gmt", 0, false, "clock-gmt", "print times in UTC rather than local time"},
	{"clock-offset", 0, true, "clock-offset", "SEC: add SEC seconds to every clock offset"},
	{"clock-offset-ns", 0, true, "clock-offset-ns", "NS: add NS ns to every clock offset"},
	{"color", 0, true, "color", "WHEN: never, auto, always"},
	{"verbose", 'v', false, "verbose", "print every packet context field (-v before a -F: see -v above)"},
	{"lttv-trace-path", 0, true, "trace-path", "PATH: --style lttv: the trace path to print (default: as given)"},
	{"raw", 'R', false, "raw", "--style trace-cmd: print raw fields (trace-cmd report -R)"},
	{"ns", 't', false, "ns", "--style trace-cmd: nanosecond timestamps (trace-cmd report -t)"},
	{"latency", 'l', false, "latency", "--style trace-cmd: the latency format (trace-cmd report -l): irqs off, need resched, hard/soft irq, preempt count"},
	{"ts-diff", 0, false, "ts-diff", "--style trace-cmd: the time since the line before, (+us) or (+ns) with -t (trace-cmd report --ts-diff)"},
};

static void print_help(void)
{
	printf("usage: traceio print [OPTIONS] TRACE...\n"
	       "\n"
	       "Prints the events of every TRACE (a CTF directory, a trace.dat file...; a\n"
	       "directory is searched for traces) merged by time.\n"
	       "\n"
	       "  -i, --format FMT      read the inputs as FMT (%s) instead of guessing\n"
	       "  --style STYLE         babeltrace (CTF default), trace-cmd, lttv, or json (one JSON\n"
	       "                        object per message and line, exact values: docs/formats/json.md)\n"
	       "  -o, --output-format F text (default) or dummy (decode everything, print nothing;\n"
	       "                        on every core: the traces read in parts, one per CPU or\n"
	       "                        TIO_THREADS, when their indexes hold 32 MiB per part;\n"
	       "                        8 parts at most by default)\n"
	       "  -b, --begin TIME      drop events before TIME\n"
	       "  -e, --end TIME        drop events after TIME\n"
	       "  --timerange=[B,E]     both\n"
	       "                        TIME: [-]SEC[.NS] from the clock origin, or\n"
	       "                        'YYYY-MM-DD HH:MM[:SS[.NS]]' or 'HH:MM[:SS[.NS]]' (the first\n"
	       "                        event's day), in local time (UTC with --clock-gmt)\n"
	       "  --strict              stop at the first error instead of skipping the damaged packet\n"
	       CLI_FILTER_OPTS_HELP
	       "  --cpu N[,M-K...]      only the events of these CPUs (trace.dat, LTTng's per-CPU\n"
	       "                        streams, LTT; --style trace-cmd: as trace-cmd report --cpu)\n"
	       CLI_READER_OPTS_HELP,
	       cli_format_list());
	for (size_t i = 0; i < sizeof(sink_opts) / sizeof(sink_opts[0]); i++) {
		const sink_opt *o = &sink_opts[i];
		char lhs[64];
		if (o->shortname)
			snprintf(lhs, sizeof(lhs), "-%c, --%s", o->shortname, o->longname);
		else
			snprintf(lhs, sizeof(lhs), "--%s", o->longname);
		printf("  %-21s %s\n", lhs, o->help);
	}
}

/*
 * Parse a babeltrace2 time: "[-]SEC[.NS]" (ns from origin) or
 * "YYYY-MM-DD HH:MM[:SS[.NS]]".
 */
static int parse_frac(const char **pp, int64_t *f)
{
	const char *p = *pp;
	*f = 0;
	if (*p != '.')
		return 0;
	size_t k = strspn(p + 1, "0123456789");
	if (!k || k > 9)
		return -1;
	for (size_t i = 0; i < 9; i++)
		*f = *f * 10 + (i < k ? p[1 + i] - '0' : 0);
	*pp = p + 1 + k;
	return 0;
}

/*
 * Parse a babeltrace2 time: "[-]SEC[.NS]" (ns from origin),
 * "YYYY-MM-DD HH:MM[:SS[.NS]]", or "HH:MM[:SS[.NS]]" (*tod set: a time
 * of day, resolved against the first event's day by the mux).
 */
int cli_parse_time(const char *s, bool gmt, int64_t *ns, bool *tod)
{
	int y, mo, d, h, mi, n = 0;
	*tod = false;
	if (sscanf(s, "%d-%d-%d %d:%d%n", &y, &mo, &d, &h, &mi, &n) == 5 ||
	    (y = mo = d = 0, sscanf(s, "%d:%d%n", &h, &mi, &n) == 2 && strchr(s, ':'))) {
		long isec = 0;
		int64_t f = 0;
		const char *p = s + n;
		if (*p == ':') {
			char *e;
			isec = strtol(p + 1, &e, 10);
			p = e;
			if (parse_frac(&p, &f))
				return -1;
		}
		if (*p || h < 0 || h > 23 || mi < 0 || mi > 59 || isec < 0 || isec > 60)
			return -1;
		if (!y) {
			*tod = true;
			*ns = ((int64_t)h * 3600 + mi * 60 + isec) * 1000000000 + f;
			return 0;
		}
		struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
				.tm_hour = h, .tm_min = mi, .tm_sec = (int)isec, .tm_isdst = -1};
		time_t t = gmt ? timegm(&tm) : mktime(&tm);
		/* a date past 2262 (or before 1677) is no int64 count of ns */
		if (__builtin_mul_overflow((int64_t)t, 1000000000, ns) || __builtin_add_overflow(*ns, f, ns))
			return -1;
		return 0;
	}
	const char *p = s;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	size_t k = strspn(p, "0123456789");
	if (!k || k > 11)
		return -1;
	int64_t whole = strtoll(p, NULL, 10), f;
	p += k;
	if (parse_frac(&p, &f) || *p)
		return -1;
	/* 11 digits of seconds may exceed an int64 count of ns (from 9223372037 s on) */
	if (__builtin_mul_overflow(whole, 1000000000, ns) || __builtin_add_overflow(*ns, f, ns))
		return -1;
	if (neg)
		*ns = -*ns;
	return 0;
}

/* What the skip hook needs: the sink, and the filter the events before --begin went through. */
typedef struct skip_ctx {
	tio_sink *sink;
	cli_filter *cf;
} skip_ctx;

/* tio_mux skip classes: the ones the sink's skip hook needs */
static int skip_wants_ctx(void *arg, const tio_event_class *ec)
{
	return tio_sink_skip_wants(((skip_ctx *)arg)->sink, ec);
}

/*
 * tio_mux skip hook: the sink sees what --begin drops, as if it had printed
 * it, or, when a -F would have dropped it, as a filtered event (trace-cmd
 * learns no comm from those).  Errors do not matter here.
 */
static void skip_event(void *arg, const tio_msg *m)
{
	skip_ctx *c = arg;
	int keep = cli_filter_keep(c->cf, m);
	(void)(keep == 0 ? tio_sink_filtered(c->sink, m) : tio_sink_skip(c->sink, m));
}

int cli_print(int argc, char **argv)
{
	char *range_copy = NULL;
	const char *format = NULL, *style = NULL, *outfmt = "text";
	const char *begin = NULL, *end = NULL;
	bool strict = false, gmt = false;
	cli_reader_opts ropts = {0};
	cli_filter_opts fopts = {0};
	cli_filter cf = {0};
	skip_ctx sctx = {0};
	char **inputs = calloc((size_t)argc, sizeof(char *));
	const char **keys = calloc((size_t)argc, sizeof(char *));
	const char **vals = calloc((size_t)argc, sizeof(char *));
	size_t ninputs = 0, nkv = 0;
	int status = 2;
	tio_trace **traces = NULL;
	size_t ntraces = 0;
	tio_mux *mux = NULL;
	tio_sink *sink = NULL;
	if (!inputs || !keys || !vals) {
		fprintf(stderr, "traceio: out of memory\n");
		goto out;
	}

	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		char *eq = NULL;
		if (a[0] != '-' || !a[1]) {
			inputs[ninputs++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			while (++i < argc)
				inputs[ninputs++] = argv[i];
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_help();
			status = 0;
			goto out;
		}
		int ro = cli_reader_opt(argc, argv, &i, &ropts);
		if (ro < 0)
			goto out;
		if (ro)
			continue;
		int fo = cli_filter_opt(argc, argv, &i, &fopts);
		if (fo < 0)
			goto out;
		if (fo)
			continue;
		/* --key=value or --key value */
		char name[64] = "";
		if (a[1] == '-') {
			eq = strchr(a, '=');
			size_t l = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			if (l >= sizeof(name))
				l = sizeof(name) - 1;
			memcpy(name, a + 2, l);
			name[l] = 0;
		}
#define VALUE()                                                                                    \
	(eq ? eq + 1 : (i + 1 < argc ? argv[++i] : (fprintf(stderr, "traceio: %s needs a value\n", a), \
						     (char *)NULL)))
		const char *v;
		if (!strcmp(name, "format") || !strcmp(a, "-i")) {
			if (!(v = VALUE()))
				goto out;
			format = v;
		} else if (!strcmp(name, "style")) {
			if (!(v = VALUE()))
				goto out;
			style = v;
		} else if (!strcmp(name, "output-format") || !strcmp(a, "-o")) {
			if (!(v = VALUE()))
				goto out;
			outfmt = v;
		} else if (!strcmp(name, "begin") || !strcmp(a, "-b")) {
			if (!(begin = VALUE()))
				goto out;
		} else if (!strcmp(name, "end") || !strcmp(a, "-e")) {
			if (!(end = VALUE()))
				goto out;
		} else if (!strcmp(name, "timerange")) {
			if (!(v = VALUE()))
				goto out;
			/* [BEGIN,END] or BEGIN,END */
			char *copy = strdup(v[0] == '[' ? v + 1 : v);
			char *comma = copy ? strchr(copy, ',') : NULL;
			if (!comma) {
				fprintf(stderr, "traceio: --timerange needs BEGIN,END\n");
				free(copy);
				goto out;
			}
			*comma = 0;
			char *e2 = comma + 1;
			size_t l = strlen(e2);
			if (l && e2[l - 1] == ']')
				e2[l - 1] = 0;
			free(range_copy);
			range_copy = copy; /* begin and end point into it: freed at the end */
			begin = copy;
			end = e2;
		} else if (!strcmp(name, "strict")) {
			strict = true;
		} else {
			const sink_opt *o = NULL;
			for (size_t k = 0; k < sizeof(sink_opts) / sizeof(sink_opts[0]); k++)
				if ((name[0] && !strcmp(name, sink_opts[k].longname)) ||
				    (!name[0] && a[1] == sink_opts[k].shortname && !a[2]))
					o = &sink_opts[k];
			if (!o) {
				fprintf(stderr, "traceio: unknown option '%s' (see traceio print --help)\n", a);
				goto out;
			}
			if (o->takes_value) {
				if (!(v = VALUE()))
					goto out;
			} else {
				v = eq ? eq + 1 : "1";
			}
			if (!strcmp(o->key, "clock-gmt"))
				gmt = true;
			keys[nkv] = o->key;
			vals[nkv++] = v;
		}
	}
	if (!ninputs) {
		fprintf(stderr, "traceio: no input trace (see traceio print --help)\n");
		goto out;
	}

	status = 1;
	/* decode only, everything: in parts on every core when the inputs are big, before any open here */
	if (!strcmp(outfmt, "dummy") && !begin && !end && !fopts.n && !fopts.cpus && !fopts.pids && !fopts.comms) {
		unsigned np = cli_parts_of_paths(inputs, ninputs);
		if (np > 1 && (status = cli_run_parts_unopened(inputs, ninputs, format, &ropts, "dummy", np)) >= 0)
			goto out;
		status = 1;
	}
	if (cli_open_inputs(inputs, ninputs, format, &traces, &ntraces) ||
	    cli_reader_opts_unused(traces, ntraces, &ropts) || cli_apply_reader_opts(traces, ntraces, &ropts))
		goto out;
	if (!style)
		style = !ntraces ? "babeltrace"
			: !strcmp(tio_trace_format(traces[0]), "lttng0") ? "lttv"
			: !strcmp(tio_trace_format(traces[0]), "tracedat") ? "trace-cmd"
									   : "babeltrace";
	const char *sink_name = !strcmp(outfmt, "dummy") ? "dummy" : style;
	if (strcmp(outfmt, "text") && strcmp(outfmt, "dummy")) {
		fprintf(stderr, "traceio: unknown output format '%s' (text, dummy)\n", outfmt);
		status = 2;
		goto out;
	}
	if (tio_sink_new(sink_name, stdout, stderr, &sink)) {
		cli_error("--style");
		status = 2;
		goto out;
	}
	if (strcmp(sink_name, "dummy")) {
		for (size_t k = 0; k < nkv; k++) {
			if (tio_sink_set(sink, keys[k], vals[k])) {
				cli_error(NULL);
				status = 2;
				goto out;
			}
		}
	}
	/* trace-cmd's --cpu is the sink's (it peeks at the other CPUs as trace-cmd does) */
	bool cpu_in_sink = !strcmp(sink_name, "trace-cmd");
	if (cpu_in_sink && fopts.cpus && tio_sink_set(sink, "cpu", fopts.cpus)) {
		cli_error("--cpu");
		status = 2;
		goto out;
	}
	int fs = cli_filter_build(&fopts, traces, ntraces, cpu_in_sink, &cf);
	if (fs) {
		status = fs;
		goto out;
	}
	/* decode only, everything: in parts on every core when there is enough to cut */
	if (!strcmp(sink_name, "dummy") && !begin && !end && !cf.f && !cf.cpus) {
		unsigned np = cli_parts(traces, ntraces);
		if (np > 1 && (status = cli_run_parts(inputs, ninputs, format, &ropts, "dummy", np)) >= 0)
			goto out;
		status = 1;
	}
	/* sinks that print per input (trace-cmd: file-name prefixes) learn them up front */
	for (size_t i = 0; i < ntraces; i++) {
		if (tio_sink_add_trace(sink, traces[i])) {
			cli_error(NULL);
			goto out;
		}
	}
	if (tio_mux_new(traces, ntraces, &mux)) {
		cli_error(NULL);
		goto out;
	}
	if (!strcmp(sink_name, "dummy"))
		cli_decode_only_threads(mux);
	int64_t ns;
	bool tod;
	if (begin) {
		if (cli_parse_time(begin, gmt, &ns, &tod)) {
			fprintf(stderr, "traceio: cannot parse time '%s'\n", begin);
			status = 2;
			goto out;
		}
		if (tod)
			tio_mux_set_begin_time_of_day(mux, ns, gmt);
		else
			tio_mux_set_begin(mux, ns);
		/* trace-cmd's comm names depend on the events printed before */
		if (!strcmp(sink_name, "trace-cmd")) {
			sctx = (skip_ctx){sink, &cf};
			tio_mux_set_skip_hook(mux, skip_event, &sctx);
			tio_mux_set_skip_classes(mux, skip_wants_ctx, &sctx);
		}
	}
	if (end) {
		if (cli_parse_time(end, gmt, &ns, &tod)) {
			fprintf(stderr, "traceio: cannot parse time '%s'\n", end);
			status = 2;
			goto out;
		}
		if (tod)
			tio_mux_set_end_time_of_day(mux, ns, gmt);
		else
			tio_mux_set_end(mux, ns);
	}
	if (!cpu_in_sink) /* the trace-cmd style sees the events a filter drops */
		cli_filter_classes(&cf, mux);
	status = cli_run(mux, sink, strict, &cf);
	if (fflush(stdout)) {
		perror("traceio: stdout");
		status = 1;
	}
out:
	cli_filter_free(&cf);
	free(range_copy);
	tio_sink_free(sink);
	tio_mux_free(mux);
	cli_free_traces(traces, ntraces);
	free(inputs);
	free(keys);
	free(vals);
	return status;
}

/* traceio info: what is in a trace, from its packet index, or read to the end (--count). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_info(int argc, char **argv)
{
	const char *format = NULL;
	bool count = false;
	cli_reader_opts ropts = {0};
	char **inputs = argv + 1;
	int n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: traceio info [-c] [-i FORMAT] [--ltt-tsc RULE] [--ts2secs HZ] [--raw-ts] TRACE...\n\n"
			       "Prints each TRACE's format, environment, clocks, streams and event\n"
			       "classes, and what its packet index tells without decoding an event\n"
			       "(milliseconds on a multi-GB trace): packets (trace.dat: pages), bytes,\n"
			       "an estimate of the events, the time range (CTF: the packets' begin and\n"
			       "end times), the discarded events the packet counters tell.  The 2008\n"
			       "LTTng layout and new LTT have no index: use --count.\n\n"
			       "  -c, --count           read every TRACE to the end instead: events per\n"
			       "                        stream and event class, the first and last event's\n"
			       "                        times, discarded events and packets (read in parts\n"
			       "                        on every core when it is big, TIO_THREADS)\n"
			       "  -i, --format FMT      read the inputs as FMT (%s) instead of guessing\n"
			       CLI_READER_OPTS_HELP, cli_format_list());
			return 0;
		}
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--count")) {
			count = true;
			continue;
		}
		if ((!strcmp(argv[i], "-i") || !strcmp(argv[i], "--format")) && i + 1 < argc) {
			format = argv[++i];
			continue;
		}
		int ro = cli_reader_opt(argc, argv, &i, &ropts);
		if (ro < 0)
			return 2;
		if (ro)
			continue;
		inputs[n++] = argv[i];
	}
	if (!n) {
		fprintf(stderr, "traceio: no input trace (see traceio info --help)\n");
		return 2;
	}
	tio_trace **traces;
	size_t ntraces;
	if (cli_open_inputs(inputs, (size_t)n, format, &traces, &ntraces))
		return 1;
	if (cli_reader_opts_unused(traces, ntraces, &ropts) || cli_apply_reader_opts(traces, ntraces, &ropts)) {
		cli_free_traces(traces, ntraces);
		return 1;
	}
	tio_mux *mux = NULL;
	tio_sink *sink = NULL;
	int status = 1;
	if (tio_mux_new(traces, ntraces, &mux) || tio_sink_new("info", stdout, stderr, &sink)) {
		cli_error(NULL);
		goto out;
	}
	cli_decode_only_threads(mux);
	if (count) {
		/* in parts on every core when it is big: counts do not depend on
		   the order; the order traces are printed in does, and when the
		   parts cannot tell it (tio_sink_merge), all is read on one thread */
		unsigned np = cli_parts(traces, ntraces);
		if (np > 1 && (status = cli_run_parts(inputs, (size_t)n, format, &ropts, "info", np)) >= 0)
			goto out;
		status = cli_run(mux, sink, false, NULL);
		goto out;
	}
	if (tio_sink_set(sink, "count", "0")) {
		cli_error(NULL);
		goto out;
	}
	for (size_t i = 0; i < ntraces; i++) {
		if (tio_sink_add_trace(sink, traces[i])) {
			cli_error(NULL);
			goto out;
		}
	}
	status = tio_sink_finish(sink) ? (cli_error(NULL), 1) : 0;
out:
	tio_sink_free(sink);
	tio_mux_free(mux);
	cli_free_traces(traces, ntraces);
	return status;
}

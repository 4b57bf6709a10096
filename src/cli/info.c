/* traceio info: what is in a trace, read to the end. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_info(int argc, char **argv)
{
	const char *format = NULL;
	cli_reader_opts ropts = {0};
	char **inputs = argv + 1;
	int n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: traceio info [-i FORMAT] [--ltt-tsc RULE] TRACE...\n\n"
			       "Reads every TRACE to the end and prints its format, streams, event\n"
			       "classes with their counts, time range and discarded events.\n\n"
			       "  -i, --format FMT      read the inputs as FMT (%s) instead of guessing\n"
			       CLI_READER_OPTS_HELP, cli_format_list());
			return 0;
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
	if (cli_apply_reader_opts(traces, ntraces, &ropts)) {
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
	status = cli_run(mux, sink, false);
out:
	tio_sink_free(sink);
	tio_mux_free(mux);
	cli_free_traces(traces, ntraces);
	return status;
}

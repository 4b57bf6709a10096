/* traceio info: what is in a trace, read to the end. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_info(int argc, char **argv)
{
	const char *format = NULL;
	char **inputs = argv + 1;
	int n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: traceio info [-i FORMAT] TRACE...\n\n"
			       "Reads every TRACE to the end and prints its format, streams, event\n"
			       "classes with their counts, time range and discarded events.\n");
			return 0;
		}
		if ((!strcmp(argv[i], "-i") || !strcmp(argv[i], "--format")) && i + 1 < argc) {
			format = argv[++i];
			continue;
		}
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

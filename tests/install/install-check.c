/*
 * Built by tests/install/test-install.sh against an installed traceio
 * (`pkg-config --cflags --libs traceio`), with nothing but the public
 * header: opens every trace under each argument, merges them by time and
 * prints "NS EVENT_NAME" per event, then "events: N".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <traceio/traceio.h>

int main(int argc, char **argv)
{
	tio_trace **all = NULL;
	size_t n = 0;
	for (int i = 1; i < argc; i++) {
		tio_trace **v;
		size_t k;
		if (tio_trace_open_all(argv[i], NULL, &v, &k) < 0) {
			fprintf(stderr, "install-check: %s\n", tio_error_message());
			return 1;
		}
		tio_trace **grown = realloc(all, (n + k) * sizeof *all);
		if (!grown)
			return 1;
		all = grown;
		for (size_t j = 0; j < k; j++)
			all[n++] = v[j];
		free(v);
	}
	tio_mux *m;
	if (tio_mux_new(all, n, &m) < 0) {
		fprintf(stderr, "install-check: %s\n", tio_error_message());
		return 1;
	}
	const tio_msg *msg;
	uint64_t events = 0;
	int r;
	while ((r = tio_mux_next(m, &msg)) != 0) {
		if (r < 0) {
			fprintf(stderr, "install-check: %s\n", tio_error_message());
			continue;
		}
		if (tio_msg_kind(msg) != TIO_MSG_KIND_EVENT)
			continue;
		int64_t ns = 0;
		tio_msg_time_ns(msg, &ns);
		printf("%" PRId64 " %s\n", ns, tio_msg_event_name(msg));
		events++;
	}
	printf("events: %" PRIu64 "\n", events);
	int status = tio_mux_errors(m) ? 1 : 0;
	tio_mux_free(m);
	for (size_t i = 0; i < n; i++)
		tio_trace_free(all[i]);
	free(all);
	return status;
}

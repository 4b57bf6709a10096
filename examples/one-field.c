/*
 * one-field: the value of one field of one event class, for every such
 * event of a trace, in time order: "NS VALUE" lines.  The complete example
 * of docs/API.md.
 *
 *   cc one-field.c $(pkg-config --cflags --libs traceio)
 *   ./a.out ~/lttng-traces/my-session sched_switch next_tid
 *   ./a.out trace.dat sched_switch common_pid
 *
 * FIELD is a path as tio_msg_lookup takes it ("payload.hdr.len",
 * "context.vtid", "arr[3]"...).  It is resolved once per event class
 * (tio_field_ref_resolve); reading it from each event is then an index.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceio/traceio.h>
#include <traceio/class.h>
#include <traceio/field.h>

static void print_value(const tio_field *f)
{
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
	size_t len;
	int kind = tio_field_kind(f);
	if (kind == TIO_FIELD_FLOAT && tio_field_double(f, &d) == 0)
		printf("%.17g", d);
	else if (tio_field_class_int_signed(tio_field_get_class(f)) && tio_field_int(f, &i) == 0)
		printf("%" PRId64, i);
	else if (tio_field_uint(f, &u) == 0)
		printf("%" PRIu64, u);
	else if (tio_field_string(f, &s, &len) == 0) /* not NUL-terminated: print len bytes */
		printf("%.*s", (int)len, s);
	else
		printf("(a value of kind %d)", kind);
	tio_error_clear(); /* the getters that did not apply set a message */
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s TRACE EVENT FIELD\n", argv[0]);
		return 2;
	}
	tio_trace **traces;
	size_t n;
	tio_mux *mux;
	if (tio_trace_open_all(argv[1], NULL, &traces, &n) || tio_traces_merge(traces, &n) ||
	    tio_mux_new(traces, n, &mux)) {
		fprintf(stderr, "%s: %s\n", argv[1], tio_error_message());
		return 1;
	}

	const tio_event_class *last = NULL; /* the class `ref` is for, or was found not to match */
	bool wanted = false;
	tio_field_ref ref;
	int status = 0, r;
	const tio_msg *m;
	while ((r = tio_mux_next(mux, &m)) != 0) {
		if (r < 0) { /* a damaged packet: reported and skipped, reading goes on */
			fprintf(stderr, "%s\n", tio_error_message());
			status = 1;
			continue;
		}
		const tio_event_class *ec = tio_msg_event_class(m); /* NULL: not an event */
		if (!ec)
			continue;
		if (ec != last) { /* a class seen for the first time since the last one: resolve once */
			const char *name = tio_event_class_name(ec);
			last = ec;
			wanted = name && !strcmp(name, argv[2]);
			if (wanted && tio_field_ref_resolve(ec, argv[3], &ref)) {
				fprintf(stderr, "%s\n", tio_error_message());
				status = 1;
				break;
			}
		}
		if (!wanted)
			continue;
		int64_t ns = 0;
		tio_msg_time_ns(m, &ns);
		printf("%" PRId64 " ", ns);
		const tio_field *f = tio_msg_field(m, &ref); /* valid until the next tio_mux_next */
		if (f)
			print_value(f);
		else
			printf("(absent)");
		putchar('\n');
	}
	tio_mux_free(mux); /* before the traces it reads */
	for (size_t i = 0; i < n; i++)
		tio_trace_free(traces[i]);
	free(traces);
	return status;
}

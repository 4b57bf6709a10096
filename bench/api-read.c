/*
 * The value API's cost (bench/api.sh): read TRACE to the end and, for the
 * events of CLASS, the field PATH through a tio_field_ref resolved once
 * ("ref"), through tio_msg_lookup on every event ("lookup"), or every
 * integer, float and string leaf of the payload through one reference each
 * ("all"); "none" only decodes.  Prints the events read, the values taken
 * and their sum (so nothing is optimised away).  Public API only.
 *
 * Usage: api-read none|ref|lookup|all TRACE CLASS PATH
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceio/class.h"
#include "traceio/error.h"
#include "traceio/field.h"
#include "traceio/mux.h"
#include "traceio/trace.h"

#define MAXREF 256

static uint64_t sum, taken;

/* One value by its kind (the class says which getter applies: no error path taken). */
static void take(const tio_field *f)
{
	uint64_t u;
	int64_t i;
	double d;
	const char *s;
	size_t n;
	if (!f)
		return;
	switch (tio_field_kind(f)) {
	case TIO_FIELD_INT:
	case TIO_FIELD_ENUM:
		if (tio_field_class_int_signed(tio_field_get_class(f))) {
			if (tio_field_int(f, &i))
				return;
			u = (uint64_t)i;
		} else if (tio_field_uint(f, &u)) {
			return;
		}
		sum += u;
		break;
	case TIO_FIELD_FLOAT:
		if (tio_field_double(f, &d))
			return;
		sum += (uint64_t)(int64_t)d;
		break;
	case TIO_FIELD_STRING:
		if (tio_field_string(f, &s, &n))
			return;
		sum += n;
		break;
	default:
		return;
	}
	taken++;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: api-read none|ref|lookup|all TRACE CLASS PATH\n");
		return 2;
	}
	const char *mode = argv[1], *cls = argv[3], *path = argv[4];
	tio_trace **v;
	size_t n;
	tio_mux *mux;
	if (tio_trace_open_all(argv[2], NULL, &v, &n) || tio_traces_merge(v, &n) || tio_mux_new(v, n, &mux)) {
		fprintf(stderr, "api-read: %s\n", tio_error_message());
		return 1;
	}
	const tio_event_class *ec = NULL;
	tio_field_ref ref, all[MAXREF];
	uint32_t nall = 0;
	uint64_t events = 0;
	const tio_msg *m;
	int r;
	while ((r = tio_mux_next(mux, &m)) != 0) {
		if (r < 0)
			continue;
		if (tio_msg_kind(m) != TIO_MSG_KIND_EVENT)
			continue;
		events++;
		const tio_event_class *e = tio_msg_event_class(m);
		if (e != ec) {
			const char *nm = tio_event_class_name(e);
			if (!nm || strcmp(nm, cls))
				continue;
			ec = e; /* one class: resolve once */
			if (!strcmp(mode, "ref") && tio_field_ref_resolve(ec, path, &ref)) {
				fprintf(stderr, "api-read: %s\n", tio_error_message());
				return 1;
			}
			if (!strcmp(mode, "all")) {
				const tio_field_class *pl = tio_event_class_scope(ec, TIO_SCOPE_EVENT_PAYLOAD);
				for (uint32_t k = 0; pl && k < tio_field_class_member_count(pl) && nall < MAXREF; k++) {
					char p[512];
					snprintf(p, sizeof(p), "payload.%s", tio_field_class_member_name(pl, k));
					if (!tio_field_ref_resolve(ec, p, &all[nall]))
						nall++;
				}
			}
		}
		if (mode[0] == 'r')
			take(tio_msg_field(m, &ref));
		else if (mode[0] == 'l') {
			const tio_field *f;
			if (!tio_msg_lookup(m, path, &f))
				take(f);
		} else if (mode[0] == 'a') {
			for (uint32_t k = 0; k < nall; k++) {
				const tio_field *f = tio_msg_field(m, &all[k]);
				if (f)
					take(f);
			}
		}
	}
	printf("%" PRIu64 " events, %" PRIu64 " values, sum %" PRIu64 "\n", events, taken, sum);
	tio_mux_free(mux);
	for (size_t i = 0; i < n; i++)
		tio_trace_free(v[i]);
	free(v);
	return 0;
}

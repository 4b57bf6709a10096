/*
 * The new LTT writer (sink "ltt") end to end.
 *
 * Without arguments (the test run): converts the bundled CTF trace
 * tests/data/ctf/wk-heartbeat-u ($TIO_TOP) to a new LTT trace in a temporary
 * directory, reads it back with the "ltt" reader and checks that every
 * event has the same name, time and payload values, then converts the
 * result again and checks the two new LTT traces are byte-identical.
 *
 * With arguments it is the conversion tool the shell tests use until
 * `traceio convert` selects this writer:
 *   unit-lttnew-write IN OUT [KEY=VALUE...]   (sink options: byte-order, arch, block-size)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ir/ir.h"
#include "sink/sink.h"
#include "traceio/mux.h"
#include "traceio/trace.h"

static int convert(const char *in, const char *out, char **opts, int nopts)
{
	tio_trace **tr = NULL;
	size_t n = 0;
	tio_mux *mux = NULL;
	tio_sink *sink = NULL;
	int status = 1;
	if (tio_trace_open_all(in, NULL, &tr, &n) || tio_mux_new(tr, n, &mux) ||
	    tio_sink_new("ltt", stdout, stderr, &sink) || tio_sink_set(sink, "output", out) ||
	    tio_sink_set(sink, "force", "1")) {
		fprintf(stderr, "error: %s\n", tio_error_message());
		goto out;
	}
	for (int i = 0; i < nopts; i++) {
		char *eq = strchr(opts[i], '=');
		if (!eq) {
			fprintf(stderr, "error: option %s: KEY=VALUE expected\n", opts[i]);
			goto out;
		}
		*eq = 0;
		if (tio_sink_set(sink, opts[i], eq + 1)) {
			fprintf(stderr, "error: %s\n", tio_error_message());
			goto out;
		}
	}
	status = 0;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0) {
			fprintf(stderr, "input error: %s\n", tio_error_message());
			status = 1;
			continue;
		}
		if (tio_sink_consume(sink, m)) {
			fprintf(stderr, "error: %s\n", tio_error_message());
			status = 1;
			goto out;
		}
	}
	if (tio_sink_finish(sink)) {
		fprintf(stderr, "error: %s\n", tio_error_message());
		status = 1;
	}
out:
	tio_sink_free(sink);
	tio_mux_free(mux);
	for (size_t i = 0; i < n; i++)
		tio_trace_free(tr[i]);
	free(tr);
	return status;
}

/* One line per event: name, ns, the leaf values of every scope. */
static int dump(const char *path, char **out, size_t *len)
{
	tio_trace **tr = NULL;
	size_t n = 0;
	tio_mux *mux = NULL;
	FILE *f = open_memstream(out, len);
	int r = f ? tio_trace_open_all(path, NULL, &tr, &n) : -1;
	r = r ? r : tio_mux_new(tr, n, &mux);
	while (!r) {
		const tio_msg *m;
		int k = tio_mux_next(mux, &m);
		if (k <= 0) {
			r = k;
			break;
		}
		if (m->type != TIO_MSG_EVENT)
			continue;
		fprintf(f, "%s %lld", m->ec->name, (long long)m->ns);
		for (int s = TIO_SCOPE_EV_COMMON_CTX; s < TIO_NSCOPES; s++) {
			const tio_val *v = m->scope[s];
			if (!v)
				continue;
			for (uint32_t i = (uint32_t)(v - m->vals); i < v->end; i++) {
				const tio_val *x = &m->vals[i];
				switch (x->fc->kind) {
				case TIO_FC_INT:
				case TIO_FC_ENUM:
					fprintf(f, " %llu", (unsigned long long)x->v.u);
					break;
				case TIO_FC_STRING:
					fprintf(f, " \"%.*s\"", (int)x->v.s.len, x->v.s.p);
					break;
				case TIO_FC_FLOAT:
					fprintf(f, " %g", x->v.d);
					break;
				default:
					fprintf(f, " {%u}", x->n);
				}
			}
		}
		fputc('\n', f);
	}
	if (r)
		fprintf(stderr, "%s: %s\n", path, tio_error_message());
	tio_mux_free(mux);
	for (size_t i = 0; i < n; i++)
		tio_trace_free(tr[i]);
	free(tr);
	if (f)
		fclose(f);
	return r;
}

int main(int argc, char **argv)
{
	if (argc >= 3)
		return convert(argv[1], argv[2], argv + 3, argc - 3);
	const char *top = getenv("TIO_TOP");
	if (!top) {
		printf("skip: TIO_TOP not set\n");
		return 0;
	}
	char in[4096], tmp[] = "/tmp/unit-lttnew-XXXXXX";
	snprintf(in, sizeof(in), "%s/tests/data/ctf/wk-heartbeat-u", top);
	if (!mkdtemp(tmp))
		return 1;
	char a[4200], b[4200], cmd[9000];
	snprintf(a, sizeof(a), "%s/a", tmp);
	snprintf(b, sizeof(b), "%s/b", tmp);
	int fail = 0;
	if (convert(in, a, NULL, 0) || convert(a, b, NULL, 0)) {
		printf("FAIL: conversion\n");
		fail = 1;
	}
	char *d0 = NULL, *d1 = NULL, *d2 = NULL;
	size_t l0 = 0, l1 = 0, l2 = 0;
	if (!fail && (dump(in, &d0, &l0) || dump(a, &d1, &l1) || dump(b, &d2, &l2))) {
		printf("FAIL: reading back\n");
		fail = 1;
	}
	if (!fail && (l0 != l1 || memcmp(d0, d1, l0))) {
		printf("FAIL: CTF -> ltt: the events differ (%zu and %zu bytes of dump)\n", l0, l1);
		fail = 1;
	}
	if (!fail && (l1 != l2 || memcmp(d1, d2, l1))) {
		printf("FAIL: ltt -> ltt: the events differ\n");
		fail = 1;
	}
	snprintf(cmd, sizeof(cmd), "diff -r %s %s >/dev/null", a, b);
	if (!fail && system(cmd)) {
		printf("FAIL: ltt -> ltt: the files differ\n");
		fail = 1;
	}
	if (!fail && l0 < 100) {
		printf("FAIL: too few events (%zu bytes of dump)\n", l0);
		fail = 1;
	}
	free(d0);
	free(d1);
	free(d2);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		fail = 1;
	if (!fail)
		printf("ok: CTF -> ltt -> ltt, same events, same bytes\n");
	return fail;
}

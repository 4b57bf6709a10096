/*
 * Reading traces in parts on the public API (tio_mux_set_part): each part
 * opens the traces again and reads its part through its own mux, printed
 * by the "json" sink (every message and value, one line each).
 *
 *   example-parts [-t] N TRACE...
 *
 * Prints parts 0 to N-1 one after the other (with -t: each on its own
 * thread, into a temporary file each, then printed in part order).  The
 * lines, sorted, must be those `traceio print --style json TRACE...`
 * prints, sorted: every message exactly once (tests/api/test-parts.sh).
 * Each part tells its number of messages on stderr.  Exit 0, 1 when a
 * part met an error or a trace cannot be opened (told on stderr, as
 * traceio print exits), 2 on usage errors.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceio/traceio.h>

typedef struct part {
	char **paths;
	int npaths;
	unsigned k, n;
	FILE *out;
	int status;
	pthread_t th;
} part;

static void *run(void *arg)
{
	part *p = arg;
	tio_trace **all = NULL;
	size_t n = 0;
	tio_mux *mux = NULL;
	tio_sink *sink = NULL;
	p->status = 1;
	for (int i = 0; i < p->npaths; i++) {
		tio_trace **v;
		size_t k;
		if (tio_trace_open_all(p->paths[i], NULL, &v, &k)) {
			fprintf(stderr, "part %u: %s\n", p->k, tio_error_message());
			goto out;
		}
		tio_trace **na = realloc(all, (n + k) * sizeof(*all));
		if (!na)
			goto out;
		all = na;
		memcpy(all + n, v, k * sizeof(*v));
		n += k;
		free(v);
	}
	if (tio_traces_merge(all, &n) || tio_mux_new(all, n, &mux) || tio_mux_set_part(mux, p->k, p->n) ||
	    tio_sink_new("json", p->out, stderr, &sink)) {
		fprintf(stderr, "part %u: %s\n", p->k, tio_error_message());
		goto out;
	}
	int errors = 0;
	unsigned long long msgs = 0;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0) { /* told, and the other streams go on, as traceio print does */
			fprintf(stderr, "part %u: %s\n", p->k, tio_error_message());
			errors++;
			continue;
		}
		msgs++;
		if (tio_sink_consume(sink, m)) {
			fprintf(stderr, "part %u: %s\n", p->k, tio_error_message());
			goto out;
		}
	}
	if (tio_sink_finish(sink)) {
		fprintf(stderr, "part %u: %s\n", p->k, tio_error_message());
		goto out;
	}
	fprintf(stderr, "part %u of %u: %llu messages\n", p->k, p->n, msgs);
	p->status = errors ? 1 : 0;
out:
	tio_sink_free(sink);
	tio_mux_free(mux);
	for (size_t i = 0; i < n; i++)
		tio_trace_free(all[i]);
	free(all);
	return NULL;
}

int main(int argc, char **argv)
{
	int a = 1;
	bool threads = a < argc && !strcmp(argv[a], "-t");
	a += threads;
	if (argc - a < 2 || atoi(argv[a]) < 1) {
		fprintf(stderr, "usage: example-parts [-t] N TRACE...\n");
		return 2;
	}
	unsigned n = (unsigned)atoi(argv[a]);
	part *ps = calloc(n, sizeof(*ps));
	if (!ps)
		return 2;
	for (unsigned k = 0; k < n; k++) {
		ps[k] = (part){.paths = argv + a + 1, .npaths = argc - a - 1, .k = k, .n = n, .out = stdout};
		if (threads && !(ps[k].out = tmpfile()))
			return 2;
		if (!threads)
			run(&ps[k]);
		else if (pthread_create(&ps[k].th, NULL, run, &ps[k]))
			return 2;
	}
	int status = 0;
	for (unsigned k = 0; k < n; k++) {
		if (threads) {
			pthread_join(ps[k].th, NULL);
			char buf[65536];
			size_t got;
			rewind(ps[k].out);
			while ((got = fread(buf, 1, sizeof(buf), ps[k].out)))
				fwrite(buf, 1, got, stdout);
			fclose(ps[k].out);
		}
		if (ps[k].status > status)
			status = ps[k].status;
	}
	free(ps);
	return status;
}

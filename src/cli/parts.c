/*
 * Commands that read everything and whose result does not depend on the
 * order of the messages (print -o dummy, info --count), on every core:
 * each thread opens the inputs again and reads one part of them
 * (tio_mux_set_part: every stream cut between packets at the same times
 * in every part) through its own merge into its own sink; the sinks are
 * then merged (tio_sink_merge) and the first one finishes, printing the
 * whole.  When a part meets an error, nothing is printed and the caller
 * reads everything again on one thread as before, so that the errors
 * printed and the exit status are those of a whole read.
 *
 * convert --to parquet, whose files keep the order, reads its parts in
 * order (tio_mux_set_part_in_order: each part exactly a whole read's
 * messages between two cut times): its sinks' files are put one after the
 * other by tio_sink_merge, as the parts end (advance: begun with
 * tio_sink_merge_begin while the next part is still being read).
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* In order: the parts merged so far (into part 0), as they end (advance). */
struct order {
	pthread_mutex_t mu;
	unsigned merged; /* parts 1..merged are in part 0's sink */
	unsigned begun;	 /* part begun (tio_sink_merge_begin), 0: none */
	bool failed;	 /* a merge failed: read on one thread */
};

typedef struct part {
	char **inputs;
	size_t ninputs;
	const char *format;
	const cli_reader_opts *ropts;
	const char *sink_name;
	unsigned k, n;
	tio_trace **traces; /* kept open until the sinks are merged and finished */
	size_t ntraces;
	tio_mux *mux;
	tio_sink *sink;
	cli_part_setup setup; /* in order: the sink's options and inputs */
	bool warn;	      /* part 0 of traces not opened before: their warnings printed at the end */
	bool unopened;	      /* in order, the parts counted from the files' sizes: each part checks the index */
	size_t *nwarn;	      /* warn: each trace's warnings once opened (those a whole open prints) */
	void *setup_arg;
	bool ok; /* read to the end without an error */
	bool ready; /* its sink made and set up, its messages next (order.mu) */
	bool done;  /* ok, and its thread is done with it (order.mu) */
	struct order *ord; /* in order: the merges as the parts end */
	struct part *all;  /* every part (ord) */
	pthread_t th;
	struct progress *prog; /* in order, stderr a terminal: the events of every part, shown by part 0 */
} part;

/* convert's progress line in parts: every part counts, part 0's thread shows the sum twice a second. */
struct progress {
	_Atomic uint64_t events;
	double t0, last;
	bool shown;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(part *p, uint64_t add, bool end)
{
	struct progress *g = p->prog;
	uint64_t n = atomic_fetch_add(&g->events, add) + add;
	if (p->k)
		return;
	double t = now();
	if (end ? g->shown : t - g->last >= 0.5) {
		g->last = t;
		g->shown = true;
		fprintf(stderr, "\rtraceio convert: %llu events, %.1f s%s", (unsigned long long)n, t - g->t0, end ? "\n" : "");
		fflush(stderr);
	}
}

/*
 * Part p (in order) read and flushed: the parts ended in a row after
 * part 0 are merged into it now, and the next one, still being read, is
 * begun (tio_sink_merge_begin: its files' bytes so far copied now, on this
 * otherwise idle thread, the rest written in place), so that little is
 * left to do after the last part ends.
 */
static void advance(part *p)
{
	struct order *o = p->ord;
	part *ps = p->all;
	pthread_mutex_lock(&o->mu);
	p->done = true;
	if (ps[0].done && !o->failed) {
		while (o->merged + 1 < p->n && ps[o->merged + 1].done) {
			if (tio_sink_merge(ps[0].sink, ps[o->merged + 1].sink)) {
				o->failed = true;
				break;
			}
			o->merged++;
		}
		unsigned next = o->merged + 1;
		if (!o->failed && next < p->n && o->begun < next && ps[next].ready) {
			o->begun = next;
			if (tio_sink_merge_begin(ps[0].sink, ps[next].sink))
				o->failed = true;
		}
	}
	pthread_mutex_unlock(&o->mu);
}

static void *run_part(void *arg)
{
	part *p = arg;
	if (cli_open_inputs_quiet(p->inputs, p->ninputs, p->format, p->ropts, &p->traces, &p->ntraces) ||
	    tio_mux_new(p->traces, p->ntraces, &p->mux) ||
	    (p->setup ? tio_mux_set_part_in_order(p->mux, p->k, p->n) : tio_mux_set_part(p->mux, p->k, p->n)) ||
	    tio_sink_new(p->sink_name, stdout, stderr, &p->sink) ||
	    (p->setup && p->setup(p->sink, p->traces, p->ntraces, p->n, p->setup_arg)))
		return NULL;
	/* nothing to cut (no index: the LTT formats; small packets): the caller reads on one thread */
	if (p->unopened && cli_parts(p->traces, p->ntraces) < 2)
		return NULL;
	if (p->ord) {
		pthread_mutex_lock(&p->ord->mu);
		p->ready = true;
		pthread_mutex_unlock(&p->ord->mu);
	}
	if (p->warn && (p->nwarn = calloc(p->ntraces ? p->ntraces : 1, sizeof(size_t))))
		for (size_t i = 0; i < p->ntraces; i++)
			while (tio_trace_warning(p->traces[i], p->nwarn[i]))
				p->nwarn[i]++;
	int64_t last = INT64_MIN;
	uint64_t nev = 0;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(p->mux, &m);
		if (r == 0)
			break;
		if (r < 0)
			return NULL;
		int64_t ns;
		if (p->setup && tio_msg_kind(m) == TIO_MSG_KIND_EVENT) { /* in order: the events' times must not go back */
			if (!tio_msg_time_ns(m, &ns) || ns < last)
				return NULL;
			last = ns;
			if (p->prog && !(++nev & 0xffff))
				progress(p, 0x10000, false);
		}
		if (tio_sink_consume(p->sink, m))
			return NULL;
	}
	if (p->prog)
		progress(p, nev & 0xffff, false);
	if (tio_sink_flush(p->sink))
		return NULL;
	p->ok = true;
	if (p->ord)
		advance(p);
	return NULL;
}

/* How many parts for `bytes` of packets: TIO_THREADS, else the CPUs (8 at most), 32 MiB each at least. */
unsigned cli_parts_for(uint64_t bytes)
{
	const char *e = getenv("TIO_THREADS");
	if (e && *e) {
		char *end;
		unsigned long v = strtoul(e, &end, 10);
		return *end || v < 1 ? 1 : v > 64 ? 64 : (unsigned)v;
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 2)
		return 1;
	/* a part of less than 32 MiB costs more to set up (a thread, an open) than it saves */
	/* and no more than 8 by default: each part maps its packets (some 17 MB of RSS) */
	uint64_t most = bytes / (32u << 20);
	unsigned cap = cpus > 8 ? 8 : (unsigned)cpus;
	return most < 2 ? 1 : most < cap ? (unsigned)most : cap;
}

unsigned cli_parts(tio_trace **traces, size_t n)
{
	uint64_t bytes = 0;
	const char *e = getenv("TIO_THREADS");
	for (size_t i = 0; i < n && !(e && *e); i++) {
		tio_index_info ii;
		if (!tio_trace_index(traces[i], &ii))
			bytes += ii.bytes;
	}
	return cli_parts_for(bytes);
}

static uint64_t tree_bytes; /* cli_parts_of_paths: the sum so far (nftw passes no argument) */

static int add_size(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_F && S_ISREG(st->st_mode))
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

uint64_t cli_input_bytes(const char *path)
{
	char *rp = realpath(path, NULL);
	tree_bytes = 0;
	nftw(rp ? rp : path, add_size, 16, FTW_PHYS);
	free(rp);
	return tree_bytes;
}

unsigned cli_parts_of_paths(char **paths, size_t n)
{
	tree_bytes = 0;
	const char *e = getenv("TIO_THREADS");
	for (size_t i = 0; i < n && !(e && *e); i++)
		nftw(paths[i], add_size, 16, FTW_PHYS);
	return cli_parts_for(tree_bytes);
}

static int run_parts(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ropts,
		     const char *sink_name, unsigned nparts, cli_part_setup setup, void *arg, bool warn,
		     struct progress *prog, bool unopened)
{
	part *ps = calloc(nparts, sizeof(*ps));
	if (!ps)
		return -1;
	struct order ord = {.mu = PTHREAD_MUTEX_INITIALIZER};
	unsigned started = 0;
	for (unsigned k = 0; k < nparts; k++) {
		ps[k] = (part){.inputs = inputs, .ninputs = ninputs, .format = format, .ropts = ropts,
			       .sink_name = sink_name, .k = k, .n = nparts, .setup = setup, .setup_arg = arg,
			       .warn = warn && !k, .prog = prog, .unopened = unopened,
			       .ord = setup ? &ord : NULL, .all = ps};
		/* part 0 too, the caller only waits: the last part ended 1-5 ms
		   sooner (UST trace and trace.dat, 2 parts, medians of 21 runs) */
		if (pthread_create(&ps[k].th, NULL, run_part, &ps[k]))
			break;
		started = k + 1;
	}
	bool ok = started == nparts;
	for (unsigned k = 0; k < started; k++)
		pthread_join(ps[k].th, NULL);
	for (unsigned k = 0; k < nparts; k++)
		ok &= ps[k].ok;
	if (ok && prog)
		progress(&ps[0], 0, true);
	/* in order, the parts merged as they ended (advance); the rest now */
	ok &= !ord.failed;
	for (unsigned k = ord.merged + 1; ok && k < nparts; k++)
		ok = !tio_sink_merge(ps[0].sink, ps[k].sink);
	int status = -1;
	for (size_t i = 0; ok && ps[0].nwarn && i < ps[0].ntraces; i++)
		for (size_t k = 0; k < ps[0].nwarn[i]; k++)
			fprintf(stderr, "traceio: warning: %s\n", tio_trace_warning(ps[0].traces[i], k));
	if (ok)
		status = tio_sink_finish(ps[0].sink) ? (cli_error(NULL), 1) : 0;
	for (unsigned k = 0; k < nparts; k++) {
		tio_sink_free(ps[k].sink);
		tio_mux_free(ps[k].mux);
		cli_free_traces(ps[k].traces, ps[k].ntraces);
		free(ps[k].nwarn);
	}
	free(ps);
	return status;
}

int cli_run_parts(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ropts,
		  const char *sink_name, unsigned nparts)
{
	return run_parts(inputs, ninputs, format, ropts, sink_name, nparts, NULL, NULL, false, NULL, false);
}

int cli_run_parts_unopened(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ropts,
			   const char *sink_name, unsigned nparts)
{
	return run_parts(inputs, ninputs, format, ropts, sink_name, nparts, NULL, NULL, true, NULL, false);
}

int cli_run_parts_in_order(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ropts,
			   const char *sink_name, unsigned nparts, cli_part_setup setup, void *arg, bool show)
{
	struct progress g = {.t0 = now()};
	g.last = g.t0;
	return run_parts(inputs, ninputs, format, ropts, sink_name, nparts, setup, arg, true, show ? &g : NULL,
			 true);
}

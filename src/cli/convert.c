/*
 * traceio convert: read every input, merge them by time and hand the
 * messages to a writer sink ("ctf", "tracedat", "perfetto"...).  The writer is chosen
 * by name (--to, or guessed from the output path): a new writer needs one
 * line in `writers` below.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tio-sqlite.h"

/* --to NAME -> sink name, and the output names it is guessed from. */
static const struct writer {
	const char *to;
	const char *sink;
	const char *suffix; /* OUT ending in this means this format (NULL: only with --to) */
} writers[] = {
	{"ctf", "ctf", NULL}, /* first: the default, a directory */
	{"tracedat", "tracedat", ".dat"},
	{"ltt", "ltt", NULL},
	{"lttng0", "lttng0", NULL},
	{"perfetto", "perfetto", ".pftrace"},
	{"sqlite", NULL, ".db"}, /* not a sink: the SQL tables materialized (src/sqlite/materialize.c) */
	{"parquet", "parquet", NULL}, /* a directory of .parquet files */
};

/*
 * Writer options passed through as sink options (same name without "--"),
 * each for the writers listed (comma-separated --to names).
 */
static const struct wopt {
	const char *opt;
	const char *writers;
} wopts[] = {
	{"--byte-order", "ltt,lttng0"},
	{"--block-size", "ltt,lttng0"},
	{"--arch", "ltt"},
	{"--arch-size", "lttng0"},
	{"--alignment", "lttng0"},
	{"--tsc-bits", "lttng0"},
	{"--compression-level", "parquet"},
	{"--row-group-size", "parquet"},
	{"--buffer-size", "parquet"},
	{"--dictionary-size", "parquet"},
	{"--page-size", "parquet"},
	{"--partition-by", "parquet"},
	{"--int-width", "parquet"},
};
#define NWOPTS (sizeof(wopts) / sizeof(wopts[0]))

/* The writers of `writers` that this build has. */
static const char *writer_list(void)
{
	static char buf[128];
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		const char *const *s = tio_sinks();
		if (!writers[i].sink) {
			strncat(buf, buf[0] ? ", " : "", sizeof(buf) - strlen(buf) - 1);
			strncat(buf, writers[i].to, sizeof(buf) - strlen(buf) - 1);
			continue;
		}
		for (size_t k = 0; s[k]; k++)
			if (!strcmp(s[k], writers[i].sink)) {
				if (buf[0])
					strncat(buf, ", ", sizeof(buf) - strlen(buf) - 1);
				strncat(buf, writers[i].to, sizeof(buf) - strlen(buf) - 1);
			}
	}
	return buf[0] ? buf : "none";
}

static void help(void)
{
	printf("usage: traceio convert [OPTIONS] -o OUT INPUT...\n"
	       "\n"
	       "Writes the events of every INPUT (any format traceio reads: %s),\n"
	       "merged by time, as one trace in another format.  Several input traces go to\n"
	       "OUT/<trace>/ each (ctf, parquet: the trace's path below the directory holding\n"
	       "every input).  OUT is written under a temporary name and renamed at\n"
	       "the end; an existing OUT is replaced only with --force.\n"
	       "\n"
	       "  -o, --output OUT      the output path (required)\n"
	       "  -t, --to FORMAT       ctf (a CTF 1.8 directory), tracedat, ltt, lttng0, perfetto\n"
	       "                        (Perfetto's protobuf trace: docs/formats/perfetto.md),\n"
	       "                        sqlite, parquet; default: tracedat when OUT ends in .dat,\n"
	       "                        perfetto when it ends in .pftrace, sqlite when it ends in\n"
	       "                        .db, else ctf\n"
	       "                        sqlite: an SQLite database with the tables of traceio sql\n"
	       "                        (events, each event class that has events, discarded,\n"
	       "                        clocks, env, sched_slice, thread_state, thread, process,\n"
	       "                        counter; docs/sql.md) and an index on ts; takes\n"
	       "                        --format, --clock-exact, --force only\n"
	       "                        parquet: a directory of Parquet files (docs/formats/parquet.md)\n"
	       "  --ctf-version 1.8|2   ctf: CTF 1.8 (TSDL metadata, the default) or CTF 2 (JSON)\n"
	       "  -i, --format FMT      read the inputs as FMT instead of guessing\n"
	       "  -b, --begin TIME      drop events before TIME\n"
	       "  -e, --end TIME        drop events after TIME\n"
	       "                        TIME: [-]SEC[.NS] from the clock origin, or\n"
	       "                        'YYYY-MM-DD HH:MM[:SS[.NS]]' (UTC with --clock-gmt)\n"
	       "  --clock-gmt           read TIME in UTC\n"
	       "  -n, --names E,...     keep only the events with these names\n"
	       CLI_FILTER_OPTS_HELP
	       "  --cpu N[,M-K...]      only the events of these CPUs (trace.dat, LTTng's per-CPU\n"
	       "                        streams, LTT)\n"
	       "  -f, --force           replace OUT if it exists (a CTF directory or a file)\n"
	       "  --packet-size N       ctf: packet content size in bytes (K, M suffixes;\n"
	       "                        default 256K; a packet holding one bigger event grows)\n"
	       "  --packetize-metadata  ctf: write the metadata as packets (as LTTng does)\n"
	       "  --file-version 6|7    tracedat: trace.dat version (default 7)\n"
	       "  --compression ALGO    tracedat v7: none (default), zstd or zlib;\n"
	       "                        parquet: zstd (default), snappy or none\n"
	       "  --compression-level N parquet, zstd: its level, from -131072 (fastest) to 22\n"
	       "                        (smallest), not 0; default 1\n"
	       "  --byte-order little|big  ltt, lttng0: byte order (default: the input's)\n"
	       "  --block-size N        ltt, lttng0: bytes per block (default 65536)\n"
	       "  --arch ILP32|LP32|LP64|ILP64  ltt: sizes of int, long and pointers (default LP64)\n"
	       "  --arch-size 4|8       lttng0: bytes of a long and a pointer (default 8)\n"
	       "  --alignment 0|1|2|4|8 lttng0: largest alignment of a field (default 0: packed)\n"
	       "  --tsc-bits 32|64      lttng0: event time stamps of 32 bits, the high bits in\n"
	       "                        heartbeat events, or of 64 (the default)\n"
	       "                        (ltt / lttng0: an input of that same format keeps its\n"
	       "                        own layout unless these are given)\n"
	       "  --row-group-size N    parquet: rows per row group at most (default 1M; K, M)\n"
	       "  --buffer-size N       parquet: bytes buffered by all files (pages, compressed\n"
	       "                        chunks) before row groups are written early (default\n"
	       "                        64M; K, M, G); a trace of 64 MiB or more is converted\n"
	       "                        in parts, one per CPU and per 32 MiB of this buffer, on\n"
	       "                        a thread each (each part's rows after the previous\n"
	       "                        part's, row groups ending where parts meet;\n"
	       "                        TIO_THREADS=N: N parts, 1: none); more inputs than\n"
	       "                        parts and no -F, --cpu, --pid, --comm, -n, -b, -e: one\n"
	       "                        after another, each closed before the next, on a\n"
	       "                        thread per CPU and per 8 MiB of this buffer (ranges\n"
	       "                        of the inputs; TIO_THREADS=N: N)\n"
	       "  --dictionary-size N   parquet: distinct strings per column and row group at most\n"
	       "                        in a dictionary (default 64K); more: PLAIN encoding (also\n"
	       "                        when 4097 distinct come within the first 8192 values)\n"
	       "  --page-size N         parquet: bytes of a column's values in a page before it\n"
	       "                        is cut at the end of the row (default 256K; K, M)\n"
	       "  --partition-by trace  parquet: a `trace` column in every file (the name of the\n"
	       "                        trace's directory: OUT's for one input, OUT/<trace>/\n"
	       "                        for several, <trace> its path below the directory of\n"
	       "                        all inputs, / as _: hosts/web1/trace.dat gives\n"
	       "                        web1_trace.dat), so that RUNS/*/CLASS.parquet is one table\n"
	       "                        (parquet: OUT/<class>.parquet per event class with events,\n"
	       "                        OUT/events.parquet, OUT/meta.json; docs/formats/parquet.md)\n"
	       "  --int-width 64        parquet: every integer field INT64 (signed or not as the\n"
	       "                        field; default narrowest: INT32 for up to 32 bits), so\n"
	       "                        that traces of 32- and 64-bit machines (a C long of 4 or\n"
	       "                        8 bytes) give files that polars reads as one table\n"
	       "                        (DuckDB reads them either way)\n"
	       "  --strict              stop at the first input error instead of skipping\n"
	       "  -q, --quiet           no progress line (shown only when stderr is a terminal)\n"
	       CLI_READER_OPTS_HELP
	       "\n"
	       "Writers built in: %s.\n",
	       cli_format_list(), writer_list());
}

static bool sink_exists(const char *name)
{
	const char *const *s = tio_sinks();
	for (size_t i = 0; s[i]; i++)
		if (!strcmp(s[i], name))
			return true;
	return false;
}

/*
 * The writer for OUT's name: a file suffix a writer claims (*.dat), else a
 * directory, so CTF ("trace-2.6" is a directory name too).
 */
static const struct writer *guess(const char *out)
{
	size_t l = strlen(out);
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		size_t sl = writers[i].suffix ? strlen(writers[i].suffix) : 0;
		if (sl && l > sl && !strcmp(out + l - sl, writers[i].suffix))
			return &writers[i];
	}
	return &writers[0];
}

/* Is `name` in the comma-separated list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && !memcmp(p, name, n))
			return true;
		if (!c)
			break;
		p = c + 1;
	}
	return false;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The message loop of cli_run() with the name filter and a progress line. */
/* The progress line's counts, carried from one input to the next (convert_each). */
typedef struct runstate {
	uint64_t nev, nmsg;
	double t0, last;
	_Atomic uint64_t *pub; /* nev published there every 64 Ki messages (another thread shows it) */
} runstate;

/*
 * The messages of `mux` into `sink`: 0; 1 after errors read past (the
 * output is still written); -1 when the conversion stops without writing
 * (status 1).  *stop is set when reading stops at an error (--strict, out
 * of memory): the output is still written.
 */
static int run_msgs(tio_mux *mux, tio_sink *sink, const char *names, bool strict, bool progress,
		    cli_filter *cf, runstate *rs, bool *stop)
{
	int status = 0;
	for (;;) {
		const tio_msg *m;
		int r = tio_mux_next(mux, &m);
		if (r == 0)
			break;
		if (r < 0) {
			if (progress)
				fputc('\n', stderr);
			cli_error(NULL);
			status = 1;
			if (strict || r == TIO_ERR_NOMEM) {
				*stop = true;
				break;
			}
			continue;
		}
		if (names) { /* the class's name read only then: a cache miss per event otherwise */
			const char *en = tio_msg_event_name(m);
			if (en && !in_list(names, en))
				continue;
		}
		int keep = cf ? cli_filter_keep(cf, m) : 1;
		if (keep <= 0) {
			if (keep < 0) {
				cli_error(NULL);
				return -1;
			}
			continue;
		}
		if (tio_msg_kind(m) == TIO_MSG_KIND_EVENT)
			rs->nev++;
		if (tio_sink_consume(sink, m)) {
			if (progress)
				fputc('\n', stderr);
			cli_error(NULL);
			return -1;
		}
		if ((progress || rs->pub) && (++rs->nmsg & 0xffff) == 0) {
			if (rs->pub)
				atomic_store_explicit(rs->pub, rs->nev, memory_order_relaxed);
			if (!progress)
				continue;
			double t = now();
			if (t - rs->last >= 0.5) {
				rs->last = t;
				fprintf(stderr, "\rtraceio convert: %llu events, %.1f s", (unsigned long long)rs->nev,
					t - rs->t0);
				fflush(stderr);
			}
		}
	}
	return status;
}

/* The progress line's end, then the sink's; the exit status. */
static int run_end(tio_sink *sink, bool progress, const runstate *rs, int status)
{
	if (progress && rs->last > rs->t0)
		fprintf(stderr, "\rtraceio convert: %llu events, %.1f s\n", (unsigned long long)rs->nev,
			now() - rs->t0);
	if (tio_sink_finish(sink)) {
		cli_error(NULL);
		return 1;
	}
	return status;
}

static int run(tio_mux *mux, tio_sink *sink, const char *names, bool strict, bool progress,
	       cli_filter *cf)
{
	runstate rs = {.t0 = now()};
	rs.last = rs.t0;
	bool stop = false;
	int status = run_msgs(mux, sink, names, strict, progress, cf, &rs, &stop);
	return status < 0 ? 1 : run_end(sink, progress, &rs, status);
}

/* The writer's options from the command line. */
typedef struct sopts {
	const char *out, *packet_size, *ctf_version, *file_version, *compression;
	bool force, packetize;
	const char **wvals; /* NWOPTS */
	char **inputs;	    /* Parquet, CTF of several inputs: each as option input (trace directory names) */
	size_t ninputs;
} sopts;

static int set_options(tio_sink *sink, const sopts *o)
{
	if (tio_sink_set(sink, "output", o->out) || (o->force && tio_sink_set(sink, "force", "1")) ||
	    (o->packet_size && tio_sink_set(sink, "packet-size", o->packet_size)) ||
	    (o->packetize && tio_sink_set(sink, "packetize-metadata", "1")) ||
	    (o->ctf_version && tio_sink_set(sink, "ctf-version", o->ctf_version)) ||
	    (o->file_version && tio_sink_set(sink, "version", o->file_version)) ||
	    (o->compression && tio_sink_set(sink, "compression", o->compression)))
		return -1;
	for (size_t k = 0; k < NWOPTS; k++)
		if (o->wvals[k] && tio_sink_set(sink, wopts[k].opt + 2, o->wvals[k]))
			return -1;
	for (size_t k = 0; k < o->ninputs; k++)
		if (tio_sink_set(sink, "input", o->inputs[k]))
			return -1;
	return 0;
}

/* wopts' index of --buffer-size. */
static size_t buffer_size_opt(void)
{
	size_t k = 0;
	while (strcmp(wopts[k].opt, "--buffer-size"))
		k++;
	return k;
}

/* The Parquet sink's buffer in bytes: --buffer-size, else its 64 MiB. */
static uint64_t parquet_budget(const char *buffer_size)
{
	uint64_t budget = 64u << 20;
	if (buffer_size) {
		char *end;
		unsigned long long v = strtoull(buffer_size, &end, 10);
		uint64_t mul = *end == 'k' || *end == 'K' ? 1u << 10 : *end == 'm' || *end == 'M' ? 1u << 20
			     : *end == 'g' || *end == 'G' ? 1u << 30 : 1;
		budget = v > UINT64_MAX / mul ? UINT64_MAX : v * mul; /* a bad value: the sink refuses it */
	}
	return budget;
}

/*
 * How many parts to convert to Parquet at once: cli_parts_of_paths, at most one
 * per 32 MiB of the buffer (which the parts share), so that memory does not
 * grow with the CPUs (each part also holds its pages and its mapped
 * packets: some 30 MB); TIO_THREADS says it otherwise.
 */
static unsigned parquet_parts_cap(unsigned np, const char *buffer_size)
{
	const char *e = getenv("TIO_THREADS");
	if (e && *e)
		return np;
	uint64_t most = parquet_budget(buffer_size) / (32u << 20);
	return most < 1 ? 1 : most < np ? (unsigned)most : np;
}

/* What the threads of convert_each share. */
typedef struct each_shared {
	char **inputs;
	const char *format;
	const cli_reader_opts *ro;
	bool strict;
	pthread_mutex_t mu; /* uuids */
	uint8_t (*uuids)[16];
	size_t nuuids;
	atomic_int abort; /* an input failed: 1 (nothing is written), -2 (a trace of an earlier input) */
} each_shared;

/* One thread's range of the inputs, read into its own sink. */
typedef struct each_part {
	each_shared *sh;
	size_t i0, i1; /* inputs [i0, i1) */
	tio_sink *sink;
	cli_seen seen;
	runstate rs;
	bool progress; /* run_msgs prints the progress line (one thread) */
	bool stop;     /* reading stopped at an error (--strict, out of memory): later inputs not read */
	int status;    /* 0 or 1 (errors read past); the failure's code when `failed` */
	bool failed;
	bool done;
	pthread_t th;
	FILE *msgs; /* several threads: this one's messages, printed in order at the end (each_print) */
	char *mbuf;
	size_t mlen;
} each_part;

/* Read inputs [i0, i1) one after another into p->sink (see convert_each). */
static void *each_run(void *arg)
{
	each_part *p = arg;
	each_shared *sh = p->sh;
	cli_err_to(p->msgs);
	for (size_t i = p->i0; i < p->i1 && !p->stop && !atomic_load(&sh->abort); i++) {
		tio_trace **tr = NULL;
		size_t nt = 0;
		tio_mux *mux = NULL;
		int r = 1;
		if (cli_open_inputs(&sh->inputs[i], 1, sh->format, &tr, &nt))
			goto fail;
		pthread_mutex_lock(&sh->mu);
		for (size_t k = 0; k < nt && r == 1; k++) {
			uint8_t u[16];
			if (!tio_trace_uuid(tr[k], u))
				continue;
			for (size_t j = 0; j < sh->nuuids && r == 1; j++)
				if (!memcmp(sh->uuids[j], u, 16))
					r = -2;
			if (r == -2)
				break;
			void *nu = realloc(sh->uuids, (sh->nuuids + 1) * sizeof(*sh->uuids));
			if (!nu) {
				fprintf(cli_err(), "traceio: out of memory\n");
				r = 0;
				break;
			}
			sh->uuids = nu;
			memcpy(sh->uuids[sh->nuuids++], u, 16);
		}
		pthread_mutex_unlock(&sh->mu);
		if (r != 1) {
			r = r ? r : 1;
			goto fail;
		}
		cli_formats_seen(tr, nt, &p->seen);
		if (cli_apply_reader_opts(tr, nt, sh->ro))
			goto fail;
		for (size_t k = 0; k < nt; k++) {
			int e = tio_sink_add_trace(p->sink, tr[k]);
			if (e) {
				cli_error(e == TIO_ERR_NOMEM ? sh->inputs[i] : NULL); /* out of memory: which input */
				goto fail;
			}
		}
		int e = tio_mux_new(tr, nt, &mux);
		if (e) {
			cli_error(e == TIO_ERR_NOMEM ? sh->inputs[i] : NULL);
			goto fail;
		}
		if (p->rs.pub) /* one of several threads: no decoding threads of its own */
			tio_mux_set_threads(mux, 1);
		int s = run_msgs(mux, p->sink, NULL, sh->strict, p->progress, NULL, &p->rs, &p->stop);
		if (s < 0)
			goto fail;
		p->status |= s;
		for (size_t k = 0; k < nt; k++) {
			if ((e = tio_sink_end_trace(p->sink, tr[k]))) {
				cli_error(e == TIO_ERR_NOMEM ? sh->inputs[i] : NULL);
				goto fail;
			}
		}
		tio_mux_free(mux);
		cli_free_traces(tr, nt);
		continue;
	fail:
		tio_mux_free(mux);
		cli_free_traces(tr, nt);
		p->failed = true;
		p->status = r;
		/* 1 wins over -2: the read of all inputs at once would fail as well */
		int none = 0;
		if (!atomic_compare_exchange_strong(&sh->abort, &none, r) && r == 1)
			atomic_store(&sh->abort, 1);
		break;
	}
	if (p->rs.pub)
		atomic_store_explicit(p->rs.pub, p->rs.nev, memory_order_relaxed);
	return NULL;
}

/*
 * How many threads convert_each reads with: TIO_THREADS, else one per CPU
 * (64 at most), per input and per 8 MiB of the buffer (--buffer-size,
 * which they share: 8 threads at most for the default 64 MiB, so that the
 * memory a thread needs beyond its share, some 25 MB for one trace's
 * classes, stays bounded whatever the CPUs); 1 with --strict (its first
 * error must stop what comes after it).  Unlike a trace's parts, each
 * thread opens inputs of its own, so even small ones gain (8 inputs of
 * 1 MB: 0.18 -> 0.11 s on 2 CPUs, medians of 3).
 */
static unsigned each_threads(size_t n, bool strict, const char *buffer_size)
{
	const char *e = getenv("TIO_THREADS");
	uint64_t np;
	if (strict)
		return 1;
	if (e && *e) {
		np = cli_parts_for(0); /* TIO_THREADS's value */
	} else {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		np = parquet_budget(buffer_size) / (8u << 20);
		if (cpus < (long)np)
			np = cpus < 1 ? 1 : (uint64_t)cpus;
		if (np > 64)
			np = 64;
	}
	return np < 2 ? 1 : n < np ? (unsigned)n : (unsigned)np;
}

/* convert_each's threads' sinks (what they wrote removed unless finished) and what they share. */
static void each_free(each_shared *sh, each_part *ps, unsigned np, _Atomic uint64_t *pub)
{
	for (unsigned k = 0; ps && k < np; k++) {
		tio_sink_free(ps[k].sink);
		if (ps[k].msgs)
			fclose(ps[k].msgs);
		free(ps[k].mbuf);
	}
	free(ps);
	free(pub);
	pthread_mutex_destroy(&sh->mu);
	free(sh->uuids);
}

/*
 * The messages of threads 0 to upto, in the inputs' order: what one thread
 * would have printed (a later range's are left out: one thread would have
 * stopped before its inputs).  After a progress line, on a line of their
 * own.  True when there were some.
 */
static bool each_print(each_part *ps, unsigned upto, bool after_progress)
{
	bool any = false;
	for (unsigned k = 0; k <= upto; k++) {
		if (!ps[k].msgs)
			continue;
		fclose(ps[k].msgs); /* sets mbuf, mlen */
		ps[k].msgs = NULL;
		if (!ps[k].mlen)
			continue;
		if (!any && after_progress)
			fputc('\n', stderr);
		any = true;
		fwrite(ps[k].mbuf, 1, ps[k].mlen, stderr);
	}
	return any;
}

/*
 * convert --to parquet of several inputs, more of them than parts: each
 * input opened, read to its end and closed before the next
 * (tio_sink_end_trace), so that memory and the sink's work per row hold
 * one trace's tables, not every input's at once (200 `-e all` recordings
 * of 3 MB took minutes and gigabytes read together).  The files are
 * those of a read of all inputs at once: the same names, rows and order
 * in each trace's files.  On several CPUs (each_threads), each thread
 * reads a range of the inputs (of about equal bytes, in order) into its
 * own sink; the sinks are then merged in order (tio_sink_merge: the
 * traces of the later after those of the earlier), the same files and
 * names as one thread's.  When a sink would have named a trace otherwise
 * (`trace<k>`: two inputs whose paths give the same name), or a thread
 * cannot start, the inputs are read again on one thread.  Returns the exit status, or -2 before any
 * output when an input holds the same trace as an earlier one (CTF: the
 * same UUID, which a read of all inputs at once joins into one): the
 * caller then reads them all at once.
 */
static int convert_each(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ro,
			const char *sink_name, const sopts *so, bool strict, bool progress)
{
	uint64_t *bytes = calloc(ninputs, sizeof(*bytes));
	if (!bytes) {
		fprintf(stderr, "traceio: out of memory\n");
		return 1;
	}
	uint64_t total = 0;
	for (size_t i = 0; i < ninputs; i++)
		total += bytes[i] = cli_input_bytes(inputs[i]);
	unsigned np = each_threads(ninputs, strict, so->wvals[buffer_size_opt()]);
again:;
	each_shared sh = {.inputs = inputs, .format = format, .ro = ro, .strict = strict};
	pthread_mutex_init(&sh.mu, NULL);
	each_part *ps = calloc(np, sizeof(*ps));
	_Atomic uint64_t *pub = calloc(np, sizeof(*pub));
	int status = 1;
	double t0 = now();
	if (!ps || !pub) {
		fprintf(stderr, "traceio: out of memory\n");
		goto out;
	}
	/* ranges of about total/np bytes each, in order, none empty */
	size_t i = 0;
	uint64_t sum = 0;
	for (unsigned k = 0; k < np; k++) {
		ps[k] = (each_part){.sh = &sh, .i0 = i, .progress = progress && np == 1,
				    .rs = {.t0 = t0, .last = t0, .pub = np > 1 ? &pub[k] : NULL}};
		size_t last = ninputs - (np - 1 - k); /* leave one for each later range */
		if (k + 1 == np) {
			i = ninputs;
		} else { /* up to the input that ends nearest the range's share */
			uint64_t want = total / np * (k + 1);
			do
				sum += bytes[i++];
			while (i < last && sum + bytes[i] / 2 < want);
		}
		ps[k].i1 = i;
		if (np > 1) /* else (or out of memory) printed as they come */
			ps[k].msgs = open_memstream(&ps[k].mbuf, &ps[k].mlen);
		char b[16];
		snprintf(b, sizeof(b), "%u", np);
		if (tio_sink_new(sink_name, stdout, stderr, &ps[k].sink) || set_options(ps[k].sink, so) ||
		    (np > 1 && tio_sink_set(ps[k].sink, "parts", b)) ||
		    tio_sink_set(ps[k].sink, "several-traces", "1")) {
			cli_error(NULL);
			status = 2;
			goto out;
		}
	}
	unsigned started = 0;
	if (np == 1) {
		each_run(&ps[0]);
	} else {
		for (; started < np; started++)
			if (pthread_create(&ps[started].th, NULL, each_run, &ps[started]))
				break;
		if (started < np) /* stop the threads started: all on one thread (below) */
			atomic_store(&sh.abort, 1);
		/* the progress line, from what the threads publish */
		for (double last = t0; progress && started == np;) {
			struct timespec ts = {0, 100 * 1000 * 1000};
			nanosleep(&ts, NULL);
			bool all = true;
			uint64_t nev = 0;
			for (unsigned k = 0; k < started; k++) {
				if (!ps[k].done && !pthread_tryjoin_np(ps[k].th, NULL))
					ps[k].done = true;
				all &= ps[k].done;
				nev += atomic_load_explicit(&pub[k], memory_order_relaxed);
			}
			double t = now();
			if (t - last >= 0.5) {
				last = t;
				ps[0].rs.last = t;
				fprintf(stderr, "\rtraceio convert: %llu events, %.1f s", (unsigned long long)nev, t - t0);
				fflush(stderr);
			}
			if (all)
				break;
		}
		for (unsigned k = 0; k < started; k++)
			if (!ps[k].done)
				pthread_join(ps[k].th, NULL);
		if (started < np) {
			each_free(&sh, ps, np, pub);
			np = 1;
			goto again;
		}
	}
	bool shown = progress && ps[0].rs.last > t0; /* a progress line */
	int ab = atomic_load(&sh.abort);
	if (ab) {
		/* up to the first range that failed; -2: the caller reads all inputs at once, which says it all */
		unsigned kf = 0;
		while (kf + 1 < np && !ps[kf].failed)
			kf++;
		if ((ab == -2 || !each_print(ps, kf, shown)) && shown)
			fputc('\n', stderr);
		status = ab;
		goto out;
	}
	/* a range that stopped (--strict, out of memory): the later ones are left out, as one thread would */
	cli_seen seen = {0};
	runstate rs = ps[0].rs;
	unsigned upto = 0;
	bool stop = false;
	status = 0;
	for (; upto < np; upto++) {
		seen.tracedat += ps[upto].seen.tracedat;
		seen.lttng0 += ps[upto].seen.lttng0;
		status |= ps[upto].status;
		if (upto)
			rs.nev += ps[upto].rs.nev;
		if (ps[upto].stop) {
			stop = true;
			break;
		}
	}
	for (unsigned k = 1; k < np && k <= upto; k++) {
		int mr = tio_sink_merge(ps[0].sink, ps[k].sink);
		if (mr) {
			if (mr == TIO_ERR_UNSUPPORTED) { /* names: read them again on one thread (its messages only) */
				each_free(&sh, ps, np, pub);
				np = 1;
				goto again;
			}
			each_print(ps, upto < np ? upto : np - 1, shown);
			cli_error(NULL);
			status = 1;
			goto out;
		}
	}
	each_print(ps, upto < np ? upto : np - 1, shown);
	/* as a read of all inputs at once refuses it before reading: nothing is written */
	if (!stop && cli_reader_opts_unused_seen(&seen, ro)) {
		status = 1;
		goto out;
	}
	status = run_end(ps[0].sink, progress, &rs, status);
out:
	each_free(&sh, ps, np, pub);
	free(bytes);
	return status;
}

/* Warnings of the SQL tables (damaged parts skipped): stderr. */
static void sql_warn(void *arg, const char *msg)
{
	fprintf(stderr, "traceio: warning: %s\n", msg);
}

/* --to sqlite: the tables of `traceio sql` into a database file.  Exit status. */
static int convert_sqlite(char **inputs, size_t ninputs, const char *format, const cli_reader_opts *ro, const char *out)
{
	tio_sqlite_args a = {.paths = inputs, .npaths = ninputs, .format = (char *)format, .clock_exact = ro->clock_exact,
			     .ts2secs = (char *)ro->ts2secs, .raw_ts = ro->raw_ts};
	char *err = NULL;
	uint64_t warnings = 0;
	tio_trace **t;
	size_t n;
	if (cli_open_inputs(inputs, ninputs, format, &t, &n)) /* errors and warnings of opening, once */
		return 1;
	cli_free_traces(t, n);
	if (tio_sqlite_materialize(&a, out, sql_warn, NULL, &warnings, &err) != SQLITE_OK) {
		fprintf(stderr, "%s%s\n", err && !strncmp(err, "traceio:", 8) ? "" : "traceio: convert: ", err ? err : "error");
		sqlite3_free(err);
		return 1;
	}
	return warnings ? 1 : 0;
}

/* A part's sink (convert --to parquet in parts): the same options, its share of the buffer, the inputs. */
static int part_setup(tio_sink *sink, tio_trace **traces, size_t n, unsigned nparts, void *arg)
{
	char b[16];
	snprintf(b, sizeof(b), "%u", nparts);
	if (set_options(sink, arg) || tio_sink_set(sink, "parts", b))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (tio_sink_add_trace(sink, traces[i]))
			return -1;
	return 0;
}

int cli_convert(int argc, char **argv)
{
	const char *out = NULL, *to = NULL, *format = NULL, *begin = NULL, *end = NULL, *names = NULL;
	const char *packet_size = NULL, *file_version = NULL, *compression = NULL, *ctf_version = NULL;
	const char *wvals[NWOPTS] = {0};
	bool force = false, strict = false, gmt = false, quiet = false, packetize = false;
	cli_reader_opts ropts = {0};
	cli_filter_opts fopts = {0};
	cli_filter cf = {0};
	char **inputs = calloc((size_t)argc, sizeof(char *));
	size_t ninputs = 0;
	int status = 2;
	tio_trace **traces = NULL;
	size_t ntraces = 0;
	tio_mux *mux = NULL;
	tio_sink *sink = NULL;
	if (!inputs) {
		fprintf(stderr, "traceio: out of memory\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (a[0] != '-' || !a[1]) {
			inputs[ninputs++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			while (++i < argc)
				inputs[ninputs++] = argv[i];
			break;
		}
		int ro = cli_reader_opt(argc, argv, &i, &ropts);
		if (ro < 0)
			goto done;
		if (ro)
			continue;
		int fo = cli_filter_opt(argc, argv, &i, &fopts);
		if (fo < 0)
			goto done;
		if (fo)
			continue;
		char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
#define IS(s) (nl == strlen(s) && !strncmp(a, s, nl))
#define VALUE()                                                                                    \
	(eq ? eq + 1 : (i + 1 < argc ? argv[++i] : (fprintf(stderr, "traceio: %s needs a value\n", a), \
						     (char *)NULL)))
		const char **dst = NULL;
		if (IS("-h") || IS("--help")) {
			help();
			status = 0;
			goto done;
		} else if (IS("-o") || IS("--output")) {
			dst = &out;
		} else if (IS("-t") || IS("--to")) {
			dst = &to;
		} else if (IS("-i") || IS("--format")) {
			dst = &format;
		} else if (IS("-b") || IS("--begin")) {
			dst = &begin;
		} else if (IS("-e") || IS("--end")) {
			dst = &end;
		} else if (IS("-n") || IS("--names")) {
			dst = &names;
		} else if (IS("--packet-size")) {
			dst = &packet_size;
		} else if (IS("--ctf-version")) {
			dst = &ctf_version;
		} else if (IS("--file-version")) {
			dst = &file_version;
		} else if (IS("--compression")) {
			dst = &compression;
		} else if (IS("-f") || IS("--force")) {
			force = true;
		} else if (IS("--packetize-metadata")) {
			packetize = true;
		} else if (IS("--strict")) {
			strict = true;
		} else if (IS("--clock-gmt")) {
			gmt = true;
		} else if (IS("-q") || IS("--quiet")) {
			quiet = true;
		} else {
			for (size_t k = 0; k < NWOPTS && !dst; k++)
				if (IS(wopts[k].opt))
					dst = &wvals[k];
			if (!dst) {
				fprintf(stderr, "traceio: unknown option '%s' (see traceio convert --help)\n", a);
				goto done;
			}
		}
		if (dst && !(*dst = VALUE()))
			goto done;
#undef IS
#undef VALUE
	}
	if (!out) {
		fprintf(stderr, "traceio: convert needs -o OUT (see traceio convert --help)\n");
		goto done;
	}
	if (!ninputs) {
		fprintf(stderr, "traceio: no input trace (see traceio convert --help)\n");
		goto done;
	}
	const struct writer *w = NULL;
	if (to) {
		for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
			if (!strcmp(writers[i].to, to))
				w = &writers[i];
		if (!w) {
			fprintf(stderr, "traceio: no writer for '%s' (ctf, tracedat, ltt, lttng0, perfetto, parquet)\n", to);
			goto done;
		}
	} else {
		w = guess(out);
	}
	if (!w->sink) { /* sqlite */
		if (begin || end || names || packet_size || ctf_version || file_version || compression || packetize ||
		    strict || ropts.ltt_tsc) {
			fprintf(stderr, "traceio: --to sqlite takes --format, --clock-exact, --ts2secs, --raw-ts and --force only\n");
			goto done;
		}
		for (size_t k = 0; k < NWOPTS; k++) {
			if (wvals[k]) {
				fprintf(stderr, "traceio: %s is for --to %s\n", wopts[k].opt, wopts[k].writers);
				goto done;
			}
		}
		if (!force && cli_path_exists(out)) {
			fprintf(stderr, "traceio: %s: already exists (--force replaces it)\n", out);
			goto done;
		}
		status = convert_sqlite(inputs, ninputs, format, &ropts, out);
		goto done;
	}
	if (!sink_exists(w->sink)) {
		fprintf(stderr, "traceio: writing %s is not available yet (see README.md)\n", w->to);
		goto done;
	}
	if (!force && cli_path_exists(out)) {
		fprintf(stderr, "traceio: %s: already exists (--force replaces it)\n", out);
		goto done;
	}
	if (file_version && strcmp(w->sink, "tracedat")) {
		fprintf(stderr, "traceio: --file-version is for --to tracedat\n");
		goto done;
	}
	if (compression && strcmp(w->sink, "tracedat") && strcmp(w->sink, "parquet")) {
		fprintf(stderr, "traceio: --compression is for --to tracedat and parquet\n");
		goto done;
	}
	if ((packet_size || ctf_version) && strcmp(w->sink, "ctf")) {
		fprintf(stderr, "traceio: --packet-size and --ctf-version are for --to ctf\n");
		goto done;
	}
	for (size_t k = 0; k < NWOPTS; k++) {
		if (wvals[k] && !in_list(wopts[k].writers, w->to)) {
			fprintf(stderr, "traceio: %s is for --to %s\n", wopts[k].opt, wopts[k].writers);
			goto done;
		}
	}
	int64_t bns = 0, ens = 0;
	bool btod = false, etod = false;
	if ((begin && cli_parse_time(begin, gmt, &bns, &btod)) || (end && cli_parse_time(end, gmt, &ens, &etod))) {
		fprintf(stderr, "traceio: cannot parse time '%s'\n", begin && cli_parse_time(begin, gmt, &bns, &btod) ? begin : end);
		goto done;
	}

	sopts so = {.out = out, .force = force, .packet_size = packet_size, .packetize = packetize,
		    .ctf_version = ctf_version, .file_version = file_version, .compression = compression,
		    .wvals = wvals};
	if ((!strcmp(w->sink, "parquet") || !strcmp(w->sink, "ctf")) && ninputs > 1)
		so.inputs = inputs, so.ninputs = ninputs;
	/* Parquet of every event (no bounds, no filter): the parts it can be read in, from the inputs' sizes */
	bool pq_whole = !strcmp(w->sink, "parquet") && !begin && !end && !names && !fopts.n && !fopts.cpus &&
			!fopts.pids && !fopts.comms;
	unsigned np = pq_whole ? parquet_parts_cap(cli_parts_of_paths(inputs, ninputs), wvals[buffer_size_opt()]) : 0;
	/* Parquet of more inputs than parts (a fleet's traces): one input after another */
	if (pq_whole && ninputs > 1 && ninputs > np) {
		status = convert_each(inputs, ninputs, format, &ropts, w->sink, &so, strict, !quiet && isatty(STDERR_FILENO));
		if (status != -2) /* -2: the same trace in two inputs: all of them at once, as below */
			goto done;
	}
	/*
	 * Parquet on several cores, the parts' files one after the other
	 * (src/cli/parts.c), before any open here as print -o dummy does: the
	 * parts counted from the inputs' file sizes, each part opening them
	 * (an open here as well, kept to the end, cost some 8 ms of a 0.36 s
	 * trace.dat conversion, on one thread).  A part that meets an error,
	 * or inputs with nothing to cut: read below on one thread, where the
	 * error is reported.
	 */
	if (pq_whole && np > 1 && (status = cli_run_parts_in_order(inputs, ninputs, format, &ropts, w->sink, np,
								   part_setup, &so, !quiet && isatty(STDERR_FILENO))) >= 0)
		goto done;
	status = 1;
	if (cli_open_inputs(inputs, ninputs, format, &traces, &ntraces) ||
	    cli_reader_opts_unused(traces, ntraces, &ropts) || cli_apply_reader_opts(traces, ntraces, &ropts))
		goto done;
	int fs = cli_filter_build(&fopts, traces, ntraces, false, &cf);
	if (fs) {
		status = fs;
		goto done;
	}
	if (tio_sink_new(w->sink, stdout, stderr, &sink) || set_options(sink, &so)) {
		cli_error(NULL);
		status = 2;
		goto done;
	}
	for (size_t i = 0; i < ntraces; i++) {
		if (tio_sink_add_trace(sink, traces[i])) {
			cli_error(NULL);
			goto done;
		}
	}
	if (tio_mux_new(traces, ntraces, &mux)) {
		cli_error(NULL);
		goto done;
	}
	if (begin) {
		if (btod)
			tio_mux_set_begin_time_of_day(mux, bns, gmt);
		else
			tio_mux_set_begin(mux, bns);
	}
	if (end) {
		if (etod)
			tio_mux_set_end_time_of_day(mux, ens, gmt);
		else
			tio_mux_set_end(mux, ens);
	}
	cli_filter_classes(&cf, mux);
	status = run(mux, sink, names, strict, !quiet && isatty(STDERR_FILENO), &cf);
done:
	cli_filter_free(&cf);
	tio_sink_free(sink);
	tio_mux_free(mux);
	cli_free_traces(traces, ntraces);
	free(inputs);
	return status;
}

/*
 * The "info" sink: reads everything, then tells what the traces hold:
 * format, clocks, streams, event classes with their counts, time range,
 * discarded events and packets.  With option "count" = "0" it reads no
 * message: the traces announced with tio_sink_add_trace are described from
 * their packet index (tio_trace_index: packets, range, estimated events).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "sink/sink.h"

typedef struct tstat {
	const tio_trace *t;
	uint64_t events, disc_events, disc_packets, disc_unknown;
	bool has_ts;
	int64_t first, last;
	uint64_t *stream_events; /* per stream index */
	/* the message that made it known (traces are printed in that order):
	   its time, when it has one (tio_sink_merge checks the parts' order) */
	bool seen_ts;
	int64_t seen_ns;
} tstat;

typedef struct info {
	tio_sink base;
	tstat *ts;
	size_t n, cap;
	bool index_only; /* "count" = "0" */
} info;

static tstat *stat_of(info *in, const tio_trace *t)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->ts[i].t == t)
			return &in->ts[i];
	if (tio_grow(&in->ts, &in->cap, in->n + 1, sizeof(tstat)))
		return NULL;
	tstat *s = &in->ts[in->n++];
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->stream_events = tio_calloc(t->nstreams ? t->nstreams : 1, sizeof(uint64_t));
	if (!s->stream_events) {
		in->n--;
		return NULL;
	}
	return s;
}

static int info_consume(tio_sink *sk, const tio_msg *m)
{
	info *in = (info *)sk;
	size_t known = in->n;
	tstat *s = stat_of(in, m->stream->trace);
	if (!s)
		return TIO_ERR_NOMEM;
	if (in->n > known) {
		s->seen_ts = m->has_ts;
		s->seen_ns = m->ns;
	}
	switch (m->type) {
	case TIO_MSG_EVENT:
		s->events++;
		s->stream_events[m->stream->index]++;
		((tio_event_class *)m->ec)->count++;
		if (m->has_ts) {
			if (!s->has_ts || m->ns < s->first)
				s->first = m->ns;
			if (!s->has_ts || m->ns > s->last)
				s->last = m->ns;
			s->has_ts = true;
		}
		break;
	case TIO_MSG_DISCARDED_EVENTS:
		if (m->count)
			s->disc_events += m->count;
		else
			s->disc_unknown++;
		break;
	case TIO_MSG_DISCARDED_PACKETS:
		s->disc_packets += m->count;
		break;
	default:
		break;
	}
	return 0;
}

static void fmt_ns(FILE *f, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	fprintf(f, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "", a / 1000000000, a % 1000000000);
}

/* The same instant as a UTC date, for clocks whose origin is the Unix epoch. */
static void fmt_date(FILE *f, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000 - (ns % 1000000000 < 0));
	int64_t rem = ns % 1000000000;
	struct tm tm;
	char buf[64];
	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		return;
	fprintf(f, "%s.%09" PRId64 " UTC", buf, rem < 0 ? rem + 1000000000 : rem);
}

static const tio_kv *kv_find(const tio_kv *kv, uint32_t n, const char *key)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return &kv[i];
	return NULL;
}

static int64_t kv_int(const tio_kv *kv, uint32_t n, const char *key, int64_t def)
{
	const tio_kv *e = kv_find(kv, n, key);
	return e && e->is_int ? e->ival : def;
}

static const char *kv_str(const tio_kv *kv, uint32_t n, const char *key, const char *def)
{
	const tio_kv *e = kv_find(kv, n, key);
	return e && !e->is_int && e->sval ? e->sval : def;
}

/* "\t[What, N bytes]" for a side table the trace has. */
static void td_table(FILE *f, const tio_trace_class *tc, const char *table, const char *what)
{
	const tio_kv *e = kv_find(tc->tables, tc->ntables, table);
	if (e)
		fprintf(f, "\t[%s, %" PRId64 " bytes]\n", what, e->ival);
}

static void td_count(FILE *f, const tio_trace_class *tc, const char *key, const char *fmt)
{
	const tio_kv *e = kv_find(tc->env, tc->nenv, key);
	if (e && e->is_int)
		fprintf(f, fmt, e->ival);
}

/*
 * What `trace-cmd dump --summary` prints for a trace.dat file, in its
 * order and layout (v6: the file's parts in file order; v7: the buffers,
 * the options, the sections that options name, in reverse order, and the
 * section count), from what the reader put in the model: env (versions,
 * counts), side tables (their stored sizes) and stream classes (one per
 * buffer instance, with its clock, page size, CPUs and data bytes).
 */
static void td_summary(FILE *f, const tio_trace *t)
{
	const tio_trace_class *tc = t->tc;
	const tio_kv *env = tc->env;
	uint32_t n = tc->nenv;
	int64_t version = kv_int(env, n, "file_version", 6);
	fprintf(f, "\n Tracing meta data in file %s:\n\t[Initial format]\n", t->path);
	fprintf(f, "\t\t%" PRId64 "\t[Version]\n", version);
	fprintf(f, "\t\t%d\t[%s endian]\n", tc->byte_order == TIO_BE, tc->byte_order == TIO_BE ? "Big" : "Little");
	fprintf(f, "\t\t%" PRId64 "\t[Bytes in a long]\n", kv_int(env, n, "long_size", 0));
	fprintf(f, "\t\t%" PRId64 "\t[Page size, bytes]\n", kv_int(env, n, "page_size", 0));
	if (version >= 7) {
		fprintf(f, "\t\t%s\t[Compression algorithm]\n", kv_str(env, n, "compression", ""));
		fprintf(f, "\t\t%s\t[Compression version]\n", kv_str(env, n, "compression_version", ""));
		for (uint32_t i = 0; i < tc->nscs; i++) {
			const tio_stream_class *sc = tc->scs[i];
			fprintf(f, "\t[buffer \"%s\", \"%s\" clock, %" PRId64 " page size, %" PRId64
				" cpus, %" PRId64 " bytes flyrecord data]\n",
				sc->name ? sc->name : "", kv_str(sc->env, sc->nenv, "clock", ""),
				kv_int(sc->env, sc->nenv, "page_size", 0), kv_int(sc->env, sc->nenv, "cpus", 0),
				kv_int(sc->env, sc->nenv, "data_bytes", 0));
		}
		td_count(f, tc, "options", "\t[%" PRId64 " options]\n");
		td_table(f, tc, "saved_cmdlines", "Saved command lines");
		td_table(f, tc, "printk_formats", "Trace printk");
		td_table(f, tc, "kallsyms", "Kallsyms");
		td_count(f, tc, "event_systems", "\t[Events format, %" PRId64 " systems]\n");
		td_count(f, tc, "ftrace_events", "\t[Ftrace format, %" PRId64 " events]\n");
		td_table(f, tc, "header_page", "Header page");
		td_table(f, tc, "header_event", "Header event");
		td_count(f, tc, "sections", "\t[%" PRId64 " sections]\n");
		return;
	}
	td_table(f, tc, "header_page", "Header page");
	td_table(f, tc, "header_event", "Header event");
	td_count(f, tc, "ftrace_events", "\t[Ftrace format, %" PRId64 " events]\n");
	td_count(f, tc, "event_systems", "\t[Events format, %" PRId64 " systems]\n");
	td_table(f, tc, "kallsyms", "Kallsyms");
	td_table(f, tc, "printk_formats", "Trace printk");
	td_table(f, tc, "saved_cmdlines", "Saved command lines");
	td_count(f, tc, "cpus", "\t%" PRId64 " [CPUs with tracing data]\n");
	td_count(f, tc, "options", "\t[%" PRId64 " options]\n");
	if (kv_int(env, n, "latency_buffer", 0)) {
		fprintf(f, "\t[Latency tracing data]\n");
		return;
	}
	/* the clock list as stored after the CPU table, newline included when it has one */
	const tio_kv *clocks = kv_find(tc->tables, tc->ntables, "trace_clocks");
	fprintf(f, "\t[Flyrecord tracing data]\n\t[Tracing clock]\n");
	if (clocks) /* an empty line for a stored size of 0, as trace-cmd dump */
		fprintf(f, "\t\t%s\n", clocks->sval ? clocks->sval : "");
	else
		fprintf(f, "\t\t No tracing clock saved in the file\n");
}

/*
 * tio_sink_merge: counts of the same traces (by their place among the
 * mux's inputs) added up; a trace `into` has not seen is taken with
 * `from`'s open of it.  Classes are matched by place, so both opens must
 * have the same (the same files opened the same way).  Traces are printed
 * in the order a whole read first sees them: each part's first message of
 * a trace is its earliest there (a part is in time order), so a trace's
 * first message is the earliest of its parts' first ones, and the traces
 * are put in the order of those.  When that cannot be told (a first
 * message without a time, two at the same time) it is an error, and the
 * caller reads everything again on one thread.
 */
static int seen_cmp(const void *a, const void *b)
{
	const tstat *x = a, *y = b;
	return x->seen_ns < y->seen_ns ? -1 : x->seen_ns > y->seen_ns;
}

static int info_merge(tio_sink *isk, tio_sink *fsk)
{
	info *into = (info *)isk, *from = (info *)fsk;
	for (size_t i = 0; i < from->n; i++) {
		const tstat *f = &from->ts[i];
		tstat *d = NULL;
		for (size_t k = 0; k < into->n && !d; k++)
			if (into->ts[k].t->index == f->t->index)
				d = &into->ts[k];
		if (!d) { /* taken as it is: its class counts are in f->t's classes */
			if (!(d = stat_of(into, f->t)))
				return TIO_ERR_NOMEM;
			uint64_t *se = d->stream_events;
			*d = *f;
			d->stream_events = se;
			memcpy(se, f->stream_events, (f->t->nstreams ? f->t->nstreams : 1) * sizeof(*se));
			continue;
		}
		if (d->t == f->t)
			continue;
		if (!f->seen_ts || !d->seen_ts)
			d->seen_ts = false;
		else if (f->seen_ns < d->seen_ns)
			d->seen_ns = f->seen_ns;
		const tio_trace_class *dc = d->t->tc, *fc = f->t->tc;
		bool same = d->t->nstreams == f->t->nstreams && dc->nscs == fc->nscs;
		for (uint32_t k = 0; same && k < dc->nscs; k++)
			same = dc->scs[k]->necs == fc->scs[k]->necs;
		if (!same)
			return tio_err_set(TIO_ERR_USAGE, "info: %s: the parts' traces have different classes", d->t->path);
		for (uint32_t k = 0; k < dc->nscs; k++)
			for (uint32_t e = 0; e < dc->scs[k]->necs; e++)
				dc->scs[k]->ecs[e]->count += fc->scs[k]->ecs[e]->count;
		for (uint32_t k = 0; k < d->t->nstreams; k++)
			d->stream_events[k] += f->stream_events[k];
		d->events += f->events;
		d->disc_events += f->disc_events;
		d->disc_packets += f->disc_packets;
		d->disc_unknown += f->disc_unknown;
		if (f->has_ts) {
			if (!d->has_ts || f->first < d->first)
				d->first = f->first;
			if (!d->has_ts || f->last > d->last)
				d->last = f->last;
			d->has_ts = true;
		}
	}
	if (into->n < 2)
		return 0;
	for (size_t k = 0; k < into->n; k++)
		if (!into->ts[k].seen_ts)
			return tio_err_set(TIO_ERR_UNSUPPORTED,
					   "info: %s: its first message has no time: "
					   "the parts cannot tell the traces' order",
					   into->ts[k].t->path ? into->ts[k].t->path : "trace");
	qsort(into->ts, into->n, sizeof(tstat), seen_cmp);
	for (size_t k = 1; k < into->n; k++)
		if (into->ts[k].seen_ns == into->ts[k - 1].seen_ns)
			return tio_err_set(TIO_ERR_UNSUPPORTED,
					   "info: %s: its first message is at the same time as another "
					   "trace's: the parts cannot tell the traces' order",
					   into->ts[k].t->path ? into->ts[k].t->path : "trace");
	return 0;
}

static int info_set(tio_sink *sk, const char *key, const char *value)
{
	info *in = (info *)sk;
	if (!strcmp(key, "count")) {
		bool b;
		int r = tio_sink_bool(key, value, &b);
		if (!r) /* b is set only then */
			in->index_only = !b;
		return r;
	}
	return tio_err_set(TIO_ERR_USAGE, "info: unknown option '%s'", key);
}

static int info_add_trace(tio_sink *sk, const tio_trace *t)
{
	info *in = (info *)sk;
	return !in->index_only || stat_of(in, t) ? 0 : TIO_ERR_NOMEM;
}

static void print_range(FILE *f, const char *what, int64_t first, int64_t last, const char *first_is,
			const char *last_is)
{
	fprintf(f, "  time range%s: [", what);
	fmt_ns(f, first);
	fprintf(f, ", ");
	fmt_ns(f, last);
	fprintf(f, "] (");
	fmt_ns(f, last - first);
	fprintf(f, " s)\n  %s", first_is);
	fmt_date(f, first);
	fprintf(f, "\n  %s", last_is);
	fmt_date(f, last);
	fprintf(f, "\n");
}

/*
 * The part of `info` that the packet index answers without decoding an
 * event (milliseconds on a multi-GB trace): packets, bytes, estimated
 * events, time range (CTF: from the packets' begin and end times), the
 * discarded events the packet counters tell, streams and event classes
 * without counts.
 */
static int index_part(FILE *f, tio_trace *t)
{
	tio_index_info x;
	int r = tio_trace_index(t, &x);
	if (r)
		return r;
	bool td = !strcmp(t->fmt->name, "tracedat");
	if (!x.indexed) {
		fprintf(f, "  index: none for this format (info --count reads the events)\n");
	} else {
		fprintf(f, "  index: %" PRIu64 " %s, %" PRIu64 " bytes of event records; %u of %u streams seekable\n",
			x.packets, td ? "pages" : "packets", x.bytes, x.seekable, x.streams);
		fprintf(f, "  events: ~%" PRIu64 " (estimated from the index; info --count counts them)\n", x.events);
		if (x.has_range) {
			if (td)
				print_range(f, "", x.begin_ns, x.end_ns, "first event: ", "last event:  ");
			else
				print_range(f, " (packets)", x.begin_ns, x.end_ns, "first packet begins: ", "last packet ends:    ");
		}
		if (x.has_discarded)
			fprintf(f, "  discarded events: %" PRIu64 " (packet counters)\n", x.discarded);
	}
	fprintf(f, "  streams: %u\n", t->nstreams);
	for (uint32_t k = 0; k < t->nstreams; k++) {
		const tio_stream *st = t->streams[k];
		tio_index_info y;
		if ((r = tio_trace_stream_index(t, k, &y)))
			return r;
		fprintf(f, "    stream %" PRIu64 " (class %" PRIu64 "):", st->id, st->sc ? st->sc->id : 0);
		if (y.indexed)
			fprintf(f, " %" PRIu64 " %s, ~%" PRIu64 " events", y.packets, td ? "pages" : "packets", y.events);
		fprintf(f, "  %s\n", st->name ? st->name : "");
	}
	const tio_trace_class *tc = t->tc;
	for (uint32_t k = 0; k < tc->nscs; k++) {
		const tio_stream_class *sc = tc->scs[k];
		if (td) {
			fprintf(f, "  stream class %" PRIu64 " (buffer \"%s\"): %u event classes (info --count lists those with events)\n",
				sc->id, sc->name ? sc->name : "", sc->necs);
			continue;
		}
		fprintf(f, "  stream class %" PRIu64 ": %u event classes\n", sc->id, sc->necs);
		for (uint32_t e = 0; e < sc->necs; e++)
			fprintf(f, "    %s (id %" PRIu64 ")\n", sc->ecs[e]->name ? sc->ecs[e]->name : "", sc->ecs[e]->id);
	}
	return 0;
}

static int info_finish(tio_sink *sk)
{
	info *in = (info *)sk;
	FILE *f = sk->out;
	for (size_t i = 0; i < in->n; i++) {
		tstat *s = &in->ts[i];
		const tio_trace *t = s->t;
		const tio_trace_class *tc = t->tc;
		bool td = !strcmp(t->fmt->name, "tracedat");
		fprintf(f, "trace: %s\n  format: %s\n", t->path, t->fmt->name);
		if (td)
			td_summary(f, t);
		if (tc->has_uuid) {
			const uint8_t *u = tc->uuid;
			fprintf(f, "  uuid: %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
				u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
				u[12], u[13], u[14], u[15]);
		}
		for (uint32_t k = 0; k < tc->nenv; k++) {
			if (tc->env[k].is_int)
				fprintf(f, "  env %s = %" PRId64 "\n", tc->env[k].key, tc->env[k].ival);
			else
				fprintf(f, "  env %s = \"%s\"\n", tc->env[k].key, tc->env[k].sval ? tc->env[k].sval : "");
		}
		for (uint32_t k = 0; k < tc->nannotations; k++) {
			const tio_annotation *a = &tc->annotations[k];
			fprintf(f, "  annotation \"%s\"", a->name ? a->name : "");
			if (a->cpu >= 0)
				fprintf(f, " cpu %" PRId64, a->cpu);
			if (a->in_cycles) {
				fprintf(f, " cycles [%" PRIu64 ", %" PRIu64 "]", a->begin, a->end);
			} else {
				fprintf(f, " [");
				fmt_ns(f, (int64_t)a->begin);
				fprintf(f, ", ");
				fmt_ns(f, (int64_t)a->end);
				fprintf(f, "]");
			}
			fprintf(f, ": %s\n", a->text ? a->text : "");
		}
		for (uint32_t k = 0; k < tc->nclocks; k++) {
			const tio_clock *c = tc->clocks[k];
			fprintf(f, "  clock %s: %" PRIu64 " Hz, offset %" PRId64 " s + %" PRId64 " cycles%s\n",
				c->name ? c->name : "?", c->freq, c->offset_s, c->offset,
				c->origin_unix ? ", origin Unix epoch" : "");
		}
		if (in->index_only) {
			int r = index_part(f, (tio_trace *)t);
			if (r)
				return r;
			continue;
		}
		fprintf(f, "  events: %" PRIu64 "\n", s->events);
		if (s->has_ts)
			print_range(f, "", s->first, s->last, "first event: ", "last event:  ");
		fprintf(f, "  discarded events: %" PRIu64 "%s\n", s->disc_events,
			s->disc_unknown ? " (and an unknown number)" : "");
		fprintf(f, "  discarded packets: %" PRIu64 "\n", s->disc_packets);
		fprintf(f, "  streams: %u\n", t->nstreams);
		for (uint32_t k = 0; k < t->nstreams; k++) {
			const tio_stream *st = t->streams[k];
			fprintf(f, "    stream %" PRIu64 " (class %" PRIu64 "): %" PRIu64 " events  %s\n", st->id,
				st->sc ? st->sc->id : 0, s->stream_events[k], st->name ? st->name : "");
		}
		for (uint32_t k = 0; k < tc->nscs; k++) {
			const tio_stream_class *sc = tc->scs[k];
			if (td) {
				/* hundreds of formats, a few of them used: list those */
				uint32_t used = 0;
				for (uint32_t e = 0; e < sc->necs; e++)
					used += sc->ecs[e]->count != 0;
				fprintf(f, "  stream class %" PRIu64 " (buffer \"%s\"): %u event classes, %u with events\n",
					sc->id, sc->name ? sc->name : "", sc->necs, used);
				for (uint32_t e = 0; e < sc->necs; e++)
					if (sc->ecs[e]->count)
						fprintf(f, "    %8" PRIu64 "  %s (id %" PRIu64 ")\n", sc->ecs[e]->count,
							sc->ecs[e]->name ? sc->ecs[e]->name : "", sc->ecs[e]->id);
				continue;
			}
			fprintf(f, "  stream class %" PRIu64 ": %u event classes\n", sc->id, sc->necs);
			for (uint32_t e = 0; e < sc->necs; e++)
				fprintf(f, "    %8" PRIu64 "  %s (id %" PRIu64 ")\n", sc->ecs[e]->count,
					sc->ecs[e]->name ? sc->ecs[e]->name : "", sc->ecs[e]->id);
		}
	}
	return fflush(f) ? tio_err_set(TIO_ERR_IO, "write error on output") : 0;
}

static void info_fini(tio_sink *sk)
{
	info *in = (info *)sk;
	for (size_t i = 0; i < in->n; i++)
		free(in->ts[i].stream_events);
	free(in->ts);
}

const tio_sink_ops tio_sink_info_ops = {
	.name = "info",
	.size = sizeof(info),
	.set = info_set,
	.add_trace = info_add_trace,
	.consume = info_consume,
	.merge = info_merge,
	.finish = info_finish,
	.fini = info_fini,
};

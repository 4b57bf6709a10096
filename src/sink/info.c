/*
 * The "info" sink: reads everything, then tells what the traces hold:
 * format, clocks, streams, event classes with their counts, time range,
 * discarded events and packets.
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
} tstat;

typedef struct info {
	tio_sink base;
	tstat *ts;
	size_t n, cap;
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
	tstat *s = stat_of(in, m->stream->trace);
	if (!s)
		return TIO_ERR_NOMEM;
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

static int info_finish(tio_sink *sk)
{
	info *in = (info *)sk;
	FILE *f = sk->out;
	for (size_t i = 0; i < in->n; i++) {
		tstat *s = &in->ts[i];
		const tio_trace *t = s->t;
		const tio_trace_class *tc = t->tc;
		fprintf(f, "trace: %s\n  format: %s\n", t->path, t->fmt->name);
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
		fprintf(f, "  events: %" PRIu64 "\n", s->events);
		if (s->has_ts) {
			fprintf(f, "  time range: [");
			fmt_ns(f, s->first);
			fprintf(f, ", ");
			fmt_ns(f, s->last);
			fprintf(f, "] (");
			fmt_ns(f, s->last - s->first);
			fprintf(f, " s)\n  first event: ");
			fmt_date(f, s->first);
			fprintf(f, "\n  last event:  ");
			fmt_date(f, s->last);
			fprintf(f, "\n");
		}
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
	.consume = info_consume,
	.finish = info_finish,
	.fini = info_fini,
};

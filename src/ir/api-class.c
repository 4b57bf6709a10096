/*
 * The public class API (include/traceio/class.h): event and stream classes,
 * clocks, environment, streams and where a message comes from, over the
 * model (ir.h).  Everything is borrowed from the trace; only
 * tio_trace_comm builds a table (once per trace, on its first call).
 */
#include <stdlib.h>
#include <string.h>

#include "traceio/class.h"
#include "ir/ir.h"

/* ------------------------------------------------------------ event classes */

const tio_event_class *tio_msg_event_class(const tio_msg *m)
{
	return m && m->type == TIO_MSG_EVENT ? m->ec : NULL;
}

const char *tio_event_class_name(const tio_event_class *ec)
{
	return ec ? ec->name : NULL;
}

uint64_t tio_event_class_id(const tio_event_class *ec)
{
	return ec ? ec->id : 0;
}

bool tio_event_class_log_level(const tio_event_class *ec, int64_t *level)
{
	if (!ec || ec->loglevel == INT64_MIN)
		return false;
	if (level)
		*level = ec->loglevel;
	return true;
}

const char *tio_event_class_emf_uri(const tio_event_class *ec)
{
	return ec ? ec->emf_uri : NULL;
}

/* The class's "system" attribute: trace.dat's event system ("sched"), kept by the CTF writer. */
const char *tio_event_class_system(const tio_event_class *ec)
{
	for (uint32_t i = 0; ec && i < ec->nattrs; i++)
		if (!strcmp(ec->attrs[i].key, "system") && !ec->attrs[i].is_int)
			return ec->attrs[i].sval;
	return NULL;
}

const tio_stream_class *tio_event_class_stream_class(const tio_event_class *ec)
{
	return ec ? ec->sc : NULL;
}

const tio_field_class *tio_event_class_scope(const tio_event_class *ec, int scope)
{
	if (!ec)
		return NULL;
	if (scope == TIO_SCOPE_EV_SPEC_CTX)
		return ec->spec_ctx;
	if (scope == TIO_SCOPE_PAYLOAD)
		return ec->payload;
	return tio_stream_class_scope(ec->sc, scope);
}

/* ------------------------------------------------------------ stream classes */

uint64_t tio_stream_class_id(const tio_stream_class *sc)
{
	return sc ? sc->id : 0;
}

const char *tio_stream_class_name(const tio_stream_class *sc)
{
	return sc ? sc->name : NULL;
}

const tio_field_class *tio_stream_class_scope(const tio_stream_class *sc, int scope)
{
	if (!sc)
		return NULL;
	switch (scope) {
	case TIO_SCOPE_PKT_HEADER: return sc->tc ? sc->tc->pkt_header : NULL;
	case TIO_SCOPE_PKT_CTX: return sc->pkt_ctx;
	case TIO_SCOPE_EV_HEADER: return sc->ev_header;
	case TIO_SCOPE_EV_COMMON_CTX: return sc->ev_common_ctx;
	}
	return NULL;
}

const tio_clock *tio_stream_class_clock(const tio_stream_class *sc)
{
	if (!sc || sc->clock < 0 || !sc->tc || (uint32_t)sc->clock >= sc->tc->nclocks)
		return NULL;
	return sc->tc->clocks[sc->clock];
}

uint32_t tio_stream_class_event_class_count(const tio_stream_class *sc)
{
	return sc ? sc->necs : 0;
}

const tio_event_class *tio_stream_class_event_class(const tio_stream_class *sc, uint32_t i)
{
	return sc && i < sc->necs ? sc->ecs[i] : NULL;
}

/* ------------------------------------------------------------ the trace */

uint32_t tio_trace_stream_class_count(const tio_trace *t)
{
	return t && t->tc ? t->tc->nscs : 0;
}

const tio_stream_class *tio_trace_stream_class(const tio_trace *t, uint32_t i)
{
	return t && t->tc && i < t->tc->nscs ? t->tc->scs[i] : NULL;
}

const tio_event_class *tio_trace_event_class_by_name(const tio_trace *t, const char *name)
{
	if (!t || !t->tc || !name)
		return NULL;
	for (uint32_t i = 0; i < t->tc->nscs; i++) {
		const tio_stream_class *sc = t->tc->scs[i];
		for (uint32_t k = 0; k < sc->necs; k++)
			if (sc->ecs[k]->name && !strcmp(sc->ecs[k]->name, name))
				return sc->ecs[k];
	}
	return NULL;
}

bool tio_trace_uuid(const tio_trace *t, uint8_t uuid[16])
{
	if (!t || !t->tc || !t->tc->has_uuid)
		return false;
	memcpy(uuid, t->tc->uuid, 16);
	return true;
}

uint32_t tio_trace_env_count(const tio_trace *t)
{
	return t && t->tc ? t->tc->nenv : 0;
}

const char *tio_trace_env_key(const tio_trace *t, uint32_t i)
{
	return t && t->tc && i < t->tc->nenv ? t->tc->env[i].key : NULL;
}

bool tio_trace_env_value(const tio_trace *t, uint32_t i, int64_t *ival, const char **sval)
{
	if (!t || !t->tc || i >= t->tc->nenv) {
		if (sval)
			*sval = NULL;
		return false;
	}
	const tio_kv *kv = &t->tc->env[i];
	if (kv->is_int) {
		if (ival)
			*ival = kv->ival;
		return true;
	}
	if (sval)
		*sval = kv->sval;
	return false;
}

uint32_t tio_trace_clock_count(const tio_trace *t)
{
	return t && t->tc ? t->tc->nclocks : 0;
}

const tio_clock *tio_trace_clock(const tio_trace *t, uint32_t i)
{
	return t && t->tc && i < t->tc->nclocks ? t->tc->clocks[i] : NULL;
}

const char *tio_clock_name(const tio_clock *c)
{
	return c ? c->name : NULL;
}

const char *tio_clock_description(const tio_clock *c)
{
	return c ? c->description : NULL;
}

uint64_t tio_clock_frequency(const tio_clock *c)
{
	return c ? (c->freq ? c->freq : 1000000000ULL) : 0;
}

void tio_clock_offset(const tio_clock *c, int64_t *seconds, int64_t *cycles)
{
	if (seconds)
		*seconds = c ? c->offset_s : 0;
	if (cycles)
		*cycles = c ? c->offset : 0;
}

uint64_t tio_clock_precision(const tio_clock *c)
{
	return c ? c->precision : 0;
}

bool tio_clock_origin_is_unix_epoch(const tio_clock *c)
{
	return c && c->origin_unix;
}

bool tio_clock_uuid(const tio_clock *c, uint8_t uuid[16])
{
	if (!c || !c->has_uuid)
		return false;
	memcpy(uuid, c->uuid, 16);
	return true;
}

int tio_clock_cycles_to_ns(const tio_clock *c, uint64_t cycles, int64_t *ns)
{
	if (!c || !ns)
		return tio_err_set(TIO_ERR_USAGE, "tio_clock_cycles_to_ns: no clock or output");
	return tio_clock_ns(c, cycles, ns);
}

uint32_t tio_trace_stream_count(const tio_trace *t)
{
	return t ? t->nstreams : 0;
}

const tio_stream *tio_trace_stream(const tio_trace *t, uint32_t i)
{
	return t && i < t->nstreams ? t->streams[i] : NULL;
}

/* ------------------------------------------------------------ saved cmdlines */

typedef struct comm_ent {
	int64_t pid;
	char *comm;
	size_t order; /* line number: the last line of a pid wins, as trace-cmd's stable sort keeps it */
} comm_ent;

struct tio_comms {
	comm_ent *v;
	size_t n;
};

void tio_comms_free(struct tio_comms *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].comm);
	free(c->v);
	free(c);
}

static int comm_cmp(const void *a, const void *b)
{
	const comm_ent *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->order < y->order ? 1 : x->order > y->order ? -1 : 0; /* newest first */
}

/* "pid comm" lines of the trace's saved_cmdlines table, sorted by pid. */
static struct tio_comms *comms_build(const tio_trace *t)
{
	struct tio_comms *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	const tio_kv *kv = t->tc ? tio_trace_class_table(t->tc, "saved_cmdlines") : NULL;
	const char *p = kv ? kv->sval : NULL;
	size_t cap = 0;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		char *q;
		long long pid = strtoll(p, &q, 10);
		if (q == p || q > p + l)
			break;
		while (q < p + l && *q == ' ')
			q++;
		if (q < p + l) {
			if (c->n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				comm_ent *nv = realloc(c->v, nc * sizeof(*nv));
				if (!nv)
					break;
				c->v = nv;
				cap = nc;
			}
			size_t cl = (size_t)(p + l - q);
			char *s = malloc(cl + 1);
			if (!s)
				break;
			memcpy(s, q, cl);
			s[cl] = 0;
			c->v[c->n] = (comm_ent){.pid = pid, .comm = s, .order = c->n};
			c->n++;
		}
		if (!e)
			break;
		p = e + 1;
	}
	if (c->n > 1)
		qsort(c->v, c->n, sizeof(*c->v), comm_cmp);
	return c;
}

const char *tio_trace_comm(const tio_trace *t, int64_t pid)
{
	if (!t || !t->tc || !tio_trace_class_table(t->tc, "saved_cmdlines"))
		return NULL;
	if (pid == 0)
		return "<idle>"; /* trace-cmd's name for pid 0 */
	if (!t->comms)
		((tio_trace *)t)->comms = comms_build(t); /* built once: not for two threads at once */
	const struct tio_comms *c = t->comms;
	if (!c)
		return NULL;
	size_t lo = 0, hi = c->n;
	while (lo < hi) { /* the first entry of the pid: its newest line */
		size_t mid = (lo + hi) / 2;
		if (c->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->v[lo].pid == pid ? c->v[lo].comm : NULL;
}

size_t tio_trace_comm_pids(const tio_trace *t, const char *comm, int64_t *pids, size_t max)
{
	if (!t || !comm || !t->tc || !tio_trace_class_table(t->tc, "saved_cmdlines"))
		return 0;
	if (!t->comms)
		((tio_trace *)t)->comms = comms_build(t);
	const struct tio_comms *c = t->comms;
	size_t n = 0;
	for (size_t i = 0; c && i < c->n; i++) {
		/* a pid's newest line only (the one tio_trace_comm gives) */
		if (i && c->v[i - 1].pid == c->v[i].pid)
			continue;
		if (!strcmp(c->v[i].comm, comm)) {
			if (n < max)
				pids[n] = c->v[i].pid;
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------ streams and messages */

const tio_stream *tio_msg_stream(const tio_msg *m)
{
	return m ? m->stream : NULL;
}

const tio_trace *tio_stream_trace(const tio_stream *s)
{
	return s ? s->trace : NULL;
}

const tio_stream_class *tio_stream_get_class(const tio_stream *s)
{
	return s ? s->sc : NULL;
}

uint64_t tio_stream_id(const tio_stream *s)
{
	return s ? s->id : 0;
}

const char *tio_stream_name(const tio_stream *s)
{
	return s ? s->name : NULL;
}

bool tio_msg_cpu(const tio_msg *m, uint64_t *cpu)
{
	if (!m || !m->stream)
		return false;
	if (m->stream->id_is_cpu) {
		if (cpu)
			*cpu = m->stream->id;
		return true;
	}
	/* CTF (LTTng): the packet context's cpu_id */
	const tio_val *pc = m->scope[TIO_SCOPE_PKT_CTX];
	if (!pc || pc->fc->kind != TIO_FC_STRUCT)
		return false;
	/* no error set on the way: this runs per event (Python's ev.cpu, columns) */
	const tio_fc *fc = pc->fc;
	for (uint32_t k = 0; k < fc->st.nmembers && k < pc->n; k++) {
		const char *nm = fc->st.members[k].name;
		if (!nm || (strcmp(nm, "cpu_id") && strcmp(nm, "_cpu_id")))
			continue;
		const tio_val *v;
		if (tio_field_member(pc, k, &v) || (v->fc->kind != TIO_FC_INT && v->fc->kind != TIO_FC_ENUM) ||
		    v->fc->i.size > 64 || (v->fc->i.is_signed && v->v.i < 0))
			return false;
		if (cpu)
			*cpu = v->v.u;
		return true;
	}
	return false;
}

bool tio_msg_cycles(const tio_msg *m, uint64_t *cycles)
{
	if (!m || !m->has_ts)
		return false;
	if (cycles)
		*cycles = m->cycles;
	return true;
}

bool tio_msg_discarded(const tio_msg *m, uint64_t *count, bool *has_range, int64_t *begin_ns, int64_t *end_ns)
{
	if (!m || (m->type != TIO_MSG_DISCARDED_EVENTS && m->type != TIO_MSG_DISCARDED_PACKETS))
		return false;
	if (count)
		*count = m->count;
	if (has_range)
		*has_range = m->has_range;
	if (begin_ns)
		*begin_ns = m->has_range ? m->begin_ns : 0;
	if (end_ns)
		*end_ns = m->has_range ? m->end_ns : 0;
	return true;
}

bool tio_msg_discarded_cycles(const tio_msg *m, uint64_t *begin_cycles, uint64_t *end_cycles)
{
	if (!m || (m->type != TIO_MSG_DISCARDED_EVENTS && m->type != TIO_MSG_DISCARDED_PACKETS) || !m->has_range)
		return false;
	if (begin_cycles)
		*begin_cycles = m->begin_cycles;
	if (end_cycles)
		*end_cycles = m->end_cycles;
	return true;
}

/* ------------------------------------------------------------ the packet index (traceio/trace.h) */

/* One stream's index as the public tio_index_info. */
static int stream_index(tio_stream *s, tio_index_info *out)
{
	memset(out, 0, sizeof(*out));
	out->streams = 1;
	if (!s->ops->index)
		return 0;
	if (!s->has_index) {
		mt_pause(s); /* a mux's worker may be reading it */
		int r = s->ops->index(s, &s->pk_index);
		mt_resume(s);
		if (r)
			return r;
		s->has_index = true;
	}
	const tio_stream_index x = s->pk_index;
	out->indexed = 1;
	out->seekable = x.seekable;
	out->has_range = x.has_range;
	out->begin_ns = x.begin_ns;
	out->end_ns = x.end_ns;
	out->packets = x.packets;
	out->bytes = x.bytes;
	out->events = x.events;
	out->has_discarded = x.has_discarded;
	out->discarded = x.discarded;
	return 0;
}

int tio_trace_stream_index(tio_trace *t, uint32_t i, tio_index_info *out)
{
	if (!t || i >= t->nstreams || !out)
		return tio_err_set(TIO_ERR_USAGE, "tio_trace_stream_index: no stream %u", i);
	return stream_index(t->streams[i], out);
}

int tio_trace_index(tio_trace *t, tio_index_info *out)
{
	if (!t || !out)
		return tio_err_set(TIO_ERR_USAGE, "tio_trace_index: no trace");
	memset(out, 0, sizeof(*out));
	bool all_disc = t->nstreams > 0;
	for (uint32_t i = 0; i < t->nstreams; i++) {
		tio_index_info x;
		int r = stream_index(t->streams[i], &x);
		if (r)
			return r;
		out->streams++;
		out->indexed += x.indexed;
		out->seekable += x.seekable;
		out->packets += x.packets;
		out->bytes += x.bytes;
		out->events += x.events;
		out->discarded += x.discarded;
		all_disc &= x.has_discarded;
		if (x.has_range) {
			if (!out->has_range || x.begin_ns < out->begin_ns)
				out->begin_ns = x.begin_ns;
			if (!out->has_range || x.end_ns > out->end_ns)
				out->end_ns = x.end_ns;
			out->has_range = true;
		}
	}
	out->has_discarded = all_disc;
	return 0;
}

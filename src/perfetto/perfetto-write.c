/*
 * The "perfetto" writer sink: any trace as Perfetto's protobuf trace format
 * (a `Trace` is a run of `TracePacket`s, each field 1 of the file), the
 * subset of the schema in proto/perfetto_subset.proto, encoded by hand
 * (src/perfetto/pb.h).  docs/formats/perfetto.md says what goes where:
 *
 *   - kernel events (trace.dat, LTTng kernel CTF, LTT) as FtraceEventBundles,
 *     one open bundle per CPU, written as a packet when it reaches
 *     BUNDLE_MAX bytes: the scheduling events Perfetto parses as typed
 *     messages (one mapping of field names per source format, table
 *     `typed`), sched_switch / sched_waking in the bundle's compact_sched
 *     when Perfetto infers back the same event (sched_compact), every
 *     other one as a dense generic event (a DescriptorProto per class,
 *     written once; dense_make, put_dense) or, when its class cannot be
 *     described so, a GenericFtraceEvent with all its fields;
 *   - user-space events (LTTng-UST, anything not from a kernel tracer) as
 *     TrackEvents on a track per thread (per stream when the thread is
 *     unknown): instants, or slices for *_entry / *_exit pairs; event and
 *     field names interned on the track-event sequence;
 *   - a ClockSnapshot before the first event, ProcessTree packets from
 *     LTTng's statedump and the pid/tid contexts, discarded events as
 *     lost_events bundles (kernel) or "discarded events" instants (user).
 *
 * Streaming: packets go to the output as they fill; memory holds one bundle
 * per CPU, one table entry per event class and one per thread.
 * Options: output=PATH, force.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perfetto/pb.h"
#include "sink/sink.h"
#include "traceio/class.h"

#define BUNDLE_MAX (64 * 1024) /* bytes of events in an FtraceEventBundle before it is written */
#define OUT_FLUSH (1 << 20)    /* bytes of packets buffered before a write */
#define MAX_CPUS 65536

/* trusted_packet_sequence_id of each kind of packet */
#define SEQ_META 1   /* clock snapshot, process trees */
#define SEQ_TRACK 2  /* track descriptors and track events (interned names) */
#define SEQ_CPU0 16  /* FtraceEventBundles of CPU n: SEQ_CPU0 + n */

/* TracePacket fields (perfetto_trace.proto) */
enum {
	TP_FTRACE_EVENTS = 1,
	TP_PROCESS_TREE = 2,
	TP_CLOCK_SNAPSHOT = 6,
	TP_TIMESTAMP = 8,
	TP_SEQ_ID = 10,
	TP_TRACK_EVENT = 11,
	TP_INTERNED_DATA = 12,
	TP_SEQ_FLAGS = 13,
	TP_SYSTEM_INFO = 45,
	TP_TRACK_DESCRIPTOR = 60,
};

/* Source formats, each with its own names of the scheduling fields */
enum src { SRC_FTRACE, SRC_LTTNG, SRC_LTT, SRC_USER };

enum ftype { F_STR, F_INT, F_UINT, F_I64 };

/* One field of a typed ftrace message: its number, type and source names. */
typedef struct tfield {
	uint32_t num;
	uint8_t type;
	bool prio;	   /* LTTng records prio - 100 (MAX_RT_PRIO): add it back */
	const char *name;  /* trace.dat (ftrace) name */
	const char *lname; /* LTTng kernel name (NULL: same) */
	const char *tname; /* LTT (LTTng 0.x) name (NULL: same, "": none) */
} tfield;

/* A typed FtraceEvent message and the event names it is written for. */
typedef struct tdesc {
	const char *name;  /* ftrace event name */
	const char *lname; /* LTTng kernel event name (NULL: same) */
	const char *tname; /* LTT (LTTng 0.x) event name (NULL: same, "": none) */
	uint32_t num;	   /* field of FtraceEvent's oneof */
	uint32_t nreq;	   /* the first nreq fields must exist, else the event is generic */
	tfield f[8];
} tdesc;

#define WAKE(nm, tnm, num_)                                                                       \
	{nm, NULL, tnm, num_, 1,                                                                     \
	 {{2, F_INT, false, "pid", "tid", NULL},                                                      \
	  {1, F_STR, false, "comm", NULL, NULL},                                                      \
	  {3, F_INT, true, "prio", NULL, NULL},                                                       \
	  {4, F_INT, false, "success", NULL, NULL},                                                   \
	  {5, F_INT, false, "target_cpu", NULL, "cpu_id"}}}

static const tdesc typed[] = {
	{"sched_switch", NULL, "sched_schedule", 4, 2,
	 {{2, F_INT, false, "prev_pid", "prev_tid", NULL},
	  {6, F_INT, false, "next_pid", "next_tid", NULL},
	  {1, F_STR, false, "prev_comm", NULL, NULL},
	  {3, F_INT, true, "prev_prio", NULL, NULL},
	  {4, F_I64, false, "prev_state", NULL, NULL},
	  {5, F_STR, false, "next_comm", NULL, NULL},
	  {7, F_INT, true, "next_prio", NULL, NULL}}},
	WAKE("sched_waking", "sched_try_wakeup", 20),
	WAKE("sched_wakeup", "", 17),
	WAKE("sched_wakeup_new", "sched_wakeup_new_task", 114),
	{"sched_process_fork", NULL, "process_fork", 239, 2,
	 {{2, F_INT, false, "parent_pid", "parent_tid", NULL},
	  {4, F_INT, false, "child_pid", "child_tid", NULL},
	  {1, F_STR, false, "parent_comm", NULL, NULL},
	  {3, F_STR, false, "child_comm", NULL, NULL}}},
	{"sched_process_exit", NULL, "process_exit", 238, 1,
	 {{2, F_INT, false, "pid", "tid", NULL},
	  {1, F_STR, false, "comm", NULL, NULL},
	  {3, F_INT, false, "tgid", "pid", ""},
	  {4, F_INT, true, "prio", NULL, NULL}}},
	{"sched_process_free", NULL, "process_free", 240, 1,
	 {{2, F_INT, false, "pid", "tid", NULL}, {1, F_STR, false, "comm", NULL, NULL}, {3, F_INT, true, "prio", NULL, NULL}}},
	{"task_newtask", NULL, "", 235, 1,
	 {{1, F_INT, false, "pid", "tid", NULL},
	  {2, F_STR, false, "comm", NULL, NULL},
	  {3, F_UINT, false, "clone_flags", NULL, NULL},
	  {4, F_INT, false, "oom_score_adj", NULL, NULL}}},
	{"task_rename", NULL, "", 236, 1,
	 {{1, F_INT, false, "pid", "tid", NULL},
	  {2, F_STR, false, "oldcomm", NULL, NULL},
	  {3, F_STR, false, "newcomm", NULL, NULL},
	  {4, F_INT, false, "oom_score_adj", NULL, NULL}}},
	{"cpu_frequency", "power_cpu_frequency", "", 11, 2,
	 {{1, F_UINT, false, "state", NULL, NULL}, {2, F_UINT, false, "cpu_id", NULL, NULL}}},
	{"cpu_idle", "power_cpu_idle", "", 13, 2, {{1, F_UINT, false, "state", NULL, NULL}, {2, F_UINT, false, "cpu_id", NULL, NULL}}},
	{"irq_handler_entry", NULL, "", 36, 1, {{1, F_INT, false, "irq", NULL, NULL}, {2, F_STR, false, "name", NULL, NULL}}},
	{"irq_handler_exit", NULL, "", 37, 1, {{1, F_INT, false, "irq", NULL, NULL}, {2, F_INT, false, "ret", NULL, NULL}}},
	{"softirq_entry", "irq_softirq_entry", NULL, 24, 1, {{1, F_UINT, false, "vec", NULL, "softirq_id"}}},
	{"softirq_exit", "irq_softirq_exit", NULL, 25, 1, {{1, F_UINT, false, "vec", NULL, "softirq_id"}}},
	{"print", NULL, "", 3, 1, {{2, F_STR, false, "buf", NULL, NULL}, {1, F_UINT, false, "ip", NULL, NULL}}},
};

/* The name of an event or field for source format `src` (NULL: it has none). */
static const char *src_name(int src, const char *name, const char *lname, const char *tname)
{
	if (src == SRC_LTTNG && lname)
		return lname;
	if (src == SRC_LTT && tname)
		return *tname ? tname : NULL;
	return name;
}

enum kind { K_GENERIC, K_TYPED, K_TRACK, K_DENSE };
enum dtype { D_INT64, D_UINT64, D_STRING };
enum slice { SL_INSTANT, SL_BEGIN, SL_END };

/* What the writer knows of an event class, made at its first event. */
typedef struct pcls {
	const tio_event_class *ec;
	uint8_t kind;	 /* enum kind */
	uint8_t src;	 /* enum src */
	uint8_t slice;	 /* enum slice (K_TRACK) */
	bool func;	 /* lttng_ust_cyg_profile func_entry: the slice is named by `addr` */
	bool statedump;	 /* lttng_statedump_process_state: a ProcessTree too */
	const tdesc *td; /* K_TYPED */
	int8_t *map;	 /* K_TYPED: payload member -> index in td->f, or -1 */
	uint64_t iid;	 /* K_TRACK: interned event name (0: not yet written) */
	uint64_t *ann;	 /* K_TRACK: interned field names, per member (common ctx, spec ctx, payload) */
	uint32_t nann;
	uint32_t ctx_n[3]; /* member counts of common ctx, spec ctx, payload */
	/* K_GENERIC: the encoded GenericFtraceEvent.event_name and, per payload
	 * member, its Field.name (tag, length, UTF-8 bytes), made once */
	pb gname;
	uint32_t *goff; /* payload member k's name: gname.p + goff[k] .. goff[k + 1] */
	int32_t cc_pid, cc_flags; /* trace.dat: common_pid / common_flags index in the common context, -1 */
	int32_t idm[2][3]; /* thread contexts (idmap_make) */
	/* K_DENSE: a submessage of FtraceEvent numbered field_id, its fields
	 * numbered 1.. in the order of the scopes' members (dense_make) */
	uint32_t field_id;
	int nsc;		 /* the scopes written (gen_scopes) */
	const tio_fc *sc_fc[3];	 /* their field classes */
	int sc_which[3];	 /* their TIO_SCOPE_* */
	uint8_t *ftype; /* per member of the written scopes: D_INT64, D_UINT64, D_STRING */
	uint32_t nf;
	bool desc_written; /* its GenericEventDescriptor is in a bundle already */
	pb desc;	   /* that descriptor, encoded as FtraceEventBundle field 11 */
} pcls;

/* A thread (or a stream, for events of unknown thread) with a track or a ProcessTree entry. */
typedef struct pthr {
	uint64_t k1, k2; /* key; k1 == 0: empty slot */
	uint64_t uuid;	 /* track uuid, 0 before its descriptor is written */
	bool in_tree;	 /* a ProcessTree entry was written */
} pthr;

/* CompactSched's packed arrays (FtraceEventBundle.compact_sched), by field number */
enum { CS_SW_TS, CS_SW_STATE, CS_SW_PID, CS_SW_PRIO, CS_SW_COMM, CS_WK_TS, CS_WK_PID, CS_WK_CPU, CS_WK_PRIO,
       CS_WK_COMM, CS_WK_FLAGS, CS_N };
static const uint8_t cs_field[CS_N] = {1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12};
#define CS_INTERN_MAX 128 /* comms interned in one bundle; one more starts a new bundle */

/*
 * A bundle's compact_sched being gathered: packed arrays, intern table
 * (encoded field 5 entries) and a hash of its strings (index + 1, 0 empty).
 * Allocated at a CPU's first sched_switch or sched_waking.
 */
typedef struct pcompact {
	pb cs[CS_N];
	pb intern;
	uint32_t str_off[CS_INTERN_MAX], str_len[CS_INTERN_MAX], nstr;
	uint16_t str_hash[CS_INTERN_MAX * 2];
	uint64_t sw_ts, wk_ts; /* last timestamps in the switch / waking arrays (deltas) */
	size_t cs_bytes;       /* bytes in cs[] and intern: the bundle's size is b.len + cs_bytes */
} pcompact;

typedef struct pcpu {
	pb b;		 /* the open bundle's content (empty: none open) */
	int64_t cur_tid; /* the thread running on it (last sched_switch next), -1 unknown */
	pcompact *k;	 /* its compact_sched, NULL before its first switch or waking */
	/* the last sched_switch on this CPU (any encoding), what Perfetto
	 * infers a compact switch's prev_* and a compact waking's pid from */
	bool sw_known;
	int64_t sw_next_pid;
	int32_t sw_next_prio;
	uint8_t sw_next_comm_len;
	char sw_next_comm[64];
	uint64_t sw_last_ts;	/* its time */
	uint64_t sched_last_ts; /* time of the last sched_switch or sched_waking */
} pcpu;

typedef struct pwsink {
	tio_sink base;
	char *out_path;
	bool force;
	tio_outfile of;
	bool opened;
	pb o;	  /* packets to write */
	pb t;	  /* scratch: a track event packet's interned data */
	tio_buf text; /* scratch: values rendered as text */
	tio_buf utf;  /* scratch: a string made valid UTF-8 */
	pcpu *cpus;
	size_t ncpus;
	pcls **cls; /* open-addressed by ec pointer */
	struct {
		const tio_event_class *ec;
		pcls *c;
	} recent[64]; /* direct-mapped cache in front of cls (one probe, no pointer chased) */
	size_t ncls, capcls;
	pthr *thr; /* open-addressed by (k1, k2) */
	size_t nthr, capthr;
	uint64_t next_iid, next_uuid;
	bool clock_done, track_seq_started;
	uint64_t nnegative; /* events before the clock origin, written at time 0 */
	uint32_t next_field_id; /* the next K_DENSE class's FtraceEvent field, from 65536 */
} pwsink;

/* ---------------------------------------------------------------- output */

/* Create the temporary output file (once). */
static int pw_open(pwsink *w)
{
	if (w->opened)
		return 0;
	if (!w->out_path)
		return tio_err_set(TIO_ERR_USAGE, "sink perfetto needs option output=PATH");
	struct stat st;
	if (!w->force && !lstat(w->out_path, &st))
		return tio_err_set(TIO_ERR_USAGE, "%s: already exists", w->out_path);
	int r = tio_outfile_open(&w->of, w->out_path);
	if (r)
		return r;
	w->opened = true;
	return 0;
}

/* A message's time for Perfetto (unsigned ns): before the origin, or without a clock, 0. */
static uint64_t ts_of(const tio_msg *m)
{
	return m->has_ts && m->ns > 0 ? (uint64_t)m->ns : 0;
}

/* Write the buffered packets to the file. */
static int pw_flush(pwsink *w)
{
	if (w->o.err)
		return w->o.err;
	if (w->o.len && fwrite(w->o.p, 1, w->o.len, w->of.f) != w->o.len)
		return tio_err_set(TIO_ERR_IO, "%s: write error: %s", w->out_path, strerror(errno));
	w->o.len = 0;
	return 0;
}

/* Begin a TracePacket (Trace.packet, field 1) on sequence `seq`; end it with pb_end(&w->o). */
static void pkt_begin(pwsink *w, uint32_t seq, bool has_ts, int64_t ns)
{
	pb_begin(&w->o, 1);
	if (has_ts)
		pb_uint(&w->o, TP_TIMESTAMP, ns < 0 ? 0 : (uint64_t)ns);
	pb_uint(&w->o, TP_SEQ_ID, seq);
}

/* End a packet; write the buffer out when it is big. */
static int pkt_end(pwsink *w)
{
	pb_end(&w->o);
	if (w->o.err)
		return w->o.err;
	return w->o.len >= OUT_FLUSH ? pw_flush(w) : 0;
}

/*
 * Close CPU c's compact_sched (FtraceEventBundle field 4: the packed arrays
 * and the intern table gathered since the bundle began) into its bundle and
 * empty them for the next bundle.
 */
static void compact_close(pcpu *pc)
{
	pb *b = &pc->b;
	if (!pc->k)
		return;
	bool any = pc->k->intern.len;
	for (int k = 0; k < CS_N; k++)
		any |= pc->k->cs[k].len != 0;
	if (!any)
		return;
	pb_begin(b, 4);
	if (!pb_room(b, pc->k->intern.len)) { /* field 5 entries, encoded as they were interned */
		memcpy(b->p + b->len, pc->k->intern.p, pc->k->intern.len);
		b->len += pc->k->intern.len;
	}
	for (int k = 0; k < CS_N; k++) {
		if (pc->k->cs[k].len)
			pb_bytes(b, cs_field[k], pc->k->cs[k].p, pc->k->cs[k].len);
		b->err = b->err ? b->err : pc->k->cs[k].err;
		pc->k->cs[k].len = 0;
	}
	b->err = b->err ? b->err : pc->k->intern.err;
	pb_end(b);
	pc->k->intern.len = 0;
	pc->k->cs_bytes = 0;
	pc->k->nstr = 0;
	memset(pc->k->str_hash, 0, sizeof(pc->k->str_hash));
	pc->k->sw_ts = pc->k->wk_ts = 0;
}

/* Write CPU c's open bundle as a packet and empty it. */
static int bundle_flush(pwsink *w, size_t c)
{
	pb *b = &w->cpus[c].b;
	compact_close(&w->cpus[c]);
	if (b->err)
		return b->err;
	if (!b->len)
		return 0;
	/* the packet's header into the output buffer, then the bundle as is: not copied */
	uint32_t seq = SEQ_CPU0 + (uint32_t)c;
	size_t pl = 1 + pb_varint_size(seq) + 1 + pb_varint_size(b->len) + b->len;
	if (pb_room(&w->o, 32))
		return w->o.err;
	uint8_t *q = w->o.p + w->o.len;
	*q++ = 1 << 3 | 2; /* Trace.packet */
	q += pb_varint_at(q, pl);
	*q++ = TP_SEQ_ID << 3;
	q += pb_varint_at(q, seq);
	*q++ = TP_FTRACE_EVENTS << 3 | 2;
	q += pb_varint_at(q, b->len);
	w->o.len = (size_t)(q - w->o.p);
	int r = pw_flush(w);
	if (!r && fwrite(b->p, 1, b->len, w->of.f) != b->len)
		r = tio_err_set(TIO_ERR_IO, "%s: write error: %s", w->out_path, strerror(errno));
	b->len = 0;
	return r;
}

/* The state of CPU `cpu`, its array grown as needed; NULL on error (set). */
static pcpu *cpu_get(pwsink *w, uint64_t cpu)
{
	if (cpu >= MAX_CPUS) {
		tio_err_set(TIO_ERR_LIMIT, "perfetto: CPU %" PRIu64 " out of range (at most %d)", cpu, MAX_CPUS - 1);
		return NULL;
	}
	if (cpu >= w->ncpus) {
		size_t n = (size_t)cpu + 1;
		pcpu *nc = tio_realloc(w->cpus, n * sizeof(*nc));
		if (!nc)
			return NULL;
		for (size_t i = w->ncpus; i < n; i++) {
			memset(&nc[i], 0, sizeof(nc[i]));
			nc[i].cur_tid = -1;
		}
		w->cpus = nc;
		w->ncpus = n;
	}
	return &w->cpus[cpu];
}

/* ---------------------------------------------------------------- values */

/* The struct member values of `v` (a STRUCT) into out[0..n), n <= max; returns n. */
static uint32_t members(const tio_msg *m, const tio_val *v, const tio_val **out, uint32_t max)
{
	if (!v || v->fc->kind != TIO_FC_STRUCT)
		return 0;
	uint32_t j = (uint32_t)(v - m->vals) + 1, n = 0;
	for (uint32_t k = 0; k < v->n && j < v->end && n < max; k++) {
		out[n++] = &m->vals[j];
		j = m->vals[j].end;
	}
	return n;
}

/* Is v an integer of at most 64 bits (possibly an enum / boolean / LEB128)? */
static bool is_int(const tio_val *v, bool *sign)
{
	const tio_fc *fc = v->fc;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		if (fc->i.size > 64)
			return false;
		*sign = fc->i.is_signed;
		return true;
	case TIO_FC_VARINT:
		*sign = fc->vi.is_signed;
		return true;
	default:
		return false;
	}
}

/* Render the value at m->vals[i] as text into b (strings as is, compounds as JSON-like text). */
static void render(tio_buf *b, const tio_msg *m, uint32_t i)
{
	const tio_val *v = &m->vals[i];
	const tio_fc *fc = v->fc;
	bool sg;
	if (is_int(v, &sg)) {
		if (sg)
			tio_buf_addi(b, v->v.i);
		else
			tio_buf_addu(b, v->v.u);
		return;
	}
	switch (fc->kind) {
	case TIO_FC_FLOAT:
		tio_buf_addf(b, "%.17g", v->v.d);
		return;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
		if (v->v.s.p)
			tio_buf_add(b, v->v.s.p, strnlen(v->v.s.p, v->v.s.len));
		return;
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		for (uint64_t k = 0; v->v.s.p && k < v->v.s.len; k++)
			tio_buf_addf(b, "%02x", (unsigned char)v->v.s.p[k]);
		return;
	case TIO_FC_INT: /* wider than 64 bits */
		tio_buf_adds(b, "0x");
		for (uint32_t k = 0; v->v.big && k < (fc->i.size + 7) / 8; k++) {
			uint32_t at = fc->i.byte_order == TIO_BE ? k : (fc->i.size + 7) / 8 - 1 - k;
			tio_buf_addf(b, "%02x", v->v.big[at]);
		}
		return;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		if (fc->a.text) {
			if (v->v.s.p) {
				tio_buf_add(b, v->v.s.p, strnlen(v->v.s.p, v->v.s.len));
				return;
			}
			uint32_t j = i + 1;
			for (uint32_t k = 0; k < v->n && j < v->end; k++) {
				if (!m->vals[j].v.u)
					break;
				tio_buf_addc(b, (char)m->vals[j].v.u);
				j = m->vals[j].end;
			}
			return;
		}
		/* fallthrough */
	default: {
		bool arr = fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE;
		bool st = fc->kind == TIO_FC_STRUCT;
		if (arr || st)
			tio_buf_addc(b, arr ? '[' : '{');
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < v->n && j < v->end; k++) {
			if (k)
				tio_buf_adds(b, ", ");
			if (st && k < fc->st.nmembers && fc->st.members[k].name) {
				tio_buf_adds(b, fc->st.members[k].name);
				tio_buf_adds(b, ": ");
			}
			render(b, m, j);
			j = m->vals[j].end;
		}
		if (arr || st)
			tio_buf_addc(b, arr ? ']' : '}');
		return;
	}
	}
}

/* The text of a string-like value (string, char array) or its rendering; into *p, *n. */
static void text_of(pwsink *w, const tio_msg *m, const tio_val *v, const char **p, size_t *n)
{
	const tio_fc *fc = v->fc;
	if ((fc->kind == TIO_FC_STRING || fc->kind == TIO_FC_SSTRING || fc->kind == TIO_FC_DSTRING) && v->v.s.p) {
		*p = v->v.s.p;
		*n = strnlen(v->v.s.p, v->v.s.len);
		return;
	}
	tio_buf_reset(&w->text);
	render(&w->text, m, (uint32_t)(v - m->vals));
	*p = w->text.p ? w->text.p : "";
	*n = w->text.len;
}

/*
 * A string field: protobuf strings are UTF-8 (protoc and Perfetto refuse
 * others), so a byte that is not part of valid UTF-8 becomes U+FFFD.
 */
static void put_text(pwsink *w, pb *b, uint32_t f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n && p[i] < 0x80 && p[i])
		i++;
	for (size_t k = i; i == k && k < n;) { /* the rest, when not ASCII */
		size_t skip, l = p[k] ? tio_utf8_seq(p + k, n - k, &skip) : 0;
		if (!l)
			break;
		k += l;
		i = k;
	}
	if (i == n) {
		pb_bytes(b, f, s, n);
		return;
	}
	tio_buf_reset(&w->utf);
	for (size_t k = 0; k < n;) {
		size_t skip, l = p[k] ? tio_utf8_seq(p + k, n - k, &skip) : 0;
		if (l) {
			tio_buf_add(&w->utf, p + k, l);
			k += l;
		} else {
			tio_buf_add(&w->utf, "\xef\xbf\xbd", 3);
			k++;
		}
	}
	pb_bytes(b, f, w->utf.p, w->utf.len);
}

/* An integer value (0 when it is not one). */
static int64_t int_of(const tio_val *v)
{
	bool sg;
	return is_int(v, &sg) ? v->v.i : 0;
}

/* ---------------------------------------------------------------- classes */

/* The source format of the trace a message comes from. */
static enum src src_of(const tio_msg *m)
{
	const tio_trace *t = m->stream ? m->stream->trace : NULL;
	if (!t || !t->fmt)
		return SRC_USER;
	if (!strcmp(t->fmt->name, "tracedat"))
		return SRC_FTRACE;
	if (!strncmp(t->fmt->name, "ltt", 3))
		return SRC_LTT;
	const tio_kv *d = t->tc ? tio_trace_class_env(t->tc, "domain") : NULL;
	if (d && d->sval && !strcmp(d->sval, "kernel"))
		return SRC_LTTNG;
	return SRC_USER;
}

/* Does the stream class of ec hold an event class named `name`? */
static bool sc_has(const tio_event_class *ec, const char *name)
{
	const tio_stream_class *sc = ec->sc;
	for (uint32_t i = 0; sc && i < sc->necs; i++)
		if (sc->ecs[i]->name && !strcmp(sc->ecs[i]->name, name))
			return true;
	return false;
}

/* Does `s` end with `suf`? */
static bool ends_with(const char *s, const char *suf)
{
	size_t l = strlen(s), n = strlen(suf);
	return l >= n && !strcmp(s + l - n, suf);
}

/* Decide how ec's events are written (typed, generic, track event) and resolve its fields. */
static pcls *cls_make(const tio_msg *m)
{
	const tio_event_class *ec = m->ec;
	pcls *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ec = ec;
	c->src = (uint8_t)src_of(m);
	const char *name = ec->name ? ec->name : "";
	if (c->src == SRC_USER) {
		c->kind = K_TRACK;
		c->nann = 0;
		const tio_fc *scopes[3] = {ec->sc ? ec->sc->ev_common_ctx : NULL, ec->spec_ctx, ec->payload};
		for (int s = 0; s < 3; s++) {
			c->ctx_n[s] = scopes[s] && scopes[s]->kind == TIO_FC_STRUCT ? scopes[s]->st.nmembers : 0;
			c->nann += c->ctx_n[s];
		}
		if (c->nann && !(c->ann = tio_calloc(c->nann, sizeof(uint64_t)))) {
			free(c);
			return NULL;
		}
		/* slices: X_entry with an X_exit beside it, and the reverse */
		size_t l = strlen(name);
		char buf[512];
		if (l < sizeof(buf) - 2 && ends_with(name, "_entry")) {
			memcpy(buf, name, l - 6);
			strcpy(buf + l - 6, "_exit");
			if (sc_has(ec, buf)) {
				c->slice = SL_BEGIN;
				c->func = ends_with(name, "func_entry") && strstr(name, "cyg_profile");
			}
		} else if (l < sizeof(buf) - 2 && ends_with(name, "_exit")) {
			memcpy(buf, name, l - 5);
			strcpy(buf + l - 5, "_entry");
			if (sc_has(ec, buf))
				c->slice = SL_END;
		}
		return c;
	}
	c->kind = K_GENERIC;
	c->cc_pid = c->cc_flags = -1;
	const tio_fc *cc = ec->sc ? ec->sc->ev_common_ctx : NULL;
	for (uint32_t k = 0; c->src == SRC_FTRACE && cc && cc->kind == TIO_FC_STRUCT && k < cc->st.nmembers; k++) {
		const char *nm = cc->st.members[k].name;
		const tio_fc *mf = cc->st.members[k].fc;
		if (mf->kind != TIO_FC_INT || mf->i.size > 64)
			continue;
		if (nm && !strcmp(nm, "common_pid"))
			c->cc_pid = (int32_t)k;
		else if (nm && !strcmp(nm, "common_flags"))
			c->cc_flags = (int32_t)k;
	}
	c->statedump = (c->src == SRC_LTTNG && !strcmp(name, "lttng_statedump_process_state")) ||
		       (c->src == SRC_LTT && !strcmp(name, "process_state"));
	const tio_fc *pl = ec->payload;
	if (!pl || pl->kind != TIO_FC_STRUCT || pl->st.nmembers > 1024)
		return c;
	for (size_t i = 0; i < TIO_ARRAY_LEN(typed); i++) {
		const tdesc *td = &typed[i];
		const char *want_ev = src_name(c->src, td->name, td->lname, td->tname);
		if (!want_ev || strcmp(name, want_ev))
			continue;
		int8_t *map = tio_calloc(pl->st.nmembers ? pl->st.nmembers : 1, 1);
		if (!map) {
			free(c);
			return NULL;
		}
		uint32_t found = 0;
		for (uint32_t k = 0; k < pl->st.nmembers; k++) {
			map[k] = -1;
			const char *mn = pl->st.members[k].name;
			for (int f = 0; mn && f < 8 && td->f[f].num; f++) {
				const char *want = src_name(c->src, td->f[f].name, td->f[f].lname, td->f[f].tname);
				if (want && !strcmp(mn, want)) {
					map[k] = (int8_t)f;
					if ((uint32_t)f < td->nreq)
						found++;
				}
			}
		}
		if (found < td->nreq) {
			free(map);
			break;
		}
		c->kind = K_TYPED;
		c->td = td;
		c->map = map;
		break;
	}
	return c;
}

/*
 * The encoded names of a generic event (event_name, each payload member's
 * Field.name), made at its class's first event so that an event copies them.
 */
static int gnames_make(pwsink *w, pcls *c)
{
	const tio_fc *pl = c->ec->payload;
	uint32_t n = pl && pl->kind == TIO_FC_STRUCT ? pl->st.nmembers : 0;
	if (!(c->goff = tio_calloc((size_t)n + 2, sizeof(uint32_t))))
		return TIO_ERR_NOMEM;
	const char *en = c->ec->name ? c->ec->name : "";
	put_text(w, &c->gname, 1, en, strlen(en));
	for (uint32_t k = 0; k < n; k++) {
		c->goff[k] = (uint32_t)c->gname.len;
		const char *nm = pl->st.members[k].name ? pl->st.members[k].name : "";
		put_text(w, &c->gname, 1, nm, strlen(nm));
	}
	c->goff[n] = (uint32_t)c->gname.len;
	return c->gname.err;
}

static void idmap_make(pcls *c);

/* The event-class scopes a kernel event's generic form carries: trace.dat's payload, else contexts + payload. */
static int gen_scopes(const pcls *c, const tio_fc **fc, int *which)
{
	int n = 0;
	if (c->src != SRC_FTRACE) { /* trace.dat's common fields are FtraceEvent's pid and common_flags */
		fc[n] = c->ec->sc ? c->ec->sc->ev_common_ctx : NULL;
		which[n++] = TIO_SCOPE_EV_COMMON_CTX;
		fc[n] = c->ec->spec_ctx;
		which[n++] = TIO_SCOPE_EV_SPEC_CTX;
	}
	fc[n] = c->ec->payload;
	which[n++] = TIO_SCOPE_PAYLOAD;
	return n;
}

/* Is s a protobuf identifier ([A-Za-z_][A-Za-z0-9_]*)? */
static bool is_ident(const char *s)
{
	if (!s || !(*s == '_' || ((*s | 32) >= 'a' && (*s | 32) <= 'z')))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || ((*s | 32) >= 'a' && (*s | 32) <= 'z')))
			return false;
	return true;
}

/*
 * Perfetto's dense generic encoding (its v50 option
 * denser_generic_event_encoding; docs/formats/perfetto.md): a generic
 * kernel event class becomes a message described once by a
 * google.protobuf.DescriptorProto (FtraceEventBundle.generic_event_descriptors)
 * and written as FtraceEvent field `field_id` (65536 on, the range
 * FtraceEvent reserves), its fields numbered 1.. without names.  Possible
 * when the class's members are at most 31 (trace_processor refuses more),
 * uniquely named identifiers, none a structure, variant or optional;
 * otherwise the class stays a GenericFtraceEvent.
 */
static void dense_make(pwsink *w, pcls *c)
{
	const tio_fc *fc[3];
	int which[3], ns = gen_scopes(c, fc, which);
	uint32_t n = 0;
	for (int s = 0; s < ns; s++) {
		if (!fc[s])
			continue;
		if (fc[s]->kind != TIO_FC_STRUCT)
			return;
		n += fc[s]->st.nmembers;
	}
	if (!w->next_field_id)
		w->next_field_id = 65536;
	if (n > 31 || w->next_field_id > 131072 || !c->ec->name)
		return;
	const char *names[31];
	uint8_t types[31];
	uint32_t k = 0;
	for (int s = 0; s < ns; s++) {
		for (uint32_t i = 0; fc[s] && i < fc[s]->st.nmembers; i++, k++) {
			const tio_fc *mf = fc[s]->st.members[i].fc;
			names[k] = fc[s]->st.members[i].name;
			if (!is_ident(names[k]))
				return;
			for (uint32_t j = 0; j < k; j++)
				if (!strcmp(names[j], names[k]))
					return;
			switch (mf->kind) {
			case TIO_FC_INT:
			case TIO_FC_ENUM:
			case TIO_FC_BOOL:
			case TIO_FC_BITMAP:
				types[k] = mf->i.size > 64 ? D_STRING : mf->i.is_signed ? D_INT64 : D_UINT64;
				break;
			case TIO_FC_VARINT:
				types[k] = mf->vi.is_signed ? D_INT64 : D_UINT64;
				break;
			case TIO_FC_STRUCT:
			case TIO_FC_VARIANT:
			case TIO_FC_OPTIONAL:
				return;
			default: /* strings, BLOBs, arrays, floats: as text, like GenericFtraceEvent's str_value */
				types[k] = D_STRING;
			}
		}
	}
	if (!(c->ftype = tio_malloc(n ? n : 1)))
		return;
	memcpy(c->ftype, types, n);
	c->nf = n;
	c->nsc = ns;
	memcpy(c->sc_fc, fc, sizeof(fc));
	memcpy(c->sc_which, which, sizeof(which));
	c->field_id = w->next_field_id++;
	c->kind = K_DENSE;
	pb *d = &c->desc;
	pb_begin(d, 11); /* FtraceEventBundle.GenericEventDescriptor */
	pb_uint(d, 1, c->field_id);
	pb_begin(d, 2); /* event_descriptor: a DescriptorProto */
	put_text(w, d, 1, c->ec->name, strlen(c->ec->name));
	for (k = 0; k < n; k++) {
		pb_begin(d, 2); /* FieldDescriptorProto */
		pb_str(d, 1, names[k]);
		pb_uint(d, 3, k + 1);
		pb_uint(d, 4, 1);						       /* LABEL_OPTIONAL */
		pb_uint(d, 5, types[k] == D_INT64 ? 3 : types[k] == D_UINT64 ? 4 : 9); /* TYPE_INT64, UINT64, STRING */
		pb_end(d);
	}
	pb_end(d);
	pb_end(d);
}

/* The writer's record of m's event class, made at its first event; NULL on error. */
static pcls *cls_get(pwsink *w, const tio_msg *m)
{
	size_t mask = w->capcls - 1;
	size_t h = ((uintptr_t)m->ec >> 4) * 0x9E3779B97F4A7C15ULL;
	if (w->capcls) {
		for (size_t i = h & mask;; i = (i + 1) & mask) {
			if (!w->cls[i])
				break;
			if (w->cls[i]->ec == m->ec)
				return w->cls[i];
		}
	}
	if ((w->ncls + 1) * 2 > w->capcls) {
		size_t nc = w->capcls ? w->capcls * 2 : 256;
		pcls **nt = tio_calloc(nc, sizeof(*nt));
		if (!nt)
			return NULL;
		for (size_t i = 0; i < w->capcls; i++) {
			if (!w->cls[i])
				continue;
			size_t hh = ((uintptr_t)w->cls[i]->ec >> 4) * 0x9E3779B97F4A7C15ULL;
			size_t j = hh & (nc - 1);
			while (nt[j])
				j = (j + 1) & (nc - 1);
			nt[j] = w->cls[i];
		}
		free(w->cls);
		w->cls = nt;
		w->capcls = nc;
		mask = nc - 1;
	}
	pcls *c = cls_make(m);
	if (!c)
		return NULL;
	idmap_make(c);
	if (c->kind == K_GENERIC)
		dense_make(w, c);
	if (c->desc.err || ((c->kind == K_GENERIC || c->kind == K_DENSE) && gnames_make(w, c))) {
		pb_free(&c->desc);
		free(c->ftype);
		pb_free(&c->gname);
		free(c->goff);
		free(c->map);
		free(c);
		return NULL;
	}
	size_t i = h & mask;
	while (w->cls[i])
		i = (i + 1) & mask;
	w->cls[i] = c;
	w->ncls++;
	return c;
}

/* The thread table's entry for key (k1 != 0, k2), created empty; NULL on error. */
static pthr *thr_get(pwsink *w, uint64_t k1, uint64_t k2)
{
	if ((w->nthr + 1) * 2 > w->capthr) {
		size_t nc = w->capthr ? w->capthr * 2 : 1024;
		pthr *nt = tio_calloc(nc, sizeof(*nt));
		if (!nt)
			return NULL;
		for (size_t i = 0; i < w->capthr; i++) {
			pthr *e = &w->thr[i];
			if (!e->k1)
				continue;
			size_t j = ((e->k1 * 0x9E3779B97F4A7C15ULL) ^ (e->k2 * 0xC2B2AE3D27D4EB4FULL)) & (nc - 1);
			while (nt[j].k1)
				j = (j + 1) & (nc - 1);
			nt[j] = *e;
		}
		free(w->thr);
		w->thr = nt;
		w->capthr = nc;
	}
	size_t mask = w->capthr - 1;
	for (size_t i = ((k1 * 0x9E3779B97F4A7C15ULL) ^ (k2 * 0xC2B2AE3D27D4EB4FULL)) & mask;; i = (i + 1) & mask) {
		pthr *e = &w->thr[i];
		if (!e->k1) {
			e->k1 = k1;
			e->k2 = k2;
			w->nthr++;
			return e;
		}
		if (e->k1 == k1 && e->k2 == k2)
			return e;
	}
}

/* ---------------------------------------------------------------- packets */

/* The ClockSnapshot before the first event: the trace's clock is Perfetto's BOOTTIME. */
static int clock_snapshot(pwsink *w, const tio_msg *m)
{
	w->clock_done = true;
	pkt_begin(w, SEQ_META, true, (int64_t)ts_of(m));
	pb_begin(&w->o, TP_CLOCK_SNAPSHOT);
	pb_begin(&w->o, 1);
	pb_uint(&w->o, 1, 6); /* BUILTIN_CLOCK_BOOTTIME: the default trace clock */
	pb_uint(&w->o, 2, ts_of(m));
	pb_end(&w->o);
	/* a clock whose origin is the Unix epoch (CTF: LTTng's clocks are) gives REALTIME too */
	const tio_stream_class *sc = m->stream ? m->stream->sc : NULL;
	const tio_trace_class *tc = sc ? sc->tc : NULL;
	const tio_clock *ck = tc && sc->clock >= 0 && (uint32_t)sc->clock < tc->nclocks ? tc->clocks[sc->clock] : NULL;
	bool unix_origin = ck && (ck->origin_unix || (m->stream->trace && m->stream->trace->fmt &&
						      !strcmp(m->stream->trace->fmt->name, "ctf")));
	if (unix_origin && ts_of(m) > 0) {
		pb_begin(&w->o, 1);
		pb_uint(&w->o, 1, 1); /* BUILTIN_CLOCK_REALTIME */
		pb_uint(&w->o, 2, ts_of(m));
		pb_end(&w->o);
	}
	pb_uint(&w->o, 2, 6); /* primary_trace_clock */
	pb_end(&w->o);
	return pkt_end(w);
}

/*
 * SystemInfo.utsname from the trace's environment (trace.dat v7's "uname":
 * sysname nodename release machine; LTTng's sysname, kernel_release,
 * kernel_version): Perfetto reads sched_switch's prev_state by kernel
 * version (TaskState::FromRawPrevState).  Nothing when the trace says none.
 */
static int system_info(pwsink *w, const tio_msg *m)
{
	const tio_trace *t = m->stream ? m->stream->trace : NULL;
	const tio_trace_class *tc = t ? t->tc : NULL;
	if (!tc)
		return 0;
	const tio_kv *un = tio_trace_class_env(tc, "uname");
	const tio_kv *sys = tio_trace_class_env(tc, "sysname");
	const tio_kv *rel = tio_trace_class_env(tc, "kernel_release");
	const tio_kv *ver = tio_trace_class_env(tc, "kernel_version");
	const char *f[4] = {NULL, NULL, NULL, NULL}; /* sysname, version, release, machine */
	size_t l[4] = {0, 0, 0, 0};
	if (un && un->sval) { /* "Linux host 6.1.0-13-amd64 x86_64" */
		const char *p = un->sval, *w4[4];
		size_t n4[4], k = 0;
		while (*p && k < 4) {
			while (*p == ' ')
				p++;
			const char *e = p;
			while (*e && *e != ' ')
				e++;
			if (e == p)
				break;
			w4[k] = p;
			n4[k++] = (size_t)(e - p);
			p = e;
		}
		if (k == 4) {
			f[0] = w4[0], l[0] = n4[0];
			f[2] = w4[2], l[2] = n4[2];
			f[3] = w4[3], l[3] = n4[3];
		}
	} else if (sys && sys->sval && rel && rel->sval) {
		f[0] = sys->sval, l[0] = strlen(sys->sval);
		f[2] = rel->sval, l[2] = strlen(rel->sval);
		if (ver && ver->sval)
			f[1] = ver->sval, l[1] = strlen(ver->sval);
	}
	if (!f[0])
		return 0;
	pkt_begin(w, SEQ_META, false, 0);
	pb_begin(&w->o, TP_SYSTEM_INFO);
	pb_begin(&w->o, 1);
	for (int k = 0; k < 4; k++)
		if (f[k])
			put_text(w, &w->o, (uint32_t)k + 1, f[k], l[k]);
	pb_end(&w->o);
	pb_end(&w->o);
	return pkt_end(w);
}

/* A ProcessTree packet naming thread tid of process pid (and the process when tid == pid). */
static int process_tree(pwsink *w, int64_t ns, int64_t tid, int64_t pid, int64_t ppid, const char *name,
			size_t nl)
{
	pkt_begin(w, SEQ_META, true, ns);
	pb_begin(&w->o, TP_PROCESS_TREE);
	if (tid == pid) {
		pb_begin(&w->o, 1);
		pb_int(&w->o, 1, pid);
		if (ppid >= 0)
			pb_int(&w->o, 2, ppid);
		if (name && nl) {
			put_text(w, &w->o, 3, name, nl);
			pb_uint(&w->o, 9, 1); /* cmdline_is_comm */
		}
		pb_end(&w->o);
	}
	pb_begin(&w->o, 2);
	pb_int(&w->o, 1, tid);
	if (name && nl)
		put_text(w, &w->o, 2, name, nl);
	pb_int(&w->o, 3, pid);
	pb_end(&w->o);
	pb_end(&w->o);
	return pkt_end(w);
}

/* Thread identity from an event's contexts (LTTng's pid/tid/vpid/vtid/procname). */
typedef struct ident {
	int64_t pid, tid;
	const tio_val *procname;
} ident;

/*
 * Where the thread contexts are: for the common and the specific context,
 * the member index of the thread id (vtid, else tid), process id (vpid,
 * else pid) and procname, -1 when absent.  Made once per class.
 */
static void idmap_make(pcls *c)
{
	const tio_fc *sc[2] = {c->ec->sc ? c->ec->sc->ev_common_ctx : NULL, c->ec->spec_ctx};
	for (int s = 0; s < 2; s++) {
		int32_t *k3 = c->idm[s];
		k3[0] = k3[1] = k3[2] = -1;
		bool vt = false, vp = false;
		for (uint32_t k = 0; sc[s] && sc[s]->kind == TIO_FC_STRUCT && k < sc[s]->st.nmembers && k < INT32_MAX; k++) {
			const char *nm = sc[s]->st.members[k].name;
			const tio_fc *fc = sc[s]->st.members[k].fc;
			if (!nm)
				continue;
			if (*nm == '_')
				nm++;
			bool num = fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM || fc->kind == TIO_FC_VARINT;
			if (!strcmp(nm, "procname"))
				k3[2] = (int32_t)k;
			else if (num && !strcmp(nm, "vtid"))
				k3[0] = (int32_t)k, vt = true;
			else if (num && !strcmp(nm, "tid") && !vt)
				k3[0] = (int32_t)k;
			else if (num && !strcmp(nm, "vpid"))
				k3[1] = (int32_t)k, vp = true;
			else if (num && !strcmp(nm, "pid") && !vp)
				k3[1] = (int32_t)k;
		}
	}
}

/* The pid/tid/procname contexts of m (the specific context's win), by the class's idmap. */
static void ident_of(const tio_msg *m, const pcls *c, ident *id)
{
	id->pid = id->tid = -1;
	id->procname = NULL;
	const tio_val *scopes[2] = {m->scope[TIO_SCOPE_EV_COMMON_CTX], m->scope[TIO_SCOPE_EV_SPEC_CTX]};
	for (int s = 0; s < 2; s++) {
		const int32_t *k3 = c->idm[s];
		const tio_val *v = scopes[s];
		int32_t last = k3[0] > k3[1] ? k3[0] : k3[1];
		if (k3[2] > last)
			last = k3[2];
		if (!v || last < 0 || v->fc->kind != TIO_FC_STRUCT)
			continue;
		uint32_t j = (uint32_t)(v - m->vals) + 1;
		for (int32_t k = 0; k <= last && (uint32_t)k < v->n && j < v->end; k++) {
			const tio_val *x = &m->vals[j];
			j = x->end;
			bool sg;
			if (k == k3[0] && is_int(x, &sg))
				id->tid = x->v.i;
			else if (k == k3[1] && is_int(x, &sg))
				id->pid = x->v.i;
			else if (k == k3[2])
				id->procname = x;
		}
	}
}

/* ---------------------------------------------------------------- kernel events */

/* One FtraceEvent of a typed message: the mapped fields of the payload. */
static void put_typed(pwsink *w, pb *b, const tio_msg *m, const pcls *c, int64_t *next_tid)
{
	const tdesc *td = c->td;
	const tio_val *v = m->scope[TIO_SCOPE_PAYLOAD];
	pb_begin(b, td->num);
	if (!v || v->fc->kind != TIO_FC_STRUCT) {
		pb_end(b);
		return;
	}
	uint32_t j = (uint32_t)(v - m->vals) + 1;
	for (uint32_t k = 0; k < v->n && j < v->end; k++) {
		const tio_val *x = &m->vals[j];
		j = x->end;
		if (k >= v->fc->st.nmembers || c->map[k] < 0)
			continue;
		const tfield *f = &td->f[c->map[k]];
		if (f->type == F_STR) {
			const char *p;
			size_t n;
			text_of(w, m, x, &p, &n);
			put_text(w, b, f->num, p, n);
			continue;
		}
		int64_t iv = int_of(x);
		if (f->prio && c->src == SRC_LTTNG)
			iv += 100;
		if (f->type == F_UINT)
			pb_uint(b, f->num, (uint64_t)iv);
		else
			pb_int(b, f->num, f->type == F_INT ? (int64_t)(int32_t)iv : iv);
		if (td->num == 4 && f->num == 6)
			*next_tid = iv;
	}
	pb_end(b);
}

/* Add the members of struct v to a GenericFtraceEvent (`prefix` for nested structs). */
static void put_generic_fields(pwsink *w, pb *b, const tio_msg *m, const tio_val *v, const char *prefix, int depth)
{
	if (!v || v->fc->kind != TIO_FC_STRUCT)
		return;
	uint32_t j = (uint32_t)(v - m->vals) + 1;
	for (uint32_t k = 0; k < v->n && j < v->end; k++) {
		const tio_val *x = &m->vals[j];
		j = x->end;
		const char *nm = k < v->fc->st.nmembers && v->fc->st.members[k].name ? v->fc->st.members[k].name : "";
		char full[256];
		if (prefix)
			snprintf(full, sizeof(full), "%s.%s", prefix, nm);
		if (x->fc->kind == TIO_FC_STRUCT && x->n && depth < 4) {
			put_generic_fields(w, b, m, x, prefix ? full : nm, depth + 1);
			continue;
		}
		pb_begin(b, 2);
		{
			const char *fn = prefix ? full : nm;
			put_text(w, b, 1, fn, strlen(fn));
		}
		bool sg;
		if (is_int(x, &sg)) {
			if (sg)
				pb_int(b, 4, x->v.i);
			else
				pb_uint(b, 5, x->v.u);
		} else {
			const char *p;
			size_t n;
			text_of(w, m, x, &p, &n);
			put_text(w, b, 3, p, n);
		}
		pb_end(b);
	}
}

/*
 * The payload members of a generic event as GenericFtraceEvent.Field
 * messages, their names copied from the class (gnames_make) and their
 * lengths computed up front: no message is moved.  Nested structures go
 * through put_generic_fields.
 */
static void put_generic_payload(pwsink *w, pb *b, const tio_msg *m, const pcls *c)
{
	const tio_val *v = m->scope[TIO_SCOPE_PAYLOAD];
	if (!v || v->fc->kind != TIO_FC_STRUCT || v->fc != c->ec->payload) {
		put_generic_fields(w, b, m, v, NULL, 0);
		return;
	}
	uint32_t j = (uint32_t)(v - m->vals) + 1;
	for (uint32_t k = 0; k < v->n && j < v->end && k < v->fc->st.nmembers; k++) {
		const tio_val *x = &m->vals[j];
		j = x->end;
		const uint8_t *nb = c->gname.p + c->goff[k];
		size_t nl = c->goff[k + 1] - c->goff[k];
		bool sg;
		if (is_int(x, &sg)) {
			uint64_t u = x->v.u;
			size_t len = nl + 1 + pb_varint_size(u);
			if (pb_room(b, len + 6))
				return;
			b->p[b->len++] = 2 << 3 | 2;
			b->len += pb_varint_at(b->p + b->len, len);
			memcpy(b->p + b->len, nb, nl);
			b->len += nl;
			b->p[b->len++] = (uint8_t)((sg ? 4 : 5) << 3);
			b->len += pb_varint_at(b->p + b->len, u);
			continue;
		}
		if (x->fc->kind == TIO_FC_STRUCT && x->n) {
			/* a nested structure: its members named "member.sub" (an empty one: "{}") */
			const char *nm = v->fc->st.members[k].name ? v->fc->st.members[k].name : "";
			put_generic_fields(w, b, m, x, nm, 1);
			continue;
		}
		pb_begin(b, 2);
		if (pb_room(b, nl))
			return;
		memcpy(b->p + b->len, nb, nl);
		b->len += nl;
		const char *p;
		size_t n;
		text_of(w, m, x, &p, &n);
		put_text(w, b, 3, p, n);
		pb_end(b);
	}
}

/* The bytes of field number f's tag with wire type 2. */
static unsigned tag_size(uint32_t f) { return pb_varint_size((uint64_t)f << 3 | 2); }

/*
 * A K_DENSE event: FtraceEvent {timestamp, pid, common_flags, field_id
 * {1: first member, 2: ...}}.  When every member is an integer (syscall
 * events...) the lengths are computed first and nothing is moved; with a
 * string the messages are closed by pb_end.  Returns false when the event's
 * scopes are not its class's (then written as a GenericFtraceEvent).
 */
static bool put_dense(pwsink *w, pb *b, const tio_msg *m, const pcls *c, uint64_t ts, int64_t pid, int64_t flags)
{
	const tio_fc *const *fc = c->sc_fc;
	const int *which = c->sc_which, ns = c->nsc;
	const tio_val *sv[3];
	uint8_t tmp[31 * 11], *t = tmp; /* the submessage's fields, when all are integers */
	bool all_int = true;
	for (int s = 0; s < ns; s++) {
		sv[s] = fc[s] ? m->scope[which[s]] : NULL;
		if (fc[s] && (!sv[s] || sv[s]->fc != fc[s]))
			return false;
	}
	for (int s = 0, k = 0; s < ns && all_int; s++) {
		const tio_val *v = sv[s];
		if (!v)
			continue;
		uint32_t j = (uint32_t)(v - m->vals) + 1;
		if (v->end - j == v->n) { /* members all scalars, one value each: indexed, no chain of loads */
			const tio_val *x = &m->vals[j];
			for (uint32_t i = 0; i < v->n && k < 31; i++, k++) {
				if (c->ftype[k] == D_STRING) {
					all_int = false;
					break;
				}
				*t++ = (uint8_t)((k + 1) << 3);
				t += pb_varint_at(t, x[i].v.u);
			}
			continue;
		}
		for (uint32_t i = 0; i < v->n && j < v->end && k < 31; i++, k++) {
			const tio_val *x = &m->vals[j];
			j = x->end;
			if (c->ftype[k] == D_STRING) {
				all_int = false;
				break;
			}
			*t++ = (uint8_t)((k + 1) << 3);
			t += pb_varint_at(t, x->v.u);
		}
	}
	if (all_int) {
		size_t body = (size_t)(t - tmp);
		size_t sub = tag_size(c->field_id) + pb_varint_size(body) + body;
		size_t ev = 1 + pb_varint_size(ts) + sub;
		if (pid >= 0)
			ev += 1 + pb_varint_size((uint64_t)pid);
		if (flags > 0)
			ev += 1 + pb_varint_size((uint64_t)flags);
		if (pb_room(b, ev + 6))
			return true;
		uint8_t *q = b->p + b->len, *q0 = q;
		*q++ = 2 << 3 | 2; /* FtraceEventBundle.event */
		q += pb_varint_at(q, ev);
		*q++ = 1 << 3;
		q += pb_varint_at(q, ts);
		if (pid >= 0) {
			*q++ = 2 << 3;
			q += pb_varint_at(q, (uint64_t)pid);
		}
		if (flags > 0) {
			*q++ = 5 << 3;
			q += pb_varint_at(q, (uint64_t)flags);
		}
		q += pb_varint_at(q, (uint64_t)c->field_id << 3 | 2);
		q += pb_varint_at(q, body);
		memcpy(q, tmp, body);
		q += body;
		b->len += (size_t)(q - q0);
		return true;
	}
	pb_begin(b, 2);
	pb_uint(b, 1, ts);
	if (pid >= 0)
		pb_uint(b, 2, (uint64_t)pid);
	if (flags > 0)
		pb_uint(b, 5, (uint64_t)flags);
	pb_begin(b, c->field_id);
	for (int s = 0, k = 0; s < ns; s++) {
		const tio_val *v = sv[s];
		if (!v)
			continue;
		uint32_t j = (uint32_t)(v - m->vals) + 1;
		for (uint32_t i = 0; i < v->n && j < v->end; i++, k++) {
			const tio_val *x = &m->vals[j];
			j = x->end;
			if (c->ftype[k] != D_STRING) {
				pb_uint(b, (uint32_t)k + 1, x->v.u);
				continue;
			}
			const char *p;
			size_t n;
			text_of(w, m, x, &p, &n);
			put_text(w, b, (uint32_t)k + 1, p, n);
		}
	}
	pb_end(b);
	pb_end(b);
	return true;
}

/* Intern string s (n bytes) in CPU pc's compact_sched table; its index, or -1 when the table is full. */
static int intern_comm(pwsink *w, pcpu *pc, const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	uint32_t mask = CS_INTERN_MAX * 2 - 1, i = h & mask;
	for (; pc->k->str_hash[i]; i = (i + 1) & mask) {
		uint32_t x = pc->k->str_hash[i] - 1u;
		if (pc->k->str_len[x] == n && !memcmp(pc->k->intern.p + pc->k->str_off[x], s, n))
			return (int)x;
	}
	if (pc->k->nstr >= CS_INTERN_MAX)
		return -1;
	size_t at = pc->k->intern.len;
	put_text(w, &pc->k->intern, 5, s, n);
	if (pc->k->intern.err)
		return -1;
	pc->k->cs_bytes += pc->k->intern.len - at;
	uint64_t l = 0; /* the string as written (U+FFFD for bytes that were not UTF-8) */
	unsigned sh = 0;
	size_t q = at + 1;
	while (pc->k->intern.p[q] & 0x80)
		l |= (uint64_t)(pc->k->intern.p[q++] & 0x7f) << sh, sh += 7;
	l |= (uint64_t)pc->k->intern.p[q++] << sh;
	pc->k->str_off[pc->k->nstr] = (uint32_t)q;
	pc->k->str_len[pc->k->nstr] = (uint32_t)l;
	pc->k->str_hash[i] = (uint16_t)(pc->k->nstr + 1);
	return (int)pc->k->nstr++;
}

/* The value of a typed message's fields, by index in its tdesc (what put_typed writes). */
typedef struct tvals {
	bool have[8];
	int64_t iv[8];
	char sv[8][64];
	uint8_t sn[8]; /* string length; 255: longer than sv holds */
} tvals;

/* Read the mapped payload fields of a typed event into tv (prios + 100 for LTTng, as put_typed). */
static void typed_vals(pwsink *w, const tio_msg *m, const pcls *c, tvals *tv)
{
	memset(tv->have, 0, sizeof(tv->have));
	memset(tv->sn, 0, sizeof(tv->sn));
	const tio_val *v = m->scope[TIO_SCOPE_PAYLOAD];
	if (!v || v->fc->kind != TIO_FC_STRUCT)
		return;
	uint32_t j = (uint32_t)(v - m->vals) + 1;
	for (uint32_t k = 0; k < v->n && j < v->end; k++) {
		const tio_val *x = &m->vals[j];
		j = x->end;
		if (k >= v->fc->st.nmembers || c->map[k] < 0)
			continue;
		int f = c->map[k];
		const tfield *tf = &c->td->f[f];
		tv->have[f] = true;
		if (tf->type == F_STR) {
			const char *p;
			size_t n;
			text_of(w, m, x, &p, &n);
			tv->sn[f] = n < sizeof(tv->sv[f]) ? (uint8_t)n : 255;
			if (n < sizeof(tv->sv[f]))
				memcpy(tv->sv[f], p, n);
			continue;
		}
		int64_t iv = int_of(x);
		if (tf->prio && c->src == SRC_LTTNG)
			iv += 100;
		tv->iv[f] = tf->type == F_INT ? (int64_t)(int32_t)iv : iv;
	}
}

/* Append a value to CPU pc's compact_sched array k (a packed varint). */
static inline void cs_put(pcpu *pc, int k, uint64_t v)
{
	size_t n = pc->k->cs[k].len;
	pb_varint(&pc->k->cs[k], v);
	pc->k->cs_bytes += pc->k->cs[k].len - n;
}

/*
 * sched_switch and sched_waking in FtraceEventBundle.compact_sched, Perfetto's
 * recorder's default form (docs/formats/perfetto.md, "compact_sched"), when
 * Perfetto would read back the same event: a switch whose prev_pid, prev_comm
 * and prev_prio are those of the CPU's previous switch's next_*, and whose
 * thread is prev_pid; a waking (without `success`) whose thread is the one
 * the CPU's previous switch ran; in both cases later than the CPU's previous
 * switch and waking, so that Perfetto's sort by time keeps the order.
 * Returns 1 when written so, 0 when it must be a full message; either way
 * the CPU's last-switch state is updated.
 */
static int sched_compact(pwsink *w, pcpu *pc, const tio_msg *m, const pcls *c, uint64_t ts, int64_t pid, int64_t flags)
{
	tvals tv;
	typed_vals(w, m, c, &tv);
	bool sw = c->td->num == 4;
	bool ok = ts > pc->sched_last_ts || !pc->sched_last_ts;
	if (sw) {
		/* f: 0 prev_pid, 1 next_pid, 2 prev_comm, 3 prev_prio, 4 prev_state, 5 next_comm, 6 next_prio */
		for (int f = 0; f < 7; f++)
			ok = ok && tv.have[f];
		ok = ok && pc->sw_known && tv.iv[0] == pc->sw_next_pid && tv.iv[3] == pc->sw_next_prio && pid == tv.iv[0] &&
		     tv.sn[2] == pc->sw_next_comm_len && !memcmp(tv.sv[2], pc->sw_next_comm, tv.sn[2] & 63) &&
		     tv.sn[5] != 255 && ts > pc->sw_last_ts;
		int ci = ok ? intern_comm(w, pc, tv.sv[5], tv.sn[5]) : -1;
		if (ci >= 0) {
			cs_put(pc, CS_SW_TS, ts - pc->k->sw_ts);
			cs_put(pc, CS_SW_STATE, (uint64_t)tv.iv[4]);
			cs_put(pc, CS_SW_PID, (uint64_t)(int64_t)(int32_t)tv.iv[1]);
			cs_put(pc, CS_SW_PRIO, (uint64_t)tv.iv[6]);
			cs_put(pc, CS_SW_COMM, (uint64_t)ci);
			pc->k->sw_ts = ts;
		}
		pc->sw_known = tv.have[1] && tv.have[5] && tv.have[6] && tv.sn[5] != 255;
		pc->sw_next_pid = tv.iv[1];
		pc->sw_next_prio = (int32_t)tv.iv[6];
		pc->sw_next_comm_len = tv.sn[5];
		memcpy(pc->sw_next_comm, tv.sv[5], tv.sn[5] & 63);
		pc->sw_last_ts = ts;
		pc->sched_last_ts = ts;
		if (tv.have[1])
			pc->cur_tid = tv.iv[1];
		return ci >= 0;
	}
	/* waking, f: 0 pid, 1 comm, 2 prio, 3 success, 4 target_cpu */
	ok = tv.have[0] && tv.have[1] && tv.have[2] && !tv.have[3] && tv.have[4] && tv.sn[1] != 255 && pc->sw_known &&
	     pid == pc->sw_next_pid && ts > pc->sw_last_ts && ts >= pc->k->wk_ts;
	int ci = ok ? intern_comm(w, pc, tv.sv[1], tv.sn[1]) : -1;
	if (ts > pc->sched_last_ts)
		pc->sched_last_ts = ts;
	if (ci < 0)
		return 0;
	cs_put(pc, CS_WK_TS, ts - pc->k->wk_ts);
	cs_put(pc, CS_WK_PID, (uint64_t)tv.iv[0]);
	cs_put(pc, CS_WK_CPU, (uint64_t)tv.iv[4]);
	cs_put(pc, CS_WK_PRIO, (uint64_t)tv.iv[2]);
	cs_put(pc, CS_WK_COMM, (uint64_t)ci);
	cs_put(pc, CS_WK_FLAGS, flags > 0 ? (uint64_t)flags : 0);
	pc->k->wk_ts = ts;
	return 1;
}

/* The bytes of CPU pc's open bundle, compact_sched included. */
static size_t bundle_size(const pcpu *pc) { return pc->b.len + (pc->k ? pc->k->cs_bytes : 0); }

/* A kernel event into its CPU's bundle. */
static int kernel_event(pwsink *w, const tio_msg *m, pcls *c)
{
	uint64_t cpu = 0;
	if (m->stream && m->stream->id_is_cpu) /* trace.dat, LTT: the stream is the CPU's */
		cpu = m->stream->id;
	else if (!tio_msg_cpu(m, &cpu))
		cpu = m->stream ? m->stream->id : 0;
	pcpu *pc = cpu < w->ncpus ? &w->cpus[cpu] : cpu_get(w, cpu);
	if (!pc)
		return TIO_ERR_LIMIT;
	pb *b = &pc->b;
	if (!b->len)
		pb_uint(b, 1, cpu); /* FtraceEventBundle.cpu */
	/* the thread it ran in: trace.dat's common_pid, LTTng's tid context, else the CPU's current thread */
	int64_t pid = -1, flags = -1;
	ident id = {-1, -1, NULL};
	if (c->src == SRC_FTRACE) {
		const tio_val *cc = m->scope[TIO_SCOPE_EV_COMMON_CTX];
		if (cc && cc->fc->kind == TIO_FC_STRUCT && (c->cc_pid >= 0 || c->cc_flags >= 0)) {
			uint32_t j = (uint32_t)(cc - m->vals) + 1;
			int32_t last = c->cc_pid > c->cc_flags ? c->cc_pid : c->cc_flags;
			if (cc->end - j == cc->n && (int32_t)cc->n > last) { /* members all scalars: one value each */
				if (c->cc_pid >= 0)
					pid = m->vals[j + (uint32_t)c->cc_pid].v.i;
				if (c->cc_flags >= 0)
					flags = m->vals[j + (uint32_t)c->cc_flags].v.i;
				j = cc->end;
			}
			for (int32_t k = 0; k <= last && k < (int32_t)cc->n && j < cc->end; k++) {
				if (k == c->cc_pid) /* ftrace's common fields are integers */
					pid = m->vals[j].v.i;
				else if (k == c->cc_flags)
					flags = m->vals[j].v.i;
				j = m->vals[j].end;
			}
		}
	} else {
		ident_of(m, c, &id);
		pid = id.tid >= 0 ? id.tid : pc->cur_tid;
		if (id.tid >= 0 && id.pid >= 0) {
			pthr *t = thr_get(w, 2 | (uint64_t)id.pid << 2, (uint64_t)id.tid);
			if (!t)
				return TIO_ERR_NOMEM;
			if (!t->in_tree) {
				t->in_tree = true;
				const char *p = NULL;
				size_t n = 0;
				if (id.procname)
					text_of(w, m, id.procname, &p, &n);
				int r = process_tree(w, (int64_t)ts_of(m), id.tid, id.pid, -1, p, n);
				if (r)
					return r;
			}
		}
	}
	uint64_t ts = ts_of(m);
	if (c->kind == K_TYPED && (c->td->num == 4 || c->td->num == 20)) {
		if (!pc->k && !(pc->k = tio_calloc(1, sizeof(*pc->k))))
			return TIO_ERR_NOMEM;
		if (pc->k->nstr >= CS_INTERN_MAX - 2) { /* room for two more comms in this bundle's table */
			int r = bundle_flush(w, cpu);
			if (r)
				return r;
			pb_uint(b, 1, cpu);
		}
		if (sched_compact(w, pc, m, c, ts, pid, flags))
			goto done;
	}
	if (c->kind == K_DENSE) {
		if (!c->desc_written) { /* described once, in the bundle of its first event */
			c->desc_written = true;
			if (!pb_room(b, c->desc.len)) {
				memcpy(b->p + b->len, c->desc.p, c->desc.len);
				b->len += c->desc.len;
			}
		}
		if (put_dense(w, b, m, c, ts, pid, flags))
			goto done;
	}
	pb_begin(b, 2); /* FtraceEvent */
	pb_uint(b, 1, ts);
	if (pid >= 0)
		pb_uint(b, 2, (uint64_t)pid);
	if (flags > 0)
		pb_uint(b, 5, (uint64_t)flags);
	int64_t next_tid = -1;
	if (c->kind == K_TYPED) {
		put_typed(w, b, m, c, &next_tid);
	} else {
		pb_begin(b, 327); /* GenericFtraceEvent */
		if (!pb_room(b, c->goff[0])) { /* event_name */
			memcpy(b->p + b->len, c->gname.p, c->goff[0]);
			b->len += c->goff[0];
		}
		if (c->src != SRC_FTRACE) { /* trace.dat's common fields are pid and common_flags above */
			put_generic_fields(w, b, m, m->scope[TIO_SCOPE_EV_COMMON_CTX], NULL, 0);
			put_generic_fields(w, b, m, m->scope[TIO_SCOPE_EV_SPEC_CTX], NULL, 0);
		}
		put_generic_payload(w, b, m, c);
		pb_end(b);
	}
	pb_end(b);
	if (next_tid >= 0)
		pc->cur_tid = next_tid;
done:
	if (b->err)
		return b->err;
	if (c->statedump) { /* LTTng: tid, pid, ppid, name; LTT: pid, tgid, parent_pid, name */
		bool ltt = c->src == SRC_LTT;
		const tio_val *mv[64];
		const tio_val *pl = m->scope[TIO_SCOPE_PAYLOAD];
		uint32_t n = members(m, pl, mv, 64);
		int64_t tid = -1, tgid = -1, ppid = -1;
		const tio_val *nmv = NULL;
		for (uint32_t k = 0; k < n && k < pl->fc->st.nmembers; k++) {
			const char *nm = pl->fc->st.members[k].name;
			if (!nm)
				continue;
			if (!strcmp(nm, ltt ? "pid" : "tid"))
				tid = int_of(mv[k]);
			else if (!strcmp(nm, ltt ? "tgid" : "pid"))
				tgid = int_of(mv[k]);
			else if (!strcmp(nm, ltt ? "parent_pid" : "ppid"))
				ppid = int_of(mv[k]);
			else if (!strcmp(nm, "name"))
				nmv = mv[k];
		}
		if (tid >= 0 && tgid >= 0) {
			const char *p = NULL;
			size_t nl = 0;
			if (nmv)
				text_of(w, m, nmv, &p, &nl);
			int r = process_tree(w, (int64_t)ts_of(m), tid, tgid, ppid, p, nl);
			if (r)
				return r;
		}
	}
	return bundle_size(pc) >= BUNDLE_MAX ? bundle_flush(w, cpu) : 0;
}

/* ---------------------------------------------------------------- user-space events */

/* Begin a packet on the track-event sequence (its first clears the incremental state). */
static void track_pkt_begin(pwsink *w, int64_t ns)
{
	pkt_begin(w, SEQ_TRACK, true, ns);
	pb_uint(&w->o, TP_SEQ_FLAGS, w->track_seq_started ? 2 : 1);
	w->track_seq_started = true;
}

/* The track of m's thread (or stream), its TrackDescriptor written first; 0 on error. */
static uint64_t track_of(pwsink *w, const tio_msg *m, const pcls *c)
{
	ident id;
	ident_of(m, c, &id);
	pthr *t;
	if (id.tid >= 0)
		t = thr_get(w, 2 | (uint64_t)(id.pid >= 0 ? id.pid : id.tid) << 2, (uint64_t)id.tid);
	else
		t = thr_get(w, 1, (uint64_t)(uintptr_t)m->stream);
	if (!t)
		return 0;
	if (t->uuid)
		return t->uuid;
	t->uuid = ++w->next_uuid;
	track_pkt_begin(w, (int64_t)ts_of(m));
	pb_begin(&w->o, TP_TRACK_DESCRIPTOR);
	pb_uint(&w->o, 1, t->uuid);
	if (id.tid >= 0) {
		pb_begin(&w->o, 4); /* ThreadDescriptor */
		pb_int(&w->o, 1, id.pid >= 0 ? id.pid : id.tid);
		pb_int(&w->o, 2, id.tid);
		if (id.procname) {
			const char *p;
			size_t n;
			text_of(w, m, id.procname, &p, &n);
			put_text(w, &w->o, 5, p, n);
		}
		pb_end(&w->o);
	} else {
		const char *nm = m->stream && m->stream->name ? m->stream->name : "stream";
		const char *sl = strrchr(nm, '/');
		pb_str(&w->o, 2, sl ? sl + 1 : nm);
	}
	pb_end(&w->o);
	return pkt_end(w) ? 0 : t->uuid;
}

/* Debug annotations for the members of struct v (scope s of class c), names interned in w->t. */
static void put_annotations(pwsink *w, const tio_msg *m, pcls *c, const tio_val *v, uint32_t first)
{
	if (!v || v->fc->kind != TIO_FC_STRUCT)
		return;
	pb *b = &w->o;
	uint32_t j = (uint32_t)(v - m->vals) + 1;
	for (uint32_t k = 0; k < v->n && j < v->end && k < v->fc->st.nmembers; k++) {
		const tio_val *x = &m->vals[j];
		j = x->end;
		uint64_t *iid = first + k < c->nann ? &c->ann[first + k] : NULL;
		const char *nm = v->fc->st.members[k].name ? v->fc->st.members[k].name : "";
		if (iid && !*iid) {
			*iid = ++w->next_iid;
			pb_begin(&w->t, 3); /* InternedData.debug_annotation_names */
			pb_uint(&w->t, 1, *iid);
			put_text(w, &w->t, 2, nm, strlen(nm));
			pb_end(&w->t);
		}
		bool sg;
		if (iid && is_int(x, &sg)) { /* the common case: its length known, nothing moved */
			uint32_t f = x->fc->kind == TIO_FC_BOOL ? 2 : sg ? 4 : 3;
			uint64_t u = f == 2 ? x->v.u != 0 : x->v.u;
			size_t len = 1 + pb_varint_size(*iid) + 1 + pb_varint_size(u);
			if (pb_room(b, len + 2))
				return;
			b->p[b->len++] = 4 << 3 | 2;
			b->p[b->len++] = (uint8_t)len; /* < 128 */
			b->p[b->len++] = 1 << 3;
			b->len += pb_varint_at(b->p + b->len, *iid);
			b->p[b->len++] = (uint8_t)(f << 3);
			b->len += pb_varint_at(b->p + b->len, u);
			continue;
		}
		pb_begin(b, 4); /* DebugAnnotation */
		if (iid)
			pb_uint(b, 1, *iid);
		else
			pb_str(b, 10, nm);
		if (is_int(x, &sg)) {
			if (x->fc->kind == TIO_FC_BOOL)
				pb_uint(b, 2, x->v.u != 0);
			else if (sg)
				pb_int(b, 4, x->v.i);
			else
				pb_uint(b, 3, x->v.u);
		} else if (x->fc->kind == TIO_FC_FLOAT) {
			pb_double(b, 5, x->v.d);
		} else {
			const char *p;
			size_t n;
			text_of(w, m, x, &p, &n);
			put_text(w, b, 6, p, n);
		}
		pb_end(b);
	}
}

/* A user-space event as a TrackEvent (instant, slice begin or slice end). */
static int track_event(pwsink *w, const tio_msg *m, pcls *c)
{
	uint64_t uuid = track_of(w, m, c);
	if (!uuid)
		return w->o.err ? w->o.err : TIO_ERR_NOMEM;
	w->t.len = 0;
	if (!c->iid) {
		c->iid = ++w->next_iid;
		pb_begin(&w->t, 2); /* InternedData.event_names */
		pb_uint(&w->t, 1, c->iid);
		const char *nm = c->ec->name ? c->ec->name : "";
		size_t l = strlen(nm);
		if (c->slice == SL_BEGIN && !c->func)
			l -= 6; /* X_entry: the slice is X */
		put_text(w, &w->t, 2, nm, l);
		pb_end(&w->t);
	}
	track_pkt_begin(w, (int64_t)ts_of(m));
	pb_begin(&w->o, TP_TRACK_EVENT);
	pb_uint(&w->o, 9, c->slice == SL_BEGIN ? 1 : c->slice == SL_END ? 2 : 3);
	pb_uint(&w->o, 11, uuid);
	bool named = false;
	if (c->func) { /* lttng_ust_cyg_profile: the slice is the function's address */
		const tio_val *mv[16];
		const tio_val *pl = m->scope[TIO_SCOPE_PAYLOAD];
		uint32_t n = members(m, pl, mv, 16);
		for (uint32_t k = 0; k < n && k < pl->fc->st.nmembers; k++) {
			if (pl->fc->st.members[k].name && !strcmp(pl->fc->st.members[k].name, "addr")) {
				char nb[32];
				int l = snprintf(nb, sizeof(nb), "0x%" PRIx64, mv[k]->v.u);
				pb_bytes(&w->o, 23, nb, (size_t)l);
				named = true;
			}
		}
	}
	if (!named)
		pb_uint(&w->o, 10, c->iid);
	put_annotations(w, m, c, m->scope[TIO_SCOPE_EV_COMMON_CTX], 0);
	put_annotations(w, m, c, m->scope[TIO_SCOPE_EV_SPEC_CTX], c->ctx_n[0]);
	put_annotations(w, m, c, m->scope[TIO_SCOPE_PAYLOAD], c->ctx_n[0] + c->ctx_n[1]);
	pb_end(&w->o);
	if (w->t.err)
		return w->t.err;
	if (w->t.len)
		pb_bytes(&w->o, TP_INTERNED_DATA, w->t.p, w->t.len);
	return pkt_end(w);
}

/* Discarded events: a lost_events bundle on the CPU (kernel) or an instant on the stream's track. */
static int discarded(pwsink *w, const tio_msg *m)
{
	int64_t ns = m->has_range ? m->end_ns : (int64_t)ts_of(m);
	if (src_of(m) != SRC_USER) {
		uint64_t cpu = 0;
		if (!tio_msg_cpu(m, &cpu))
			cpu = m->stream ? m->stream->id : 0;
		if (!cpu_get(w, cpu))
			return TIO_ERR_LIMIT;
		int r = bundle_flush(w, cpu);
		if (r)
			return r;
		pb *b = &w->cpus[cpu].b;
		pb_uint(b, 1, cpu);
		pb_uint(b, 3, 1); /* lost_events */
		return b->err;
	}
	uint64_t uuid;
	pthr *t = thr_get(w, 1, (uint64_t)(uintptr_t)m->stream);
	if (!t)
		return TIO_ERR_NOMEM;
	if (!(uuid = t->uuid)) {
		t->uuid = uuid = ++w->next_uuid;
		track_pkt_begin(w, ns);
		pb_begin(&w->o, TP_TRACK_DESCRIPTOR);
		pb_uint(&w->o, 1, uuid);
		const char *nm = m->stream && m->stream->name ? m->stream->name : "stream";
		const char *sl = strrchr(nm, '/');
		pb_str(&w->o, 2, sl ? sl + 1 : nm);
		pb_end(&w->o);
		int r = pkt_end(w);
		if (r)
			return r;
	}
	track_pkt_begin(w, ns);
	pb_begin(&w->o, TP_TRACK_EVENT);
	pb_uint(&w->o, 9, 3);
	pb_uint(&w->o, 11, uuid);
	pb_str(&w->o, 23, "discarded events");
	pb_begin(&w->o, 4);
	pb_str(&w->o, 10, "count");
	pb_uint(&w->o, 3, m->count);
	pb_end(&w->o);
	pb_end(&w->o);
	return pkt_end(w);
}

/* ---------------------------------------------------------------- sink ops */

/* Options: output=PATH, force (replace an existing output). */
static int pw_set(tio_sink *s, const char *key, const char *value)
{
	pwsink *w = (pwsink *)s;
	if (!strcmp(key, "output")) {
		if (!value || !*value)
			return tio_err_set(TIO_ERR_USAGE, "option output: empty path");
		free(w->out_path);
		w->out_path = tio_strdup(value);
		return w->out_path ? 0 : TIO_ERR_NOMEM;
	}
	if (!strcmp(key, "force"))
		return tio_sink_bool(key, value, &w->force);
	return tio_err_set(TIO_ERR_USAGE, "sink perfetto takes no option '%s' (output, force)", key);
}

/* An input: the output is created now, so that a trace with nothing in range is still written. */
static int pw_add_trace(tio_sink *s, const tio_trace *t) { return pw_open((pwsink *)s); }

/* A message: events and discarded-events messages are written, the others (packets, streams) ignored. */
static int pw_consume(tio_sink *s, const tio_msg *m)
{
	pwsink *w = (pwsink *)s;
	int r = pw_open(w);
	if (r)
		return r;
	if (m->type != TIO_MSG_EVENT && m->type != TIO_MSG_DISCARDED_EVENTS)
		return 0;
	if (m->has_ts && m->ns < 0) /* Perfetto's timestamps are unsigned: written as 0 */
		w->nnegative++;
	if (!w->clock_done && ((r = system_info(w, m)) || (r = clock_snapshot(w, m))))
		return r;
	if (m->type == TIO_MSG_DISCARDED_EVENTS)
		return discarded(w, m);
	if (!m->ec)
		return 0;
	size_t slot = ((uintptr_t)m->ec >> 4) & 63;
	pcls *c = w->recent[slot].ec == m->ec ? w->recent[slot].c : cls_get(w, m);
	if (!c)
		return TIO_ERR_NOMEM;
	w->recent[slot].ec = m->ec;
	w->recent[slot].c = c;
	return c->kind == K_TRACK ? track_event(w, m, c) : kernel_event(w, m, c);
}

/* The end: write every CPU's open bundle and the buffer, then rename the file into place. */
static int pw_finish(tio_sink *s)
{
	pwsink *w = (pwsink *)s;
	int r = pw_open(w);
	for (size_t c = 0; !r && c < w->ncpus; c++)
		r = bundle_flush(w, c);
	if (!r)
		r = pw_flush(w);
	if (r) {
		tio_outfile_abort(&w->of);
		w->opened = false;
		return r;
	}
	w->opened = false;
	if (w->nnegative && s->err)
		fprintf(s->err, "traceio: perfetto: %" PRIu64 " events before the clock origin (negative times) written at time 0\n",
			w->nnegative);
	return tio_outfile_commit(&w->of);
}

/* Free everything; an output not finished is removed (its temporary file). */
static void pw_fini(tio_sink *s)
{
	pwsink *w = (pwsink *)s;
	if (w->opened)
		tio_outfile_abort(&w->of);
	for (size_t i = 0; i < w->capcls; i++) {
		if (!w->cls[i])
			continue;
		free(w->cls[i]->map);
		free(w->cls[i]->ann);
		free(w->cls[i]->goff);
		free(w->cls[i]->ftype);
		pb_free(&w->cls[i]->gname);
		pb_free(&w->cls[i]->desc);
		free(w->cls[i]);
	}
	free(w->cls);
	for (size_t i = 0; i < w->ncpus; i++) {
		pb_free(&w->cpus[i].b);
		pcompact *k = w->cpus[i].k;
		for (int j = 0; k && j < CS_N; j++)
			pb_free(&k->cs[j]);
		if (k)
			pb_free(&k->intern);
		free(k);
	}
	free(w->cpus);
	free(w->thr);
	pb_free(&w->o);
	pb_free(&w->t);
	tio_buf_free(&w->text);
	tio_buf_free(&w->utf);
	free(w->out_path);
}

const tio_sink_ops tio_sink_perfetto_ops = {
	.name = "perfetto",
	.size = sizeof(pwsink),
	.set = pw_set,
	.add_trace = pw_add_trace,
	.consume = pw_consume,
	.finish = pw_finish,
	.fini = pw_fini,
};

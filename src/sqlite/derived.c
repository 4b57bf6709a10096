/*
 * Derived tables with Perfetto's names and meanings (docs/sql.md):
 * sched_slice, thread_state, thread, process, counter.  Computed in one
 * walk of the traces (a table's first query; vtab.c keeps them for every
 * later query) from sched_switch, sched_waking/wakeup(_new),
 * sched_process_fork/exit/exec, task_rename, LTTng's statedump and
 * contexts, cpu_frequency/cpu_idle.  trace.dat and LTTng kernel traces name
 * the fields differently: one mapping per format (maps[] below).  The
 * walk's state is per CPU and per thread; the rows (one per slice, state
 * interval, counter event, thread, process) are kept, sorted by ts where
 * the table has one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum role {
	R_NONE = 0,
	R_SWITCH,	/* prev_tid prev_comm prev_prio prev_state next_tid next_comm next_prio */
	R_WAKE,		/* tid comm prio target_cpu */
	R_FORK,		/* parent_tid parent_pid child_tid child_pid child_comm parent_comm */
	R_EXIT,		/* tid comm */
	R_EXEC,		/* tid filename */
	R_RENAME,	/* tid newcomm */
	R_STATEDUMP,	/* tid pid ppid name */
	R_CPUFREQ,	/* value cpu */
	R_CPUIDLE,	/* value cpu */
};

#define NF 7

/* Which event is which role, and its fields' names in trace.dat (ftrace) and in LTTng kernel CTF. */
static const struct map {
	const char *event;
	int role;
	const char *tracedat[NF];
	const char *ctf[NF];
} maps[] = {
	{"sched_switch", R_SWITCH,
	 {"prev_pid", "prev_comm", "prev_prio", "prev_state", "next_pid", "next_comm", "next_prio"},
	 {"prev_tid", "prev_comm", "prev_prio", "prev_state", "next_tid", "next_comm", "next_prio"}},
	{"sched_waking", R_WAKE, {"pid", "comm", "prio", "target_cpu"}, {"tid", "comm", "prio", "target_cpu"}},
	{"sched_wakeup", R_WAKE, {"pid", "comm", "prio", "target_cpu"}, {"tid", "comm", "prio", "target_cpu"}},
	{"sched_wakeup_new", R_WAKE, {"pid", "comm", "prio", "target_cpu"}, {"tid", "comm", "prio", "target_cpu"}},
	{"sched_process_fork", R_FORK,
	 {"parent_pid", NULL, "child_pid", NULL, "child_comm", "parent_comm"},
	 {"parent_tid", "parent_pid", "child_tid", "child_pid", "child_comm", "parent_comm"}},
	{"sched_process_exit", R_EXIT, {"pid", "comm"}, {"tid", "comm"}},
	{"sched_process_exec", R_EXEC, {"pid", "filename"}, {"tid", "filename"}},
	{"task_rename", R_RENAME, {"pid", "newcomm"}, {"pid", "newcomm"}},
	{"lttng_statedump_process_state", R_STATEDUMP, {NULL}, {"tid", "pid", "ppid", "name"}},
	{"cpu_frequency", R_CPUFREQ, {"state", "cpu_id"}, {"state", "cpu_id"}},
	{"power_cpu_frequency", R_CPUFREQ, {"state", "cpu_id"}, {"state", "cpu_id"}},
	{"cpu_idle", R_CPUIDLE, {"state", "cpu_id"}, {"state", "cpu_id"}},
	{"power_cpu_idle", R_CPUIDLE, {"state", "cpu_id"}, {"state", "cpu_id"}},
};

/* A row ready to be read (the columns each table uses). */
typedef struct drow {
	int64_t ts, dur, cpu, utid, tid, pid, upid, prio, end_ts, ppid;
	double value;
	unsigned nulls; /* bit per field below that is NULL */
	uint32_t seq;	/* order of making: ties of ts keep it when the rows are sorted */
	char text[64];	/* comm / name */
	char state[16]; /* end_state / state / counter name */
} drow;

enum { N_DUR = 1, N_CPU = 2, N_PID = 4, N_PRIO = 8, N_END = 16, N_PPID = 32, N_STATE = 64, N_TEXT = 128,
       N_START = 256, N_UPID = 512 };

typedef struct thread {
	int64_t tid, pid, utid;
	int64_t start, end;
	bool has_pid, has_start, has_end;
	char comm[64];
	/* thread_state: the open interval */
	bool open;
	int64_t since, cpu;
	char state[16];
} thread;

typedef struct process {
	int64_t pid, ppid, upid, start, end;
	bool has_ppid, has_start, has_end;
	char name[64];
} process;

typedef struct cpust {
	bool has;     /* a slice is open */
	bool seen;    /* an event was seen */
	int64_t ts, tid, utid, prio, last;
	char comm[64];
} cpust;

typedef struct ecrole {
	const tio_event_class *ec;
	int role;
	bool tracedat;
	bool has[NF];
	tio_field_ref ref[NF];
	bool has_ctx[3]; /* context tid, pid, procname */
	tio_field_ref ctx[3];
} ecrole;

struct dstate {
	int kind;
	ecrole **ecs;
	size_t eccap, ecn;
	ecrole *last;
	cpust *cpus;
	size_t ncpus;
	thread *threads; /* by utid */
	size_t nthreads, capthreads;
	size_t *tidx;	 /* hash tid -> index+1 into threads (newest) */
	size_t tidcap;
	process *procs;
	size_t nprocs, capprocs;
	size_t *pidx;
	size_t pidcap;
	drow *rows;
	size_t nrows, caprows;
	bool oom, ended;
	int64_t last_ts;
	bool has_last;
};

/* The columns of each derived table, as CREATE TABLE wants them. */
const char *tio_derived_schema(int kind)
{
	switch (kind) {
	case TK_SCHED_SLICE:
		return "ts INTEGER, dur INTEGER, cpu INTEGER, utid INTEGER, tid INTEGER, comm TEXT, "
		       "priority INTEGER, end_state TEXT";
	case TK_THREAD_STATE:
		return "ts INTEGER, dur INTEGER, cpu INTEGER, utid INTEGER, tid INTEGER, state TEXT";
	case TK_THREAD:
		return "utid INTEGER, tid INTEGER, name TEXT, start_ts INTEGER, end_ts INTEGER, upid INTEGER, "
		       "pid INTEGER";
	case TK_PROCESS:
		return "upid INTEGER, pid INTEGER, name TEXT, start_ts INTEGER, end_ts INTEGER, ppid INTEGER";
	case TK_COUNTER:
		return "ts INTEGER, value REAL, name TEXT, cpu INTEGER";
	}
	return "x";
}

/* A fresh state for one walk of the traces. */
struct dstate *tio_derived_new(int kind)
{
	struct dstate *d = calloc(1, sizeof(*d));
	if (d)
		d->kind = kind;
	return d;
}

/* Free a state and its tables of CPUs, threads, processes and rows. */
void tio_derived_free(struct dstate *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->eccap; i++)
		free(d->ecs[i]);
	free(d->ecs);
	free(d->cpus);
	free(d->threads);
	free(d->tidx);
	free(d->procs);
	free(d->pidx);
	free(d->rows);
	free(d);
}

/* Hash of a pointer or an integer. */
static size_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

/* Resolve payload field `name` of ec; false when it has none. */
static bool res(const tio_event_class *ec, const char *scope, const char *name, tio_field_ref *ref)
{
	char path[96];
	if (!name || strlen(name) + strlen(scope) + 2 > sizeof(path))
		return false;
	strcpy(path, scope);
	strcat(path, ".");
	strcat(path, name);
	if (tio_field_ref_resolve(ec, path, ref) == 0)
		return true;
	tio_error_clear();
	return false;
}

/* The role of ec and its field references, made on first sight. */
static ecrole *role_of(struct dstate *d, const tio_msg *m)
{
	const tio_event_class *ec = tio_msg_event_class(m);
	if (d->last && d->last->ec == ec)
		return d->last;
	if (d->eccap) {
		for (size_t i = mix((uintptr_t)ec) & (d->eccap - 1); d->ecs[i]; i = (i + 1) & (d->eccap - 1))
			if (d->ecs[i]->ec == ec)
				return d->last = d->ecs[i];
	}
	if ((d->ecn + 1) * 2 > d->eccap) {
		size_t cap = d->eccap ? d->eccap * 2 : 64;
		ecrole **v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < d->eccap; i++) {
			if (!d->ecs[i])
				continue;
			size_t k = mix((uintptr_t)d->ecs[i]->ec) & (cap - 1);
			while (v[k])
				k = (k + 1) & (cap - 1);
			v[k] = d->ecs[i];
		}
		free(d->ecs);
		d->ecs = v;
		d->eccap = cap;
	}
	ecrole *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->ec = ec;
	const char *name = tio_event_class_name(ec);
	const tio_stream *st = tio_msg_stream(m);
	const char *fmt = st ? tio_trace_format(tio_stream_trace(st)) : NULL;
	r->tracedat = fmt && !strcmp(fmt, "tracedat");
	for (size_t i = 0; name && i < sizeof(maps) / sizeof(maps[0]); i++) {
		if (strcmp(name, maps[i].event))
			continue;
		r->role = maps[i].role;
		for (int k = 0; k < NF; k++)
			r->has[k] = res(ec, "payload", r->tracedat ? maps[i].tracedat[k] : maps[i].ctf[k], &r->ref[k]);
		break;
	}
	if (!r->tracedat) { /* LTTng contexts name threads too */
		static const char *const sc[] = {"context", "common_context"};
		for (int k = 0; k < 2; k++) {
			if (!r->has_ctx[0])
				r->has_ctx[0] = res(ec, sc[k], "tid", &r->ctx[0]) || res(ec, sc[k], "vtid", &r->ctx[0]);
			if (!r->has_ctx[1])
				r->has_ctx[1] = res(ec, sc[k], "pid", &r->ctx[1]) || res(ec, sc[k], "vpid", &r->ctx[1]);
			if (!r->has_ctx[2])
				r->has_ctx[2] = res(ec, sc[k], "procname", &r->ctx[2]);
		}
	}
	size_t k = mix((uintptr_t)ec) & (d->eccap - 1);
	while (d->ecs[k])
		k = (k + 1) & (d->eccap - 1);
	d->ecs[k] = r;
	d->ecn++;
	return d->last = r;
}

/* An integer field (enums: their value); false when absent. */
static bool get_int(const tio_msg *m, const ecrole *r, int k, int64_t *v)
{
	if (!r->has[k])
		return false;
	const tio_field *f = tio_msg_field(m, &r->ref[k]);
	if (!f || tio_field_int(f, v)) {
		tio_error_clear();
		return false;
	}
	return true;
}

/* A text field copied into out (NUL-terminated, cut to its size); false when absent. */
static bool get_text(const tio_msg *m, const tio_field_ref *ref, bool has, char *out, size_t size)
{
	const char *s;
	size_t len;
	if (!has)
		return false;
	const tio_field *f = tio_msg_field(m, ref);
	if (!f || tio_field_string(f, &s, &len)) {
		tio_error_clear();
		return false;
	}
	const char *nul = memchr(s, 0, len);
	if (nul)
		len = (size_t)(nul - s);
	if (len >= size)
		len = size - 1;
	memcpy(out, s, len);
	out[len] = 0;
	return true;
}

/* A new row slot (zeroed), NULL when out of memory. */
static drow *row_new(struct dstate *d)
{
	if (d->nrows == d->caprows) {
		size_t cap = d->caprows ? d->caprows * 2 : 16;
		drow *v = realloc(d->rows, cap * sizeof(*v));
		if (!v) {
			d->oom = true;
			return NULL;
		}
		d->rows = v;
		d->caprows = cap;
	}
	drow *r = &d->rows[d->nrows++];
	memset(r, 0, sizeof(*r));
	r->seq = (uint32_t)(d->nrows - 1);
	return r;
}

/* The thread with this tid (the newest of that tid), made when new. */
static thread *thread_get(struct dstate *d, int64_t tid, bool fresh)
{
	if (!fresh && d->tidcap) {
		for (size_t i = mix((uint64_t)tid) & (d->tidcap - 1); d->tidx[i]; i = (i + 1) & (d->tidcap - 1))
			if (d->threads[d->tidx[i] - 1].tid == tid)
				return &d->threads[d->tidx[i] - 1];
	}
	if (d->nthreads == d->capthreads) {
		size_t cap = d->capthreads ? d->capthreads * 2 : 64;
		thread *v = realloc(d->threads, cap * sizeof(*v));
		if (!v) {
			d->oom = true;
			return NULL;
		}
		d->threads = v;
		d->capthreads = cap;
	}
	if ((d->nthreads + 1) * 2 > d->tidcap) {
		size_t cap = d->tidcap ? d->tidcap * 2 : 128;
		size_t *v = calloc(cap, sizeof(*v));
		if (!v) {
			d->oom = true;
			return NULL;
		}
		for (size_t i = 0; i < d->nthreads; i++) {
			size_t k = mix((uint64_t)d->threads[i].tid) & (cap - 1);
			while (v[k] && d->threads[v[k] - 1].tid != d->threads[i].tid)
				k = (k + 1) & (cap - 1);
			v[k] = i + 1; /* later (newer) threads of a tid replace older ones */
		}
		free(d->tidx);
		d->tidx = v;
		d->tidcap = cap;
	}
	thread *t = &d->threads[d->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->utid = (int64_t)d->nthreads;
	size_t k = mix((uint64_t)tid) & (d->tidcap - 1);
	while (d->tidx[k] && d->threads[d->tidx[k] - 1].tid != tid)
		k = (k + 1) & (d->tidcap - 1);
	d->tidx[k] = ++d->nthreads;
	return t;
}

/* The process with this pid, made when new. */
static process *proc_get(struct dstate *d, int64_t pid)
{
	if (d->pidcap) {
		for (size_t i = mix((uint64_t)pid) & (d->pidcap - 1); d->pidx[i]; i = (i + 1) & (d->pidcap - 1))
			if (d->procs[d->pidx[i] - 1].pid == pid)
				return &d->procs[d->pidx[i] - 1];
	}
	if (d->nprocs == d->capprocs) {
		size_t cap = d->capprocs ? d->capprocs * 2 : 64;
		process *v = realloc(d->procs, cap * sizeof(*v));
		if (!v) {
			d->oom = true;
			return NULL;
		}
		d->procs = v;
		d->capprocs = cap;
	}
	if ((d->nprocs + 1) * 2 > d->pidcap) {
		size_t cap = d->pidcap ? d->pidcap * 2 : 128;
		size_t *v = calloc(cap, sizeof(*v));
		if (!v) {
			d->oom = true;
			return NULL;
		}
		for (size_t i = 0; i < d->nprocs; i++) {
			size_t k = mix((uint64_t)d->procs[i].pid) & (cap - 1);
			while (v[k])
				k = (k + 1) & (cap - 1);
			v[k] = i + 1;
		}
		free(d->pidx);
		d->pidx = v;
		d->pidcap = cap;
	}
	process *p = &d->procs[d->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->upid = (int64_t)d->nprocs;
	size_t k = mix((uint64_t)pid) & (d->pidcap - 1);
	while (d->pidx[k])
		k = (k + 1) & (d->pidcap - 1);
	d->pidx[k] = ++d->nprocs;
	return p;
}

/* The state of CPU `cpu` (grown on demand; NULL past 65536 CPUs or when out of memory). */
static cpust *cpu_get(struct dstate *d, uint64_t cpu)
{
	if (cpu >= 65536)
		return NULL;
	if (cpu >= d->ncpus) {
		size_t n = (size_t)cpu + 1;
		cpust *v = realloc(d->cpus, n * sizeof(*v));
		if (!v) {
			d->oom = true;
			return NULL;
		}
		memset(v + d->ncpus, 0, (n - d->ncpus) * sizeof(*v));
		d->cpus = v;
		d->ncpus = n;
	}
	return &d->cpus[cpu];
}

/*
 * A task state as the kernel's sched_switch prints it: 0 is "R", bits
 * 0x01..0x80 are S D T t X Z P I joined with '|', and the preemption bit
 * (TASK_REPORT_MAX: 0x100 on kernels 4.14 and later, higher before) adds "+".
 */
static void state_text(int64_t v, char *out, size_t size)
{
	static const char letters[] = "SDTtXZPI";
	size_t o = 0;
	uint64_t u = (uint64_t)v;
	for (int b = 0; b < 8; b++) {
		if (!(u & (1u << b)))
			continue;
		if (o && o + 1 < size)
			out[o++] = '|';
		if (o + 1 < size)
			out[o++] = letters[b];
	}
	if (!o)
		out[o++] = 'R';
	if (u >> 8 && o + 1 < size)
		out[o++] = '+';
	out[o] = 0;
}

/* thread_state: close t's open interval at ts (a row), open `state` from ts. */
static void thread_state_set(struct dstate *d, thread *t, int64_t ts, const char *state, int64_t cpu)
{
	if (d->kind == TK_THREAD_STATE && t->open) {
		drow *r = row_new(d);
		if (r) {
			r->ts = t->since;
			r->dur = ts - t->since;
			r->cpu = t->cpu;
			r->nulls = t->cpu < 0 ? N_CPU : 0;
			r->utid = t->utid;
			r->tid = t->tid;
			snprintf(r->state, sizeof(r->state), "%s", t->state);
		}
	}
	t->open = true;
	t->since = ts;
	t->cpu = cpu;
	snprintf(t->state, sizeof(t->state), "%s", state);
}

/* A thread's name when it has none yet (or `force`). */
static void name_thread(thread *t, const char *comm, bool force)
{
	if (comm && *comm && (force || !t->comm[0]))
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* The thread of tid, its name from the trace.dat saved cmdlines when unknown. */
static thread *thread_seen(struct dstate *d, const tio_msg *m, int64_t tid)
{
	thread *t = thread_get(d, tid, false);
	if (t && !t->comm[0]) {
		const tio_stream *st = tio_msg_stream(m);
		const char *c = st ? tio_trace_comm(tio_stream_trace(st), tid) : NULL;
		if (c && tid != 0)
			name_thread(t, c, false);
	}
	return t;
}

/* sched_switch: the slice of prev ends, next's begins (sched_slice, thread_state, thread). */
static void on_switch(struct dstate *d, const tio_msg *m, const ecrole *r, int64_t ts, uint64_t cpu)
{
	int64_t prev, next, prio = 0, pstate = 0;
	char pcomm[64] = "", ncomm[64] = "", st[16];
	if (!get_int(m, r, 0, &prev) || !get_int(m, r, 4, &next))
		return;
	get_text(m, &r->ref[1], r->has[1], pcomm, sizeof(pcomm));
	get_text(m, &r->ref[5], r->has[5], ncomm, sizeof(ncomm));
	bool has_state = get_int(m, r, 3, &pstate);
	bool has_prio = get_int(m, r, 6, &prio);
	if (has_state)
		state_text(pstate, st, sizeof(st));
	else
		strcpy(st, "S");
	thread *tp = thread_seen(d, m, prev);
	if (tp && prev != 0)
		name_thread(tp, pcomm, false);
	thread *tn = thread_seen(d, m, next);
	if (tn && next != 0)
		name_thread(tn, ncomm, false);
	if (!tp || !tn)
		return;
	cpust *c = cpu_get(d, cpu);
	if (d->kind == TK_SCHED_SLICE && c) {
		if (c->has) {
			drow *row = row_new(d);
			if (row) {
				row->ts = c->ts;
				row->dur = ts - c->ts;
				row->cpu = (int64_t)cpu;
				row->utid = c->utid;
				row->tid = c->tid;
				row->prio = c->prio;
				snprintf(row->text, sizeof(row->text), "%s", c->comm);
				snprintf(row->state, sizeof(row->state), "%s", st);
				row->nulls = (has_state ? 0 : N_STATE) | (c->prio == INT64_MIN ? N_PRIO : 0);
			}
		}
		c->has = true;
		c->ts = ts;
		c->tid = next;
		c->utid = tn->utid;
		c->prio = has_prio ? prio : INT64_MIN;
		snprintf(c->comm, sizeof(c->comm), "%s", next == 0 ? ncomm : (tn->comm[0] ? tn->comm : ncomm));
	}
	if (d->kind == TK_THREAD_STATE) { /* the idle threads (tid 0, one per CPU) have no state of their own */
		if (prev != 0)
			thread_state_set(d, tp, ts, prev == next ? "Running" : st, prev == next ? (int64_t)cpu : -1);
		if (prev != next && next != 0)
			thread_state_set(d, tn, ts, "Running", (int64_t)cpu);
	}
}

/* Update the thread and process tables from an event's LTTng contexts (tid, pid, procname). */
static void on_context(struct dstate *d, const tio_msg *m, const ecrole *r, int64_t ts)
{
	int64_t tid, pid;
	char comm[64];
	const tio_field *f;
	if (!r->has_ctx[0] || !(f = tio_msg_field(m, &r->ctx[0])) || tio_field_int(f, &tid)) {
		tio_error_clear();
		return;
	}
	thread *t = thread_get(d, tid, false);
	if (!t)
		return;
	if (get_text(m, &r->ctx[2], r->has_ctx[2], comm, sizeof(comm)))
		name_thread(t, comm, false);
	if (r->has_ctx[1] && (f = tio_msg_field(m, &r->ctx[1])) && tio_field_int(f, &pid) == 0) {
		t->pid = pid;
		t->has_pid = true;
		process *p = proc_get(d, pid);
		if (p && tid == pid && !p->name[0])
			snprintf(p->name, sizeof(p->name), "%s", t->comm);
	}
	tio_error_clear();
}

/* One event: the derived tables' state and rows. */
static void on_event(struct dstate *d, const tio_msg *m, int64_t ts)
{
	ecrole *r = role_of(d, m);
	uint64_t cpu = 0;
	bool has_cpu = tio_msg_cpu(m, &cpu);
	int64_t a, b, c, e;
	char text[64];
	if (!r) {
		d->oom = true;
		return;
	}
	if (has_cpu) {
		cpust *cs = cpu_get(d, cpu);
		if (cs) {
			cs->seen = true;
			cs->last = ts;
		}
	}
	if (d->kind == TK_THREAD || d->kind == TK_PROCESS)
		on_context(d, m, r, ts);
	switch (r->role) {
	case R_SWITCH:
		if (has_cpu)
			on_switch(d, m, r, ts, cpu);
		break;
	case R_WAKE:
		if (get_int(m, r, 0, &a)) {
			thread *t = thread_seen(d, m, a);
			if (!t)
				break;
			if (get_text(m, &r->ref[1], r->has[1], text, sizeof(text)) && a != 0)
				name_thread(t, text, false);
			if (d->kind == TK_THREAD_STATE && a != 0 && (!t->open || (strcmp(t->state, "Running") && t->state[0] != 'R')))
				thread_state_set(d, t, ts, "R", -1);
		}
		break;
	case R_FORK:
		if (get_int(m, r, 2, &c)) {
			thread *old = thread_get(d, c, false);
			thread *t = old && (old->has_end || old->has_start) ? thread_get(d, c, true) : old;
			if (!t)
				break;
			t->start = ts;
			t->has_start = true;
			if (get_text(m, &r->ref[4], r->has[4], text, sizeof(text)))
				name_thread(t, text, true);
			if (get_int(m, r, 3, &e)) { /* LTTng: the child's process id */
				t->pid = e;
				t->has_pid = true;
				if (get_int(m, r, 1, &b) && b != e) { /* a new process */
					process *p = proc_get(d, e);
					if (p) {
						p->start = ts;
						p->has_start = true;
						p->ppid = b;
						p->has_ppid = true;
						snprintf(p->name, sizeof(p->name), "%s", t->comm);
					}
				}
			}
			if (get_int(m, r, 0, &a)) {
				thread *pt = thread_seen(d, m, a);
				if (pt && get_text(m, &r->ref[5], r->has[5], text, sizeof(text)))
					name_thread(pt, text, false);
			}
		}
		break;
	case R_EXIT:
		if (get_int(m, r, 0, &a)) {
			thread *t = thread_seen(d, m, a);
			if (!t)
				break;
			t->end = ts;
			t->has_end = true;
			if (t->has_pid && t->pid == a) {
				process *p = proc_get(d, a);
				if (p) {
					p->end = ts;
					p->has_end = true;
				}
			}
		}
		break;
	case R_EXEC:
		if (get_int(m, r, 0, &a) && get_text(m, &r->ref[1], r->has[1], text, sizeof(text))) {
			thread *t = thread_seen(d, m, a);
			const char *base = strrchr(text, '/');
			if (t)
				name_thread(t, base ? base + 1 : text, true);
			if (t && t->has_pid) {
				process *p = proc_get(d, t->pid);
				if (p)
					snprintf(p->name, sizeof(p->name), "%s", text);
			}
		}
		break;
	case R_RENAME:
		if (get_int(m, r, 0, &a) && get_text(m, &r->ref[1], r->has[1], text, sizeof(text))) {
			thread *t = thread_seen(d, m, a);
			if (t)
				name_thread(t, text, true);
		}
		break;
	case R_STATEDUMP:
		if (get_int(m, r, 0, &a) && get_int(m, r, 1, &b)) {
			thread *t = thread_get(d, a, false);
			if (!t)
				break;
			t->pid = b;
			t->has_pid = true;
			if (get_text(m, &r->ref[3], r->has[3], text, sizeof(text)))
				name_thread(t, text, false);
			process *p = proc_get(d, b);
			if (p) {
				if (get_int(m, r, 2, &c)) {
					p->ppid = c;
					p->has_ppid = true;
				}
				if (a == b && !p->name[0])
					snprintf(p->name, sizeof(p->name), "%s", t->comm);
			}
		}
		break;
	case R_CPUFREQ:
	case R_CPUIDLE:
		if (d->kind == TK_COUNTER && get_int(m, r, 0, &a)) {
			drow *row = row_new(d);
			if (!row)
				break;
			row->ts = ts;
			/* cpu_idle's "exit" state is 4294967295 (-1 as a u32): kept as recorded */
			row->value = (double)(r->role == R_CPUIDLE && a == 4294967295LL ? -1 : a);
			strcpy(row->state, r->role == R_CPUFREQ ? "cpufreq" : "cpuidle");
			if (get_int(m, r, 1, &b))
				row->cpu = b;
			else
				row->nulls |= N_CPU;
		}
		break;
	}
}

/* At the end: open slices and intervals end with their CPU's / the trace's last event; thread and process rows. */
static void on_end(struct dstate *d)
{
	if (d->kind == TK_SCHED_SLICE) {
		for (size_t i = 0; i < d->ncpus; i++) {
			cpust *c = &d->cpus[i];
			if (!c->has)
				continue;
			drow *row = row_new(d);
			if (!row)
				return;
			row->ts = c->ts;
			row->dur = c->last - c->ts;
			row->cpu = (int64_t)i;
			row->utid = c->utid;
			row->tid = c->tid;
			row->prio = c->prio;
			snprintf(row->text, sizeof(row->text), "%s", c->comm);
			row->nulls = N_STATE | (c->prio == INT64_MIN ? N_PRIO : 0);
		}
	} else if (d->kind == TK_THREAD_STATE) {
		for (size_t i = 0; i < d->nthreads; i++)
			if (d->threads[i].open && d->has_last)
				thread_state_set(d, &d->threads[i], d->last_ts, "", -1);
	} else if (d->kind == TK_THREAD) {
		for (size_t i = 0; i < d->nthreads; i++) {
			thread *t = &d->threads[i];
			drow *row = row_new(d);
			if (!row)
				return;
			row->utid = t->utid;
			row->tid = t->tid;
			snprintf(row->text, sizeof(row->text), "%s", t->comm);
			row->ts = t->start;
			row->end_ts = t->end;
			row->pid = t->pid;
			row->nulls = (t->comm[0] ? 0 : N_TEXT) | (t->has_start ? 0 : N_START) | (t->has_end ? 0 : N_END) |
				     (t->has_pid ? 0 : N_PID | N_UPID);
			if (t->has_pid) {
				process *p = proc_get(d, t->pid);
				if (p)
					row = &d->rows[d->nrows - 1], row->upid = p->upid;
			}
		}
	} else if (d->kind == TK_PROCESS) {
		for (size_t i = 0; i < d->nprocs; i++) {
			process *p = &d->procs[i];
			drow *row = row_new(d);
			if (!row)
				return;
			row->upid = p->upid;
			row->pid = p->pid;
			snprintf(row->text, sizeof(row->text), "%s", p->name);
			row->ts = p->start;
			row->end_ts = p->end;
			row->ppid = p->ppid;
			row->nulls = (p->name[0] ? 0 : N_TEXT) | (p->has_start ? 0 : N_START) | (p->has_end ? 0 : N_END) |
				     (p->has_ppid ? 0 : N_PPID);
		}
	}
}

/* Order of rows by ts, then by the order they were made in (sched_slice, thread_state, counter). */
static int row_cmp(const void *a, const void *b)
{
	const drow *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether a table's rows are sorted by ts once made (its ts bounds then searched). */
bool tio_derived_by_ts(int kind)
{
	return kind == TK_SCHED_SLICE || kind == TK_THREAD_STATE || kind == TK_COUNTER;
}

/*
 * After the end: rows sorted by ts where the table has one, and the walk's
 * state (threads, processes, CPUs, event classes of traces about to be
 * closed) freed: only the rows stay.
 */
static void finish(struct dstate *d)
{
	if (tio_derived_by_ts(d->kind) && d->nrows > 1)
		qsort(d->rows, d->nrows, sizeof(*d->rows), row_cmp);
	for (size_t i = 0; i < d->eccap; i++)
		free(d->ecs[i]);
	free(d->ecs);
	free(d->cpus);
	free(d->threads);
	free(d->tidx);
	free(d->procs);
	free(d->pidx);
	d->ecs = NULL;
	d->cpus = NULL;
	d->threads = NULL;
	d->tidx = d->pidx = NULL;
	d->procs = NULL;
	d->eccap = d->ecn = d->ncpus = d->nthreads = d->capthreads = d->tidcap = 0;
	d->nprocs = d->capprocs = d->pidcap = 0;
	d->last = NULL;
	if (d->caprows > d->nrows && d->nrows) { /* give back the doubling's slack */
		drow *v = realloc(d->rows, d->nrows * sizeof(*v));
		if (v) {
			d->rows = v;
			d->caprows = d->nrows;
		}
	}
}

/* One message in (NULL at the end): every row is kept (see internal.h); 0, or -1 when out of memory. */
int tio_derived_feed(struct dstate *d, const tio_msg *m)
{
	if (d->ended)
		return 0;
	if (!d->nthreads && (d->kind == TK_THREAD || d->kind == TK_PROCESS || d->kind == TK_SCHED_SLICE ||
			     d->kind == TK_THREAD_STATE)) {
		thread *t = thread_get(d, 0, false); /* utid 0: the idle thread, as Perfetto */
		if (t)
			strcpy(t->comm, "swapper");
		if (d->kind == TK_PROCESS || d->kind == TK_THREAD) {
			process *p = proc_get(d, 0);
			if (p)
				strcpy(p->name, "swapper");
			if (t) {
				t->pid = 0;
				t->has_pid = true;
			}
		}
	}
	if (!m) {
		d->ended = true;
		on_end(d);
		if (!d->oom)
			finish(d);
	} else if (tio_msg_kind(m) == TIO_MSG_KIND_EVENT) {
		int64_t ts;
		if (tio_msg_time_ns(m, &ts)) {
			if (!d->has_last || ts > d->last_ts)
				d->last_ts = ts;
			d->has_last = true;
			on_event(d, m, ts);
		}
	}
	return d->oom || (d->nrows >= UINT32_MAX) ? -1 : 0;
}

/* Put an integer, or NULL when its bit is set. */
static void put_i(sqlite3_context *ctx, int64_t v, unsigned nulls, unsigned bit)
{
	if (!(nulls & bit))
		sqlite3_result_int64(ctx, v);
}

/* Put a text, or NULL when its bit is set. */
static void put_t(sqlite3_context *ctx, const char *s, unsigned nulls, unsigned bit)
{
	if (!(nulls & bit))
		sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
}

/* One column of a ready row, NULL where the row does not know it. */
void tio_derived_column(const struct dstate *d, size_t i, int col, sqlite3_context *ctx)
{
	if (!d || i >= d->nrows)
		return;
	const drow *r = &d->rows[i];
	switch (d->kind) {
	case TK_SCHED_SLICE:
		switch (col) {
		case 0: put_i(ctx, r->ts, 0, 0); break;
		case 1: put_i(ctx, r->dur, r->nulls, N_DUR); break;
		case 2: put_i(ctx, r->cpu, r->nulls, N_CPU); break;
		case 3: put_i(ctx, r->utid, 0, 0); break;
		case 4: put_i(ctx, r->tid, 0, 0); break;
		case 5: put_t(ctx, r->text, r->nulls, N_TEXT); break;
		case 6: put_i(ctx, r->prio, r->nulls, N_PRIO); break;
		case 7: put_t(ctx, r->state, r->nulls, N_STATE); break;
		}
		break;
	case TK_THREAD_STATE:
		switch (col) {
		case 0: put_i(ctx, r->ts, 0, 0); break;
		case 1: put_i(ctx, r->dur, r->nulls, N_DUR); break;
		case 2: put_i(ctx, r->cpu, r->nulls, N_CPU); break;
		case 3: put_i(ctx, r->utid, 0, 0); break;
		case 4: put_i(ctx, r->tid, 0, 0); break;
		case 5: put_t(ctx, r->state, r->nulls, N_STATE); break;
		}
		break;
	case TK_THREAD:
		switch (col) {
		case 0: put_i(ctx, r->utid, 0, 0); break;
		case 1: put_i(ctx, r->tid, 0, 0); break;
		case 2: put_t(ctx, r->text, r->nulls, N_TEXT); break;
		case 3: put_i(ctx, r->ts, r->nulls, N_START); break;
		case 4: put_i(ctx, r->end_ts, r->nulls, N_END); break;
		case 5: put_i(ctx, r->upid, r->nulls, N_UPID); break;
		case 6: put_i(ctx, r->pid, r->nulls, N_PID); break;
		}
		break;
	case TK_PROCESS:
		switch (col) {
		case 0: put_i(ctx, r->upid, 0, 0); break;
		case 1: put_i(ctx, r->pid, 0, 0); break;
		case 2: put_t(ctx, r->text, r->nulls, N_TEXT); break;
		case 3: put_i(ctx, r->ts, r->nulls, N_START); break;
		case 4: put_i(ctx, r->end_ts, r->nulls, N_END); break;
		case 5: put_i(ctx, r->ppid, r->nulls, N_PPID); break;
		}
		break;
	case TK_COUNTER:
		switch (col) {
		case 0: put_i(ctx, r->ts, 0, 0); break;
		case 1: sqlite3_result_double(ctx, r->value); break;
		case 2: put_t(ctx, r->state, 0, 0); break;
		case 3: put_i(ctx, r->cpu, r->nulls, N_CPU); break;
		}
		break;
	}
}

/* The rows made by the walk, once it has ended; 0 before. */
size_t tio_derived_rows(const struct dstate *d)
{
	return d->ended ? d->nrows : 0;
}

/* Row i's ts (sched_slice, thread_state, counter: the rows are in ts order). */
int64_t tio_derived_ts(const struct dstate *d, size_t i)
{
	return d->rows[i].ts;
}

/* Row i's cpu; false when NULL or the table has none. */
bool tio_derived_cpu(const struct dstate *d, size_t i, int64_t *cpu)
{
	if (!tio_derived_by_ts(d->kind) || (d->rows[i].nulls & N_CPU))
		return false;
	*cpu = d->rows[i].cpu;
	return true;
}

/* The first row whose ts is >= ts (binary search; tables in ts order), tio_derived_rows() when none. */
size_t tio_derived_lower(const struct dstate *d, int64_t ts)
{
	size_t lo = 0, hi = d->ended ? d->nrows : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->rows[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

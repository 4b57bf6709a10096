/*
 * The "lttv" text sink: prints events as LTTV's textDump module did
 * ("lttv -m textDump -t TRACE", LTTV 0.12, 2010), line for line:
 *
 *   CHANNEL.EVENT: SEC.NSEC (TRACE/CHANNEL_CPU), PID, TGID, NAME, BRAND,
 *       PPID, 0xFUNCTION, MODE { FIELD = VALUE, ... }
 *
 * The process columns come from LTTV's state module, which this file
 * re-implements from the events themselves (scheduling, forks, exits,
 * system calls, traps, interrupts, the kernel's state dump): the sink
 * reads the model only, never the reader that produced it.  Integer fields
 * print with the printf text their field class carries in `attrs` (the
 * LTTng 0.x reader puts LTTV's there: "%lld", "0x%llX"...).
 * See docs/formats/ltt0x.md, "Printing as LTTV did".
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>

#include "sink/sink.h"

/* Execution modes and process statuses: LTTV's quark strings. */
static const char M_UNKNOWN[] = "MODE_UNKNOWN", M_USER[] = "USER_MODE", M_SYSCALL[] = "SYSCALL",
		  M_TRAP[] = "TRAP", M_IRQ[] = "IRQ", M_SOFTIRQ[] = "SOFTIRQ";
static const char S_UNNAMED[] = "", S_WAIT_FORK[] = "WAIT_FORK", S_WAIT_CPU[] = "WAIT_CPU",
		  S_EXIT[] = "EXIT", S_ZOMBIE[] = "ZOMBIE", S_WAIT[] = "WAIT", S_RUN[] = "RUN",
		  S_DEAD[] = "DEAD";

#define ANY_CPU UINT32_MAX
#define NBUCKETS 4096u

typedef struct lv_es {
	const char *t; /* execution mode */
	const char *s; /* process status */
} lv_es;

enum { T_USER, T_KERNEL, T_OTHER };

typedef struct lv_proc {
	struct lv_proc *next; /* hash chain */
	uint32_t pid, tgid, ppid, cpu;
	char *name, *brand;
	int type;
	lv_es *stack;	  /* the slots past depth keep their old content, as a GArray's do */
	uint32_t depth, cap;
	uint64_t *ustack; /* user function call stack */
	uint32_t udepth, ucap;
	uint64_t current_function;
	uint32_t free_events;
	bool dead; /* removed from the table (LTTV freed it) */
} lv_proc;

typedef struct lv_names {
	char **v;
	uint32_t n;
	const char *def; /* "syscall", "trap", "irq", "softirq" */
} lv_names;

typedef struct lv_kprobe {
	uint64_t ip;
	char *sym;
} lv_kprobe;

typedef struct lv_trace {
	const tio_trace *t;
	char *display; /* trace name as printed */
	lv_proc *buckets[NBUCKETS];
	lv_proc **running;
	uint32_t ncpus;
	lv_proc **graveyard; /* freed by LTTV but maybe still referenced: kept until the end */
	size_t ngrave, cgrave;
	lv_names syscalls, traps, irqs, softirqs;
	lv_kprobe *kprobes;
	size_t nkprobes, ckprobes;
} lv_trace;

typedef struct lttv {
	tio_sink base;
	char *trace_path; /* option: the trace path to print */
	lv_trace **traces;
	size_t ntraces, ctraces;
	const tio_trace **begun; /* traces seen in STREAM_BEGIN messages */
	size_t nbegun, cbegun;
	bool header_done;
	tio_buf line;
	int status;
} lttv;

/* ---------------------------------------------------------------- name tables */

static int names_fill(lv_names *nt, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		nt->v[i] = tio_asprintf("%s %u", nt->def, i);
		if (!nt->v[i])
			return TIO_ERR_NOMEM;
	}
	return 0;
}

static int names_init(lv_names *nt, const char *def, uint32_t n)
{
	nt->def = def;
	nt->v = tio_calloc(n, sizeof(char *));
	if (!nt->v)
		return TIO_ERR_NOMEM;
	nt->n = n;
	return names_fill(nt, 0, n);
}

/* LTTV's expand_*_table(): grow to max(id + 1, 2n) when id is past the end. */
static int names_expand(lv_names *nt, uint64_t id)
{
	if (id < nt->n || !nt->v)
		return 0;
	if (id > 1u << 20)
		return tio_err_set(TIO_ERR_LIMIT, "lttv: %s id %" PRIu64 " is too large", nt->def, id);
	uint32_t nn = (uint32_t)id + 1 > nt->n * 2 ? (uint32_t)id + 1 : nt->n * 2;
	char **v = tio_realloc(nt->v, nn * sizeof(char *));
	if (!v)
		return TIO_ERR_NOMEM;
	nt->v = v;
	uint32_t old = nt->n;
	nt->n = nn;
	return names_fill(nt, old, nn);
}

static int names_set(lv_names *nt, uint64_t id, const char *s, size_t len)
{
	int r = names_expand(nt, id);
	if (r || !nt->v)
		return r;
	char *d = tio_strndup(s, len);
	if (!d)
		return TIO_ERR_NOMEM;
	free(nt->v[id]);
	nt->v[id] = d;
	return 0;
}

static void names_free(lv_names *nt)
{
	for (uint32_t i = 0; nt->v && i < nt->n; i++)
		free(nt->v[i]);
	free(nt->v);
}

/* ---------------------------------------------------------------- processes */

static uint32_t bucket(uint32_t pid)
{
	return (pid >> 8 ^ pid >> 4 ^ pid >> 2 ^ pid) % NBUCKETS;
}

/* LTTV's process_equal(): pid 0 exists once per CPU. */
static lv_proc *proc_find(lv_trace *tr, uint32_t cpu, uint32_t pid)
{
	for (lv_proc *p = tr->buckets[bucket(pid)]; p; p = p->next)
		if (p->pid == pid && (pid != 0 || p->cpu == cpu))
			return p;
	return NULL;
}

static int stack_size(lv_proc *p, uint32_t n)
{
	if (n > p->cap) {
		uint32_t nc = p->cap ? p->cap * 2 : 10;
		while (nc < n)
			nc *= 2;
		lv_es *s = tio_realloc(p->stack, nc * sizeof(*s));
		if (!s)
			return TIO_ERR_NOMEM;
		memset(s + p->cap, 0, (nc - p->cap) * sizeof(*s));
		p->stack = s;
		p->cap = nc;
	}
	p->depth = n;
	return 0;
}

static lv_es *top(lv_proc *p) { return &p->stack[p->depth - 1]; }

static void proc_free(lv_proc *p)
{
	free(p->name);
	free(p->brand);
	free(p->stack);
	free(p->ustack);
	free(p);
}

static int set_str(char **dst, const char *s, size_t len)
{
	char *d = tio_strndup(s, len);
	if (!d)
		return TIO_ERR_NOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

/* LTTV's lttv_state_create_process(): user mode, then a system call waiting for the fork. */
static lv_proc *proc_create(lv_trace *tr, const lv_proc *parent, uint32_t cpu, uint32_t pid,
			    uint32_t tgid, const char *name)
{
	lv_proc *p = tio_calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->tgid = tgid;
	p->cpu = cpu;
	p->name = tio_strdup(name);
	p->brand = tio_strdup("");
	if (!p->name || !p->brand || stack_size(p, 2)) {
		proc_free(p);
		return NULL;
	}
	p->type = T_USER;
	p->ppid = parent ? parent->pid : 0;
	p->stack[0] = (lv_es){M_USER, S_RUN};
	p->stack[1] = (lv_es){M_SYSCALL, S_WAIT_FORK};
	uint32_t b = bucket(pid);
	p->next = tr->buckets[b];
	tr->buckets[b] = p;
	return p;
}

/* A process LTTV knows nothing about: one unknown mode on its stack. */
static lv_proc *proc_find_or_create(lv_trace *tr, uint32_t cpu, uint32_t pid)
{
	lv_proc *p = proc_find(tr, cpu, pid);
	if (p)
		return p;
	p = proc_create(tr, NULL, cpu, pid, 0, "");
	if (!p)
		return NULL;
	p->depth = 1;
	p->stack[0] = (lv_es){M_UNKNOWN, S_UNNAMED};
	return p;
}

/* LTTV's exit_process(): forgotten once both the schedule-out and the free were seen. */
static int proc_exit(lv_trace *tr, lv_proc *p)
{
	if (++p->free_events < 2)
		return 0;
	lv_proc **pp = &tr->buckets[bucket(p->pid)];
	while (*pp && *pp != p)
		pp = &(*pp)->next;
	if (*pp)
		*pp = p->next;
	p->dead = true;
	if (tio_grow(&tr->graveyard, &tr->cgrave, tr->ngrave + 1, sizeof(*tr->graveyard)))
		return TIO_ERR_NOMEM;
	tr->graveyard[tr->ngrave++] = p;
	return 1;
}

static int push_state(lv_proc *p, const char *t)
{
	const char *s = top(p)->s;
	if (stack_size(p, p->depth + 1))
		return TIO_ERR_NOMEM;
	*top(p) = (lv_es){t, s};
	return 0;
}

static void pop_state(lv_proc *p, const char *t)
{
	if (top(p)->t != t || p->depth == 1)
		return;
	p->depth--;
}

/* ---------------------------------------------------------------- traces */

static void trace_free(lv_trace *tr)
{
	for (uint32_t b = 0; b < NBUCKETS; b++) {
		lv_proc *p = tr->buckets[b];
		while (p) {
			lv_proc *n = p->next;
			proc_free(p);
			p = n;
		}
	}
	for (size_t i = 0; i < tr->ngrave; i++)
		proc_free(tr->graveyard[i]);
	free(tr->graveyard);
	free(tr->running);
	names_free(&tr->syscalls);
	names_free(&tr->traps);
	names_free(&tr->irqs);
	names_free(&tr->softirqs);
	for (size_t i = 0; i < tr->nkprobes; i++)
		free(tr->kprobes[i].sym);
	free(tr->kprobes);
	free(tr->display);
	free(tr);
}

static const tio_event_class *find_ec(const tio_trace *t, const char *chan, const char *ev)
{
	for (uint32_t i = 0; t->tc && i < t->tc->nscs; i++) {
		const tio_stream_class *sc = t->tc->scs[i];
		if (!sc->name || strcmp(sc->name, chan))
			continue;
		for (uint32_t k = 0; k < sc->necs; k++)
			if (sc->ecs[k]->name && !strcmp(sc->ecs[k]->name, ev))
				return sc->ecs[k];
	}
	return NULL;
}

static int trace_init(lttv *lv, const tio_trace *t, lv_trace **out)
{
	lv_trace *tr = tio_calloc(1, sizeof(*tr));
	if (!tr)
		return TIO_ERR_NOMEM;
	tr->t = t;
	const char *path = lv->trace_path ? lv->trace_path : t->path;
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	tr->display = tio_strndup(path, len);
	/* CPUs: LTTV counts the metadata tracefiles; without them, every stream's id. */
	uint32_t ncpus = 0, nall = 0;
	for (uint32_t i = 0; i < t->nstreams; i++) {
		const tio_stream *s = t->streams[i];
		uint32_t c = s->id < 4096 ? (uint32_t)s->id + 1 : 4096;
		if (s->sc && s->sc->name && !strcmp(s->sc->name, "metadata") && c > ncpus)
			ncpus = c;
		if (c > nall)
			nall = c;
	}
	tr->ncpus = ncpus ? ncpus : (nall ? nall : 1);
	tr->running = tio_calloc(tr->ncpus, sizeof(*tr->running));
	int r = !tr->display || !tr->running ? TIO_ERR_NOMEM : 0;
	/* name tables exist when the events that use them do (LTTV's create_name_tables) */
	if (!r && find_ec(t, "kernel", "syscall_entry"))
		r = names_init(&tr->syscalls, "syscall", 256);
	if (!r && (find_ec(t, "kernel", "trap_entry") || find_ec(t, "kernel", "page_fault_entry")))
		r = names_init(&tr->traps, "trap", 256);
	if (!r && find_ec(t, "kernel", "irq_entry"))
		r = names_init(&tr->irqs, "irq", 256);
	if (!r)
		r = names_init(&tr->softirqs, "softirq", 32);
	for (uint32_t i = 0; !r && i < tr->ncpus; i++) {
		lv_proc *p = proc_create(tr, NULL, i, 0, 0, "");
		if (!p) {
			r = TIO_ERR_NOMEM;
			break;
		}
		p->depth = 1;
		p->stack[0] = (lv_es){M_UNKNOWN, S_UNNAMED};
		tr->running[i] = p;
	}
	if (r) {
		trace_free(tr);
		return r;
	}
	*out = tr;
	return 0;
}

static int trace_get(lttv *lv, const tio_trace *t, lv_trace **out)
{
	for (size_t i = 0; i < lv->ntraces; i++)
		if (lv->traces[i]->t == t) {
			*out = lv->traces[i];
			return 0;
		}
	if (tio_grow(&lv->traces, &lv->ctraces, lv->ntraces + 1, sizeof(*lv->traces)))
		return TIO_ERR_NOMEM;
	int r = trace_init(lv, t, out);
	if (!r)
		lv->traces[lv->ntraces++] = *out;
	return r;
}

/* ---------------------------------------------------------------- field access */

typedef struct ev {
	const tio_msg *m;
	const tio_fc *st;
	const tio_val *root;
} ev;

static const tio_val *field(const ev *e, const char *name)
{
	if (!e->root || !e->st)
		return NULL;
	int i = tio_fc_member_index(e->st, name);
	if (i < 0)
		return NULL;
	/* members are scalars: the i-th child is at root + 1 + i */
	const tio_val *v = e->root + 1 + i;
	if (v >= e->m->vals + e->m->nvals)
		return NULL;
	return v;
}

static bool is_int(const tio_val *v)
{
	return v && v->fc && (v->fc->kind == TIO_FC_INT || v->fc->kind == TIO_FC_ENUM);
}

static bool is_str(const tio_val *v) { return v && v->fc && v->fc->kind == TIO_FC_STRING; }

/* The raw bits of an integer field, zero-extended to 64 bits. */
static uint64_t raw(const tio_val *v)
{
	uint32_t bits = v->fc->i.size;
	uint64_t u = v->v.u;
	return bits >= 64 ? u : u & ((1ull << bits) - 1);
}

/* ltt_event_get_unsigned(): 32-bit read, 0 for 8-byte fields. */
static uint32_t get_unsigned(const tio_val *v) { return v->fc->i.size > 32 ? 0 : (uint32_t)raw(v); }
static uint64_t get_long_unsigned(const tio_val *v) { return raw(v); }
static int64_t get_long_int(const tio_val *v) { return tio_sext(raw(v), v->fc->i.size ? v->fc->i.size : 64); }

/* ---------------------------------------------------------------- state hooks */

enum hook {
	H_NONE,
	H_SYSCALL_ENTRY,
	H_SYSCALL_EXIT,
	H_TRAP_ENTRY,
	H_TRAP_EXIT,
	H_IRQ_ENTRY,
	H_IRQ_EXIT,
	H_SOFTIRQ_RAISE,
	H_SOFTIRQ_ENTRY,
	H_SOFTIRQ_EXIT,
	H_SCHEDCHANGE,
	H_FORK,
	H_KTHREAD,
	H_EXIT,
	H_FREE,
	H_EXEC,
	H_BRAND,
	H_PROCESS_STATE,
	H_STATEDUMP_END,
	H_INTERRUPT,
	H_FUNC_ENTRY,
	H_FUNC_EXIT,
	H_SYSCALL_TABLE,
	H_KPROBE_TABLE,
	H_SOFTIRQ_VEC,
};

typedef struct hook_def {
	const char *chan, *event;
	int hook;
	const char *fields[8]; /* every one must exist for the hook to run */
} hook_def;

static const hook_def hooks[] = {
	{"kernel", "syscall_entry", H_SYSCALL_ENTRY, {"syscall_id"}},
	{"kernel", "syscall_exit", H_SYSCALL_EXIT, {0}},
	{"kernel", "trap_entry", H_TRAP_ENTRY, {"trap_id"}},
	{"kernel", "trap_exit", H_TRAP_EXIT, {0}},
	{"kernel", "page_fault_entry", H_TRAP_ENTRY, {"trap_id"}},
	{"kernel", "page_fault_exit", H_TRAP_EXIT, {0}},
	{"kernel", "page_fault_nosem_entry", H_TRAP_ENTRY, {"trap_id"}},
	{"kernel", "page_fault_nosem_exit", H_TRAP_EXIT, {0}},
	{"kernel", "irq_entry", H_IRQ_ENTRY, {"irq_id"}},
	{"kernel", "irq_exit", H_IRQ_EXIT, {0}},
	{"kernel", "softirq_raise", H_SOFTIRQ_RAISE, {"softirq_id"}},
	{"kernel", "softirq_entry", H_SOFTIRQ_ENTRY, {"softirq_id"}},
	{"kernel", "softirq_exit", H_SOFTIRQ_EXIT, {0}},
	{"kernel", "sched_schedule", H_SCHEDCHANGE, {"prev_pid", "next_pid", "prev_state"}},
	{"kernel", "process_fork", H_FORK, {"parent_pid", "child_pid", "child_tgid"}},
	{"kernel", "kthread_create", H_KTHREAD, {"pid"}},
	{"kernel", "process_exit", H_EXIT, {"pid"}},
	{"kernel", "process_free", H_FREE, {"pid"}},
	{"fs", "exec", H_EXEC, {"filename"}},
	{"userspace", "thread_brand", H_BRAND, {"name"}},
	{"task_state", "process_state", H_PROCESS_STATE,
	 {"pid", "parent_pid", "name", "type", "mode", "submode", "status", "tgid"}},
	{"global_state", "statedump_end", H_STATEDUMP_END, {0}},
	{"irq_state", "interrupt", H_INTERRUPT, {"action", "irq_id"}},
	{"userspace", "function_entry", H_FUNC_ENTRY, {"this_fn", "call_site"}},
	{"userspace", "function_exit", H_FUNC_EXIT, {"this_fn", "call_site"}},
	{"syscall_state", "sys_call_table", H_SYSCALL_TABLE, {"id", "address", "symbol"}},
	{"kprobe_state", "kprobe_table", H_KPROBE_TABLE, {"ip", "symbol"}},
	{"softirq_state", "softirq_vec", H_SOFTIRQ_VEC, {"id", "address", "symbol"}},
};

static const hook_def *find_hook(const char *chan, const char *name, const ev *e, const tio_val **f)
{
	for (size_t i = 0; i < TIO_ARRAY_LEN(hooks); i++) {
		const hook_def *h = &hooks[i];
		if (strcmp(h->chan, chan) || strcmp(h->event, name))
			continue;
		for (int k = 0; k < 8 && h->fields[k]; k++) {
			f[k] = field(e, h->fields[k]);
			if (!f[k])
				return NULL;
		}
		return h;
	}
	return NULL;
}

static int fix_process(lv_proc *p)
{
	lv_es *es = &p->stack[0];
	if (p->type == T_KERNEL) {
		if (es->t == M_UNKNOWN) {
			es->t = M_SYSCALL;
			if (es->s == S_UNNAMED)
				es->s = S_WAIT;
		}
		return 0;
	}
	if (es->t != M_UNKNOWN)
		return 0;
	es->t = M_USER;
	if (es->s == S_UNNAMED)
		es->s = S_RUN;
	if (p->depth == 1) {
		if (stack_size(p, 2))
			return TIO_ERR_NOMEM;
		p->stack[1].t = M_SYSCALL;
		if (p->stack[1].s == S_WAIT_FORK)
			p->stack[1].s = S_WAIT;
	}
	return 0;
}

/* LTTV's state.c hooks, run before the event prints. */
static int update_state(lv_trace *tr, const ev *e, const char *chan, const char *name, uint32_t cpu)
{
	const tio_val *f[8] = {0};
	const hook_def *h = find_hook(chan, name, e, f);
	if (!h)
		return 0;
	for (int k = 0; k < 8 && h->fields[k]; k++)
		if (!is_int(f[k]) && !is_str(f[k]))
			return 0;
	lv_proc *p = tr->running[cpu];
	int r;
	switch (h->hook) {
	case H_SYSCALL_ENTRY:
		if (!is_int(f[0]))
			return 0;
		r = names_expand(&tr->syscalls, get_unsigned(f[0]));
		return r ? r : p->pid != 0 ? push_state(p, M_SYSCALL) : 0;
	case H_SYSCALL_EXIT:
		if (p->pid != 0)
			pop_state(p, M_SYSCALL);
		return 0;
	case H_TRAP_ENTRY:
		if (!is_int(f[0]))
			return 0;
		r = names_expand(&tr->traps, get_long_unsigned(f[0]));
		return r ? r : push_state(p, M_TRAP);
	case H_TRAP_EXIT:
		pop_state(p, M_TRAP);
		return 0;
	case H_IRQ_ENTRY:
		if (!is_int(f[0]))
			return 0;
		r = names_expand(&tr->irqs, get_long_unsigned(f[0]));
		return r ? r : push_state(p, M_IRQ);
	case H_IRQ_EXIT:
		pop_state(p, M_IRQ);
		return 0;
	case H_SOFTIRQ_RAISE:
		return 0;
	case H_SOFTIRQ_ENTRY:
		if (!is_int(f[0]))
			return 0;
		r = names_expand(&tr->softirqs, get_long_unsigned(f[0]));
		return r ? r : push_state(p, M_SOFTIRQ);
	case H_SOFTIRQ_EXIT:
		pop_state(p, M_SOFTIRQ);
		return 0;
	case H_SCHEDCHANGE: {
		if (!is_int(f[0]) || !is_int(f[1]) || !is_int(f[2]))
			return 0;
		uint32_t pid_out = get_unsigned(f[0]), pid_in = get_unsigned(f[1]);
		int64_t state_out = get_long_int(f[2]);
		if (p->pid == 0 && top(p)->t == M_UNKNOWN) {
			if (pid_out == 0 && p->depth == 1) {
				top(p)->t = M_SYSCALL;
				top(p)->s = S_WAIT;
			}
		} else {
			if (top(p)->s == S_EXIT)
				top(p)->s = S_ZOMBIE;
			else
				top(p)->s = state_out == 0 ? S_WAIT_CPU : S_WAIT;
			if (state_out == 32 || state_out == 64) {
				int x = proc_exit(tr, p);
				if (x < 0)
					return x;
				if (!x)
					top(p)->s = S_DEAD;
			}
		}
		p = proc_find_or_create(tr, cpu, pid_in);
		if (!p)
			return TIO_ERR_NOMEM;
		tr->running[cpu] = p;
		top(p)->s = S_RUN;
		p->cpu = cpu;
		return 0;
	}
	case H_FORK: {
		if (!is_int(f[1]) || !is_int(f[2]))
			return 0;
		uint32_t child_pid = get_unsigned(f[1]), child_tgid = get_unsigned(f[2]);
		lv_proc *c = proc_find(tr, ANY_CPU, child_pid);
		if (!c) {
			c = proc_create(tr, p, cpu, child_pid, child_tgid, "");
			if (!c)
				return TIO_ERR_NOMEM;
		} else {
			c->ppid = p->pid;
			c->tgid = child_tgid;
		}
		if (set_str(&c->name, p->name, strlen(p->name)) || set_str(&c->brand, p->brand, strlen(p->brand)))
			return TIO_ERR_NOMEM;
		return 0;
	}
	case H_KTHREAD: {
		if (!is_int(f[0]))
			return 0;
		lv_proc *k = proc_find_or_create(tr, ANY_CPU, (uint32_t)get_long_unsigned(f[0]));
		if (!k)
			return TIO_ERR_NOMEM;
		if (top(k)->s != S_DEAD) {
			k->depth = 1;
			k->stack[0].t = M_SYSCALL;
		}
		k->type = T_KERNEL;
		return 0;
	}
	case H_EXIT: {
		if (!is_int(f[0]))
			return 0;
		lv_proc *x = proc_find(tr, ANY_CPU, get_unsigned(f[0]));
		if (x)
			top(x)->s = S_EXIT;
		return 0;
	}
	case H_FREE: {
		if (!is_int(f[0]))
			return 0;
		uint32_t pid = get_unsigned(f[0]);
		lv_proc *x = pid ? proc_find(tr, ANY_CPU, pid) : NULL;
		r = x ? proc_exit(tr, x) : 0;
		return r < 0 ? r : 0;
	}
	case H_EXEC:
		if (!is_str(f[0]))
			return 0;
		if (set_str(&p->name, f[0]->v.s.p, f[0]->v.s.len) || set_str(&p->brand, "", 0))
			return TIO_ERR_NOMEM;
		return 0;
	case H_BRAND:
		if (!is_str(f[0]))
			return 0;
		return set_str(&p->brand, f[0]->v.s.p, f[0]->v.s.len);
	case H_PROCESS_STATE: {
		if (!is_int(f[0]) || !is_int(f[1]) || !is_str(f[2]) || !is_int(f[7]))
			return 0;
		uint32_t pid = get_unsigned(f[0]), ppid = get_unsigned(f[1]), tgid = get_unsigned(f[7]);
		const tio_val *cmd = f[2];
		if (pid == 0) {
			for (uint32_t i = 0; i < tr->ncpus; i++) {
				lv_proc *z = proc_find(tr, i, 0);
				if (!z)
					continue;
				z->ppid = ppid;
				z->tgid = tgid;
				if (set_str(&z->name, cmd->v.s.p, cmd->v.s.len))
					return TIO_ERR_NOMEM;
				z->type = T_KERNEL;
			}
			return 0;
		}
		lv_proc *x = proc_find(tr, ANY_CPU, pid);
		if (!x) {
			lv_proc *parent = proc_find(tr, ANY_CPU, ppid);
			x = proc_create(tr, parent, cpu, pid, tgid, "");
			if (!x || set_str(&x->name, cmd->v.s.p, cmd->v.s.len))
				return TIO_ERR_NOMEM;
			/* LTTV's "type" is an ENUM-n name that never says kernel thread */
			x->depth = 1;
			x->stack[0] = (lv_es){M_UNKNOWN, S_UNNAMED};
		} else {
			x->ppid = ppid;
			x->tgid = tgid;
			if (set_str(&x->name, cmd->v.s.p, cmd->v.s.len))
				return TIO_ERR_NOMEM;
			x->type = T_OTHER;
		}
		return 0;
	}
	case H_STATEDUMP_END:
		for (uint32_t b = 0; b < NBUCKETS; b++)
			for (lv_proc *x = tr->buckets[b]; x; x = x->next)
				if (fix_process(x))
					return TIO_ERR_NOMEM;
		return 0;
	case H_INTERRUPT:
		if (!is_str(f[0]) || !is_int(f[1]))
			return 0;
		return names_set(&tr->irqs, get_long_unsigned(f[1]), f[0]->v.s.p, f[0]->v.s.len);
	case H_FUNC_ENTRY:
		if (!is_int(f[0]))
			return 0;
		if (p->udepth + 1 > p->ucap) {
			uint32_t nc = p->ucap ? p->ucap * 2 : 8;
			uint64_t *u = tio_realloc(p->ustack, nc * sizeof(*u));
			if (!u)
				return TIO_ERR_NOMEM;
			p->ustack = u;
			p->ucap = nc;
		}
		p->ustack[p->udepth++] = get_long_unsigned(f[0]);
		p->current_function = get_long_unsigned(f[0]);
		return 0;
	case H_FUNC_EXIT:
		if (!is_int(f[0]) || p->current_function != get_long_unsigned(f[0]) || p->udepth == 0)
			return 0;
		p->udepth--;
		p->current_function = p->udepth ? p->ustack[p->udepth - 1] : 0;
		return 0;
	case H_SYSCALL_TABLE:
		if (!is_int(f[0]) || !is_str(f[2]))
			return 0;
		return names_set(&tr->syscalls, get_unsigned(f[0]), f[2]->v.s.p, f[2]->v.s.len);
	case H_KPROBE_TABLE: {
		if (!is_int(f[0]) || !is_str(f[1]))
			return 0;
		uint64_t ip = get_long_unsigned(f[0]);
		for (size_t i = 0; i < tr->nkprobes; i++)
			if (tr->kprobes[i].ip == ip)
				return set_str(&tr->kprobes[i].sym, f[1]->v.s.p, f[1]->v.s.len);
		if (tio_grow(&tr->kprobes, &tr->ckprobes, tr->nkprobes + 1, sizeof(*tr->kprobes)))
			return TIO_ERR_NOMEM;
		lv_kprobe *k = &tr->kprobes[tr->nkprobes];
		k->ip = ip;
		k->sym = tio_strndup(f[1]->v.s.p, f[1]->v.s.len);
		if (!k->sym)
			return TIO_ERR_NOMEM;
		tr->nkprobes++;
		return 0;
	}
	case H_SOFTIRQ_VEC:
		if (!is_int(f[0]) || !is_str(f[2]))
			return 0;
		return names_set(&tr->softirqs, get_unsigned(f[0]), f[2]->v.s.p, f[2]->v.s.len);
	}
	return 0;
}

/* ---------------------------------------------------------------- printing */

/*
 * Print an integer with the printf text of its field class: literal text,
 * "%%", and one conversion with flags from "-+ #0", an optional "ll" and
 * one of d i o u x X c.  Anything else prints as it is written: the text
 * comes from the trace and never reaches printf as a format.
 */
static int print_int(tio_buf *b, const char *fmt, uint64_t u, bool is_signed)
{
	const char *p = fmt;
	bool done = false;
	int r = 0;
	while (*p && !r) {
		if (*p != '%') {
			r = tio_buf_addc(b, *p++);
			continue;
		}
		if (p[1] == '%') {
			r = tio_buf_addc(b, '%');
			p += 2;
			continue;
		}
		const char *q = p + 1;
		char spec[16] = "%";
		size_t k = 1;
		while (strchr("-+ #0", *q) && *q && k < 8)
			spec[k++] = *q++;
		bool ll = q[0] == 'l' && q[1] == 'l';
		if (ll)
			q += 2;
		char conv = *q;
		if (done || !conv || !strchr("diouxXc", conv)) {
			r = tio_buf_addc(b, *p++);
			continue;
		}
		char out[64];
		if (conv == 'c') {
			spec[k++] = 'c';
			spec[k] = 0;
			snprintf(out, sizeof(out), spec, (int)(unsigned char)u);
		} else {
			spec[k++] = 'l';
			spec[k++] = 'l';
			spec[k++] = conv;
			spec[k] = 0;
			if (conv == 'd' || conv == 'i')
				snprintf(out, sizeof(out), spec, (long long)u);
			else
				snprintf(out, sizeof(out), spec, (unsigned long long)u);
		}
		(void)is_signed;
		r = tio_buf_adds(b, out);
		done = true;
		p = q + 1;
	}
	if (!done && !r) /* no conversion: LTTV would print the text alone */
		return 0;
	return r;
}

static const char *table_name(const lv_names *nt, uint64_t v, char *tmp, size_t n)
{
	if (nt->v && v < nt->n)
		return nt->v[v];
	snprintf(tmp, n, "%s %" PRIu64, nt->def, v);
	return tmp;
}

static int print_value(lv_trace *tr, tio_buf *b, const char *chan, const char *evname, const char *fname,
		       const tio_val *v)
{
	int r;
	if (!v->fc)
		return tio_buf_adds(b, "?");
	switch (v->fc->kind) {
	case TIO_FC_STRING:
		r = tio_buf_addc(b, '"');
		r = r ? r : tio_buf_add(b, v->v.s.p, v->v.s.len);
		return r ? r : tio_buf_addc(b, '"');
	case TIO_FC_INT:
	case TIO_FC_ENUM: {
		bool sg = v->fc->i.is_signed;
		uint64_t u = sg ? (uint64_t)get_long_int(v) : get_long_unsigned(v);
		const char *fmt = v->fc->attrs ? v->fc->attrs : (sg ? "%lld" : "%llu");
		r = print_int(b, fmt, u, sg);
		if (r || strcmp(chan, "kernel"))
			return r;
		char tmp[64];
		if (!strcmp(evname, "syscall_entry") && !strcmp(fname, "syscall_id"))
			return tio_buf_addf(b, " [%s]", table_name(&tr->syscalls, u, tmp, sizeof(tmp)));
		if ((!strcmp(evname, "softirq_entry") || !strcmp(evname, "softirq_exit") ||
		     !strcmp(evname, "softirq_raise")) && !strcmp(fname, "softirq_id"))
			return tio_buf_addf(b, " [%s]", table_name(&tr->softirqs, u, tmp, sizeof(tmp)));
		if (!strcmp(evname, "kprobe") && !strcmp(fname, "ip"))
			for (size_t i = 0; i < tr->nkprobes; i++)
				if (tr->kprobes[i].ip == u)
					return tio_buf_addf(b, " [%s]", tr->kprobes[i].sym);
		return 0;
	}
	default:
		return tio_buf_adds(b, "?");
	}
}

static int print_event(lttv *lv, lv_trace *tr, const tio_msg *m, const ev *e, const char *chan,
		       uint32_t cpu)
{
	tio_buf *b = &lv->line;
	tio_buf_reset(b);
	const char *name = m->ec && m->ec->name ? m->ec->name : "?";
	int64_t ns = m->ns;
	long sec = (long)(ns / 1000000000), nsec = (long)(ns % 1000000000);
	if (nsec < 0) {
		nsec += 1000000000;
		sec--;
	}
	const lv_proc *p = tr->running[cpu];
	int r = tio_buf_addf(b, "%s.%s: %ld.%09ld (%s/%s_%u), %u, %u, %s, %s, %u, 0x%" PRIx64 ", %s", chan, name,
			     sec, nsec, tr->display, chan, cpu, p->pid, p->tgid, p->name, p->brand, p->ppid,
			     p->current_function, top((lv_proc *)p)->t ? top((lv_proc *)p)->t : "");
	if (!r && e->root && e->st && e->st->st.nmembers) {
		r = tio_buf_adds(b, " { ");
		for (uint32_t i = 0; !r && i < e->st->st.nmembers; i++) {
			const tio_val *v = e->root + 1 + i;
			if (v >= m->vals + m->nvals)
				break;
			if (i)
				r = tio_buf_adds(b, ", ");
			const char *fname = e->st->st.members[i].name ? e->st->st.members[i].name : "";
			r = r ? r : tio_buf_addf(b, "%s = ", fname);
			r = r ? r : print_value(tr, b, chan, name, fname, v);
		}
		r = r ? r : tio_buf_adds(b, " }");
	}
	r = r ? r : tio_buf_addc(b, '\n');
	if (r)
		return r;
	if (fwrite(b->p, 1, b->len, lv->base.out) != b->len)
		return tio_err_set(TIO_ERR_IO, "lttv: cannot write the output");
	return 0;
}

/* ---------------------------------------------------------------- sink ops */

static int lttv_set(tio_sink *s, const char *key, const char *value)
{
	lttv *lv = (lttv *)s;
	if (!strcmp(key, "trace-path")) {
		char *d = tio_strdup(value ? value : "");
		if (!d)
			return TIO_ERR_NOMEM;
		free(lv->trace_path);
		lv->trace_path = d;
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE, "the lttv style takes no option '%s' (it has: trace-path)", key);
}

static int header(lttv *lv)
{
	if (lv->header_done)
		return 0;
	lv->header_done = true;
	size_t n = lv->nbegun ? lv->nbegun : 1;
	if (fprintf(lv->base.out, "Trace set contains %zu traces\n\n", n) < 0)
		return tio_err_set(TIO_ERR_IO, "lttv: cannot write the output");
	return 0;
}

static int lttv_consume(tio_sink *s, const tio_msg *m)
{
	lttv *lv = (lttv *)s;
	const tio_stream *st = m->stream;
	if (m->type == TIO_MSG_STREAM_BEGIN) {
		if (!st || !st->trace)
			return 0;
		for (size_t i = 0; i < lv->nbegun; i++)
			if (lv->begun[i] == st->trace)
				return 0;
		if (tio_grow(&lv->begun, &lv->cbegun, lv->nbegun + 1, sizeof(*lv->begun)))
			return TIO_ERR_NOMEM;
		lv->begun[lv->nbegun++] = st->trace;
		return 0;
	}
	int r = header(lv);
	if (r)
		return r;
	if (!st || !st->trace)
		return 0;
	if (m->type == TIO_MSG_DISCARDED_EVENTS || m->type == TIO_MSG_DISCARDED_PACKETS) {
		bool evs = m->type == TIO_MSG_DISCARDED_EVENTS;
		fprintf(lv->base.err, "Warning: %" PRIu64 " %s lost in tracefile %s before %" PRId64 ".%09" PRId64 "\n",
			m->count, evs ? "events" : "sub-buffers", st->path ? st->path : "?", m->ns / 1000000000,
			m->ns % 1000000000);
		return 0;
	}
	if (m->type != TIO_MSG_EVENT)
		return 0;
	lv_trace *tr;
	r = trace_get(lv, st->trace, &tr);
	if (r)
		return r;
	uint32_t cpu = (uint32_t)st->id;
	if (cpu >= tr->ncpus) {
		/* LTTV knows the CPUs of the metadata channel only; a tracefile of
		 * another CPU gets its own idle process here */
		if (st->id >= 4096)
			return tio_err_set(TIO_ERR_LIMIT, "lttv: %s: CPU %" PRIu64 " is too large", st->path, st->id);
		lv_proc **nr = tio_realloc(tr->running, (cpu + 1) * sizeof(*nr));
		if (!nr)
			return TIO_ERR_NOMEM;
		tr->running = nr;
		for (uint32_t i = tr->ncpus; i <= cpu; i++) {
			lv_proc *p = proc_create(tr, NULL, i, 0, 0, "");
			if (!p)
				return TIO_ERR_NOMEM;
			p->depth = 1;
			p->stack[0] = (lv_es){M_UNKNOWN, S_UNNAMED};
			tr->running[i] = p;
		}
		tr->ncpus = cpu + 1;
	}
	const char *chan = st->sc && st->sc->name ? st->sc->name : "?";
	ev e = {m, NULL, m->scope[TIO_SCOPE_PAYLOAD]};
	if (e.root && e.root->fc && e.root->fc->kind == TIO_FC_STRUCT)
		e.st = e.root->fc;
	else
		e.root = NULL;
	const char *name = m->ec && m->ec->name ? m->ec->name : "?";
	r = update_state(tr, &e, chan, name, cpu);
	if (r)
		return r;
	return print_event(lv, tr, m, &e, chan, cpu);
}

static int lttv_finish(tio_sink *s)
{
	lttv *lv = (lttv *)s;
	int r = header(lv);
	if (r)
		return r;
	if (fputs("End trace set\n\n", lv->base.out) < 0)
		return tio_err_set(TIO_ERR_IO, "lttv: cannot write the output");
	return 0;
}

static void lttv_fini(tio_sink *s)
{
	lttv *lv = (lttv *)s;
	for (size_t i = 0; i < lv->ntraces; i++)
		trace_free(lv->traces[i]);
	free(lv->traces);
	free(lv->begun);
	free(lv->trace_path);
	tio_buf_free(&lv->line);
}

const tio_sink_ops tio_sink_lttv_ops = {
	.name = "lttv",
	.size = sizeof(lttv),
	.set = lttv_set,
	.consume = lttv_consume,
	.finish = lttv_finish,
	.fini = lttv_fini,
};

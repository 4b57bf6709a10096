/*
 * Event filters (include/traceio/filter.h): the -F texts parsed by
 * filter-parse.c are compiled for each event class the first time one of
 * its events is matched, into a flat array of nodes whose field names are
 * resolved tio_field_refs, then evaluated on each event with the public
 * value API.  Classes are found by pointer in a small open-addressing table
 * (the last one found is remembered), so an event costs no allocation and
 * no name comparison.
 *
 * The semantics are libtraceevent's and trace-cmd report's (3.1):
 *   - an event passes when one non-inverted filter naming its class is true
 *     for it (or when there is none), and no inverted (-v) filter naming its
 *     class is true for it;
 *   - a comparison on a field the class lacks is false (its negation true);
 *   - integers compare as 64-bit unsigned numbers, signed fields sign-extended
 *     first (so -1 is greater than 5, as in libtraceevent);
 *   - a string compared with an integer field compares the number written
 *     "0x%llx" (libtraceevent also tries kernel symbols; not done here);
 *   - COMM (when the class has no such field) is the task name: LTTng's
 *     procname context, or the trace.dat saved command line of common_pid
 *     ("<...>" when unknown); CPU is the message's CPU (tio_msg_cpu);
 *   - trace.dat's kernel_stack/user_stack events (system ftrace) that no
 *     positive filter names pass when the last event of their CPU that a
 *     positive filter kept (or a stack trace so passed) was not dropped by
 *     an inverted one (trace-cmd 3.1.6's tracecmd_filter_match: events no
 *     positive filter keeps do not change that state).
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter-int.h"
#include "traceio/class.h"
#include "traceio/field.h"
#include "traceio/filter.h"

/* Compiled node kinds. */
enum c_kind { C_FALSE = 0, C_TRUE, C_AND, C_OR, C_NOT, C_ICMP, C_SCMP, C_ARITH };
/* Where a compiled comparison reads its value. */
enum c_src {
	S_SINT = 0, /* signed integer field (sign-extended) */
	S_UINT,	    /* unsigned integer field, enum, bool */
	S_FLOAT,    /* floating point field (truncated to an integer) */
	S_STR,	    /* string field */
	S_BYTES,    /* BLOB: its bytes up to the first NUL, as a string */
	S_ARR8,	    /* array of 8-bit integers not marked as text (char arrays of some traces) */
	S_CPU,	    /* the message's CPU (tio_msg_cpu) */
	S_CPU_CTX,  /* CTF: the packet context's cpu_id, by its resolved ref */
	S_COMM_PID, /* the saved command line of a pid field */
};

typedef struct cnode {
	uint8_t kind, op, src, as_hex; /* as_hex: an integer source compared as a string */
	int32_t a, b;		       /* children, or (comparisons) the field ref index */
	uint64_t num;
	const fx_node *x; /* string, regex */
} cnode;

#define NOT_NAMED (-1)

/* One event class compiled for every filter. */
typedef struct fclass {
	const tio_event_class *ec;
	int32_t
	    *root; /* per filter: root node, NOT_NAMED when the filter does not name the class */
	cnode *nodes;
	size_t nnodes, cap;
	tio_field_ref *refs;
	size_t nrefs, refcap;
	bool stack; /* ftrace kernel_stack or user_stack */
	bool ctf;   /* its trace is CTF */
	bool track; /* its trace has stack events: remember what passed per stream */
} fclass;

/* Pointer -> index table, open addressing, power-of-two size. */
typedef struct ptab {
	const void **key;
	uint32_t *val;
	size_t size, n;
} ptab;

struct tio_filter {
	fx_filter *f; /* positive filters first? no: in order added */
	size_t nf, fcap;
	size_t npos; /* filters not inverted */
	fclass **cls;
	size_t ncls, clscap;
	ptab ctab; /* event class -> cls index */
	const tio_event_class *last_ec;
	fclass *last;
	ptab stab;	  /* stream -> last_printed index */
	uint8_t *printed; /* per stream: the last event of the stream passed */
	size_t nprinted, pcap;
	uint8_t no_stream; /* the flag of messages without a stream */
	tio_buf scratch; /* NUL-terminated copies for regexec/fnmatch, hex numbers */
};

/* Hash a pointer into a table of `size` (a power of two) slots. */
static size_t ptr_hash(const void *p, size_t size)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (size - 1);
}

/* The value of key k, or UINT32_MAX. */
static uint32_t ptab_get(const ptab *t, const void *k)
{
	if (!t->size)
		return UINT32_MAX;
	for (size_t i = ptr_hash(k, t->size);; i = (i + 1) & (t->size - 1)) {
		if (t->key[i] == k)
			return t->val[i];
		if (!t->key[i])
			return UINT32_MAX;
	}
}

/* Insert k -> v (k not present), growing at half full. */
static int ptab_put(ptab *t, const void *k, uint32_t v)
{
	if (2 * (t->n + 1) > t->size) {
		size_t ns = t->size ? 2 * t->size : 64;
		const void **nk = tio_calloc(ns, sizeof(*nk));
		uint32_t *nv = tio_calloc(ns, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return TIO_ERR_NOMEM;
		}
		for (size_t i = 0; i < t->size; i++) {
			if (!t->key[i])
				continue;
			size_t j = ptr_hash(t->key[i], ns);
			while (nk[j])
				j = (j + 1) & (ns - 1);
			nk[j] = t->key[i];
			nv[j] = t->val[i];
		}
		free(t->key);
		free(t->val);
		t->key = nk;
		t->val = nv;
		t->size = ns;
	}
	size_t i = ptr_hash(k, t->size);
	while (t->key[i])
		i = (i + 1) & (t->size - 1);
	t->key[i] = k;
	t->val[i] = v;
	t->n++;
	return 0;
}

static void ptab_free(ptab *t)
{
	free(t->key);
	free(t->val);
	memset(t, 0, sizeof(*t));
}

int tio_filter_new(tio_filter **out)
{
	*out = tio_calloc(1, sizeof(**out));
	return *out ? 0 : TIO_ERR_NOMEM;
}

/* Forget every compiled class (a filter was added). */
static void drop_classes(tio_filter *f)
{
	for (size_t i = 0; i < f->ncls; i++) {
		free(f->cls[i]->root);
		free(f->cls[i]->nodes);
		free(f->cls[i]->refs);
		free(f->cls[i]);
	}
	f->ncls = 0;
	ptab_free(&f->ctab);
	f->last_ec = NULL;
	f->last = NULL;
}

int tio_filter_add(tio_filter *f, const char *expr, bool invert)
{
	if (!f || !expr)
		return tio_err_set(TIO_ERR_USAGE, "tio_filter_add: no filter or expression");
	if (tio_grow(&f->f, &f->fcap, f->nf + 1, sizeof(*f->f)))
		return TIO_ERR_NOMEM;
	fx_filter x;
	int r = fx_parse(expr, &x);
	if (r) {
		fx_filter_fini(&x);
		return r;
	}
	x.invert = invert;
	/* positive filters first, each group in the order given */
	size_t at = invert ? f->nf : f->npos;
	memmove(&f->f[at + 1], &f->f[at], (f->nf - at) * sizeof(*f->f));
	f->f[at] = x;
	f->nf++;
	if (!invert)
		f->npos++;
	drop_classes(f);
	return 0;
}

size_t tio_filter_count(const tio_filter *f) { return f ? f->nf : 0; }

/*
 * The names an event class answers to: its system (trace.dat's, or the
 * provider of an LTTng "provider:event" name, copied into sysbuf) and its
 * short name (after that ':').
 */
static void class_names(const tio_event_class *ec, const char **full, const char **sys,
			const char **shortn, char *sysbuf, size_t sysbuf_len)
{
	const char *name = tio_event_class_name(ec);
	*full = name ? name : "";
	*shortn = *full;
	*sys = tio_event_class_system(ec);
	if (!*sys) {
		const char *c = strchr(*full, ':');
		if (c && (size_t)(c - *full) < sysbuf_len) {
			memcpy(sysbuf, *full, (size_t)(c - *full));
			sysbuf[c - *full] = 0;
			*sys = sysbuf;
			*shortn = c + 1;
		}
	}
}

/* Whether event list element ev names the class of these names (libtraceevent's event_match). */
static bool event_matches(const fx_event *ev, const char *full, const char *sys, const char *shortn)
{
	if (ev->has_sys)
		return sys && !regexec(&ev->sys, sys, 0, NULL, 0) &&
		       (!regexec(&ev->name, shortn, 0, NULL, 0) ||
			(shortn != full && !regexec(&ev->name, full, 0, NULL, 0)));
	return !regexec(&ev->name, full, 0, NULL, 0) ||
	       (shortn != full && !regexec(&ev->name, shortn, 0, NULL, 0)) ||
	       (sys && !regexec(&ev->name, sys, 0, NULL, 0));
}

int tio_filter_check(tio_filter *f, tio_trace *const *traces, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < f->nf; i++)
		total += f->f[i].nev;
	if (!total)
		return 0;
	bool *seen = tio_calloc(total, sizeof(*seen));
	if (!seen)
		return TIO_ERR_NOMEM;
	for (size_t t = 0; t < n; t++) {
		for (uint32_t s = 0; s < tio_trace_stream_class_count(traces[t]); s++) {
			const tio_stream_class *sc = tio_trace_stream_class(traces[t], s);
			for (uint32_t e = 0; e < tio_stream_class_event_class_count(sc); e++) {
				const tio_event_class *ec = tio_stream_class_event_class(sc, e);
				const char *full, *sys, *shortn;
				char sysbuf[256];
				class_names(ec, &full, &sys, &shortn, sysbuf, sizeof(sysbuf));
				size_t k = 0;
				for (size_t i = 0; i < f->nf; i++)
					for (size_t j = 0; j < f->f[i].nev; j++, k++)
						if (!seen[k] && event_matches(&f->f[i].ev[j], full,
									      sys, shortn))
							seen[k] = true;
			}
		}
	}
	int r = 0;
	size_t k = 0;
	for (size_t i = 0; i < f->nf && !r; i++)
		for (size_t j = 0; j < f->f[i].nev && !r; j++, k++)
			if (!seen[k])
				r = tio_err_set(
				    TIO_ERR_USAGE, "-F: no event matches '%s' at %u (in '%s')",
				    f->f[i].ev[j].text, f->f[i].ev[j].col, f->f[i].text);
	free(seen);
	return r;
}

int tio_filter_wants(tio_filter *f, const tio_event_class *ec)
{
	if (!f || !f->npos || !ec)
		return TIO_SKIP_WANT;
	const char *full, *sys, *shortn;
	char sysbuf[256];
	class_names(ec, &full, &sys, &shortn, sysbuf, sizeof(sysbuf));
	if (sys && !strcmp(sys, "ftrace") && (!strcmp(full, "kernel_stack") || !strcmp(full, "user_stack")))
		return TIO_SKIP_WANT;
	for (size_t i = 0; i < f->npos; i++)
		for (size_t j = 0; j < f->f[i].nev; j++)
			if (event_matches(&f->f[i].ev[j], full, sys, shortn))
				return TIO_SKIP_WANT;
	return TIO_SKIP_NONE;
}

/* Append a compiled node; its index or -1. */
static int32_t cadd(fclass *c, const cnode *n)
{
	if (tio_grow(&c->nodes, &c->cap, c->nnodes + 1, sizeof(*c->nodes)))
		return -1;
	c->nodes[c->nnodes] = *n;
	return (int32_t)c->nnodes++;
}

/* Whether a source gives text (the others give integers). */
static bool is_str_src(int src)
{
	return src == S_STR || src == S_BYTES || src == S_ARR8 || src == S_COMM_PID;
}

/*
 * How a comparison reads `name` in class ec: sets *src and, for fields, the
 * ref (appended to c->refs, its index in *ref).  false: the class has no
 * such value (or none a comparison can use).
 */
static bool resolve_source(fclass *c, const char *name, uint8_t *src, int32_t *ref, int *err)
{
	tio_field_ref r;
	bool comm = false;
	if (tio_field_ref_resolve(c->ec, name, &r)) {
		tio_error_clear();
		if (!strcmp(name, "CPU")) {
			/* CTF: the packet context's cpu_id (what tio_msg_cpu reads), resolved
			   once rather than looked up by name per event */
			*src = S_CPU;
			if (c->ctf && !tio_field_ref_resolve(c->ec, "packet.context.cpu_id", &r)) {
				const tio_field_class *cfc = (const tio_field_class *)r.fc;
				int kd = tio_field_class_kind(cfc);
				if ((kd == TIO_FIELD_INT || kd == TIO_FIELD_ENUM) &&
				    tio_field_class_int_size(cfc) <= 64 &&
				    !tio_grow(&c->refs, &c->refcap, c->nrefs + 1,
					      sizeof(*c->refs))) {
					c->refs[c->nrefs] = r;
					*ref = (int32_t)c->nrefs++;
					*src = S_CPU_CTX;
				}
			}
			tio_error_clear();
			return true;
		}
		if (strcmp(name, "COMM"))
			return false;
		/* the task name: LTTng's procname context, else trace.dat's common_pid's comm */
		if (!tio_field_ref_resolve(c->ec, "procname", &r)) {
		} else if (!tio_field_ref_resolve(c->ec, "common_pid", &r)) {
			comm = true;
		} else {
			tio_error_clear();
			return false;
		}
	}
	const tio_field_class *fc = (const tio_field_class *)r.fc;
	switch (tio_field_class_kind(fc)) {
	case TIO_FIELD_INT:
	case TIO_FIELD_ENUM:
	case TIO_FIELD_BITMAP:
	case TIO_FIELD_VARINT:
		if (tio_field_class_int_size(fc) > 64 &&
		    tio_field_class_kind(fc) != TIO_FIELD_VARINT)
			return false;
		*src = tio_field_class_int_signed(fc) ? S_SINT : S_UINT;
		break;
	case TIO_FIELD_BOOL:
		*src = S_UINT;
		break;
	case TIO_FIELD_FLOAT:
		*src = S_FLOAT;
		break;
	case TIO_FIELD_STRING:
	case TIO_FIELD_STATIC_STRING:
	case TIO_FIELD_DYNAMIC_STRING:
		*src = S_STR;
		break;
	case TIO_FIELD_STATIC_BLOB:
	case TIO_FIELD_DYNAMIC_BLOB:
		*src = S_BYTES;
		break;
	case TIO_FIELD_ARRAY:
	case TIO_FIELD_SEQUENCE: {
		const tio_field_class *el = tio_field_class_element(fc);
		if (tio_field_class_is_text(fc))
			*src = S_STR;
		else if (el && tio_field_class_kind(el) == TIO_FIELD_INT &&
			 tio_field_class_int_size(el) == 8)
			*src = S_ARR8;
		else
			return false;
		break;
	}
	default:
		return false;
	}
	if (comm) {
		if (is_str_src(*src) || *src == S_FLOAT)
			return false;
		*src = S_COMM_PID;
	}
	if (tio_grow(&c->refs, &c->refcap, c->nrefs + 1, sizeof(*c->refs))) {
		*err = TIO_ERR_NOMEM;
		return false;
	}
	c->refs[c->nrefs] = r;
	*ref = (int32_t)c->nrefs++;
	return true;
}

/* Compile node i of filter x for class c into *out. */
static int compile_node(fclass *c, const fx_filter *x, int32_t i, int32_t *out)
{
	const fx_node *n = &x->nodes[i];
	cnode k = {.a = -1, .b = -1, .x = n};
	int r;
	switch (n->kind) {
	case FX_AND:
	case FX_OR:
		k.kind = n->kind == FX_AND ? C_AND : C_OR;
		if ((r = compile_node(c, x, n->a, &k.a)) || (r = compile_node(c, x, n->b, &k.b)))
			return r;
		break;
	case FX_NOT:
		k.kind = C_NOT;
		if ((r = compile_node(c, x, n->a, &k.a)))
			return r;
		break;
	default: {
		int err = 0;
		k.op = n->op;
		k.num = n->num;
		if (!resolve_source(c, n->field, &k.src, &k.a, &err)) {
			if (err)
				return err;
			k.kind = C_FALSE; /* a field the class lacks: false */
			break;
		}
		if (n->kind == FX_ARITH) {
			k.kind = is_str_src(k.src) ? C_FALSE : C_ARITH;
		} else if (n->vkind == FV_STR) {
			k.kind = C_SCMP;
			k.as_hex = !is_str_src(k.src);
		} else {
			/* a number compared with a string value: never true */
			k.kind = is_str_src(k.src) ? C_FALSE : C_ICMP;
		}
		break;
	}
	}
	*out = cadd(c, &k);
	return *out < 0 ? TIO_ERR_NOMEM : 0;
}

/* Compile every filter for event class ec; the new class or NULL (error set). */
static fclass *compile_class(tio_filter *f, const tio_event_class *ec, const tio_msg *m)
{
	fclass *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ec = ec;
	const tio_trace *tr = tio_stream_trace(tio_msg_stream(m));
	c->ctf = tr && tio_trace_format(tr) && !strcmp(tio_trace_format(tr), "ctf");
	c->root = tio_calloc(f->nf ? f->nf : 1, sizeof(*c->root));
	if (!c->root)
		goto fail;
	const char *full, *sys, *shortn;
	char sysbuf[256];
	class_names(ec, &full, &sys, &shortn, sysbuf, sizeof(sysbuf));
	for (size_t i = 0; i < f->nf; i++) {
		const fx_filter *x = &f->f[i];
		bool named = false;
		for (size_t j = 0; j < x->nev && !named; j++)
			named = event_matches(&x->ev[j], full, sys, shortn);
		c->root[i] = NOT_NAMED;
		if (!named)
			continue;
		if (x->root < 0) {
			cnode k = {.kind = C_TRUE, .a = -1, .b = -1};
			if ((c->root[i] = cadd(c, &k)) < 0)
				goto fail;
		} else if (compile_node(c, x, x->root, &c->root[i])) {
			goto fail;
		}
	}
	/* trace.dat stack traces follow the event before them (tracecmd_filter_match) */
	const char *esys = tio_event_class_system(ec);
	c->stack = esys && !strcmp(esys, "ftrace") &&
		   (!strcmp(full, "kernel_stack") || !strcmp(full, "user_stack"));
	const tio_trace *t = tio_stream_trace(tio_msg_stream(m));
	if (t && f->npos) {
		static const char *const stacks[] = {"kernel_stack", "user_stack"};
		for (size_t i = 0; i < 2 && !c->track; i++) {
			const tio_event_class *s = tio_trace_event_class_by_name(t, stacks[i]);
			const char *ss = s ? tio_event_class_system(s) : NULL;
			c->track = ss && !strcmp(ss, "ftrace");
		}
	}
	if (tio_grow(&f->cls, &f->clscap, f->ncls + 1, sizeof(*f->cls)) ||
	    ptab_put(&f->ctab, ec, (uint32_t)f->ncls))
		goto fail;
	f->cls[f->ncls++] = c;
	return c;
fail:
	free(c->root);
	free(c->nodes);
	free(c->refs);
	free(c);
	return NULL;
}

/* Read an integer source; false when the value is absent. */
static bool read_int(const fclass *c, const cnode *k, const tio_msg *m, uint64_t *v)
{
	if (k->src == S_CPU)
		return tio_msg_cpu(m, v);
	const tio_field *fl = tio_msg_field(m, &c->refs[k->a]);
	if (!fl)
		return false;
	switch (k->src) {
	case S_CPU_CTX: {
		int64_t s;
		if (!tio_field_uint(fl, v))
			return true;
		return !tio_field_int(fl, &s) && s >= 0 && (*v = (uint64_t)s, true);
	}
	case S_SINT:
	case S_COMM_PID: {
		int64_t s;
		if (tio_field_int(fl, &s)) {
			if (k->src == S_COMM_PID || tio_field_uint(fl, v))
				return false;
			return true;
		}
		*v = (uint64_t)s;
		return true;
	}
	case S_UINT:
		if (tio_field_kind(fl) == TIO_FIELD_BOOL) {
			bool b;
			if (tio_field_bool(fl, &b))
				return false;
			*v = b;
			return true;
		}
		return !tio_field_uint(fl, v);
	case S_FLOAT: {
		double d;
		if (tio_field_double(fl, &d))
			return false;
		*v = d < 0 ? (uint64_t)(int64_t)d : (uint64_t)d;
		return true;
	}
	default:
		return false;
	}
}

/* A NUL-terminated copy of [p, p + len) in the filter's scratch buffer. */
static const char *cstr(tio_filter *f, const char *p, size_t len)
{
	if (p == f->scratch.p && len == f->scratch.len) { /* already there (S_ARR8) */
		if (tio_buf_reserve(&f->scratch, 1))
			return NULL;
		f->scratch.p[len] = 0;
		return f->scratch.p;
	}
	tio_buf_reset(&f->scratch);
	if (tio_buf_add(&f->scratch, p, len))
		return NULL;
	f->scratch.p[len] = 0;
	return f->scratch.p;
}

/* Read a text source: *p, *len up to the first NUL; false when absent. */
static bool read_str(tio_filter *f, const fclass *c, const cnode *k, const tio_msg *m,
		     const char **p, size_t *len)
{
	const tio_field *fl = tio_msg_field(m, &c->refs[k->a]);
	if (!fl)
		return false;
	if (k->src == S_STR) {
		if (tio_field_string(fl, p, len))
			return false;
	} else if (k->src == S_BYTES) {
		const uint8_t *b;
		if (tio_field_bytes(fl, &b, len))
			return false;
		*p = (const char *)b;
	} else { /* S_ARR8: the elements as bytes, in the scratch buffer */
		const tio_field *e = NULL;
		uint64_t n;
		tio_buf_reset(&f->scratch);
		if (tio_field_length(fl, &n) || (n && tio_field_element(fl, 0, &e)))
			return false;
		while (e) {
			uint64_t v;
			int64_t sv;
			if (tio_field_class_int_signed(tio_field_get_class(e))) {
				if (tio_field_int(e, &sv))
					return false;
				v = (uint8_t)sv;
			} else if (tio_field_uint(e, &v)) {
				return false;
			}
			if (!v || tio_buf_addc(&f->scratch, (char)v))
				break;
			if (tio_field_next_child(fl, e, &e))
				return false;
		}
		*p = f->scratch.p ? f->scratch.p : "";
		*len = f->scratch.len;
		return true;
	}
	const char *z = memchr(*p, 0, *len);
	if (z)
		*len = (size_t)(z - *p);
	return true;
}

/* Evaluate compiled node i on m. */
static bool eval(tio_filter *f, const fclass *c, int32_t i, const tio_msg *m)
{
	const cnode *k = &c->nodes[i];
	switch (k->kind) {
	case C_TRUE:
		return true;
	case C_AND:
		return eval(f, c, k->a, m) && eval(f, c, k->b, m);
	case C_OR:
		return eval(f, c, k->a, m) || eval(f, c, k->b, m);
	case C_NOT:
		return !eval(f, c, k->a, m);
	case C_ICMP: {
		uint64_t v;
		if (!read_int(c, k, m, &v))
			return false;
		switch (k->op) {
		case FO_EQ:
			return v == k->num;
		case FO_NE:
			return v != k->num;
		case FO_LT:
			return v < k->num;
		case FO_LE:
			return v <= k->num;
		case FO_GT:
			return v > k->num;
		case FO_GE:
			return v >= k->num;
		default:
			return false;
		}
	}
	case C_ARITH: {
		uint64_t v;
		if (!read_int(c, k, m, &v))
			return false;
		switch (k->op) {
		case FO_ADD:
			return v + k->num != 0;
		case FO_SUB:
			return v - k->num != 0;
		case FO_MUL:
			return v * k->num != 0;
		case FO_DIV:
			return k->num && v / k->num != 0;
		case FO_MOD:
			return k->num && v % k->num != 0;
		case FO_SHL:
			return k->num < 64 && (v << k->num) != 0;
		case FO_SHR:
			return k->num < 64 && (v >> k->num) != 0;
		case FO_BAND:
			return (v & k->num) != 0;
		case FO_BOR:
			return (v | k->num) != 0;
		case FO_XOR:
			return (v ^ k->num) != 0;
		default:
			return false;
		}
	}
	case C_SCMP: {
		const char *p;
		size_t len;
		char hex[24];
		if (k->as_hex) {
			uint64_t v;
			if (!read_int(c, k, m, &v))
				return false;
			len = (size_t)snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)v);
			p = hex;
		} else if (k->src == S_COMM_PID) {
			uint64_t v;
			if (!read_int(c, k, m, &v))
				return false;
			p = tio_trace_comm(tio_stream_trace(tio_msg_stream(m)), (int64_t)v);
			if (!p)
				p = "<...>";
			len = strlen(p);
		} else if (!read_str(f, c, k, m, &p, &len)) {
			return false;
		}
		const fx_node *x = k->x;
		switch (k->op) {
		case FO_EQ:
			return len == x->slen && !memcmp(p, x->str, len);
		case FO_NE:
			return !(len == x->slen && !memcmp(p, x->str, len));
		case FO_RE:
		case FO_NRE: {
			const char *s = cstr(f, p, len);
			bool hit = s && !regexec(x->re, s, 0, NULL, 0);
			return k->op == FO_RE ? hit : !hit;
		}
		case FO_GLOB: {
			const char *s = cstr(f, p, len);
			return s && !fnmatch(x->str, s, 0);
		}
		default:
			return false;
		}
	}
	default:
		return false;
	}
}

/* The per-stream "last event passed" flag of m's stream (NULL: out of memory). */
static uint8_t *printed_flag(tio_filter *f, const tio_msg *m)
{
	const void *s = tio_msg_stream(m);
	if (!s) /* no stream to remember it for */
		return &f->no_stream;
	uint32_t i = ptab_get(&f->stab, s);
	if (i != UINT32_MAX)
		return &f->printed[i];
	if (tio_grow(&f->printed, &f->pcap, f->nprinted + 1, 1) ||
	    ptab_put(&f->stab, s, (uint32_t)f->nprinted))
		return NULL;
	f->printed[f->nprinted] = 0;
	return &f->printed[f->nprinted++];
}

int tio_filter_match(tio_filter *f, const tio_msg *m)
{
	if (!f || !f->nf || tio_msg_kind(m) != TIO_MSG_KIND_EVENT)
		return 1;
	const tio_event_class *ec = tio_msg_event_class(m);
	if (!ec) /* an event without a class: no filter names it */
		return f->npos ? 0 : 1;
	fclass *c;
	if (TIO_LIKELY(ec == f->last_ec && f->last)) {
		c = f->last;
	} else {
		uint32_t i = ptab_get(&f->ctab, ec);
		c = i != UINT32_MAX ? f->cls[i] : compile_class(f, ec, m);
		if (!c)
			return TIO_ERR_NOMEM;
		f->last_ec = ec;
		f->last = c;
	}
	bool found = false;
	uint8_t *pr = NULL;
	if (c->track && !(pr = printed_flag(f, m)))
		return TIO_ERR_NOMEM;
	if (f->npos) {
		for (size_t i = 0; i < f->npos && !found; i++)
			found = c->root[i] != NOT_NAMED && eval(f, c, c->root[i], m);
		/* a stack trace that no filter names follows what its CPU printed last */
		if (!found && (!c->stack || !pr || !*pr))
			return 0;
	}
	found = false;
	for (size_t i = f->npos; i < f->nf && !found; i++)
		found = c->root[i] != NOT_NAMED && eval(f, c, c->root[i], m);
	if (pr) /* trace-cmd 3.1.6: a stack trace shown leaves it set */
		*pr = !found;
	return !found;
}

void tio_filter_free(tio_filter *f)
{
	if (!f)
		return;
	drop_classes(f);
	free(f->cls);
	for (size_t i = 0; i < f->nf; i++)
		fx_filter_fini(&f->f[i]);
	free(f->f);
	ptab_free(&f->stab);
	free(f->printed);
	tio_buf_free(&f->scratch);
	free(f);
}

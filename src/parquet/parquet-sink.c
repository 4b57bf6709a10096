/*
 * The "parquet" sink (traceio convert --to parquet): one Parquet file per
 * event class that has events, events.parquet (ts, name, cpu, stream) for
 * the whole trace, and meta.json (classes and their files, clocks,
 * environment, streams, discarded-event records), in a directory per
 * trace.  docs/formats/parquet.md describes the layout and type mapping.
 *
 * Each event class gets a plan (pnode tree) made once from its field
 * classes alongside the Parquet schema: structures are flattened with '.'
 * at the top level (groups inside lists and optional values), arrays are
 * LISTs, variants a set of optional members (one per option, the chosen
 * one present), CTF 2 optionals optional fields.  An event is one walk
 * over its flat value array that appends each leaf to its column buffer
 * (src/parquet/pq-write.c): nothing is allocated per event.  The plan of a
 * scope of scalars is also a list of ops at fixed offsets (its plain
 * integers first, a loop per width), and of scalars, lists of integers and
 * texts a list of ops taken in order (struct pop); other scopes are walked
 * by emit().  A class's
 * rows are buffered up to the row-group size, or less when everything
 * buffered goes over the memory budget (then the biggest is written
 * first).  Output goes to OUT.tmp-XXXXXX, renamed to OUT at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "parquet/pq.h"
#include "sink/sink.h"
#include "traceio/class.h"

enum pkind {
	PN_NONE, /* no columns (an empty structure) */
	PN_INT,	 /* signed integer, enumeration */
	PN_UINT, /* unsigned integer, enumeration, bit map */
	PN_BIG,	 /* integer wider than 64 bits: FIXED_LEN_BYTE_ARRAY, big-endian */
	PN_BOOL,
	PN_FLOAT,
	PN_STR,	 /* UTF-8 string */
	PN_WSTR, /* UTF-16/UTF-32 string, converted */
	PN_TEXT, /* CTF 1 array of characters */
	PN_BLOB,
	PN_STRUCT,
	PN_LIST,
	PN_VARIANT,
	PN_OPTIONAL,
	OP_I32, /* ops only: an integer of a REQUIRED INT32 column (no levels) */
	OP_I64, /* ... of a REQUIRED INT64 column */
	OP_IN,	/* sequential ops only: a structure's own value (its members follow) */
	OP_LIST_INT, /* sequential ops only: a list of integers (the element column) */
};

/* The plan of a value class: where its leaves go and at which levels. */
typedef struct pnode {
	uint8_t kind;
	uint8_t
	    absent_def; /* LIST: an empty list; OPTIONAL: no value; VARIANT: an option not chosen */
	uint8_t rep;	/* LIST: repetition level of the elements after the first */
	const tio_fc *fc;
	pq_node *leaf; /* leaves: the schema node (its column once the file is open) */
	pq_col *col;
	uint32_t lo, hi; /* columns of the subtree: [lo, hi) */
	struct pnode *kids;
	uint32_t nkids;
} pnode;

#define NSCOPES 3
static const int scope_ids[NSCOPES] = {TIO_SCOPE_EV_COMMON_CTX, TIO_SCOPE_EV_SPEC_CTX,
				       TIO_SCOPE_PAYLOAD};
static const char *const scope_names[NSCOPES] = {"common_context", "context", "payload"};

typedef struct ptable {
	pq_file f;
	const tio_event_class *ec; /* NULL: events.parquet */
	pnode scopes[NSCOPES];
	/*
	 * A scope made of structures and scalars only (no array, variant or
	 * optional): its values are at fixed offsets from the scope's root, so
	 * an event is one pass over `ops`.  With lists of integers or texts too
	 * (`seq`), the ops are taken in order, each value after the one before
	 * (a list's elements then skipped).  Else the walk of emit().
	 */
	struct pop {
		uint32_t off;
		uint8_t kind; /* enum pkind, or OP_*: an integer stored as is, a structure, a list */
		uint8_t rep, absent_def; /* OP_LIST_INT: its elements' repetition level, an empty list's */
		pq_col *col;
	} * ops[NSCOPES];
	uint32_t nops[NSCOPES];
	uint32_t nvals[NSCOPES]; /* values of such a scope (not `seq`) */
	/* such a scope's ops begin with its REQUIRED INT32 columns', then INT64 (OP_I32, OP_I64) */
	uint32_t ni32[NSCOPES], ni64[NSCOPES];
	bool seq[NSCOPES];
	pq_node *n_ts, *n_cpu, *n_stream, *n_trace, *n_comm, *n_name;
	pq_col *c_ts, *c_cpu, *c_stream, *c_trace, *c_comm, *c_name;
	int pid_member;	   /* common context member holding common_pid (trace.dat __comm), -1 */
	uint32_t pid_off;  /* its value's index from the context's when members before it are scalars, else 0 */
	bool pid_signed;
	bool last_set; /* the last row's pid and its comm name */
	int64_t last_pid;
	const char *last_comm;
	size_t last_len;
	char *file;	   /* file name in the trace's directory */
	const char *ename; /* the class's name (events.parquet's name column) and its length */
	size_t ename_len;
	char *cols; /* the top-level columns and the values they come from (meta.json), as JSON text:
		       a class costs less memory so (2,300 classes in an `-e all` trace.dat) */
	uint64_t rows;
	/* check_budget: what pq_buffered said at its last count, and `rows` then (none since: the same) */
	uint64_t ck_rows;
	size_t ck_bytes, ck_pages;
} ptable;

typedef struct pdisc {
	bool packets;
	uint32_t stream;
	bool has_range;
	uint64_t count, begin_cycles, end_cycles;
	int64_t begin_ns, end_ns;
} pdisc;

typedef struct ptrace {
	const tio_trace *in;
	uint64_t key; /* unique in the process: its classes' sink_key, their sink_val its table */
	char *dir;  /* the temporary directory */
	char *name; /* its directory name under OUT (several traces), the trace column */
	ptable *events;
	ptable **tables; /* every class table, in creation order */
	size_t ntables, tcap;
	ptable **hash; /* event class pointer -> table (open addressing) */
	size_t hcap;
	pdisc *disc;
	size_t ndisc, dcap;
	bool is_tracedat;
	bool ready;
	bool by_index; /* named `trace<k>` (no name of its own, or an earlier trace's): k is this sink's */
	/* tio_sink_end_trace: its files and meta.json written, its tables freed, `in` forgotten (NULL) */
	bool ended;
	char *path; /* ended: the input's path, for the top meta.json */
	struct {
		int64_t pid;
		const char *comm;
		size_t len;
		bool set;
	} comms[256]; /* tio_trace_comm, cached */
} ptrace;

typedef struct psink {
	tio_sink base;
	char *out;
	bool force;
	bool partition; /* --partition-by trace: a `trace` column */
	bool several;	/* option several-traces: OUT/<name>/ per trace even if only one comes */
	tio_sink_inputs inputs; /* option input: several traces named by their path below the inputs' directory */
	bool int64;	/* --int-width 64: every integer field INT64 (32- and 64-bit machines alike) */
	int codec;
	int level; /* zstd level */
	bool level_set; /* option compression-level given (zstd only) */
	uint64_t rg_rows;
	uint64_t budget;
	unsigned nparts; /* option parts: one of N sinks reading parts at once (budget / N each) */
	uint64_t dict_max; /* dictionary entries per column chunk at most */
	uint64_t page_size; /* bytes of values in a page before it is cut */
	char *tmpdir;
	ptrace **traces;
	size_t ntraces, cap;
	ptrace *last_t;
	uint32_t since_check; /* rows since the memory budget was checked */
	bool failed;
	const tio_fc *cpu_pc; /* the packet context class cpu_k is for */
	int cpu_k;	 /* its cpu_id value is at pc + 1 + cpu_k; -1: none; -2: ask tio_msg_cpu */
	pq_shared sh;	 /* encoding buffers of the class files, the compression thread */
	/*
	 * events.parquet's rows are staged here (evrow) and appended in
	 * blocks of 64 KiB (ev_rows: runs of rows column by column), on the
	 * compression thread when there is one (pq_defer), its pages then
	 * compressed there, inline (evsh).  Errors met there wait in
	 * ev_err/ev_msg for the next pq_sync.
	 */
	pq_shared evsh;
	tio_buf stage;
	int ev_err;
	char ev_msg[512];
	tio_buf scratch; /* a string value converted (UTF-8 repaired, UTF-16/32, wide integers) */
	tio_buf text;	 /* a CTF 1 text array's bytes */
	/*
	 * Held while a row group of any file is written (pq_file.io) and while
	 * a trace gets its tables (prepare, pq_consume), against another
	 * thread's tio_sink_merge_begin (pq_merge_begin) moving them.
	 */
	pthread_mutex_t io;
} psink;

/* ---------------------------------------------------------------- plans and schemas */

/* Free a plan's children. */
static void pnode_free(pnode *p)
{
	for (uint32_t k = 0; k < p->nkids; k++)
		pnode_free(&p->kids[k]);
	free(p->kids);
	p->kids = NULL;
	p->nkids = 0;
}

/*
 * meta.json and the columns' sources are built with json-c, whose
 * constructors return NULL when out of memory and whose adders assert on a
 * NULL container: every value made here goes through J() and every add
 * through jset/jpush, which note such a failure in `joom` (per thread: a
 * sink per thread) for the caller to see before it uses the result.
 */
static _Thread_local bool joom;

static json_object *J(json_object *v)
{
	if (!v)
		joom = true;
	return v;
}

/* o[k] = v (v NULL on purpose: a null; consumed either way) */
static void jset(json_object *o, const char *k, json_object *v)
{
	if (!o || json_object_object_add(o, k, v)) {
		joom = true;
		json_object_put(v);
	}
}

static void jpush(json_object *a, json_object *v)
{
	if (!a || !v || json_object_array_add(a, v)) {
		joom = true;
		json_object_put(v);
	}
}

/* "a" + "." + "b" (just "b" when a is empty): a flattened member's column name. */
static char *join_name(const char *a, const char *b)
{
	return a && *a ? tio_asprintf("%s.%s", a, b) : tio_strdup(b);
}

/* The column source path (meta.json): parent's steps and one more. */
static json_object *src_step(json_object *parent, json_object *step)
{
	json_object *a = J(json_object_new_array());
	for (size_t k = 0; parent && k < json_object_array_length(parent); k++)
		jpush(a, json_object_get(json_object_array_get_idx(parent, k)));
	jpush(a, step);
	return a;
}

typedef struct bctx {
	json_object *cols; /* top-level columns: [{name, source}] */
	const char *scope;
	bool int64; /* option int-width 64: every integer INT64 */
} bctx;

/* A leaf schema node for a value class, or NULL (error set). */
static pq_node *leaf_for(const tio_fc *fc, const char *name, int rep, uint8_t *kind, bool int64)
{
	pq_node *n = NULL;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BITMAP:
	case TIO_FC_VARINT: {
		uint32_t bits = fc->kind == TIO_FC_VARINT ? 64 : fc->i.size;
		bool sgn = fc->kind == TIO_FC_VARINT   ? fc->vi.is_signed
			   : fc->kind == TIO_FC_BITMAP ? false
						       : fc->i.is_signed;
		if (bits > 64) {
			n = pq_leaf_new(name, rep, PQ_FLBA, PQ_LT_NONE);
			if (n)
				n->type_length = (int32_t)((bits + 7) / 8);
			*kind = PN_BIG;
			break;
		}
		unsigned w = int64 || bits > 32 ? 64 : bits <= 8 ? 8 : bits <= 16 ? 16 : 32;
		n = pq_leaf_new(name, rep, w == 64 ? PQ_INT64 : PQ_INT32, PQ_LT_INT);
		if (n) {
			n->int_bits = (uint8_t)w;
			n->int_signed = sgn;
		}
		*kind = sgn ? PN_INT : PN_UINT;
		break;
	}
	case TIO_FC_BOOL:
		n = pq_leaf_new(name, rep, PQ_BOOLEAN, PQ_LT_NONE);
		*kind = PN_BOOL;
		break;
	case TIO_FC_FLOAT:
		n = pq_leaf_new(name, rep,
				fc->f.exp_dig == 8 && fc->f.mant_dig == 24 ? PQ_FLOAT : PQ_DOUBLE,
				PQ_LT_NONE);
		*kind = PN_FLOAT;
		break;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
		n = pq_leaf_new(name, rep, PQ_BYTE_ARRAY, PQ_LT_STRING);
		if (n)
			n->dict = true;
		*kind = fc->s.encoding == TIO_ENC_UTF16 || fc->s.encoding == TIO_ENC_UTF32 ? PN_WSTR
											   : PN_STR;
		break;
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		n = pq_leaf_new(name, rep, PQ_BYTE_ARRAY, PQ_LT_NONE);
		*kind = PN_BLOB;
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE: /* text */
		n = pq_leaf_new(name, rep, PQ_BYTE_ARRAY, PQ_LT_STRING);
		if (n)
			n->dict = true;
		*kind = PN_TEXT;
		break;
	default:
		break;
	}
	return n;
}

/*
 * Add a top-level column to the class's column list (meta.json), with the
 * labels of an enumeration or bit map (the column holds the integer).
 */
static void note_col(bctx *x, pq_node *n, json_object *src, const tio_fc *fc)
{
	json_object *o = J(json_object_new_object());
	jset(o, "name", J(json_object_new_string(n->name)));
	jset(o, "source", src);
	const tio_mapping *maps = NULL;
	uint32_t nmaps = 0;
	bool sgn = false;
	if (fc && (fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM || fc->kind == TIO_FC_BITMAP))
		maps = fc->i.mappings, nmaps = fc->i.nmappings, sgn = fc->i.is_signed;
	else if (fc && fc->kind == TIO_FC_VARINT)
		maps = fc->vi.mappings, nmaps = fc->vi.nmappings, sgn = fc->vi.is_signed;
	if (nmaps) {
		json_object *a = J(json_object_new_array());
		for (uint32_t k = 0; k < nmaps; k++) {
			json_object *m = J(json_object_new_object()), *r = J(json_object_new_array());
			jset(
			    m, "label", J(json_object_new_string(maps[k].label ? maps[k].label : "")));
			for (uint32_t j = 0; j < maps[k].nranges; j++) {
				json_object *pr = J(json_object_new_array());
				const tio_range *g = &maps[k].ranges[j];
				jpush(
				    pr, sgn ? J(json_object_new_int64(g->lo))
					    : J(json_object_new_uint64((uint64_t)g->lo)));
				jpush(
				    pr, sgn ? J(json_object_new_int64(g->hi))
					    : J(json_object_new_uint64((uint64_t)g->hi)));
				jpush(r, pr);
			}
			jset(m, "ranges", r);
			jpush(a, m);
		}
		jset(o, fc->kind == TIO_FC_BITMAP ? "flags" : "labels", a);
	}
	jpush(x->cols, o);
}

/*
 * The schema of value class `fc` named `name` under `parent`, and its plan
 * in `p`.  `def`/`rep`: the levels of the parent; `nullable`: this value
 * may be absent (variant option, optional); `flat`: structures and
 * variants are flattened into `parent` ('.' names).  `src`: the path of
 * the value (meta.json, top level only; consumed).
 */
static int build(bctx *x, pnode *p, const tio_fc *fc, const char *name, pq_node *parent, bool flat,
		 bool nullable, unsigned def, unsigned rep, json_object *src, int depth)
{
	int r = 0;
	unsigned my = def + (nullable ? 1 : 0);
	int reptype = nullable ? PQ_OPTIONAL : PQ_REQUIRED;
	memset(p, 0, sizeof(*p));
	p->fc = fc;
	if (depth > 100) {
		json_object_put(src);
		return tio_err_set(TIO_ERR_LIMIT, "field '%s': nested more than 100 levels", name);
	}
	switch (fc->kind) {
	case TIO_FC_STRUCT:
	case TIO_FC_VARIANT: {
		bool var = fc->kind == TIO_FC_VARIANT;
		uint32_t n = var ? fc->v.noptions : fc->st.nmembers;
		p->kind = var ? PN_VARIANT : PN_STRUCT;
		p->absent_def = (uint8_t)my;
		if (n && !(p->kids = tio_calloc(n, sizeof(pnode)))) {
			json_object_put(src);
			return TIO_ERR_NOMEM;
		}
		p->nkids = n;
		bool flatten = flat && !nullable;
		pq_node *g = flatten ? parent : pq_node_new(name, reptype);
		if (!g) {
			json_object_put(src);
			return TIO_ERR_NOMEM;
		}
		for (uint32_t k = 0; k < n && !r; k++) {
			const tio_member *m = var ? &fc->v.options[k] : &fc->st.members[k];
			char idx[16];
			snprintf(idx, sizeof(idx), "%u", k);
			const char *mn = m->name ? m->name : idx;
			char *cn = flatten ? join_name(name, mn) : tio_strdup(mn);
			json_object *step;
			if (var) {
				step = J(json_object_new_object());
				jset(step, "option",
						       m->name ? J(json_object_new_string(m->name))
							       : J(json_object_new_int(k)));
			} else {
				step = J(json_object_new_string(mn));
			}
			json_object *ks =
			    flatten ? src_step(src, step) : (json_object_put(step), NULL);
			if (!cn) {
				json_object_put(ks);
				r = TIO_ERR_NOMEM;
				break;
			}
			r = build(x, &p->kids[k], m->fc, cn, g, flatten, var, flatten ? def : my,
				  rep, ks, depth + 1);
			free(cn);
		}
		if (!flatten) {
			if (r || !g->nkids) {
				pq_node_free(g);
				if (!r)
					p->kind = PN_NONE;
				json_object_put(src);
			} else if ((r = pq_node_add(parent, g)) == 0 && src) {
				note_col(x, g, src, NULL);
			} else {
				json_object_put(src);
			}
		} else {
			json_object_put(src);
		}
		return r;
	}
	case TIO_FC_OPTIONAL: {
		p->kind = PN_OPTIONAL;
		if (!(p->kids = tio_calloc(1, sizeof(pnode)))) {
			json_object_put(src);
			return TIO_ERR_NOMEM;
		}
		p->nkids = 1;
		const tio_fc *in = fc->v.noptions ? fc->v.options[0].fc : NULL;
		if (!in) {
			p->kind = PN_NONE;
			json_object_put(src);
			return 0;
		}
		if (!nullable) { /* the value itself is the optional field */
			p->absent_def = (uint8_t)def;
			return build(x, &p->kids[0], in, name, parent, flat, true, def, rep, src,
				     depth + 1);
		}
		/* already optional (a variant's option): an optional group holding an optional
		 * "value" */
		pq_node *g = pq_node_new(name, PQ_OPTIONAL);
		if (!g) {
			json_object_put(src);
			return TIO_ERR_NOMEM;
		}
		p->absent_def = (uint8_t)my;
		r = build(x, &p->kids[0], in, "value", g, false, true, my, rep, NULL, depth + 1);
		if (r || !g->nkids) {
			pq_node_free(g);
			if (!r)
				p->kind = PN_NONE;
			json_object_put(src);
			return r;
		}
		if ((r = pq_node_add(parent, g)) == 0 && src)
			note_col(x, g, src, NULL);
		else
			json_object_put(src);
		return r;
	}
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		if (!fc->a.text) {
			p->kind = PN_LIST;
			if (!(p->kids = tio_calloc(1, sizeof(pnode)))) {
				json_object_put(src);
				return TIO_ERR_NOMEM;
			}
			p->nkids = 1;
			p->absent_def = (uint8_t)my;
			p->rep = (uint8_t)(rep + 1);
			pq_node *g = pq_node_new(name, reptype),
				*l = pq_node_new("list", PQ_REPEATED);
			if (!g || !l || (r = pq_node_add(g, l))) {
				if (!r)
					pq_node_free(l);
				pq_node_free(g);
				json_object_put(src);
				return TIO_ERR_NOMEM;
			}
			g->logical = PQ_LT_LIST;
			r = build(x, &p->kids[0], fc->a.elem, "element", l, false, false, my + 1,
				  rep + 1, NULL, depth + 1);
			if (r || !l->nkids) {
				pq_node_free(g);
				if (!r)
					p->kind = PN_NONE;
				json_object_put(src);
				return r;
			}
			if ((r = pq_node_add(parent, g)) == 0 && src)
				note_col(x, g, src, NULL);
			else
				json_object_put(src);
			return r;
		}
		/* text */
		__attribute__((fallthrough));
	default: {
		pq_node *n = leaf_for(fc, name, reptype, &p->kind, x->int64);
		if (!n) {
			json_object_put(src);
			return TIO_ERR_NOMEM;
		}
		p->leaf = n;
		if ((r = pq_node_add(parent, n)) == 0 && src)
			note_col(x, n, src, fc);
		else
			json_object_put(src);
		return r;
	}
	}
}

/* After the file is open: columns of the plan's leaves and of each subtree. */
static void resolve(pnode *p, pq_file *f)
{
	p->lo = UINT32_MAX;
	p->hi = 0;
	if (p->leaf) {
		p->col = &f->cols[p->leaf->col];
		p->lo = (uint32_t)p->leaf->col;
		p->hi = p->lo + 1;
		return;
	}
	for (uint32_t k = 0; k < p->nkids; k++) {
		resolve(&p->kids[k], f);
		if (p->kids[k].lo < p->lo)
			p->lo = p->kids[k].lo;
		if (p->kids[k].hi > p->hi)
			p->hi = p->kids[k].hi;
	}
	if (p->lo > p->hi)
		p->lo = p->hi = 0;
}

/* ---------------------------------------------------------------- values */

/* Every column of a subtree gets a null at `def`. */
static void nulls(pq_file *f, const pnode *p, unsigned def, unsigned rep)
{
	for (uint32_t c = p->lo; c < p->hi; c++)
		pq_null(&f->cols[c], def, rep);
}

/* Does a value of this class have children (and a subtree end)? */
static bool is_compound(const tio_fc *fc)
{
	return fc->kind == TIO_FC_STRUCT || fc->kind == TIO_FC_ARRAY ||
	       fc->kind == TIO_FC_SEQUENCE || fc->kind == TIO_FC_VARIANT ||
	       fc->kind == TIO_FC_OPTIONAL;
}

/*
 * A string value as valid UTF-8 (Parquet STRING): the bytes up to the
 * first NUL, each invalid sequence replaced by U+FFFD as the json sink does.
 */
static void put_utf8(psink *s, pq_col *c, const char *p, size_t n, unsigned rep)
{
	const uint8_t *u = (const uint8_t *)p;
	size_t k = 0;
	for (uint64_t w; k + 8 <= n; k += 8) { /* 8 bytes at a time while none is NUL or >= 0x80 */
		memcpy(&w, u + k, 8);
		if ((w | ((w - 0x0101010101010101ull) & ~w)) & 0x8080808080808080ull)
			break;
	}
	while (k < n && u[k] && u[k] < 0x80)
		k++;
	if (k == n || !u[k]) {
		pq_bytes(c, p, k, rep);
		return;
	}
	tio_buf *b = &s->scratch;
	b->len = 0;
	tio_buf_add(b, p, k);
	while (k < n && u[k]) {
		size_t skip, l = tio_utf8_seq(u + k, n - k, &skip);
		if (l) {
			tio_buf_add(b, u + k, l);
			k += l;
		} else {
			tio_buf_add_cp(b, 0xFFFD);
			k += skip;
		}
	}
	pq_bytes(c, b->p ? b->p : "", b->len, rep);
}

/* A UTF-16/UTF-32 string as UTF-8, up to the first zero code unit. */
static void put_wide(psink *s, pq_col *c, const tio_fc *fc, const tio_val *v, unsigned rep)
{
	const uint8_t *q = (const uint8_t *)v->v.s.p;
	uint64_t len = v->v.s.len;
	unsigned unit = fc->s.encoding == TIO_ENC_UTF16 ? 2 : 4;
	bool be = fc->s.byte_order == TIO_BE;
	tio_buf *b = &s->scratch;
	b->len = 0;
	for (uint64_t k = 0; q && k + unit <= len; k += unit) {
		uint32_t cu = unit == 2 ? (be ? tio_be16(q + k) : tio_le16(q + k))
					: (be ? tio_be32(q + k) : tio_le32(q + k));
		if (!cu)
			break;
		if (unit == 2 && cu >= 0xD800 && cu < 0xE000) {
			uint32_t lo2 =
			    k + 4 <= len ? (be ? tio_be16(q + k + 2) : tio_le16(q + k + 2)) : 0;
			if (cu < 0xDC00 && lo2 >= 0xDC00 && lo2 < 0xE000) {
				cu = 0x10000 + ((cu - 0xD800) << 10) + (lo2 - 0xDC00);
				k += 2;
			} else {
				cu = 0xFFFD;
			}
		}
		if (cu > 0x10FFFF || (cu >= 0xD800 && cu < 0xE000))
			cu = 0xFFFD;
		tio_buf_add_cp(b, cu);
	}
	pq_bytes(c, b->p ? b->p : "", b->len, rep);
}

/* An integer wider than 64 bits as big-endian bytes of its width (the top byte holds size % 8
 * bits). */
static void put_big(psink *s, pq_col *c, const tio_fc *fc, const tio_val *v, unsigned rep)
{
	uint32_t size = fc->i.size, nb = (size + 7) / 8, top = size % 8 ? size % 8 : 8;
	tio_buf *b = &s->scratch;
	b->len = 0;
	for (uint32_t k = 0; k < nb; k++) {
		uint32_t start = k ? top + 8 * (k - 1) : 0,
			 n = k ? 8 : top; /* bits from the most significant */
		uint64_t d = fc->i.byte_order == TIO_BE
				 ? tio_bits_be(v->v.big, start, n)
				 : tio_bits_le(v->v.big, size - start - n, n);
		tio_buf_addc(b, (char)d);
	}
	pq_bytes(c, b->p ? b->p : "", b->len, rep);
}

/*
 * A list's n integers (values e[0..n), each a leaf at the column's maximum
 * definition level): pq_i64 n times, the levels and values each reserved once.
 */
static void put_int_list(pq_col *c, const tio_val *e, uint32_t n, unsigned rep0, unsigned rep)
{
	if (c->max_rep && pq_room(c, &c->reps, n)) {
		char *d = c->reps.p + c->reps.len;
		if (n <= 17 && c->reps.len + 17 <= c->reps.cap) {
			/* a short list's levels by two stores (memset's call costs more: UST 0.7%) */
			uint64_t w = 0x0101010101010101ull * (uint8_t)rep;
			memcpy(d + 1, &w, 8);
			memcpy(d + 9, &w, 8);
		} else {
			memset(d + 1, (int)rep, n - 1);
		}
		d[0] = (char)rep0;
		c->reps.len += n;
	}
	if (c->max_def) {
		if (TIO_LIKELY(!c->defs.len)) {
			c->nlead += n;
		} else if (pq_room(c, &c->defs, n)) {
			memset(c->defs.p + c->defs.len, c->max_def, n);
			c->defs.len += n;
		}
	}
	c->nlevels += n;
	if (c->phys == PQ_INT32) {
		if (pq_room(c, &c->vals, (size_t)n * 4)) {
			char *o = c->vals.p + c->vals.len;
			for (uint32_t k = 0; k < n; k++) {
				int32_t x = (int32_t)e[k].v.i;
				memcpy(o + 4 * k, &x, 4);
			}
			c->vals.len += (size_t)n * 4;
		}
	} else if (pq_room(c, &c->vals, (size_t)n * 8)) {
		char *o = c->vals.p + c->vals.len;
		for (uint32_t k = 0; k < n; k++)
			memcpy(o + 8 * k, &e[k].v.i, 8);
		c->vals.len += (size_t)n * 8;
	}
}

/* Append value i of `vals` to the columns of plan p; the index past its subtree. */
static uint32_t emit(psink *s, pq_file *f, const pnode *p, const tio_val *vals, uint32_t nv,
		     uint32_t i, unsigned rep)
{
	if (i >= nv) { /* cannot happen with a value tree made for this class */
		f->oom = true;
		return nv;
	}
	const tio_val *v = &vals[i];
	uint32_t next = is_compound(v->fc) ? v->end : i + 1;
	switch (p->kind) {
	case PN_NONE:
		break;
	case PN_INT:
		pq_i64(p->col, v->v.i, rep);
		break;
	case PN_UINT:
		pq_i64(p->col, (int64_t)v->v.u, rep);
		break;
	case PN_BIG:
		put_big(s, p->col, v->fc, v, rep);
		break;
	case PN_BOOL:
		pq_bool(p->col, v->v.u != 0, rep);
		break;
	case PN_FLOAT:
		pq_double(p->col, v->v.d, rep);
		break;
	case PN_STR:
		put_utf8(s, p->col, v->v.s.p, v->v.s.p ? v->v.s.len : 0, rep);
		break;
	case PN_WSTR:
		put_wide(s, p->col, v->fc, v, rep);
		break;
	case PN_TEXT:
		if (v->n == 0 && v->v.s.p) {
			put_utf8(s, p->col, v->v.s.p, v->v.s.len, rep);
		} else { /* elements decoded one by one: their bytes */
			tio_buf *b = &s->text;
			b->len = 0;
			for (uint32_t k = i + 1; k < next && k < nv;
			     k = is_compound(vals[k].fc) ? vals[k].end : k + 1)
				tio_buf_addc(b, (char)vals[k].v.u);
			put_utf8(s, p->col, b->p ? b->p : "", b->len, rep);
		}
		break;
	case PN_BLOB:
		pq_bytes(p->col, v->v.s.p ? v->v.s.p : "", v->v.s.p ? v->v.s.len : 0, rep);
		break;
	case PN_STRUCT: {
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < p->nkids; k++) {
			if (k < v->n)
				j = emit(s, f, &p->kids[k], vals, nv, j, rep);
			else
				nulls(f, &p->kids[k], p->absent_def,
				      rep); /* not expected: a shorter structure */
		}
		break;
	}
	case PN_LIST:
		if (!v->n) {
			nulls(f, p, p->absent_def, rep);
		} else if ((p->kids[0].kind == PN_INT || p->kids[0].kind == PN_UINT) &&
			   i + 1 + v->n <= nv) {
			/* integers: one value each, in a row */
			put_int_list(p->kids[0].col, vals + i + 1, v->n, rep, p->rep);
		} else {
			uint32_t j = i + 1;
			for (uint32_t k = 0; k < v->n; k++)
				j = emit(s, f, &p->kids[0], vals, nv, j, k ? p->rep : rep);
		}
		break;
	case PN_VARIANT:
		for (uint32_t k = 0; k < p->nkids; k++) {
			if (k == v->opt && v->n)
				emit(s, f, &p->kids[k], vals, nv, i + 1, rep);
			else
				nulls(f, &p->kids[k], p->absent_def, rep);
		}
		break;
	case PN_OPTIONAL:
		if (v->n)
			emit(s, f, &p->kids[0], vals, nv, i + 1, rep);
		else
			nulls(f, &p->kids[0], p->absent_def, rep);
		break;
	}
	return next;
}

/* ---------------------------------------------------------------- tables */

/* Count the fixed-offset leaves of plan p (false when it is not fixed: arrays, variants...). */
static bool fixed_leaves(const pnode *p, uint32_t *n)
{
	if (p->kind == PN_STRUCT) {
		for (uint32_t k = 0; k < p->nkids; k++)
			if (!fixed_leaves(&p->kids[k], n))
				return false;
		return true;
	}
	if (p->kind == PN_LIST || p->kind == PN_VARIANT || p->kind == PN_OPTIONAL ||
	    p->kind == PN_NONE || p->kind == PN_TEXT)
		return false;
	++*n;
	return true;
}

/* The ops of a fixed plan: each leaf's offset from the root value; *off counts values. */
static void fill_ops(const pnode *p, struct pop *ops, uint32_t *n, uint32_t *off)
{
	if (p->kind == PN_STRUCT) {
		++*off;
		for (uint32_t k = 0; k < p->nkids; k++)
			fill_ops(&p->kids[k], ops, n, off);
		return;
	}
	ops[*n].off = (*off)++;
	ops[*n].kind = p->kind;
	ops[*n].col = p->col;
	if ((p->kind == PN_INT || p->kind == PN_UINT) && !p->col->max_def && !p->col->max_rep)
		ops[*n].kind = p->col->phys == PQ_INT32 ? OP_I32 : OP_I64;
	++*n;
}

/* Move the ops of `kind` in o[from, n) before the others, in their order; how many there are. */
static uint32_t ops_first(struct pop *o, uint32_t from, uint32_t n, int kind)
{
	uint32_t a = from;
	for (uint32_t j = from; j < n; j++)
		if (o[j].kind == kind) {
			struct pop t = o[j];
			memmove(&o[a + 1], &o[a], (j - a) * sizeof(*o));
			o[a++] = t;
		}
	return a - from;
}

/* Scope k as ops when its values are at fixed offsets. */
static int flat_ops(ptable *tb, int k)
{
	uint32_t n = 0, off = 0;
	if (!fixed_leaves(&tb->scopes[k], &n))
		return 0;
	if (!(tb->ops[k] = tio_calloc(n ? n : 1, sizeof(struct pop))))
		return TIO_ERR_NOMEM;
	n = 0;
	fill_ops(&tb->scopes[k], tb->ops[k], &n, &off);
	tb->nops[k] = n;
	tb->nvals[k] = off;
	/* the plain integers first, INT32 then INT64, each kind in a loop of its own (a column's
	   values do not depend on the order in which a row's columns get theirs) */
	tb->ni32[k] = ops_first(tb->ops[k], 0, n, OP_I32);
	tb->ni64[k] = ops_first(tb->ops[k], tb->ni32[k], n, OP_I64);
	return 0;
}

/* Count the ops of plan p in order: scalars, structures, lists of integers, texts (false: another kind). */
static bool seq_leaves(const pnode *p, uint32_t *n)
{
	if (p->kind == PN_STRUCT) {
		++*n;
		for (uint32_t k = 0; k < p->nkids; k++)
			if (!seq_leaves(&p->kids[k], n))
				return false;
		return true;
	}
	if (p->kind == PN_LIST)
		return p->nkids == 1 && (p->kids[0].kind == PN_INT || p->kids[0].kind == PN_UINT) &&
		       p->kids[0].col && ++*n;
	if (p->kind == PN_VARIANT || p->kind == PN_OPTIONAL || p->kind == PN_NONE)
		return false;
	++*n; /* PN_TEXT too: a CTF 1 array or sequence of characters, its elements then skipped */
	return true;
}

static void fill_seq(const pnode *p, struct pop *ops, uint32_t *n)
{
	struct pop *o = &ops[(*n)++];
	*o = (struct pop){.kind = p->kind, .col = p->col};
	if (p->kind == PN_STRUCT) {
		o->kind = OP_IN;
		for (uint32_t k = 0; k < p->nkids; k++)
			fill_seq(&p->kids[k], ops, n);
	} else if (p->kind == PN_LIST) {
		*o = (struct pop){.kind = OP_LIST_INT, .rep = p->rep, .absent_def = p->absent_def, .col = p->kids[0].col};
	} else if ((p->kind == PN_INT || p->kind == PN_UINT) && !p->col->max_def && !p->col->max_rep) {
		o->kind = p->col->phys == PQ_INT32 ? OP_I32 : OP_I64;
	}
}

/* Scope k as sequential ops (its root's own value first) when it holds lists of integers. */
static int seq_ops(ptable *tb, int k)
{
	uint32_t n = 0;
	if (!seq_leaves(&tb->scopes[k], &n))
		return 0;
	if (!(tb->ops[k] = tio_calloc(n, sizeof(struct pop))))
		return TIO_ERR_NOMEM;
	n = 0;
	fill_seq(&tb->scopes[k], tb->ops[k], &n);
	tb->nops[k] = n;
	tb->seq[k] = true;
	return 0;
}

/* Replace characters that file systems or engines (Hadoop paths: ':') dislike. */
static char *safe_name(const char *n)
{
	size_t l = strlen(n);
	char *o = tio_malloc(l + 1);
	if (!o)
		return NULL;
	for (size_t k = 0; k < l; k++) {
		char c = n[k];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-' || (c == '.' && k);
		o[k] = ok ? c : '_';
	}
	o[l] = 0;
	return o;
}

/* Is file name `f` already used in the trace's directory (case-insensitively, for such file
 * systems)? */
static bool file_taken(const ptrace *t, const char *f)
{
	if (!strcasecmp(f, "events.parquet") || !strcasecmp(f, "meta.json"))
		return true;
	for (size_t k = 0; k < t->ntables; k++)
		if (!strcasecmp(t->tables[k]->file, f))
			return true;
	return false;
}

/* Bytes of an event class name in its file name at most: 255 less 52 for -ID-ID-K and 18 for
 * ".parquet.rowgroups", and some to spare. */
#define PQ_NAME_MAX 180

/* The file name of an event class: its name made safe, unique in the directory. */
static char *class_file(const ptrace *t, const tio_event_class *ec)
{
	char *b = ec->name && *ec->name
		      ? safe_name(ec->name)
		      : tio_asprintf("event-%" PRIu64 "-%" PRIu64, ec->sc ? ec->sc->id : 0, ec->id);
	if (!b)
		return NULL;
	/* a long name cut so that the name made unique (-ID-ID-K), ".parquet" and the side file's
	 * ".rowgroups" stay within a file name's 255 bytes (meta.json maps the class to it) */
	if (strlen(b) > PQ_NAME_MAX)
		b[PQ_NAME_MAX] = 0;
	char *f = tio_asprintf("%s.parquet", b);
	for (unsigned k = 0; f && file_taken(t, f); k++) {
		free(f);
		f = k ? tio_asprintf("%s-%" PRIu64 "-%" PRIu64 "-%u.parquet", b,
				     ec->sc ? ec->sc->id : 0, ec->id, k)
		      : tio_asprintf("%s-%" PRIu64 "-%" PRIu64 ".parquet", b,
				     ec->sc ? ec->sc->id : 0, ec->id);
	}
	free(b);
	return f;
}

/* Free a table: its file writer, plans and column list. */
static void table_free(ptable *tb)
{
	if (!tb)
		return;
	pq_free(&tb->f);
	for (int k = 0; k < NSCOPES; k++) {
		pnode_free(&tb->scopes[k]);
		free(tb->ops[k]);
	}
	free(tb->cols);
	free(tb->file);
	free(tb);
}

/* Add one of the fixed columns (ts, cpu, stream...) to the root; NULL when out of memory. */
static pq_node *fixed(pq_node *root, const char *name, int rep, int phys, int logical,
		      unsigned bits, bool sgn)
{
	pq_node *n = pq_leaf_new(name, rep, phys, logical);
	if (!n)
		return NULL;
	n->int_bits = (uint8_t)bits;
	n->int_signed = sgn;
	if (phys == PQ_BYTE_ARRAY)
		n->dict = true;
	return pq_node_add(root, n) ? NULL : n;
}

/* Is `name` a column name already in `g` (the root's top level)? */
static bool has_name(const pq_node *g, const char *name)
{
	for (uint32_t k = 0; k < g->nkids; k++)
		if (!strcmp(g->kids[k]->name, name))
			return true;
	return false;
}

/* The root columns every class table starts with (ts, cpu, stream, trace, __comm). */
static int fixed_columns(psink *s, ptrace *t, ptable *tb, pq_node *root, bool events)
{
	/*
	 * TIMESTAMP(NANOS) not adjusted to UTC: engines keep the nanoseconds
	 * (DuckDB reads an adjusted one as TIMESTAMP WITH TIME ZONE, in
	 * microseconds), and a clock's origin is not always the Unix epoch.
	 */
	if (!(tb->n_ts = fixed(root, "ts", PQ_OPTIONAL, PQ_INT64, PQ_LT_TIMESTAMP_NS, 0, true)))
		return TIO_ERR_NOMEM;
	if (events &&
	    !(tb->n_name = fixed(root, "name", PQ_REQUIRED, PQ_BYTE_ARRAY, PQ_LT_STRING, 0, false)))
		return TIO_ERR_NOMEM;
	if (!(tb->n_cpu = fixed(root, "cpu", PQ_OPTIONAL, PQ_INT32, PQ_LT_INT, 32, false)) ||
	    !(tb->n_stream = fixed(root, "stream", PQ_REQUIRED, PQ_INT32, PQ_LT_INT, 32, false)))
		return TIO_ERR_NOMEM;
	if (s->partition && !(tb->n_trace = fixed(root, "trace", PQ_REQUIRED, PQ_BYTE_ARRAY,
						  PQ_LT_STRING, 0, false)))
		return TIO_ERR_NOMEM;
	tb->pid_member = -1;
	if (!events && t->is_tracedat && tb->ec->sc && tb->ec->sc->ev_common_ctx) {
		const tio_fc *cc = tb->ec->sc->ev_common_ctx;
		tb->pid_member = tio_fc_member_index(cc, "common_pid");
		if (tb->pid_member >= 0 && cc->kind == TIO_FC_STRUCT) {
			const tio_fc *pf = cc->st.members[tb->pid_member].fc;
			tb->pid_off = pf && (pf->kind == TIO_FC_INT || pf->kind == TIO_FC_ENUM) ? 1 + (uint32_t)tb->pid_member : 0;
			for (int k = 0; k < tb->pid_member && tb->pid_off; k++)
				if (!cc->st.members[k].fc || is_compound(cc->st.members[k].fc))
					tb->pid_off = 0;
			tb->pid_signed = tb->pid_off && pf->i.is_signed;
		}
		if (tb->pid_member >= 0 &&
		    !(tb->n_comm = fixed(root, "__comm", PQ_OPTIONAL, PQ_BYTE_ARRAY, PQ_LT_STRING,
					 0, false)))
			return TIO_ERR_NOMEM;
	}
	return 0;
}

/* The value class of scope k of an event class. */
static const tio_fc *scope_fc(const tio_event_class *ec, int k)
{
	switch (scope_ids[k]) {
	case TIO_SCOPE_EV_COMMON_CTX:
		return ec->sc ? ec->sc->ev_common_ctx : NULL;
	case TIO_SCOPE_EV_SPEC_CTX:
		return ec->spec_ctx;
	default:
		return ec->payload;
	}
}

/*
 * A class's file: schema and plan from its field classes.  Each scope's
 * members are top-level columns (structures flattened); a context member
 * whose name a payload member or a fixed column has is prefixed with its
 * scope ("context.vtid").
 */
static int table_new(psink *s, ptrace *t, const tio_event_class *ec, ptable **out)
{
	ptable *tb = tio_calloc(1, sizeof(*tb));
	if (!tb)
		return TIO_ERR_NOMEM;
	tb->ec = ec;
	tb->ename = ec && ec->name ? ec->name : "";
	tb->ename_len = strlen(tb->ename);
	int r = 0;
	pq_node *root = pq_node_new("schema", PQ_REQUIRED);
	pq_node *sg[NSCOPES] = {0};
	joom = false;
	json_object *cols = J(json_object_new_array());
	if (!root || !cols) {
		r = TIO_ERR_NOMEM;
		goto fail;
	}
	if ((r = fixed_columns(s, t, tb, root, !ec)))
		goto fail;
	if (ec) {
		if (!(tb->file = class_file(t, ec))) {
			r = TIO_ERR_NOMEM;
			goto fail;
		}
		/* each scope into its own group first, payload first: it keeps the bare names */
		json_object *scols[NSCOPES] = {0};
		for (int k = NSCOPES - 1; k >= 0 && !r; k--) {
			const tio_fc *fc = scope_fc(ec, k);
			if (!fc || fc->kind != TIO_FC_STRUCT)
				continue;
			if (!(sg[k] = pq_node_new("", PQ_REQUIRED))) {
				r = TIO_ERR_NOMEM;
				break;
			}
			scols[k] = J(json_object_new_array());
			bctx x = {.cols = scols[k], .scope = scope_names[k], .int64 = s->int64};
			json_object *src = J(json_object_new_array());
			jpush(src, J(json_object_new_string(scope_names[k])));
			r = build(&x, &tb->scopes[k], fc, "", sg[k], true, false, 0, 0, src, 0);
			/* names: a clash with a column already there gets the scope's prefix, then
			 * a number */
			for (uint32_t j = 0; j < sg[k]->nkids && !r; j++) {
				pq_node *n = sg[k]->kids[j];
				bool clash = has_name(root, n->name);
				for (int o = NSCOPES - 1; o > k && !clash; o--)
					clash = sg[o] && has_name(sg[o], n->name);
				for (uint32_t q = 0; q < j && !clash; q++)
					clash = !strcmp(sg[k]->kids[q]->name, n->name);
				if (!clash)
					continue;
				char *nn = tio_asprintf("%s.%s", scope_names[k], n->name);
				for (unsigned u = 2;
				     nn && (has_name(root, nn) || has_name(sg[k], nn)); u++) {
					free(nn);
					nn = tio_asprintf("%s.%s~%u", scope_names[k], n->name, u);
				}
				if (!nn) {
					r = TIO_ERR_NOMEM;
					break;
				}
				json_object *cj = json_object_array_get_idx(scols[k], j);
				if (cj)
					jset(cj, "name",
							       J(json_object_new_string(nn)));
				free(n->name);
				n->name = nn;
			}
		}
		/* then into the root in CTF's order: common context, context, payload */
		for (int k = 0; k < NSCOPES; k++) {
			for (uint32_t j = 0; sg[k] && j < sg[k]->nkids && !r; j++) {
				if ((r = pq_node_add(root, sg[k]->kids[j])))
					sg[k]->kids[j] = NULL;
				else
					sg[k]->kids[j] = NULL;
			}
			if (sg[k])
				sg[k]->nkids = 0;
			for (size_t j = 0; scols[k] && j < json_object_array_length(scols[k]); j++)
				jpush(
				    cols, json_object_get(json_object_array_get_idx(scols[k], j)));
			json_object_put(scols[k]);
		}
	} else if (!(tb->file = tio_strdup("events.parquet"))) {
		r = TIO_ERR_NOMEM;
	}
	if (!r && joom)
		r = TIO_ERR_NOMEM;
	if (!r && cols && !(tb->cols = tio_strdup(json_object_to_json_string_ext(
				 cols, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE))))
		r = TIO_ERR_NOMEM;
	json_object_put(cols);
	cols = NULL;
	for (int k = 0; k < NSCOPES; k++)
		pq_node_free(sg[k]);
	if (r)
		goto fail_root;
	char *path = tio_path_join(t->dir, tb->file);
	if (!path) {
		r = TIO_ERR_NOMEM;
		goto fail_root;
	}
	r = pq_open(&tb->f, path, root, s->codec, s->level, ec ? &s->sh : &s->evsh);
	free(path);
	root = NULL; /* owned by the file now */
	if (r)
		goto fail;
	tb->f.dict_max = (uint32_t)s->dict_max;
	tb->f.page_size = (size_t)s->page_size;
	tb->f.io = &s->io;
	pq_file *f = &tb->f;
#define COL(n) ((n) ? &f->cols[(n)->col] : NULL)
	tb->c_ts = COL(tb->n_ts);
	tb->c_cpu = COL(tb->n_cpu);
	tb->c_stream = COL(tb->n_stream);
	tb->c_trace = COL(tb->n_trace);
	tb->c_comm = COL(tb->n_comm);
	tb->c_name = COL(tb->n_name);
#undef COL
	if (tb->c_ts) /* rows come in the trace's time order: a row group says when its times do */
		tb->c_ts->sort_key = true;
	for (int k = 0; k < NSCOPES; k++) {
		resolve(&tb->scopes[k], f);
		if (tb->scopes[k].kind == PN_STRUCT && ((r = flat_ops(tb, k)) || (!tb->ops[k] && (r = seq_ops(tb, k)))))
			goto fail;
	}
	*out = tb;
	return 0;
fail_root:
	pq_node_free(root);
	root = NULL;
fail:
	json_object_put(cols);
	pq_node_free(root);
	table_free(tb);
	return r;
}

/* ---------------------------------------------------------------- traces */

/* The state of input trace `in`, NULL before its first message or add_trace. */
static ptrace *find_trace(psink *s, const tio_trace *in)
{
	if (s->last_t && s->last_t->in == in)
		return s->last_t;
	for (size_t k = 0; k < s->ntraces; k++)
		if (s->traces[k]->in == in)
			return s->last_t = s->traces[k];
	return NULL;
}

/* Add an input trace (its directory is made at its first message). */
static ptrace *register_trace(psink *s, const tio_trace *in)
{
	if (tio_grow(&s->traces, &s->cap, s->ntraces + 1, sizeof(ptrace *)))
		return NULL;
	static _Atomic uint64_t keys; /* from 1: a class no sink has seen has key 0 */
	ptrace *t = tio_calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->key = ++keys;
	s->traces[s->ntraces++] = t;
	t->in = in;
	t->is_tracedat = in->fmt && in->fmt->name && !strcmp(in->fmt->name, "tracedat");
	return t;
}

/* Make OUT.tmp-XXXXXX, where everything is written before the rename. */
static int start(psink *s)
{
	if (!s->out)
		return tio_err_set(TIO_ERR_USAGE,
				   "Parquet writer: no output path (option 'output')");
	struct stat st;
	if (!s->force && lstat(s->out, &st) == 0)
		return tio_err_set(TIO_ERR_USAGE, "%s: already exists (--force replaces it)",
				   s->out);
	s->tmpdir = tio_asprintf("%s.tmp-XXXXXX", s->out);
	if (!s->tmpdir)
		return TIO_ERR_NOMEM;
	if (tio_mkdtemp(s->tmpdir)) {
		int e = errno;
		free(s->tmpdir);
		s->tmpdir = NULL;
		return tio_err_set(TIO_ERR_IO, "%s: cannot create a directory next to it: %s",
				   s->out, strerror(e));
	}
	return 0;
}

/* Input trace j (tio_sink_trace_path). */
static const tio_trace *trace_at(const void *ctx, size_t j) { return ((const psink *)ctx)->traces[j]->in; }

/* Name n as a directory name: each '/' as '_', characters outside [A-Za-z0-9._-] as '_', no leading '.'. */
static void dir_safe(tio_buf *b, const char *n)
{
	bool comp_start = true;
	for (const char *p = n ? n : ""; *p; p++) {
		char c = *p;
		if (c == '/') {
			if (!comp_start)
				tio_buf_addc(b, '_');
			comp_start = true;
			continue;
		}
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-' ||
			  (c == '.' && !comp_start);
		tio_buf_addc(b, ok ? c : '_');
		comp_start = false;
	}
}

/*
 * A directory name for trace k: OUT's when it is the only trace; else its
 * path below the directory that holds every input (tio_sink_trace_path: traces of
 * inputs in several directories, a fleet's hosts/<host>/trace.dat, are
 * told apart by their directories), '/' as '_'; else (or when that takes
 * more than 200 bytes) its name below its input, or its file's name;
 * `trace<k>` when that is empty or an earlier trace's.
 */
static char *trace_dir_name(psink *s, size_t k)
{
	if (s->ntraces == 1 && !s->several) {
		const char *b = strrchr(s->out, '/');
		return tio_strdup(b ? b + 1 : s->out);
	}
	const tio_trace *in = s->traces[k]->in;
	char *abs;
	int err;
	const char *rel = tio_sink_trace_path(&s->inputs, trace_at, s, s->ntraces, k, &abs, &err);
	if (err)
		return NULL;
	tio_buf b = {0};
	dir_safe(&b, rel);
	free(abs);
	if (!b.len || b.len > 200) { /* below its input, or its file's name (trace.dat) */
		const char *n = in->name;
		if ((!n || !*n) && in->path)
			n = strrchr(in->path, '/') ? strrchr(in->path, '/') + 1 : in->path;
		tio_buf_reset(&b);
		dir_safe(&b, n);
	}
	bool dup = !b.len;
	for (size_t j = 0; j < k && !dup; j++)
		dup = s->traces[j]->name && !strcmp(s->traces[j]->name, tio_buf_cstr(&b));
	if (dup) {
		tio_buf_reset(&b);
		tio_buf_addf(&b, "trace%zu", k);
		s->traces[k]->by_index = true;
	}
	char *r = tio_strdup(tio_buf_cstr(&b));
	tio_buf_free(&b);
	return r;
}

/* The trace's directory and events.parquet, at its first message or at the end. */
static int prepare(psink *s, ptrace *t)
{
	int r;
	if (!s->tmpdir && (r = start(s)))
		return r;
	size_t idx = 0;
	while (s->traces[idx] != t)
		idx++;
	if (!(t->dir = tio_asprintf("%s/.w%zu", s->tmpdir, idx)))
		return TIO_ERR_NOMEM;
	if (mkdir(t->dir, 0777))
		return tio_err_set(TIO_ERR_IO, "%s: %s", t->dir, strerror(errno));
	/* names of every trace are known once the inputs were added */
	for (size_t k = 0; k < s->ntraces; k++)
		if (!s->traces[k]->name && !(s->traces[k]->name = trace_dir_name(s, k)))
			return TIO_ERR_NOMEM;
	ptable *ev;
	if ((r = table_new(s, t, NULL, &ev)))
		return r;
	pthread_mutex_lock(&s->io);
	t->events = ev;
	t->ready = true;
	pthread_mutex_unlock(&s->io);
	return 0;
}

/*
 * The first slot of an event class in a hash of `cap` slots: the product's
 * high bits (its low bits repeat those of the pointer, which classes
 * allocated in an array share: long probe chains).
 */
static size_t class_slot(const tio_event_class *ec, size_t cap)
{
	uint64_t h = (uint64_t)((uintptr_t)ec >> 4) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & (cap - 1);
}

/* The table of an event class, NULL before its first event. */
static ptable *lookup(ptrace *t, const tio_event_class *ec)
{
	if (!t->hcap)
		return NULL;
	for (size_t k = class_slot(ec, t->hcap);; k = (k + 1) & (t->hcap - 1)) {
		if (!t->hash[k])
			return NULL;
		if (t->hash[k]->ec == ec)
			return t->hash[k];
	}
}

/* Add a table to the trace's list and its class -> table hash. */
static int insert(ptrace *t, ptable *tb)
{
	if (tio_grow(&t->tables, &t->tcap, t->ntables + 1, sizeof(ptable *)))
		return TIO_ERR_NOMEM;
	t->tables[t->ntables++] = tb;
	if (t->ntables * 2 > t->hcap) {
		size_t nc = t->hcap ? t->hcap * 2 : 64;
		ptable **nh = tio_calloc(nc, sizeof(ptable *));
		if (!nh)
			return TIO_ERR_NOMEM;
		free(t->hash);
		t->hash = nh;
		t->hcap = nc;
		for (size_t j = 0; j < t->ntables; j++) {
			size_t k = class_slot(t->tables[j]->ec, nc);
			while (nh[k])
				k = (k + 1) & (nc - 1);
			nh[k] = t->tables[j];
		}
		return 0;
	}
	size_t k = class_slot(tb->ec, t->hcap);
	while (t->hash[k])
		k = (k + 1) & (t->hcap - 1);
	t->hash[k] = tb;
	return 0;
}

static int ev_sync(psink *s);

/*
 * Keep what is buffered within the budget (pq_buffered, counted every
 * 65536 rows once the pages in flight are compressed: the same row groups
 * with or without the worker).  While over it, the row group with the most
 * compressed chunks and dictionaries is written, its page buffers kept for
 * the rows to come; unless some file's page buffers hold more (many classes
 * with rows, as in an `-e all` trace.dat): then the file holding the most
 * of those writes its rows and gives its page buffers back too.
 */
static int check_budget(psink *s)
{
	int r = ev_sync(s);
	if (r)
		return r;
	for (;;) {
		size_t total = 0, most = 0, most_pages = 0;
		ptable *big = NULL, *paged = NULL;
		for (size_t i = 0; i < s->ntraces; i++) {
			ptrace *t = s->traces[i];
			for (size_t k = 0; k <= t->ntables; k++) {
				ptable *tb = k < t->ntables ? t->tables[k] : t->events;
				if (!tb)
					continue;
				if (tb->ck_rows != tb->rows || !tb->ck_rows) {
					tb->ck_bytes = pq_buffered(&tb->f, &tb->ck_pages);
					tb->ck_rows = tb->rows;
				}
				size_t pages = tb->ck_pages, b = tb->ck_bytes;
				total += b;
				if (tb->f.rows && b - pages > most) {
					most = b - pages;
					big = tb;
				}
				if (pages > most_pages) {
					most_pages = pages;
					paged = tb;
				}
			}
		}
		if (total <= s->budget / (s->nparts ? s->nparts : 1))
			return 0;
		bool keep = big && most >= most_pages; /* its pages fill again at once */
		ptable *w = keep ? big : paged;
		if (!w)
			return 0;
		r = pq_flush(&w->f, keep ? PQ_KEEP_PAGES : PQ_RELEASE);
		w->ck_rows = 0; /* counted again */
		if (r)
			return r;
	}
}

/*
 * The CPU of a message (tio_msg_cpu), without its search by name per event:
 * where cpu_id is in the packet context is found once per packet context class.
 */
static bool msg_cpu(psink *s, const tio_msg *m, uint64_t *cpu)
{
	if (m->stream->id_is_cpu) {
		*cpu = m->stream->id;
		return true;
	}
	const tio_val *pc = m->scope[TIO_SCOPE_PKT_CTX];
	if (!pc || pc->fc->kind != TIO_FC_STRUCT)
		return false;
	if (pc->fc != s->cpu_pc) {
		const tio_fc *fc = pc->fc;
		s->cpu_pc = fc;
		s->cpu_k = -1;
		for (uint32_t k = 0; k < fc->st.nmembers; k++) {
			const char *nm = fc->st.members[k].name;
			if (nm && (!strcmp(nm, "cpu_id") || !strcmp(nm, "_cpu_id"))) {
				s->cpu_k = (int)k;
				break;
			}
		}
		for (uint32_t k = 0; s->cpu_k > 0 && k < (uint32_t)s->cpu_k; k++)
			if (is_compound(fc->st.members[k].fc))
				s->cpu_k = -2;
	}
	if (s->cpu_k == -1)
		return false;
	if (s->cpu_k == -2 || (uint32_t)s->cpu_k >= pc->n)
		return tio_msg_cpu(m, cpu);
	const tio_val *v = pc + 1 + s->cpu_k;
	if ((v->fc->kind != TIO_FC_INT && v->fc->kind != TIO_FC_ENUM) || v->fc->i.size > 64 ||
	    (v->fc->i.is_signed && v->v.i < 0))
		return false;
	*cpu = v->v.u;
	return true;
}

/* One row's fixed columns (`ctb`: the class's table, for its name). */
static inline __attribute__((always_inline)) void put_fixed(ptrace *t, ptable *tb, const ptable *ctb, bool has_ts, int64_t ns, uint32_t stream,
			     bool has_cpu, uint64_t cpu)
{
	if (has_ts)
		pq_i64(tb->c_ts, ns, 0);
	else
		pq_null(tb->c_ts, 0, 0);
	if (tb->c_name)
		pq_str_stable(tb->c_name, ctb->ename, ctb->ename_len, 0);
	if (has_cpu && cpu <= UINT32_MAX)
		pq_i64(tb->c_cpu, (int64_t)cpu, 0);
	else
		pq_null(tb->c_cpu, 0, 0);
	pq_i32_req(tb->c_stream, (int32_t)stream); /* REQUIRED INT32 */
	if (tb->c_trace)
		pq_str_stable(tb->c_trace, t->name, strlen(t->name), 0);
}

/* A scalar's op: value x of vals. */
static inline __attribute__((always_inline)) void put_op(psink *s, pq_file *f, const struct pop *op,
							 const tio_val *vals, uint32_t nv, const tio_val *x)
{
	switch (op->kind) {
	case OP_I32:
		pq_i32_req(op->col, (int32_t)x->v.i);
		break;
	case OP_I64:
		pq_i64_req(op->col, x->v.i);
		break;
	case PN_INT:
		pq_i64(op->col, x->v.i, 0);
		break;
	case PN_UINT:
		pq_i64(op->col, (int64_t)x->v.u, 0);
		break;
	case PN_FLOAT:
		pq_double(op->col, x->v.d, 0);
		break;
	case PN_BOOL:
		pq_bool(op->col, x->v.u != 0, 0);
		break;
	case PN_STR:
		put_utf8(s, op->col, x->v.s.p, x->v.s.p ? x->v.s.len : 0, 0);
		break;
	default:
		emit(s, f, &(pnode){.kind = op->kind, .col = op->col}, vals, nv, (uint32_t)(x - vals), 0);
	}
}

/*
 * A scope's values by its sequential ops (seq_ops), from vals[j] (the
 * scope's root); true when the values end before the ops (not expected: a
 * value tree made for its class).
 */
static bool seq_row(psink *s, pq_file *f, const struct pop *op, uint32_t n, const tio_val *vals, uint32_t nv,
		    uint32_t j)
{
	for (uint32_t k = 0; k < n; k++) {
		if (TIO_UNLIKELY(j >= nv))
			return true;
		const tio_val *x = &vals[j];
		switch (op[k].kind) {
		case OP_IN:
			j++;
			continue;
		case OP_LIST_INT:
			if (!x->n)
				pq_null(op[k].col, op[k].absent_def, 0);
			else if (j + 1 + x->n <= nv)
				put_int_list(op[k].col, x + 1, x->n, 0, op[k].rep);
			else
				return true;
			j = x->end;
			continue;
		case PN_TEXT:
			j = emit(s, f, &(pnode){.kind = PN_TEXT, .col = op[k].col}, vals, nv, j, 0);
			continue;
		default:
			put_op(s, f, &op[k], vals, nv, x);
		}
		j++;
	}
	return false;
}

/* A row of events.parquet, staged (what put_fixed takes from the message). */
typedef struct evrow {
	ptrace *t;
	const ptable *ctb; /* the class's table: its name */
	int64_t ns;
	uint32_t stream, cpu;
	bool has_ts, has_cpu;
} evrow;

/* Store integer v at value j of a page's values from `at` (INT32 or INT64 column). */
static inline void put_at(const pq_col *c, size_t at, size_t j, int64_t v)
{
	if (c->phys == PQ_INT32) {
		int32_t w = (int32_t)v;
		memcpy(c->vals.p + at + 4 * j, &w, 4);
	} else {
		memcpy(c->vals.p + at + 8 * j, &v, 8);
	}
}

/*
 * Staged rows from e appended to events.parquet as put_fixed and pq_row
 * would, while none is a special case: every buffer has room below its
 * limit (no page grows or comes due), the row group is not full, each row
 * has its time and CPU, its class's name is in the dictionary's cache, no
 * page holds a lower definition level.  The rows are stored column by
 * column with one check per run instead of one per value.  Returns the
 * rows appended (0: the next row takes put_fixed).
 */
static size_t ev_run(ptable *tb, uint64_t rg_rows, const evrow *e, const evrow *end)
{
	pq_col *ts = tb->c_ts, *nm = tb->c_name, *cpu = tb->c_cpu, *st = tb->c_stream;
	pq_file *f = &tb->f;
	if (st->run) /* stored here without pq_i32_req (first: this may make the column due) */
		pq_unrun(st);
	if (tb->c_trace || !nm || !nm->dict || nm->max_def || ts->defs.len || cpu->defs.len || f->ndue ||
	    f->rows + 1 >= rg_rows)
		return 0;
	size_t n = (size_t)(end - e), w_ts = ts->phys == PQ_INT32 ? 4 : 8, w_cpu = cpu->phys == PQ_INT32 ? 4 : 8,
	       w_st = st->phys == PQ_INT32 ? 4 : 8;
	size_t room[] = {pq_room_n(&ts->vals, w_ts), pq_room_n(&cpu->vals, w_cpu), pq_room_n(&st->vals, w_st),
			 pq_room_n(&nm->idx, 4), (size_t)(rg_rows - 1 - f->rows)};
	for (size_t k = 0; k < sizeof(room) / sizeof(room[0]); k++)
		if (room[k] < n)
			n = room[k];
	/* the rows' name entries first: the run ends at a row that is a special case */
	const ptable *lc = NULL;
	uint32_t le = 0;
	size_t j = 0;
	for (; j < n; j++) {
		const evrow *r = &e[j];
		if (!r->has_ts || !r->has_cpu || r->t != e->t)
			break;
		if (r->ctb != lc) {
			if (!pq_seen(nm, r->ctb->ename, r->ctb->ename_len, &le))
				break;
			lc = r->ctb;
		}
		memcpy(nm->idx.p + nm->idx.len + 4 * j, &le, 4);
	}
	n = j;
	for (j = 0; j < n; j++)
		put_at(ts, ts->vals.len, j, e[j].ns);
	for (j = 0; j < n; j++)
		put_at(cpu, cpu->vals.len, j, (int64_t)e[j].cpu);
	for (j = 0; j < n; j++)
		put_at(st, st->vals.len, j, (int64_t)e[j].stream);
	ts->vals.len += n * w_ts;
	cpu->vals.len += n * w_cpu;
	st->vals.len += n * w_st;
	nm->idx.len += n * 4;
	pq_levels_present(ts, (uint32_t)n);
	pq_levels_present(nm, (uint32_t)n);
	pq_levels_present(cpu, (uint32_t)n);
	pq_levels_present(st, (uint32_t)n);
	f->rows += n;
	tb->rows += n;
	return n;
}

/* Append staged rows to events.parquet (on the compression thread when there is one). */
static void ev_rows(void *arg, const void *bytes, size_t len)
{
	psink *s = arg;
	const evrow *e = bytes, *end = e + len / sizeof(evrow);
	for (; e < end && !s->ev_err; e++) {
		e += ev_run(e->t->events, s->rg_rows, e, end);
		if (e == end)
			break;
		ptable *tb = e->t->events;
		put_fixed(e->t, tb, e->ctb, e->has_ts, e->ns, e->stream, e->has_cpu, e->cpu);
		pq_row(&tb->f);
		tb->rows++;
		int r = tb->f.rows >= s->rg_rows ? pq_flush(&tb->f, PQ_KEEP) : 0;
		if (r) {
			s->ev_err = r;
			snprintf(s->ev_msg, sizeof(s->ev_msg), "%s", tio_error_message());
		}
	}
}

/* Hand the staged rows over; wait until every row and page handed over is written. */
static int ev_sync(psink *s)
{
	if (s->stage.len)
		pq_defer(&s->sh, ev_rows, s, &s->stage);
	pq_sync(&s->sh);
	return s->ev_err ? tio_err_set(s->ev_err, "%s", s->ev_msg) : 0;
}

static int add_row(psink *s, ptrace *t, ptable *tb, const ptable *ctb, const tio_msg *m,
		   bool has_cpu, uint64_t cpu);

/* An event's row of events.parquet, staged (written as add_row would, by ev_rows). */
static int add_event(psink *s, ptrace *t, const ptable *ctb, const tio_msg *m, bool has_cpu,
		     uint64_t cpu)
{
	if (TIO_UNLIKELY(tio_buf_reserve(&s->stage, sizeof(evrow))))
		return TIO_ERR_NOMEM;
	evrow *e = (evrow *)(s->stage.p + s->stage.len);
	*e = (evrow){.t = t,
		     .ctb = ctb,
		     .ns = m->ns,
		     .stream = m->stream->index,
		     .cpu = (uint32_t)cpu,
		     .has_ts = m->has_ts,
		     .has_cpu = has_cpu && cpu <= UINT32_MAX};
	s->stage.len += sizeof(evrow);
	if (s->stage.len >= (64u << 10))
		pq_defer(&s->sh, ev_rows, s, &s->stage);
	return ++s->since_check >= 65536 ? (s->since_check = 0, check_budget(s)) : 0;
}

/* Append one row to a table, and flush it at the row-group size. */
static int add_row(psink *s, ptrace *t, ptable *tb, const ptable *ctb, const tio_msg *m,
		   bool has_cpu, uint64_t cpu)
{
	pq_file *f = &tb->f;
	put_fixed(t, tb, ctb, m->has_ts, m->ns, m->stream->index, has_cpu, cpu);
	if (tb->ec) {
		if (tb->c_comm) {
			const tio_val *cc = m->scope[TIO_SCOPE_EV_COMMON_CTX];
			const char *comm = NULL;
			size_t clen = 0;
			if (cc && m->vals && (uint32_t)tb->pid_member < cc->n) {
				int64_t pid;
				const tio_val *pv = cc + tb->pid_off;
				if (tb->pid_off && cc->fc == tb->ec->sc->ev_common_ctx && pv < m->vals + m->nvals) {
					/* members before it are scalars: at a fixed place */
					pid = tb->pid_signed ? pv->v.i : (int64_t)pv->v.u;
				} else {
					pv = cc + 1;
					for (int k = 0; k < tb->pid_member; k++)
						pv = &m->vals[is_compound(pv->fc) ? pv->end
										  : (uint32_t)(pv - m->vals) + 1];
					pid = pv->fc->i.is_signed ? pv->v.i : (int64_t)pv->v.u;
				}
				if (!tb->last_set || tb->last_pid != pid) { /* a class's rows often come from one task */
					unsigned h = (unsigned)((uint64_t)pid * 0x9E3779B97F4A7C15ull >> 56);
					if (!t->comms[h].set || t->comms[h].pid != pid) {
						t->comms[h].pid = pid;
						t->comms[h].comm = tio_trace_comm(t->in, pid);
						t->comms[h].len = t->comms[h].comm ? strlen(t->comms[h].comm) : 0;
						t->comms[h].set = true;
					}
					tb->last_set = true;
					tb->last_pid = pid;
					tb->last_comm = t->comms[h].comm;
					tb->last_len = t->comms[h].len;
				}
				comm = tb->last_comm;
				clen = tb->last_len;
			}
			if (comm)
				pq_str_stable(tb->c_comm, comm, clen, 0);
			else
				pq_null(tb->c_comm, 0, 0);
		}
		for (int k = 0; k < NSCOPES; k++) {
			const tio_val *v = m->scope[scope_ids[k]];
			const pnode *p = &tb->scopes[k];
			if (p->kind == PN_NONE || !p->fc)
				continue;
			if (v && m->vals && v->fc == p->fc && tb->seq[k]) {
				if (seq_row(s, f, tb->ops[k], tb->nops[k], m->vals, m->nvals, (uint32_t)(v - m->vals)))
					return tio_err_set(TIO_ERR_FORMAT,
							   "Parquet writer: event '%s': the %s value is shorter than its class",
							   tb->ec->name ? tb->ec->name : "", scope_names[k]);
			} else if (v && m->vals && v->fc == p->fc && tb->ops[k] &&
			    v + tb->nvals[k] <= m->vals + m->nvals) {
				const struct pop *op = tb->ops[k];
				uint32_t j = 0, e = tb->ni32[k];
				for (; j < e; j++)
					pq_i32_req(op[j].col, (int32_t)v[op[j].off].v.i);
				for (e += tb->ni64[k]; j < e; j++)
					pq_i64_req(op[j].col, v[op[j].off].v.i);
				for (uint32_t n = tb->nops[k]; j < n; j++)
					put_op(s, f, &op[j], m->vals, m->nvals, v + op[j].off);
			} else if (v && m->vals && v->fc == p->fc)
				emit(s, f, p, m->vals, m->nvals, (uint32_t)(v - m->vals), 0);
			else
				return tio_err_set(
				    TIO_ERR_FORMAT,
				    "Parquet writer: event '%s': the %s value is not of its class",
				    tb->ec->name ? tb->ec->name : "", scope_names[k]);
		}
	}
	pq_row(f);
	tb->rows++;
	if (f->rows >= s->rg_rows) {
		int r = pq_flush(f, PQ_KEEP);
		if (r)
			return r;
	}
	return ++s->since_check >= 65536 ? (s->since_check = 0, check_budget(s)) : 0;
}

/* Keep a discarded events/packets record for meta.json (one per lossy packet: small). */
static int record_discarded(ptrace *t, const tio_msg *m)
{
	if (tio_grow(&t->disc, &t->dcap, t->ndisc + 1, sizeof(pdisc)))
		return TIO_ERR_NOMEM;
	pdisc *d = &t->disc[t->ndisc++];
	d->packets = m->type == TIO_MSG_DISCARDED_PACKETS;
	d->stream = m->stream->index;
	d->count = m->count;
	d->has_range = m->has_range;
	d->begin_cycles = m->begin_cycles;
	d->end_cycles = m->end_cycles;
	d->begin_ns = m->begin_ns;
	d->end_ns = m->end_ns;
	return 0;
}

/* A message: an event goes to events.parquet and its class's file; discarded records are kept. */
static int pq_consume(tio_sink *sk, const tio_msg *m)
{
	psink *s = (psink *)sk;
	if (s->failed)
		return tio_err_set(TIO_ERR_USAGE, "Parquet writer: already failed");
	if (m->type != TIO_MSG_EVENT && m->type != TIO_MSG_DISCARDED_EVENTS &&
	    m->type != TIO_MSG_DISCARDED_PACKETS)
		return 0;
	if (!m->stream || !m->stream->trace)
		return 0;
	ptrace *t = find_trace(s, m->stream->trace);
	int r = 0;
	if (!t) { /* not added before the messages (the traces array grows: under io) */
		pthread_mutex_lock(&s->io);
		t = register_trace(s, m->stream->trace);
		pthread_mutex_unlock(&s->io);
		if (!t) {
			s->failed = true;
			return TIO_ERR_NOMEM;
		}
	}
	if (!t->ready && (r = prepare(s, t))) {
		s->failed = true;
		return r;
	}
	if (m->type != TIO_MSG_EVENT) {
		if ((r = record_discarded(t, m)))
			s->failed = true;
		return r;
	}
	if (!m->ec)
		return 0;
	ptable *tb;
	/* the class's table, kept in the class (a hash lookup per event cost 3% of a trace.dat conversion) */
	tio_event_class *mec = (tio_event_class *)m->ec;
	if (TIO_LIKELY(mec->sink_key == t->key)) {
		tb = mec->sink_val;
	} else {
		if (!(tb = lookup(t, m->ec))) {
			if ((r = table_new(s, t, m->ec, &tb))) {
				s->failed = true;
				return r;
			}
			pthread_mutex_lock(&s->io);
			r = insert(t, tb);
			pthread_mutex_unlock(&s->io);
			if (r) {
				s->failed = true;
				return r;
			}
		}
		mec->sink_key = t->key;
		mec->sink_val = tb;
	}
	uint64_t cpu = 0;
	bool has_cpu = msg_cpu(s, m, &cpu);
	if ((r = add_event(s, t, tb, m, has_cpu, cpu)) ||
	    (r = add_row(s, t, tb, tb, m, has_cpu, cpu))) {
		s->failed = true;
		tio_err_push(r, "%s@0x%" PRIx64, m->stream->path ? m->stream->path : "", m->offset);
	}
	return r;
}

/* Every row group buffered written now (a part's sink, on its thread, before pq_merge). */
static int pq_flush_all(tio_sink *sk)
{
	psink *s = (psink *)sk;
	if (s->failed)
		return tio_err_set(TIO_ERR_USAGE, "Parquet writer: already failed");
	int r = ev_sync(s);
	for (size_t i = 0; i < s->ntraces && !r; i++) {
		ptrace *t = s->traces[i];
		for (size_t j = 0; j < t->ntables && !r; j++)
			r = pq_flush(&t->tables[j]->f, PQ_RELEASE);
		if (!r && t->events)
			r = pq_flush(&t->events->f, PQ_RELEASE);
	}
	if (r)
		s->failed = true;
	return r;
}

/* The event class of trace `a` that is `ec` of trace `b`, another open of the same trace; NULL. */
static const tio_event_class *same_class(const tio_trace *a, const tio_trace *b, const tio_event_class *ec)
{
	const tio_trace_class *ta = a->tc, *tb = b->tc;
	for (uint32_t i = 0; i < tb->nscs && i < ta->nscs; i++) {
		const tio_stream_class *sa = ta->scs[i], *sb = tb->scs[i];
		for (uint32_t k = 0; k < sb->necs && k < sa->necs; k++) {
			if (sb->ecs[k] != ec)
				continue;
			const tio_event_class *e = sa->ecs[k];
			bool same = sa->id == sb->id && e->id == ec->id &&
				    (e->name && ec->name ? !strcmp(e->name, ec->name) : e->name == ec->name);
			return same ? e : NULL;
		}
	}
	return NULL;
}

/* Every trace of the sink ended (tio_sink_end_trace): its files and meta.json written. */
static bool all_ended(const psink *s)
{
	for (size_t k = 0; k < s->ntraces; k++)
		if (!s->traces[k]->ended)
			return false;
	return true;
}

/*
 * The traces of `o`, each written whole and ended (convert --to parquet of
 * a fleet's inputs, a range of them per sink and thread), after those of
 * `s`: their directories moved into s's temporary directory, renamed into
 * place by pq_finish with s's.  Each trace's name was given by its own
 * sink, from its path below the directory of every input (option input,
 * the same in every sink): the name a sink reading every input would give
 * it unless that sink would have named it `trace<k>` (no name of its own,
 * or the name of an earlier trace, perhaps another sink's).  Those give
 * TIO_ERR_UNSUPPORTED, before anything moves: read them on one sink.
 */
static int adopt(psink *s, psink *o)
{
	if (s->codec != o->codec || s->partition != o->partition || s->int64 != o->int64)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "Parquet writer: sinks of other options");
	for (size_t j = 0; j < o->ntraces; j++) {
		const ptrace *u = o->traces[j];
		bool clash = u->by_index || !u->name || !u->dir;
		for (size_t k = 0; k < s->ntraces && !clash; k++)
			clash = s->traces[k]->name && !strcmp(s->traces[k]->name, u->name);
		for (size_t k = 0; k < j && !clash; k++)
			clash = !strcmp(o->traces[k]->name, u->name);
		if (clash)
			return tio_err_set(TIO_ERR_UNSUPPORTED,
					   "Parquet writer: trace '%s' would be named otherwise by one sink",
					   u->name ? u->name : "");
	}
	int r = 0;
	if (o->ntraces && !s->tmpdir)
		r = start(s);
	if (!r && tio_grow(&s->traces, &s->cap, s->ntraces + o->ntraces, sizeof(ptrace *)))
		r = TIO_ERR_NOMEM;
	size_t j = 0;
	for (; j < o->ntraces && !r; j++) {
		ptrace *u = o->traces[j];
		char *dir = tio_asprintf("%s/.w%zu", s->tmpdir, s->ntraces);
		if (!dir) {
			r = TIO_ERR_NOMEM;
			break;
		}
		if (rename(u->dir, dir)) {
			r = tio_err_set(TIO_ERR_IO, "%s: %s", dir, strerror(errno));
			free(dir);
			break;
		}
		free(u->dir);
		u->dir = dir;
		s->traces[s->ntraces++] = u;
		o->traces[j] = NULL;
	}
	/* o keeps the traces not moved (freed with it) */
	size_t left = 0;
	for (size_t k = 0; k < o->ntraces; k++)
		if (o->traces[k])
			o->traces[left++] = o->traces[k];
	o->ntraces = left;
	if (r)
		s->failed = true;
	return r;
}

/*
 * The files of a later part (`from`, read with tio_mux_set_part_in_order
 * from other opens of the same inputs, added in the same order) after
 * those of `into`: each table's row groups appended to the table of the
 * same class (made when `into` had no event of it: named as a whole read
 * names it, classes being met in the same order), discarded records
 * after into's.
 */
static int pq_merge(tio_sink *ik, tio_sink *fk)
{
	psink *s = (psink *)ik, *o = (psink *)fk;
	if (s->failed || o->failed)
		return tio_err_set(TIO_ERR_USAGE, "Parquet writer: a part failed");
	if (s->several && o->several && all_ended(s) && all_ended(o))
		return adopt(s, o);
	if (s->ntraces != o->ntraces || s->codec != o->codec || s->partition != o->partition ||
	    s->int64 != o->int64 || s->several != o->several)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "Parquet writer: parts of other inputs or options");
	int r = ev_sync(s);
	if (!r)
		r = ev_sync(o);
	for (size_t i = 0; i < s->ntraces && !r; i++) {
		ptrace *t = s->traces[i], *u = o->traces[i];
		if (t->ended || u->ended) {
			r = tio_err_set(TIO_ERR_UNSUPPORTED, "Parquet writer: parts of a trace already ended");
			break;
		}
		if (!u->ready)
			continue;
		if (!t->ready && (r = prepare(s, t)))
			break;
		if ((r = pq_append(&t->events->f, &u->events->f)))
			break;
		t->events->rows += u->events->rows;
		unlink(u->events->f.path);
		for (size_t j = 0; j < u->ntables && !r; j++) {
			ptable *ub = u->tables[j], *tb;
			const tio_event_class *ec = same_class(t->in, u->in, ub->ec);
			if (!ec) {
				r = tio_err_set(TIO_ERR_UNSUPPORTED, "Parquet writer: event class '%s' differs between parts",
						ub->ec->name ? ub->ec->name : "");
				break;
			}
			if (!(tb = lookup(t, ec))) {
				if ((r = table_new(s, t, ec, &tb)))
					break;
				if ((r = insert(t, tb))) {
					table_free(tb);
					break;
				}
			}
			if ((r = pq_append(&tb->f, &ub->f)))
				break;
			tb->rows += ub->rows;
			unlink(ub->f.path);
		}
		if (!r && u->ndisc) {
			if (tio_grow(&t->disc, &t->dcap, t->ndisc + u->ndisc, sizeof(pdisc)))
				r = TIO_ERR_NOMEM;
			else {
				memcpy(t->disc + t->ndisc, u->disc, u->ndisc * sizeof(pdisc));
				t->ndisc += u->ndisc;
			}
		}
	}
	if (r)
		s->failed = true;
	return r;
}

/*
 * pq_merge begun while `from` still reads its part (another thread: every
 * access to its traces' tables under from->io): for each file of `into`
 * that `from` also writes, from's bytes so far are copied after into's and
 * its later row groups go there (pq_redirect); pq_merge then copies nothing
 * for it.  Its files that `into` lacks, or that come later, are left to
 * pq_merge.  `into` is only read (lookup), by this thread alone.
 */
static int pq_merge_begin(tio_sink *ik, tio_sink *fk)
{
	psink *s = (psink *)ik, *o = (psink *)fk;
	if (s->failed || s->several || o->several || s->codec != o->codec || s->partition != o->partition ||
	    s->int64 != o->int64)
		return 0; /* pq_merge says what is wrong */
	int r = 0;
	for (size_t i = 0; i < s->ntraces && !r; i++) {
		ptrace *t = s->traces[i], *u;
		if (!t->ready || t->ended)
			continue;
		pthread_mutex_lock(&o->io);
		u = i < o->ntraces && o->ntraces == s->ntraces ? o->traces[i] : NULL;
		ptable *ue = u && u->ready ? u->events : NULL;
		pthread_mutex_unlock(&o->io);
		if (!ue)
			continue;
		r = pq_redirect(&t->events->f, &ue->f);
		for (size_t j = 0; !r; j++) {
			pthread_mutex_lock(&o->io);
			ptable *ub = j < u->ntables ? u->tables[j] : NULL;
			pthread_mutex_unlock(&o->io);
			if (!ub)
				break;
			const tio_event_class *ec = same_class(t->in, u->in, ub->ec);
			ptable *tb = ec ? lookup(t, ec) : NULL;
			if (tb)
				r = pq_redirect(&tb->f, &ub->f);
		}
	}
	return r;
}

/* An input announced before the messages: written even without events. */
static int pq_add_trace(tio_sink *sk, const tio_trace *in)
{
	psink *s = (psink *)sk;
	if (find_trace(s, in))
		return 0;
	return register_trace(s, in) ? 0 : TIO_ERR_NOMEM;
}

/* ---------------------------------------------------------------- meta.json and the end */

static json_object *jstr(const char *s) { return s ? J(json_object_new_string(s)) : NULL; }

/* A UUID as its usual text. */
static json_object *juuid(const uint8_t *u)
{
	char b[37];
	snprintf(b, sizeof(b),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
	return J(json_object_new_string(b));
}

/* The --compression name of a codec. */
static const char *codec_name(int c)
{
	return c == PQ_ZSTD ? "zstd" : c == PQ_SNAPPY ? "snappy" : "none";
}

/* DIR/meta.json from `o` (pretty, slashes as they are); `o` is released. */
static int write_meta_file(const char *dir, json_object *o)
{
	char *path = tio_path_join(dir, "meta.json");
	int r = 0;
	if (!path)
		r = TIO_ERR_NOMEM;
	else if (json_object_to_file_ext(path, o,
					 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					     JSON_C_TO_STRING_NOSLASHESCAPE)) {
		/* json-c gives no message when the text could not be made: out of memory */
		const char *e = json_util_get_last_err();
		r = e ? tio_err_set(TIO_ERR_IO, "%s: cannot write: %s", path, e)
		      : tio_err_set(TIO_ERR_NOMEM, "%s: out of memory making its text", path);
	}
	free(path);
	json_object_put(o);
	return r;
}

/* The trace's meta.json: trace, clocks, environment, streams, classes with their files and columns,
 * discarded records. */
static int write_meta(psink *s, ptrace *t)
{
	const tio_trace *in = t->in;
	const tio_trace_class *tc = in->tc;
	joom = false;
	json_object *o = J(json_object_new_object());
	jset(o, "format", J(json_object_new_string("traceio-parquet")));
	jset(o, "version", J(json_object_new_int(1)));
	json_object *tr = J(json_object_new_object());
	jset(tr, "name", jstr(t->name));
	jset(tr, "input_name", jstr(in->name));
	jset(tr, "path", jstr(in->path));
	jset(tr, "format", jstr(in->fmt ? in->fmt->name : NULL));
	if (tc->has_uuid)
		jset(tr, "uuid", juuid(tc->uuid));
	jset(o, "trace", tr);
	jset(o, "trace_column", J(json_object_new_boolean(s->partition)));
	jset(o, "int_width", J(json_object_new_string(s->int64 ? "64" : "narrowest")));
	jset(o, "compression", J(json_object_new_string(codec_name(s->codec))));
	if (s->codec == PQ_ZSTD)
		jset(o, "compression_level", J(json_object_new_int(s->level)));
	jset(o, "row_group_rows", J(json_object_new_uint64(s->rg_rows)));
	json_object *ck = J(json_object_new_array());
	for (uint32_t k = 0; k < tc->nclocks; k++) {
		const tio_clock *c = tc->clocks[k];
		json_object *j = J(json_object_new_object());
		jset(j, "name", jstr(c->name));
		jset(j, "description", jstr(c->description));
		jset(j, "frequency", J(json_object_new_uint64(c->freq)));
		jset(j, "offset_s", J(json_object_new_int64(c->offset_s)));
		jset(j, "offset_cycles", J(json_object_new_int64(c->offset)));
		jset(j, "precision", J(json_object_new_uint64(c->precision)));
		jset(j, "origin_is_unix_epoch",
				       J(json_object_new_boolean(c->origin_unix)));
		if (c->has_uuid)
			jset(j, "uuid", juuid(c->uuid));
		jpush(ck, j);
	}
	jset(o, "clocks", ck);
	jset(
	    o, "ts",
	    J(json_object_new_string("ns from the origin of the stream class's default clock "
				   "(clocks[].offset included); TIMESTAMP(NANOS) with "
				   "isAdjustedToUTC when that origin is the Unix epoch")));
	json_object *env = J(json_object_new_object());
	for (uint32_t k = 0; k < tc->nenv; k++)
		jset(env, tc->env[k].key ? tc->env[k].key : "",
				       tc->env[k].is_int ? J(json_object_new_int64(tc->env[k].ival))
							 : jstr(tc->env[k].sval));
	jset(o, "environment", env);
	json_object *st = J(json_object_new_array());
	for (uint32_t k = 0; k < in->nstreams; k++) {
		const tio_stream *x = in->streams[k];
		json_object *j = J(json_object_new_object());
		jset(j, "stream", J(json_object_new_int((int)x->index)));
		jset(j, "stream_class_id",
				       J(json_object_new_uint64(x->sc ? x->sc->id : 0)));
		jset(j, "id", J(json_object_new_uint64(x->id)));
		jset(j, "name", jstr(x->name));
		jset(j, "path", jstr(x->path));
		if (x->id_is_cpu)
			jset(j, "cpu", J(json_object_new_uint64(x->id)));
		jpush(st, j);
	}
	jset(o, "streams", st);
	jset(o, "events_file", J(json_object_new_string("events.parquet")));
	jset(o, "events",
			       J(json_object_new_uint64(t->events ? t->events->rows : 0)));
	json_object *cl = J(json_object_new_array());
	for (uint32_t i = 0; i < tc->nscs; i++) {
		const tio_stream_class *sc = tc->scs[i];
		for (uint32_t k = 0; k < sc->necs; k++) {
			const tio_event_class *ec = sc->ecs[k];
			const ptable *tb = lookup(t, ec);
			json_object *j = J(json_object_new_object());
			jset(j, "name", jstr(ec->name));
			jset(j, "id", J(json_object_new_uint64(ec->id)));
			jset(j, "stream_class_id",
					       J(json_object_new_uint64(sc->id)));
			jset(j, "file", tb ? jstr(tb->file) : NULL);
			jset(j, "rows",
					       J(json_object_new_uint64(tb ? tb->rows : 0)));
			if (tb)
				jset(j, "columns", J(json_tokener_parse(tb->cols)));
			jpush(cl, j);
		}
	}
	jset(o, "classes", cl);
	json_object *ds = J(json_object_new_array());
	for (size_t k = 0; k < t->ndisc; k++) {
		const pdisc *d = &t->disc[k];
		json_object *j = J(json_object_new_object());
		jset(j, "kind",
				       J(json_object_new_string(d->packets ? "packets" : "events")));
		jset(j, "stream", J(json_object_new_int((int)d->stream)));
		jset(j, "count",
				       d->count ? J(json_object_new_uint64(d->count)) : NULL);
		if (d->has_range) {
			jset(j, "begin_ns", J(json_object_new_int64(d->begin_ns)));
			jset(j, "end_ns", J(json_object_new_int64(d->end_ns)));
			jset(j, "begin_cycles",
					       J(json_object_new_uint64(d->begin_cycles)));
			jset(j, "end_cycles",
					       J(json_object_new_uint64(d->end_cycles)));
		}
		jpush(ds, j);
	}
	jset(o, "discarded", ds);
	if (joom) {
		json_object_put(o);
		return tio_err_oom();
	}
	return write_meta_file(t->dir, o);
}

/* OUT/meta.json for several traces: where each one went. */
static int write_top_meta(psink *s)
{
	joom = false;
	json_object *o = J(json_object_new_object());
	jset(o, "format", J(json_object_new_string("traceio-parquet")));
	jset(o, "version", J(json_object_new_int(1)));
	json_object *a = J(json_object_new_array());
	for (size_t k = 0; k < s->ntraces; k++) {
		json_object *j = J(json_object_new_object());
		jset(j, "dir", jstr(s->traces[k]->name));
		jset(j, "path",
				       jstr(s->traces[k]->in ? s->traces[k]->in->path : s->traces[k]->path));
		jpush(a, j);
	}
	jset(o, "traces", a);
	if (joom) {
		json_object_put(o);
		return tio_err_oom();
	}
	return write_meta_file(s->tmpdir, o);
}

/* A trace's files closed (footers) and its meta.json written (its directory made first if none). */
static int trace_close(psink *s, ptrace *t)
{
	int r = 0;
	if (!t->ready && (r = prepare(s, t)))
		return r;
	static const char *const kv[] = {"created_by", "traceio convert --to parquet", NULL};
	for (size_t j = 0; j < t->ntables && !r; j++)
		r = pq_close(&t->tables[j]->f, kv);
	if (!r)
		r = pq_close(&t->events->f, kv);
	if (!r)
		r = write_meta(s, t);
	return r;
}

/* A trace's tables and what they hold freed (its name and directory stay). */
static void trace_free_tables(ptrace *t)
{
	for (size_t j = 0; j < t->ntables; j++)
		table_free(t->tables[j]);
	table_free(t->events);
	free(t->tables);
	free(t->hash);
	free(t->disc);
	t->tables = t->hash = NULL;
	t->events = NULL;
	t->disc = NULL;
	t->ntables = t->tcap = t->hcap = t->ndisc = t->dcap = 0;
}

/*
 * No more messages of `in`: its files are finished now and its memory
 * given back, so that traces read one after another need the memory of
 * one (convert --to parquet of several inputs).  The sink forgets `in`,
 * which the caller may then close; pq_finish still renames its directory.
 */
static int pq_end_trace(tio_sink *sk, const tio_trace *in)
{
	psink *s = (psink *)sk;
	if (s->failed)
		return tio_err_set(TIO_ERR_USAGE, "Parquet writer: already failed");
	ptrace *t = find_trace(s, in);
	if (!t)
		return 0;
	int r = ev_sync(s);
	if (!r)
		r = trace_close(s, t);
	if (!r && in->path && !(t->path = tio_strdup(in->path)))
		r = TIO_ERR_NOMEM;
	if (r) {
		s->failed = true;
		return r;
	}
	trace_free_tables(t);
	memset(t->comms, 0, sizeof(t->comms)); /* names of the closed trace */
	t->in = NULL;
	t->ended = true;
	/* caches that point into the trace or its tables */
	s->last_t = NULL;
	s->cpu_pc = NULL;
	return 0;
}

/* Close every file (footers), write meta.json, and rename the temporary directory to OUT. */
static int pq_finish(tio_sink *sk)
{
	psink *s = (psink *)sk;
	int r = 0;
	if (s->failed)
		return tio_err_set(TIO_ERR_USAGE, "Parquet writer: nothing written after an error");
	if (!s->ntraces)
		return tio_err_set(TIO_ERR_USAGE, "%s: nothing to write: no input trace",
				   s->out ? s->out : "Parquet writer");
	if ((r = ev_sync(s))) {
		s->failed = true;
		return r;
	}
	for (size_t k = 0; k < s->ntraces && !r; k++)
		if (!s->traces[k]->ended)
			r = trace_close(s, s->traces[k]);
	if (r) {
		s->failed = true;
		return r;
	}
	/* several traces: OUT/<name>/ each; one: OUT itself */
	char *src = NULL;
	if (s->ntraces == 1 && !s->several) {
		src = tio_strdup(s->traces[0]->dir);
	} else {
		for (size_t k = 0; k < s->ntraces && !r; k++) {
			char *dst = tio_asprintf("%s/%s", s->tmpdir, s->traces[k]->name);
			if (!dst)
				r = TIO_ERR_NOMEM;
			else if (rename(s->traces[k]->dir, dst))
				r = tio_err_set(TIO_ERR_IO, "%s: %s", dst, strerror(errno));
			free(dst);
		}
		if (!r)
			r = write_top_meta(s);
		src = tio_strdup(s->tmpdir);
	}
	if (!src && !r)
		r = TIO_ERR_NOMEM;
	if (!r)
		r = tio_dir_replace(src, s->out, s->force, "meta.json", "meta.json");
	free(src);
	if (!r && s->ntraces == 1 && !s->several)
		rmdir(s->tmpdir);
	if (!r) {
		free(s->tmpdir);
		s->tmpdir = NULL;
	} else {
		s->failed = true;
	}
	return r;
}

/*
 * Defaults: zstd level 1, 1 Mi-row row groups, 64 MiB budget, 64 Ki
 * dictionary entries, a compression thread when there are 2 CPUs.
 */
static int pq_init(tio_sink *sk)
{
	psink *s = (psink *)sk;
	s->codec = PQ_ZSTD;
	s->level = 1;
	s->rg_rows = 1u << 20;
	s->budget = 64u << 20;
	s->dict_max = 65536;
	s->page_size = PQ_PAGE;
	/* pages compressed by a worker thread when there is a second CPU (TIO_PQ_THREADS=0: inline) */
	const char *env = getenv("TIO_PQ_THREADS");
	pq_shared_init(&s->sh);
	pq_shared_init(&s->evsh);
	s->sh.threads = !(env && !strcmp(env, "0")) && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	pthread_mutex_init(&s->io, NULL);
	return 0;
}

/* N with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *key, const char *value, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *e;
	errno = 0;
	unsigned long long v = strtoull(value ? value : "", &e, 10);
	uint64_t mul = 1;
	if (*e == 'k' || *e == 'K')
		mul = 1024, e++;
	else if (*e == 'm' || *e == 'M')
		mul = 1024 * 1024, e++;
	else if (*e == 'g' || *e == 'G')
		mul = 1024 * 1024 * 1024, e++;
	if (!value || !*value || *e || errno || e == value || v > hi / mul || v * mul < lo ||
	    v * mul > hi)
		return tio_err_set(TIO_ERR_USAGE,
				   "option %s: '%s': a number from %" PRIu64 " to %" PRIu64
				   " (K, M, G suffixes)",
				   key, value ? value : "", lo, hi);
	*out = v * mul;
	return 0;
}

/* Options: output, force, compression, row-group-size, buffer-size, dictionary-size, page-size,
 * partition-by.
 */
static int pq_set(tio_sink *sk, const char *key, const char *value)
{
	psink *s = (psink *)sk;
	if (!strcmp(key, "output")) {
		if (!value || !*value)
			return tio_err_set(TIO_ERR_USAGE, "option output: empty path");
		free(s->out);
		s->out = tio_strdup(value);
		size_t l = s->out ? strlen(s->out) : 0;
		while (l > 1 && s->out[l - 1] == '/')
			s->out[--l] = 0;
		return s->out ? 0 : TIO_ERR_NOMEM;
	}
	if (!strcmp(key, "force"))
		return tio_sink_bool(key, value, &s->force);
	if (!strcmp(key, "compression")) {
		if (value && !strcmp(value, "none"))
			s->codec = PQ_UNCOMPRESSED;
		else if (value && !strcmp(value, "zstd"))
			s->codec = PQ_ZSTD;
		else if (value && !strcmp(value, "snappy")) {
			if (pq_snappy())
				return tio_err_set(TIO_ERR_UNSUPPORTED, "%s", pq_snappy());
			s->codec = PQ_SNAPPY;
		}
		else
			return tio_err_set(TIO_ERR_USAGE,
					   "option compression: '%s': none, zstd or snappy",
					   value ? value : "");
		if (s->level_set && s->codec != PQ_ZSTD)
			return tio_err_set(TIO_ERR_USAGE, "option compression-level: for zstd only");
		return 0;
	}
	if (!strcmp(key, "compression-level")) {
		/* zstd's levels: negative ones faster than 1, up to 22 smaller */
		char *e = NULL;
		errno = 0;
		long v = value ? strtol(value, &e, 10) : 0;
		if (!value || !*value || *e || errno || v < ZSTD_minCLevel() || v > ZSTD_maxCLevel() || v == 0)
			return tio_err_set(TIO_ERR_USAGE,
					   "option compression-level: '%s': an integer from %d to %d, not 0",
					   value ? value : "", ZSTD_minCLevel(), ZSTD_maxCLevel());
		if (s->codec != PQ_ZSTD)
			return tio_err_set(TIO_ERR_USAGE, "option compression-level: for zstd only");
		s->level = (int)v;
		s->level_set = true;
		return 0;
	}
	if (!strcmp(key, "row-group-size"))
		return parse_size(key, value, 1, 1u << 30, &s->rg_rows);
	if (!strcmp(key, "page-size"))
		return parse_size(key, value, 1024, 64u << 20, &s->page_size);
	if (!strcmp(key, "dictionary-size"))
		return parse_size(key, value, 1, 1u << 20, &s->dict_max);
	if (!strcmp(key, "buffer-size"))
		return parse_size(key, value, 1u << 20, 1ull << 40, &s->budget);
	if (!strcmp(key, "several-traces")) /* OUT/<name>/ per trace (traces given one after another) */
		return tio_sink_bool(key, value, &s->several);
	if (!strcmp(key, "input")) /* each input as given: trace_dir_name */
		return tio_sink_input_add(&s->inputs, value);
	if (!strcmp(key, "parts")) { /* one of N sinks reading parts at once: its share of the budget */
		uint64_t n;
		int r = parse_size(key, value, 1, 64, &n);
		if (!r) {
			s->nparts = (unsigned)n;
			if (n > 1) /* the parts' threads are busy: pages compressed on each */
				s->sh.threads = false;
		}
		return r;
	}
	if (!strcmp(key, "int-width")) {
		if (value && (!strcmp(value, "64") || !strcmp(value, "narrowest")))
			s->int64 = value[0] == '6';
		else
			return tio_err_set(TIO_ERR_USAGE, "option int-width: '%s': narrowest or 64",
					   value ? value : "");
		return 0;
	}
	if (!strcmp(key, "partition-by")) {
		if (value && !strcmp(value, "trace"))
			s->partition = true;
		else if (value && !strcmp(value, "none"))
			s->partition = false;
		else
			return tio_err_set(TIO_ERR_USAGE,
					   "option partition-by: '%s': trace or none",
					   value ? value : "");
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE,
			   "sink parquet takes no option '%s' (output, force, compression, compression-level, "
			   "row-group-size, buffer-size, "
			   "dictionary-size, page-size, partition-by, int-width, parts, several-traces, input)",
			   key);
}

/* Free everything; an unfinished output is removed. */
static void pq_fini(tio_sink *sk)
{
	psink *s = (psink *)sk;
	pq_sync(&s->sh); /* nothing staged runs after this */
	for (size_t k = 0; k < s->ntraces; k++) {
		ptrace *t = s->traces[k];
		trace_free_tables(t);
		free(t->dir);
		free(t->name);
		free(t->path);
		free(t);
	}
	free(s->traces);
	free(s->out);
	tio_sink_inputs_free(&s->inputs);
	tio_buf_free(&s->scratch);
	tio_buf_free(&s->text);
	pq_shared_free(&s->sh);
	pq_shared_free(&s->evsh);
	tio_buf_free(&s->stage);
	/* not finished: leave nothing behind (once the buffers are given back: out of memory, the
	   walk of the directory needs some) */
	if (s->tmpdir)
		tio_rm_tree(s->tmpdir);
	free(s->tmpdir);
	pthread_mutex_destroy(&s->io);
}

const tio_sink_ops tio_sink_parquet_ops = {
    .name = "parquet",
    .size = sizeof(psink),
    .init = pq_init,
    .set = pq_set,
    .add_trace = pq_add_trace,
    .consume = pq_consume,
    .merge = pq_merge,
    .merge_begin = pq_merge_begin,
    .end_trace = pq_end_trace,
    .flush = pq_flush_all,
    .finish = pq_finish,
    .fini = pq_fini,
};

/*
 * TSDL parser: CTF 1.8.3 section 7 (TSDL), section 4 (types), section 8
 * (clocks) and annex C.2 (phrase structure grammar), by recursive descent
 * over the tokens of tsdl-lex.c.  It builds the common model (ir.h)
 * directly; docs/formats/ctf.md, "Metadata (TSDL)", lists every choice.
 *
 * Work happens in two phases:
 *   1. parsing: field classes are built with their names as written
 *      (leading '_' kept), byte_order = native left as a placeholder,
 *      clock maps possibly pointing to clocks declared later, and
 *      sequence/variant paths as text (their source location kept in
 *      fc->attrs as "LINE:COL" until the end);
 *   2. finish(): event classes are attached to their stream classes, then
 *      on the final trees: byte orders and clocks fixed up, length/tag
 *      paths resolved (against the names as written, like babeltrace2),
 *      names stripped, roles set, timestamps auto-mapped to a clock.
 */
#include "ctf/ctf.h"
#include "ctf/name-index.h"
#include "ctf/tsdl.h"

#include <stdlib.h>
#include <strings.h>

#define BO_NATIVE 2 /* placeholder byte order until the trace's is known */

typedef struct alias {
	char *key; /* "uint8_t", "unsigned long", "void *", "struct foo", "enum e", ... */
	tio_fc *fc;
} alias;

/* A lexical scope (7.3.1): root, trace, env, stream, event, struct, variant. */
typedef struct lscope {
	struct lscope *up;
	alias *v;
	size_t n, cap;
} lscope;

typedef struct pend_ec {
	tio_event_class *ec;
	bool has_sid, has_id;
	uint64_t sid;
	const tsdl_tok *at;
} pend_ec;

typedef struct clkref {
	char *name;
	const tsdl_tok *at;
} clkref;

typedef struct sc_info {
	const tsdl_tok *at;
} sc_info;

/*
 * The names of the structure or variant being parsed, or of a variant
 * tag's labels, with the compound or tag they belong to.  Without the
 * index (name-index.h), 10^5 members or enumerators (a few hundred kB of
 * text) took tens of seconds; the limits allow 2^20 of each.
 */
typedef struct name_idx {
	const tio_fc *owner; /* the compound whose members these are (add_member), or the tag */
	ctf_nidx ix;
} name_idx;

typedef struct parser {
	const char *name;
	tsdl_tok *t;
	size_t nt, i;
	lscope *ls;
	int depth;
	uint64_t nodes;
	tio_trace_class *tc;
	const tsdl_tok *trace_at;
	bool have_bo;
	size_t cap_scs, cap_clocks, cap_env;
	sc_info *sci; /* parallel to tc->scs */
	size_t cap_sci;
	pend_ec *pe;
	size_t npe, cap_pe;
	clkref *cr;
	size_t ncr, cap_cr;
	uint32_t *sc_slot; /* stream classes by id: index in tc->scs + 1 (sc_find) */
	uint32_t sc_cap;
	name_idx *names;   /* of the structure or variant being parsed */
	name_idx *tags;	   /* of variant tags' labels (variant_ranges), owner: the tag, whose
			      tio_fc.user points to its index until finish() ends */
	size_t ntags, cap_tags;
} parser;

/* ---------------------------------------------------------------- name look-ups */

/*
 * Room for element n of *arr (n elements so far), the capacity being the
 * power of two at or above n: arrays that grow one by one are not copied
 * each time (an allocator without mremap, as ASan's, copied 10^5 members
 * 10^5 times).
 */
static int grow_pow2(void *arr, uint32_t n, size_t sz)
{
	if (n & (n - 1))
		return 0; /* room left */
	void *a = tio_realloc(*(void **)arr, (n ? 2 * (size_t)n : 1) * sz);
	if (!a)
		return TIO_ERR_NOMEM;
	*(void **)arr = a;
	return 0;
}

_Static_assert(offsetof(tio_member, name) == 0 && offsetof(tio_mapping, label) == 0,
	       "ctf_nidx: elements begin with their name");

/* ---------------------------------------------------------------- errors */

static int verr(parser *p, int st, const tsdl_tok *at, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!at)
		at = &p->t[p->nt - 1];
	return tio_err_set(st, "%s:%u:%u: %s", p->name, at->line, at->col, msg);
}

static int perr(parser *p, const tsdl_tok *at, const char *fmt, ...) TIO_PRINTF(3, 4);
static int perr(parser *p, const tsdl_tok *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = verr(p, TIO_ERR_FORMAT, at, fmt, ap);
	va_end(ap);
	return r;
}

static int perr_st(parser *p, int st, const tsdl_tok *at, const char *fmt, ...) TIO_PRINTF(4, 5);
static int perr_st(parser *p, int st, const tsdl_tok *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = verr(p, st, at, fmt, ap);
	va_end(ap);
	return r;
}

/* Error at a location saved as "LINE:COL" in fc->attrs. */
static int fc_err(parser *p, const tio_fc *fc, const char *fmt, ...) TIO_PRINTF(3, 4);
static int fc_err(parser *p, const tio_fc *fc, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tio_err_set(TIO_ERR_FORMAT, "%s:%s: %s", p->name, fc->attrs ? fc->attrs : "?", msg);
}

/* How a token reads in a message. */
static const char *tok_desc(const tsdl_tok *t, char *buf, size_t sz)
{
	switch (t->kind) {
	case TK_EOF:
		return "end of metadata";
	case TK_STR:
		return "a string literal";
	default:
		snprintf(buf, sz, "'%.*s'", (int)(t->n > 40 ? 40 : t->n), t->p);
		return buf;
	}
}

static int syntax_err(parser *p, const char *expected)
{
	char b[64];
	const tsdl_tok *t = &p->t[p->i];
	return perr(p, t, "syntax error: expected %s, got %s", expected, tok_desc(t, b, sizeof(b)));
}

/* ---------------------------------------------------------------- tokens */

static const tsdl_tok *cur(parser *p) { return &p->t[p->i]; }
static const tsdl_tok *peek(parser *p, size_t k)
{
	return p->i + k < p->nt ? &p->t[p->i + k] : &p->t[p->nt - 1];
}
static void adv(parser *p)
{
	if (p->t[p->i].kind != TK_EOF)
		p->i++;
}
static bool is_p(const tsdl_tok *t, char c) { return t->kind == TK_PUNCT && t->punct == c; }
static bool accept(parser *p, char c)
{
	if (is_p(cur(p), c)) {
		adv(p);
		return true;
	}
	return false;
}
static int expect(parser *p, char c, const char *what)
{
	if (accept(p, c))
		return 0;
	return syntax_err(p, what);
}
static char *tok_dup(const tsdl_tok *t) { return tio_strndup(t->p, t->n); }

/*
 * A reserved keyword (C.1.2) where a declaration introduces a name:
 * refused, as babeltrace 1 and 2 refuse it (their grammar wants an
 * identifier there).  LTTng writes such names with a leading '_'.
 */
static bool is_kw(const tsdl_tok *t) { return t->kind == TK_ID && t->kw != KW_NONE; }
static int kw_err(parser *p, const tsdl_tok *t, const char *what)
{
	return perr(p, t, "`%.*s` is a reserved keyword, it cannot be %s (write it `_%.*s`)", (int)t->n, t->p,
		    what, (int)t->n, t->p);
}

/* ---------------------------------------------------------------- values */

enum { V_INT, V_STR, V_PATH };

typedef struct val {
	int kind;
	uint64_t mag; /* V_INT: magnitude */
	bool neg;
	char *s; /* V_STR: decoded text; V_PATH: "a.b.c" */
	const tsdl_tok *at;
} val;

static void val_free(val *v)
{
	free(v->s);
	v->s = NULL;
}

/* Read "ident(.ident)*" (keywords allowed) into a malloc'd string. */
static int parse_path(parser *p, char **out)
{
	tio_buf b = {0};
	*out = NULL;
	for (;;) {
		const tsdl_tok *t = cur(p);
		if (t->kind != TK_ID) {
			tio_buf_free(&b);
			return syntax_err(p, "an identifier");
		}
		if (tio_buf_add(&b, t->p, t->n)) {
			tio_buf_free(&b);
			return TIO_ERR_NOMEM;
		}
		adv(p);
		if (!(is_p(cur(p), '.') || is_p(cur(p), P_ARROW)) || peek(p, 1)->kind != TK_ID)
			break;
		adv(p);
		if (tio_buf_addc(&b, '.')) {
			tio_buf_free(&b);
			return TIO_ERR_NOMEM;
		}
	}
	*out = tio_strdup(tio_buf_cstr(&b));
	tio_buf_free(&b);
	return *out ? 0 : TIO_ERR_NOMEM;
}

/* unary-expression: [+-]* (integer | char) | string | path | ( unary ) */
static int parse_value(parser *p, val *v)
{
	memset(v, 0, sizeof(*v));
	v->at = cur(p);
	bool sign = false;
	while (is_p(cur(p), '+') || is_p(cur(p), '-')) {
		if (cur(p)->punct == '-')
			v->neg = !v->neg;
		sign = true;
		adv(p);
	}
	const tsdl_tok *t = cur(p);
	if (is_p(t, '(')) {
		if (p->depth >= TSDL_MAX_DEPTH)
			return perr_st(p, TIO_ERR_LIMIT, t, "expression nested more than %d levels deep", TSDL_MAX_DEPTH);
		adv(p);
		bool neg = v->neg;
		const tsdl_tok *at = v->at;
		p->depth++;
		int rc = parse_value(p, v);
		p->depth--;
		if (rc)
			return rc;
		v->at = at;
		if (neg) {
			if (v->kind != V_INT) {
				val_free(v);
				return perr(p, at, "unary '-' applied to a non-integer value");
			}
			v->neg = !v->neg;
		}
		if ((rc = expect(p, ')', "')'"))) {
			val_free(v);
			return rc;
		}
		return 0;
	}
	if (t->kind == TK_INT || t->kind == TK_CHAR) {
		if (t->overflow)
			return perr(p, t, "integer constant %.*s is out of range (more than 64 bits)", (int)t->n, t->p);
		v->kind = V_INT;
		v->mag = t->ival;
		if (v->mag == 0)
			v->neg = false;
		adv(p);
		return 0;
	}
	if (sign)
		return syntax_err(p, "an integer constant after the sign");
	if (t->kind == TK_STR) {
		v->kind = V_STR;
		v->s = tio_strndup(t->str, t->slen);
		adv(p);
		return v->s ? 0 : TIO_ERR_NOMEM;
	}
	if (t->kind == TK_ID) {
		v->kind = V_PATH;
		return parse_path(p, &v->s);
	}
	return syntax_err(p, "a value");
}

static int val_u64(parser *p, const val *v, const char *what, uint64_t *out)
{
	if (v->kind != V_INT)
		return perr(p, v->at, "`%s` expects an integer", what);
	if (v->neg)
		return perr(p, v->at, "`%s` must not be negative", what);
	*out = v->mag;
	return 0;
}

static int val_i64(parser *p, const val *v, const char *what, int64_t *out)
{
	if (v->kind != V_INT)
		return perr(p, v->at, "`%s` expects an integer", what);
	if (v->neg ? v->mag > (uint64_t)INT64_MAX + 1 : v->mag > (uint64_t)INT64_MAX)
		return perr(p, v->at, "`%s` value is out of the signed 64-bit range", what);
	*out = v->neg ? (int64_t)(0 - v->mag) : (int64_t)v->mag;
	return 0;
}

static int val_bool(parser *p, const val *v, const char *what, bool *out)
{
	if (v->kind == V_INT && !v->neg && v->mag <= 1) {
		*out = v->mag == 1;
		return 0;
	}
	if (v->kind == V_PATH && !strcasecmp(v->s, "true")) {
		*out = true;
		return 0;
	}
	if (v->kind == V_PATH && !strcasecmp(v->s, "false")) {
		*out = false;
		return 0;
	}
	return perr(p, v->at, "`%s` expects true, false, 1 or 0", what);
}

static int val_text(parser *p, const val *v, const char *what, char **out)
{
	if (v->kind != V_STR && v->kind != V_PATH)
		return perr(p, v->at, "`%s` expects a string or an identifier", what);
	*out = tio_strdup(v->s);
	return *out ? 0 : TIO_ERR_NOMEM;
}

static int parse_uuid(parser *p, const val *v, uint8_t *uuid)
{
	if (v->kind != V_STR || strlen(v->s) != 36)
		goto bad;
	for (int i = 0, k = 0; i < 36; i++) {
		const char c = v->s[i];
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				goto bad;
			continue;
		}
		int h = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
		if (h < 0)
			goto bad;
		if (k % 2 == 0)
			uuid[k / 2] = (uint8_t)(h << 4);
		else
			uuid[k / 2] |= (uint8_t)h;
		k++;
	}
	return 0;
bad:
	return perr(p, v->at, "invalid UUID (expected \"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\")");
}

/* ---------------------------------------------------------------- field class helpers */

static uint64_t fc_count(const tio_fc *fc)
{
	uint64_t n = 1;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++)
			n += fc_count(fc->st.members[i].fc);
		break;
	case TIO_FC_VARIANT:
		for (uint32_t i = 0; i < fc->v.noptions; i++)
			n += fc_count(fc->v.options[i].fc);
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		n += fc_count(fc->a.elem);
		break;
	default:
		break;
	}
	return n;
}

static int fc_depth(const tio_fc *fc)
{
	int d = 0;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++) {
			int c = fc_depth(fc->st.members[i].fc);
			d = c > d ? c : d;
		}
		break;
	case TIO_FC_VARIANT:
		for (uint32_t i = 0; i < fc->v.noptions; i++) {
			int c = fc_depth(fc->v.options[i].fc);
			d = c > d ? c : d;
		}
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		d = fc_depth(fc->a.elem);
		break;
	default:
		break;
	}
	return d + 1;
}

/* Copy a named type for a use site, within the node budget. */
static int copy_counted(parser *p, const tio_fc *fc, const tsdl_tok *at, tio_fc **out)
{
	p->nodes += fc_count(fc);
	if (p->nodes > TSDL_MAX_NODES)
		return perr_st(p, TIO_ERR_LIMIT, at, "metadata describes more than %u field classes", TSDL_MAX_NODES);
	*out = tio_fc_copy(fc);
	return *out ? 0 : TIO_ERR_NOMEM;
}

static int set_loc(tio_fc *fc, const tsdl_tok *at)
{
	free(fc->attrs);
	fc->attrs = tio_asprintf("%u:%u", at->line, at->col);
	return fc->attrs ? 0 : TIO_ERR_NOMEM;
}

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* ---------------------------------------------------------------- lexical scopes */

static int scope_push(parser *p)
{
	lscope *s = tio_calloc(1, sizeof(*s));
	if (!s)
		return TIO_ERR_NOMEM;
	s->up = p->ls;
	p->ls = s;
	return 0;
}

static void scope_pop(parser *p)
{
	lscope *s = p->ls;
	if (!s)
		return;
	p->ls = s->up;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		tio_fc_free(s->v[i].fc);
	}
	free(s->v);
	free(s);
}

static const tio_fc *scope_find(const parser *p, const char *key)
{
	for (const lscope *s = p->ls; s; s = s->up)
		for (size_t i = s->n; i-- > 0;)
			if (!strcmp(s->v[i].key, key))
				return s->v[i].fc;
	return NULL;
}

/* Register `fc` (taken) under `key` (copied) in the current scope. */
static int scope_add(parser *p, const char *key, tio_fc *fc, const tsdl_tok *at)
{
	lscope *s = p->ls;
	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->v[i].key, key)) {
			tio_fc_free(fc);
			return perr(p, at, "redefinition of type `%s` in the same scope", key);
		}
	}
	char *k = tio_strdup(key);
	if (!k || tio_grow(&s->v, &s->cap, s->n + 1, sizeof(alias))) {
		free(k);
		tio_fc_free(fc);
		return TIO_ERR_NOMEM;
	}
	s->v[s->n].key = k;
	s->v[s->n].fc = fc;
	s->n++;
	return 0;
}

/* ---------------------------------------------------------------- type specifiers */

/*
 * What declaration-specifiers named: a field class built here (`fc`), or
 * a name to look up once the declarator's pointers are known (`key`:
 * "unsigned long", "uint8_t", "struct foo"; "void" + " *" for `void *`).
 */
typedef struct spec {
	tio_fc *fc;
	char *key;
	char *tag;	     /* variant NAME <tag> */
	const tsdl_tok *tag_at;
	uint64_t align;	     /* struct NAME align(N), 0 if none */
	const tsdl_tok *at;
} spec;

static void spec_free(spec *s)
{
	tio_fc_free(s->fc);
	free(s->key);
	free(s->tag);
	memset(s, 0, sizeof(*s));
}

static int parse_specs(parser *p, spec *s);
static int parse_member_decl(parser *p, tio_fc *container);
static int parse_typedef(parser *p, spec *before);
static bool starts_spec(parser *p);
static int parse_typealias(parser *p);

static int parse_align_attr(parser *p, uint64_t *align)
{
	int rc;
	adv(p); /* align */
	if ((rc = expect(p, '(', "'(' after align")))
		return rc;
	val v;
	if ((rc = parse_value(p, &v)))
		return rc;
	rc = val_u64(p, &v, "align", align);
	if (!rc && !is_pow2(*align))
		rc = perr(p, v.at, "alignment %llu is not a power of two", (unsigned long long)*align);
	if (!rc && *align > (1u << 20))
		rc = perr_st(p, TIO_ERR_LIMIT, v.at, "alignment %llu is too large", (unsigned long long)*align);
	val_free(&v);
	if (rc)
		return rc;
	return expect(p, ')', "')'");
}

/* Parse "{ attr = value; ... }" bodies of integer/floating_point/string. */
typedef int (*attr_fn)(parser *p, tio_fc *fc, const char *key, const val *v, void *ctx);

static int parse_attr_block(parser *p, tio_fc *fc, attr_fn fn, void *ctx)
{
	int rc;
	if ((rc = expect(p, '{', "'{'")))
		return rc;
	while (!accept(p, '}')) {
		char *key;
		if (cur(p)->kind != TK_ID)
			return syntax_err(p, "an attribute name or '}'");
		if ((rc = parse_path(p, &key)))
			return rc;
		if ((rc = expect(p, '=', "'='"))) {
			free(key);
			return rc;
		}
		val v;
		if ((rc = parse_value(p, &v))) {
			free(key);
			return rc;
		}
		rc = fn(p, fc, key, &v, ctx);
		free(key);
		val_free(&v);
		if (rc)
			return rc;
		if ((rc = expect(p, ';', "';'")))
			return rc;
	}
	return 0;
}

static int byte_order_of(parser *p, const val *v, uint8_t *bo)
{
	if (v->kind == V_PATH) {
		if (!strcmp(v->s, "native")) {
			*bo = BO_NATIVE;
			return 0;
		}
		if (!strcmp(v->s, "network") || !strcmp(v->s, "be")) {
			*bo = TIO_BE;
			return 0;
		}
		if (!strcmp(v->s, "le")) {
			*bo = TIO_LE;
			return 0;
		}
	}
	return perr(p, v->at, "`byte_order` expects native, network, be or le");
}

static int encoding_of(parser *p, const val *v, uint8_t *enc)
{
	if (v->kind == V_PATH || v->kind == V_STR) {
		if (!strcasecmp(v->s, "none")) {
			*enc = TIO_ENC_NONE;
			return 0;
		}
		if (!strcasecmp(v->s, "UTF8") || !strcasecmp(v->s, "ASCII")) {
			*enc = TIO_ENC_UTF8;
			return 0;
		}
	}
	return perr(p, v->at, "`encoding` expects none, UTF8 or ASCII");
}

typedef struct int_ctx {
	bool has_size, has_align;
} int_ctx;

static int clock_ref(parser *p, const char *name, const tsdl_tok *at, int32_t *idx)
{
	tio_trace_class *tc = p->tc;
	for (uint32_t i = 0; i < tc->nclocks; i++) {
		if (!strcmp(tc->clocks[i]->name, name)) {
			*idx = (int32_t)i;
			return 0;
		}
	}
	/* Declared later (babeltrace2 reads clock blocks first): fix up at the end. */
	for (size_t i = 0; i < p->ncr; i++) {
		if (!strcmp(p->cr[i].name, name)) {
			*idx = -2 - (int32_t)i;
			return 0;
		}
	}
	if (p->ncr >= 65536)
		return perr_st(p, TIO_ERR_LIMIT, at, "too many clock references");
	char *n = tio_strdup(name);
	if (!n || tio_grow(&p->cr, &p->cap_cr, p->ncr + 1, sizeof(clkref))) {
		free(n);
		return TIO_ERR_NOMEM;
	}
	p->cr[p->ncr].name = n;
	p->cr[p->ncr].at = at;
	*idx = -2 - (int32_t)p->ncr;
	p->ncr++;
	return 0;
}

static int int_attr(parser *p, tio_fc *fc, const char *key, const val *v, void *vctx)
{
	int_ctx *ctx = vctx;
	uint64_t u = 0;
	int rc;
	if (!strcmp(key, "size")) {
		if ((rc = val_u64(p, v, key, &u)))
			return rc;
		/* wider than 64 bits (which babeltrace2 refuses): whole bytes, kept as raw bytes */
		if (u < 1 || (u > 64 && (u % 8 || u > 4096)))
			return perr(p, v->at, "integer size %llu is out of range (1 to 64 bits, or whole bytes up to 4096)",
				    (unsigned long long)u);
		fc->i.size = (uint32_t)u;
		ctx->has_size = true;
	} else if (!strcmp(key, "align")) {
		if ((rc = val_u64(p, v, key, &u)))
			return rc;
		if (!is_pow2(u))
			return perr(p, v->at, "alignment %llu is not a power of two", (unsigned long long)u);
		if (u > (1u << 20))
			return perr_st(p, TIO_ERR_LIMIT, v->at, "alignment %llu is too large", (unsigned long long)u);
		fc->align = (uint32_t)u;
		ctx->has_align = true;
	} else if (!strcmp(key, "signed")) {
		bool b = false;
		if ((rc = val_bool(p, v, key, &b)))
			return rc;
		fc->i.is_signed = b;
	} else if (!strcmp(key, "byte_order")) {
		return byte_order_of(p, v, &fc->i.byte_order);
	} else if (!strcmp(key, "base")) {
		if (v->kind == V_INT && !v->neg && (v->mag == 2 || v->mag == 8 || v->mag == 10 || v->mag == 16)) {
			fc->i.base = (uint8_t)v->mag;
			return 0;
		}
		static const struct { const char *n; uint8_t b; } bases[] = {
			{"decimal", 10}, {"dec", 10}, {"d", 10}, {"i", 10}, {"u", 10},
			{"hexadecimal", 16}, {"hex", 16}, {"x", 16}, {"X", 16}, {"p", 16},
			{"octal", 8}, {"oct", 8}, {"o", 8}, {"binary", 2}, {"b", 2},
		};
		if (v->kind == V_PATH)
			for (size_t k = 0; k < TIO_ARRAY_LEN(bases); k++)
				if (!strcmp(v->s, bases[k].n)) {
					fc->i.base = bases[k].b;
					return 0;
				}
		return perr(p, v->at, "invalid integer `base` (expected 2, 8, 10, 16 or a name such as hex)");
	} else if (!strcmp(key, "encoding")) {
		return encoding_of(p, v, &fc->i.encoding);
	} else if (!strcmp(key, "map")) {
		size_t n = v->kind == V_PATH ? strlen(v->s) : 0;
		if (n < 13 || strncmp(v->s, "clock.", 6) || strcmp(v->s + n - 6, ".value"))
			return perr(p, v->at, "`map` expects clock.NAME.value");
		char *name = tio_strndup(v->s + 6, n - 12);
		if (!name)
			return TIO_ERR_NOMEM;
		rc = clock_ref(p, name, v->at, &fc->i.clock);
		free(name);
		return rc;
	}
	/* Unknown attributes are ignored, as babeltrace2 does (with a warning). */
	return 0;
}

static int parse_integer(parser *p, tio_fc **out)
{
	const tsdl_tok *at = cur(p);
	adv(p);
	tio_fc *fc = tio_fc_new(TIO_FC_INT);
	if (!fc)
		return TIO_ERR_NOMEM;
	fc->i.byte_order = BO_NATIVE;
	int_ctx ctx = {0};
	int rc = parse_attr_block(p, fc, int_attr, &ctx);
	if (!rc && !ctx.has_size)
		rc = perr(p, at, "integer field class has no `size`");
	if (rc) {
		tio_fc_free(fc);
		return rc;
	}
	if (!ctx.has_align)
		fc->align = fc->i.size % 8 == 0 ? 8 : 1;
	*out = fc;
	return 0;
}

typedef struct float_ctx {
	bool has_exp, has_mant, has_align;
} float_ctx;

static int float_attr(parser *p, tio_fc *fc, const char *key, const val *v, void *vctx)
{
	float_ctx *ctx = vctx;
	uint64_t u = 0;
	int rc;
	if (!strcmp(key, "exp_dig") || !strcmp(key, "mant_dig")) {
		if ((rc = val_u64(p, v, key, &u)))
			return rc;
		if (u < 1 || u > 64)
			return perr(p, v->at, "`%s` %llu is out of range", key, (unsigned long long)u);
		if (key[0] == 'e') {
			fc->f.exp_dig = (uint32_t)u;
			ctx->has_exp = true;
		} else {
			fc->f.mant_dig = (uint32_t)u;
			ctx->has_mant = true;
		}
	} else if (!strcmp(key, "byte_order")) {
		return byte_order_of(p, v, &fc->f.byte_order);
	} else if (!strcmp(key, "align")) {
		if ((rc = val_u64(p, v, key, &u)))
			return rc;
		if (!is_pow2(u))
			return perr(p, v->at, "alignment %llu is not a power of two", (unsigned long long)u);
		if (u > (1u << 20))
			return perr_st(p, TIO_ERR_LIMIT, v->at, "alignment %llu is too large", (unsigned long long)u);
		fc->align = (uint32_t)u;
		ctx->has_align = true;
	}
	return 0;
}

static int parse_float(parser *p, tio_fc **out)
{
	const tsdl_tok *at = cur(p);
	adv(p);
	tio_fc *fc = tio_fc_new(TIO_FC_FLOAT);
	if (!fc)
		return TIO_ERR_NOMEM;
	fc->f.byte_order = BO_NATIVE;
	float_ctx ctx = {0};
	int rc = parse_attr_block(p, fc, float_attr, &ctx);
	if (!rc && (!ctx.has_exp || !ctx.has_mant))
		rc = perr(p, at, "floating_point field class needs both `exp_dig` and `mant_dig`");
	if (!rc && (fc->f.exp_dig < 2 || fc->f.mant_dig < 2 || fc->f.exp_dig + fc->f.mant_dig > 64))
		rc = perr_st(p, TIO_ERR_UNSUPPORTED, at,
			     "floating_point with exp_dig = %u and mant_dig = %u is not supported "
			     "(total size must be at most 64 bits)", fc->f.exp_dig, fc->f.mant_dig);
	if (rc) {
		tio_fc_free(fc);
		return rc;
	}
	if (!ctx.has_align)
		fc->align = 8;
	*out = fc;
	return 0;
}

static int string_attr(parser *p, tio_fc *fc, const char *key, const val *v, void *ctx)
{
	if (!strcmp(key, "encoding"))
		return encoding_of(p, v, &fc->s.encoding);
	return 0;
}

static int parse_string(parser *p, tio_fc **out)
{
	adv(p);
	tio_fc *fc = tio_fc_new(TIO_FC_STRING);
	if (!fc)
		return TIO_ERR_NOMEM;
	fc->align = 8;
	fc->s.encoding = TIO_ENC_UTF8;
	if (is_p(cur(p), '{')) {
		int rc = parse_attr_block(p, fc, string_attr, NULL);
		if (rc) {
			tio_fc_free(fc);
			return rc;
		}
	}
	*out = fc;
	return 0;
}

/* Add a member/option; names as written, duplicates refused. */
static int add_member(parser *p, tio_fc *c, const tsdl_tok *name_at, tio_fc *fc)
{
	bool var = c->kind == TIO_FC_VARIANT;
	tio_member **arr = var ? &c->v.options : &c->st.members;
	uint32_t *n = var ? &c->v.noptions : &c->st.nmembers;
	ctf_nidx *x = p->names && p->names->owner == c ? &p->names->ix : NULL;
	if (ctf_nidx_find(x, *arr, sizeof(tio_member), *n, name_at->p, name_at->n) != CTF_NIDX_NONE) {
		tio_fc_free(fc);
		return perr(p, name_at, "duplicate %s name `%.*s`", var ? "variant option" : "field",
			    (int)name_at->n, name_at->p);
	}
	if (fc_depth(fc) + 1 > TSDL_MAX_DEPTH) {
		tio_fc_free(fc);
		return perr_st(p, TIO_ERR_LIMIT, name_at, "field classes nested more than %d levels deep",
			       TSDL_MAX_DEPTH);
	}
	if (*n >= 1u << 20) {
		tio_fc_free(fc);
		return perr_st(p, TIO_ERR_LIMIT, name_at, "too many members");
	}
	char *nm = tok_dup(name_at);
	if (!nm || grow_pow2(arr, *n, sizeof(tio_member))) {
		free(nm);
		tio_fc_free(fc);
		return TIO_ERR_NOMEM;
	}
	tio_member *m = *arr;
	m[*n].name = nm;
	m[*n].fc = fc;
	(*n)++;
	if (ctf_nidx_add(x, *arr, sizeof(tio_member), *n))
		return TIO_ERR_NOMEM;
	if (!var && fc->align > c->align)
		c->align = fc->align;
	/* a structure holding GNU/C bit-fields is aligned on their unit, as GCC lays it out */
	if (!var && (fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM) && fc->i.bf_unit > c->align &&
	    (fc->i.bf_unit & (fc->i.bf_unit - 1)) == 0)
		c->align = fc->i.bf_unit;
	return 0;
}

static int parse_compound_body(parser *p, tio_fc *fc)
{
	int rc;
	adv(p); /* { */
	if ((rc = scope_push(p)))
		return rc;
	name_idx x = {.owner = fc}, *outer = p->names;
	p->names = &x; /* a nested compound's body has its own */
	while (!accept(p, '}')) {
		if (cur(p)->kind == TK_EOF) {
			rc = syntax_err(p, "'}'");
			break;
		}
		if ((rc = parse_member_decl(p, fc)))
			break;
	}
	p->names = outer;
	ctf_nidx_free(&x.ix);
	scope_pop(p);
	return rc;
}

static int parse_struct(parser *p, spec *s)
{
	const tsdl_tok *at = cur(p);
	const tsdl_tok *name = NULL;
	int rc;
	adv(p);
	if (cur(p)->kind == TK_ID && cur(p)->kw != KW_ALIGN) {
		if (is_kw(cur(p)))
			return kw_err(p, cur(p), "a structure name");
		name = cur(p), adv(p);
	}
	tio_fc *fc = NULL;
	if (is_p(cur(p), '{')) {
		if (!(fc = tio_fc_new(TIO_FC_STRUCT)))
			return TIO_ERR_NOMEM;
		if ((rc = parse_compound_body(p, fc))) {
			tio_fc_free(fc);
			return rc;
		}
	} else if (!name) {
		return syntax_err(p, "a structure name or '{'");
	}
	uint64_t align = 0;
	if (cur(p)->kind == TK_ID && cur(p)->kw == KW_ALIGN) {
		if ((rc = parse_align_attr(p, &align))) {
			tio_fc_free(fc);
			return rc;
		}
	}
	char *key = name ? tio_asprintf("struct %.*s", (int)name->n, name->p) : NULL;
	if (name && !key) {
		tio_fc_free(fc);
		return TIO_ERR_NOMEM;
	}
	if (fc) {
		if (align > fc->align)
			fc->align = (uint32_t)align;
		if (name) {
			tio_fc *reg = tio_fc_copy(fc);
			if (!reg || (rc = scope_add(p, key, reg, name))) {
				free(key);
				tio_fc_free(fc);
				return reg ? rc : TIO_ERR_NOMEM;
			}
		}
		free(key);
		s->fc = fc;
	} else {
		s->key = key;
		s->align = align;
	}
	s->at = at;
	return 0;
}

static int parse_tag(parser *p, char **tag, const tsdl_tok **at)
{
	int rc;
	adv(p); /* < */
	*at = cur(p);
	/* keywords: only in the scope prefix of an absolute path (trace., stream.event., event.) */
	for (size_t k = 0; peek(p, k)->kind == TK_ID; k += 2) {
		const tsdl_tok *t = peek(p, k);
		bool more = is_p(peek(p, k + 1), '.') || is_p(peek(p, k + 1), P_ARROW);
		if (is_kw(t) && !(k <= 2 && more && (t->kw == KW_TRACE || t->kw == KW_STREAM || t->kw == KW_EVENT)))
			return kw_err(p, t, "a variant tag");
		if (!more)
			break;
	}
	if ((rc = parse_path(p, tag)))
		return rc;
	if ((rc = expect(p, '>', "'>' after the variant tag"))) {
		free(*tag);
		*tag = NULL;
	}
	return rc;
}

static int parse_variant(parser *p, spec *s)
{
	const tsdl_tok *at = cur(p);
	const tsdl_tok *name = NULL;
	char *tag = NULL;
	const tsdl_tok *tag_at = NULL;
	int rc;
	adv(p);
	if (cur(p)->kind == TK_ID) {
		if (is_kw(cur(p)))
			return kw_err(p, cur(p), "a variant name");
		name = cur(p), adv(p);
	}
	if (is_p(cur(p), '<') && (rc = parse_tag(p, &tag, &tag_at)))
		return rc;
	if (!is_p(cur(p), '{')) {
		if (!name) {
			free(tag);
			return syntax_err(p, "a variant name, '<' or '{'");
		}
		s->key = tio_asprintf("variant %.*s", (int)name->n, name->p);
		s->tag = tag;
		s->tag_at = tag_at;
		s->at = at;
		return s->key ? 0 : TIO_ERR_NOMEM;
	}
	tio_fc *fc = tio_fc_new(TIO_FC_VARIANT);
	if (!fc) {
		free(tag);
		return TIO_ERR_NOMEM;
	}
	if ((rc = parse_compound_body(p, fc)))
		goto fail;
	if (!fc->v.noptions) {
		rc = perr(p, at, "variant has no options");
		goto fail;
	}
	if (tag) {
		fc->v.sel.path = tag;
		tag = NULL;
	}
	if ((rc = set_loc(fc, tag_at ? tag_at : at)))
		goto fail;
	if (name) {
		char *key = tio_asprintf("variant %.*s", (int)name->n, name->p);
		tio_fc *reg = key ? tio_fc_copy(fc) : NULL;
		if (!reg) {
			free(key);
			rc = TIO_ERR_NOMEM;
			goto fail;
		}
		rc = scope_add(p, key, reg, name);
		free(key);
		if (rc)
			goto fail;
	}
	s->fc = fc;
	s->at = at;
	return 0;
fail:
	free(tag);
	tio_fc_free(fc);
	return rc;
}

/* Take the type a spec names, for one declarator with `nptr` pointers. */
static int spec_take(parser *p, const spec *s, int nptr, const tsdl_tok *at, tio_fc **out)
{
	tio_fc *fc = NULL;
	int rc;
	*out = NULL;
	if (s->fc) {
		if (nptr)
			return perr(p, at, "pointer declarator on a type that is not named by a typealias");
		if ((rc = copy_counted(p, s->fc, at, &fc)))
			return rc;
	} else {
		char *key = tio_strdup(s->key);
		for (int k = 0; key && k < nptr; k++) {
			char *nk = tio_asprintf("%s *", key);
			free(key);
			key = nk;
		}
		if (!key)
			return TIO_ERR_NOMEM;
		const tio_fc *named = scope_find(p, key);
		if (!named) {
			rc = perr(p, s->at, "unknown type `%s`", key);
			free(key);
			return rc;
		}
		free(key);
		if ((rc = copy_counted(p, named, at, &fc)))
			return rc;
	}
	if (s->align && fc->kind == TIO_FC_STRUCT && s->align > fc->align)
		fc->align = (uint32_t)s->align;
	if (s->tag) {
		if (fc->kind != TIO_FC_VARIANT) {
			tio_fc_free(fc);
			return perr(p, s->tag_at, "tag given to a type that is not a variant");
		}
		free(fc->v.sel.path);
		fc->v.sel.path = tio_strdup(s->tag);
		rc = fc->v.sel.path ? set_loc(fc, s->tag_at) : TIO_ERR_NOMEM;
		if (rc) {
			tio_fc_free(fc);
			return rc;
		}
	}
	*out = fc;
	return 0;
}

/* Enumerator value as sign + magnitude, checked against the container (a container
   wider than 64 bits takes any value that fits in 64). */
static int enum_value(parser *p, const tio_fc *ct, const val *v, int64_t *out)
{
	if (v->kind != V_INT)
		return perr(p, v->at, "enumerator value must be an integer");
	uint32_t n = ct->i.size;
	if (ct->i.is_signed) {
		uint64_t maxpos = n >= 64 ? (uint64_t)INT64_MAX : (1ULL << (n - 1)) - 1;
		if (v->neg ? v->mag > maxpos + 1 : v->mag > maxpos)
			return perr(p, v->at, "enumerator value %s%llu is out of range for a signed %u-bit container",
				    v->neg ? "-" : "", (unsigned long long)v->mag, n);
		*out = v->neg ? (int64_t)(0 - v->mag) : (int64_t)v->mag;
	} else {
		uint64_t max = n >= 64 ? UINT64_MAX : (1ULL << n) - 1;
		if (v->neg || v->mag > max)
			return perr(p, v->at, "enumerator value %s%llu is out of range for an unsigned %u-bit container",
				    v->neg ? "-" : "", (unsigned long long)v->mag, n);
		*out = (int64_t)v->mag;
	}
	return 0;
}

static int enum_add(parser *p, tio_fc *fc, ctf_nidx *x, const char *label, int64_t lo, int64_t hi)
{
	tio_mapping *m = NULL;
	uint32_t at = ctf_nidx_find(x, fc->i.mappings, sizeof(tio_mapping), fc->i.nmappings, label,
				    strlen(label));
	if (at != CTF_NIDX_NONE)
		m = &fc->i.mappings[at];
	if (!m) {
		if (fc->i.nmappings >= 1u << 20)
			return perr_st(p, TIO_ERR_LIMIT, cur(p), "too many enumerators");
		char *l = tio_strdup(label);
		if (!l || grow_pow2(&fc->i.mappings, fc->i.nmappings, sizeof(tio_mapping))) {
			free(l);
			return TIO_ERR_NOMEM;
		}
		tio_mapping *a = fc->i.mappings;
		m = &a[fc->i.nmappings++];
		memset(m, 0, sizeof(*m));
		m->label = l;
		if (ctf_nidx_add(x, a, sizeof(tio_mapping), fc->i.nmappings))
			return TIO_ERR_NOMEM;
	}
	tio_range *r = tio_realloc(m->ranges, (m->nranges + 1) * sizeof(*r));
	if (!r)
		return TIO_ERR_NOMEM;
	m->ranges = r;
	r[m->nranges].lo = lo;
	r[m->nranges].hi = hi;
	m->nranges++;
	return 0;
}

static bool range_gt(const tio_fc *fc, int64_t a, int64_t b)
{
	return fc->i.is_signed ? a > b : (uint64_t)a > (uint64_t)b;
}

static int enum_body(parser *p, tio_fc *fc, ctf_nidx *x)
{
	int rc;
	adv(p); /* { */
	int64_t next = 0;
	bool next_ok = true; /* false when the previous value was the container's maximum */
	while (!accept(p, '}')) {
		const tsdl_tok *lt = cur(p);
		char *label;
		if (lt->kind == TK_ID)
			label = tok_dup(lt);
		else if (lt->kind == TK_STR)
			label = tio_strndup(lt->str, lt->slen);
		else
			return syntax_err(p, "an enumerator name or '}'");
		if (!label)
			return TIO_ERR_NOMEM;
		adv(p);
		int64_t lo, hi;
		if (accept(p, '=')) {
			val a, b = {0};
			if ((rc = parse_value(p, &a))) {
				free(label);
				return rc;
			}
			rc = enum_value(p, fc, &a, &lo);
			hi = lo;
			if (!rc && accept(p, P_DOTS)) {
				if (!(rc = parse_value(p, &b)))
					rc = enum_value(p, fc, &b, &hi);
			}
			val_free(&a);
			val_free(&b);
			if (rc) {
				free(label);
				return rc;
			}
			if (range_gt(fc, lo, hi)) {
				int64_t t = lo;
				lo = hi;
				hi = t;
			}
		} else {
			if (!next_ok) {
				free(label);
				return perr(p, lt, "implicit value of enumerator `%.*s` is out of the container's range",
					    (int)lt->n, lt->p);
			}
			lo = hi = next;
		}
		rc = enum_add(p, fc, x, label, lo, hi);
		free(label);
		if (rc)
			return rc;
		uint32_t n = fc->i.size;
		if (fc->i.is_signed) {
			int64_t max = n == 64 ? INT64_MAX : (int64_t)((1ULL << (n - 1)) - 1);
			next_ok = hi < max;
		} else {
			uint64_t max = n >= 64 ? UINT64_MAX : (1ULL << n) - 1;
			next_ok = (uint64_t)hi < max;
		}
		next = (int64_t)((uint64_t)hi + 1);
		if (!accept(p, ',')) {
			if ((rc = expect(p, '}', "',' or '}' in the enumeration")))
				return rc;
			break;
		}
	}
	return 0;
}

static int parse_enum_body(parser *p, tio_fc *fc)
{
	ctf_nidx x = {0};
	int rc = enum_body(p, fc, &x);
	ctf_nidx_free(&x);
	return rc;
}

static int parse_enum(parser *p, spec *s)
{
	const tsdl_tok *at = cur(p);
	const tsdl_tok *name = NULL;
	int rc;
	adv(p);
	if (cur(p)->kind == TK_ID) {
		if (is_kw(cur(p)))
			return kw_err(p, cur(p), "an enumeration name");
		name = cur(p), adv(p);
	}
	tio_fc *ct = NULL;
	if (accept(p, ':')) {
		spec cs = {0};
		if ((rc = parse_specs(p, &cs)))
			return rc;
		rc = spec_take(p, &cs, 0, cs.at, &ct);
		spec_free(&cs);
		if (rc)
			return rc;
	} else if (!is_p(cur(p), '{')) {
		if (!name)
			return syntax_err(p, "an enumeration name, ':' or '{'");
		s->key = tio_asprintf("enum %.*s", (int)name->n, name->p);
		s->at = at;
		return s->key ? 0 : TIO_ERR_NOMEM;
	} else {
		const tio_fc *i = scope_find(p, "int");
		if (!i)
			return perr(p, at, "enumeration without a container type needs a typealias named `int`");
		if ((rc = copy_counted(p, i, at, &ct)))
			return rc;
	}
	if (ct->kind != TIO_FC_INT) {
		tio_fc_free(ct);
		return perr(p, at, "enumeration container type is not an integer");
	}
	if (!is_p(cur(p), '{')) {
		tio_fc_free(ct);
		return syntax_err(p, "'{' after the enumeration container type");
	}
	ct->kind = TIO_FC_ENUM;
	if ((rc = parse_enum_body(p, ct)))
		goto fail;
	if (!ct->i.nmappings) {
		rc = perr(p, at, "enumeration has no enumerators");
		goto fail;
	}
	if (name) {
		char *key = tio_asprintf("enum %.*s", (int)name->n, name->p);
		tio_fc *reg = key ? tio_fc_copy(ct) : NULL;
		if (!reg) {
			free(key);
			rc = TIO_ERR_NOMEM;
			goto fail;
		}
		rc = scope_add(p, key, reg, name);
		free(key);
		if (rc)
			goto fail;
	}
	s->fc = ct;
	s->at = at;
	return 0;
fail:
	tio_fc_free(ct);
	return rc;
}

static bool is_c_type_kw(int kw)
{
	switch (kw) {
	case KW_VOID: case KW_CHAR: case KW_SHORT: case KW_INT: case KW_LONG: case KW_FLOAT:
	case KW_DOUBLE: case KW_SIGNED: case KW_UNSIGNED: case KW_BOOL: case KW_COMPLEX:
	case KW_IMAGINARY:
		return true;
	default:
		return false;
	}
}

/* Does the current token begin a declaration specifier? */
static bool starts_spec(parser *p)
{
	const tsdl_tok *t = cur(p);
	if (t->kind != TK_ID)
		return false;
	switch (t->kw) {
	case KW_CONST: case KW_STRUCT: case KW_VARIANT: case KW_ENUM: case KW_INTEGER:
	case KW_FLOATING_POINT: case KW_STRING:
		return true;
	case KW_NONE: {
		char name[256];
		if (t->n >= sizeof(name))
			return false;
		memcpy(name, t->p, t->n);
		name[t->n] = 0;
		return scope_find(p, name) != NULL;
	}
	default:
		return is_c_type_kw(t->kw);
	}
}

/*
 * declaration-specifiers.  Once a complete type is named (a CTF type
 * specifier, struct/variant/enum, or a typedef name), the next
 * identifier or keyword is the declarator: `string string;` works.
 */
static int parse_specs(parser *p, spec *s)
{
	int rc = 0;
	memset(s, 0, sizeof(*s));
	s->at = cur(p);
	if (++p->depth > TSDL_MAX_DEPTH) {
		p->depth--;
		return perr_st(p, TIO_ERR_LIMIT, cur(p), "declarations nested more than %d levels deep", TSDL_MAX_DEPTH);
	}
	tio_buf kb = {0};
	bool done = false;
	for (;;) {
		const tsdl_tok *t = cur(p);
		if (t->kind != TK_ID)
			break;
		if (t->kw == KW_CONST) {
			adv(p);
			continue;
		}
		if (done)
			break;
		if (is_c_type_kw(t->kw)) {
			if ((kb.len && tio_buf_addc(&kb, ' ')) || tio_buf_add(&kb, t->p, t->n)) {
				rc = TIO_ERR_NOMEM;
				break;
			}
			adv(p);
			continue;
		}
		if (kb.len)
			break;
		switch (t->kw) {
		case KW_INTEGER: rc = parse_integer(p, &s->fc); break;
		case KW_FLOATING_POINT: rc = parse_float(p, &s->fc); break;
		case KW_STRING: rc = parse_string(p, &s->fc); break;
		case KW_STRUCT: rc = parse_struct(p, s); break;
		case KW_VARIANT: rc = parse_variant(p, s); break;
		case KW_ENUM: rc = parse_enum(p, s); break;
		case KW_NONE: {
			char *k = tok_dup(t);
			if (!k) {
				rc = TIO_ERR_NOMEM;
				break;
			}
			if (!scope_find(p, k)) {
				rc = perr(p, t, "unknown type `%s`", k);
				free(k);
				break;
			}
			s->key = k;
			adv(p);
			/* A typedef'd variant may get its tag where it is used. */
			if (is_p(cur(p), '<'))
				rc = parse_tag(p, &s->tag, &s->tag_at);
			break;
		}
		default:
			rc = syntax_err(p, "a type specifier");
			break;
		}
		s->at = t;
		if (rc)
			break;
		done = true;
	}
	if (!rc && kb.len) {
		if (!(s->key = tio_strdup(tio_buf_cstr(&kb))))
			rc = TIO_ERR_NOMEM;
	} else if (!rc && !done) {
		rc = syntax_err(p, "a type specifier");
	}
	tio_buf_free(&kb);
	p->depth--;
	if (rc)
		spec_free(s);
	return rc;
}

/* ---------------------------------------------------------------- declarators */

#define MAX_DIMS 16

typedef struct decl {
	int nptr;
	const tsdl_tok *name; /* NULL for abstract declarators */
	int ndims;
	struct {
		uint64_t len;
		char *path; /* sequence length path, NULL for arrays */
		const tsdl_tok *at;
	} dims[MAX_DIMS];
	uint64_t bitfield;	/* GNU/C bit-field size ("unit_type name:size"), 0 if none */
	const tsdl_tok *bf_at;
} decl;

static void decl_free(decl *d)
{
	for (int i = 0; i < d->ndims; i++)
		free(d->dims[i].path);
	d->ndims = 0;
}

/* `what` names what the declarator's name is, for the reserved keyword error. */
static int parse_declarator(parser *p, bool abstract, const char *what, decl *d)
{
	int rc;
	memset(d, 0, sizeof(*d));
	while (accept(p, '*')) {
		d->nptr++;
		while (cur(p)->kind == TK_ID && cur(p)->kw == KW_CONST)
			adv(p);
	}
	if (is_p(cur(p), '('))
		return perr_st(p, TIO_ERR_UNSUPPORTED, cur(p), "parenthesized declarators are not supported");
	if (cur(p)->kind == TK_ID) {
		if (is_kw(cur(p)))
			return kw_err(p, cur(p), what);
		d->name = cur(p);
		adv(p);
	} else if (!abstract) {
		return syntax_err(p, "a field or type name");
	}
	while (is_p(cur(p), '[')) {
		const tsdl_tok *at = cur(p);
		adv(p);
		if (d->ndims >= MAX_DIMS) {
			decl_free(d);
			return perr_st(p, TIO_ERR_LIMIT, at, "more than %d array dimensions", MAX_DIMS);
		}
		int k = d->ndims;
		d->dims[k].at = at;
		d->dims[k].path = NULL;
		if (cur(p)->kind == TK_ID) {
			if ((rc = parse_path(p, &d->dims[k].path))) {
				decl_free(d);
				return rc;
			}
			d->ndims++;
		} else {
			val v;
			if ((rc = parse_value(p, &v))) {
				decl_free(d);
				return rc;
			}
			rc = val_u64(p, &v, "array length", &d->dims[k].len);
			val_free(&v);
			if (!rc && d->dims[k].len > UINT32_MAX)
				rc = perr_st(p, TIO_ERR_LIMIT, at, "array length %llu is too large",
					     (unsigned long long)d->dims[k].len);
			if (rc) {
				decl_free(d);
				return rc;
			}
			d->ndims++;
		}
		if ((rc = expect(p, ']', "']'"))) {
			decl_free(d);
			return rc;
		}
	}
	if (is_p(cur(p), ':') && d->name && !abstract) {
		/* GNU/C bit-field (CTF 1.8.3 4.1.6): unit_type name:size */
		d->bf_at = cur(p);
		accept(p, ':');
		val v;
		if ((rc = parse_value(p, &v))) {
			decl_free(d);
			return rc;
		}
		rc = val_u64(p, &v, "bit-field size", &d->bitfield);
		val_free(&v);
		if (!rc && (d->bitfield < 1 || d->bitfield > 64))
			rc = perr(p, d->bf_at, "bit-field size %llu is out of range (1 to 64 bits)",
				  (unsigned long long)d->bitfield);
		if (rc) {
			decl_free(d);
			return rc;
		}
	}
	return 0;
}

static bool is_text_elem(const tio_fc *e)
{
	return e->kind == TIO_FC_INT && e->i.size == 8 && e->align == 8 && e->i.encoding != TIO_ENC_NONE;
}

/* Wrap `*fc` in the declarator's arrays/sequences: x[2][3] is 2 arrays of 3. */
static int apply_dims(parser *p, decl *d, tio_fc **fc)
{
	for (int k = d->ndims - 1; k >= 0; k--) {
		tio_fc *a = tio_fc_new(d->dims[k].path ? TIO_FC_SEQUENCE : TIO_FC_ARRAY);
		if (!a)
			return TIO_ERR_NOMEM;
		a->a.elem = *fc;
		*fc = a;
		a->align = a->a.elem->align;
		a->a.text = is_text_elem(a->a.elem);
		if (d->dims[k].path) {
			a->a.len.path = d->dims[k].path;
			d->dims[k].path = NULL;
			int rc = set_loc(a, d->dims[k].at);
			if (rc)
				return rc;
		} else {
			a->a.length = d->dims[k].len;
		}
		if (++p->nodes > TSDL_MAX_NODES)
			return perr_st(p, TIO_ERR_LIMIT, d->dims[k].at, "metadata describes more than %u field classes",
				       TSDL_MAX_NODES);
	}
	return 0;
}

/* The field class for one declarator. */
static int decl_type(parser *p, const spec *s, decl *d, tio_fc **out)
{
	const tsdl_tok *at = d->name ? d->name : s->at;
	int rc = spec_take(p, s, d->nptr, at, out);
	if (rc)
		return rc;
	if (d->bitfield) {
		tio_fc *u = *out;
		if ((u->kind != TIO_FC_INT && u->kind != TIO_FC_ENUM) || d->ndims) {
			tio_fc_free(u);
			*out = NULL;
			return perr(p, d->bf_at, "a bit-field's type must be an integer or an enumeration");
		}
		if (d->bitfield > u->i.size) {
			uint32_t us = u->i.size;
			tio_fc_free(u);
			*out = NULL;
			return perr(p, d->bf_at, "bit-field of %llu bits does not fit its %u-bit unit",
				    (unsigned long long)d->bitfield, us);
		}
		u->i.bf_unit = u->i.size;
		u->i.size = (uint32_t)d->bitfield;
		u->align = 1;
	}
	if (!(rc = apply_dims(p, d, out)) && fc_depth(*out) > TSDL_MAX_DEPTH)
		rc = perr_st(p, TIO_ERR_LIMIT, at, "field classes nested more than %d levels deep", TSDL_MAX_DEPTH);
	if (rc) {
		tio_fc_free(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * typedef specs declarator-list ;
 * With `before`, the declaration specifiers read before `typedef` (C and
 * babeltrace allow `uint32_t typedef u32;`): they give the type when no
 * specifier follows `typedef`; the spec is taken over.
 */
static int parse_typedef(parser *p, spec *before)
{
	int rc;
	adv(p);
	spec s;
	if (before && !starts_spec(p)) {
		s = *before;
		memset(before, 0, sizeof(*before));
	} else if ((rc = parse_specs(p, &s))) {
		return rc;
	}
	for (;;) {
		decl d;
		if ((rc = parse_declarator(p, false, "a type name", &d)))
			break;
		tio_fc *fc;
		rc = decl_type(p, &s, &d, &fc);
		if (!rc) {
			char *key = tok_dup(d.name);
			rc = key ? scope_add(p, key, fc, d.name) : (tio_fc_free(fc), TIO_ERR_NOMEM);
			free(key);
		}
		decl_free(&d);
		if (rc || !accept(p, ','))
			break;
	}
	spec_free(&s);
	return rc ? rc : expect(p, ';', "';' after typedef");
}

/* typealias specs abstract-declarator := name-tokens ; */
static int parse_typealias(parser *p)
{
	int rc;
	adv(p);
	spec s;
	if ((rc = parse_specs(p, &s)))
		return rc;
	decl d;
	if ((rc = parse_declarator(p, true, "a type name", &d))) {
		spec_free(&s);
		return rc;
	}
	if (d.name) {
		rc = perr(p, d.name, "typealias target type must not have a name (`%.*s`)", (int)d.name->n, d.name->p);
		decl_free(&d);
		spec_free(&s);
		return rc;
	}
	tio_fc *fc;
	rc = decl_type(p, &s, &d, &fc);
	decl_free(&d);
	spec_free(&s);
	if (rc)
		return rc;
	if ((rc = expect(p, P_TASSIGN, "':=' in typealias"))) {
		tio_fc_free(fc);
		return rc;
	}
	tio_buf kb = {0};
	const tsdl_tok *at = cur(p);
	while (cur(p)->kind == TK_ID || is_p(cur(p), '*')) {
		const tsdl_tok *t = cur(p);
		if (t->kind == TK_ID && t->kw == KW_CONST) {
			adv(p);
			continue;
		}
		/* C's type keywords may name an alias (`unsigned long`, `int`), not CTF's */
		if (is_kw(t) && !is_c_type_kw(t->kw)) {
			tio_buf_free(&kb);
			tio_fc_free(fc);
			return kw_err(p, t, "a typealias name");
		}
		if ((kb.len && tio_buf_addc(&kb, ' ')) || tio_buf_add(&kb, t->p, t->n)) {
			tio_buf_free(&kb);
			tio_fc_free(fc);
			return TIO_ERR_NOMEM;
		}
		adv(p);
	}
	if (!kb.len) {
		tio_fc_free(fc);
		return syntax_err(p, "a type name after ':='");
	}
	rc = scope_add(p, tio_buf_cstr(&kb), fc, at);
	tio_buf_free(&kb);
	return rc ? rc : expect(p, ';', "';' after typealias");
}

/* struct-or-variant-declaration */
static int parse_member_decl(parser *p, tio_fc *container)
{
	int rc;
	const tsdl_tok *t = cur(p);
	if (t->kind == TK_ID && t->kw == KW_TYPEDEF)
		return parse_typedef(p, NULL);
	if (t->kind == TK_ID && t->kw == KW_TYPEALIAS)
		return parse_typealias(p);
	spec s;
	if ((rc = parse_specs(p, &s)))
		return rc;
	if (cur(p)->kind == TK_ID && cur(p)->kw == KW_TYPEDEF) {
		rc = parse_typedef(p, &s);
		spec_free(&s);
		return rc;
	}
	if (accept(p, ';')) {
		spec_free(&s);
		return 0;
	}
	for (;;) {
		decl d;
		if ((rc = parse_declarator(p, false,
					   container->kind == TIO_FC_VARIANT ? "a variant option name" : "a field name", &d)))
			break;
		tio_fc *fc;
		rc = decl_type(p, &s, &d, &fc);
		if (!rc)
			rc = add_member(p, container, d.name, fc);
		decl_free(&d);
		if (rc || !accept(p, ','))
			break;
	}
	spec_free(&s);
	return rc ? rc : expect(p, ';', "';' after the field declaration");
}

/* ---------------------------------------------------------------- blocks */

enum blk { B_TRACE, B_ENV, B_CLOCK, B_STREAM, B_EVENT, B_CALLSITE };

typedef struct blk_ctx {
	enum blk kind;
	const tsdl_tok *at;
	/* trace */
	bool has_major, has_minor;
	uint64_t major, minor;
	/* clock */
	tio_clock *clk;
	/* stream */
	tio_stream_class *sc;
	bool has_id;
	/* event */
	pend_ec *pe;
} blk_ctx;

/* Is the next thing "path =" or "path :="? */
static bool looks_like_assign(parser *p)
{
	size_t k = 0;
	if (peek(p, 0)->kind != TK_ID)
		return false;
	k = 1;
	while ((is_p(peek(p, k), '.') || is_p(peek(p, k), P_ARROW)) && peek(p, k + 1)->kind == TK_ID)
		k += 2;
	return is_p(peek(p, k), '=') || is_p(peek(p, k), P_TASSIGN);
}

static int set_scope(parser *p, tio_fc **slot, tio_fc *fc, const char *what, const tsdl_tok *at)
{
	if (fc->kind != TIO_FC_STRUCT) {
		tio_fc_free(fc);
		return perr(p, at, "`%s` must be a structure", what);
	}
	if (*slot) {
		tio_fc_free(fc);
		return perr(p, at, "`%s` is defined twice", what);
	}
	*slot = fc;
	return 0;
}

static int kv_add(tio_kv **kv, uint32_t *n, size_t *cap, const char *key, const val *v)
{
	if (tio_grow(kv, cap, *n + 1, sizeof(tio_kv)))
		return TIO_ERR_NOMEM;
	tio_kv *e = &(*kv)[*n];
	memset(e, 0, sizeof(*e));
	if (!(e->key = tio_strdup(key)))
		return TIO_ERR_NOMEM;
	if (v->kind == V_INT) {
		e->is_int = true;
		e->ival = v->neg ? (int64_t)(0 - v->mag) : (int64_t)v->mag;
	} else if (!(e->sval = tio_strdup(v->s))) {
		free(e->key);
		return TIO_ERR_NOMEM;
	}
	(*n)++;
	return 0;
}

static int blk_value(parser *p, blk_ctx *b, const char *key, const val *v)
{
	tio_trace_class *tc = p->tc;
	uint64_t u = 0;
	int64_t i;
	int rc = 0;
	switch (b->kind) {
	case B_TRACE:
		if (!strcmp(key, "major")) {
			rc = val_u64(p, v, key, &b->major);
			b->has_major = true;
		} else if (!strcmp(key, "minor")) {
			rc = val_u64(p, v, key, &b->minor);
			b->has_minor = true;
		} else if (!strcmp(key, "uuid")) {
			rc = parse_uuid(p, v, tc->uuid);
			tc->has_uuid = true;
		} else if (!strcmp(key, "byte_order")) {
			uint8_t bo = 0;
			if ((rc = byte_order_of(p, v, &bo)))
				return rc;
			if (bo == BO_NATIVE)
				return perr(p, v->at, "the trace `byte_order` must be be or le");
			tc->byte_order = bo;
			p->have_bo = true;
		}
		return rc;
	case B_ENV:
		if (v->kind == V_INT && (rc = val_i64(p, v, key, &i)))
			return rc;
		return kv_add(&tc->env, &tc->nenv, &p->cap_env, key, v);
	case B_CLOCK: {
		tio_clock *c = b->clk;
		if (!strcmp(key, "name")) {
			free(c->name);
			c->name = NULL;
			rc = val_text(p, v, key, &c->name);
		} else if (!strcmp(key, "uuid")) {
			rc = parse_uuid(p, v, c->uuid);
			c->has_uuid = true;
		} else if (!strcmp(key, "description")) {
			free(c->description);
			c->description = NULL;
			rc = val_text(p, v, key, &c->description);
		} else if (!strcmp(key, "freq")) {
			if (!(rc = val_u64(p, v, key, &c->freq)) && !c->freq)
				rc = perr(p, v->at, "clock frequency must not be 0");
		} else if (!strcmp(key, "precision")) {
			rc = val_u64(p, v, key, &c->precision);
		} else if (!strcmp(key, "offset_s")) {
			rc = val_i64(p, v, key, &c->offset_s);
		} else if (!strcmp(key, "offset")) {
			rc = val_i64(p, v, key, &c->offset);
		} else if (!strcmp(key, "absolute")) {
			rc = val_bool(p, v, key, &c->origin_unix);
		}
		return rc;
	}
	case B_STREAM:
		if (!strcmp(key, "id")) {
			if ((rc = val_u64(p, v, key, &u)))
				return rc;
			b->sc->id = u;
			b->has_id = true;
		}
		return 0;
	case B_EVENT: {
		tio_event_class *ec = b->pe->ec;
		if (!strcmp(key, "name")) {
			free(ec->name);
			ec->name = NULL;
			return val_text(p, v, key, &ec->name);
		}
		if (!strcmp(key, "id")) {
			b->pe->has_id = true;
			return val_u64(p, v, key, &ec->id);
		}
		if (!strcmp(key, "stream_id")) {
			b->pe->has_sid = true;
			return val_u64(p, v, key, &b->pe->sid);
		}
		if (!strcmp(key, "loglevel"))
			return val_i64(p, v, key, &ec->loglevel);
		if (!strcmp(key, "model.emf.uri")) {
			free(ec->emf_uri);
			ec->emf_uri = NULL;
			return val_text(p, v, key, &ec->emf_uri);
		}
		if (v->kind == V_INT && (rc = val_i64(p, v, key, &i)))
			return rc;
		size_t cap = ec->nattrs; /* exact size: grow one at a time */
		return kv_add(&ec->attrs, &ec->nattrs, &cap, key, v);
	}
	case B_CALLSITE:
		return 0;
	}
	return 0;
}

static int blk_type(parser *p, blk_ctx *b, const char *key, tio_fc *fc, const tsdl_tok *at)
{
	switch (b->kind) {
	case B_TRACE:
		if (!strcmp(key, "packet.header"))
			return set_scope(p, &p->tc->pkt_header, fc, "trace.packet.header", at);
		break;
	case B_STREAM:
		if (!strcmp(key, "packet.context"))
			return set_scope(p, &b->sc->pkt_ctx, fc, "stream.packet.context", at);
		if (!strcmp(key, "event.header"))
			return set_scope(p, &b->sc->ev_header, fc, "stream.event.header", at);
		if (!strcmp(key, "event.context"))
			return set_scope(p, &b->sc->ev_common_ctx, fc, "stream.event.context", at);
		break;
	case B_EVENT:
		if (!strcmp(key, "context"))
			return set_scope(p, &b->pe->ec->spec_ctx, fc, "event.context", at);
		if (!strcmp(key, "fields"))
			return set_scope(p, &b->pe->ec->payload, fc, "event.fields", at);
		break;
	case B_ENV:
		tio_fc_free(fc);
		return perr(p, at, "type assignment `%s :=` in an env block", key);
	default:
		break;
	}
	/* Unknown type assignments are ignored (babeltrace2 warns). */
	tio_fc_free(fc);
	return 0;
}

static int parse_block_body(parser *p, blk_ctx *b)
{
	int rc;
	if ((rc = expect(p, '{', "'{'")))
		return rc;
	if ((rc = scope_push(p)))
		return rc;
	while (!accept(p, '}')) {
		const tsdl_tok *t = cur(p);
		if (t->kind == TK_EOF) {
			rc = syntax_err(p, "'}'");
			break;
		}
		if (t->kind == TK_ID && t->kw == KW_TYPEDEF) {
			if ((rc = parse_typedef(p, NULL)))
				break;
			continue;
		}
		if (t->kind == TK_ID && t->kw == KW_TYPEALIAS) {
			if ((rc = parse_typealias(p)))
				break;
			continue;
		}
		if (!looks_like_assign(p)) {
			/* A bare declaration such as a named structure, or `SPECS typedef ...`. */
			spec s;
			if ((rc = parse_specs(p, &s)))
				break;
			if (cur(p)->kind == TK_ID && cur(p)->kw == KW_TYPEDEF)
				rc = parse_typedef(p, &s);
			else
				rc = expect(p, ';', "';'");
			spec_free(&s);
			if (rc)
				break;
			continue;
		}
		char *key;
		if ((rc = parse_path(p, &key)))
			break;
		if (accept(p, '=')) {
			val v;
			if (!(rc = parse_value(p, &v)))
				rc = blk_value(p, b, key, &v);
			val_free(&v);
		} else {
			adv(p); /* := */
			spec s;
			const tsdl_tok *at = cur(p);
			if (!(rc = parse_specs(p, &s))) {
				tio_fc *fc;
				if (!(rc = spec_take(p, &s, 0, at, &fc)))
					rc = blk_type(p, b, key, fc, at);
				spec_free(&s);
			}
		}
		free(key);
		if (rc || (rc = expect(p, ';', "';'")))
			break;
	}
	scope_pop(p);
	return rc;
}

static int parse_trace(parser *p)
{
	const tsdl_tok *at = cur(p);
	if (p->trace_at)
		return perr(p, at, "second trace block (the first one is at line %u)", p->trace_at->line);
	p->trace_at = at;
	adv(p);
	blk_ctx b = {.kind = B_TRACE, .at = at};
	int rc = parse_block_body(p, &b);
	if (rc)
		return rc;
	if ((b.has_major && b.major != 1) || (b.has_minor && b.minor != 8))
		return perr_st(p, TIO_ERR_UNSUPPORTED, at, "unsupported CTF version %llu.%llu in the trace block (expected 1.8)",
			       (unsigned long long)b.major, (unsigned long long)b.minor);
	if (!p->have_bo)
		return perr(p, at, "trace block has no `byte_order`");
	return 0;
}

static int parse_clock(parser *p)
{
	const tsdl_tok *at = cur(p);
	adv(p);
	tio_clock *c = tio_calloc(1, sizeof(*c));
	if (!c)
		return TIO_ERR_NOMEM;
	c->freq = 1000000000ULL;
	blk_ctx b = {.kind = B_CLOCK, .at = at, .clk = c};
	int rc = parse_block_body(p, &b);
	if (!rc && !c->name)
		rc = perr(p, at, "clock block has no `name`");
	for (uint32_t i = 0; !rc && i < p->tc->nclocks; i++)
		if (!strcmp(p->tc->clocks[i]->name, c->name))
			rc = perr(p, at, "clock `%s` is declared twice", c->name);
	if (!rc && p->tc->nclocks >= 4096)
		rc = perr_st(p, TIO_ERR_LIMIT, at, "too many clocks");
	if (!rc && tio_grow(&p->tc->clocks, &p->cap_clocks, p->tc->nclocks + 1, sizeof(tio_clock *)))
		rc = TIO_ERR_NOMEM;
	if (rc) {
		free(c->name);
		free(c->description);
		free(c);
		return rc;
	}
	p->tc->clocks[p->tc->nclocks++] = c;
	return 0;
}

/*
 * The stream class of this id parsed so far, or NULL.  Hashed: comparing
 * each new id with every earlier one took 15 s for the 65536 stream
 * classes the limit allows.
 */
static tio_stream_class *sc_find(const parser *p, uint64_t id)
{
	if (!p->sc_cap)
		return NULL;
	for (uint32_t h = (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 40) & (p->sc_cap - 1);;
	     h = (h + 1) & (p->sc_cap - 1)) {
		uint32_t v = p->sc_slot[h];
		if (!v)
			return NULL;
		if (p->tc->scs[v - 1]->id == id)
			return p->tc->scs[v - 1];
	}
}

static void sc_put(parser *p, uint32_t i)
{
	uint32_t h = (uint32_t)((p->tc->scs[i]->id * 0x9E3779B97F4A7C15ull) >> 40) & (p->sc_cap - 1);
	while (p->sc_slot[h])
		h = (h + 1) & (p->sc_cap - 1);
	p->sc_slot[h] = i + 1;
}

/* tc->scs[n - 1] was just added: index it (every one when the table grows). */
static int sc_index(parser *p, uint32_t n)
{
	if (n <= p->sc_cap / 2) {
		sc_put(p, n - 1);
		return 0;
	}
	uint32_t cap = p->sc_cap ? 2 * p->sc_cap : 64;
	uint32_t *slot = tio_calloc(cap, sizeof(uint32_t));
	if (!slot)
		return TIO_ERR_NOMEM;
	free(p->sc_slot);
	p->sc_slot = slot;
	p->sc_cap = cap;
	for (uint32_t i = 0; i < n; i++)
		sc_put(p, i);
	return 0;
}

static int parse_stream(parser *p)
{
	const tsdl_tok *at = cur(p);
	adv(p);
	tio_stream_class *sc = tio_calloc(1, sizeof(*sc));
	if (!sc)
		return TIO_ERR_NOMEM;
	sc->clock = -1;
	blk_ctx b = {.kind = B_STREAM, .at = at, .sc = sc};
	int rc = parse_block_body(p, &b);
	if (!rc && sc_find(p, sc->id))
		rc = perr(p, at, "stream class id %llu is declared twice%s", (unsigned long long)sc->id,
			  b.has_id ? "" : " (a stream block without `id` has id 0)");
	if (!rc && p->tc->nscs >= 65536)
		rc = perr_st(p, TIO_ERR_LIMIT, at, "too many stream classes");
	if (!rc && (tio_grow(&p->tc->scs, &p->cap_scs, p->tc->nscs + 1, sizeof(*p->tc->scs)) ||
		    tio_grow(&p->sci, &p->cap_sci, p->tc->nscs + 1, sizeof(*p->sci))))
		rc = TIO_ERR_NOMEM;
	if (rc) {
		tio_stream_class_free(sc);
		return rc;
	}
	sc->tc = p->tc;
	p->sci[p->tc->nscs].at = at;
	p->tc->scs[p->tc->nscs++] = sc;
	return sc_index(p, p->tc->nscs);
}

static int parse_event(parser *p)
{
	const tsdl_tok *at = cur(p);
	adv(p);
	if (p->npe >= (1u << 24))
		return perr_st(p, TIO_ERR_LIMIT, at, "too many event classes");
	if (tio_grow(&p->pe, &p->cap_pe, p->npe + 1, sizeof(pend_ec)))
		return TIO_ERR_NOMEM;
	pend_ec *pe = &p->pe[p->npe];
	memset(pe, 0, sizeof(*pe));
	pe->at = at;
	if (!(pe->ec = tio_calloc(1, sizeof(tio_event_class))))
		return TIO_ERR_NOMEM;
	pe->ec->loglevel = INT64_MIN;
	p->npe++; /* owned by the parser from now on */
	blk_ctx b = {.kind = B_EVENT, .at = at, .pe = pe};
	int rc = parse_block_body(p, &b);
	if (!rc && !pe->ec->name)
		rc = perr(p, at, "event block has no `name`");
	return rc;
}

/*
 * A top-level declaration: declaration specifiers, then ';' or `typedef`.
 * As in babeltrace's grammar, specifiers may follow one another, so a
 * `struct a { ... }` without its ';' declares `struct a` when another
 * specifier comes next (`struct b { ... };`, `uint32_t;`, `enum ...`): the
 * suite's struct-inner-struct.  Each specifier's names are declared (as
 * babeltrace 1 does; babeltrace2 keeps only the first one's).
 */
static int parse_root_decl(parser *p)
{
	for (;;) {
		spec s;
		int rc = parse_specs(p, &s);
		if (rc)
			return rc;
		if (cur(p)->kind == TK_ID && cur(p)->kw == KW_TYPEDEF) {
			rc = parse_typedef(p, &s);
			spec_free(&s);
			return rc;
		}
		spec_free(&s);
		if (accept(p, ';'))
			return 0;
		if (!starts_spec(p))
			return syntax_err(p, "';' (top-level declarations only declare types)");
	}
}

static int parse_root(parser *p)
{
	int rc = 0;
	while (cur(p)->kind != TK_EOF) {
		const tsdl_tok *t = cur(p);
		blk_ctx b = {.at = t};
		switch (t->kind == TK_ID ? t->kw : KW_NONE) {
		case KW_TYPEDEF:
			rc = parse_typedef(p, NULL);
			break;
		case KW_TYPEALIAS:
			rc = parse_typealias(p);
			break;
		case KW_TRACE:
		case KW_CLOCK:
		case KW_STREAM:
		case KW_EVENT:
		case KW_ENV:
		case KW_CALLSITE:
			if (t->kw == KW_TRACE)
				rc = parse_trace(p);
			else if (t->kw == KW_CLOCK)
				rc = parse_clock(p);
			else if (t->kw == KW_STREAM)
				rc = parse_stream(p);
			else if (t->kw == KW_EVENT)
				rc = parse_event(p);
			else {
				adv(p);
				b.kind = t->kw == KW_ENV ? B_ENV : B_CALLSITE;
				rc = parse_block_body(p, &b);
			}
			/* The grammar wants "};"; a missing ';' is tolerated. */
			if (!rc)
				accept(p, ';');
			break;
		default:
			rc = parse_root_decl(p);
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------------------------- finishing */

/* Byte orders, clock references; on a final tree. */
static int fixup(parser *p, tio_fc *fc)
{
	int rc;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
		if (fc->i.byte_order == BO_NATIVE)
			fc->i.byte_order = p->tc->byte_order;
		if (fc->i.clock < -1) {
			const clkref *r = &p->cr[-2 - fc->i.clock];
			fc->i.clock = -1;
			for (uint32_t i = 0; i < p->tc->nclocks; i++)
				if (!strcmp(p->tc->clocks[i]->name, r->name))
					fc->i.clock = (int32_t)i;
			if (fc->i.clock < 0)
				return perr(p, r->at, "`map` refers to clock `%s`, which is not declared", r->name);
		}
		break;
	case TIO_FC_FLOAT:
		if (fc->f.byte_order == BO_NATIVE)
			fc->f.byte_order = p->tc->byte_order;
		break;
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++)
			if ((rc = fixup(p, fc->st.members[i].fc)))
				return rc;
		break;
	case TIO_FC_VARIANT:
		for (uint32_t i = 0; i < fc->v.noptions; i++)
			if ((rc = fixup(p, fc->v.options[i].fc)))
				return rc;
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		return fixup(p, fc->a.elem);
	default:
		break;
	}
	return 0;
}

/* --- path resolution (7.3.2) */

static const struct {
	const char *prefix;
	int scope;
} abs_scopes[] = {
	{"trace.packet.header.", TIO_SCOPE_PKT_HEADER},
	{"stream.packet.context.", TIO_SCOPE_PKT_CTX},
	{"stream.event.header.", TIO_SCOPE_EV_HEADER},
	{"stream.event.context.", TIO_SCOPE_EV_COMMON_CTX},
	{"event.context.", TIO_SCOPE_EV_SPEC_CTX},
	{"event.fields.", TIO_SCOPE_PAYLOAD},
};

static const char *const scope_names[TIO_NSCOPES] = {
	"trace.packet.header", "stream.packet.context", "stream.event.header",
	"stream.event.context", "event.context", "event.fields",
};

#define MAX_PATH_TOKS 32

typedef struct rstk {
	tio_fc *fc;
	uint32_t idx;
} rstk;

typedef struct rctx {
	parser *p;
	tio_fc *scopes[TIO_NSCOPES];
	int cur;
	rstk stk[TSDL_MAX_DEPTH * 4 + 8];
	int nstk;
	const char *where;
} rctx;

static int split_path(char *s, char **toks, int max)
{
	int n = 0;
	for (char *q = s;;) {
		if (n >= max)
			return -1;
		toks[n++] = q;
		char *dot = strchr(q, '.');
		if (!dot)
			break;
		*dot = 0;
		q = dot + 1;
	}
	return n;
}

static int member_by_name(const tio_fc *st, const char *name)
{
	for (uint32_t i = 0; i < st->st.nmembers; i++)
		if (!strcmp(st->st.members[i].name, name))
			return (int)i;
	return -1;
}

#define MAX_TARGETS 16

/* The fields a path designates, with the member/option indices that lead to each. */
typedef struct rtargets {
	int n;
	tio_fc *fc[MAX_TARGETS];
	uint32_t idx[MAX_TARGETS][MAX_PATH_TOKS * 2];
	int nidx[MAX_TARGETS];
} rtargets;

/*
 * Follow tokens[k..] down from the structure `fc`.  The target must not be
 * inside an array or sequence below the starting point (there is no single
 * "last value" to use).  With `multi` (sequence lengths), a name after a
 * variant is looked up in each option that is a structure (yactfr's
 * `variant.len` with a `len` in every option): each option's field is a
 * target, the one decoded gives the length.  idx[0..nidx) are the indices
 * taken so far; each target found is appended to `out`.
 */
static const char *descend(tio_fc *fc, char **toks, int k, int n, uint32_t *idx, int nidx, bool multi,
			   rtargets *out)
{
	for (; k < n; k++) {
		if (fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE)
			return "is inside an array or sequence";
		if (fc->kind == TIO_FC_VARIANT) {
			if (!multi)
				return "is inside a variant";
			if (nidx + 2 > MAX_PATH_TOKS * 2)
				return "is nested too deep";
			int found = 0;
			for (uint32_t o = 0; o < fc->v.noptions; o++) {
				tio_fc *opt = fc->v.options[o].fc;
				if (opt->kind != TIO_FC_STRUCT || member_by_name(opt, toks[k]) < 0)
					continue;
				idx[nidx] = o;
				const char *why = descend(opt, toks, k, n, idx, nidx + 1, multi, out);
				if (why)
					return why;
				found++;
			}
			return found ? NULL : "does not name a field of any option of the variant";
		}
		if (fc->kind != TIO_FC_STRUCT)
			return "goes through a field that is not a structure";
		int j = member_by_name(fc, toks[k]);
		if (j < 0)
			return "does not name an existing field";
		if (nidx + 1 > MAX_PATH_TOKS * 2)
			return "is nested too deep";
		idx[nidx++] = (uint32_t)j;
		fc = fc->st.members[j].fc;
	}
	if (out->n >= MAX_TARGETS)
		return "designates too many fields";
	out->fc[out->n] = fc;
	memcpy(out->idx[out->n], idx, (size_t)nidx * sizeof(*idx));
	out->nidx[out->n++] = nidx;
	return NULL;
}

static int resolve_ref(rctx *r, tio_fc *src, tio_ref *ref, bool is_seq)
{
	parser *p = r->p;
	const char *what = is_seq ? "sequence length" : "variant tag";
	if (!ref->path) {
		if (is_seq)
			return fc_err(p, src, "sequence has no length field");
		return fc_err(p, src, "variant has no tag (give one as `variant NAME <tag>` where it is used) in %s",
			      r->where);
	}
	char *buf = tio_strdup(ref->path);
	if (!buf)
		return TIO_ERR_NOMEM;
	char *toks[MAX_PATH_TOKS];
	uint32_t idx[MAX_PATH_TOKS * 2];
	rtargets *tg = tio_calloc(1, sizeof(*tg));
	int rc = 0;
	const char *why = NULL;
	if (!tg) {
		free(buf);
		return TIO_ERR_NOMEM;
	}
	int scope = -1;
	const char *rel = ref->path;
	for (size_t k = 0; k < TIO_ARRAY_LEN(abs_scopes); k++) {
		size_t n = strlen(abs_scopes[k].prefix);
		if (!strncmp(ref->path, abs_scopes[k].prefix, n)) {
			scope = abs_scopes[k].scope;
			rel = ref->path + n;
		}
	}
	if (!strncmp(ref->path, "env.", 4)) {
		rc = fc_err(p, src, "%s `%s` refers to the environment, which is not supported", what, ref->path);
		goto out;
	}
	memmove(buf, rel, strlen(rel) + 1);
	int n = split_path(buf, toks, MAX_PATH_TOKS);
	if (n < 0) {
		rc = fc_err(p, src, "%s path `%s` is too long", what, ref->path);
		goto out;
	}
	int level = -1; /* stack level the lookup started from (same scope) */
	if (scope >= 0 && scope > r->cur) {
		rc = fc_err(p, src, "%s `%s` refers to %s, which comes after %s", what, ref->path,
			    scope_names[scope], r->where);
		goto out;
	}
	if (scope >= 0 && scope < r->cur) {
		if (!r->scopes[scope]) {
			rc = fc_err(p, src, "%s `%s` refers to %s, which is not defined", what, ref->path,
				    scope_names[scope]);
			goto out;
		}
		why = descend(r->scopes[scope], toks, 0, n, idx, 0, is_seq, tg);
	} else if (scope >= 0) {
		level = 0;
		why = descend(r->stk[0].fc, toks, 0, n, idx, 0, is_seq, tg);
	} else {
		/* Relative: the innermost enclosing structure holding the first name. */
		why = "does not name a field of an enclosing structure";
		for (int l = r->nstk - 1; l >= 0; l--) {
			tio_fc *st = r->stk[l].fc;
			if (st->kind != TIO_FC_STRUCT || member_by_name(st, toks[0]) < 0)
				continue;
			level = l;
			why = descend(st, toks, 0, n, idx, 0, is_seq, tg);
			break;
		}
	}
	if (why) {
		rc = fc_err(p, src, "%s `%s` %s (in %s)", what, ref->path, why, r->where);
		goto out;
	}
	for (int t = 0; t < tg->n; t++) {
		tio_fc *target = tg->fc[t];
		if (level >= 0) {
			/* Same scope: the target must come before the source in field order. */
			uint32_t tpath[TIO_ARRAY_LEN(r->stk) + MAX_PATH_TOKS * 2];
			int tn = 0;
			for (int l = 0; l < level; l++)
				tpath[tn++] = r->stk[l].idx;
			for (int k = 0; k < tg->nidx[t]; k++)
				tpath[tn++] = tg->idx[t][k];
			int sn = r->nstk;
			int k = 0;
			while (k < tn && k < sn && tpath[k] == r->stk[k].idx)
				k++;
			if (k == tn || k == sn || tpath[k] > r->stk[k].idx) {
				rc = fc_err(p, src, "%s `%s` must refer to a field located before the %s (in %s)", what,
					    ref->path, is_seq ? "sequence" : "variant", r->where);
				goto out;
			}
		}
		if (is_seq) {
			if (!((target->kind == TIO_FC_INT || target->kind == TIO_FC_ENUM) && !target->i.is_signed)) {
				rc = fc_err(p, src, "Sequence field class's length field class is not an unsigned integer "
					    "field class (length `%s` in %s)", ref->path, r->where);
				goto out;
			}
		} else if (target->kind != TIO_FC_ENUM) {
			rc = fc_err(p, src, "Variant field class's tag field class is not an enumeration field class "
				    "(tag `%s` in %s)", ref->path, r->where);
			goto out;
		}
	}
	ref->target = tg->fc[0];
	free((void *)ref->alts);
	ref->alts = NULL;
	ref->nalts = 0;
	if (tg->n > 1) {
		ref->alts = tio_calloc((size_t)tg->n - 1, sizeof(*ref->alts));
		if (!ref->alts) {
			rc = TIO_ERR_NOMEM;
			goto out;
		}
		for (int t = 1; t < tg->n; t++)
			ref->alts[t - 1] = tg->fc[t];
		ref->nalts = (uint32_t)tg->n - 1;
	}
out:
	free(tg);
	free(buf);
	return rc;
}

/*
 * Option i of a variant selects the ranges of the tag's mapping whose
 * label is the option's name as written; failing that, the name with its
 * leading '_' removed, or the label with its leading '_' removed
 * ("_x" selects "x" and "x" selects "_x", as babeltrace does).
 */
/* The index of a variant tag's labels, made once for all the variants it selects (NULL: few labels). */
static int tag_names(parser *p, const tio_fc *tag, const ctf_nidx **out)
{
	*out = tag->user ? &p->tags[(uintptr_t)tag->user - 1].ix : NULL;
	if (*out || tag->i.nmappings < CTF_NIDX_LINEAR)
		return 0;
	if (tio_grow(&p->tags, &p->cap_tags, p->ntags + 1, sizeof(name_idx)))
		return TIO_ERR_NOMEM;
	name_idx *x = &p->tags[p->ntags];
	*x = (name_idx){.owner = tag};
	if (ctf_nidx_add(&x->ix, tag->i.mappings, sizeof(tio_mapping), tag->i.nmappings))
		return TIO_ERR_NOMEM;
	p->ntags++;
	/* its number (p->tags may move), cleared when finish() ends */
	((tio_fc *)tag)->user = (void *)(uintptr_t)p->ntags;
	*out = &x->ix;
	return 0;
}

static int variant_ranges(parser *p, tio_fc *v)
{
	const tio_fc *tag = v->v.sel.target;
	const ctf_nidx *x;
	int rc = tag_names(p, tag, &x);
	if (rc)
		return rc;
	v->v.ranges = tio_calloc(v->v.noptions, sizeof(tio_mapping));
	if (!v->v.ranges)
		return TIO_ERR_NOMEM;
	const tio_mapping *maps = tag->i.mappings;
	uint32_t nm = tag->i.nmappings;
	for (uint32_t o = 0; o < v->v.noptions; o++) {
		const char *on = v->v.options[o].name;
		size_t len = strlen(on);
		uint32_t k = ctf_nidx_find(x, maps, sizeof(*maps), nm, on, len);
		if (k == CTF_NIDX_NONE && on[0] == '_')
			k = ctf_nidx_find(x, maps, sizeof(*maps), nm, on + 1, len - 1);
		if (k == CTF_NIDX_NONE) {
			char *u = tio_asprintf("_%s", on);
			if (!u)
				return TIO_ERR_NOMEM;
			k = ctf_nidx_find(x, maps, sizeof(*maps), nm, u, len + 1);
			free(u);
		}
		tio_mapping *d = &v->v.ranges[o];
		if (k == CTF_NIDX_NONE)
			continue;
		const tio_mapping *m = &maps[k];
		d->label = tio_strdup(m->label);
		d->ranges = tio_calloc(m->nranges, sizeof(tio_range));
		if (!d->label || !d->ranges)
			return TIO_ERR_NOMEM;
		memcpy(d->ranges, m->ranges, m->nranges * sizeof(tio_range));
		d->nranges = m->nranges;
	}
	return 0;
}

static int resolve_walk(rctx *r, tio_fc *fc)
{
	int rc;
	if (fc->kind == TIO_FC_SEQUENCE && (rc = resolve_ref(r, fc, &fc->a.len, true)))
		return rc;
	if (fc->kind == TIO_FC_VARIANT) {
		if ((rc = resolve_ref(r, fc, &fc->v.sel, false)) || (rc = variant_ranges(r->p, fc)))
			return rc;
	}
	if (r->nstk >= (int)TIO_ARRAY_LEN(r->stk))
		return tio_err_set(TIO_ERR_LIMIT, "%s: field classes nested too deep", r->p->name);
	rstk *s = &r->stk[r->nstk++];
	s->fc = fc;
	s->idx = 0;
	rc = 0;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; !rc && i < fc->st.nmembers; i++) {
			s->idx = i;
			rc = resolve_walk(r, fc->st.members[i].fc);
		}
		break;
	case TIO_FC_VARIANT:
		for (uint32_t i = 0; !rc && i < fc->v.noptions; i++) {
			s->idx = i;
			rc = resolve_walk(r, fc->v.options[i].fc);
		}
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		rc = resolve_walk(r, fc->a.elem);
		break;
	default:
		break;
	}
	r->nstk--;
	return rc;
}

static int resolve_scope(parser *p, tio_fc *const scopes[TIO_NSCOPES], int which, const char *where)
{
	if (!scopes[which])
		return 0;
	rctx *r = tio_calloc(1, sizeof(*r));
	if (!r)
		return TIO_ERR_NOMEM;
	r->p = p;
	memcpy(r->scopes, scopes, sizeof(r->scopes));
	r->cur = which;
	r->where = where;
	int rc = resolve_walk(r, scopes[which]);
	free(r);
	return rc;
}

/* --- names, roles, clocks */

static void strip_names(tio_fc *fc)
{
	tio_member *m = NULL;
	uint32_t n = 0;
	if (fc->kind == TIO_FC_STRUCT) {
		m = fc->st.members;
		n = fc->st.nmembers;
	} else if (fc->kind == TIO_FC_VARIANT) {
		m = fc->v.options;
		n = fc->v.noptions;
	} else if (fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE) {
		strip_names(fc->a.elem);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (m[i].name && m[i].name[0] == '_')
			memmove(m[i].name, m[i].name + 1, strlen(m[i].name));
		strip_names(m[i].fc);
	}
}

static void clear_attrs(tio_fc *fc)
{
	free(fc->attrs);
	fc->attrs = NULL;
	if (fc->kind == TIO_FC_STRUCT)
		for (uint32_t i = 0; i < fc->st.nmembers; i++)
			clear_attrs(fc->st.members[i].fc);
	else if (fc->kind == TIO_FC_VARIANT)
		for (uint32_t i = 0; i < fc->v.noptions; i++)
			clear_attrs(fc->v.options[i].fc);
	else if (fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE)
		clear_attrs(fc->a.elem);
}

static bool is_intlike(const tio_fc *fc) { return fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM; }

static void roles_top(tio_fc *st, const char *const *names, const uint32_t *roles, size_t n)
{
	if (!st)
		return;
	for (uint32_t i = 0; i < st->st.nmembers; i++) {
		tio_fc *m = st->st.members[i].fc;
		for (size_t k = 0; k < n; k++) {
			if (strcmp(st->st.members[i].name, names[k]))
				continue;
			if (is_intlike(m))
				m->role = roles[k];
			else if (roles[k] == TIO_ROLE_UUID && m->kind == TIO_FC_ARRAY && m->a.length == 16 &&
				 is_intlike(m->a.elem) && m->a.elem->i.size == 8)
				m->role = roles[k];
		}
	}
}

/* Event header: `id` and `timestamp` at any depth (through structures and variants). */
static void roles_header(tio_fc *fc)
{
	tio_member *m = NULL;
	uint32_t n = 0;
	if (fc->kind == TIO_FC_STRUCT) {
		m = fc->st.members;
		n = fc->st.nmembers;
	} else if (fc->kind == TIO_FC_VARIANT) {
		m = fc->v.options;
		n = fc->v.noptions;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (is_intlike(m[i].fc)) {
			if (!strcmp(m[i].name, "id"))
				m[i].fc->role = TIO_ROLE_EVENT_CLASS_ID;
			else if (!strcmp(m[i].name, "timestamp"))
				m[i].fc->role = TIO_ROLE_EVENT_TS;
		}
		roles_header(m[i].fc);
	}
}

/*
 * babeltrace2: a `timestamp` (event header) or `timestamp_begin`/`_end`
 * (packet context) integer with no `map` uses the trace's only clock, or
 * a 1 GHz clock named "default" created when the trace declares none.
 */
static int automap(parser *p, tio_fc *fc, const char *const *names, size_t nn, const tsdl_tok *at)
{
	tio_member *m = NULL;
	uint32_t n = 0;
	int rc;
	if (fc->kind == TIO_FC_STRUCT) {
		m = fc->st.members;
		n = fc->st.nmembers;
	} else if (fc->kind == TIO_FC_VARIANT) {
		m = fc->v.options;
		n = fc->v.noptions;
	}
	for (uint32_t i = 0; i < n; i++) {
		tio_fc *c = m[i].fc;
		bool hit = false;
		for (size_t k = 0; k < nn; k++)
			hit |= !strcmp(m[i].name, names[k]);
		if (hit && is_intlike(c) && c->i.clock < 0) {
			tio_trace_class *tc = p->tc;
			if (tc->nclocks > 1)
				return perr(p, at, "timestamp field `%s` has no `map` and the trace has %u clocks",
					    m[i].name, tc->nclocks);
			if (tc->nclocks == 0) {
				tio_clock *ck = tio_calloc(1, sizeof(*ck));
				if (!ck || !(ck->name = tio_strdup("default")) ||
				    tio_grow(&tc->clocks, &p->cap_clocks, 1, sizeof(tio_clock *))) {
					if (ck)
						free(ck->name);
					free(ck);
					return TIO_ERR_NOMEM;
				}
				ck->freq = 1000000000ULL;
				tc->clocks[tc->nclocks++] = ck;
			}
			c->i.clock = 0;
		}
		if ((rc = automap(p, c, names, nn, at)))
			return rc;
	}
	return 0;
}

static int first_clock(const tio_fc *fc)
{
	if (!fc)
		return -1;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
		return fc->i.clock;
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++) {
			int c = first_clock(fc->st.members[i].fc);
			if (c >= 0)
				return c;
		}
		return -1;
	case TIO_FC_VARIANT:
		for (uint32_t i = 0; i < fc->v.noptions; i++) {
			int c = first_clock(fc->v.options[i].fc);
			if (c >= 0)
				return c;
		}
		return -1;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		return first_clock(fc->a.elem);
	default:
		return -1;
	}
}

/* An event's stream class and id, and where it is in the metadata (attach_events). */
typedef struct ec_key {
	uint64_t sid, id;
	size_t k;
} ec_key;

static int ec_key_cmp(const void *a, const void *b)
{
	const ec_key *x = a, *y = b;
	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * Each event class to its stream class.  The stream classes are found by
 * sc_find and the ids used twice by sorting the events: a search of each
 * in the ones before made 10^5 events (2 MB of metadata) take a minute.
 * The errors are the same, for the same event, as in file order.
 */
static int attach_events(parser *p)
{
	tio_trace_class *tc = p->tc;
	ec_key *keys = tio_calloc(p->npe ? p->npe : 1, sizeof(*keys));
	size_t *dup = tio_calloc(p->npe ? p->npe : 1, sizeof(*dup)); /* the first event of the same id, or SIZE_MAX */
	int rc = 0;
	if (!keys || !dup) {
		rc = TIO_ERR_NOMEM;
		goto out;
	}
	/* the stream class an event goes to, as below, when it goes to one: an
	   event without stream_id goes to the only one, or the implicit one (id 0) */
	for (size_t k = 0; k < p->npe; k++) {
		const pend_ec *pe = &p->pe[k];
		keys[k] = (ec_key){pe->has_sid ? pe->sid : tc->nscs == 1 ? tc->scs[0]->id : 0, pe->ec->id, k};
		dup[k] = SIZE_MAX;
	}
	qsort(keys, p->npe, sizeof(*keys), ec_key_cmp);
	for (size_t i = 1, first = 0; i < p->npe; i++) {
		if (keys[i].sid == keys[first].sid && keys[i].id == keys[first].id)
			dup[keys[i].k] = keys[first].k;
		else
			first = i;
	}
	for (size_t k = 0; k < p->npe; k++) {
		pend_ec *pe = &p->pe[k];
		tio_stream_class *sc = NULL;
		if (pe->has_sid) {
			/* every stream block's, or the implicit one (not hashed) */
			sc = p->sc_cap ? sc_find(p, pe->sid) : tio_trace_class_find_sc(tc, pe->sid);
			if (!sc && (tc->nscs || pe->sid != 0)) {
				rc = perr(p, pe->at, "event `%s` refers to stream class %llu, which is not declared",
					  pe->ec->name, (unsigned long long)pe->sid);
				goto out;
			}
		} else if (tc->nscs == 1) {
			sc = tc->scs[0];
		} else if (tc->nscs > 1) {
			rc = perr(p, pe->at, "event `%s` has no `stream_id` and the trace has %u stream classes",
				  pe->ec->name, tc->nscs);
			goto out;
		}
		if (!sc) {
			/* Events without any stream block: an implicit stream class 0. */
			sc = tio_calloc(1, sizeof(*sc));
			if (!sc || tio_grow(&tc->scs, &p->cap_scs, tc->nscs + 1, sizeof(*tc->scs)) ||
			    tio_grow(&p->sci, &p->cap_sci, tc->nscs + 1, sizeof(*p->sci))) {
				free(sc);
				rc = TIO_ERR_NOMEM;
				goto out;
			}
			sc->clock = -1;
			sc->tc = tc;
			p->sci[tc->nscs].at = pe->at;
			tc->scs[tc->nscs++] = sc;
		}
		if (dup[k] != SIZE_MAX) {
			const tio_event_class *was = NULL; /* the first of that id, attached */
			for (uint32_t i = 0; !was && i < sc->necs; i++)
				was = sc->ecs[i]->id == pe->ec->id ? sc->ecs[i] : NULL;
			rc = perr(p, pe->at, "event `%s` has id %llu, already used by event `%s` in stream class %llu%s",
				  pe->ec->name, (unsigned long long)pe->ec->id, was ? was->name : "?",
				  (unsigned long long)sc->id, pe->has_id ? "" : " (an event without `id` has id 0)");
			goto out;
		}
		if (grow_pow2(&sc->ecs, sc->necs, sizeof(*sc->ecs))) {
			rc = TIO_ERR_NOMEM;
			goto out;
		}
		sc->ecs[sc->necs++] = pe->ec;
		pe->ec->sc = sc;
		pe->ec = NULL;
	}
out:
	free(keys);
	free(dup);
	return rc;
}

static int sc_cmp(const void *a, const void *b)
{
	const tio_stream_class *x = *(tio_stream_class *const *)a;
	const tio_stream_class *y = *(tio_stream_class *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int finish(parser *p)
{
	tio_trace_class *tc = p->tc;
	int rc;
	if (!p->trace_at)
		return perr(p, NULL, "metadata has no trace block");
	if ((rc = attach_events(p)))
		return rc;
	/* 1. byte orders and clocks */
	if (tc->pkt_header && (rc = fixup(p, tc->pkt_header)))
		return rc;
	for (uint32_t s = 0; s < tc->nscs; s++) {
		tio_stream_class *sc = tc->scs[s];
		tio_fc *f[] = {sc->pkt_ctx, sc->ev_header, sc->ev_common_ctx};
		for (size_t k = 0; k < TIO_ARRAY_LEN(f); k++)
			if (f[k] && (rc = fixup(p, f[k])))
				return rc;
		for (uint32_t e = 0; e < sc->necs; e++) {
			tio_event_class *ec = sc->ecs[e];
			if ((ec->spec_ctx && (rc = fixup(p, ec->spec_ctx))) || (ec->payload && (rc = fixup(p, ec->payload))))
				return rc;
		}
	}
	/* 2. paths, against the names as written */
	tio_fc *scopes[TIO_NSCOPES] = {tc->pkt_header};
	if ((rc = resolve_scope(p, scopes, TIO_SCOPE_PKT_HEADER, "trace.packet.header")))
		return rc;
	for (uint32_t s = 0; s < tc->nscs; s++) {
		tio_stream_class *sc = tc->scs[s];
		char where[128];
		scopes[TIO_SCOPE_PKT_CTX] = sc->pkt_ctx;
		scopes[TIO_SCOPE_EV_HEADER] = sc->ev_header;
		scopes[TIO_SCOPE_EV_COMMON_CTX] = sc->ev_common_ctx;
		for (int k = TIO_SCOPE_PKT_CTX; k <= TIO_SCOPE_EV_COMMON_CTX; k++) {
			snprintf(where, sizeof(where), "%s of stream class %llu", scope_names[k], (unsigned long long)sc->id);
			if ((rc = resolve_scope(p, scopes, k, where)))
				return rc;
		}
		for (uint32_t e = 0; e < sc->necs; e++) {
			tio_event_class *ec = sc->ecs[e];
			scopes[TIO_SCOPE_EV_SPEC_CTX] = ec->spec_ctx;
			scopes[TIO_SCOPE_PAYLOAD] = ec->payload;
			for (int k = TIO_SCOPE_EV_SPEC_CTX; k <= TIO_SCOPE_PAYLOAD; k++) {
				snprintf(where, sizeof(where), "%s of event `%.80s`", scope_names[k], ec->name);
				if ((rc = resolve_scope(p, scopes, k, where)))
					return rc;
			}
		}
	}
	/* 3. names as babeltrace2 shows them; roles; clocks */
	static const char *const ph_names[] = {"magic", "uuid", "stream_id", "stream_instance_id"};
	static const uint32_t ph_roles[] = {TIO_ROLE_MAGIC, TIO_ROLE_UUID, TIO_ROLE_STREAM_CLASS_ID, TIO_ROLE_STREAM_ID};
	static const char *const pc_names[] = {"timestamp_begin", "timestamp_end", "content_size",
					      "packet_size", "events_discarded", "packet_seq_num"};
	static const uint32_t pc_roles[] = {TIO_ROLE_BEGIN_TS, TIO_ROLE_END_TS, TIO_ROLE_CONTENT_SIZE,
					    TIO_ROLE_PACKET_SIZE, TIO_ROLE_DISCARDED, TIO_ROLE_SEQ_NUM};
	static const char *const ts_pc[] = {"timestamp_begin", "timestamp_end"};
	static const char *const ts_eh[] = {"timestamp"};
	if (tc->pkt_header) {
		strip_names(tc->pkt_header);
		roles_top(tc->pkt_header, ph_names, ph_roles, TIO_ARRAY_LEN(ph_names));
		clear_attrs(tc->pkt_header);
	}
	for (uint32_t s = 0; s < tc->nscs; s++) {
		tio_stream_class *sc = tc->scs[s];
		tio_fc *f[] = {sc->pkt_ctx, sc->ev_header, sc->ev_common_ctx};
		for (size_t k = 0; k < TIO_ARRAY_LEN(f); k++) {
			if (f[k]) {
				strip_names(f[k]);
				clear_attrs(f[k]);
			}
		}
		if (sc->pkt_ctx) {
			roles_top(sc->pkt_ctx, pc_names, pc_roles, TIO_ARRAY_LEN(pc_names));
			if ((rc = automap(p, sc->pkt_ctx, ts_pc, 2, p->sci[s].at)))
				return rc;
		}
		if (sc->ev_header) {
			roles_header(sc->ev_header);
			if ((rc = automap(p, sc->ev_header, ts_eh, 1, p->sci[s].at)))
				return rc;
		}
		sc->clock = first_clock(sc->pkt_ctx);
		if (sc->clock < 0)
			sc->clock = first_clock(sc->ev_header);
		for (uint32_t e = 0; e < sc->necs; e++) {
			tio_event_class *ec = sc->ecs[e];
			if (ec->spec_ctx) {
				strip_names(ec->spec_ctx);
				clear_attrs(ec->spec_ctx);
			}
			if (ec->payload) {
				strip_names(ec->payload);
				clear_attrs(ec->payload);
			}
		}
		tio_stream_class_sort(sc);
	}
	if (tc->nscs > 1)
		qsort(tc->scs, tc->nscs, sizeof(*tc->scs), sc_cmp);
	for (size_t k = 0; k < p->ntags; k++)
		((tio_fc *)p->tags[k].owner)->user = NULL;
	return 0;
}

static void parser_free(parser *p)
{
	while (p->ls)
		scope_pop(p);
	for (size_t i = 0; i < p->npe; i++)
		tio_event_class_free(p->pe[i].ec);
	free(p->pe);
	for (size_t i = 0; i < p->ncr; i++)
		free(p->cr[i].name);
	free(p->cr);
	free(p->sci);
	free(p->sc_slot);
	for (size_t k = 0; k < p->ntags; k++)
		ctf_nidx_free(&p->tags[k].ix);
	free(p->tags);
	tsdl_toks_free(p->t, p->nt);
}

int tio_tsdl_parse(const char *text, size_t len, const char *name, tio_trace_class **out)
{
	parser p = {.name = name ? name : "metadata"};
	*out = NULL;
	int rc = tsdl_lex(text, len, p.name, &p.t, &p.nt);
	if (rc)
		return rc;
	if (!(p.tc = tio_calloc(1, sizeof(*p.tc)))) {
		parser_free(&p);
		return TIO_ERR_NOMEM;
	}
	if (!(rc = scope_push(&p)) && !(rc = parse_root(&p)))
		rc = finish(&p);
	if (rc == TIO_ERR_NOMEM && !strstr(tio_error_message(), "out of memory"))
		tio_err_oom();
	if (rc) {
		tio_trace_class_free(p.tc);
	} else {
		*out = p.tc;
	}
	parser_free(&p);
	return rc;
}

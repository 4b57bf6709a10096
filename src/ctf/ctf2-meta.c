/*
 * CTF 2 metadata stream (CTF2-SPEC-2.0, diamon.org/ctf, sections 5 "Metadata
 * stream" and 6 "Field classes") parsed into the common model.
 *
 * The stream is a JSON text sequence (RFC 7464): fragments separated by
 * the record separator 0x1E.  json-c parses each fragment; this file only
 * walks the JSON objects.  Work happens in two passes per fragment:
 *
 *   1. build: JSON field classes become tio_fc trees.  A field-class alias
 *      is built once when defined and deep-copied (tio_fc_copy) at every
 *      use, so that each use site owns its own tree.  A field class that
 *      holds a field location (dynamic length, selector) points through
 *      fc->user at a `loc` (owned by the parser) while parsing.
 *   2. resolve: each scope of the fragment is walked with its ancestors;
 *      locations become tio_ref targets in the final tree, roles are
 *      checked against their scope, and timestamps get their clock.
 *
 * Every concrete choice is written down in docs/formats/ctf2.md.
 * Errors read "NAME: fragment N (TYPE): what is wrong, at JSON path /a/0/b".
 */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

#include "ctf/ctf.h"
#include "ctf/name-index.h"

#define MAX_FC_DEPTH 100  /* nested field classes (structures, arrays...) */
#define MAX_JSON_DEPTH 1024
/*
 * Field classes made, alias copies included (as TSDL_MAX_NODES): an alias
 * whose structure names the previous alias twice doubles at each step,
 * so 22 of them (4 kB of metadata) made 2^23 field classes, 3.9 GB.
 */
#define MAX_FC_NODES (2u << 20)
#define MAX_LOC_VISITS (4u << 20) /* field classes visited resolving locations (follow) */

/* Scope order (the same as enum tio_scope): a location may only look back. */
static const char *const scope_names[TIO_NSCOPES] = {
	"packet-header",		 "packet-context",		  "event-record-header",
	"event-record-common-context", "event-record-specific-context", "event-record-payload",
};

/* A field location as written: origin (-1: relative) and path (NULL: parent). */
typedef struct loc {
	int origin;
	char **elems;
	uint32_t n;
	char *jpath;	   /* JSON path of the location object, for messages */
	uint32_t frag;	   /* fragment where it was written */
	/* selector ranges seen with it, per option: bit 0 a negative bound, bit 1 a bound > INT64_MAX */
	uint8_t *rflags;
	uint32_t nopts;
	bool has_ranges;
	struct loc *next;
} loc;

typedef struct alias {
	char *name; /* first: a ctf_nidx element */
	tio_fc *fc;
	uint64_t nodes; /* field classes in fc */
} alias;

/*
 * A structure's name index (name-index.h: 10^5 members, 13 MB of JSON,
 * took 30 s without one).  It stays with the structure in fc->user (its
 * copies share it: the same names in the same places) for the field
 * locations that look its members up; the parser owns it (c->nidxs).
 */
typedef struct nidx {
	ctf_nidx ix;
	struct nidx *next;
} nidx;

typedef struct ctx {
	const char *name;
	uint32_t frag;	     /* current fragment, 1-based */
	const char *ftype;   /* its type */
	tio_buf jpath;	     /* JSON path inside the fragment */
	tio_trace_class *tc;
	size_t scs_cap;
	alias *aliases;
	size_t naliases, aliases_cap;
	char **clock_ids;    /* parallel to tc->clocks */
	ctf_nidx alias_idx, clock_idx;
	nidx *nidxs;	     /* structures' indexes (fc->user) */
	uint32_t *sc_slot;   /* stream classes by id: index in tc->scs + 1 (sc_find) */
	uint32_t sc_cap;
	loc *locs;
	uint64_t nodes;	     /* field classes made so far (MAX_FC_NODES) */
	uint64_t loc_visits; /* left to resolve locations (MAX_LOC_VISITS) */
	bool has_preamble, has_tc, has_sc;
	bool at_end;	     /* checks after the last fragment */
	uint8_t pre_uuid[16];
	bool has_pre_uuid;
	int depth;
} ctx;

/* ---------------------------------------------------------------- errors and JSON paths */

static int verr(ctx *c, int status, const char *jpath, const char *fmt, va_list ap)
{
	tio_buf b = {0};
	if (c->at_end)
		tio_buf_addf(&b, "%s: end of the metadata stream (%u fragments): ", c->name, c->frag);
	else
		tio_buf_addf(&b, "%s: fragment %u (%s): ", c->name, c->frag, c->ftype ? c->ftype : "?");
	tio_buf_vaddf(&b, fmt, ap);
	tio_buf_addf(&b, ", at JSON path %s", jpath && *jpath ? jpath : "/");
	tio_err_set(status, "%s", b.p ? b.p : "CTF 2 metadata error");
	tio_buf_free(&b);
	return status;
}

static int err(ctx *c, const char *fmt, ...) TIO_PRINTF(2, 3);
static int err(ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(c, TIO_ERR_FORMAT, tio_buf_cstr(&c->jpath), fmt, ap);
	va_end(ap);
	return TIO_ERR_FORMAT;
}

static int err_st(ctx *c, int status, const char *fmt, ...) TIO_PRINTF(3, 4);
static int err_st(ctx *c, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(c, status, tio_buf_cstr(&c->jpath), fmt, ap);
	va_end(ap);
	return status;
}

/* JSON Pointer (RFC 6901) segments: '~' and '/' escaped. */
static size_t push_key(ctx *c, const char *key)
{
	size_t mark = c->jpath.len;
	tio_buf_addc(&c->jpath, '/');
	for (const char *p = key; *p; p++) {
		if (*p == '~')
			tio_buf_adds(&c->jpath, "~0");
		else if (*p == '/')
			tio_buf_adds(&c->jpath, "~1");
		else
			tio_buf_addc(&c->jpath, *p);
	}
	return mark;
}

static size_t push_idx(ctx *c, size_t i)
{
	size_t mark = c->jpath.len;
	tio_buf_addf(&c->jpath, "/%zu", i);
	return mark;
}

static void pop(ctx *c, size_t mark)
{
	c->jpath.len = mark;
	if (c->jpath.p)
		c->jpath.p[mark] = 0;
}

/* ---------------------------------------------------------------- JSON helpers */

/* The capacity tio_grow() gave an array that grew one element at a time to n. */
static size_t cap_of(size_t n)
{
	size_t c = 8;
	if (!n)
		return 0;
	while (c < n)
		c *= 2;
	return c;
}


/* ---------------------------------------------------------------- name and id indexes */

_Static_assert(offsetof(tio_member, name) == 0 && offsetof(alias, name) == 0,
	       "ctf_nidx: elements begin with their name");

/* The member of structure st named s, or -1 (st->user: its index, if any). */
static int64_t member_index(const tio_fc *st, const char *s)
{
	if (!st || st->kind != TIO_FC_STRUCT)
		return -1;
	const nidx *x = st->user;
	uint32_t i = ctf_nidx_find(x ? &x->ix : NULL, st->st.members, sizeof(tio_member),
				   st->st.nmembers, s, strlen(s));
	return i == CTF_NIDX_NONE ? -1 : (int64_t)i;
}

/*
 * The stream class of this id parsed so far, or NULL.  Hashed: comparing
 * each new id with every earlier one took 10 s for 10^5 stream classes.
 */
static uint32_t sc_hash(uint64_t id, uint32_t cap)
{
	return (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

static tio_stream_class *sc_find(const ctx *c, uint64_t id)
{
	if (!c->sc_cap)
		return NULL;
	for (uint32_t h = sc_hash(id, c->sc_cap);; h = (h + 1) & (c->sc_cap - 1)) {
		uint32_t v = c->sc_slot[h];
		if (!v)
			return NULL;
		if (c->tc->scs[v - 1]->id == id)
			return c->tc->scs[v - 1];
	}
}

/* tc->scs[nscs - 1] was just added. */
static int sc_add(ctx *c)
{
	tio_trace_class *tc = c->tc;
	if (tc->nscs > c->sc_cap / 2) {
		uint32_t cap = 64;
		while (cap < 4 * (uint64_t)tc->nscs)
			cap *= 2;
		uint32_t *slot = tio_calloc(cap, sizeof(uint32_t));
		if (!slot)
			return TIO_ERR_NOMEM;
		free(c->sc_slot);
		c->sc_slot = slot;
		c->sc_cap = cap;
		for (uint32_t i = 0; i + 1 < tc->nscs; i++) {
			uint32_t h = sc_hash(tc->scs[i]->id, cap);
			while (slot[h])
				h = (h + 1) & (cap - 1);
			slot[h] = i + 1;
		}
	}
	uint32_t h = sc_hash(tc->scs[tc->nscs - 1]->id, c->sc_cap);
	while (c->sc_slot[h])
		h = (h + 1) & (c->sc_cap - 1);
	c->sc_slot[h] = tc->nscs;
	return 0;
}

static const char *jtype_name(json_object *j)
{
	switch (json_object_get_type(j)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a non-integer number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "?";
}

static json_object *prop(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* An integer of either sign: *neg and the two's complement bits in *u. */
static void jint(json_object *j, bool *neg, uint64_t *u)
{
	int64_t i = json_object_get_int64(j);
	*neg = i < 0;
	*u = i < 0 ? (uint64_t)i : json_object_get_uint64(j);
}

/* Optional string property (kept NULL when absent). */
static int get_str(ctx *c, json_object *o, const char *key, bool required, const char **out)
{
	json_object *v = prop(o, key);
	*out = NULL;
	if (!v) {
		if (required)
			return err(c, "missing property '%s'", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string)) {
		size_t m = push_key(c, key);
		int r = err(c, "'%s' must be a string, not %s", key, jtype_name(v));
		pop(c, m);
		return r;
	}
	*out = json_object_get_string(v);
	return 0;
}

static int get_uint(ctx *c, json_object *o, const char *key, bool required, uint64_t def, uint64_t *out)
{
	json_object *v = prop(o, key);
	*out = def;
	if (!v) {
		if (required)
			return err(c, "missing property '%s'", key);
		return 0;
	}
	bool neg;
	uint64_t u;
	if (json_object_is_type(v, json_type_int)) {
		jint(v, &neg, &u);
		if (!neg) {
			*out = u;
			return 0;
		}
	}
	size_t m = push_key(c, key);
	int r = err(c, "'%s' must be an unsigned integer, not %s", key,
		    json_object_is_type(v, json_type_int) ? "a negative integer" : jtype_name(v));
	pop(c, m);
	return r;
}

static int get_align(ctx *c, json_object *o, const char *key, uint32_t *out)
{
	uint64_t a;
	int r = get_uint(c, o, key, false, 1, &a);
	if (r)
		return r;
	if (a == 0 || (a & (a - 1)) || a > (1u << 30)) {
		size_t m = push_key(c, key);
		r = err(c, "'%s' must be a power of two (got %llu)", key, (unsigned long long)a);
		pop(c, m);
		return r;
	}
	*out = (uint32_t)a;
	return 0;
}

static int json_text(json_object *j, char **out)
{
	*out = tio_strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	return *out ? 0 : TIO_ERR_NOMEM;
}

/* Attributes: any JSON object, kept as text.  *out may stay NULL. */
static int get_attrs(ctx *c, json_object *o, char **out)
{
	json_object *a = prop(o, "attributes");
	*out = NULL;
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_object)) {
		size_t m = push_key(c, "attributes");
		int r = err(c, "'attributes' must be an object, not %s", jtype_name(a));
		pop(c, m);
		return r;
	}
	return json_text(a, out);
}

/*
 * A field class's attributes that are only {"traceio": {"attrs": TEXT}}:
 * the text another format's reader kept (trace.dat's C type, a printf
 * format...), which traceio's CTF 2 writer cannot write as JSON: fc->attrs
 * becomes that text again.
 */
static int traceio_attrs(json_object *o, tio_fc *fc)
{
	json_object *a = prop(o, "attributes"), *t = prop(a, "traceio");
	json_object *s = t && json_object_is_type(t, json_type_object) ? prop(t, "attrs") : NULL;
	if (!s || json_object_object_length(a) != 1 || json_object_object_length(t) != 1 ||
	    !json_object_is_type(s, json_type_string))
		return 0;
	char *text = tio_strdup(json_object_get_string(s));
	if (!text)
		return TIO_ERR_NOMEM;
	free(fc->attrs);
	fc->attrs = text;
	return 0;
}

/*
 * Extensions (CTF2-SPEC-2.0 5.1.3): traceio implements none.  An extension
 * enabled in the preamble makes the trace unreadable (checked there); any
 * other object may only use extensions the preamble enabled, so here any
 * extension at all is invalid metadata.
 */
static int check_ext(ctx *c, json_object *o)
{
	json_object *e = prop(o, "extensions");
	if (!e)
		return 0;
	size_t m = push_key(c, "extensions");
	int r = 0;
	if (!json_object_is_type(e, json_type_object))
		r = err(c, "'extensions' must be an object, not %s", jtype_name(e));
	else if (json_object_object_length(e) > 0) {
		struct json_object_iterator it = json_object_iter_begin(e);
		r = err(c, "extension namespace '%s' is used but the preamble enables no extension",
			json_object_iter_peek_name(&it));
	}
	pop(c, m);
	return r;
}

/* ---------------------------------------------------------------- integer ranges */

/*
 * An integer range set: [[lo, hi], ...].  Bounds keep their bits in
 * tio_range (unsigned values above INT64_MAX wrap); *flags says whether a
 * bound is negative (bit 0) or above INT64_MAX (bit 1), so that the
 * signedness of whatever the ranges apply to can be checked later.
 */
static int parse_ranges(ctx *c, json_object *j, const char *what, tio_mapping *m, uint8_t *flags)
{
	*flags = 0;
	if (!json_object_is_type(j, json_type_array) || json_object_array_length(j) == 0)
		return err(c, "%s must be a non-empty array of integer ranges, not %s", what,
			   json_object_is_type(j, json_type_array) ? "an empty array" : jtype_name(j));
	size_t n = json_object_array_length(j);
	m->ranges = tio_calloc(n, sizeof(tio_range));
	if (!m->ranges)
		return TIO_ERR_NOMEM;
	m->nranges = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		json_object *rg = json_object_array_get_idx(j, i);
		size_t mk = push_idx(c, i);
		json_object *a, *b;
		if (!json_object_is_type(rg, json_type_array) || json_object_array_length(rg) != 2 ||
		    !json_object_is_type(a = json_object_array_get_idx(rg, 0), json_type_int) ||
		    !json_object_is_type(b = json_object_array_get_idx(rg, 1), json_type_int)) {
			int r = err(c, "an integer range must be an array of two integers");
			pop(c, mk);
			return r;
		}
		bool na, nb;
		uint64_t ua, ub;
		jint(a, &na, &ua);
		jint(b, &nb, &ub);
		/* lower <= upper, comparing the true values */
		bool ok;
		if (na == nb)
			ok = na ? (int64_t)ua <= (int64_t)ub : ua <= ub;
		else
			ok = na; /* negative lower, non-negative upper */
		if (!ok) {
			int r = err(c, "integer range lower bound is greater than its upper bound");
			pop(c, mk);
			return r;
		}
		if (na || nb)
			*flags |= 1;
		if ((!na && ua > INT64_MAX) || (!nb && ub > INT64_MAX))
			*flags |= 2;
		m->ranges[i].lo = (int64_t)ua;
		m->ranges[i].hi = (int64_t)ub;
		pop(c, mk);
	}
	return 0;
}

/* Ranges that apply to a value of known signedness. */
static int check_range_sign(ctx *c, uint8_t flags, bool is_signed, const char *what)
{
	if (!is_signed && (flags & 1))
		return err(c, "%s: negative bound for an unsigned integer", what);
	if (is_signed && (flags & 2))
		return err(c, "%s: bound greater than %lld for a signed integer", what, (long long)INT64_MAX);
	return 0;
}

/* {"label": [[lo, hi], ...], ...}: enum mappings or bit map flags. */
static int parse_mappings(ctx *c, json_object *j, const char *key, bool is_signed, tio_mapping **out,
			  uint32_t *nout, uint8_t *allflags)
{
	size_t mk = push_key(c, key);
	int r = 0;
	*allflags = 0;
	if (!json_object_is_type(j, json_type_object) || json_object_object_length(j) == 0) {
		r = err(c, "'%s' must be a non-empty object", key);
		goto out;
	}
	size_t n = (size_t)json_object_object_length(j);
	tio_mapping *m = tio_calloc(n, sizeof(*m));
	if (!m) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	*out = m;
	*nout = (uint32_t)n;
	size_t i = 0;
	json_object_object_foreach(j, label, ranges)
	{
		if (i >= n)
			break;
		size_t mk2 = push_key(c, label);
		m[i].label = tio_strdup(label);
		if (!m[i].label)
			r = TIO_ERR_NOMEM;
		uint8_t fl = 0;
		if (!r)
			r = parse_ranges(c, ranges, "a mapping", &m[i], &fl);
		if (!r)
			r = check_range_sign(c, fl, is_signed, "mapping");
		*allflags |= fl;
		pop(c, mk2);
		i++;
		if (r)
			break;
	}
out:
	pop(c, mk);
	return r;
}

/* ---------------------------------------------------------------- field locations */

static int parse_loc(ctx *c, json_object *o, const char *key, loc **out)
{
	json_object *j = prop(o, key);
	if (!j)
		return err(c, "missing property '%s'", key);
	size_t mk = push_key(c, key);
	int r = 0;
	loc *l = NULL;
	if (!json_object_is_type(j, json_type_object)) {
		r = err(c, "a field location must be an object, not %s", jtype_name(j));
		goto out;
	}
	l = tio_calloc(1, sizeof(*l));
	if (!l) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	l->next = c->locs; /* owned by the parser from now on */
	c->locs = l;
	l->frag = c->frag;
	l->origin = -1;
	l->jpath = tio_strdup(tio_buf_cstr(&c->jpath));
	if (!l->jpath) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	const char *origin;
	if ((r = get_str(c, j, "origin", false, &origin)))
		goto out;
	if (origin) {
		for (int s = 0; s < TIO_NSCOPES; s++)
			if (!strcmp(origin, scope_names[s]))
				l->origin = s;
		if (l->origin < 0) {
			size_t m2 = push_key(c, "origin");
			r = err(c, "unknown field location origin '%s'", origin);
			pop(c, m2);
			goto out;
		}
	}
	json_object *path = prop(j, "path");
	if (!path) {
		r = err(c, "missing property 'path'");
		goto out;
	}
	size_t m2 = push_key(c, "path");
	size_t n = json_object_is_type(path, json_type_array) ? json_object_array_length(path) : 0;
	if (n == 0) {
		r = err(c, "a field location path must be a non-empty array of strings and nulls");
		pop(c, m2);
		goto out;
	}
	l->elems = tio_calloc(n, sizeof(char *));
	if (!l->elems) {
		r = TIO_ERR_NOMEM;
		pop(c, m2);
		goto out;
	}
	l->n = (uint32_t)n;
	for (size_t i = 0; i < n && !r; i++) {
		json_object *e = json_object_array_get_idx(path, i);
		size_t m3 = push_idx(c, i);
		if (!e) {
			if (i == n - 1)
				r = err(c, "a field location path must not end with null");
		} else if (json_object_is_type(e, json_type_string)) {
			if (!(l->elems[i] = tio_strdup(json_object_get_string(e))))
				r = TIO_ERR_NOMEM;
		} else {
			r = err(c, "a field location path element must be a string or null, not %s", jtype_name(e));
		}
		pop(c, m3);
	}
	pop(c, m2);
out:
	pop(c, mk);
	if (!r)
		*out = l;
	return r;
}

static void locs_free(loc *l)
{
	while (l) {
		loc *n = l->next;
		for (uint32_t i = 0; i < l->n; i++)
			free(l->elems[i]);
		free(l->elems);
		free(l->jpath);
		free(l->rflags);
		free(l);
		l = n;
	}
}

/* ---------------------------------------------------------------- field classes */

static int parse_fc(ctx *c, json_object *j, tio_fc **out);

static const alias *find_alias(ctx *c, const char *name)
{
	uint32_t i = ctf_nidx_find(&c->alias_idx, c->aliases, sizeof(alias), (uint32_t)c->naliases, name,
				   strlen(name));
	return i == CTF_NIDX_NONE ? NULL : &c->aliases[i];
}

/* The field class of property `key` of `o` (may be an alias name). */
static int parse_fc_prop(ctx *c, json_object *o, const char *key, bool required, tio_fc **out)
{
	json_object *j = prop(o, key);
	*out = NULL;
	if (!j) {
		if (required)
			return err(c, "missing property '%s'", key);
		return 0;
	}
	size_t mk = push_key(c, key);
	int r = parse_fc(c, j, out);
	pop(c, mk);
	return r;
}

static int parse_roles(ctx *c, json_object *o, tio_fc *fc, bool allowed)
{
	json_object *j = prop(o, "roles");
	if (!j)
		return 0;
	size_t mk = push_key(c, "roles");
	int r = 0;
	if (!allowed) {
		r = err(c, "roles are only allowed on unsigned integer and static-length BLOB field classes");
		goto out;
	}
	if (!json_object_is_type(j, json_type_array)) {
		r = err(c, "'roles' must be an array of strings, not %s", jtype_name(j));
		goto out;
	}
	static const struct {
		const char *name;
		enum tio_role role;
	} roles[] = {
		/* default-clock-timestamp becomes EVENT_TS in an event record header (see resolve) */
		{"packet-magic-number", TIO_ROLE_MAGIC},
		{"metadata-stream-uuid", TIO_ROLE_METADATA_UUID},
		{"data-stream-class-id", TIO_ROLE_STREAM_CLASS_ID},
		{"data-stream-id", TIO_ROLE_STREAM_ID},
		{"packet-total-length", TIO_ROLE_PACKET_SIZE},
		{"packet-content-length", TIO_ROLE_CONTENT_SIZE},
		{"default-clock-timestamp", TIO_ROLE_BEGIN_TS},
		{"packet-end-default-clock-timestamp", TIO_ROLE_END_TS},
		{"discarded-event-record-counter-snapshot", TIO_ROLE_DISCARDED},
		{"packet-sequence-number", TIO_ROLE_SEQ_NUM},
		{"event-record-class-id", TIO_ROLE_EVENT_CLASS_ID},
	};
	size_t n = json_object_array_length(j);
	for (size_t i = 0; i < n && !r; i++) {
		json_object *e = json_object_array_get_idx(j, i);
		size_t m2 = push_idx(c, i);
		if (!json_object_is_type(e, json_type_string)) {
			r = err(c, "a role must be a string, not %s", jtype_name(e));
		} else {
			const char *s = json_object_get_string(e);
			int role = -1;
			for (size_t k = 0; k < TIO_ARRAY_LEN(roles); k++)
				if (!strcmp(s, roles[k].name))
					role = (int)roles[k].role;
			if (role < 0)
				r = err(c, "unknown role '%s'", s);
			else if (fc->role && fc->role != (uint32_t)role)
				r = err_st(c, TIO_ERR_UNSUPPORTED, "a field class with more than one role ('%s' and another) is not supported", s);
			else
				fc->role = (uint32_t)role;
		}
		pop(c, m2);
	}
out:
	pop(c, mk);
	return r;
}

static int parse_byte_order(ctx *c, json_object *o, uint8_t *bo, bool *rev)
{
	const char *s;
	int r = get_str(c, o, "byte-order", true, &s);
	if (r)
		return r;
	size_t mk = push_key(c, "byte-order");
	if (!strcmp(s, "little-endian"))
		*bo = TIO_LE;
	else if (!strcmp(s, "big-endian"))
		*bo = TIO_BE;
	else
		r = err(c, "byte order must be \"little-endian\" or \"big-endian\", not \"%s\"", s);
	pop(c, mk);
	if (r)
		return r;
	/* bit order: the default follows the byte order (LE: first-to-last, BE: last-to-first) */
	*rev = false;
	if ((r = get_str(c, o, "bit-order", false, &s)) || !s)
		return r;
	mk = push_key(c, "bit-order");
	if (!strcmp(s, "first-to-last"))
		*rev = *bo == TIO_BE;
	else if (!strcmp(s, "last-to-first"))
		*rev = *bo == TIO_LE;
	else
		r = err(c, "bit order must be \"first-to-last\" or \"last-to-first\", not \"%s\"", s);
	pop(c, mk);
	return r;
}

static int parse_base(ctx *c, json_object *o, uint8_t *base)
{
	uint64_t b;
	int r = get_uint(c, o, "preferred-display-base", false, 10, &b);
	if (r)
		return r;
	if (b != 2 && b != 8 && b != 10 && b != 16) {
		size_t mk = push_key(c, "preferred-display-base");
		r = err(c, "preferred display base must be 2, 8, 10 or 16 (got %llu)", (unsigned long long)b);
		pop(c, mk);
		return r;
	}
	*base = (uint8_t)b;
	return 0;
}

static int parse_encoding(ctx *c, json_object *o, tio_fc *fc)
{
	const char *s;
	int r = get_str(c, o, "encoding", false, &s);
	fc->s.encoding = TIO_ENC_UTF8;
	fc->s.byte_order = TIO_LE;
	if (r || !s)
		return r;
	static const struct {
		const char *name;
		uint8_t enc, bo;
	} encs[] = {
		{"utf-8", TIO_ENC_UTF8, TIO_LE},	{"utf-16be", TIO_ENC_UTF16, TIO_BE},
		{"utf-16le", TIO_ENC_UTF16, TIO_LE}, {"utf-32be", TIO_ENC_UTF32, TIO_BE},
		{"utf-32le", TIO_ENC_UTF32, TIO_LE},
	};
	for (size_t i = 0; i < TIO_ARRAY_LEN(encs); i++)
		if (!strcmp(s, encs[i].name)) {
			fc->s.encoding = encs[i].enc;
			fc->s.byte_order = encs[i].bo;
			return 0;
		}
	size_t mk = push_key(c, "encoding");
	r = err(c, "unknown string encoding \"%s\"", s);
	pop(c, mk);
	return r;
}

static int parse_media_type(ctx *c, json_object *o, tio_fc *fc)
{
	const char *s;
	int r = get_str(c, o, "media-type", false, &s);
	if (r)
		return r;
	fc->s.media_type = tio_strdup(s ? s : "application/octet-stream");
	return fc->s.media_type ? 0 : TIO_ERR_NOMEM;
}

/* Fixed-length bit arrays and everything built on them. */
static int parse_fl(ctx *c, json_object *o, const char *type, tio_fc **out)
{
	bool is_float = !strcmp(type, "fixed-length-floating-point-number");
	bool is_bool = !strcmp(type, "fixed-length-boolean");
	bool is_bm = !strcmp(type, "fixed-length-bit-map");
	bool is_uint = !strcmp(type, "fixed-length-unsigned-integer");
	bool is_sint = !strcmp(type, "fixed-length-signed-integer");
	uint64_t len;
	uint8_t bo = TIO_LE;
	bool rev = false;
	uint32_t align = 0;
	int r;
	if ((r = get_uint(c, o, "length", true, 0, &len)) || (r = parse_byte_order(c, o, &bo, &rev)) ||
	    (r = get_align(c, o, "alignment", &align)))
		return r;
	/* integers may be wider than 64 bits (tio_val.big); the others may not */
	uint64_t max = (is_uint || is_sint) ? 65536 : is_float ? 65536 : 64;
	if (len == 0 || len > max) {
		size_t mk = push_key(c, "length");
		r = err(c, "length %llu out of range 1..%llu", (unsigned long long)len, (unsigned long long)max);
		pop(c, mk);
		return r;
	}
	tio_fc *fc;
	if (is_float) {
		uint32_t e, m;
		if (len == 16)
			e = 5, m = 11;
		else if (len == 32)
			e = 8, m = 24;
		else if (len == 64)
			e = 11, m = 53;
		else if (len == 128)
			e = 15, m = 113;
		else if (len > 128 && len % 32 == 0) {
			/* IEEE 754-2008 binary{k}: round(4 log2 k) - 13 exponent bits */
			e = (uint32_t)lround(4.0 * log2((double)len)) - 13;
			m = (uint32_t)len - e;
		} else {
			size_t mk = push_key(c, "length");
			r = err(c, "a floating point number must be 16, 32, 64, 128 or a multiple of 32 above 128 bits long (got %llu)",
				(unsigned long long)len);
			pop(c, mk);
			return r;
		}
		if (!(fc = tio_fc_new(TIO_FC_FLOAT)))
			return TIO_ERR_NOMEM;
		fc->f.exp_dig = e;
		fc->f.mant_dig = m;
		fc->f.byte_order = bo;
		fc->f.bit_rev = rev; /* its bits read as an integer's of that bit order, then taken as IEEE 754 */
		fc->align = align;
		*out = fc;
		return 0;
	}
	json_object *maps = (is_uint || is_sint) ? prop(o, "mappings") : NULL;
	tio_fc_kind kind = is_bool ? TIO_FC_BOOL : is_bm ? TIO_FC_BITMAP : maps ? TIO_FC_ENUM : TIO_FC_INT;
	if (!(fc = tio_fc_new(kind)))
		return TIO_ERR_NOMEM;
	*out = fc;
	fc->align = align;
	fc->i.size = (uint32_t)len;
	fc->i.is_signed = is_sint;
	fc->i.byte_order = bo;
	fc->i.bit_rev = rev;
	/* a plain bit array has no display base: babeltrace2 shows it in hexadecimal */
	fc->i.base = (is_uint || is_sint) ? 10 : 16;
	if ((is_uint || is_sint) && (r = parse_base(c, o, &fc->i.base)))
		return r;
	uint8_t fl;
	if (maps && (r = parse_mappings(c, maps, "mappings", is_sint, &fc->i.mappings, &fc->i.nmappings, &fl)))
		return r;
	if (is_bm) {
		json_object *flags = prop(o, "flags");
		if (!flags)
			return err(c, "missing property 'flags'");
		if ((r = parse_mappings(c, flags, "flags", false, &fc->i.mappings, &fc->i.nmappings, &fl)))
			return r;
		for (uint32_t i = 0; i < fc->i.nmappings; i++)
			for (uint32_t k = 0; k < fc->i.mappings[i].nranges; k++)
				if ((uint64_t)fc->i.mappings[i].ranges[k].hi >= len) {
					size_t mk = push_key(c, "flags");
					size_t mk2 = push_key(c, fc->i.mappings[i].label);
					r = err(c, "flag '%s': bit index %llu is outside the %llu-bit map",
						fc->i.mappings[i].label,
						(unsigned long long)fc->i.mappings[i].ranges[k].hi, (unsigned long long)len);
					pop(c, mk2);
					pop(c, mk);
					return r;
				}
	}
	return parse_roles(c, o, fc, is_uint);
}

static int parse_struct(ctx *c, json_object *o, tio_fc **out)
{
	tio_fc *fc = tio_fc_new(TIO_FC_STRUCT);
	if (!fc)
		return TIO_ERR_NOMEM;
	*out = fc;
	uint32_t minalign = 0;
	int r = get_align(c, o, "minimum-alignment", &minalign);
	if (r)
		return r;
	fc->align = minalign;
	json_object *mcs = prop(o, "member-classes");
	if (!mcs)
		return 0;
	size_t mk = push_key(c, "member-classes");
	if (!json_object_is_type(mcs, json_type_array)) {
		r = err(c, "'member-classes' must be an array, not %s", jtype_name(mcs));
		pop(c, mk);
		return r;
	}
	size_t n = json_object_array_length(mcs);
	fc->st.members = tio_calloc(n ? n : 1, sizeof(tio_member));
	nidx *x = n >= CTF_NIDX_LINEAR ? tio_calloc(1, sizeof(*x)) : NULL;
	if (!fc->st.members || (n >= CTF_NIDX_LINEAR && !x)) {
		pop(c, mk);
		return TIO_ERR_NOMEM;
	}
	if (x) {
		x->next = c->nidxs; /* owned by the parser */
		c->nidxs = x;
		fc->user = x;
	}
	for (size_t i = 0; i < n && !r; i++) {
		json_object *m = json_object_array_get_idx(mcs, i);
		size_t mk2 = push_idx(c, i);
		const char *name = NULL;
		if (!json_object_is_type(m, json_type_object))
			r = err(c, "a member class must be an object, not %s", jtype_name(m));
		else if (!(r = get_str(c, m, "name", true, &name)) && member_index(fc, name) >= 0)
			r = err(c, "duplicate member name '%s'", name);
		if (!r && !(r = check_ext(c, m))) {
			tio_member *mb = &fc->st.members[fc->st.nmembers];
			if (!(mb->name = tio_strdup(name)))
				r = TIO_ERR_NOMEM;
			else
				r = ctf_nidx_add(x ? &x->ix : NULL, fc->st.members, sizeof(tio_member),
						 ++fc->st.nmembers);
			if (!r && !(r = parse_fc_prop(c, m, "field-class", true, &mb->fc)) && mb->fc->align > fc->align)
				fc->align = mb->fc->align;
		}
		pop(c, mk2);
	}
	pop(c, mk);
	return r;
}

static int parse_array(ctx *c, json_object *o, bool dynamic, tio_fc **out)
{
	tio_fc *fc = tio_fc_new(dynamic ? TIO_FC_SEQUENCE : TIO_FC_ARRAY);
	if (!fc)
		return TIO_ERR_NOMEM;
	*out = fc;
	uint32_t minalign = 0;
	int r = get_align(c, o, "minimum-alignment", &minalign);
	if (r)
		return r;
	if (dynamic) {
		loc *l;
		if ((r = parse_loc(c, o, "length-field-location", &l)))
			return r;
		fc->user = l;
	} else if ((r = get_uint(c, o, "length", true, 0, &fc->a.length))) {
		return r;
	}
	if ((r = parse_fc_prop(c, o, "element-field-class", true, &fc->a.elem)))
		return r;
	fc->align = minalign > fc->a.elem->align ? minalign : fc->a.elem->align;
	return 0;
}

static int parse_optional(ctx *c, json_object *o, tio_fc **out)
{
	tio_fc *fc = tio_fc_new(TIO_FC_OPTIONAL);
	if (!fc)
		return TIO_ERR_NOMEM;
	*out = fc;
	loc *l;
	int r = parse_loc(c, o, "selector-field-location", &l);
	if (r)
		return r;
	fc->user = l;
	fc->v.options = tio_calloc(1, sizeof(tio_member));
	fc->v.ranges = tio_calloc(1, sizeof(tio_mapping));
	l->rflags = tio_calloc(1, 1);
	if (!fc->v.options || !fc->v.ranges || !l->rflags)
		return TIO_ERR_NOMEM;
	fc->v.noptions = 1;
	l->nopts = 1;
	json_object *rg = prop(o, "selector-field-ranges");
	if (rg) {
		size_t mk = push_key(c, "selector-field-ranges");
		r = parse_ranges(c, rg, "'selector-field-ranges'", &fc->v.ranges[0], &l->rflags[0]);
		pop(c, mk);
		if (r)
			return r;
		l->has_ranges = true;
	}
	return parse_fc_prop(c, o, "field-class", true, &fc->v.options[0].fc);
}

static int parse_variant(ctx *c, json_object *o, tio_fc **out)
{
	tio_fc *fc = tio_fc_new(TIO_FC_VARIANT);
	if (!fc)
		return TIO_ERR_NOMEM;
	*out = fc;
	loc *l;
	int r = parse_loc(c, o, "selector-field-location", &l);
	if (r)
		return r;
	fc->user = l;
	json_object *opts = prop(o, "options");
	if (!opts)
		return err(c, "missing property 'options'");
	size_t mk = push_key(c, "options");
	size_t n = json_object_is_type(opts, json_type_array) ? json_object_array_length(opts) : 0;
	if (n == 0) {
		r = err(c, "'options' must be a non-empty array");
		pop(c, mk);
		return r;
	}
	fc->v.options = tio_calloc(n, sizeof(tio_member));
	fc->v.ranges = tio_calloc(n, sizeof(tio_mapping));
	l->rflags = tio_calloc(n, 1);
	if (!fc->v.options || !fc->v.ranges || !l->rflags) {
		pop(c, mk);
		return TIO_ERR_NOMEM;
	}
	l->nopts = (uint32_t)n;
	l->has_ranges = true;
	ctf_nidx x = {0};
	for (size_t i = 0; i < n && !r; i++) {
		json_object *op = json_object_array_get_idx(opts, i);
		size_t mk2 = push_idx(c, i);
		const char *name = NULL;
		if (!json_object_is_type(op, json_type_object)) {
			r = err(c, "a variant option must be an object, not %s", jtype_name(op));
		} else if (!(r = get_str(c, op, "name", false, &name)) && name &&
			   ctf_nidx_find(&x, fc->v.options, sizeof(tio_member), fc->v.noptions, name,
					 strlen(name)) != CTF_NIDX_NONE) {
			r = err(c, "duplicate option name '%s'", name);
		}
		if (!r)
			r = check_ext(c, op);
		if (!r) {
			tio_member *mb = &fc->v.options[fc->v.noptions++];
			if (name && !(mb->name = tio_strdup(name)))
				r = TIO_ERR_NOMEM;
			if (!r)
				r = ctf_nidx_add(&x, fc->v.options, sizeof(tio_member), fc->v.noptions);
			json_object *rg = prop(op, "selector-field-ranges");
			if (!r && !rg)
				r = err(c, "missing property 'selector-field-ranges'");
			if (!r) {
				size_t mk3 = push_key(c, "selector-field-ranges");
				r = parse_ranges(c, rg, "'selector-field-ranges'", &fc->v.ranges[i], &l->rflags[i]);
				pop(c, mk3);
			}
			if (!r)
				r = parse_fc_prop(c, op, "field-class", true, &mb->fc);
		}
		pop(c, mk2);
	}
	ctf_nidx_free(&x);
	pop(c, mk);
	return r;
}

static int parse_fc_obj(ctx *c, json_object *j, tio_fc **out)
{
	const char *type;
	int r = get_str(c, j, "type", true, &type);
	if (r)
		return r;
	if (!strcmp(type, "fixed-length-bit-array") || !strcmp(type, "fixed-length-boolean") ||
	    !strcmp(type, "fixed-length-bit-map") || !strcmp(type, "fixed-length-unsigned-integer") ||
	    !strcmp(type, "fixed-length-signed-integer") || !strcmp(type, "fixed-length-floating-point-number")) {
		r = parse_fl(c, j, type, out);
	} else if (!strcmp(type, "variable-length-unsigned-integer") ||
		   !strcmp(type, "variable-length-signed-integer")) {
		bool sgn = type[16] == 's';
		tio_fc *fc = tio_fc_new(TIO_FC_VARINT);
		if (!(*out = fc))
			return TIO_ERR_NOMEM;
		fc->align = 8;
		fc->vi.is_signed = sgn;
		uint8_t fl;
		json_object *maps = prop(j, "mappings");
		if (!(r = parse_base(c, j, &fc->vi.base)) && maps)
			r = parse_mappings(c, maps, "mappings", sgn, &fc->vi.mappings, &fc->vi.nmappings, &fl);
		if (!r)
			r = parse_roles(c, j, fc, !sgn);
	} else if (!strcmp(type, "null-terminated-string") || !strcmp(type, "static-length-string") ||
		   !strcmp(type, "dynamic-length-string")) {
		tio_fc_kind k = type[0] == 'n' ? TIO_FC_STRING : type[0] == 's' ? TIO_FC_SSTRING : TIO_FC_DSTRING;
		tio_fc *fc = tio_fc_new(k);
		if (!(*out = fc))
			return TIO_ERR_NOMEM;
		fc->align = 8;
		r = parse_encoding(c, j, fc);
		if (!r && k == TIO_FC_SSTRING)
			r = get_uint(c, j, "length", true, 0, &fc->s.length);
		if (!r && k == TIO_FC_DSTRING) {
			loc *l;
			if (!(r = parse_loc(c, j, "length-field-location", &l)))
				fc->user = l;
		}
	} else if (!strcmp(type, "static-length-blob") || !strcmp(type, "dynamic-length-blob")) {
		bool dyn = type[0] == 'd';
		tio_fc *fc = tio_fc_new(dyn ? TIO_FC_DBLOB : TIO_FC_SBLOB);
		if (!(*out = fc))
			return TIO_ERR_NOMEM;
		fc->align = 8;
		r = parse_media_type(c, j, fc);
		if (!r && !dyn)
			r = get_uint(c, j, "length", true, 0, &fc->s.length);
		if (!r && dyn) {
			loc *l;
			if (!(r = parse_loc(c, j, "length-field-location", &l)))
				fc->user = l;
		}
		if (!r)
			r = parse_roles(c, j, fc, !dyn);
	} else if (!strcmp(type, "structure")) {
		r = parse_struct(c, j, out);
	} else if (!strcmp(type, "static-length-array") || !strcmp(type, "dynamic-length-array")) {
		r = parse_array(c, j, type[0] == 'd', out);
	} else if (!strcmp(type, "optional")) {
		r = parse_optional(c, j, out);
	} else if (!strcmp(type, "variant")) {
		r = parse_variant(c, j, out);
	} else {
		size_t mk = push_key(c, "type");
		r = err(c, "unknown field class type \"%s\"", type);
		pop(c, mk);
		return r;
	}
	if (!r && *out)
		r = check_ext(c, j);
	if (!r && *out)
		r = get_attrs(c, j, &(*out)->attrs);
	if (!r && *out && (*out)->attrs)
		r = traceio_attrs(j, *out);
	return r;
}

/*
 * A field class: an object, or the name of a field-class alias, which is
 * copied so that this use site owns (and later resolves) its own tree.
 * On error *out may hold a partial tree: the caller frees it.
 */
static int parse_fc(ctx *c, json_object *j, tio_fc **out)
{
	*out = NULL;
	if (json_object_is_type(j, json_type_string)) {
		const alias *a = find_alias(c, json_object_get_string(j));
		if (!a)
			return err(c, "no field-class alias named '%s' (an alias must be defined before it is used)",
				   json_object_get_string(j));
		if ((c->nodes += a->nodes) > MAX_FC_NODES)
			return err_st(c, TIO_ERR_LIMIT, "metadata describes more than %u field classes", MAX_FC_NODES);
		*out = tio_fc_copy(a->fc);
		return *out ? 0 : TIO_ERR_NOMEM;
	}
	if (!json_object_is_type(j, json_type_object))
		return err(c, "a field class must be an object or an alias name, not %s", jtype_name(j));
	if (c->depth >= MAX_FC_DEPTH)
		return err_st(c, TIO_ERR_LIMIT, "field classes nested deeper than %d", MAX_FC_DEPTH);
	if (++c->nodes > MAX_FC_NODES)
		return err_st(c, TIO_ERR_LIMIT, "metadata describes more than %u field classes", MAX_FC_NODES);
	c->depth++;
	int r = parse_fc_obj(c, j, out);
	c->depth--;
	return r;
}

/* A scope field class: must be a structure. */
static int parse_scope(ctx *c, json_object *o, const char *key, tio_fc **out)
{
	int r = parse_fc_prop(c, o, key, false, out);
	if (r || !*out)
		return r;
	if ((*out)->kind != TIO_FC_STRUCT) {
		size_t mk = push_key(c, key);
		r = err(c, "'%s' must be a structure field class", key);
		pop(c, mk);
	}
	return r;
}

/* ---------------------------------------------------------------- resolving locations and roles */

typedef struct rwalk {
	ctx *c;
	int scope;
	const tio_fc *roots[TIO_NSCOPES];
	const tio_stream_class *sc; /* NULL in the packet header */
	const tio_fc **stack;	    /* ancestors of the field class being visited, root first */
	const char **snames;	    /* the member name of each (NULL: the root, an option, an element) */
	size_t nstack, stack_cap, snames_cap;
	/*
	 * Field classes of this scope met so far (in pre-order), hashed by
	 * address: a search of all of them for each candidate of each location
	 * made 10^4 locations take seconds.
	 */
	const tio_fc **seen;
	size_t nseen, seen_cap; /* seen_cap: a power of two (or 0) */
	const char *jpath;	    /* JSON path of the scope property */
} rwalk;

static int vrerr(rwalk *w, const loc *l, int code, const char *fmt, va_list ap)
{
	tio_buf jp = {0};
	if (l) {
		tio_buf_adds(&jp, l->jpath);
		if (l->frag != w->c->frag)
			tio_buf_addf(&jp, " of fragment %u (field-class alias)", l->frag);
	} else {
		tio_buf_adds(&jp, w->jpath);
	}
	verr(w->c, code, tio_buf_cstr(&jp), fmt, ap);
	tio_buf_free(&jp);
	return code;
}

static int rerr(rwalk *w, const loc *l, const char *fmt, ...) TIO_PRINTF(3, 4);
static int rerr(rwalk *w, const loc *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vrerr(w, l, TIO_ERR_FORMAT, fmt, ap);
	va_end(ap);
	return r;
}

static int vrerr_code(rwalk *w, const loc *l, int code, const char *fmt, ...) TIO_PRINTF(4, 5);
static int vrerr_code(rwalk *w, const loc *l, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vrerr(w, l, code, fmt, ap);
	va_end(ap);
	return r;
}

/* A valid location that traceio cannot decode. */
static int rerr_unsup(rwalk *w, const loc *l, const char *fmt, ...) TIO_PRINTF(3, 4);
static int rerr_unsup(rwalk *w, const loc *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vrerr(w, l, TIO_ERR_UNSUPPORTED, fmt, ap);
	va_end(ap);
	return r;
}

static size_t ptr_hash(const tio_fc *fc, size_t cap)
{
	return (size_t)(((uint64_t)(uintptr_t)fc * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static bool was_seen(const rwalk *w, const tio_fc *fc)
{
	if (!w->seen_cap)
		return false;
	for (size_t h = ptr_hash(fc, w->seen_cap); w->seen[h]; h = (h + 1) & (w->seen_cap - 1))
		if (w->seen[h] == fc)
			return true;
	return false;
}

static int add_seen(rwalk *w, const tio_fc *fc)
{
	if (2 * (w->nseen + 1) > w->seen_cap) {
		size_t cap = w->seen_cap ? 2 * w->seen_cap : 64;
		const tio_fc **t = tio_calloc(cap, sizeof(*t));
		if (!t)
			return TIO_ERR_NOMEM;
		for (size_t i = 0; i < w->seen_cap; i++)
			if (w->seen[i]) {
				size_t h = ptr_hash(w->seen[i], cap);
				while (t[h])
					h = (h + 1) & (cap - 1);
				t[h] = w->seen[i];
			}
		free(w->seen);
		w->seen = t;
		w->seen_cap = cap;
	}
	size_t h = ptr_hash(fc, w->seen_cap);
	while (w->seen[h])
		h = (h + 1) & (w->seen_cap - 1);
	w->seen[h] = fc;
	w->nseen++;
	return 0;
}

/*
 * Collect the field classes a (normalized) name path leads to from structure `st`.
 * *left: the field classes the metadata's locations may still visit; 1 when
 * none is left.  Through a variant every option is visited, so N locations
 * through a variant of N options cost N^2 (and as many alternatives):
 * 10^4 each (2.3 MB of metadata) took 5 s and 860 MB.
 */
static int follow(const tio_fc *fc, char *const *names, uint32_t n, const tio_fc ***cands, size_t *ncand,
		  size_t *cap, uint64_t *left, int depth);

static int descend(const tio_fc *fc, char *const *names, uint32_t n, const tio_fc ***cands, size_t *ncand,
		   size_t *cap, uint64_t *left, int depth)
{
	if (depth > 2 * MAX_FC_DEPTH + 8)
		return 0;
	if (!*left)
		return 1;
	--*left;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		return follow(fc, names, n, cands, ncand, cap, left, depth + 1);
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		/* the selected option: any of them at class level */
		for (uint32_t i = 0; i < fc->v.noptions; i++) {
			int r = descend(fc->v.options[i].fc, names, n, cands, ncand, cap, left, depth + 1);
			if (r)
				return r;
		}
		return 0;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		/* the element being decoded */
		return descend(fc->a.elem, names, n, cands, ncand, cap, left, depth + 1);
	default:
		return 0;
	}
}

static int terminal(const tio_fc *fc, const tio_fc ***cands, size_t *ncand, size_t *cap, uint64_t *left, int depth)
{
	if (depth > 2 * MAX_FC_DEPTH + 8)
		return 0;
	if (!*left)
		return 1;
	--*left;
	if (fc->kind == TIO_FC_VARIANT || fc->kind == TIO_FC_OPTIONAL) {
		for (uint32_t i = 0; i < fc->v.noptions; i++) {
			int r = terminal(fc->v.options[i].fc, cands, ncand, cap, left, depth + 1);
			if (r)
				return r;
		}
		return 0;
	}
	if (tio_grow(cands, cap, *ncand + 1, sizeof(**cands)))
		return TIO_ERR_NOMEM;
	(*cands)[(*ncand)++] = fc;
	return 0;
}

static int follow(const tio_fc *st, char *const *names, uint32_t n, const tio_fc ***cands, size_t *ncand,
		  size_t *cap, uint64_t *left, int depth)
{
	int64_t i = member_index(st, names[0]);
	if (i < 0)
		return 0;
	const tio_fc *m = st->st.members[i].fc;
	if (n == 1)
		return terminal(m, cands, ncand, cap, left, depth);
	return descend(m, names + 1, n - 1, cands, ncand, cap, left, depth);
}

enum want { WANT_LENGTH, WANT_SELECTOR, WANT_OPT_SELECTOR };

/* A selector range as an unsigned interval (signed bounds shifted by 2^63), and its option. */
typedef struct orange {
	uint64_t lo, hi;
	uint32_t opt;
} orange;

static int orange_cmp(const void *a, const void *b)
{
	const orange *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int orange_opt_cmp(const void *a, const void *b)
{
	const orange *x = a, *y = b;
	if (x->opt != y->opt)
		return x->opt < y->opt ? -1 : 1;
	return orange_cmp(a, b);
}

static orange orange_of(const tio_range *rg, bool sgn, uint32_t opt)
{
	uint64_t b = sgn ? (uint64_t)1 << 63 : 0;
	return (orange){(uint64_t)rg->lo ^ b, (uint64_t)rg->hi ^ b, opt};
}

static bool orange_meet(orange a, orange x) { return a.lo <= x.hi && x.lo <= a.hi; }

/*
 * Whether two options of variant v have overlapping selector ranges: 1 and
 * the pair the search "for each range of each option, every range of every
 * later option" meets first (*i, *i2), 0 if none, or an error.  That search
 * was quadratic in the ranges (10^5 options: minutes); this sorts:
 *  1. each option's ranges merged into disjoint intervals, all sorted by
 *     their start: an interval meets another one (of another option) iff
 *     the ones starting before it reach it or the next one starts within
 *     it; *i is the least option of such an interval (the search's first
 *     option that meets a later one);
 *  2. the first range of *i that meets a range of a later option (those
 *     sorted by start, with the greatest end so far);
 *  3. the first later option that meets that range, in order.
 */
static int options_overlap_slow(const tio_fc *v, bool sgn, uint32_t *i, uint32_t *i2)
{
	for (uint32_t o = 0; o < v->v.noptions; o++)
		for (uint32_t k = 0; k < v->v.ranges[o].nranges; k++) {
			orange a = orange_of(&v->v.ranges[o].ranges[k], sgn, o);
			for (uint32_t o2 = o + 1; o2 < v->v.noptions; o2++)
				for (uint32_t k2 = 0; k2 < v->v.ranges[o2].nranges; k2++)
					if (orange_meet(a, orange_of(&v->v.ranges[o2].ranges[k2], sgn, o2))) {
						*i = o;
						*i2 = o2;
						return 1;
					}
		}
	return 0;
}

static int options_overlap(const tio_fc *v, bool sgn, uint32_t *i, uint32_t *i2)
{
	size_t n = 0;
	for (uint32_t o = 0; o < v->v.noptions; o++)
		n += v->v.ranges[o].nranges;
	if (n < 64)
		return options_overlap_slow(v, sgn, i, i2);
	orange *a = tio_calloc(n, sizeof(*a));
	uint64_t *maxhi = tio_calloc(n, sizeof(*maxhi));
	int r = 0;
	if (!a || !maxhi) {
		r = TIO_ERR_NOMEM;
		goto out;
	}
	size_t m = 0;
	for (uint32_t o = 0; o < v->v.noptions; o++)
		for (uint32_t k = 0; k < v->v.ranges[o].nranges; k++)
			a[m++] = orange_of(&v->v.ranges[o].ranges[k], sgn, o);
	/* 1 */
	qsort(a, n, sizeof(*a), orange_opt_cmp);
	size_t nm = 0;
	for (size_t k = 0; k < n; k++) {
		if (nm && a[nm - 1].opt == a[k].opt && a[k].lo <= a[nm - 1].hi) {
			if (a[k].hi > a[nm - 1].hi)
				a[nm - 1].hi = a[k].hi;
		} else {
			a[nm++] = a[k];
		}
	}
	qsort(a, nm, sizeof(*a), orange_cmp);
	uint64_t best = UINT64_MAX, reach = 0;
	for (size_t k = 0; k < nm; k++) {
		if ((k > 0 && reach >= a[k].lo) || (k + 1 < nm && a[k + 1].lo <= a[k].hi))
			if (a[k].opt < best)
				best = a[k].opt;
		if (k == 0 || a[k].hi > reach)
			reach = a[k].hi;
	}
	if (best == UINT64_MAX)
		goto out;
	*i = (uint32_t)best;
	/* 2 */
	m = 0;
	for (uint32_t o = *i + 1; o < v->v.noptions; o++)
		for (uint32_t k = 0; k < v->v.ranges[o].nranges; k++)
			a[m++] = orange_of(&v->v.ranges[o].ranges[k], sgn, o);
	qsort(a, m, sizeof(*a), orange_cmp);
	for (size_t k = 0; k < m; k++)
		maxhi[k] = k && maxhi[k - 1] > a[k].hi ? maxhi[k - 1] : a[k].hi;
	const tio_mapping *mi = &v->v.ranges[*i];
	for (uint32_t k = 0; k < mi->nranges; k++) {
		orange x = orange_of(&mi->ranges[k], sgn, *i);
		size_t lo = 0, hi = m; /* the later ranges starting at or before x.hi: [0, lo) */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (a[mid].lo <= x.hi)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || maxhi[lo - 1] < x.lo)
			continue;
		/* 3 */
		for (uint32_t o = *i + 1; o < v->v.noptions; o++)
			for (uint32_t k2 = 0; k2 < v->v.ranges[o].nranges; k2++)
				if (orange_meet(x, orange_of(&v->v.ranges[o].ranges[k2], sgn, o))) {
					*i2 = o;
					r = 1;
					goto out;
				}
	}
	r = options_overlap_slow(v, sgn, i, i2); /* not reached: step 1 found an overlap */
out:
	free(a);
	free(maxhi);
	return r;
}

static bool is_int_kind(const tio_fc *t)
{
	return t->kind == TIO_FC_INT || t->kind == TIO_FC_ENUM || t->kind == TIO_FC_VARINT;
}

static bool int_signed(const tio_fc *t) { return t->kind == TIO_FC_VARINT ? t->vi.is_signed : t->i.is_signed; }

/*
 * Resolve the location `l` of `req` (CTF2-SPEC-2.0 "Field location"):
 * an absolute location starts at the root of its origin scope, a relative
 * one at the structure that contains `req`.  Path elements are normalized
 * first: a null right after a name cancels it (["a", null, "b"] is ["b"]);
 * the remaining leading nulls each go up to the enclosing structure.  A
 * name picks a structure member; through a variant or optional any option
 * may hold the rest of the path, through an array its element.  Among
 * several candidates the first one that precedes `req` wins.
 */
static int resolve(rwalk *w, tio_fc *req, const loc *l, enum want want, tio_ref *ref)
{
	int r = 0;
	const char *what = want == WANT_LENGTH ? "length-field-location" : "selector-field-location";
	char **names = tio_calloc(l->n, sizeof(char *));
	const tio_fc **cands = NULL;
	size_t ncand = 0, cap = 0;
	tio_buf b = {0};
	if (!names)
		return TIO_ERR_NOMEM;
	uint32_t nn = 0, ups = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		if (l->elems[i])
			names[nn++] = l->elems[i];
		else if (nn > 0)
			nn--;
		else
			ups++;
	}
	if (nn == 0) {
		r = rerr(w, l, "%s: the path names no field", what);
		goto out;
	}
	int origin = l->origin >= 0 ? l->origin : w->scope;
	const tio_fc *st = NULL;
	size_t kst = 0; /* st's place in w->stack (relative locations) */
	if (l->origin >= 0) {
		if (ups) {
			r = rerr(w, l, "%s: the path goes above the root of the %s scope", what, scope_names[origin]);
			goto out;
		}
		if (origin > w->scope) {
			r = rerr(w, l, "%s: origin %s comes after the %s scope that holds the field", what,
				 scope_names[origin], scope_names[w->scope]);
			goto out;
		}
		st = w->roots[origin];
		if (!st) {
			r = rerr(w, l, "%s: there is no %s field class here", what, scope_names[origin]);
			goto out;
		}
	} else {
		/* the innermost structure that contains req, then one more per leading null */
		size_t k = w->nstack;
		uint32_t need = ups + 1;
		while (k > 0 && need > 0) {
			k--;
			if (w->stack[k]->kind == TIO_FC_STRUCT && --need == 0) {
				st = w->stack[k];
				kst = k;
			}
		}
		if (!st) {
			r = rerr(w, l, "%s: the path goes above the root of the %s scope", what, scope_names[w->scope]);
			goto out;
		}
	}
	if ((r = follow(st, names, nn, &cands, &ncand, &cap, &w->c->loc_visits, 0)) > 0)
		r = vrerr_code(w, l, TIO_ERR_LIMIT, "%s: field locations visit more than %u field classes in all", what,
			       MAX_LOC_VISITS);
	if (r)
		goto out;
	/* prefer what precedes req: in an earlier scope, everything does */
	const tio_fc *t = NULL;
	for (size_t i = 0; i < ncand && !t; i++)
		if (origin < w->scope || was_seen(w, cands[i]))
			t = cands[i];
	if (!t) {
		for (uint32_t i = 0; i < nn; i++)
			tio_buf_addf(&b, "%s%s", i ? "/" : "", names[i]);
		if (ncand == 0)
			r = rerr(w, l, "%s: no field at '%s' in the %s scope", what, tio_buf_cstr(&b), scope_names[origin]);
		else
			r = rerr(w, l, "%s: the field at '%s' does not come before the field that needs it", what,
				 tio_buf_cstr(&b));
		goto out;
	}
	/*
	 * The other candidates that precede req: the path designates a different
	 * field in each option of a variant it goes through (yactfr
	 * pass-dl-array-multi-len); whichever was decoded gives the value.
	 */
	size_t nalts = 0;
	for (size_t i = 0; i < ncand; i++) {
		/* no candidate comes twice: follow() goes down a tree, each node once */
		if (cands[i] != t && (origin < w->scope || was_seen(w, cands[i])))
			cands[nalts++] = cands[i]; /* in place: nalts <= i */
	}
	for (size_t i = 0; i <= nalts; i++) {
		const tio_fc *c = i < nalts ? cands[i] : t;
		if (c == req) {
			r = rerr(w, l, "%s: a field cannot refer to itself", what);
			goto out;
		}
		/* what the target may be */
		bool ok = false;
		if (want == WANT_LENGTH)
			ok = is_int_kind(c) && !int_signed(c);
		else if (want == WANT_SELECTOR)
			ok = is_int_kind(c);
		else
			ok = is_int_kind(c) || c->kind == TIO_FC_BOOL;
		if (!ok) {
			r = rerr(w, l, "%s: the target must be %s", what,
				 want == WANT_LENGTH ? "an unsigned integer" :
				 want == WANT_SELECTOR ? "an integer" : "a boolean or an integer");
			goto out;
		}
		/* one selector table for every target */
		if (want != WANT_LENGTH && i < nalts &&
		    ((c->kind == TIO_FC_BOOL) != (t->kind == TIO_FC_BOOL) ||
		     (c->kind != TIO_FC_BOOL && int_signed(c) != int_signed(t)))) {
			r = rerr_unsup(w, l, "%s: the path designates selectors of different types or signedness "
				       "in different options (traceio decodes one selector type)",
				       what);
			goto out;
		}
	}
	/* selector ranges against the selector's signedness */
	if (want != WANT_LENGTH) {
		if (t->kind == TIO_FC_BOOL) {
			/* ranges mean nothing with a boolean selector: dropped */
			tio_mapping *rg = req->v.ranges;
			for (uint32_t i = 0; rg && i < req->v.noptions; i++)
				free(rg[i].ranges);
			free(rg);
			req->v.ranges = NULL;
		} else {
			if (want == WANT_OPT_SELECTOR && !l->has_ranges) {
				r = rerr(w, l, "an optional with an integer selector needs 'selector-field-ranges'");
				goto out;
			}
			for (uint32_t i = 0; i < l->nopts; i++)
				if (!int_signed(t) ? (l->rflags[i] & 1) : (l->rflags[i] & 2)) {
					r = rerr(w, l, "option %u: selector-field-ranges: %s", i,
						 !int_signed(t) ? "negative bound with an unsigned selector"
								: "bound above INT64_MAX with a signed selector");
					goto out;
				}
			if (want == WANT_SELECTOR) {
				/* options must not overlap */
				uint32_t i, i2;
				if ((r = options_overlap(req, int_signed(t), &i, &i2)) > 0)
					r = rerr(w, l, "options %u and %u have overlapping selector-field-ranges", i, i2);
				if (r)
					goto out;
			}
		}
	}
	/*
	 * "origin/a/b": the member names from the root to t, which are those
	 * from the root to st (the stack's), then the path's (options and
	 * elements have none).  A search of the scope for t made 10^4
	 * locations take seconds.
	 */
	tio_buf_adds(&b, scope_names[origin]);
	for (size_t k = 1; l->origin < 0 && k <= kst; k++)
		if (w->snames[k])
			tio_buf_addf(&b, "/%s", w->snames[k]);
	for (uint32_t i = 0; i < nn; i++)
		tio_buf_addf(&b, "/%s", names[i]);
	free(ref->path);
	ref->path = tio_strdup(tio_buf_cstr(&b));
	ref->target = t;
	free((void *)ref->alts);
	ref->alts = NULL;
	ref->nalts = 0;
	if (nalts) {
		ref->alts = tio_calloc(nalts, sizeof(*ref->alts));
		if (ref->alts) {
			memcpy((void *)ref->alts, cands, nalts * sizeof(*ref->alts));
			ref->nalts = (uint32_t)nalts;
		}
	}
	if (!ref->path || (nalts && !ref->alts))
		r = TIO_ERR_NOMEM;
out:
	free(names);
	free(cands);
	tio_buf_free(&b);
	return r;
}

/* Which roles each scope may hold (CTF2-SPEC-2.0, roles of each fragment's scopes). */
static bool role_allowed(int scope, uint32_t role)
{
	switch (scope) {
	case TIO_SCOPE_PKT_HEADER:
		return role == TIO_ROLE_MAGIC || role == TIO_ROLE_METADATA_UUID || role == TIO_ROLE_STREAM_CLASS_ID ||
		       role == TIO_ROLE_STREAM_ID;
	case TIO_SCOPE_PKT_CTX:
		return role == TIO_ROLE_PACKET_SIZE || role == TIO_ROLE_CONTENT_SIZE || role == TIO_ROLE_BEGIN_TS ||
		       role == TIO_ROLE_END_TS || role == TIO_ROLE_DISCARDED || role == TIO_ROLE_SEQ_NUM;
	case TIO_SCOPE_EV_HEADER:
		return role == TIO_ROLE_EVENT_CLASS_ID || role == TIO_ROLE_BEGIN_TS;
	default:
		return false;
	}
}

static const char *role_name(uint32_t role)
{
	switch (role) {
	case TIO_ROLE_MAGIC: return "packet-magic-number";
	case TIO_ROLE_METADATA_UUID: return "metadata-stream-uuid";
	case TIO_ROLE_STREAM_CLASS_ID: return "data-stream-class-id";
	case TIO_ROLE_STREAM_ID: return "data-stream-id";
	case TIO_ROLE_PACKET_SIZE: return "packet-total-length";
	case TIO_ROLE_CONTENT_SIZE: return "packet-content-length";
	case TIO_ROLE_BEGIN_TS: return "default-clock-timestamp";
	case TIO_ROLE_END_TS: return "packet-end-default-clock-timestamp";
	case TIO_ROLE_DISCARDED: return "discarded-event-record-counter-snapshot";
	case TIO_ROLE_SEQ_NUM: return "packet-sequence-number";
	case TIO_ROLE_EVENT_CLASS_ID: return "event-record-class-id";
	default: return "?";
	}
}

static int walk(rwalk *w, tio_fc *fc, const char *name, int depth)
{
	int r = 0;
	if (depth > 2 * MAX_FC_DEPTH + 8)
		return rerr(w, NULL, "field classes nested too deep");
	if (tio_grow(&w->stack, &w->stack_cap, w->nstack + 1, sizeof(*w->stack)) ||
	    tio_grow(&w->snames, &w->snames_cap, w->nstack + 1, sizeof(*w->snames)))
		return TIO_ERR_NOMEM;
	w->snames[w->nstack] = name;
	w->stack[w->nstack++] = fc;
	if (fc->role) {
		if (!role_allowed(w->scope, fc->role)) {
			r = rerr(w, NULL, "role '%s' is not allowed in the %s scope", role_name(fc->role),
				 scope_names[w->scope]);
			goto out;
		}
		if (fc->role == TIO_ROLE_BEGIN_TS || fc->role == TIO_ROLE_END_TS) {
			if (!w->sc || w->sc->clock < 0) {
				r = rerr(w, NULL, "role '%s' needs a data stream class with a default clock class",
					 role_name(fc->role));
				goto out;
			}
			if (w->scope == TIO_SCOPE_EV_HEADER)
				fc->role = TIO_ROLE_EVENT_TS;
			if (fc->kind != TIO_FC_VARINT)
				fc->i.clock = w->sc->clock;
		}
		if (fc->role == TIO_ROLE_METADATA_UUID) {
			if (fc->s.length != 16) {
				r = rerr(w, NULL, "role 'metadata-stream-uuid' needs a 16-byte static-length BLOB");
				goto out;
			}
			if (!w->c->has_pre_uuid) {
				r = rerr(w, NULL, "role 'metadata-stream-uuid' but the preamble has no 'uuid'");
				goto out;
			}
		}
	}
	loc *l = fc->user;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		r = add_seen(w, fc);
		for (uint32_t i = 0; i < fc->st.nmembers && !r; i++)
			r = walk(w, fc->st.members[i].fc, fc->st.members[i].name, depth + 1);
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		if (fc->kind == TIO_FC_SEQUENCE && (r = resolve(w, fc, l, WANT_LENGTH, &fc->a.len)))
			break;
		if (!(r = add_seen(w, fc)))
			r = walk(w, fc->a.elem, NULL, depth + 1);
		break;
	case TIO_FC_DSTRING:
	case TIO_FC_DBLOB:
		r = resolve(w, fc, l, WANT_LENGTH, &fc->s.len);
		if (!r)
			r = add_seen(w, fc);
		break;
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		r = resolve(w, fc, l, fc->kind == TIO_FC_VARIANT ? WANT_SELECTOR : WANT_OPT_SELECTOR, &fc->v.sel);
		if (!r)
			r = add_seen(w, fc);
		for (uint32_t i = 0; i < fc->v.noptions && !r; i++)
			r = walk(w, fc->v.options[i].fc, NULL, depth + 1);
		break;
	default:
		r = add_seen(w, fc);
		break;
	}
out:
	w->nstack--;
	return r;
}

static int resolve_scope(ctx *c, rwalk *w, int scope, tio_fc *root, const char *key)
{
	if (!root)
		return 0;
	size_t mk = push_key(c, key);
	w->scope = scope;
	w->nstack = w->nseen = 0;
	if (w->seen_cap)
		memset(w->seen, 0, w->seen_cap * sizeof(*w->seen));
	w->jpath = tio_buf_cstr(&c->jpath);
	int r = walk(w, root, NULL, 0);
	pop(c, mk);
	return r;
}

static void rwalk_free(rwalk *w)
{
	free(w->stack);
	free(w->snames);
	free(w->seen);
}

/* fc->user pointed at parse-time locations: the tree must not keep them. */
static void clear_user(tio_fc *fc, int depth)
{
	if (!fc || depth > 2 * MAX_FC_DEPTH + 8)
		return;
	fc->user = NULL;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++)
			clear_user(fc->st.members[i].fc, depth + 1);
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		clear_user(fc->a.elem, depth + 1);
		break;
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		for (uint32_t i = 0; i < fc->v.noptions; i++)
			clear_user(fc->v.options[i].fc, depth + 1);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- fragments */

static int parse_uuid(ctx *c, json_object *o, const char *key, uint8_t *uuid, bool *has)
{
	json_object *j = prop(o, key);
	*has = false;
	if (!j)
		return 0;
	size_t mk = push_key(c, key);
	int r = 0;
	if (!json_object_is_type(j, json_type_array) || json_object_array_length(j) != 16) {
		r = err(c, "a UUID must be an array of 16 integers (0..255)");
		goto out;
	}
	for (size_t i = 0; i < 16; i++) {
		json_object *e = json_object_array_get_idx(j, i);
		bool neg = false;
		uint64_t u = 0;
		if (json_object_is_type(e, json_type_int))
			jint(e, &neg, &u);
		if (!json_object_is_type(e, json_type_int) || neg || u > 255) {
			size_t m2 = push_idx(c, i);
			r = err(c, "a UUID byte must be an integer in 0..255");
			pop(c, m2);
			goto out;
		}
		uuid[i] = (uint8_t)u;
	}
	*has = true;
out:
	pop(c, mk);
	return r;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
static bool uuid_from_text(const char *s, uint8_t *out)
{
	if (!s || strlen(s) != 36)
		return false;
	int k = 0;
	for (int i = 0; i < 36;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
			i++;
			continue;
		}
		int v = 0;
		for (int h = 0; h < 2; h++, i++) {
			char ch = s[i];
			int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
				: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
			if (d < 0)
				return false;
			v = v * 16 + d;
		}
		out[k++] = (uint8_t)v;
	}
	return true;
}

static int frag_preamble(ctx *c, json_object *o)
{
	if (c->has_preamble)
		return err(c, "a second preamble fragment");
	c->has_preamble = true;
	uint64_t v;
	int r = get_uint(c, o, "version", true, 0, &v);
	if (r)
		return r;
	if (v != 2) {
		size_t mk = push_key(c, "version");
		r = err_st(c, TIO_ERR_UNSUPPORTED, "CTF version %llu: only CTF 2 is read here", (unsigned long long)v);
		pop(c, mk);
		return r;
	}
	if ((r = parse_uuid(c, o, "uuid", c->pre_uuid, &c->has_pre_uuid)))
		return r;
	if (c->has_pre_uuid) {
		memcpy(c->tc->uuid, c->pre_uuid, 16);
		c->tc->has_uuid = true;
	}
	json_object *e = prop(o, "extensions");
	if (e) {
		size_t mk = push_key(c, "extensions");
		if (!json_object_is_type(e, json_type_object)) {
			r = err(c, "'extensions' must be an object, not %s", jtype_name(e));
		} else {
			/* an enabled extension traceio does not know: the spec forbids reading on */
			json_object_object_foreach(e, ns, exts)
			{
				if (json_object_is_type(exts, json_type_object) && json_object_object_length(exts) > 0) {
					struct json_object_iterator it = json_object_iter_begin(exts);
					r = err_st(c, TIO_ERR_UNSUPPORTED,
						   "extension '%s' of namespace '%s' is enabled, but traceio supports no CTF 2 extension: the trace cannot be read",
						   json_object_iter_peek_name(&it), ns);
				} else if (!json_object_is_type(exts, json_type_object)) {
					r = err(c, "extensions of namespace '%s' must be an object", ns);
				}
				if (r)
					break;
			}
		}
		pop(c, mk);
	}
	char *attrs = NULL;
	r = r ? r : get_attrs(c, o, &attrs);
	free(attrs);
	return r;
}

static int frag_trace_class(ctx *c, json_object *o)
{
	if (c->has_tc)
		return err(c, "a second trace class fragment");
	if (c->has_sc)
		return err(c, "the trace class fragment must come before any data stream class fragment");
	c->has_tc = true;
	tio_trace_class *tc = c->tc;
	int r;
	const char *s;
	if ((r = get_str(c, o, "namespace", false, &s)) || (r = get_str(c, o, "name", false, &s)) ||
	    (r = get_str(c, o, "uid", false, &s)) || (r = check_ext(c, o)))
		return r;
	/* a trace class UUID when the preamble has none (CTF 1 reading of "uid") */
	if (s && !tc->has_uuid && uuid_from_text(s, tc->uuid))
		tc->has_uuid = true;
	char *attrs = NULL;
	if ((r = get_attrs(c, o, &attrs)))
		return r;
	free(attrs);
	json_object *env = prop(o, "environment");
	if (env) {
		size_t mk = push_key(c, "environment");
		if (!json_object_is_type(env, json_type_object)) {
			r = err(c, "'environment' must be an object, not %s", jtype_name(env));
		} else {
			size_t n = (size_t)json_object_object_length(env);
			tc->env = tio_calloc(n ? n : 1, sizeof(tio_kv));
			if (!tc->env)
				r = TIO_ERR_NOMEM;
			json_object_object_foreach(env, key, val)
			{
				if (r || tc->nenv >= n)
					break;
				tio_kv *kv = &tc->env[tc->nenv];
				size_t m2 = push_key(c, key);
				if (json_object_is_type(val, json_type_int)) {
					bool neg;
					uint64_t u;
					jint(val, &neg, &u);
					kv->is_int = true;
					kv->ival = (int64_t)u;
				} else if (json_object_is_type(val, json_type_string)) {
					if (!(kv->sval = tio_strdup(json_object_get_string(val))))
						r = TIO_ERR_NOMEM;
				} else {
					r = err(c, "an environment entry must be an integer or a string, not %s", jtype_name(val));
				}
				if (!r && !(kv->key = tio_strdup(key)))
					r = TIO_ERR_NOMEM;
				tc->nenv++;
				pop(c, m2);
			}
		}
		pop(c, mk);
		if (r)
			return r;
	}
	if ((r = parse_scope(c, o, "packet-header-field-class", &tc->pkt_header)))
		return r;
	rwalk w = {.c = c, .roots = {tc->pkt_header}};
	r = resolve_scope(c, &w, TIO_SCOPE_PKT_HEADER, tc->pkt_header, "packet-header-field-class");
	rwalk_free(&w);
	/* the trace's default byte order: the packet magic number's, if any */
	for (uint32_t i = 0; !r && tc->pkt_header && i < tc->pkt_header->st.nmembers; i++) {
		const tio_fc *m = tc->pkt_header->st.members[i].fc;
		if (m->role == TIO_ROLE_MAGIC)
			tc->byte_order = m->i.byte_order;
	}
	return r;
}

static int frag_clock(ctx *c, json_object *o)
{
	tio_trace_class *tc = c->tc;
	const char *id, *name, *desc, *uid, *ns;
	int r;
	if ((r = get_str(c, o, "id", true, &id)) || (r = get_str(c, o, "name", false, &name)) ||
	    (r = get_str(c, o, "description", false, &desc)) || (r = get_str(c, o, "uid", false, &uid)) ||
	    (r = get_str(c, o, "namespace", false, &ns)) || (r = check_ext(c, o)))
		return r;
	if (ctf_nidx_find(&c->clock_idx, c->clock_ids, sizeof(char *), tc->nclocks, id, strlen(id)) !=
	    CTF_NIDX_NONE) {
		size_t mk = push_key(c, "id");
		r = err(c, "duplicate clock class id '%s'", id);
		pop(c, mk);
		return r;
	}
	tio_clock *ck = tio_calloc(1, sizeof(*ck));
	if (!ck)
		return TIO_ERR_NOMEM;
	size_t cap = cap_of(tc->nclocks), cap2 = cap_of(tc->nclocks);
	char *idc = tio_strdup(id);
	if (!idc || tio_grow(&tc->clocks, &cap, tc->nclocks + 1, sizeof(*tc->clocks)) ||
	    tio_grow(&c->clock_ids, &cap2, tc->nclocks + 1, sizeof(char *))) {
		free(idc);
		free(ck);
		return TIO_ERR_NOMEM;
	}
	tc->clocks[tc->nclocks] = ck;
	c->clock_ids[tc->nclocks] = idc;
	tc->nclocks++;
	if ((r = ctf_nidx_add(&c->clock_idx, c->clock_ids, sizeof(char *), tc->nclocks)))
		return r;
	ck->name = tio_strdup(name ? name : id);
	ck->description = desc ? tio_strdup(desc) : NULL;
	if (!ck->name || (desc && !ck->description))
		return TIO_ERR_NOMEM;
	if ((r = get_uint(c, o, "frequency", true, 0, &ck->freq)))
		return r;
	if (ck->freq == 0) {
		size_t mk = push_key(c, "frequency");
		r = err(c, "frequency must be greater than 0");
		pop(c, mk);
		return r;
	}
	if ((r = get_uint(c, o, "precision", false, 0, &ck->precision)))
		return r;
	uint64_t acc;
	if ((r = get_uint(c, o, "accuracy", false, 0, &acc)))
		return r;
	json_object *off = prop(o, "offset-from-origin");
	if (off) {
		size_t mk = push_key(c, "offset-from-origin");
		if (!json_object_is_type(off, json_type_object)) {
			r = err(c, "'offset-from-origin' must be an object, not %s", jtype_name(off));
		} else {
			json_object *sec = prop(off, "seconds");
			if (sec && !json_object_is_type(sec, json_type_int)) {
				size_t m2 = push_key(c, "seconds");
				r = err(c, "'seconds' must be an integer, not %s", jtype_name(sec));
				pop(c, m2);
			} else if (sec) {
				ck->offset_s = json_object_get_int64(sec);
			}
			uint64_t cy = 0;
			if (!r && !(r = get_uint(c, off, "cycles", false, 0, &cy))) {
				if (cy > INT64_MAX) {
					size_t m2 = push_key(c, "cycles");
					r = err(c, "'cycles' too large");
					pop(c, m2);
				}
				ck->offset = (int64_t)cy;
			}
		}
		pop(c, mk);
		if (r)
			return r;
	}
	json_object *org = prop(o, "origin");
	if (org) {
		size_t mk = push_key(c, "origin");
		if (json_object_is_type(org, json_type_string)) {
			if (!strcmp(json_object_get_string(org), "unix-epoch"))
				ck->origin_unix = true;
			else
				r = err(c, "unknown clock origin \"%s\" (a custom origin is an object)",
					json_object_get_string(org));
		} else if (json_object_is_type(org, json_type_object)) {
			const char *on, *ou;
			if (!(r = get_str(c, org, "name", true, &on)))
				r = get_str(c, org, "uid", true, &ou);
			if (!r)
				r = get_str(c, org, "namespace", false, &on);
		} else {
			r = err(c, "'origin' must be \"unix-epoch\" or an object, not %s", jtype_name(org));
		}
		pop(c, mk);
		if (r)
			return r;
	}
	if (uid && uuid_from_text(uid, ck->uuid))
		ck->has_uuid = true;
	char *attrs = NULL;
	r = get_attrs(c, o, &attrs);
	free(attrs);
	return r;
}

static int frag_stream_class(ctx *c, json_object *o)
{
	tio_trace_class *tc = c->tc;
	c->has_sc = true;
	uint64_t id;
	int r = get_uint(c, o, "id", false, 0, &id);
	if (r)
		return r;
	if (sc_find(c, id)) {
		size_t mk = push_key(c, "id");
		r = err(c, "duplicate data stream class id %llu", (unsigned long long)id);
		pop(c, mk);
		return r;
	}
	tio_stream_class *sc = tio_calloc(1, sizeof(*sc));
	if (!sc)
		return TIO_ERR_NOMEM;
	if (tio_grow(&tc->scs, &c->scs_cap, tc->nscs + 1, sizeof(*tc->scs))) {
		free(sc);
		return TIO_ERR_NOMEM;
	}
	tc->scs[tc->nscs++] = sc;
	sc->id = id;
	sc->tc = tc;
	sc->clock = -1;
	if ((r = sc_add(c)))
		return r;
	const char *name, *clk, *tmp;
	if ((r = get_str(c, o, "name", false, &name)) || (r = get_str(c, o, "default-clock-class-id", false, &clk)) ||
	    (r = get_str(c, o, "namespace", false, &tmp)) || (r = get_str(c, o, "uid", false, &tmp)) ||
	    (r = check_ext(c, o)))
		return r;
	if (name && !(sc->name = tio_strdup(name)))
		return TIO_ERR_NOMEM;
	if (clk) {
		/* ids are unique: the one found is the last as well */
		uint32_t k = ctf_nidx_find(&c->clock_idx, c->clock_ids, sizeof(char *), tc->nclocks, clk,
					   strlen(clk));
		sc->clock = k == CTF_NIDX_NONE ? -1 : (int32_t)k;
		if (sc->clock < 0) {
			size_t mk = push_key(c, "default-clock-class-id");
			r = err(c, "no clock class with id '%s' before this fragment", clk);
			pop(c, mk);
			return r;
		}
	}
	char *attrs = NULL;
	if ((r = get_attrs(c, o, &attrs)))
		return r;
	free(attrs);
	if ((r = parse_scope(c, o, "packet-context-field-class", &sc->pkt_ctx)) ||
	    (r = parse_scope(c, o, "event-record-header-field-class", &sc->ev_header)) ||
	    (r = parse_scope(c, o, "event-record-common-context-field-class", &sc->ev_common_ctx)))
		return r;
	rwalk w = {.c = c, .sc = sc, .roots = {tc->pkt_header, sc->pkt_ctx, sc->ev_header, sc->ev_common_ctx}};
	if (!(r = resolve_scope(c, &w, TIO_SCOPE_PKT_CTX, sc->pkt_ctx, "packet-context-field-class")) &&
	    !(r = resolve_scope(c, &w, TIO_SCOPE_EV_HEADER, sc->ev_header, "event-record-header-field-class")))
		r = resolve_scope(c, &w, TIO_SCOPE_EV_COMMON_CTX, sc->ev_common_ctx,
				  "event-record-common-context-field-class");
	rwalk_free(&w);
	return r;
}

/* LTTng's log levels (lttng.org,2009 "log-level"), as CTF 1 numbers them. */
static int64_t lttng_loglevel(const char *s)
{
	static const char *const names[] = {
		"emergency",	 "alert",	  "critical",	     "error",	   "warning",
		"notice",	 "info",	  "debug:system",    "debug:program", "debug:process",
		"debug:module",	 "debug:unit",	  "debug:function",  "debug:line",    "debug",
	};
	for (size_t i = 0; i < TIO_ARRAY_LEN(names); i++)
		if (!strcmp(s, names[i]))
			return (int64_t)i;
	return INT64_MIN;
}

static int add_kv(tio_event_class *ec, const char *key, const char *val, size_t *cap)
{
	if (tio_grow(&ec->attrs, cap, ec->nattrs + 1, sizeof(tio_kv)))
		return TIO_ERR_NOMEM;
	tio_kv *kv = &ec->attrs[ec->nattrs];
	memset(kv, 0, sizeof(*kv));
	kv->key = tio_strdup(key);
	kv->sval = tio_strdup(val);
	if (!kv->key || !kv->sval) {
		free(kv->key);
		free(kv->sval);
		return TIO_ERR_NOMEM;
	}
	ec->nattrs++;
	return 0;
}

static int frag_event_class(ctx *c, json_object *o)
{
	tio_trace_class *tc = c->tc;
	uint64_t id, scid;
	int r;
	if ((r = get_uint(c, o, "id", false, 0, &id)) || (r = get_uint(c, o, "data-stream-class-id", false, 0, &scid)))
		return r;
	tio_stream_class *sc = sc_find(c, scid);
	if (!sc) {
		size_t mk = prop(o, "data-stream-class-id") ? push_key(c, "data-stream-class-id") : c->jpath.len;
		r = err(c, "no data stream class with id %llu before this fragment", (unsigned long long)scid);
		pop(c, mk);
		return r;
	}
	tio_event_class *ec = tio_calloc(1, sizeof(*ec));
	if (!ec)
		return TIO_ERR_NOMEM;
	size_t cap = cap_of(sc->necs);
	if (tio_grow(&sc->ecs, &cap, sc->necs + 1, sizeof(*sc->ecs))) {
		free(ec);
		return TIO_ERR_NOMEM;
	}
	sc->ecs[sc->necs++] = ec;
	ec->id = id;
	ec->sc = sc;
	ec->loglevel = INT64_MIN;
	ec->user = (void *)(uintptr_t)c->frag; /* for the duplicate id check, cleared after */
	const char *name, *ns, *uid;
	if ((r = get_str(c, o, "name", false, &name)) || (r = get_str(c, o, "namespace", false, &ns)) ||
	    (r = get_str(c, o, "uid", false, &uid)) || (r = check_ext(c, o)))
		return r;
	if (name && !(ec->name = tio_strdup(name)))
		return TIO_ERR_NOMEM;
	size_t kcap = 0;
	if ((ns && (r = add_kv(ec, "namespace", ns, &kcap))) || (uid && (r = add_kv(ec, "uid", uid, &kcap))))
		return r;
	char *attrs = NULL;
	if ((r = get_attrs(c, o, &attrs)))
		return r;
	if (attrs) {
		r = add_kv(ec, "attributes", attrs, &kcap);
		free(attrs);
		if (r)
			return r;
		json_object *lt = prop(prop(o, "attributes"), "lttng.org,2009");
		json_object *ll = lt && json_object_is_type(lt, json_type_object) ? prop(lt, "log-level") : NULL;
		json_object *emf = lt && json_object_is_type(lt, json_type_object) ? prop(lt, "emf-uri") : NULL;
		if (ll && json_object_is_type(ll, json_type_string))
			ec->loglevel = lttng_loglevel(json_object_get_string(ll));
		else if (ll && json_object_is_type(ll, json_type_int))
			ec->loglevel = json_object_get_int64(ll);
		if (emf && json_object_is_type(emf, json_type_string) &&
		    !(ec->emf_uri = tio_strdup(json_object_get_string(emf))))
			return TIO_ERR_NOMEM;
	}
	if ((r = parse_scope(c, o, "specific-context-field-class", &ec->spec_ctx)) ||
	    (r = parse_scope(c, o, "payload-field-class", &ec->payload)))
		return r;
	rwalk w = {.c = c,
		   .sc = sc,
		   .roots = {tc->pkt_header, sc->pkt_ctx, sc->ev_header, sc->ev_common_ctx, ec->spec_ctx, ec->payload}};
	if (!(r = resolve_scope(c, &w, TIO_SCOPE_EV_SPEC_CTX, ec->spec_ctx, "specific-context-field-class")))
		r = resolve_scope(c, &w, TIO_SCOPE_PAYLOAD, ec->payload, "payload-field-class");
	rwalk_free(&w);
	return r;
}

/* Field classes in the tree of fc (at most MAX_FC_NODES: each was counted when made). */
static uint64_t fc_count(const tio_fc *fc, int depth)
{
	uint64_t n = 1;
	if (!fc || depth > 2 * MAX_FC_DEPTH + 8)
		return 0;
	switch (fc->kind) {
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++)
			n += fc_count(fc->st.members[i].fc, depth + 1);
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		n += fc_count(fc->a.elem, depth + 1);
		break;
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		for (uint32_t i = 0; i < fc->v.noptions; i++)
			n += fc_count(fc->v.options[i].fc, depth + 1);
		break;
	default:
		break;
	}
	return n;
}

static int frag_alias(ctx *c, json_object *o)
{
	const char *name;
	int r = get_str(c, o, "name", true, &name);
	if (r)
		return r;
	if (find_alias(c, name)) {
		size_t mk = push_key(c, "name");
		r = err(c, "duplicate field-class alias name '%s'", name);
		pop(c, mk);
		return r;
	}
	if ((r = check_ext(c, o)))
		return r;
	tio_fc *fc;
	if ((r = parse_fc_prop(c, o, "field-class", true, &fc))) {
		tio_fc_free(fc);
		return r;
	}
	char *nm = tio_strdup(name);
	if (!nm || tio_grow(&c->aliases, &c->aliases_cap, c->naliases + 1, sizeof(alias))) {
		free(nm);
		tio_fc_free(fc);
		return TIO_ERR_NOMEM;
	}
	c->aliases[c->naliases++] = (alias){nm, fc, fc_count(fc, 0)};
	return ctf_nidx_add(&c->alias_idx, c->aliases, sizeof(alias), (uint32_t)c->naliases);
}

static int fragment(ctx *c, json_object *o)
{
	c->ftype = NULL;
	if (!json_object_is_type(o, json_type_object))
		return err(c, "a fragment must be a JSON object, not %s", jtype_name(o));
	const char *type;
	int r = get_str(c, o, "type", true, &type);
	if (r)
		return r;
	static const char *const types[] = {"preamble", "trace-class", "clock-class", "data-stream-class",
					    "event-record-class", "field-class-alias"};
	for (size_t i = 0; i < TIO_ARRAY_LEN(types); i++)
		if (!strcmp(type, types[i]))
			c->ftype = types[i];
	if (!c->ftype) {
		c->ftype = "?";
		size_t mk = push_key(c, "type");
		r = err(c, "unknown fragment type \"%s\"", type);
		pop(c, mk);
		return r;
	}
	if (c->frag == 1 && strcmp(type, "preamble"))
		return err(c, "the first fragment must be the preamble");
	switch (c->ftype[0]) {
	case 'p': return frag_preamble(c, o);
	case 't': return frag_trace_class(c, o);
	case 'c': return frag_clock(c, o);
	case 'd': return frag_stream_class(c, o);
	case 'e': return frag_event_class(c, o);
	default: return frag_alias(c, o);
	}
}

static int ec_cmp(const void *a, const void *b)
{
	const tio_event_class *x = *(tio_event_class *const *)a, *y = *(tio_event_class *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* After the last fragment: what the whole stream must satisfy. */
static int finish(ctx *c)
{
	tio_trace_class *tc = c->tc;
	c->at_end = true;
	if (!c->has_preamble)
		return err(c, "no preamble fragment");
	/*
	 * No data stream class is valid metadata (yactfr reads such traces: packets
	 * made of a header only); the CTF reader refuses them as babeltrace2 does,
	 * since no event can be decoded.
	 */
	for (uint32_t i = 0; i < tc->nscs; i++) {
		tio_stream_class *sc = tc->scs[i];
		if (sc->necs > 1)
			qsort(sc->ecs, sc->necs, sizeof(*sc->ecs), ec_cmp);
		for (uint32_t k = 1; k < sc->necs; k++)
			if (sc->ecs[k]->id == sc->ecs[k - 1]->id) {
				c->frag = (uint32_t)(uintptr_t)sc->ecs[k]->user;
				uint32_t other = (uint32_t)(uintptr_t)sc->ecs[k - 1]->user;
				if (other > c->frag)
					c->frag = other;
				c->ftype = "event-record-class";
				c->at_end = false;
				return err(c, "event record class id %llu is already used in data stream class %llu",
					   (unsigned long long)sc->ecs[k]->id, (unsigned long long)sc->id);
			}
		for (uint32_t k = 0; k < sc->necs; k++)
			sc->ecs[k]->user = NULL;
		tio_stream_class_sort(sc);
	}
	return 0;
}

static void clear_all_user(tio_trace_class *tc)
{
	clear_user(tc->pkt_header, 0);
	for (uint32_t i = 0; i < tc->nscs; i++) {
		tio_stream_class *sc = tc->scs[i];
		clear_user(sc->pkt_ctx, 0);
		clear_user(sc->ev_header, 0);
		clear_user(sc->ev_common_ctx, 0);
		for (uint32_t k = 0; k < sc->necs; k++) {
			sc->ecs[k]->user = NULL;
			clear_user(sc->ecs[k]->spec_ctx, 0);
			clear_user(sc->ecs[k]->payload, 0);
		}
	}
}

static bool all_space(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

/* One fragment's text (between two record separators) into a JSON value. */
static int parse_json(ctx *c, const char *p, size_t n, json_object **out)
{
	*out = NULL;
	if (n > INT32_MAX)
		return err_st(c, TIO_ERR_LIMIT, "fragment of %zu bytes is too large", n);
	json_tokener *tok = json_tokener_new_ex(MAX_JSON_DEPTH);
	if (!tok)
		return tio_err_oom();
	int flags = JSON_TOKENER_STRICT;
#ifdef JSON_TOKENER_VALIDATE_UTF8
	flags |= JSON_TOKENER_VALIDATE_UTF8;
#endif
	json_tokener_set_flags(tok, flags);
	json_object *o = json_tokener_parse_ex(tok, p, (int)n);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	int r = 0;
	if (!o && je == json_tokener_continue) {
		/* a number at the very end needs a delimiter: give it one */
		o = json_tokener_parse_ex(tok, " ", 1);
		je = json_tokener_get_error(tok);
		if (o)
			end = n;
	}
	if (!o) {
		if (je == json_tokener_continue)
			r = err(c, "incomplete JSON text");
		else if (je == json_tokener_error_depth)
			r = err_st(c, TIO_ERR_LIMIT, "JSON nested deeper than %d", MAX_JSON_DEPTH);
		else
			r = err(c, "invalid JSON at byte %zu of the fragment: %s", end, json_tokener_error_desc(je));
	} else if (end < n && !all_space(p + end, n - end)) {
		r = err(c, "unexpected text after the JSON value at byte %zu of the fragment", end);
	}
	json_tokener_free(tok);
	if (r)
		json_object_put(o);
	else
		*out = o;
	return r;
}

int tio_ctf2_parse(const char *text, size_t len, const char *name, tio_trace_class **out)
{
	ctx c = {.name = name ? name : "metadata", .loc_visits = MAX_LOC_VISITS};
	*out = NULL;
	c.tc = tio_calloc(1, sizeof(*c.tc));
	if (!c.tc)
		return TIO_ERR_NOMEM;
	int r = 0;
	size_t i = 0;
	/* anything before the first RS must be blank */
	const char *rs = memchr(text, 0x1e, len);
	size_t first = rs ? (size_t)(rs - text) : len;
	if (!all_space(text, first)) {
		c.frag = 1;
		c.ftype = "?";
		r = err(&c, "text before the first record separator (0x1E): not a CTF 2 metadata stream");
	}
	i = first;
	while (!r && i < len) {
		size_t start = i + 1;
		const char *nx = start < len ? memchr(text + start, 0x1e, len - start) : NULL;
		size_t stop = nx ? (size_t)(nx - text) : len;
		i = stop;
		if (all_space(text + start, stop - start))
			continue; /* an empty record: nothing to read */
		c.frag++;
		c.ftype = "?";
		pop(&c, 0);
		json_object *o;
		if ((r = parse_json(&c, text + start, stop - start, &o)))
			break;
		r = fragment(&c, o);
		json_object_put(o);
	}
	if (!r) {
		pop(&c, 0);
		r = finish(&c);
	}
	clear_all_user(c.tc);
	for (size_t k = 0; k < c.naliases; k++) {
		free(c.aliases[k].name);
		tio_fc_free(c.aliases[k].fc);
	}
	free(c.aliases);
	ctf_nidx_free(&c.alias_idx);
	ctf_nidx_free(&c.clock_idx);
	free(c.sc_slot);
	while (c.nidxs) {
		nidx *x = c.nidxs->next;
		ctf_nidx_free(&c.nidxs->ix);
		free(c.nidxs);
		c.nidxs = x;
	}
	for (uint32_t k = 0; c.clock_ids && k < c.tc->nclocks; k++)
		free(c.clock_ids[k]);
	free(c.clock_ids);
	locs_free(c.locs);
	tio_buf_free(&c.jpath);
	if (r) {
		if (r == TIO_ERR_NOMEM)
			tio_err_oom();
		tio_trace_class_free(c.tc);
		return r;
	}
	*out = c.tc;
	return 0;
}

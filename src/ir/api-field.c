/*
 * The public value API (include/traceio/field.h) over the model's flat
 * value arrays (tio_val, ir.h).  A tio_field is a tio_val, a
 * tio_field_class a tio_fc: nothing is copied or allocated.
 *
 * Values are stored in pre-order; a value's `end` is the index (in its
 * message's array) just past its subtree.  Walking from a field alone needs
 * the field's own index: a leaf's is its `end` - 1, so the index of any
 * value is found by going down its first children to a leaf (tio_val_index).
 */
#include <stdlib.h>
#include <string.h>

#include "traceio/field.h"
#include "ir/ir.h"

_Static_assert(TIO_FIELD_INT == (int)TIO_FC_INT && TIO_FIELD_OPTIONAL == (int)TIO_FC_OPTIONAL &&
		       TIO_FIELD_STRUCT == (int)TIO_FC_STRUCT && TIO_FIELD_DYNAMIC_BLOB == (int)TIO_FC_DBLOB,
	       "public field kinds follow tio_fc_kind");
_Static_assert(TIO_SCOPE_PACKET_HEADER == (int)TIO_SCOPE_PKT_HEADER && TIO_SCOPE_EVENT_PAYLOAD == (int)TIO_SCOPE_PAYLOAD &&
		       TIO_SCOPE_COUNT == (int)TIO_NSCOPES,
	       "public scopes follow enum tio_scope");

static const char *const kind_names[] = {
	"integer", "enumeration", "boolean", "bit map", "floating point number", "variable-length integer",
	"string", "static-length string", "dynamic-length string", "static-length BLOB", "dynamic-length BLOB",
	"structure", "static-length array", "dynamic-length array", "variant", "optional",
};

static const char *kind_name(const tio_fc *fc)
{
	return fc && (unsigned)fc->kind < TIO_ARRAY_LEN(kind_names) ? kind_names[fc->kind] : "?";
}

static int wrong(const tio_val *f, const char *what)
{
	if (!f)
		return tio_err_set(TIO_ERR_USAGE, "%s: no field (NULL)", what);
	return tio_err_set(TIO_ERR_USAGE, "%s: the field is a%s %s", what,
			   f->fc && (f->fc->kind == TIO_FC_INT || f->fc->kind == TIO_FC_ENUM || f->fc->kind == TIO_FC_ARRAY ||
				     f->fc->kind == TIO_FC_OPTIONAL)
				   ? "n"
				   : "",
			   kind_name(f->fc));
}

/* A text array decoded as one value (its characters, no element values). */
static bool is_text_val(const tio_val *v)
{
	return (v->fc->kind == TIO_FC_ARRAY || v->fc->kind == TIO_FC_SEQUENCE) && v->fc->a.text && v->n == 0 && v->v.s.p;
}

/* Does this value have children after it? (kind first: a leaf's `n` may be stale) */
static bool has_children(const tio_val *v)
{
	switch (v->fc->kind) {
	case TIO_FC_STRUCT:
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		return v->n > 0;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		return v->n > 0 && !is_text_val(v);
	default:
		return false;
	}
}

/* The value's index in its message's array (declared in ir.h: json.c uses it too). */
uint32_t tio_val_index(const tio_val *v)
{
	uint32_t depth = 0;
	while (has_children(v)) {
		v++;
		depth++;
	}
	return v->end - 1 - depth;
}

/* The k-th child of v (k < v->n). */
static const tio_val *child(const tio_val *v, uint64_t k)
{
	const tio_val *c = v + 1;
	if (!k)
		return c;
	const tio_val *base = v - tio_val_index(v);
	for (uint64_t i = 0; i < k; i++)
		c = base + c->end;
	return c;
}

/* ------------------------------------------------------------ values */

const tio_field_class *tio_field_get_class(const tio_field *f)
{
	return f ? f->fc : NULL;
}

int tio_field_kind(const tio_field *f)
{
	return f && f->fc ? (int)f->fc->kind : TIO_ERR_USAGE;
}

static bool is_intlike(const tio_fc *fc)
{
	return fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM || fc->kind == TIO_FC_BITMAP ||
	       fc->kind == TIO_FC_VARINT || fc->kind == TIO_FC_BOOL;
}

static bool int_signed(const tio_fc *fc)
{
	return fc->kind == TIO_FC_VARINT ? fc->vi.is_signed : fc->kind != TIO_FC_BOOL && fc->i.is_signed;
}

static bool int_wide(const tio_fc *fc)
{
	return fc->kind != TIO_FC_VARINT && fc->i.size > 64;
}

int tio_field_uint(const tio_field *f, uint64_t *out)
{
	if (!f || !is_intlike(f->fc))
		return wrong(f, "tio_field_uint");
	if (int_wide(f->fc))
		return tio_err_set(TIO_ERR_USAGE, "tio_field_uint: a %u-bit integer: read its bytes (tio_field_bytes)",
				   f->fc->i.size);
	if (int_signed(f->fc) && f->v.i < 0)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_uint: the signed value %lld is negative (tio_field_int)",
				   (long long)f->v.i);
	*out = f->v.u;
	return 0;
}

int tio_field_int(const tio_field *f, int64_t *out)
{
	if (!f || !is_intlike(f->fc))
		return wrong(f, "tio_field_int");
	if (int_wide(f->fc))
		return tio_err_set(TIO_ERR_USAGE, "tio_field_int: a %u-bit integer: read its bytes (tio_field_bytes)",
				   f->fc->i.size);
	if (!int_signed(f->fc) && f->v.u > (uint64_t)INT64_MAX)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_int: the unsigned value %llu is above INT64_MAX (tio_field_uint)",
				   (unsigned long long)f->v.u);
	*out = f->v.i;
	return 0;
}

int tio_field_double(const tio_field *f, double *out)
{
	if (!f || f->fc->kind != TIO_FC_FLOAT)
		return wrong(f, "tio_field_double");
	*out = f->v.d;
	return 0;
}

int tio_field_bool(const tio_field *f, bool *out)
{
	if (!f || f->fc->kind != TIO_FC_BOOL)
		return wrong(f, "tio_field_bool");
	*out = f->v.u != 0;
	return 0;
}

int tio_field_string(const tio_field *f, const char **p, size_t *len)
{
	if (!f)
		return wrong(f, "tio_field_string");
	const tio_fc *fc = f->fc;
	if (fc->kind == TIO_FC_STRING || fc->kind == TIO_FC_SSTRING || fc->kind == TIO_FC_DSTRING || is_text_val(f)) {
		const char *s = f->v.s.p ? f->v.s.p : "";
		size_t n = f->v.s.p ? (size_t)f->v.s.len : 0;
		bool utf8 = !((fc->kind == TIO_FC_STRING || fc->kind == TIO_FC_SSTRING || fc->kind == TIO_FC_DSTRING) &&
			      (fc->s.encoding == TIO_ENC_UTF16 || fc->s.encoding == TIO_ENC_UTF32));
		if (utf8) {
			const char *z = memchr(s, 0, n);
			if (z)
				n = (size_t)(z - s);
		}
		*p = s;
		*len = n;
		return 0;
	}
	return wrong(f, "tio_field_string");
}

int tio_field_bytes(const tio_field *f, const uint8_t **p, size_t *len)
{
	if (!f)
		return wrong(f, "tio_field_bytes");
	const tio_fc *fc = f->fc;
	if (fc->kind == TIO_FC_SBLOB || fc->kind == TIO_FC_DBLOB) {
		*p = (const uint8_t *)(f->v.s.p ? f->v.s.p : "");
		*len = f->v.s.p ? (size_t)f->v.s.len : 0;
		return 0;
	}
	if ((fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM) && fc->i.size > 64) {
		*p = f->v.big;
		*len = f->v.big ? (fc->i.size + 7) / 8 : 0;
		return 0;
	}
	return wrong(f, "tio_field_bytes");
}

static bool range_holds(const tio_range *r, uint64_t v, bool sgn)
{
	if (sgn)
		return (int64_t)v >= r->lo && (int64_t)v <= r->hi;
	return v >= (uint64_t)r->lo && v <= (uint64_t)r->hi;
}

static bool label_holds(const tio_fc *fc, const tio_mapping *m, uint64_t v)
{
	for (uint32_t k = 0; k < m->nranges; k++) {
		const tio_range *r = &m->ranges[k];
		if (fc->kind == TIO_FC_BITMAP) {
			for (uint64_t bit = (uint64_t)r->lo; bit <= (uint64_t)r->hi && bit < 64; bit++)
				if (v >> bit & 1)
					return true;
		} else if (range_holds(r, v, fc->kind == TIO_FC_VARINT ? fc->vi.is_signed : fc->i.is_signed)) {
			return true;
		}
	}
	return false;
}

static void mappings_of(const tio_fc *fc, const tio_mapping **m, uint32_t *n)
{
	*m = NULL;
	*n = 0;
	if (fc->kind == TIO_FC_ENUM || fc->kind == TIO_FC_BITMAP) {
		*m = fc->i.mappings;
		*n = fc->i.nmappings;
	} else if (fc->kind == TIO_FC_VARINT) {
		*m = fc->vi.mappings;
		*n = fc->vi.nmappings;
	}
}

const char *tio_field_label(const tio_field *f, size_t i)
{
	if (!f || !f->fc)
		return NULL;
	const tio_mapping *m;
	uint32_t n;
	mappings_of(f->fc, &m, &n);
	if (f->fc->kind != TIO_FC_VARINT && f->fc->i.size > 64)
		return NULL;
	for (uint32_t k = 0; k < n; k++)
		if (label_holds(f->fc, &m[k], f->v.u) && i-- == 0)
			return m[k].label;
	return NULL;
}

int tio_field_length(const tio_field *f, uint64_t *n)
{
	if (!f)
		return wrong(f, "tio_field_length");
	switch (f->fc->kind) {
	case TIO_FC_STRUCT:
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		*n = f->n;
		return 0;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		*n = is_text_val(f) ? f->v.s.len : f->n;
		return 0;
	default:
		return wrong(f, "tio_field_length");
	}
}

int tio_field_element(const tio_field *f, uint64_t i, const tio_field **out)
{
	if (!f || (f->fc->kind != TIO_FC_ARRAY && f->fc->kind != TIO_FC_SEQUENCE))
		return wrong(f, "tio_field_element");
	if (is_text_val(f))
		return tio_err_set(TIO_ERR_USAGE, "tio_field_element: a text array has no element values: read it with tio_field_string");
	if (i >= f->n)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_element: element %llu of an array of %u",
				   (unsigned long long)i, f->n);
	*out = child(f, i);
	return 0;
}

int tio_field_member(const tio_field *f, uint64_t i, const tio_field **out)
{
	if (!f || f->fc->kind != TIO_FC_STRUCT)
		return wrong(f, "tio_field_member");
	if (i >= f->n)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_member: member %llu of a structure of %u",
				   (unsigned long long)i, f->n);
	*out = child(f, i);
	return 0;
}

/* A member name as given matches the model's name, or its CTF 1.8 escaped form "_name". */
static bool name_is(const char *model, const char *want, size_t wlen)
{
	if (!model)
		return false;
	if (strlen(model) == wlen && !memcmp(model, want, wlen))
		return true;
	return model[0] == '_' && strlen(model + 1) == wlen && !memcmp(model + 1, want, wlen);
}

static int64_t member_index(const tio_fc *fc, const char *name, size_t len)
{
	for (uint32_t k = 0; k < fc->st.nmembers; k++) /* exact names first */
		if (fc->st.members[k].name && strlen(fc->st.members[k].name) == len &&
		    !memcmp(fc->st.members[k].name, name, len))
			return k;
	for (uint32_t k = 0; k < fc->st.nmembers; k++)
		if (name_is(fc->st.members[k].name, name, len))
			return k;
	return -1;
}

static int64_t option_index(const tio_fc *fc, const char *name, size_t len)
{
	for (uint32_t k = 0; k < fc->v.noptions; k++)
		if (fc->v.options[k].name && strlen(fc->v.options[k].name) == len && !memcmp(fc->v.options[k].name, name, len))
			return k;
	for (uint32_t k = 0; k < fc->v.noptions; k++)
		if (name_is(fc->v.options[k].name, name, len))
			return k;
	return -1;
}

int tio_field_member_by_name(const tio_field *f, const char *name, const tio_field **out)
{
	if (!f || f->fc->kind != TIO_FC_STRUCT)
		return wrong(f, "tio_field_member_by_name");
	int64_t k = name ? member_index(f->fc, name, strlen(name)) : -1;
	if (k < 0 || (uint64_t)k >= f->n)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_member_by_name: no member '%s'", name ? name : "(NULL)");
	*out = child(f, (uint64_t)k);
	return 0;
}

/*
 * The member or element after `child` (one of parent's children): linear
 * reading of all of them, where tio_field_member/element(i) walk i siblings.
 */
int tio_field_next_child(const tio_field *parent, const tio_field *child, const tio_field **out)
{
	if (!parent || !child || !out)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_next_child: no parent, child or output");
	if (!has_children(parent))
		return tio_err_set(TIO_ERR_USAGE, "tio_field_next_child: the parent has no member or element values");
	uint32_t pi = tio_val_index(parent);
	const tio_val *base = parent - pi;
	uint32_t ci = tio_val_index(child);
	if (base + ci != child || ci <= pi || ci >= parent->end)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_next_child: the child is not a value of the parent");
	*out = child->end < parent->end ? base + child->end : NULL;
	return 0;
}

int tio_field_variant(const tio_field *f, uint32_t *index, const char **name, const tio_field **out)
{
	if (!f || f->fc->kind != TIO_FC_VARIANT)
		return wrong(f, "tio_field_variant");
	if (index)
		*index = f->opt;
	if (name)
		*name = f->opt < f->fc->v.noptions ? f->fc->v.options[f->opt].name : NULL;
	if (out)
		*out = f->n ? f + 1 : NULL;
	return 0;
}

int tio_field_optional(const tio_field *f, const tio_field **out)
{
	if (!f || f->fc->kind != TIO_FC_OPTIONAL)
		return wrong(f, "tio_field_optional");
	*out = f->n ? f + 1 : NULL;
	return 0;
}

/* ------------------------------------------------------------ paths */

/*
 * A path's scope prefix: the scope and how many characters it takes, or
 * -1 when the path does not start with one (search every event scope).
 */
static int path_scope(const char *path, size_t *skip)
{
	static const struct {
		const char *name;
		int scope;
	} pre[] = {
		{"packet.header", TIO_SCOPE_PKT_HEADER},     {"packet.context", TIO_SCOPE_PKT_CTX},
		{"event.header", TIO_SCOPE_EV_HEADER},	     {"event.common_context", TIO_SCOPE_EV_COMMON_CTX},
		{"event.context", TIO_SCOPE_EV_SPEC_CTX},    {"event.fields", TIO_SCOPE_PAYLOAD},
		{"event.payload", TIO_SCOPE_PAYLOAD},	     {"header", TIO_SCOPE_EV_HEADER},
		{"common_context", TIO_SCOPE_EV_COMMON_CTX}, {"context", TIO_SCOPE_EV_SPEC_CTX},
		{"specific_context", TIO_SCOPE_EV_SPEC_CTX}, {"payload", TIO_SCOPE_PAYLOAD},
		{"fields", TIO_SCOPE_PAYLOAD},		     {"packet_context", TIO_SCOPE_PKT_CTX},
		{"packet_header", TIO_SCOPE_PKT_HEADER},     {"event_header", TIO_SCOPE_EV_HEADER},
	};
	for (size_t i = 0; i < TIO_ARRAY_LEN(pre); i++) {
		size_t l = strlen(pre[i].name);
		if (!strncmp(path, pre[i].name, l) && (path[l] == '.' || path[l] == '[' || path[l] == 0)) {
			*skip = l + (path[l] == '.');
			return pre[i].scope;
		}
	}
	return -1;
}

/* The search order without a scope: babeltrace's (payload first). */
static const int search_order[] = {TIO_SCOPE_PAYLOAD, TIO_SCOPE_EV_SPEC_CTX, TIO_SCOPE_EV_COMMON_CTX,
				   TIO_SCOPE_EV_HEADER, TIO_SCOPE_PKT_CTX, TIO_SCOPE_PKT_HEADER};

/*
 * Resolve `p` (after the scope) against a field class: the child positions
 * and the class reached.  Components: NAME (a structure's member or a
 * variant's option) and [N] (an array element; an optional's value is
 * stepped into by naming what follows).
 */
static int resolve_steps(const tio_fc *fc, const char *p, uint32_t *steps, uint32_t *depth, const tio_fc **target)
{
	*depth = 0;
	while (*p) {
		if (*depth >= TIO_FIELD_REF_MAX_DEPTH)
			return tio_err_set(TIO_ERR_LIMIT, "path deeper than %d components", TIO_FIELD_REF_MAX_DEPTH);
		while (fc->kind == TIO_FC_OPTIONAL) { /* its value is its only child */
			if (*depth >= TIO_FIELD_REF_MAX_DEPTH)
				return tio_err_set(TIO_ERR_LIMIT, "path deeper than %d components", TIO_FIELD_REF_MAX_DEPTH);
			steps[(*depth)++] = 0;
			fc = fc->v.options[0].fc;
		}
		if (*p == '[') {
			char *e;
			unsigned long long k = strtoull(p + 1, &e, 10);
			if (e == p + 1 || *e != ']')
				return tio_err_set(TIO_ERR_USAGE, "bad index at '%s'", p);
			if (fc->kind != TIO_FC_ARRAY && fc->kind != TIO_FC_SEQUENCE)
				return tio_err_set(TIO_ERR_USAGE, "'%s': a%s %s has no elements", p,
						   fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM ? "n" : "", kind_name(fc));
			if (fc->kind == TIO_FC_ARRAY && k >= fc->a.length)
				return tio_err_set(TIO_ERR_USAGE, "'%s': index past the array's %llu elements", p,
						   (unsigned long long)fc->a.length);
			if (k > UINT32_MAX)
				return tio_err_set(TIO_ERR_USAGE, "'%s': index too large", p);
			steps[(*depth)++] = (uint32_t)k;
			fc = fc->a.elem;
			p = e + 1;
			if (*p == '.')
				p++;
			continue;
		}
		size_t len = strcspn(p, ".[");
		if (!len)
			return tio_err_set(TIO_ERR_USAGE, "empty name at '%s'", p);
		int64_t k;
		if (fc->kind == TIO_FC_STRUCT)
			k = member_index(fc, p, len);
		else if (fc->kind == TIO_FC_VARIANT)
			k = option_index(fc, p, len);
		else
			return tio_err_set(TIO_ERR_USAGE, "'%.*s': a%s %s has no members", (int)len, p,
					   fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM || fc->kind == TIO_FC_ARRAY ? "n" : "",
					   kind_name(fc));
		if (k < 0)
			return tio_err_set(TIO_ERR_USAGE, "no member '%.*s'", (int)len, p);
		steps[(*depth)++] = (uint32_t)k;
		fc = fc->kind == TIO_FC_STRUCT ? fc->st.members[k].fc : fc->v.options[k].fc;
		p += len;
		if (*p == '.')
			p++;
	}
	*target = fc;
	return 0;
}

/* Number of values a value of this class always takes, -1 when it varies. */
static int64_t fixed_count(const tio_fc *fc, int depth)
{
	if (depth > 64)
		return -1;
	switch (fc->kind) {
	case TIO_FC_STRUCT: {
		int64_t n = 1;
		for (uint32_t k = 0; k < fc->st.nmembers; k++) {
			int64_t c = fixed_count(fc->st.members[k].fc, depth + 1);
			if (c < 0)
				return -1;
			n += c;
		}
		return n;
	}
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		return -1;
	default:
		return 1;
	}
}

/* The flat offset of the value the steps reach, when every value before it has a fixed count. */
static int32_t flat_offset(const tio_fc *fc, const uint32_t *steps, uint32_t depth)
{
	int64_t off = 0;
	for (uint32_t d = 0; d < depth; d++) {
		if (fc->kind != TIO_FC_STRUCT)
			return -1;
		off++;
		for (uint32_t k = 0; k < steps[d]; k++) {
			int64_t c = fixed_count(fc->st.members[k].fc, 0);
			if (c < 0)
				return -1;
			off += c;
		}
		fc = fc->st.members[steps[d]].fc;
	}
	return off > INT32_MAX ? -1 : (int32_t)off;
}

static const tio_fc *scope_class(const tio_event_class *ec, int scope)
{
	const tio_stream_class *sc = ec->sc;
	switch (scope) {
	case TIO_SCOPE_PKT_HEADER: return sc && sc->tc ? sc->tc->pkt_header : NULL;
	case TIO_SCOPE_PKT_CTX: return sc ? sc->pkt_ctx : NULL;
	case TIO_SCOPE_EV_HEADER: return sc ? sc->ev_header : NULL;
	case TIO_SCOPE_EV_COMMON_CTX: return sc ? sc->ev_common_ctx : NULL;
	case TIO_SCOPE_EV_SPEC_CTX: return ec->spec_ctx;
	case TIO_SCOPE_PAYLOAD: return ec->payload;
	}
	return NULL;
}

int tio_field_ref_resolve(const tio_event_class *ec, const char *path, tio_field_ref *ref)
{
	if (!ec || !path || !ref)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_ref_resolve: no event class, path or ref");
	size_t skip = 0;
	int scope = path_scope(path, &skip);
	const char *rest = path + skip;
	tio_field_ref r = {.ec = ec};
	int status = TIO_ERR_USAGE;
	for (size_t i = 0; i < TIO_ARRAY_LEN(search_order); i++) {
		int sc = scope >= 0 ? scope : search_order[i];
		const tio_fc *root = scope_class(ec, sc);
		const tio_fc *target;
		if (root && !(status = resolve_steps(root, rest, r.step, &r.depth, &target))) {
			r.scope = sc;
			r.fc = target;
			r.flat = flat_offset(root, r.step, r.depth);
			*ref = r;
			return 0;
		}
		if (scope >= 0)
			break;
	}
	if (status == TIO_ERR_LIMIT)
		return tio_err_push(status, "%s", path);
	return tio_err_set(TIO_ERR_USAGE, "event class '%s': no field '%s'%s", ec->name ? ec->name : "?", path,
			   scope >= 0 && !scope_class(ec, scope) ? " (it has no such scope)" : "");
}

const tio_field *tio_msg_scope(const tio_msg *m, int scope)
{
	if (!m || scope < 0 || scope >= TIO_NSCOPES)
		return NULL;
	return m->scope[scope];
}

/* Follow the steps from `v` (a value of message m): NULL when absent in this message. */
static const tio_val *walk(const tio_msg *m, const tio_val *v, const uint32_t *steps, uint32_t depth)
{
	for (uint32_t d = 0; d < depth; d++) {
		uint32_t k = steps[d];
		switch (v->fc->kind) {
		case TIO_FC_STRUCT:
		case TIO_FC_ARRAY:
		case TIO_FC_SEQUENCE:
			if (k >= v->n || is_text_val(v))
				return NULL;
			v++;
			while (k--)
				v = m->vals + v->end;
			break;
		case TIO_FC_VARIANT:
			if (v->opt != k || !v->n)
				return NULL;
			v++;
			break;
		case TIO_FC_OPTIONAL:
			if (!v->n)
				return NULL;
			v++;
			break;
		default:
			return NULL;
		}
	}
	return v;
}

const tio_field *tio_msg_field(const tio_msg *m, const tio_field_ref *ref)
{
	if (TIO_UNLIKELY(!m || !ref || m->type != TIO_MSG_EVENT || m->ec != ref->ec))
		return NULL;
	const tio_val *root = m->scope[ref->scope];
	if (TIO_UNLIKELY(!root))
		return NULL;
	if (TIO_LIKELY(ref->flat >= 0)) {
		const tio_val *v = root + ref->flat;
		/* the class check makes a layout the ref did not foresee fall back to the walk */
		if (TIO_LIKELY(v < m->vals + m->nvals && v->fc == ref->fc))
			return v;
	}
	return walk(m, root, ref->step, ref->depth);
}

int tio_msg_lookup(const tio_msg *m, const char *path, const tio_field **out)
{
	if (!m || !path || !out)
		return tio_err_set(TIO_ERR_USAGE, "tio_msg_lookup: no message, path or output");
	size_t skip = 0;
	int scope = path_scope(path, &skip);
	const char *rest = path + skip;
	uint32_t steps[TIO_FIELD_REF_MAX_DEPTH], depth;
	int status = TIO_ERR_USAGE;
	for (size_t i = 0; i < TIO_ARRAY_LEN(search_order); i++) {
		int sc = scope >= 0 ? scope : search_order[i];
		const tio_val *root = m->scope[sc];
		const tio_fc *target;
		if (root && !(status = resolve_steps(root->fc, rest, steps, &depth, &target))) {
			const tio_val *v = walk(m, root, steps, depth);
			if (!v)
				return tio_err_set(TIO_ERR_USAGE, "'%s': absent in this message (index past the length, option not chosen, empty optional)", path);
			*out = v;
			return 0;
		}
		if (scope >= 0)
			break;
	}
	if (status == TIO_ERR_LIMIT)
		return tio_err_push(status, "%s", path);
	return tio_err_set(TIO_ERR_USAGE, "%s%s%s: no field '%s'", m->ec ? "event '" : "message",
			   m->ec && m->ec->name ? m->ec->name : "", m->ec ? "'" : "", path);
}

/* ------------------------------------------------------------ field classes */

int tio_field_class_kind(const tio_field_class *fc)
{
	return fc ? (int)fc->kind : TIO_ERR_USAGE;
}

uint32_t tio_field_class_alignment(const tio_field_class *fc)
{
	return fc && fc->align ? fc->align : 1;
}

static bool int_family(const tio_fc *fc)
{
	return fc && (fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM || fc->kind == TIO_FC_BOOL || fc->kind == TIO_FC_BITMAP);
}

uint32_t tio_field_class_int_size(const tio_field_class *fc)
{
	if (fc && fc->kind == TIO_FC_FLOAT)
		return fc->f.exp_dig + fc->f.mant_dig;
	return int_family(fc) ? fc->i.size : 0;
}

bool tio_field_class_int_signed(const tio_field_class *fc)
{
	if (fc && fc->kind == TIO_FC_VARINT)
		return fc->vi.is_signed;
	return int_family(fc) && fc->kind != TIO_FC_BOOL && fc->i.is_signed;
}

uint32_t tio_field_class_int_base(const tio_field_class *fc)
{
	if (fc && fc->kind == TIO_FC_VARINT)
		return fc->vi.base ? fc->vi.base : 10;
	return int_family(fc) && fc->i.base ? fc->i.base : 10;
}

int tio_field_class_byte_order(const tio_field_class *fc)
{
	if (int_family(fc))
		return fc->i.byte_order;
	if (fc && fc->kind == TIO_FC_FLOAT)
		return fc->f.byte_order;
	/* UTF-16/32 code units (tio_field_string gives them as stored) */
	if (fc && (fc->kind == TIO_FC_STRING || fc->kind == TIO_FC_SSTRING || fc->kind == TIO_FC_DSTRING) &&
	    (fc->s.encoding == TIO_ENC_UTF16 || fc->s.encoding == TIO_ENC_UTF32))
		return fc->s.byte_order;
	return -1;
}

int tio_field_class_int_clock(const tio_field_class *fc)
{
	return int_family(fc) ? fc->i.clock : -1;
}

uint32_t tio_field_class_label_count(const tio_field_class *fc)
{
	const tio_mapping *m;
	uint32_t n;
	if (!fc)
		return 0;
	mappings_of(fc, &m, &n);
	return n;
}

const char *tio_field_class_label(const tio_field_class *fc, uint32_t i)
{
	const tio_mapping *m;
	uint32_t n;
	if (!fc)
		return NULL;
	mappings_of(fc, &m, &n);
	return i < n ? m[i].label : NULL;
}

uint32_t tio_field_class_label_range_count(const tio_field_class *fc, uint32_t i)
{
	const tio_mapping *m;
	uint32_t n;
	if (!fc)
		return 0;
	mappings_of(fc, &m, &n);
	return i < n ? m[i].nranges : 0;
}

int tio_field_class_label_range(const tio_field_class *fc, uint32_t i, uint32_t k, uint64_t *lo, uint64_t *hi)
{
	const tio_mapping *m;
	uint32_t n;
	if (!fc)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_class_label_range: no field class");
	mappings_of(fc, &m, &n);
	if (i >= n || k >= m[i].nranges)
		return tio_err_set(TIO_ERR_USAGE, "tio_field_class_label_range: label %u range %u: the class has %u labels%s",
				   i, k, n, i < n ? ", fewer ranges" : "");
	*lo = (uint64_t)m[i].ranges[k].lo;
	*hi = (uint64_t)m[i].ranges[k].hi;
	return 0;
}

uint32_t tio_field_class_float_exp_digits(const tio_field_class *fc)
{
	return fc && fc->kind == TIO_FC_FLOAT ? fc->f.exp_dig : 0;
}

uint32_t tio_field_class_float_mant_digits(const tio_field_class *fc)
{
	return fc && fc->kind == TIO_FC_FLOAT ? fc->f.mant_dig : 0;
}

int tio_field_class_string_encoding(const tio_field_class *fc)
{
	if (!fc)
		return TIO_FIELD_ENC_NONE;
	if (fc->kind == TIO_FC_STRING || fc->kind == TIO_FC_SSTRING || fc->kind == TIO_FC_DSTRING)
		return fc->s.encoding ? fc->s.encoding : TIO_FIELD_UTF8;
	if ((fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE) && fc->a.text)
		return fc->a.elem && int_family(fc->a.elem) && fc->a.elem->i.encoding ? fc->a.elem->i.encoding : TIO_FIELD_UTF8;
	if (int_family(fc))
		return fc->i.encoding;
	return TIO_FIELD_ENC_NONE;
}

uint64_t tio_field_class_static_length(const tio_field_class *fc)
{
	if (!fc)
		return 0;
	if (fc->kind == TIO_FC_ARRAY)
		return fc->a.length;
	if (fc->kind == TIO_FC_SSTRING || fc->kind == TIO_FC_SBLOB)
		return fc->s.length;
	return 0;
}

const char *tio_field_class_length_path(const tio_field_class *fc)
{
	if (!fc)
		return NULL;
	if (fc->kind == TIO_FC_SEQUENCE)
		return fc->a.len.path;
	if (fc->kind == TIO_FC_DSTRING || fc->kind == TIO_FC_DBLOB)
		return fc->s.len.path;
	return NULL;
}

const char *tio_field_class_selector_path(const tio_field_class *fc)
{
	return fc && (fc->kind == TIO_FC_VARIANT || fc->kind == TIO_FC_OPTIONAL) ? fc->v.sel.path : NULL;
}

const char *tio_field_class_media_type(const tio_field_class *fc)
{
	return fc && (fc->kind == TIO_FC_SBLOB || fc->kind == TIO_FC_DBLOB) ? fc->s.media_type : NULL;
}

const tio_field_class *tio_field_class_element(const tio_field_class *fc)
{
	if (!fc)
		return NULL;
	if (fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE)
		return fc->a.elem;
	if (fc->kind == TIO_FC_OPTIONAL && fc->v.noptions)
		return fc->v.options[0].fc;
	return NULL;
}

bool tio_field_class_is_text(const tio_field_class *fc)
{
	return fc && (fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE) && fc->a.text;
}

uint32_t tio_field_class_member_count(const tio_field_class *fc)
{
	if (!fc)
		return 0;
	if (fc->kind == TIO_FC_STRUCT)
		return fc->st.nmembers;
	if (fc->kind == TIO_FC_VARIANT)
		return fc->v.noptions;
	return 0;
}

const char *tio_field_class_member_name(const tio_field_class *fc, uint32_t i)
{
	if (fc && fc->kind == TIO_FC_STRUCT && i < fc->st.nmembers)
		return fc->st.members[i].name;
	if (fc && fc->kind == TIO_FC_VARIANT && i < fc->v.noptions)
		return fc->v.options[i].name;
	return NULL;
}

const tio_field_class *tio_field_class_member_class(const tio_field_class *fc, uint32_t i)
{
	if (fc && fc->kind == TIO_FC_STRUCT && i < fc->st.nmembers)
		return fc->st.members[i].fc;
	if (fc && fc->kind == TIO_FC_VARIANT && i < fc->v.noptions)
		return fc->v.options[i].fc;
	return NULL;
}

uint32_t tio_field_class_option_range_count(const tio_field_class *fc, uint32_t i)
{
	if (fc && fc->kind == TIO_FC_VARIANT && i < fc->v.noptions && fc->v.ranges)
		return fc->v.ranges[i].nranges;
	return 0;
}

int tio_field_class_option_range(const tio_field_class *fc, uint32_t i, uint32_t k, uint64_t *lo, uint64_t *hi)
{
	if (!(fc && fc->kind == TIO_FC_VARIANT && i < fc->v.noptions && fc->v.ranges && k < fc->v.ranges[i].nranges))
		return tio_err_set(TIO_ERR_USAGE, "tio_field_class_option_range: option %u range %u: no such range", i, k);
	*lo = (uint64_t)fc->v.ranges[i].ranges[k].lo;
	*hi = (uint64_t)fc->v.ranges[i].ranges[k].hi;
	return 0;
}

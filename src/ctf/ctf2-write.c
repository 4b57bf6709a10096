/*
 * CTF 2 metadata writer: the model's classes as a CTF2-SPEC-2.0 metadata
 * stream (a JSON text sequence, RFC 7464: each fragment is 0x1E, a JSON
 * object, a newline), built with json-c; choices in docs/formats/ctf2.md,
 * "Writer".
 *
 * The data streams are ctf-writer.c's, shared with CTF 1.8: the same
 * packet header/context and event header layout (ctf-write.h), the same
 * write plans walked beside the decoded values.  This file makes the plan
 * nodes with the JSON, so that what the metadata says and what the packets
 * hold always agree, and adds the kinds CTF 1.8 cannot say (optionals,
 * BLOBs, bit maps, booleans, LEB128 integers, UTF-16/32 strings, integers
 * wider than 64 bits).
 *
 * Lengths and selectors are field locations: relative (`path` only) when
 * the target is an earlier member of the same structure, else absolute
 * (`origin` = its scope, `path` = member names from the scope's root,
 * arrays/variants/optionals passed through).  What has no such field in
 * the output (trace.dat __data_loc arrays, a selector in a header that is
 * rebuilt, CTF 1 variants whose tag labels do not match) gets a member of
 * its own just before: NAME__len, NAME__tag, NAME__on (uint32).
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "ctf/ctf-write.h"

static const char *const scope_names[TIO_NSCOPES] = {
	"packet-header",	       "packet-context",		"event-record-header",
	"event-record-common-context", "event-record-specific-context", "event-record-payload",
};

/* A field written so far that a location can name. */
typedef struct c2loc {
	const tio_fc *fc;
	const tio_fc *parent; /* the structure it is a member of */
	int scope;
	json_object *path;    /* member names from the scope's root (owned) */
} c2loc;

struct ctf2w {
	tio_buf *out;
	const tio_trace_class *tc;
	bool be;
	bool ns_clocks;
	unsigned sid_bits;
	char **clock_ids;
	c2loc *locs;
	size_t nlocs, cap;
	size_t keep; /* locations of the current stream class (kept across its event classes) */
	int scope;
	const tio_fc *cur; /* innermost structure being written */
	const char *const *reserved; /* names the next top-level structure must not use (fixed fields) */
	const char *stk[128];
	uint32_t nstk;
	bool oom;
	char where[320];
};

/* ---------------------------------------------------------------- JSON helpers */

static void jadd(ctf2w *w, json_object *o, const char *k, json_object *v)
{
	if (!o || !v || json_object_object_add(o, k, v)) {
		json_object_put(v);
		w->oom = true;
	}
}

static void japp(ctf2w *w, json_object *a, json_object *v)
{
	if (!a || !v || json_object_array_add(a, v)) {
		json_object_put(v);
		w->oom = true;
	}
}

/*
 * A JSON string from model text.  Our reader (and the spec) want UTF-8:
 * a byte that does not start a valid sequence becomes U+FFFD.
 */
static json_object *jstr(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	bool ok = true;
	for (size_t i = 0; i < n && ok;) {
		unsigned c = p[i], len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		ok = len && i + len <= n && !(len == 2 && c < 0xc2) && !(len == 4 && c > 0xf4);
		for (unsigned k = 1; ok && k < len; k++)
			ok = (p[i + k] & 0xc0) == 0x80;
		if (ok && len == 3)
			ok = !(c == 0xe0 && p[i + 1] < 0xa0) && !(c == 0xed && p[i + 1] >= 0xa0);
		if (ok && len == 4)
			ok = !(c == 0xf0 && p[i + 1] < 0x90) && !(c == 0xf4 && p[i + 1] >= 0x90);
		i += len ? len : 1;
	}
	if (ok)
		return json_object_new_string((const char *)p);
	tio_buf b = {0};
	for (size_t i = 0; i < n;) {
		unsigned c = p[i], len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		bool good = len && i + len <= n && !(len == 2 && c < 0xc2) && !(len == 4 && c > 0xf4);
		for (unsigned k = 1; good && k < len; k++)
			good = (p[i + k] & 0xc0) == 0x80;
		if (good && len == 3)
			good = !(c == 0xe0 && p[i + 1] < 0xa0) && !(c == 0xed && p[i + 1] >= 0xa0);
		if (good && len == 4)
			good = !(c == 0xf0 && p[i + 1] < 0x90) && !(c == 0xf4 && p[i + 1] >= 0x90);
		if (good) {
			tio_buf_add(&b, p + i, len);
			i += len;
		} else {
			tio_buf_addl(&b, "\xef\xbf\xbd");
			i++;
		}
	}
	json_object *o = b.p ? json_object_new_string(tio_buf_cstr(&b)) : NULL;
	tio_buf_free(&b);
	return o;
}

static json_object *juint(uint64_t v)
{
	return json_object_new_uint64(v);
}

static json_object *jint(int64_t v)
{
	return json_object_new_int64(v);
}

static void uuid_text(char *buf, const uint8_t *u)
{
	snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Append one fragment (RS, JSON, newline) and release it. */
static int emit(ctf2w *w, json_object *o)
{
	int r = 0;
	if (w->oom || !o) {
		r = TIO_ERR_NOMEM;
	} else {
		const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
		if (!s || tio_buf_addc(w->out, 0x1e) || tio_buf_adds(w->out, s) || tio_buf_addc(w->out, '\n'))
			r = TIO_ERR_NOMEM;
	}
	json_object_put(o);
	return r;
}

/*
 * `attributes` from the model's fc->attrs: a CTF 2 reader's compact JSON
 * text (an object) is written as it is; other formats' text (trace.dat's C
 * type, a marker's or new LTT's printf format, "ltt:sequence") is not JSON:
 * it is kept as a string, {"traceio": {"attrs": TEXT}}, which the CTF 2
 * reader turns back into that text.
 */
static int add_attrs(ctf2w *w, json_object *o, const char *text)
{
	if (!text)
		return 0;
	json_object *a = json_tokener_parse(text);
	if (!a || !json_object_is_type(a, json_type_object)) {
		json_object_put(a);
		json_object *t = json_object_new_object();
		a = json_object_new_object();
		jadd(w, t, "attrs", jstr(text));
		jadd(w, a, "traceio", t);
	}
	jadd(w, o, "attributes", a);
	return 0;
}

/* ---------------------------------------------------------------- locations */

static void locs_truncate(ctf2w *w, size_t n)
{
	while (w->nlocs > n)
		json_object_put(w->locs[--w->nlocs].path);
}

/* Remember the member being written (its name is on top of the stack). */
static void add_loc(ctf2w *w, const tio_fc *fc)
{
	if (tio_grow(&w->locs, &w->cap, w->nlocs + 1, sizeof(c2loc))) {
		w->oom = true;
		return;
	}
	json_object *p = json_object_new_array();
	for (uint32_t k = 0; k < w->nstk; k++)
		japp(w, p, jstr(w->stk[k]));
	w->locs[w->nlocs++] = (c2loc){.fc = fc, .parent = w->cur, .scope = w->scope, .path = p};
}

static const c2loc *find_loc(const ctf2w *w, const tio_fc *target)
{
	if (!target)
		return NULL;
	for (size_t k = w->nlocs; k-- > 0;)
		if (w->locs[k].fc == target)
			return &w->locs[k];
	return NULL;
}

/* The field location of a registered field, relative when it is a sibling. */
static json_object *loc_json(ctf2w *w, const c2loc *l)
{
	json_object *o = json_object_new_object(), *p = json_object_new_array();
	size_t n = json_object_array_length(l->path);
	if (l->parent == w->cur && l->scope == w->scope && n) {
		japp(w, p, json_object_get(json_object_array_get_idx(l->path, n - 1)));
	} else {
		jadd(w, o, "origin", json_object_new_string(scope_names[l->scope]));
		for (size_t k = 0; k < n; k++)
			japp(w, p, json_object_get(json_object_array_get_idx(l->path, k)));
	}
	jadd(w, o, "path", p);
	return o;
}

/* A relative location naming a synthesized sibling: NAME + suffix. */
static json_object *synth_loc(ctf2w *w, const char *suffix)
{
	json_object *o = json_object_new_object(), *p = json_object_new_array();
	char *n = tio_asprintf("%s%s", w->nstk ? w->stk[w->nstk - 1] : "", suffix);
	japp(w, p, n ? jstr(n) : NULL);
	free(n);
	jadd(w, o, "path", p);
	return o;
}

static bool is_uint_len(const tio_fc *t)
{
	if (!t)
		return false;
	if (t->kind == TIO_FC_VARINT)
		return !t->vi.is_signed;
	return (t->kind == TIO_FC_INT || t->kind == TIO_FC_ENUM) && !t->i.is_signed && t->i.size <= 64;
}

static bool is_int_sel(const tio_fc *t)
{
	return t && (t->kind == TIO_FC_VARINT || ((t->kind == TIO_FC_INT || t->kind == TIO_FC_ENUM) && t->i.size <= 64));
}

static bool sel_signed(const tio_fc *t)
{
	return t->kind == TIO_FC_VARINT ? t->vi.is_signed : t->i.is_signed;
}

static bool range_lt(int64_t a, int64_t b, bool sgn)
{
	return sgn ? a < b : (uint64_t)a < (uint64_t)b;
}

/* Can the variant be written with its own selector (found, integer, disjoint non-empty ranges)? */
static bool variant_ok(const ctf2w *w, const tio_fc *fc)
{
	const tio_fc *t = fc->v.sel.target;
	if (!find_loc(w, t) || !is_int_sel(t) || !fc->v.ranges)
		return false;
	bool sgn = sel_signed(t);
	for (uint32_t k = 0; k < fc->v.noptions; k++) {
		if (!fc->v.ranges[k].nranges)
			return false;
		for (uint32_t a = 0; a < fc->v.ranges[k].nranges; a++) {
			const tio_range *x = &fc->v.ranges[k].ranges[a];
			if (range_lt(x->hi, x->lo, sgn))
				return false;
			for (uint32_t j = 0; j < k; j++)
				for (uint32_t b = 0; b < fc->v.ranges[j].nranges; b++) {
					const tio_range *y = &fc->v.ranges[j].ranges[b];
					if (!range_lt(x->hi, y->lo, sgn) && !range_lt(y->hi, x->lo, sgn))
						return false;
				}
		}
	}
	return true;
}

static bool optional_ok(const ctf2w *w, const tio_fc *fc)
{
	const tio_fc *t = fc->v.sel.target;
	if (!find_loc(w, t))
		return false;
	if (t->kind == TIO_FC_BOOL)
		return true;
	return is_int_sel(t) && fc->v.ranges && fc->v.ranges[0].nranges;
}

/* Does member `fc` need a synthesized member before it, and which? */
static uint8_t synth_kind(const ctf2w *w, const tio_fc *fc)
{
	switch (fc->kind) {
	case TIO_FC_SEQUENCE:
		return is_uint_len(fc->a.len.target) && find_loc(w, fc->a.len.target) ? SYN_NONE : SYN_LEN;
	case TIO_FC_DSTRING:
	case TIO_FC_DBLOB:
		return is_uint_len(fc->s.len.target) && find_loc(w, fc->s.len.target) ? SYN_NONE : SYN_LEN;
	case TIO_FC_VARIANT:
		return variant_ok(w, fc) ? SYN_NONE : SYN_TAG;
	case TIO_FC_OPTIONAL:
		return optional_ok(w, fc) ? SYN_NONE : SYN_ON;
	default:
		return SYN_NONE;
	}
}

static const char *synth_suffix(uint8_t synth)
{
	return synth == SYN_LEN ? "__len" : synth == SYN_TAG ? "__tag" : "__on";
}

/* ---------------------------------------------------------------- field classes */

static int unsupported(ctf2w *w, const char *what)
{
	return tio_err_set(TIO_ERR_UNSUPPORTED, "%s, field '%s': %s cannot be written in CTF 2", w->where,
			   w->nstk ? w->stk[w->nstk - 1] : "", what);
}

static json_object *jtype(const char *type)
{
	json_object *o = json_object_new_object();
	if (o && json_object_object_add(o, "type", json_object_new_string(type))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static void fixed_common(ctf2w *w, json_object *o, uint32_t len, uint8_t bo, uint32_t align)
{
	jadd(w, o, "length", juint(len));
	jadd(w, o, "byte-order", json_object_new_string(bo == TIO_BE ? "big-endian" : "little-endian"));
	if (align > 1)
		jadd(w, o, "alignment", juint(align));
}

/*
 * A bit order opposite to the byte order's own is kept: written in the
 * metadata, and the values' bits reversed in the data (wnode.rev).
 */
static void bit_order(ctf2w *w, json_object *o, wnode *nd, uint8_t bo, bool rev)
{
	if (!rev)
		return;
	jadd(w, o, "bit-order", json_object_new_string(bo == TIO_BE ? "first-to-last" : "last-to-first"));
	nd->rev = 1;
}

/* Ranges as [[lo, hi], ...], signed or unsigned. */
static json_object *ranges_json(ctf2w *w, const tio_range *g, uint32_t n, bool sgn)
{
	json_object *a = json_object_new_array();
	for (uint32_t k = 0; k < n; k++) {
		json_object *p = json_object_new_array();
		japp(w, p, sgn ? jint(g[k].lo) : juint((uint64_t)g[k].lo));
		japp(w, p, sgn ? jint(g[k].hi) : juint((uint64_t)g[k].hi));
		japp(w, a, p);
	}
	return a;
}

/* Mappings / flags: {label: ranges}; a label given twice gets its ranges merged. */
static json_object *mappings_json(ctf2w *w, const tio_mapping *m, uint32_t n, bool sgn)
{
	json_object *o = json_object_new_object();
	for (uint32_t k = 0; k < n && o; k++) {
		const char *l = m[k].label ? m[k].label : "";
		json_object *have = NULL;
		if (json_object_object_get_ex(o, l, &have)) {
			for (uint32_t r = 0; r < m[k].nranges; r++) {
				json_object *p = json_object_new_array();
				japp(w, p, sgn ? jint(m[k].ranges[r].lo) : juint((uint64_t)m[k].ranges[r].lo));
				japp(w, p, sgn ? jint(m[k].ranges[r].hi) : juint((uint64_t)m[k].ranges[r].hi));
				japp(w, have, p);
			}
		} else if (m[k].nranges) {
			json_object *js = jstr(l);
			/* the key as json-c stores it: valid UTF-8 */
			const char *key = js ? json_object_get_string(js) : l;
			jadd(w, o, key, ranges_json(w, m[k].ranges, m[k].nranges, sgn));
			json_object_put(js);
		}
	}
	return o;
}

static bool has_ranges(const tio_mapping *m, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		if (m[k].nranges)
			return true;
	return false;
}

/* The alignment a CTF 2 reader computes for `fc` without minimum-alignment. */
static uint32_t own_align(const tio_fc *fc)
{
	return fc->kind == TIO_FC_VARIANT || fc->kind == TIO_FC_OPTIONAL ? 1 : fc->align;
}

static const char *enc_name(uint8_t enc, uint8_t bo)
{
	if (enc == TIO_ENC_UTF16)
		return bo == TIO_BE ? "utf-16be" : "utf-16le";
	if (enc == TIO_ENC_UTF32)
		return bo == TIO_BE ? "utf-32be" : "utf-32le";
	return NULL; /* UTF-8: the default */
}

static int fc_json(ctf2w *w, wplan *plan, const tio_fc *fc, bool member, uint8_t synth, json_object **out);

/* A length location for a sequence/dynamic string/BLOB member. */
static json_object *len_loc(ctf2w *w, const tio_ref *ref, uint8_t synth)
{
	if (synth == SYN_LEN)
		return synth_loc(w, "__len");
	const c2loc *l = is_uint_len(ref->target) ? find_loc(w, ref->target) : NULL;
	return l ? loc_json(w, l) : NULL;
}

static int struct_json(ctf2w *w, wplan *plan, const tio_fc *fc, json_object *o)
{
	json_object *mcs = json_object_new_array();
	jadd(w, o, "member-classes", mcs);
	const tio_fc *saved = w->cur;
	w->cur = fc;
	uint32_t ma = 1;
	int r = 0;
	tio_buf nm = {0};
	for (uint32_t k = 0; k < fc->st.nmembers && !r && !w->oom; k++) {
		const tio_member *m = &fc->st.members[k];
		/* names must be unique: a repeated one gets "__N" (trace.dat's two `nr`) */
		tio_buf_reset(&nm);
		tio_buf_adds(&nm, m->name ? m->name : "");
		unsigned dup = 0;
		for (uint32_t j = 0; j < k; j++)
			if (!strcmp(fc->st.members[j].name ? fc->st.members[j].name : "", tio_buf_cstr(&nm)))
				dup++;
		for (const char *const *rs = w->nstk ? NULL : w->reserved; rs && *rs && !dup; rs++)
			if (!strcmp(*rs, tio_buf_cstr(&nm)))
				dup++;
		if (dup)
			tio_buf_addf(&nm, "__%u", dup + 1);
		if (w->nstk == TIO_ARRAY_LEN(w->stk)) {
			r = unsupported(w, "a structure nesting this deep");
			break;
		}
		w->stk[w->nstk++] = tio_buf_cstr(&nm);
		uint8_t synth = synth_kind(w, m->fc);
		if (synth) {
			json_object *sm = json_object_new_object(), *sfc = jtype("fixed-length-unsigned-integer");
			char *sn = tio_asprintf("%s%s", tio_buf_cstr(&nm), synth_suffix(synth));
			jadd(w, sm, "name", sn ? jstr(sn) : NULL);
			free(sn);
			fixed_common(w, sfc, 32, w->be ? TIO_BE : TIO_LE, 8);
			jadd(w, sm, "field-class", sfc);
			japp(w, mcs, sm);
		}
		uint32_t first = (uint32_t)plan->n;
		json_object *mo = json_object_new_object(), *mfc = NULL;
		jadd(w, mo, "name", jstr(tio_buf_cstr(&nm)));
		r = fc_json(w, plan, m->fc, true, synth, &mfc);
		if (!r) {
			jadd(w, mo, "field-class", mfc);
			japp(w, mcs, mo);
			if (synth && first < plan->n)
				plan->nodes[first].synth = synth;
		} else {
			json_object_put(mo);
		}
		w->nstk--;
		if (own_align(m->fc) > ma)
			ma = own_align(m->fc);
	}
	tio_buf_free(&nm);
	w->cur = saved;
	if (!r && fc->align > ma)
		jadd(w, o, "minimum-alignment", juint(fc->align));
	return r;
}

/* Text arrays (8-bit integers with an encoding) are written as UTF-8 strings. */
static bool text_array(const tio_fc *fc)
{
	const tio_fc *e = fc->a.elem;
	return fc->a.text && e && e->kind == TIO_FC_INT && e->i.size == 8 && e->align <= 8 && fc->align <= 8;
}

static int fc_json(ctf2w *w, wplan *plan, const tio_fc *fc, bool member, uint8_t synth, json_object **out)
{
	json_object *o = NULL;
	uint32_t node;
	int r = wplan_push(plan, fc, W_INT, &node);
	if (r)
		return r;
	wnode *nd = &plan->nodes[node];
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM: {
		bool maps = fc->kind == TIO_FC_ENUM && has_ranges(fc->i.mappings, fc->i.nmappings);
		if (fc->i.size == 0)
			return unsupported(w, "an integer of 0 bits");
		o = jtype(fc->i.is_signed ? "fixed-length-signed-integer" : "fixed-length-unsigned-integer");
		fixed_common(w, o, fc->i.size, fc->i.byte_order, fc->align);
		bit_order(w, o, nd, fc->i.byte_order, fc->i.bit_rev);
		if (fc->i.base && fc->i.base != 10)
			jadd(w, o, "preferred-display-base", juint(fc->i.base));
		if (maps)
			jadd(w, o, "mappings", mappings_json(w, fc->i.mappings, fc->i.nmappings, fc->i.is_signed));
		nd->size = fc->i.size;
		nd->be = fc->i.byte_order == TIO_BE;
		if (fc->i.size > 64) {
			if (fc->i.size % 8 || fc->align % 8)
				return unsupported(w, "an integer wider than 64 bits that is not whole bytes");
			nd->op = W_BIGINT;
			nd->n = fc->i.size / 8;
		}
		if (member && fc->i.size <= 64)
			add_loc(w, fc);
		break;
	}
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		if (fc->i.size == 0 || fc->i.size > 64)
			return unsupported(w, "a boolean or bit map of more than 64 bits");
		o = jtype(fc->kind == TIO_FC_BOOL ? "fixed-length-boolean" : "fixed-length-bit-map");
		fixed_common(w, o, fc->i.size, fc->i.byte_order, fc->align);
		bit_order(w, o, nd, fc->i.byte_order, fc->i.bit_rev);
		if (fc->kind == TIO_FC_BITMAP) {
			/* flags are bit indexes; the spec wants at least one */
			json_object *fl = mappings_json(w, fc->i.mappings, fc->i.nmappings, false);
			if (fl && !json_object_object_length(fl)) {
				json_object *one = json_object_new_array(), *p = json_object_new_array();
				japp(w, p, juint(0));
				japp(w, p, juint(0));
				japp(w, one, p);
				jadd(w, fl, "bit0", one);
			}
			jadd(w, o, "flags", fl);
		}
		nd->size = fc->i.size;
		nd->be = fc->i.byte_order == TIO_BE;
		if (member && fc->kind == TIO_FC_BOOL)
			add_loc(w, fc);
		break;
	case TIO_FC_FLOAT: {
		uint32_t len = fc->f.exp_dig + fc->f.mant_dig;
		bool std = (fc->f.exp_dig == 5 && fc->f.mant_dig == 11) || (fc->f.exp_dig == 8 && fc->f.mant_dig == 24) ||
			   (fc->f.exp_dig == 11 && fc->f.mant_dig == 53);
		if (!std)
			return unsupported(w, "a floating point number other than binary16/32/64");
		o = jtype("fixed-length-floating-point-number");
		fixed_common(w, o, len, fc->f.byte_order, fc->align);
		bit_order(w, o, nd, fc->f.byte_order, fc->f.bit_rev);
		nd->op = W_FLOAT;
		nd->size = len;
		nd->be = fc->f.byte_order == TIO_BE;
		break;
	}
	case TIO_FC_VARINT:
		o = jtype(fc->vi.is_signed ? "variable-length-signed-integer" : "variable-length-unsigned-integer");
		if (fc->vi.base && fc->vi.base != 10)
			jadd(w, o, "preferred-display-base", juint(fc->vi.base));
		if (has_ranges(fc->vi.mappings, fc->vi.nmappings))
			jadd(w, o, "mappings", mappings_json(w, fc->vi.mappings, fc->vi.nmappings, fc->vi.is_signed));
		nd->op = W_LEB128;
		nd->align = 8;
		if (member)
			add_loc(w, fc);
		break;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING: {
		static const char *const types[] = {"null-terminated-string", "static-length-string", "dynamic-length-string"};
		o = jtype(types[fc->kind - TIO_FC_STRING]);
		nd->align = 8;
		if (fc->kind == TIO_FC_STRING) {
			nd->op = W_STRING;
			nd->n = fc->s.encoding == TIO_ENC_UTF16 ? 2 : fc->s.encoding == TIO_ENC_UTF32 ? 4 : 1;
		} else if (fc->kind == TIO_FC_SSTRING) {
			jadd(w, o, "length", juint(fc->s.length));
			nd->op = W_SBYTES;
			nd->n = fc->s.length;
		} else {
			json_object *l = len_loc(w, &fc->s.len, synth);
			if (!l) {
				json_object_put(o);
				return unsupported(w, "a dynamic-length string without a length field, not in a structure,");
			}
			jadd(w, o, "length-field-location", l);
			nd->op = W_DBYTES;
		}
		const char *e = enc_name(fc->s.encoding, fc->s.byte_order);
		if (e)
			jadd(w, o, "encoding", json_object_new_string(e));
		break;
	}
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		o = jtype(fc->kind == TIO_FC_SBLOB ? "static-length-blob" : "dynamic-length-blob");
		nd->align = 8;
		if (fc->kind == TIO_FC_SBLOB) {
			jadd(w, o, "length", juint(fc->s.length));
			nd->op = W_SBYTES;
			nd->n = fc->s.length;
		} else {
			json_object *l = len_loc(w, &fc->s.len, synth);
			if (!l) {
				json_object_put(o);
				return unsupported(w, "a dynamic-length BLOB without a length field, not in a structure,");
			}
			jadd(w, o, "length-field-location", l);
			nd->op = W_DBYTES;
		}
		if (fc->s.media_type && strcmp(fc->s.media_type, "application/octet-stream"))
			jadd(w, o, "media-type", jstr(fc->s.media_type));
		break;
	case TIO_FC_STRUCT:
		o = jtype("structure");
		nd->op = W_STRUCT;
		nd->nchild = fc->st.nmembers;
		if ((r = struct_json(w, plan, fc, o))) {
			json_object_put(o);
			return r;
		}
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE: {
		bool text = text_array(fc);
		bool dyn = fc->kind == TIO_FC_SEQUENCE;
		nd->op = dyn ? W_SEQ : W_ARRAY;
		nd->n = fc->a.length;
		nd->nchild = 1;
		nd->text = text;
		if (text)
			o = jtype(dyn ? "dynamic-length-string" : "static-length-string");
		else
			o = jtype(dyn ? "dynamic-length-array" : "static-length-array");
		if (dyn) {
			json_object *l = len_loc(w, &fc->a.len, synth);
			if (!l) {
				json_object_put(o);
				return unsupported(w, "a dynamic-length array without a length field, not in a structure,");
			}
			jadd(w, o, "length-field-location", l);
		} else {
			jadd(w, o, "length", juint(fc->a.length));
		}
		json_object *e = NULL;
		/* elements are not members: nothing inside is named by a location from outside */
		if ((r = fc_json(w, plan, fc->a.elem, false, SYN_NONE, &e))) {
			json_object_put(o);
			return r;
		}
		if (text) {
			json_object_put(e); /* the plan keeps the element node: values may come as elements */
		} else {
			jadd(w, o, "element-field-class", e);
			if (fc->align > own_align(fc->a.elem))
				jadd(w, o, "minimum-alignment", juint(fc->align));
		}
		break;
	}
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL: {
		bool opt = fc->kind == TIO_FC_OPTIONAL;
		o = jtype(opt ? "optional" : "variant");
		nd->op = opt ? W_OPTIONAL : W_VARIANT;
		nd->nchild = fc->v.noptions;
		nd->align = 1;
		const tio_fc *t = fc->v.sel.target;
		bool own = synth == SYN_NONE && (opt ? optional_ok(w, fc) : variant_ok(w, fc));
		if (!own && synth == SYN_NONE) {
			json_object_put(o);
			return unsupported(w, opt ? "an optional whose selector cannot be named, not in a structure,"
						  : "a variant whose selector cannot be named, not in a structure,");
		}
		jadd(w, o, "selector-field-location", own ? loc_json(w, find_loc(w, t)) : synth_loc(w, synth_suffix(synth)));
		if (opt) {
			if (!own) {
				json_object *g = json_object_new_array(), *p = json_object_new_array();
				japp(w, p, juint(1));
				japp(w, p, juint(1));
				japp(w, g, p);
				jadd(w, o, "selector-field-ranges", g);
			} else if (t->kind != TIO_FC_BOOL) {
				jadd(w, o, "selector-field-ranges",
				     ranges_json(w, fc->v.ranges[0].ranges, fc->v.ranges[0].nranges, sel_signed(t)));
			}
			json_object *c = NULL;
			if (fc->v.noptions != 1) {
				json_object_put(o);
				return unsupported(w, "an optional without exactly one field class");
			}
			if ((r = fc_json(w, plan, fc->v.options[0].fc, member, SYN_NONE, &c))) {
				json_object_put(o);
				return r;
			}
			jadd(w, o, "field-class", c);
			break;
		}
		json_object *opts = json_object_new_array();
		jadd(w, o, "options", opts);
		for (uint32_t k = 0; k < fc->v.noptions; k++) {
			json_object *op = json_object_new_object(), *c = NULL;
			if (fc->v.options[k].name)
				jadd(w, op, "name", jstr(fc->v.options[k].name));
			if (own) {
				jadd(w, op, "selector-field-ranges",
				     ranges_json(w, fc->v.ranges[k].ranges, fc->v.ranges[k].nranges, sel_signed(t)));
			} else {
				tio_range g = {(int64_t)k, (int64_t)k};
				jadd(w, op, "selector-field-ranges", ranges_json(w, &g, 1, false));
			}
			/* a field inside an option is still named through the variant: keep `member` */
			if ((r = fc_json(w, plan, fc->v.options[k].fc, member, SYN_NONE, &c))) {
				json_object_put(op);
				json_object_put(o);
				return r;
			}
			jadd(w, op, "field-class", c);
			japp(w, opts, op);
		}
		break;
	}
	default:
		return unsupported(w, "this field class");
	}
	if (!o)
		return TIO_ERR_NOMEM;
	if ((r = add_attrs(w, o, fc->attrs))) {
		json_object_put(o);
		return r;
	}
	plan->nodes[node].next = (uint32_t)plan->n;
	*out = o;
	return w->oom ? TIO_ERR_NOMEM : 0;
}

/* A scope's field class (a structure) with its plan. */
static int scope_json(ctf2w *w, wplan *plan, int scope, const tio_fc *fc, json_object *frag, const char *key)
{
	if (!fc)
		return 0;
	if (fc->kind != TIO_FC_STRUCT)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: the %s scope is not a structure", w->where, scope_names[scope]);
	w->scope = scope;
	w->nstk = 0;
	w->cur = NULL;
	json_object *o = NULL;
	int r = fc_json(w, plan, fc, false, SYN_NONE, &o);
	if (!r)
		jadd(w, frag, key, o);
	return r;
}

/* ---------------------------------------------------------------- fixed fields */

static json_object *fixed_uint(ctf2w *w, unsigned bits, const char *role, unsigned base)
{
	json_object *o = jtype("fixed-length-unsigned-integer");
	fixed_common(w, o, bits, w->be ? TIO_BE : TIO_LE, 8);
	if (base != 10)
		jadd(w, o, "preferred-display-base", juint(base));
	if (role) {
		json_object *rl = json_object_new_array();
		japp(w, rl, json_object_new_string(role));
		jadd(w, o, "roles", rl);
	}
	return o;
}

static void fixed_member(ctf2w *w, json_object *mcs, const char *name, json_object *fc)
{
	json_object *m = json_object_new_object();
	jadd(w, m, "name", json_object_new_string(name));
	jadd(w, m, "field-class", fc);
	japp(w, mcs, m);
}

/* ---------------------------------------------------------------- fragments */

int ctf2w_begin(ctf2w **out, tio_buf *text, const tio_trace_class *tc, bool ns_clocks, unsigned sid_bits)
{
	ctf2w *w = tio_calloc(1, sizeof(*w));
	if (!w)
		return TIO_ERR_NOMEM;
	*out = w;
	w->out = text;
	w->tc = tc;
	w->be = tc->byte_order == TIO_BE;
	w->ns_clocks = ns_clocks;
	w->sid_bits = sid_bits;
	snprintf(w->where, sizeof(w->where), "trace class");
	int r;

	/* preamble */
	json_object *o = jtype("preamble");
	jadd(w, o, "version", juint(2));
	if (tc->has_uuid) {
		json_object *u = json_object_new_array();
		for (int k = 0; k < 16; k++)
			japp(w, u, juint(tc->uuid[k]));
		jadd(w, o, "uuid", u);
	}
	if ((r = emit(w, o)))
		return r;

	/* trace class: environment, packet header */
	o = jtype("trace-class");
	if (tc->has_uuid) {
		char u[40];
		uuid_text(u, tc->uuid);
		jadd(w, o, "uid", json_object_new_string(u));
	}
	if (tc->nenv) {
		json_object *env = json_object_new_object();
		for (uint32_t k = 0; k < tc->nenv; k++) {
			const tio_kv *kv = &tc->env[k];
			json_object *key = jstr(kv->key);
			jadd(w, env, key ? json_object_get_string(key) : "", kv->is_int ? jint(kv->ival) : jstr(kv->sval));
			json_object_put(key);
		}
		jadd(w, o, "environment", env);
	}
	json_object *ph = jtype("structure"), *mcs = json_object_new_array();
	fixed_member(w, mcs, "magic", fixed_uint(w, 32, "packet-magic-number", 16));
	if (tc->has_uuid) {
		json_object *u = jtype("static-length-blob"), *rl = json_object_new_array();
		jadd(w, u, "length", juint(16));
		japp(w, rl, json_object_new_string("metadata-stream-uuid"));
		jadd(w, u, "roles", rl);
		fixed_member(w, mcs, "uuid", u);
	}
	fixed_member(w, mcs, "stream_id", fixed_uint(w, sid_bits, "data-stream-class-id", 10));
	fixed_member(w, mcs, "stream_instance_id", fixed_uint(w, 64, "data-stream-id", 10));
	jadd(w, ph, "member-classes", mcs);
	jadd(w, o, "packet-header-field-class", ph);
	if ((r = emit(w, o)))
		return r;

	/* clock classes: ids unique, names as the model has them */
	w->clock_ids = tio_calloc(tc->nclocks ? tc->nclocks : 1, sizeof(char *));
	if (!w->clock_ids)
		return TIO_ERR_NOMEM;
	for (uint32_t k = 0; k < tc->nclocks; k++) {
		const tio_clock *c = tc->clocks[k];
		char *id = c->name && *c->name ? tio_strdup(c->name) : tio_asprintf("clock%" PRIu32, k);
		for (uint32_t j = 0; id && j < k; j++)
			if (!strcmp(w->clock_ids[j], id)) {
				free(id);
				id = tio_asprintf("clock%" PRIu32, k);
				j = (uint32_t)-1; /* check again */
			}
		if (!(w->clock_ids[k] = id))
			return TIO_ERR_NOMEM;
		o = jtype("clock-class");
		jadd(w, o, "id", jstr(id));
		if (c->name)
			jadd(w, o, "name", jstr(c->name));
		if (c->description)
			jadd(w, o, "description", jstr(c->description));
		uint64_t freq = ns_clocks ? 1000000000 : c->freq;
		int64_t off_s = ns_clocks ? 0 : c->offset_s, off = ns_clocks ? 0 : c->offset;
		if (off < 0) { /* cycles are unsigned: move whole seconds to `seconds` */
			int64_t sec = (-off + (int64_t)freq - 1) / (int64_t)freq;
			off_s -= sec;
			off += sec * (int64_t)freq;
		}
		jadd(w, o, "frequency", juint(freq));
		json_object *ofs = json_object_new_object();
		jadd(w, ofs, "seconds", jint(off_s));
		jadd(w, ofs, "cycles", juint((uint64_t)off));
		jadd(w, o, "offset-from-origin", ofs);
		jadd(w, o, "precision", juint(c->precision));
		if (c->origin_unix)
			jadd(w, o, "origin", json_object_new_string("unix-epoch"));
		if (c->has_uuid) {
			char u[40];
			uuid_text(u, c->uuid);
			jadd(w, o, "uid", json_object_new_string(u));
		}
		if ((r = emit(w, o)))
			return r;
	}
	return 0;
}

/*
 * Members `member` of the input's scope `in` (a structure), written after
 * the fixed fields of the same scope: their JSON goes to `mcs`, their nodes
 * to `plan`, the first node of each to `node`.
 */
static int extra_members(ctf2w *w, int scope, const tio_fc *in, const uint32_t *member, uint32_t n, wplan *plan,
			 uint32_t *node, json_object *mcs, const char *const *reserved)
{
	if (!n)
		return 0;
	/* written as the members of a structure standing for the input's scope */
	tio_fc shell = {.kind = TIO_FC_STRUCT, .align = 1};
	tio_member *ms = tio_calloc(n, sizeof(tio_member));
	if (!ms)
		return TIO_ERR_NOMEM;
	for (uint32_t k = 0; k < n; k++)
		ms[k] = in->st.members[member[k]];
	shell.st.members = ms;
	shell.st.nmembers = n;
	w->scope = scope;
	w->nstk = 0;
	w->cur = NULL;
	w->reserved = reserved;
	json_object *tmp = jtype("structure");
	uint32_t base = (uint32_t)plan->n;
	int r = struct_json(w, plan, &shell, tmp);
	w->reserved = NULL;
	if (!r) {
		/* no node for the shell: the members' subtrees follow each other */
		uint32_t at = base;
		for (uint32_t k = 0; k < n; k++) {
			node[k] = at;
			at = plan->nodes[at].next;
		}
		json_object *tm = NULL;
		if (json_object_object_get_ex(tmp, "member-classes", &tm))
			for (size_t k = 0; k < json_object_array_length(tm); k++)
				japp(w, mcs, json_object_get(json_object_array_get_idx(tm, k)));
	}
	json_object_put(tmp);
	free(ms);
	return r;
}

int ctf2w_stream_class(ctf2w *w, const tio_stream_class *sc, unsigned id_bits, bool timed,
		       const uint32_t *extra_member, uint32_t nextras, wplan *extras, uint32_t *extra_node,
		       const ctf2w_extras *hx, wplan *common)
{
	locs_truncate(w, 0);
	snprintf(w->where, sizeof(w->where), "stream class %" PRIu64, sc->id);
	json_object *o = jtype("data-stream-class");
	jadd(w, o, "id", juint(sc->id));
	if (sc->name)
		jadd(w, o, "name", jstr(sc->name));
	if (timed)
		jadd(w, o, "default-clock-class-id", jstr(w->clock_ids[sc->clock]));

	/* packet context: the fixed fields, then the input's members without a role */
	json_object *pc = jtype("structure"), *mcs = json_object_new_array();
	if (timed) {
		fixed_member(w, mcs, "timestamp_begin", fixed_uint(w, 64, "default-clock-timestamp", 10));
		fixed_member(w, mcs, "timestamp_end", fixed_uint(w, 64, "packet-end-default-clock-timestamp", 10));
	}
	fixed_member(w, mcs, "content_size", fixed_uint(w, 64, "packet-content-length", 10));
	fixed_member(w, mcs, "packet_size", fixed_uint(w, 64, "packet-total-length", 10));
	fixed_member(w, mcs, "packet_seq_num", fixed_uint(w, 64, "packet-sequence-number", 10));
	fixed_member(w, mcs, "events_discarded", fixed_uint(w, 64, "discarded-event-record-counter-snapshot", 10));
	static const char *const pc_names[] = {"timestamp_begin", "timestamp_end", "content_size", "packet_size",
					       "packet_seq_num", "events_discarded", NULL};
	int r = extra_members(w, TIO_SCOPE_PKT_CTX, sc->pkt_ctx, extra_member, nextras, extras, extra_node, mcs, pc_names);
	jadd(w, pc, "member-classes", mcs);
	jadd(w, o, "packet-context-field-class", pc);

	json_object *eh = jtype("structure");
	mcs = json_object_new_array();
	fixed_member(w, mcs, "id", fixed_uint(w, id_bits, "event-record-class-id", 10));
	if (timed)
		fixed_member(w, mcs, "timestamp", fixed_uint(w, 64, "default-clock-timestamp", 10));
	static const char *const eh_names[] = {"id", "timestamp", NULL};
	if (!r)
		r = extra_members(w, TIO_SCOPE_EV_HEADER, sc->ev_header, hx->member, hx->n, hx->plan, hx->node, mcs, eh_names);
	jadd(w, eh, "member-classes", mcs);
	jadd(w, o, "event-record-header-field-class", eh);
	if (!r)
		r = scope_json(w, common, TIO_SCOPE_EV_COMMON_CTX, sc->ev_common_ctx, o, "event-record-common-context-field-class");
	if (r) {
		json_object_put(o);
		return r;
	}
	w->keep = w->nlocs;
	return emit(w, o);
}

/* LTTng's log level names (lttng.org,2009 "log-level"), by CTF 1 number. */
static const char *const loglevels[] = {
	"emergency",	"alert",      "critical",	"error",	 "warning",
	"notice",	"info",	      "debug:system",	"debug:program", "debug:process",
	"debug:module", "debug:unit", "debug:function", "debug:line",	 "debug",
};

int ctf2w_event_class(ctf2w *w, const tio_event_class *ec, wplan *spec, wplan *payload)
{
	locs_truncate(w, w->keep);
	snprintf(w->where, sizeof(w->where), "event class '%.200s' (id %" PRIu64 ")", ec->name ? ec->name : "", ec->id);
	json_object *o = jtype("event-record-class");
	jadd(w, o, "id", juint(ec->id));
	jadd(w, o, "data-stream-class-id", juint(ec->sc ? ec->sc->id : 0));
	if (ec->name)
		jadd(w, o, "name", jstr(ec->name));
	json_object *attrs = NULL, *other = NULL;
	int r = 0;
	for (uint32_t k = 0; k < ec->nattrs && !r; k++) {
		const tio_kv *kv = &ec->attrs[k];
		if (!kv->key)
			continue;
		if (!kv->is_int && (!strcmp(kv->key, "namespace") || !strcmp(kv->key, "uid"))) {
			jadd(w, o, kv->key, jstr(kv->sval));
		} else if (!kv->is_int && !strcmp(kv->key, "attributes")) {
			json_object *a = json_tokener_parse(kv->sval ? kv->sval : "");
			if (a && json_object_is_type(a, json_type_object)) {
				json_object_put(attrs);
				attrs = a;
			} else {
				/* not a CTF 2 reader's JSON object: kept as text under traceio */
				json_object_put(a);
				if (!other)
					other = json_object_new_object();
				jadd(w, other, kv->key, jstr(kv->sval ? kv->sval : ""));
			}
		} else {
			/* other formats' attributes (trace.dat: system, format, print_fmt) */
			if (!other)
				other = json_object_new_object();
			jadd(w, other, kv->key, kv->is_int ? jint(kv->ival) : jstr(kv->sval));
		}
	}
	if (r) {
		json_object_put(attrs);
		json_object_put(other);
		json_object_put(o);
		return r;
	}
	if (ec->loglevel != INT64_MIN || ec->emf_uri) {
		if (!attrs)
			attrs = json_object_new_object();
		json_object *lt = NULL;
		if (!json_object_object_get_ex(attrs, "lttng.org,2009", &lt) || !json_object_is_type(lt, json_type_object)) {
			lt = json_object_new_object();
			jadd(w, attrs, "lttng.org,2009", lt);
		}
		if (ec->loglevel != INT64_MIN)
			jadd(w, lt, "log-level",
			     ec->loglevel >= 0 && ec->loglevel < (int64_t)TIO_ARRAY_LEN(loglevels)
				     ? json_object_new_string(loglevels[ec->loglevel])
				     : jint(ec->loglevel));
		if (ec->emf_uri)
			jadd(w, lt, "emf-uri", jstr(ec->emf_uri));
	}
	if (other) {
		if (!attrs)
			attrs = json_object_new_object();
		jadd(w, attrs, "traceio", other);
	}
	if (attrs)
		jadd(w, o, "attributes", attrs);
	r = scope_json(w, spec, TIO_SCOPE_EV_SPEC_CTX, ec->spec_ctx, o, "specific-context-field-class");
	if (!r)
		r = scope_json(w, payload, TIO_SCOPE_PAYLOAD, ec->payload, o, "payload-field-class");
	if (r) {
		json_object_put(o);
		return r;
	}
	return emit(w, o);
}

void ctf2w_free(ctf2w *w)
{
	if (!w)
		return;
	locs_truncate(w, 0);
	free(w->locs);
	for (uint32_t k = 0; w->clock_ids && k < w->tc->nclocks; k++)
		free(w->clock_ids[k]);
	free(w->clock_ids);
	free(w);
}

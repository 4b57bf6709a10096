/*
 * Field classes of the model as CTF 1.8 TSDL text (CTF 1.8.3 sections 4
 * and 7), with the write plan that serializes their values (ctf-write.h).
 *
 * Names: CTF 1 readers remove one leading '_' from member and variant
 * option names (babeltrace2, traceio's reader), so every name is written
 * with one more '_' and reads back as the model has it.  Lengths and tags
 * are named by a relative path when they are earlier members of the same
 * structure, else by an absolute path (event.fields.a.len); what cannot be
 * named (no such field in CTF 1: trace.dat's __data_loc arrays, CTF 2
 * integer selectors) gets a member of its own just before.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "ctf/ctf-write.h"

int tsdlw_name(tio_buf *b, const char *name)
{
	int r = tio_buf_addc(b, '_');
	for (const char *p = name ? name : ""; *p && !r; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
		r = tio_buf_addc(b, ok ? c : '_');
	}
	return r;
}

int tsdlw_string(tio_buf *b, const char *s)
{
	int r = tio_buf_addc(b, '"');
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && !r; p++) {
		switch (*p) {
		case '"': r = tio_buf_addl(b, "\\\""); break;
		case '\\': r = tio_buf_addl(b, "\\\\"); break;
		case '\n': r = tio_buf_addl(b, "\\n"); break;
		case '\t': r = tio_buf_addl(b, "\\t"); break;
		case '\r': r = tio_buf_addl(b, "\\r"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				r = tio_buf_addf(b, "\\%03o", *p); /* octal: every TSDL lexer has it */
			else
				r = tio_buf_addc(b, (char)*p);
		}
	}
	return r ? r : tio_buf_addc(b, '"');
}

void wplan_free(wplan *p)
{
	free(p->nodes);
	memset(p, 0, sizeof(*p));
}

int wplan_push(wplan *p, const tio_fc *fc, uint8_t op, uint32_t *idx)
{
	if (tio_grow(&p->nodes, &p->cap, p->n + 1, sizeof(wnode)))
		return TIO_ERR_NOMEM;
	*idx = (uint32_t)p->n;
	p->nodes[p->n++] = (wnode){.fc = fc, .op = op, .align = fc ? fc->align : 8};
	return 0;
}

void tsdlw_paths_truncate(tsdlw *w, size_t n)
{
	while (w->npaths > n)
		free(w->paths[--w->npaths].path);
}

void tsdlw_free(tsdlw *w)
{
	tsdlw_paths_truncate(w, 0);
	free(w->paths);
	w->paths = NULL;
	w->cap = 0;
}

static int add_path(tsdlw *w, const tio_fc *fc, const char *prefix, const char *wname)
{
	if (tio_grow(&w->paths, &w->cap, w->npaths + 1, sizeof(wpath)))
		return TIO_ERR_NOMEM;
	char *p = tio_asprintf("%s.%s", prefix, wname);
	if (!p)
		return TIO_ERR_NOMEM;
	w->paths[w->npaths++] = (wpath){fc, p};
	return 0;
}

static void indent(tio_buf *b, int n)
{
	for (int i = 0; i < n; i++)
		tio_buf_addc(b, '\t');
}

static int unsupported(tsdlw *w, const char *name, const char *what)
{
	return tio_err_set(TIO_ERR_UNSUPPORTED, "%s, field '%s': %s cannot be written in CTF 1.8", w->where,
			   name ? name : "", what);
}

/* `integer { ... }` for an integer-like field class. */
static int int_spec(tsdlw *w, const tio_fc *fc, uint32_t size, bool is_signed, unsigned base, bool text)
{
	tio_buf *b = w->out;
	uint8_t bo = fc->kind == TIO_FC_VARINT ? w->tc->byte_order : fc->i.byte_order;
	tio_buf_addf(b, "integer { size = %" PRIu32 "; align = %" PRIu32 "; signed = %s; byte_order = %s; base = %u;",
		     size, fc->align, is_signed ? "true" : "false", bo == TIO_BE ? "be" : "le", base);
	if (text)
		tio_buf_addl(b, " encoding = UTF8;");
	if (w->map_clocks && fc->kind != TIO_FC_VARINT && fc->i.clock >= 0 &&
	    (uint32_t)fc->i.clock < w->tc->nclocks)
		tio_buf_addf(b, " map = clock.%s.value;", w->clock_names[fc->i.clock]);
	return tio_buf_addl(b, " }");
}

static int mappings(tsdlw *w, const tio_mapping *m, uint32_t n, bool is_signed, int ind)
{
	tio_buf *b = w->out;
	tio_buf_addl(b, " {\n");
	bool first = true;
	for (uint32_t k = 0; k < n; k++) {
		for (uint32_t r = 0; r < m[k].nranges; r++) {
			if (!first)
				tio_buf_addl(b, ",\n");
			first = false;
			indent(b, ind + 1);
			tsdlw_string(b, m[k].label);
			const tio_range *g = &m[k].ranges[r];
			if (is_signed)
				tio_buf_addf(b, " = %" PRId64, g->lo);
			else
				tio_buf_addf(b, " = %" PRIu64, (uint64_t)g->lo);
			if (g->hi != g->lo) {
				if (is_signed)
					tio_buf_addf(b, " ... %" PRId64, g->hi);
				else
					tio_buf_addf(b, " ... %" PRIu64, (uint64_t)g->hi);
			}
		}
	}
	tio_buf_addc(b, '\n');
	indent(b, ind);
	return tio_buf_addc(b, '}');
}

static bool has_ranges(const tio_mapping *m, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		if (m[k].nranges)
			return true;
	return false;
}

/*
 * The written name of member k of a structure: '_' + name, and "__N" after
 * it for the Nth member with that written name (trace.dat formats may
 * declare a name twice: sys_enter_io_getevents has two `nr`).
 */
static int member_name(tio_buf *b, const tio_member *sib, uint32_t k)
{
	tio_buf_reset(b);
	int r = tsdlw_name(b, sib[k].name);
	if (r)
		return r;
	unsigned dup = 0;
	tio_buf o = {0};
	for (uint32_t j = 0; j < k && !r; j++) {
		tio_buf_reset(&o);
		r = tsdlw_name(&o, sib[j].name);
		if (!r && o.len == b->len && !memcmp(o.p, b->p, b->len))
			dup++;
	}
	tio_buf_free(&o);
	if (!r && dup)
		r = tio_buf_addf(b, "__%u", dup + 1);
	return r;
}

/* Find how to name the length/tag field `target` from a member of a structure. */
static const char *ref_path(tsdlw *w, const tio_fc *target, const tio_member *sib, uint32_t nsib, tio_buf *tmp)
{
	if (!target)
		return NULL;
	for (uint32_t k = nsib; k-- > 0;) {
		if (sib[k].fc == target && target->role == TIO_ROLE_NONE)
			return member_name(tmp, sib, k) ? NULL : tio_buf_cstr(tmp);
	}
	for (size_t k = w->npaths; k-- > 0;)
		if (w->paths[k].fc == target)
			return w->paths[k].path;
	return NULL;
}

static bool is_ident(const char *s)
{
	if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/*
 * babeltrace2 matches a variant option to the tag label equal to the
 * option's name as written, then shows the name without one leading '_'.
 * So option k is written as its label, which must read back as the
 * option's name: label "_NAME", or "NAME" when NAME has no leading '_'.
 */
static bool label_fits(const char *l, const char *o)
{
	return l && o && ((l[0] == '_' && !strcmp(l + 1, o)) || (o[0] != '_' && !strcmp(l, o)));
}

/*
 * The tag label of option k: the one a CTF 1 reader kept, else (CTF 2:
 * options have selector ranges, not labels) the label of the selector
 * enumeration's mapping with exactly the option's ranges, one that reads
 * back as the option's name first.
 */
static const char *variant_label(const tio_fc *fc, uint32_t k)
{
	const tio_mapping *o = &fc->v.ranges[k];
	const tio_fc *t = fc->v.sel.target;
	if (o->label || !t || t->kind != TIO_FC_ENUM)
		return o->label;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t j = 0; j < t->i.nmappings; j++) {
			const tio_mapping *m = &t->i.mappings[j];
			if (m->nranges == o->nranges && o->nranges &&
			    !memcmp(m->ranges, o->ranges, o->nranges * sizeof(tio_range)) &&
			    (pass || label_fits(m->label, fc->v.options[k].name)))
				return m->label;
		}
	return NULL;
}

static bool variant_labels_ok(const tio_fc *fc)
{
	const tio_fc *target = fc->v.sel.target;
	if (!target || target->kind != TIO_FC_ENUM || !fc->v.ranges)
		return false;
	for (uint32_t k = 0; k < fc->v.noptions; k++) {
		const char *l = variant_label(fc, k), *o = fc->v.options[k].name;
		if (!l || !o || !is_ident(l))
			return false;
		if (!(l[0] == '_' && !strcmp(l + 1, o)) && !(o[0] != '_' && !strcmp(l, o)))
			return false;
	}
	return true;
}

static bool is_len_fc(const tio_fc *fc)
{
	return fc && (fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM) && !fc->i.is_signed && fc->i.size <= 64;
}

typedef struct mctx {
	const tio_member *sib; /* earlier members of the enclosing structure */
	uint32_t nsib;
	bool in_struct;	       /* a synthesized member can be declared before this one */
	const char *prefix;    /* absolute path of the enclosing structure, NULL if not referable */
	const char *wname;     /* the name to write as is (a variant option's label), or NULL */
} mctx;

static int type_spec(tsdlw *w, wplan *plan, const tio_fc *fc, const char *name, int ind, const mctx *mc,
		     uint32_t node);
static int struct_body(tsdlw *w, wplan *plan, const tio_fc *fc, int ind, const char *prefix);

/*
 * Declare one member: optional synthesized member, then `TYPE NAME[..][..];`.
 * Arrays and sequences become declarator suffixes, outermost first.
 */
static int member(tsdlw *w, wplan *plan, const tio_fc *fc, const char *name, int ind, const mctx *mc)
{
	tio_buf *b = w->out;
	tio_buf wn = {0}, tmp = {0}, suf = {0};
	int r = 0;
	if (mc->wname)
		r = tio_buf_adds(&wn, mc->wname);
	else if (mc->in_struct && mc->sib && mc->sib[mc->nsib].fc == fc)
		r = member_name(&wn, mc->sib, mc->nsib);
	else
		r = tsdlw_name(&wn, name);
	if (r)
		goto out;
	const char *wname = tio_buf_cstr(&wn);

	/* the first node of the member carries the synthesized value */
	uint32_t first = (uint32_t)plan->n;
	uint8_t synth = SYN_NONE;
	const char *synth_path = NULL;

	/* walk down arrays and sequences: nodes and suffixes */
	const tio_fc *t = fc;
	uint32_t chain[64];
	uint32_t nchain = 0;
	for (;;) {
		const char *lenpath = NULL;
		bool seq = t->kind == TIO_FC_SEQUENCE || t->kind == TIO_FC_DBLOB;
		bool arr = t->kind == TIO_FC_ARRAY || t->kind == TIO_FC_SSTRING || t->kind == TIO_FC_SBLOB;
		if (!seq && !arr)
			break;
		if (nchain == TIO_ARRAY_LEN(chain)) {
			r = unsupported(w, name, "an array nesting this deep");
			goto out;
		}
		if (seq) {
			const tio_fc *target = t->kind == TIO_FC_SEQUENCE ? t->a.len.target : t->s.len.target;
			if (is_len_fc(target))
				lenpath = ref_path(w, target, mc->sib, mc->nsib, &tmp);
			if (!lenpath) {
				if (nchain || !mc->in_struct) {
					r = unsupported(w, name, "a dynamic array without a length field, not in a structure,");
					goto out;
				}
				synth = SYN_LEN;
				tio_buf_reset(&tmp);
				tio_buf_adds(&tmp, wname);
				tio_buf_addl(&tmp, "__len");
				lenpath = synth_path = tio_buf_cstr(&tmp);
			}
			tio_buf_addf(&suf, "[%s]", lenpath);
		} else {
			uint64_t len = t->kind == TIO_FC_ARRAY ? t->a.length : t->s.length;
			tio_buf_addf(&suf, "[%" PRIu64 "]", len);
		}
		uint32_t idx;
		if ((r = wplan_push(plan, t, W_ARRAY, &idx)))
			goto out;
		wnode *nd = &plan->nodes[idx];
		chain[nchain++] = idx;
		if (t->kind == TIO_FC_SSTRING || t->kind == TIO_FC_SBLOB) {
			nd->op = W_SBYTES;
			nd->n = t->s.length;
			nd->align = 8;
			break;
		}
		if (t->kind == TIO_FC_DBLOB) {
			nd->op = W_DBYTES;
			nd->align = 8;
			break;
		}
		nd->op = t->kind == TIO_FC_ARRAY ? W_ARRAY : W_SEQ;
		nd->n = t->a.length;
		nd->nchild = 1;
		const tio_fc *e = t->a.elem;
		nd->text = e->kind == TIO_FC_INT && e->i.size == 8 && e->align == 8 && e->i.encoding;
		t = e;
	}
	if (synth) {
		indent(b, ind);
		tio_buf_addf(b, "integer { size = 32; align = 8; signed = false; byte_order = %s; base = 10; } %s;\n",
			     w->tc->byte_order == TIO_BE ? "be" : "le", synth_path);
	}

	/* the element type: bytes of BLOBs and static strings, or the innermost class */
	indent(b, ind);
	if (nchain && (plan->nodes[chain[nchain - 1]].op == W_SBYTES || plan->nodes[chain[nchain - 1]].op == W_DBYTES)) {
		const tio_fc *last = plan->nodes[chain[nchain - 1]].fc;
		bool text = last->kind == TIO_FC_SSTRING;
		tio_buf_addf(b, "integer { size = 8; align = 8; signed = false; byte_order = %s; base = %d;%s }",
			     w->tc->byte_order == TIO_BE ? "be" : "le", text ? 10 : 16, text ? " encoding = UTF8;" : "");
		if (text && last->s.encoding != TIO_ENC_UTF8 && last->s.encoding != TIO_ENC_NONE) {
			r = unsupported(w, name, "a UTF-16/UTF-32 string");
			goto out;
		}
	} else {
		uint32_t node;
		mctx inner = *mc;
		inner.wname = NULL;
		if (nchain) { /* elements are not members: no absolute path into them */
			inner.in_struct = false;
			inner.prefix = NULL;
		}
		if ((r = wplan_push(plan, t, W_INT, &node)))
			goto out;
		if ((r = type_spec(w, plan, t, name, ind, &inner, node)))
			goto out;
		if (!nchain && mc->prefix && (t->kind == TIO_FC_INT || t->kind == TIO_FC_ENUM) &&
		    (r = add_path(w, t, mc->prefix, wname)))
			goto out;
	}
	for (uint32_t k = 0; k < nchain; k++)
		plan->nodes[chain[k]].next = (uint32_t)plan->n;
	if (synth)
		plan->nodes[first].synth = synth;
	tio_buf_addc(b, ' ');
	tio_buf_adds(b, wname);
	tio_buf_add(b, suf.p ? suf.p : "", suf.len);
	r = tio_buf_addl(b, ";\n");
out:
	tio_buf_free(&wn);
	tio_buf_free(&tmp);
	tio_buf_free(&suf);
	return r;
}

/* The type specifier of a non-array class; node `node` was pushed for it. */
static int type_spec(tsdlw *w, wplan *plan, const tio_fc *fc, const char *name, int ind, const mctx *mc,
		     uint32_t node)
{
	tio_buf *b = w->out;
	wnode *nd = &plan->nodes[node];
	int r = 0;
	switch (fc->kind) {
	case TIO_FC_INT:
		if (fc->i.size > 64 || fc->i.size == 0)
			return unsupported(w, name, "an integer wider than 64 bits");
		nd->op = W_INT;
		nd->size = fc->i.size;
		nd->be = fc->i.byte_order == TIO_BE;
		r = int_spec(w, fc, fc->i.size, fc->i.is_signed, fc->i.base, fc->i.encoding != TIO_ENC_NONE);
		break;
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		if (fc->i.size > 64 || fc->i.size == 0)
			return unsupported(w, name, "a boolean or bit map wider than 64 bits");
		nd->op = W_INT;
		nd->size = fc->i.size;
		nd->be = fc->i.byte_order == TIO_BE;
		r = int_spec(w, fc, fc->i.size, false, fc->kind == TIO_FC_BITMAP ? 16 : 10, false);
		break;
	case TIO_FC_ENUM:
		if (fc->i.size > 64 || fc->i.size == 0)
			return unsupported(w, name, "an enumeration wider than 64 bits");
		nd->op = W_INT;
		nd->size = fc->i.size;
		nd->be = fc->i.byte_order == TIO_BE;
		if (!has_ranges(fc->i.mappings, fc->i.nmappings)) /* TSDL needs one entry */
			return int_spec(w, fc, fc->i.size, fc->i.is_signed, fc->i.base, false);
		tio_buf_addl(b, "enum : ");
		int_spec(w, fc, fc->i.size, fc->i.is_signed, fc->i.base, fc->i.encoding != TIO_ENC_NONE);
		r = mappings(w, fc->i.mappings, fc->i.nmappings, fc->i.is_signed, ind);
		break;
	case TIO_FC_VARINT:
		nd->op = W_VARINT;
		nd->size = 64;
		nd->align = 8;
		nd->be = w->tc->byte_order == TIO_BE;
		if (fc->vi.nmappings && has_ranges(fc->vi.mappings, fc->vi.nmappings)) {
			tio_buf_addl(b, "enum : ");
			int_spec(w, fc, 64, fc->vi.is_signed, fc->vi.base, false);
			r = mappings(w, fc->vi.mappings, fc->vi.nmappings, fc->vi.is_signed, ind);
		} else {
			r = int_spec(w, fc, 64, fc->vi.is_signed, fc->vi.base, false);
		}
		break;
	case TIO_FC_FLOAT:
		if (fc->f.exp_dig < 2 || fc->f.mant_dig < 2 || fc->f.exp_dig > 11 || fc->f.mant_dig > 53)
			return unsupported(w, name, "a floating point number wider than binary64");
		nd->op = W_FLOAT;
		nd->size = fc->f.exp_dig + fc->f.mant_dig;
		nd->be = fc->f.byte_order == TIO_BE;
		r = tio_buf_addf(b, "floating_point { exp_dig = %" PRIu32 "; mant_dig = %" PRIu32 "; byte_order = %s; align = %" PRIu32 "; }",
				 fc->f.exp_dig, fc->f.mant_dig, fc->f.byte_order == TIO_BE ? "be" : "le", fc->align);
		break;
	case TIO_FC_STRING:
	case TIO_FC_DSTRING:
		if (fc->s.encoding == TIO_ENC_UTF16 || fc->s.encoding == TIO_ENC_UTF32)
			return unsupported(w, name, "a UTF-16/UTF-32 string");
		nd->op = W_STRING;
		nd->align = 8;
		r = tio_buf_addl(b, "string");
		break;
	case TIO_FC_STRUCT:
		nd->op = W_STRUCT;
		nd->nchild = fc->st.nmembers;
		tio_buf_addl(b, "struct {\n");
		if ((r = struct_body(w, plan, fc, ind + 1, mc->prefix ? mc->prefix : NULL)))
			return r;
		indent(b, ind);
		tio_buf_addc(b, '}');
		uint32_t ma = 1;
		for (uint32_t k = 0; k < fc->st.nmembers; k++)
			if (fc->st.members[k].fc->kind != TIO_FC_VARIANT && fc->st.members[k].fc->align > ma)
				ma = fc->st.members[k].fc->align;
		if (fc->align > ma)
			tio_buf_addf(b, " align(%" PRIu32 ")", fc->align);
		break;
	case TIO_FC_VARIANT: {
		nd->op = W_VARIANT;
		nd->nchild = fc->v.noptions;
		nd->align = 1;
		tio_buf tmp = {0};
		const char *tag = NULL;
		bool labels_ok = variant_labels_ok(fc);
		if (labels_ok)
			tag = ref_path(w, fc->v.sel.target, mc->sib, mc->nsib, &tmp);
		if (tag && strchr(tag, '.'))
			tag = NULL; /* babeltrace2's TSDL grammar takes an identifier between < > */
		if (!tag) {
			if (!mc->in_struct) {
				tio_buf_free(&tmp);
				return unsupported(w, name, "a variant without an enumeration tag, not in a structure,");
			}
			/* the synthesized tag was declared by member() just before: see SYN_TAG there */
			nd->synth = SYN_TAG;
			tio_buf_reset(&tmp);
			tsdlw_name(&tmp, name);
			tio_buf_addl(&tmp, "__tag");
			tag = tio_buf_cstr(&tmp);
		}
		bool tag_is_enum = nd->synth != SYN_TAG;
		tio_buf_addf(b, "variant <%s> {\n", tag);
		tio_buf_free(&tmp);
		for (uint32_t k = 0; k < fc->v.noptions; k++) {
			mctx oc = {.sib = mc->sib, .nsib = mc->nsib, .in_struct = false, .prefix = NULL,
				   .wname = tag_is_enum ? variant_label(fc, k) : NULL};
			char nm[32];
			const char *on = fc->v.options[k].name;
			if (!on) {
				snprintf(nm, sizeof(nm), "option%" PRIu32, k);
				on = nm;
			}
			if ((r = member(w, plan, fc->v.options[k].fc, on, ind + 1, &oc)))
				return r;
		}
		indent(b, ind);
		r = tio_buf_addc(b, '}');
		break;
	}
	case TIO_FC_OPTIONAL:
		return unsupported(w, name, "an optional field");
	default:
		return unsupported(w, name, "this field class");
	}
	plan->nodes[node].next = (uint32_t)plan->n;
	return r;
}

/* Synthesized variant tag: an enum whose labels are the option names as written. */
static int synth_tag(tsdlw *w, const tio_fc *fc, const char *name, int ind)
{
	tio_buf *b = w->out;
	indent(b, ind);
	tio_buf_addf(b, "enum : integer { size = 32; align = 8; signed = false; byte_order = %s; base = 10; } {\n",
		     w->tc->byte_order == TIO_BE ? "be" : "le");
	for (uint32_t k = 0; k < fc->v.noptions; k++) {
		indent(b, ind + 1);
		tio_buf_addc(b, '"');
		char nm[32];
		const char *on = fc->v.options[k].name;
		if (!on) {
			snprintf(nm, sizeof(nm), "option%" PRIu32, k);
			on = nm;
		}
		tsdlw_name(b, on);
		tio_buf_addf(b, "\" = %" PRIu32 "%s\n", k, k + 1 < fc->v.noptions ? "," : "");
	}
	indent(b, ind);
	tio_buf_addc(b, '}');
	tio_buf_addc(b, ' ');
	tsdlw_name(b, name);
	return tio_buf_addl(b, "__tag;\n");
}

static bool variant_needs_tag(tsdlw *w, const tio_fc *fc, const tio_member *sib, uint32_t nsib)
{
	if (!variant_labels_ok(fc))
		return true;
	tio_buf tmp = {0};
	const char *p = ref_path(w, fc->v.sel.target, sib, nsib, &tmp);
	bool found = p && !strchr(p, '.'); /* see type_spec(): no absolute tag */
	tio_buf_free(&tmp);
	return !found;
}

static int struct_body(tsdlw *w, wplan *plan, const tio_fc *fc, int ind, const char *prefix)
{
	int r = 0;
	for (uint32_t k = 0; k < fc->st.nmembers && !r; k++) {
		const tio_member *m = &fc->st.members[k];
		tio_buf np = {0};
		if (prefix) {
			tio_buf nm = {0};
			member_name(&nm, fc->st.members, k);
			tio_buf_adds(&np, prefix);
			tio_buf_addc(&np, '.');
			tio_buf_adds(&np, tio_buf_cstr(&nm));
			tio_buf_free(&nm);
		}
		mctx mc = {.sib = fc->st.members, .nsib = k, .in_struct = true,
			   .prefix = m->fc->kind == TIO_FC_STRUCT ? (prefix ? tio_buf_cstr(&np) : NULL) : prefix};
		if (m->fc->kind == TIO_FC_VARIANT && variant_needs_tag(w, m->fc, fc->st.members, k))
			r = synth_tag(w, m->fc, m->name, ind);
		if (!r)
			r = member(w, plan, m->fc, m->name, ind, &mc);
		tio_buf_free(&np);
	}
	return r;
}

int tsdlw_member(tsdlw *w, wplan *plan, const tio_fc *fc, const char *name, int ind, const char *prefix,
		 const tio_member *siblings, uint32_t nsiblings)
{
	tio_buf np = {0};
	if (prefix && fc->kind == TIO_FC_STRUCT) {
		tio_buf_adds(&np, prefix);
		tio_buf_addc(&np, '.');
		tsdlw_name(&np, name);
	}
	mctx mc = {.sib = siblings, .nsib = nsiblings, .in_struct = true,
		   .prefix = fc->kind == TIO_FC_STRUCT ? (prefix ? tio_buf_cstr(&np) : NULL) : prefix};
	int r = 0;
	if (fc->kind == TIO_FC_VARIANT && variant_needs_tag(w, fc, siblings, nsiblings))
		r = synth_tag(w, fc, name, ind);
	if (!r)
		r = member(w, plan, fc, name, ind, &mc);
	tio_buf_free(&np);
	return r;
}

int tsdlw_scope(tsdlw *w, wplan *plan, const char *decl, const tio_fc *fc, int ind, const char *abs_prefix)
{
	tio_buf *b = w->out;
	if (fc->kind != TIO_FC_STRUCT)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: %s is not a structure", w->where, decl);
	uint32_t node;
	int r = wplan_push(plan, fc, W_STRUCT, &node);
	if (r)
		return r;
	indent(b, ind);
	tio_buf_adds(b, decl);
	tio_buf_addl(b, " := ");
	mctx mc = {.in_struct = false, .prefix = abs_prefix};
	if ((r = type_spec(w, plan, fc, decl, ind, &mc, node)))
		return r;
	return tio_buf_addl(b, ";\n");
}

/* ---------------------------------------------------------------- bits */

void tio_put_bits_le(uint8_t *p, uint64_t at, unsigned len, uint64_t v)
{
	while (len) {
		uint8_t *q = p + (at >> 3);
		unsigned sh = (unsigned)(at & 7);
		unsigned n = 8 - sh < len ? 8 - sh : len;
		uint8_t mask = (uint8_t)(((1u << n) - 1) << sh);
		*q = (uint8_t)((*q & ~mask) | (((unsigned)v << sh) & mask));
		v = n == 64 ? 0 : v >> n;
		at += n;
		len -= n;
	}
}

void tio_put_bits_be(uint8_t *p, uint64_t at, unsigned len, uint64_t v)
{
	while (len) {
		uint8_t *q = p + (at >> 3);
		unsigned sh = (unsigned)(at & 7); /* bits already used, from the most significant */
		unsigned n = 8 - sh < len ? 8 - sh : len;
		unsigned low = 8 - sh - n;	  /* position of the chunk's lowest bit */
		uint64_t chunk = (v >> (len - n)) & ((1u << n) - 1);
		uint8_t mask = (uint8_t)(((1u << n) - 1) << low);
		*q = (uint8_t)((*q & ~mask) | ((chunk << low) & mask));
		at += n;
		len -= n;
	}
}

uint64_t tio_float_bits(double d, unsigned exp_dig, unsigned mant_dig)
{
	uint64_t x;
	memcpy(&x, &d, 8);
	if (exp_dig == 11 && mant_dig == 53)
		return x;
	if (exp_dig == 8 && mant_dig == 24) {
		float f = (float)d;
		uint32_t y;
		memcpy(&y, &f, 4);
		return y;
	}
	/* any other binary format: re-bias the exponent, keep the top mantissa bits */
	unsigned m = mant_dig - 1; /* stored mantissa bits */
	uint64_t sign = x >> 63;
	int e = (int)((x >> 52) & 0x7ff);
	uint64_t frac = x & ((1ULL << 52) - 1);
	int bias = (1 << (exp_dig - 1)) - 1;
	uint64_t emax = (1ULL << exp_dig) - 1;
	uint64_t oe, of;
	if (e == 0x7ff) { /* inf, nan */
		oe = emax;
		of = frac ? (frac >> (52 - m)) | (1ULL << (m - 1)) : 0;
	} else if (e == 0 && frac == 0) {
		oe = of = 0;
	} else {
		int ue = e - 1023; /* unbiased (normal numbers of binary64) */
		uint64_t full = (1ULL << 52) | frac;
		if (e == 0) { /* binary64 subnormal: too small for any narrower format */
			oe = of = 0;
		} else if (ue + bias >= (int)emax) {
			oe = emax;
			of = 0;
		} else if (ue + bias >= 1) {
			oe = (uint64_t)(ue + bias);
			of = frac >> (52 - m);
		} else { /* subnormal in the target format */
			int shift = 52 - (int)m + (1 - (ue + bias));
			oe = 0;
			of = shift >= 64 ? 0 : full >> shift;
		}
	}
	return (sign << (exp_dig + m)) | (oe << m) | of;
}

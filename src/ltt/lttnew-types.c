/*
 * New LTT format event type descriptions (seed 001, "Event type
 * descriptions"): <facility> elements of the eventdefs XML files, their canonical
 * text (written by the writer, covered by the checksum), the builtin
 * facility, and the mapping to and from the model's field classes.
 */
#include <stdlib.h>
#include <zlib.h>

#include "ltt/lttnew.h"

#define LT_MAX_DEPTH 64

void lt_type_free(lt_type *t)
{
	if (!t)
		return;
	free(t->size);
	free(t->format);
	free(t->ref);
	for (uint32_t i = 0; i < t->nlabels; i++)
		free(t->labels[i]);
	free(t->labels);
	for (uint32_t i = 0; i < t->nfields; i++) {
		free(t->fields[i].name);
		free(t->fields[i].desc);
		lt_type_free(t->fields[i].t);
	}
	free(t->fields);
	lt_type_free(t->elem);
	free(t);
}

void lt_facility_free(lt_facility *f)
{
	if (!f)
		return;
	free(f->name);
	free(f->desc);
	for (uint32_t i = 0; i < f->nevents; i++) {
		free(f->events[i].name);
		free(f->events[i].desc);
		lt_type_free(f->events[i].t);
	}
	free(f->events);
	for (uint32_t i = 0; i < f->ntypes; i++) {
		free(f->types[i].name);
		lt_type_free(f->types[i].t);
	}
	free(f->types);
	lt_facility_free(f->builtin);
	free(f);
}

uint32_t lt_size(const char *w, const lt_arch *a)
{
	if (!w)
		return 0;
	if (!strcmp(w, "short"))
		return 2;
	if (!strcmp(w, "medium"))
		return a ? a->int_size : 4;
	if (!strcmp(w, "long"))
		return a ? a->long_size : 4;
	if (!strcmp(w, "1") || !strcmp(w, "2") || !strcmp(w, "4") || !strcmp(w, "8"))
		return (uint32_t)(w[0] - '0');
	return 0;
}

static const char *const kind_names[] = {"int", "uint", "float", "string", "enum",
					 "array", "sequence", "struct", "union", "typeref"};

static int kind_of(const char *name)
{
	for (size_t i = 0; i < TIO_ARRAY_LEN(kind_names); i++)
		if (!strcmp(kind_names[i], name))
			return (int)i;
	return -1;
}

static char *dup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *d = tio_strdup(s);
	*oom |= !d;
	return d;
}

static int type_from_xml(const lx_node *n, const char *path, int depth, lt_type **out);

/* The first child element that is a type. */
static const lx_node *type_child(const lx_node *n)
{
	for (uint32_t i = 0; i < n->nkids; i++)
		if (kind_of(n->kids[i]->name) >= 0)
			return n->kids[i];
	return NULL;
}

static const char *child_text(const lx_node *n, const char *name)
{
	for (uint32_t i = 0; i < n->nkids; i++)
		if (!strcmp(n->kids[i]->name, name))
			return n->kids[i]->text ? n->kids[i]->text : "";
	return NULL;
}

static int xerr(const char *path, const lx_node *n, const char *what)
{
	return tio_err_set(TIO_ERR_FORMAT, "%s:%u: <%s>: %s", path, n->line, n->name, what);
}

static int fields_from_xml(const lx_node *n, const char *path, int depth, lt_type *t)
{
	for (uint32_t i = 0; i < n->nkids; i++) {
		const lx_node *f = n->kids[i];
		if (strcmp(f->name, "field"))
			continue;
		const char *fname = lx_attr_get(f, "name");
		const lx_node *tn = type_child(f);
		if (!fname || !tn)
			return xerr(path, f, !fname ? "no name attribute" : "no type inside");
		lt_field *nf = tio_realloc(t->fields, (t->nfields + 1) * sizeof(*nf));
		if (!nf)
			return TIO_ERR_NOMEM;
		t->fields = nf;
		lt_field *fl = &t->fields[t->nfields];
		memset(fl, 0, sizeof(*fl));
		t->nfields++;
		bool oom = false;
		fl->name = dup_or_null(fname, &oom);
		fl->desc = dup_or_null(child_text(f, "description"), &oom);
		if (oom)
			return TIO_ERR_NOMEM;
		int r = type_from_xml(tn, path, depth + 1, &fl->t);
		if (r)
			return r;
	}
	return 0;
}

static int type_from_xml(const lx_node *n, const char *path, int depth, lt_type **out)
{
	if (depth > LT_MAX_DEPTH)
		return xerr(path, n, "types nested too deep");
	lt_type *t = tio_calloc(1, sizeof(*t));
	if (!t)
		return TIO_ERR_NOMEM;
	t->kind = kind_of(n->name);
	bool oom = false;
	int r = 0;
	const char *size = lx_attr_get(n, "size");
	t->format = dup_or_null(lx_attr_get(n, "format"), &oom);
	switch (t->kind) {
	case LT_INT:
	case LT_UINT:
	case LT_ENUM:
	case LT_FLOAT:
		if (!size)
			r = xerr(path, n, "no size attribute");
		else if (!lt_size(size, NULL) || (t->kind == LT_FLOAT && lt_size(size, NULL) < 4 &&
						   strcmp(size, "medium") && strcmp(size, "long")))
			r = xerr(path, n, "size is not one of short, medium, long, 1, 2, 4, 8");
		t->size = dup_or_null(size, &oom);
		if (!r && t->kind == LT_ENUM && n->text) {
			char *copy = tio_strdup(n->text);
			oom |= !copy;
			for (char *tok = copy ? strtok(copy, " \t\r\n") : NULL; tok && !oom; tok = strtok(NULL, " \t\r\n")) {
				char **nl = tio_realloc(t->labels, (t->nlabels + 1) * sizeof(char *));
				if (!nl) {
					oom = true;
					break;
				}
				t->labels = nl;
				t->labels[t->nlabels] = tio_strdup(tok);
				oom |= !t->labels[t->nlabels];
				t->nlabels += !oom;
			}
			free(copy);
		}
		break;
	case LT_STRING:
		break;
	case LT_ARRAY:
	case LT_SEQUENCE: {
		const char *sz = t->kind == LT_ARRAY ? size : lx_attr_get(n, "lengthsize");
		if (!sz)
			r = xerr(path, n, t->kind == LT_ARRAY ? "no size attribute" : "no lengthsize attribute");
		else if (t->kind == LT_SEQUENCE && !lt_size(sz, NULL))
			r = xerr(path, n, "lengthsize is not one of short, medium, long, 1, 2, 4, 8");
		else if (t->kind == LT_ARRAY && (strspn(sz, "0123456789") != strlen(sz) || !*sz || strlen(sz) > 9))
			r = xerr(path, n, "size is not a number");
		t->size = dup_or_null(sz, &oom);
		const lx_node *e = type_child(n);
		if (!r && !e)
			r = xerr(path, n, "no element type inside");
		if (!r)
			r = type_from_xml(e, path, depth + 1, &t->elem);
		break;
	}
	case LT_STRUCT:
		r = fields_from_xml(n, path, depth, t);
		break;
	case LT_UNION: {
		const char *sz = lx_attr_get(n, "typecodesize");
		if (!sz || !lt_size(sz, NULL))
			r = xerr(path, n, "typecodesize is not one of short, medium, long, 1, 2, 4, 8");
		t->size = dup_or_null(sz, &oom);
		if (!r)
			r = fields_from_xml(n, path, depth, t);
		break;
	}
	case LT_TYPEREF:
		t->ref = dup_or_null(lx_attr_get(n, "name"), &oom);
		if (!t->ref && !oom)
			r = xerr(path, n, "no name attribute");
		break;
	default:
		r = xerr(path, n, "not a type");
	}
	if (oom && !r)
		r = TIO_ERR_NOMEM;
	if (r) {
		lt_type_free(t);
		return r;
	}
	*out = t;
	return 0;
}

/* A facility's types by name (then by order: the first of a name is the one typerefs name). */
typedef struct lt_byname {
	const char *name;
	uint32_t i;
} lt_byname;

static int byname_cmp(const void *a, const void *b)
{
	const lt_byname *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* `byname`: f's types sorted by byname_cmp (a linear search per typeref was
 * quadratic: 3.3 s for 30,000 types of 1.3 MB). */
static const lt_type *find_named(const lt_facility *f, const lt_byname *byname, const lt_facility *builtin,
				 const char *name)
{
	uint32_t lo = 0, hi = f->ntypes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (strcmp(byname[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->ntypes && !strcmp(byname[lo].name, name))
		return f->types[byname[lo].i].t;
	for (uint32_t i = 0; builtin && i < builtin->ntypes; i++)
		if (!strcmp(builtin->types[i].name, name))
			return builtin->types[i].t;
	return NULL;
}

static int resolve(lt_type *t, const lt_facility *f, const lt_byname *byname, const lt_facility *builtin, const char *path,
		   int depth)
{
	if (!t)
		return 0;
	if (depth > LT_MAX_DEPTH)
		return tio_err_set(TIO_ERR_FORMAT, "%s: facility %s: typerefs nested too deep (a cycle?)", path, f->name);
	if (t->kind == LT_TYPEREF) {
		t->target = find_named(f, byname, builtin, t->ref);
		if (!t->target)
			return tio_err_set(TIO_ERR_FORMAT, "%s: facility %s: typeref to '%s', which no <type> defines",
					   path, f->name, t->ref);
		return 0;
	}
	for (uint32_t i = 0; i < t->nfields; i++) {
		int r = resolve(t->fields[i].t, f, byname, builtin, path, depth + 1);
		if (r)
			return r;
	}
	return resolve(t->elem, f, byname, builtin, path, depth + 1);
}

/*
 * A typeref chain must end: follow it to make sure.  Each type's nesting is
 * found once (t->height) and reused: a type reached again through other
 * typerefs is not walked again (types each naming the next twice made the
 * walk exponential, 50 s for 31 of them).  Typerefs point into the
 * facilities' own types, which this fills in.
 */
static int check_cycles(const lt_type *t, const char *path, int depth)
{
	if (!t)
		return 0;
	if (depth > LT_MAX_DEPTH || (t->height && depth + t->height - 1 > LT_MAX_DEPTH))
		return tio_err_set(TIO_ERR_FORMAT, "%s: typerefs nested too deep (a cycle?)", path);
	if (t->height)
		return 0;
	const lt_type *kids[2] = {t->kind == LT_TYPEREF ? t->target : NULL, t->elem};
	int h = 0;
	for (uint32_t i = 0; i < t->nfields + 2; i++) {
		const lt_type *k = i < 2 ? kids[i] : t->fields[i - 2].t;
		int r = check_cycles(k, path, depth + 1);
		if (r)
			return r;
		if (k && k->height > h)
			h = k->height;
	}
	((lt_type *)t)->height = (uint8_t)(h + 1);
	return 0;
}

static int facility_build(const lx_node *n, const char *path, const lt_facility *builtin, lt_facility **out)
{
	const char *name = lx_attr_get(n, "name");
	if (!name)
		return xerr(path, n, "no name attribute");
	lt_facility *f = tio_calloc(1, sizeof(*f));
	if (!f)
		return TIO_ERR_NOMEM;
	bool oom = false;
	f->name = dup_or_null(name, &oom);
	f->desc = dup_or_null(child_text(n, "description"), &oom);
	int r = oom ? TIO_ERR_NOMEM : 0;
	size_t ecap = 0, tcap = 0;
	for (uint32_t i = 0; i < n->nkids && !r; i++) {
		const lx_node *k = n->kids[i];
		bool ev = !strcmp(k->name, "event");
		if (!ev && strcmp(k->name, "type"))
			continue;
		const char *kn = lx_attr_get(k, "name");
		const lx_node *tn = type_child(k);
		if (!kn || !tn) {
			r = xerr(path, k, !kn ? "no name attribute" : "no type inside");
			break;
		}
		lt_type *t;
		r = type_from_xml(tn, path, 0, &t);
		if (r)
			break;
		if (ev) {
			if (tio_grow(&f->events, &ecap, f->nevents + 1, sizeof(*f->events))) {
				lt_type_free(t);
				r = TIO_ERR_NOMEM;
				break;
			}
			lt_event *ne = f->events;
			ne[f->nevents].t = t;
			ne[f->nevents].name = dup_or_null(kn, &oom);
			ne[f->nevents].desc = dup_or_null(child_text(k, "description"), &oom);
			f->nevents++;
		} else {
			if (tio_grow(&f->types, &tcap, f->ntypes + 1, sizeof(*f->types))) {
				lt_type_free(t);
				r = TIO_ERR_NOMEM;
				break;
			}
			lt_named *nt = f->types;
			nt[f->ntypes].t = t;
			nt[f->ntypes].name = dup_or_null(kn, &oom);
			f->ntypes++;
		}
		if (oom)
			r = TIO_ERR_NOMEM;
	}
	lt_byname *byname = NULL;
	if (!r && f->ntypes) {
		byname = tio_calloc(f->ntypes, sizeof(*byname));
		if (!byname)
			r = TIO_ERR_NOMEM;
		for (uint32_t i = 0; byname && i < f->ntypes; i++)
			byname[i] = (lt_byname){f->types[i].name, i};
		if (byname)
			qsort(byname, f->ntypes, sizeof(*byname), byname_cmp);
	}
	for (uint32_t i = 0; i < f->ntypes && !r; i++)
		r = resolve(f->types[i].t, f, byname, builtin, path, 0);
	for (uint32_t i = 0; i < f->nevents && !r; i++)
		r = resolve(f->events[i].t, f, byname, builtin, path, 0);
	free(byname);
	for (uint32_t i = 0; i < f->nevents && !r; i++)
		r = check_cycles(f->events[i].t, path, 0);
	tio_buf b = {0};
	if (!r)
		r = lt_facility_text(f, &b);
	if (!r)
		f->checksum = (uint32_t)crc32(0L, (const Bytef *)b.p, (uInt)b.len);
	tio_buf_free(&b);
	if (r) {
		lt_facility_free(f);
		return r;
	}
	*out = f;
	return 0;
}

static const char builtin_xml[] =
	"<facility name=builtin>\n"
	"  <description>Events every trace has</description>\n"
	"  <event name=facility_load>\n"
	"    <description>Facility used in the trace</description>\n"
	"    <struct>\n"
	"      <field name=name><string/></field>\n"
	"      <field name=checksum><uint size=4/></field>\n"
	"      <field name=base_code><uint size=4/></field>\n"
	"    </struct>\n"
	"  </event>\n"
	"  <event name=block_start><description>Block start timestamp</description><typeref name=block_timestamp/></event>\n"
	"  <event name=block_end><description>Block end timestamp</description><typeref name=block_timestamp/></event>\n"
	"  <event name=time_heartbeat><description>System time values sent periodically</description><typeref name=timestamp/></event>\n"
	"  <type name=block_timestamp><struct>\n"
	"    <field name=timestamp><typeref name=timestamp/></field>\n"
	"    <field name=block_id><uint size=4/></field>\n"
	"  </struct></type>\n"
	"  <type name=timestamp><struct>\n"
	"    <field name=time><typeref name=timespec/></field>\n"
	"    <field name=cycle_count><uint size=8/></field>\n"
	"  </struct></type>\n"
	"  <type name=timespec><struct>\n"
	"    <field name=seconds><uint size=4/></field>\n"
	"    <field name=nanoseconds><uint size=4/></field>\n"
	"  </struct></type>\n"
	"</facility>\n";

int lt_builtin(lt_facility **out)
{
	lx_node *root;
	int r = lx_parse(builtin_xml, sizeof(builtin_xml) - 1, "builtin", &root);
	if (r)
		return r;
	r = root->nkids ? facility_build(root->kids[0], "builtin", NULL, out) : TIO_ERR_FORMAT;
	lx_free(root);
	return r;
}

int lt_facility_from_xml(const lx_node *n, const char *path, lt_facility **out)
{
	lt_facility *b;
	int r = lt_builtin(&b);
	if (r)
		return r;
	r = facility_build(n, path, b, out);
	if (r)
		lt_facility_free(b);
	else
		(*out)->builtin = b; /* typerefs to builtin types point into it */
	return r;
}

/* ---------------------------------------------------------------- canonical text */

static int add_attr(tio_buf *b, const char *name, const char *v)
{
	if (!v)
		return 0;
	int r = tio_buf_addf(b, " %s=\"", name);
	for (const char *p = v; !r && *p; p++) {
		switch (*p) {
		case '"': r = tio_buf_adds(b, "&quot;"); break;
		case '&': r = tio_buf_adds(b, "&amp;"); break;
		case '<': r = tio_buf_adds(b, "&lt;"); break;
		case '>': r = tio_buf_adds(b, "&gt;"); break;
		default: r = tio_buf_addc(b, *p);
		}
	}
	return r ? r : tio_buf_addc(b, '"');
}

static int add_text_esc(tio_buf *b, const char *v)
{
	int r = 0;
	for (const char *p = v; !r && *p; p++) {
		switch (*p) {
		case '&': r = tio_buf_adds(b, "&amp;"); break;
		case '<': r = tio_buf_adds(b, "&lt;"); break;
		case '>': r = tio_buf_adds(b, "&gt;"); break;
		default: r = tio_buf_addc(b, *p);
		}
	}
	return r;
}

static int indent(tio_buf *b, int n)
{
	for (int i = 0; i < n; i++)
		if (tio_buf_adds(b, "  "))
			return TIO_ERR_NOMEM;
	return 0;
}

static int type_text(const lt_type *t, tio_buf *b, int ind)
{
	int r = indent(b, ind);
	r = r ? r : tio_buf_addf(b, "<%s", kind_names[t->kind]);
	switch (t->kind) {
	case LT_INT:
	case LT_UINT:
	case LT_FLOAT:
	case LT_STRING:
		r = r ? r : add_attr(b, "size", t->size);
		r = r ? r : add_attr(b, "format", t->format);
		return r ? r : tio_buf_adds(b, "/>\n");
	case LT_TYPEREF:
		r = r ? r : add_attr(b, "name", t->ref);
		return r ? r : tio_buf_adds(b, "/>\n");
	case LT_ENUM:
		r = r ? r : add_attr(b, "size", t->size);
		r = r ? r : add_attr(b, "format", t->format);
		r = r ? r : tio_buf_addc(b, '>');
		for (uint32_t i = 0; !r && i < t->nlabels; i++) {
			if (i)
				r = tio_buf_addc(b, ' ');
			r = r ? r : add_text_esc(b, t->labels[i]);
		}
		return r ? r : tio_buf_adds(b, "</enum>\n");
	case LT_ARRAY:
	case LT_SEQUENCE:
		r = r ? r : add_attr(b, t->kind == LT_ARRAY ? "size" : "lengthsize", t->size);
		r = r ? r : tio_buf_adds(b, ">\n");
		r = r ? r : type_text(t->elem, b, ind + 1);
		r = r ? r : indent(b, ind);
		return r ? r : tio_buf_addf(b, "</%s>\n", kind_names[t->kind]);
	case LT_STRUCT:
	case LT_UNION:
		if (t->kind == LT_UNION)
			r = r ? r : add_attr(b, "typecodesize", t->size);
		r = r ? r : tio_buf_adds(b, ">\n");
		for (uint32_t i = 0; !r && i < t->nfields; i++) {
			r = indent(b, ind + 1);
			r = r ? r : tio_buf_adds(b, "<field");
			r = r ? r : add_attr(b, "name", t->fields[i].name);
			r = r ? r : tio_buf_adds(b, ">\n");
			if (!r && t->fields[i].desc) {
				r = indent(b, ind + 2);
				r = r ? r : tio_buf_adds(b, "<description>");
				r = r ? r : add_text_esc(b, t->fields[i].desc);
				r = r ? r : tio_buf_adds(b, "</description>\n");
			}
			r = r ? r : type_text(t->fields[i].t, b, ind + 2);
			r = r ? r : indent(b, ind + 1);
			r = r ? r : tio_buf_adds(b, "</field>\n");
		}
		r = r ? r : indent(b, ind);
		return r ? r : tio_buf_addf(b, "</%s>\n", kind_names[t->kind]);
	}
	return r;
}

int lt_facility_text(const lt_facility *f, tio_buf *b)
{
	int r = tio_buf_adds(b, "<facility");
	r = r ? r : add_attr(b, "name", f->name);
	r = r ? r : tio_buf_adds(b, ">\n");
	if (!r && f->desc) {
		r = tio_buf_adds(b, "  <description>");
		r = r ? r : add_text_esc(b, f->desc);
		r = r ? r : tio_buf_adds(b, "</description>\n");
	}
	for (uint32_t i = 0; !r && i < f->nevents; i++) {
		r = tio_buf_adds(b, "  <event");
		r = r ? r : add_attr(b, "name", f->events[i].name);
		r = r ? r : tio_buf_adds(b, ">\n");
		if (!r && f->events[i].desc) {
			r = tio_buf_adds(b, "    <description>");
			r = r ? r : add_text_esc(b, f->events[i].desc);
			r = r ? r : tio_buf_adds(b, "</description>\n");
		}
		r = r ? r : type_text(f->events[i].t, b, 2);
		r = r ? r : tio_buf_adds(b, "  </event>\n");
	}
	for (uint32_t i = 0; !r && i < f->ntypes; i++) {
		r = tio_buf_adds(b, "  <type");
		r = r ? r : add_attr(b, "name", f->types[i].name);
		r = r ? r : tio_buf_adds(b, ">\n");
		r = r ? r : type_text(f->types[i].t, b, 2);
		r = r ? r : tio_buf_adds(b, "  </type>\n");
	}
	return r ? r : tio_buf_adds(b, "</facility>\n");
}

/* ---------------------------------------------------------------- to and from the model */

static int member(tio_fc *st, const char *name, tio_fc *fc)
{
	tio_member *m = tio_realloc(st->st.members, (st->st.nmembers + 1) * sizeof(*m));
	if (!m) {
		tio_fc_free(fc);
		return TIO_ERR_NOMEM;
	}
	st->st.members = m;
	m[st->st.nmembers].fc = fc;
	m[st->st.nmembers].name = tio_strdup(name);
	st->st.nmembers++;
	return m[st->st.nmembers - 1].name ? 0 : TIO_ERR_NOMEM;
}

static tio_fc *int_fc(uint32_t bytes, bool sg, const lt_arch *a)
{
	tio_fc *fc = tio_fc_new(TIO_FC_INT);
	if (fc) {
		fc->i.size = 8 * bytes;
		fc->i.is_signed = sg;
		fc->i.byte_order = a->be ? TIO_BE : TIO_LE;
		fc->align = 8;
	}
	return fc;
}

static int fc_rec(const lt_type *t, const lt_arch *a, const char *path, int depth, uint64_t *nodes, tio_fc **out)
{
	*out = NULL;
	while (t && t->kind == LT_TYPEREF && depth++ < LT_MAX_DEPTH)
		t = t->target;
	if (!t || depth > LT_MAX_DEPTH)
		return tio_err_set(TIO_ERR_FORMAT, "%s: unresolved or too deep type", path);
	/* typerefs are copied: a chain of types each naming the next twice
	 * doubles at each step (a 3 kB facility asked for 2^27 classes) */
	if (++*nodes > LT_MAX_NODES)
		return tio_err_set(TIO_ERR_LIMIT, "%s: more than %u field classes once typerefs are expanded", path,
				   LT_MAX_NODES);
	tio_fc *fc = NULL;
	int r = 0;
	uint32_t sz = lt_size(t->size, a);
	switch (t->kind) {
	case LT_INT:
	case LT_UINT:
		fc = int_fc(sz, t->kind == LT_INT, a);
		break;
	case LT_ENUM:
		fc = int_fc(sz, false, a);
		if (fc) {
			fc->kind = TIO_FC_ENUM;
			fc->i.mappings = tio_calloc(t->nlabels ? t->nlabels : 1, sizeof(tio_mapping));
			if (!fc->i.mappings)
				r = TIO_ERR_NOMEM;
			for (uint32_t i = 0; !r && i < t->nlabels; i++) {
				tio_mapping *m = &fc->i.mappings[i];
				m->label = tio_strdup(t->labels[i]);
				m->ranges = tio_calloc(1, sizeof(tio_range));
				fc->i.nmappings = i + 1;
				if (!m->label || !m->ranges)
					r = TIO_ERR_NOMEM;
				else
					m->ranges[0].lo = m->ranges[0].hi = i, m->nranges = 1;
			}
		}
		break;
	case LT_FLOAT:
		fc = tio_fc_new(TIO_FC_FLOAT);
		if (fc) {
			fc->f.exp_dig = sz == 4 ? 8 : 11;
			fc->f.mant_dig = sz == 4 ? 24 : 53;
			fc->f.byte_order = a->be ? TIO_BE : TIO_LE;
			fc->align = 8;
		}
		break;
	case LT_STRING:
		fc = tio_fc_new(TIO_FC_STRING);
		if (fc) {
			fc->s.encoding = TIO_ENC_UTF8;
			fc->align = 8;
		}
		break;
	case LT_ARRAY:
		fc = tio_fc_new(TIO_FC_ARRAY);
		if (fc) {
			fc->a.length = strtoull(t->size, NULL, 10);
			r = fc_rec(t->elem, a, path, depth + 1, nodes, &fc->a.elem);
		}
		break;
	case LT_SEQUENCE:
	case LT_UNION: {
		/* struct {length|tag, elements|value} */
		fc = tio_fc_new(TIO_FC_STRUCT);
		if (!fc)
			break;
		fc->attrs = tio_strdup(t->kind == LT_SEQUENCE ? "ltt:sequence" : "ltt:union");
		tio_fc *len = int_fc(sz, false, a);
		if (!fc->attrs || !len) {
			tio_fc_free(len);
			r = TIO_ERR_NOMEM;
			break;
		}
		r = member(fc, t->kind == LT_SEQUENCE ? "length" : "tag", len);
		if (r)
			break;
		tio_fc *body = tio_fc_new(t->kind == LT_SEQUENCE ? TIO_FC_SEQUENCE : TIO_FC_VARIANT);
		if (!body) {
			r = TIO_ERR_NOMEM;
			break;
		}
		if (t->kind == LT_SEQUENCE) {
			body->a.len.path = tio_strdup("length");
			body->a.len.target = len;
			r = body->a.len.path ? fc_rec(t->elem, a, path, depth + 1, nodes, &body->a.elem) : TIO_ERR_NOMEM;
		} else {
			body->v.sel.path = tio_strdup("tag");
			body->v.sel.target = len;
			body->v.options = tio_calloc(t->nfields ? t->nfields : 1, sizeof(tio_member));
			body->v.ranges = tio_calloc(t->nfields ? t->nfields : 1, sizeof(tio_mapping));
			if (!body->v.sel.path || !body->v.options || !body->v.ranges)
				r = TIO_ERR_NOMEM;
			for (uint32_t i = 0; !r && i < t->nfields; i++) {
				body->v.noptions = i + 1;
				body->v.options[i].name = tio_strdup(t->fields[i].name);
				body->v.ranges[i].ranges = tio_calloc(1, sizeof(tio_range));
				if (!body->v.options[i].name || !body->v.ranges[i].ranges) {
					r = TIO_ERR_NOMEM;
					break;
				}
				body->v.ranges[i].nranges = 1;
				body->v.ranges[i].ranges[0].lo = body->v.ranges[i].ranges[0].hi = i;
				r = fc_rec(t->fields[i].t, a, path, depth + 1, nodes, &body->v.options[i].fc);
			}
		}
		int r2 = member(fc, t->kind == LT_SEQUENCE ? "elements" : "value", body);
		r = r ? r : r2;
		break;
	}
	case LT_STRUCT:
		fc = tio_fc_new(TIO_FC_STRUCT);
		for (uint32_t i = 0; fc && !r && i < t->nfields; i++) {
			tio_fc *m;
			r = fc_rec(t->fields[i].t, a, path, depth + 1, nodes, &m);
			if (!r)
				r = member(fc, t->fields[i].name, m);
		}
		break;
	}
	if (!fc)
		return TIO_ERR_NOMEM;
	if (!r && t->format && !fc->attrs && (fc->kind == TIO_FC_INT || fc->kind == TIO_FC_ENUM ||
					      fc->kind == TIO_FC_FLOAT || fc->kind == TIO_FC_STRING)) {
		fc->attrs = tio_strdup(t->format);
		if (!fc->attrs)
			r = TIO_ERR_NOMEM;
		/* the conversion gives the display base: %x / %X hexadecimal, %o octal */
		const char *pc = strrchr(t->format, '%');
		size_t cl = pc ? strcspn(pc + 1, "diouxXc") : 0;
		if (fc->kind == TIO_FC_INT && pc && pc[1 + cl])
			fc->i.base = strchr("xX", pc[1 + cl]) ? 16 : pc[1 + cl] == 'o' ? 8 : 10;
	}
	/* an array or sequence of 1-byte integers formatted %c is text */
	tio_fc *el = !r && fc->kind == TIO_FC_ARRAY		 ? fc->a.elem
		     : !r && t->kind == LT_SEQUENCE && fc->st.nmembers == 2 ? fc->st.members[1].fc->a.elem
									 : NULL;
	if (el && el->kind == TIO_FC_INT && el->i.size == 8 && el->attrs && !strcmp(el->attrs, "%c")) {
		el->i.encoding = TIO_ENC_UTF8;
		if (fc->kind == TIO_FC_ARRAY)
			fc->a.text = 1;
		else
			fc->st.members[1].fc->a.text = 1;
	}
	if (r) {
		tio_fc_free(fc);
		return r;
	}
	*out = fc;
	return 0;
}

int lt_type_fc(const lt_type *t, const lt_arch *a, const char *path, tio_fc **out)
{
	uint64_t nodes = 0;
	return fc_rec(t, a, path, 0, &nodes, out);
}

int lt_type_fc_count(const lt_type *t, const lt_arch *a, const char *path, uint64_t *nodes, tio_fc **out)
{
	return fc_rec(t, a, path, 0, nodes, out);
}

static lt_type *lt_new(int kind, const char *size)
{
	lt_type *t = tio_calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->kind = kind;
	if (size && !(t->size = tio_strdup(size))) {
		free(t);
		return NULL;
	}
	return t;
}

/* A length or tag the format can hold: an unsigned 8/16/32/64-bit integer without labels or role. */
static bool plain_uint(const tio_fc *f)
{
	return f->kind == TIO_FC_INT && !f->i.is_signed && f->role == TIO_ROLE_NONE && !f->i.nmappings &&
	       (f->i.size == 8 || f->i.size == 16 || f->i.size == 32 || f->i.size == 64);
}

/* Option i of a variant is chosen by selector value i, and by nothing else. */
static bool options_by_index(const tio_fc *v)
{
	if (!v->v.ranges || v->v.sel.nalts)
		return false;
	for (uint32_t i = 0; i < v->v.noptions; i++)
		if (v->v.ranges[i].nranges != 1 || v->v.ranges[i].ranges[0].lo != (int64_t)i ||
		    v->v.ranges[i].ranges[0].hi != (int64_t)i)
			return false;
	return true;
}

static bool named(const tio_fc *st, uint32_t k, const char *name)
{
	return st->st.members[k].name && !strcmp(st->st.members[k].name, name);
}

int lt_fc_shape(const tio_fc *fc)
{
	if (fc->kind != TIO_FC_STRUCT || fc->st.nmembers < 2 || fc->st.nmembers > 3)
		return LT_SHAPE_NONE;
	const tio_fc *m0 = fc->st.members[0].fc, *m1 = fc->st.members[1].fc;
	if (!plain_uint(m0))
		return LT_SHAPE_NONE;
	if (fc->st.nmembers == 3) {
		/* CTF 1.8 names a variant's selector by an enumeration: its writer adds NAME__tag */
		const tio_fc *m2 = fc->st.members[2].fc;
		bool ok = named(fc, 0, "tag") && named(fc, 1, "value__tag") && named(fc, 2, "value") &&
			  m1->kind == TIO_FC_ENUM && !m1->i.is_signed && m1->role == TIO_ROLE_NONE &&
			  m2->kind == TIO_FC_VARIANT && m2->v.sel.target == m1 && options_by_index(m2);
		return ok ? LT_SHAPE_UNION_TAGGED : LT_SHAPE_NONE;
	}
	bool seq_mark = fc->attrs && !strcmp(fc->attrs, "ltt:sequence");
	bool union_mark = fc->attrs && !strcmp(fc->attrs, "ltt:union");
	if (m1->kind == TIO_FC_SEQUENCE || m1->kind == TIO_FC_DSTRING) {
		const tio_ref *len = m1->kind == TIO_FC_SEQUENCE ? &m1->a.len : &m1->s.len;
		bool text = m1->kind == TIO_FC_DSTRING;
		bool ok = len->target == m0 && !len->nalts &&
			  (!text || m1->s.encoding == TIO_ENC_UTF8 || m1->s.encoding == TIO_ENC_NONE) &&
			  (seq_mark || (named(fc, 0, "length") && named(fc, 1, "elements")));
		return ok ? LT_SHAPE_SEQ : LT_SHAPE_NONE;
	}
	if (m1->kind == TIO_FC_VARIANT) {
		bool ok = m1->v.sel.target == m0 && options_by_index(m1) &&
			  (union_mark || (named(fc, 0, "tag") && named(fc, 1, "value")));
		return ok ? LT_SHAPE_UNION : LT_SHAPE_NONE;
	}
	return LT_SHAPE_NONE;
}

/* A text array element: <int size=1 format="%c"/> (C char). */
static lt_type *char_type(void)
{
	lt_type *t = lt_new(LT_INT, "1");
	if (t && !(t->format = tio_strdup("%c"))) {
		lt_type_free(t);
		return NULL;
	}
	return t;
}

static int from_fc(const tio_fc *fc, const char *path, int depth, lt_type **out)
{
	*out = NULL;
	if (depth > LT_MAX_DEPTH)
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: type nested too deep", path);
	char sz[24];
	lt_type *t = NULL;
	int r = 0;
	int shape = lt_fc_shape(fc);
	bool is_seq = shape == LT_SHAPE_SEQ;
	bool is_union = shape == LT_SHAPE_UNION || shape == LT_SHAPE_UNION_TAGGED;
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
		if (fc->i.size != 8 && fc->i.size != 16 && fc->i.size != 32 && fc->i.size != 64)
			return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: %u-bit integer (the format has 8, 16, 32, 64)",
					   path, fc->i.size);
		snprintf(sz, sizeof(sz), "%u", fc->i.size / 8);
		if (fc->kind == TIO_FC_ENUM) {
			/* labels 0..n-1 in order: an enum; anything else stays an integer */
			bool plain = fc->i.nmappings > 0 && !fc->i.is_signed;
			for (uint32_t i = 0; plain && i < fc->i.nmappings; i++)
				plain = fc->i.mappings[i].nranges == 1 && fc->i.mappings[i].ranges[0].lo == (int64_t)i &&
					fc->i.mappings[i].ranges[0].hi == (int64_t)i && fc->i.mappings[i].label &&
					!strpbrk(fc->i.mappings[i].label, " \t\r\n<&") && *fc->i.mappings[i].label;
			if (plain) {
				t = lt_new(LT_ENUM, sz);
				if (!t)
					return TIO_ERR_NOMEM;
				t->labels = tio_calloc(fc->i.nmappings, sizeof(char *));
				if (!t->labels)
					r = TIO_ERR_NOMEM;
				for (uint32_t i = 0; !r && i < fc->i.nmappings; i++) {
					t->labels[i] = tio_strdup(fc->i.mappings[i].label);
					if (!t->labels[i])
						r = TIO_ERR_NOMEM;
					else
						t->nlabels++;
				}
				break;
			}
		}
		t = lt_new(fc->i.is_signed ? LT_INT : LT_UINT, sz);
		break;
	case TIO_FC_FLOAT:
		if (!((fc->f.exp_dig == 8 && fc->f.mant_dig == 24) || (fc->f.exp_dig == 11 && fc->f.mant_dig == 53)))
			return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: float with %u/%u exponent/mantissa digits", path,
					   fc->f.exp_dig, fc->f.mant_dig);
		t = lt_new(LT_FLOAT, fc->f.exp_dig == 8 ? "4" : "8");
		break;
	case TIO_FC_STRING:
		t = lt_new(LT_STRING, NULL);
		break;
	case TIO_FC_ARRAY:
		snprintf(sz, sizeof(sz), "%llu", (unsigned long long)fc->a.length);
		t = lt_new(LT_ARRAY, sz);
		if (t)
			r = from_fc(fc->a.elem, path, depth + 1, &t->elem);
		break;
	case TIO_FC_SSTRING:
		/* a text array after CTF 2 (its writer makes them static-length strings) */
		if (fc->s.encoding != TIO_ENC_UTF8 && fc->s.encoding != TIO_ENC_NONE)
			return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: a UTF-16/UTF-32 string has no new LTT type", path);
		snprintf(sz, sizeof(sz), "%llu", (unsigned long long)fc->s.length);
		t = lt_new(LT_ARRAY, sz);
		if (t && !(t->elem = char_type()))
			r = TIO_ERR_NOMEM;
		break;
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		/* bytes: an array of N, or a sequence with its own 4-byte length (trace.dat __data_loc arrays) */
		if (fc->kind == TIO_FC_SBLOB)
			snprintf(sz, sizeof(sz), "%llu", (unsigned long long)fc->s.length);
		t = lt_new(fc->kind == TIO_FC_SBLOB ? LT_ARRAY : LT_SEQUENCE, fc->kind == TIO_FC_SBLOB ? sz : "4");
		if (t && (!(t->elem = lt_new(LT_UINT, "1")) || !(t->elem->format = tio_strdup("0x%llx"))))
			r = TIO_ERR_NOMEM;
		break;
	case TIO_FC_STRUCT:
		if (is_seq || is_union) {
			const tio_fc *len = fc->st.members[0].fc;
			snprintf(sz, sizeof(sz), "%u", len->i.size / 8);
			const tio_fc *body = fc->st.members[fc->st.nmembers - 1].fc;
			if (is_seq) {
				t = lt_new(LT_SEQUENCE, sz);
				if (t && body->kind == TIO_FC_DSTRING) /* text after CTF 2: dynamic-length string */
					r = (t->elem = char_type()) ? 0 : TIO_ERR_NOMEM;
				else if (t)
					r = from_fc(body->a.elem, path, depth + 1, &t->elem);
				break;
			}
			t = lt_new(LT_UNION, sz);
			if (!t)
				break;
			t->fields = tio_calloc(body->v.noptions ? body->v.noptions : 1, sizeof(lt_field));
			if (!t->fields)
				r = TIO_ERR_NOMEM;
			for (uint32_t i = 0; !r && i < body->v.noptions; i++) {
				t->fields[i].name = tio_strdup(body->v.options[i].name ? body->v.options[i].name : "");
				t->nfields++;
				r = t->fields[i].name ? from_fc(body->v.options[i].fc, path, depth + 1, &t->fields[i].t)
						      : TIO_ERR_NOMEM;
			}
			break;
		}
		t = lt_new(LT_STRUCT, NULL);
		if (!t)
			break;
		t->fields = tio_calloc(fc->st.nmembers ? fc->st.nmembers : 1, sizeof(lt_field));
		if (!t->fields)
			r = TIO_ERR_NOMEM;
		for (uint32_t i = 0; !r && i < fc->st.nmembers; i++) {
			t->fields[i].name = tio_strdup(fc->st.members[i].name ? fc->st.members[i].name : "");
			t->nfields++;
			r = t->fields[i].name ? from_fc(fc->st.members[i].fc, path, depth + 1, &t->fields[i].t)
					      : TIO_ERR_NOMEM;
		}
		break;
	default:
		return tio_err_set(TIO_ERR_UNSUPPORTED, "%s: field class kind %d has no new LTT type", path, fc->kind);
	}
	if (!t)
		return TIO_ERR_NOMEM;
	/* attrs is a printf format when it came from this format (CTF 2 keeps JSON there) */
	if (!r && fc->attrs && strncmp(fc->attrs, "ltt:", 4) && fc->attrs[0] != '{' && t->kind != LT_STRUCT &&
	    t->kind != LT_ARRAY) {
		t->format = tio_strdup(fc->attrs);
		if (!t->format)
			r = TIO_ERR_NOMEM;
	} else if (!r && (t->kind == LT_INT || t->kind == LT_UINT) && (fc->i.base == 16 || fc->i.base == 8)) {
		t->format = tio_strdup(fc->i.base == 16 ? "0x%llx" : "0%llo");
		if (!t->format)
			r = TIO_ERR_NOMEM;
	}
	/* text: an array or sequence of 1-byte integers formatted %c */
	lt_type *tel = !r && (t->kind == LT_ARRAY || t->kind == LT_SEQUENCE) ? t->elem : NULL;
	bool text = (fc->kind == TIO_FC_ARRAY && fc->a.text) ||
		    (is_seq && fc->st.members[1].fc->kind == TIO_FC_SEQUENCE && fc->st.members[1].fc->a.text);
	if (tel && text && (tel->kind == LT_INT || tel->kind == LT_UINT) && !strcmp(tel->size, "1")) {
		free(tel->format);
		tel->format = tio_strdup("%c");
		if (!tel->format)
			r = TIO_ERR_NOMEM;
	}
	if (r) {
		lt_type_free(t);
		return r;
	}
	*out = t;
	return 0;
}

int lt_type_from_fc(const tio_fc *fc, const char *path, lt_type **out)
{
	return from_fc(fc, path, 0, out);
}

/*
 * Unit tests: the new LTT format's lenient XML and event type descriptions
 * (seed 001): the seed's own examples as written (unquoted attributes, an
 * unclosed typeref, </event> closing a <field>), canonical text stable
 * through a re-read, checksums, every type to the model and back, errors
 * naming file and line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ltt/lttnew.h"

#include "unit-check.h"

/* The seed's builtin facility text, verbatim apart from the facility wrapper. */
static const char seed_builtin[] =
	"<facility name=seedbuiltin>\n"
	"<event name=facility_load>\n"
	"  <description>Facility used in the trace</description>\n"
	"  <struct>\n"
	"    <field name=\"name\"><string/></field>\n"
	"    <field name=\"checksum\"><uint size=4/></field>\n"
	"    <field name=\"base_code\"><uint size=4/></field>\n"
	"  </struct>\n"
	"</event>\n"
	"<event name=block_start>\n"
	"  <description>Block start timestamp</description>\n"
	"  <typeref name=block_timestamp/>\n"
	"</event>\n"
	"<type name=block_timestamp>\n"
	"  <struct>\n"
	"    <field name=timestamp><typeref name=timestamp></field>\n"
	"    <field name=block_id><uint size=4/></field>\n"
	"  </struct>\n"
	"</type>\n"
	"<type name=timestamp>\n"
	"  <struct>\n"
	"    <field name=time><typeref name=timespec/></event>\n"
	"    <field name=\"cycle_count\"><uint size=8/></field>\n"
	"  </struct>\n"
	"</event>\n"
	"<type name=timespec>\n"
	"  <struct>\n"
	"    <field name=\"seconds\"><uint size=4/></field>\n"
	"    <field name=\"nanoseconds\"><uint size=4/></field>\n"
	"  </struct>\n"
	"</type>\n"
	"<event name=process>\n"
	"  <description>Existing process<description>\n"
	"  <struct>\n"
	"    <field name=\"name\"><string/></field>\n"
	"    <field name=\"pid\"><uint size=4/></field>\n"
	"    <field name=\"state\"><enum size=4>\n"
	"        Running WaitInterruptible WaitUninterruptible Zombie Traced Paging\n"
	"    </enum></field>\n"
	"  </struct>\n"
	"</event>\n"
	"</facility>\n";

/* Every type, isize words included. */
static const char all_types[] =
	"<facility name=all>\n"
	" <description>every type &amp; word</description>\n"
	" <event name=e><struct>\n"
	"  <field name=a><int size=short format=\"%hd\"/></field>\n"
	"  <field name=b><uint size=medium/></field>\n"
	"  <field name=c><int size=long/></field>\n"
	"  <field name=d><float size=8/></field>\n"
	"  <field name=e><string/></field>\n"
	"  <field name=f><enum size=1>A B C</enum></field>\n"
	"  <field name=g><array size=3><uint size=2/></array></field>\n"
	"  <field name=h><sequence lengthsize=1><string/></sequence></field>\n"
	"  <field name=i><union typecodesize=1>\n"
	"     <field name=x><uint size=8/></field><field name=y><string/></field></union></field>\n"
	"  <field name=j><typeref name=pair/></field>\n"
	" </struct></event>\n"
	" <event name=bare><uint size=4/></event>\n"
	" <type name=pair><struct><field name=k><int size=1/></field><field name=l><float size=4/></field></struct></type>\n"
	"</facility>\n";

static lt_facility *parse(const char *text, const char *path)
{
	lx_node *root;
	if (lx_parse(text, strlen(text), path, &root)) {
		printf("parse %s: %s\n", path, tio_error_message());
		return NULL;
	}
	lt_facility *f = NULL;
	if (!root->nkids || lt_facility_from_xml(root->kids[0], path, &f))
		printf("facility %s: %s\n", path, tio_error_message());
	lx_free(root);
	return f;
}

static char *text_of(const lt_facility *f)
{
	tio_buf b = {0};
	if (lt_facility_text(f, &b))
		return NULL;
	char *s = tio_strdup(tio_buf_cstr(&b));
	tio_buf_free(&b);
	return s;
}

/* text -> facility -> canonical text -> facility -> same text and checksum */
static void check_stable(const char *text, const char *name)
{
	lt_facility *f = parse(text, name);
	CHECK(f, "%s parses", name);
	if (!f)
		return;
	char *t1 = text_of(f);
	lt_facility *g = t1 ? parse(t1, "canonical") : NULL;
	char *t2 = g ? text_of(g) : NULL;
	CHECK(t1 && t2 && !strcmp(t1, t2), "%s: canonical text stable", name);
	CHECK(g && f->checksum == g->checksum, "%s: checksum stable", name);
	free(t1);
	free(t2);
	lt_facility_free(f);
	lt_facility_free(g);
}

static void check_seed(void)
{
	lt_facility *f = parse(seed_builtin, "seed.xml");
	CHECK(f, "seed example parses");
	if (!f)
		return;
	CHECK(f->nevents == 3 && f->ntypes == 3, "3 events, 3 types (got %u, %u)", f->nevents, f->ntypes);
	const lt_named *ts = f->ntypes > 1 ? &f->types[1] : NULL;
	CHECK(ts && !strcmp(ts->name, "timestamp") && ts->t->kind == LT_STRUCT && ts->t->nfields == 2,
	      "timestamp: struct of 2 fields although </event> closes its first field");
	if (ts && ts->t->nfields == 2) {
		CHECK(ts->t->fields[0].t->kind == LT_TYPEREF && ts->t->fields[0].t->target, "time: resolved typeref");
		CHECK(!strcmp(ts->t->fields[1].name, "cycle_count"), "cycle_count second");
	}
	const lt_named *bt = &f->types[0];
	CHECK(bt->t->nfields == 2 && !strcmp(bt->t->fields[1].name, "block_id"),
	      "block_timestamp: the unclosed typeref does not swallow block_id");
	const lt_event *pe = f->nevents > 2 ? &f->events[2] : NULL;
	CHECK(pe && pe->t->nfields == 3 && pe->t->fields[2].t->kind == LT_ENUM &&
		      pe->t->fields[2].t->nlabels == 6 && !strcmp(pe->t->fields[2].t->labels[5], "Paging"),
	      "process.state: enum of 6 labels");
	lt_arch a = {4, 4, false};
	tio_fc *fc = NULL;
	CHECK(!lt_type_fc(f->events[1].t, &a, "seed", &fc) && fc && fc->kind == TIO_FC_STRUCT &&
		      fc->st.nmembers == 2 && fc->st.members[0].fc->kind == TIO_FC_STRUCT,
	      "block_start expands to struct {timestamp {time, cycle_count}, block_id}");
	tio_fc_free(fc);
	lt_facility_free(f);
}

static void check_model(void)
{
	lt_facility *f = parse(all_types, "all.xml");
	CHECK(f, "all types parse");
	if (!f)
		return;
	lt_arch ilp32 = {4, 4, false}, lp64 = {8, 4, true};
	tio_fc *a = NULL, *b = NULL;
	CHECK(!lt_type_fc(f->events[0].t, &ilp32, "all", &a), "ILP32 fc: %s", tio_error_message());
	CHECK(!lt_type_fc(f->events[0].t, &lp64, "all", &b), "LP64 fc: %s", tio_error_message());
	if (a && b) {
		CHECK(a->st.nmembers == 10, "10 members");
		CHECK(a->st.members[0].fc->i.size == 16 && a->st.members[0].fc->i.is_signed, "short = 16 signed");
		CHECK(a->st.members[2].fc->i.size == 32 && b->st.members[2].fc->i.size == 64, "long: 32 / 64");
		CHECK(b->st.members[2].fc->i.byte_order == TIO_BE, "big-endian arch");
		CHECK(a->st.members[3].fc->kind == TIO_FC_FLOAT && a->st.members[3].fc->f.mant_dig == 53, "double");
		CHECK(a->st.members[5].fc->kind == TIO_FC_ENUM && a->st.members[5].fc->i.nmappings == 3, "enum");
		CHECK(a->st.members[6].fc->kind == TIO_FC_ARRAY && a->st.members[6].fc->a.length == 3, "array");
		const tio_fc *h = a->st.members[7].fc;
		CHECK(h->kind == TIO_FC_STRUCT && h->st.nmembers == 2 && h->st.members[1].fc->kind == TIO_FC_SEQUENCE &&
			      h->st.members[1].fc->a.len.target == h->st.members[0].fc,
		      "sequence: {length, elements} with the length resolved");
		const tio_fc *i = a->st.members[8].fc;
		CHECK(i->kind == TIO_FC_STRUCT && i->st.members[1].fc->kind == TIO_FC_VARIANT &&
			      i->st.members[1].fc->v.noptions == 2,
		      "union: {tag, value} variant of 2 options");
		CHECK(a->st.members[0].fc->attrs && !strcmp(a->st.members[0].fc->attrs, "%hd"), "format kept");
		/* and back: the same text once typerefs and isize words are spelled out */
		lt_type *t = NULL;
		CHECK(!lt_type_from_fc(a, "back", &t), "fc to type: %s", tio_error_message());
		lt_facility g = {.name = "all", .nevents = 1};
		lt_event ev = {.name = "e", .t = t};
		g.events = &ev;
		char *t1 = t ? text_of(&g) : NULL;
		CHECK(t1 && strstr(t1, "<sequence lengthsize=\"1\">") && strstr(t1, "<union typecodesize=\"1\">") &&
			      strstr(t1, "<enum size=\"1\">A B C</enum>") && strstr(t1, "<int size=\"2\" format=\"%hd\"/>"),
		      "fc to type to text: %s", t1 ? t1 : "(null)");
		if (t1) {
			lt_facility *h2 = parse(t1, "back.xml");
			tio_fc *c = NULL;
			CHECK(h2 && !lt_type_fc(h2->events[0].t, &ilp32, "back", &c), "back parses");
			lt_type *t2 = NULL;
			if (c && !lt_type_from_fc(c, "again", &t2)) {
				lt_event ev2 = {.name = "e", .t = t2};
				g.events = &ev2;
				char *tt = text_of(&g);
				CHECK(tt && !strcmp(tt, t1), "type -> fc -> type is a fixed point");
				free(tt);
			}
			lt_type_free(t2);
			tio_fc_free(c);
			lt_facility_free(h2);
		}
		free(t1);
		lt_type_free(t);
	}
	tio_fc_free(a);
	tio_fc_free(b);
	lt_facility_free(f);
}

/* ---- the forms the format's types take after CTF 1.8 / CTF 2 (lt_fc_shape) ---- */

static tio_fc *uint_fc(uint32_t bits)
{
	tio_fc *f = tio_fc_new(TIO_FC_INT);
	f->i.size = bits;
	f->align = 8;
	return f;
}

static void add_member(tio_fc *st, const char *name, tio_fc *fc)
{
	st->st.members = realloc(st->st.members, (st->st.nmembers + 1) * sizeof(tio_member));
	st->st.members[st->st.nmembers].name = tio_strdup(name);
	st->st.members[st->st.nmembers++].fc = fc;
}

/* struct {LEN: u16, ELEMS: SEQUENCE of u8 whose length is LEN (or `other`)} */
static tio_fc *seq_struct(const char *len, const char *elems, bool other)
{
	tio_fc *st = tio_fc_new(TIO_FC_STRUCT), *l = uint_fc(16), *q = tio_fc_new(TIO_FC_SEQUENCE);
	add_member(st, len, l);
	q->a.elem = uint_fc(8);
	q->a.len.path = tio_strdup(len);
	q->a.len.target = other ? st : l;
	add_member(st, elems, q);
	return st;
}

/* the variant of options x, y chosen by `sel` value 0, 1 (shift: 1, 2) */
static tio_fc *variant_of(const tio_fc *sel, int shift)
{
	tio_fc *v = tio_fc_new(TIO_FC_VARIANT);
	v->v.sel.path = tio_strdup("sel");
	v->v.sel.target = sel;
	v->v.noptions = 2;
	v->v.options = calloc(2, sizeof(tio_member));
	v->v.ranges = calloc(2, sizeof(tio_mapping));
	for (int i = 0; i < 2; i++) {
		v->v.options[i].name = tio_strdup(i ? "y" : "x");
		v->v.options[i].fc = i ? tio_fc_new(TIO_FC_STRING) : uint_fc(32);
		v->v.ranges[i].ranges = calloc(1, sizeof(tio_range));
		v->v.ranges[i].nranges = 1;
		v->v.ranges[i].ranges[0].lo = v->v.ranges[i].ranges[0].hi = i + shift;
	}
	return v;
}

/* a union as CTF 1.8 reads it back:
 * {tag: u8, value__tag: enum u32 {"_x" = 0, "_y" = 1}, value: variant <value__tag>} */
static tio_fc *tagged_union(const char *tagname, int shift)
{
	tio_fc *st = tio_fc_new(TIO_FC_STRUCT), *e = uint_fc(32);
	add_member(st, "tag", uint_fc(8));
	e->kind = TIO_FC_ENUM;
	e->i.nmappings = 2;
	e->i.mappings = calloc(2, sizeof(tio_mapping));
	for (int i = 0; i < 2; i++) {
		e->i.mappings[i].label = tio_strdup(i ? "_y" : "_x");
		e->i.mappings[i].ranges = calloc(1, sizeof(tio_range));
		e->i.mappings[i].nranges = 1;
		e->i.mappings[i].ranges[0].lo = e->i.mappings[i].ranges[0].hi = i;
	}
	add_member(st, tagname, e);
	add_member(st, "value", variant_of(e, shift));
	return st;
}

/* the type text of one field class, or NULL when it is refused */
static char *type_of(const tio_fc *fc)
{
	lt_type *t = NULL;
	if (lt_type_from_fc(fc, "shape", &t)) {
		tio_err_clear();
		return NULL;
	}
	lt_event ev = {.name = "e", .t = t};
	lt_facility f = {.name = "f", .events = &ev, .nevents = 1};
	char *s = text_of(&f);
	lt_type_free(t);
	return s;
}

static void expect_type(tio_fc *fc, const char *want, const char *what)
{
	char *s = type_of(fc);
	if (want)
		CHECK(s && strstr(s, want), "%s: wanted %s, got %s", what, want, s ? s : "(refused)");
	else
		CHECK(!s, "%s: refused, got %s", what, s);
	free(s);
	tio_fc_free(fc);
}

static void check_shapes(void)
{
	/* CTF 1.8 keeps no mark: {length, elements[length]} is a sequence again */
	expect_type(seq_struct("length", "elements", false), "<sequence lengthsize=\"2\">\n      <uint size=\"1\"/>",
		    "unmarked {length, elements}");
	/* strict: other names would not read back the same, another length is not this one */
	expect_type(seq_struct("n", "data", false), NULL, "{n, data[n]}");
	expect_type(seq_struct("length", "elements", true), NULL, "{length, elements[other]}");
	tio_fc *sg = seq_struct("length", "elements", false);
	sg->st.members[0].fc->i.is_signed = 1;
	expect_type(sg, NULL, "signed length");
	/* a union after CTF 1.8: value__tag dropped, typecodesize from tag */
	tio_fc *u = tagged_union("value__tag", 0);
	CHECK(lt_fc_shape(u) == LT_SHAPE_UNION_TAGGED, "tagged union shape");
	expect_type(u, "<union typecodesize=\"1\">\n      <field name=\"x\">", "tagged union");
	expect_type(tagged_union("value_tag", 0), NULL, "tag member of another name");
	expect_type(tagged_union("value__tag", 1), NULL, "options not chosen by 0, 1");
	/* unmarked {tag, value<tag>} (CTF 2 without the mark) */
	tio_fc *st = tio_fc_new(TIO_FC_STRUCT);
	add_member(st, "tag", uint_fc(32));
	add_member(st, "value", variant_of(st->st.members[0].fc, 0));
	CHECK(lt_fc_shape(st) == LT_SHAPE_UNION, "unmarked union shape");
	expect_type(st, "<union typecodesize=\"4\">", "unmarked union");
	/* a CTF 2 static-length string: the text array it was */
	tio_fc *ss = tio_fc_new(TIO_FC_SSTRING);
	ss->s.length = 16;
	ss->s.encoding = TIO_ENC_UTF8;
	expect_type(ss, "<array size=\"16\">\n      <int size=\"1\" format=\"%c\"/>", "static-length string");
	/* a text sequence after CTF 2: {length, elements: dynamic-length string} */
	tio_fc *ds = seq_struct("length", "elements", false);
	tio_fc_free(ds->st.members[1].fc);
	tio_fc *d = tio_fc_new(TIO_FC_DSTRING);
	d->s.encoding = TIO_ENC_UTF8;
	d->s.len.path = tio_strdup("length");
	d->s.len.target = ds->st.members[0].fc;
	ds->st.members[1].fc = d;
	expect_type(ds, "<sequence lengthsize=\"2\">\n      <int size=\"1\" format=\"%c\"/>", "dynamic-length string");
	/* BLOBs: bytes */
	tio_fc *sb = tio_fc_new(TIO_FC_SBLOB);
	sb->s.length = 6;
	expect_type(sb, "<array size=\"6\">\n      <uint size=\"1\" format=\"0x%llx\"/>", "static-length BLOB");
	expect_type(tio_fc_new(TIO_FC_DBLOB), "<sequence lengthsize=\"4\">\n      <uint size=\"1\" format=\"0x%llx\"/>",
		    "dynamic-length BLOB");
}

static void check_error(const char *text, const char *want)
{
	lx_node *root;
	lt_facility *f = NULL;
	int r = lx_parse(text, strlen(text), "bad.xml", &root);
	if (!r) {
		r = root->nkids ? lt_facility_from_xml(root->kids[0], "bad.xml", &f) : -1;
		lx_free(root);
	}
	CHECK(r < 0 && strstr(tio_error_message(), want), "error '%s' wanted, got '%s'", want,
	      tio_error_message());
	lt_facility_free(f);
}

int main(void)
{
	check_seed();
	check_stable(seed_builtin, "seed");
	check_stable(all_types, "all");
	check_model();
	check_shapes();
	lt_facility *b = NULL;
	CHECK(!lt_builtin(&b) && b && b->nevents == 4, "builtin facility: 4 events");
	lt_facility_free(b);
	check_error("<facility name=x>\n<event name=e><typeref name=nope/></event></facility>",
		    "typeref to 'nope'");
	check_error("<facility name=x>\n<event name=e>\n<int size=3/></event></facility>", "bad.xml:3: <int>: size");
	check_error("<facility name=x><event name=e><typeref name=a/></event>"
		    "<type name=a><typeref name=b/></type><type name=b><typeref name=a/></type></facility>",
		    "too deep");
	check_error("<facility name=x><event name=e><struct><field name=\"a></struct></event></facility>",
		    "bad.xml:1: unterminated attribute value");
	check_error("<facility name=x><event name=e><array><int size=4/></array></event></facility>",
		    "no size attribute");
	if (failures)
		printf("%d failures\n", failures);
	return failures != 0;
}

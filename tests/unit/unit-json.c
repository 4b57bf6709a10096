/*
 * Unit test of the json sink (src/sink/json.c, docs/formats/json.md): one
 * event whose payload holds every kind of value, printed and compared with
 * the exact expected line.  Exact integers at the 64-bit limits, shortest
 * floats, nan/inf, escapes, invalid UTF-8, UTF-16 with surrogates, wide
 * integers, BLOBs, bit maps, variants with an unnamed option, optionals.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/common.h"
#include "ir/ir.h"
#include "sink/sink.h"

static int failures;

static tio_fc *int_fc(tio_fc_kind kind, uint32_t size, bool sgn)
{
	tio_fc *fc = tio_fc_new(kind);
	fc->i.size = size;
	fc->i.is_signed = sgn;
	fc->i.base = 10;
	fc->i.clock = -1;
	fc->align = 8;
	return fc;
}

static void add_map(tio_fc *fc, const char *label, int64_t lo, int64_t hi)
{
	fc->i.mappings = realloc(fc->i.mappings, (fc->i.nmappings + 1) * sizeof(tio_mapping));
	tio_mapping *m = &fc->i.mappings[fc->i.nmappings++];
	m->label = tio_strdup(label);
	m->ranges = malloc(sizeof(tio_range));
	m->ranges[0] = (tio_range){lo, hi};
	m->nranges = 1;
}

static void add_member(tio_fc *st, const char *name, tio_fc *fc)
{
	st->st.members = realloc(st->st.members, (st->st.nmembers + 1) * sizeof(tio_member));
	st->st.members[st->st.nmembers++] = (tio_member){name ? tio_strdup(name) : NULL, fc};
}

int main(void)
{
	tio_fc *pl = tio_fc_new(TIO_FC_STRUCT);
	tio_val v[32];
	memset(v, 0, sizeof(v));
	uint32_t n = 1;
#define LEAF(name, fcexpr, field, value)                                                           \
	do {                                                                                       \
		tio_fc *f_ = (fcexpr);                                                             \
		add_member(pl, name, f_);                                                          \
		v[n].fc = f_;                                                                      \
		v[n].end = n + 1;                                                                  \
		v[n].v.field = value;                                                              \
		n++;                                                                               \
	} while (0)

	LEAF("u64", int_fc(TIO_FC_INT, 64, false), u, UINT64_MAX);
	LEAF("i64", int_fc(TIO_FC_INT, 64, true), i, INT64_MIN);
	tio_fc *e = int_fc(TIO_FC_ENUM, 8, false);
	add_map(e, "A", 0, 0);
	add_map(e, "B", 0, 5);
	add_map(e, "C", 4, 9);
	LEAF("e", e, u, 3);
	tio_fc *f32 = tio_fc_new(TIO_FC_FLOAT);
	f32->f.exp_dig = 8;
	f32->f.mant_dig = 24;
	LEAF("f32", f32, d, (double)0.1f);
	tio_fc *f64 = tio_fc_new(TIO_FC_FLOAT);
	f64->f.exp_dig = 11;
	f64->f.mant_dig = 53;
	LEAF("f64", f64, d, 0.1);
	LEAF("big", tio_fc_copy(f64), d, 1e300);
	LEAF("nan", tio_fc_copy(f64), d, NAN);
	LEAF("ninf", tio_fc_copy(f64), d, -INFINITY);
	static const char s8[] = "a\"\\\n\x01\xc3\xa9\xff\xe2\x82!";
	LEAF("s", tio_fc_new(TIO_FC_STRING), s.p, s8);
	v[n - 1].v.s.len = sizeof(s8) - 1;
	/* UTF-16LE: A, U+1F600 (D83D DE00), a lone D800, B, then the terminator */
	static const char s16[] = "A\0\x3d\xd8\x00\xde\x00\xd8"
				  "B\0\0\0";
	tio_fc *w = tio_fc_new(TIO_FC_SSTRING);
	w->s.encoding = TIO_ENC_UTF16;
	w->s.byte_order = TIO_LE;
	LEAF("w", w, s.p, s16);
	v[n - 1].v.s.len = sizeof(s16) - 1;
	/* 72-bit little-endian integer 0x80_0000_0000_0000_0001 */
	static const uint8_t big[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0x80};
	LEAF("wide", int_fc(TIO_FC_INT, 72, false), big, big);
	static const char blob[] = "\xde\xad\x0f";
	LEAF("blob", tio_fc_new(TIO_FC_SBLOB), s.p, blob);
	v[n - 1].v.s.len = 3;
	tio_fc *bm = int_fc(TIO_FC_BITMAP, 8, false);
	add_map(bm, "X", 0, 0);
	add_map(bm, "Y", 1, 2);
	add_map(bm, "Z", 7, 7);
	LEAF("bm", bm, u, 4);
	LEAF("b", int_fc(TIO_FC_BOOL, 8, false), u, 1);
	static const char text[] = "hi\0xx";
	tio_fc *ta = tio_fc_new(TIO_FC_ARRAY);
	ta->a.elem = int_fc(TIO_FC_INT, 8, false);
	ta->a.length = 5;
	ta->a.text = 1;
	LEAF("text", ta, s.p, text);
	v[n - 1].v.s.len = 5;
	/* a sequence of two integers */
	tio_fc *seq = tio_fc_new(TIO_FC_SEQUENCE);
	seq->a.elem = int_fc(TIO_FC_INT, 8, true);
	add_member(pl, "seq", seq);
	v[n] = (tio_val){.fc = seq, .n = 2, .end = n + 3};
	v[n + 1] = (tio_val){.fc = seq->a.elem, .end = n + 2, .v.i = -1};
	v[n + 2] = (tio_val){.fc = seq->a.elem, .end = n + 3, .v.i = 2};
	n += 3;
	/* a variant whose chosen option has no name */
	tio_fc *var = tio_fc_new(TIO_FC_VARIANT);
	var->v.noptions = 2;
	var->v.options = calloc(2, sizeof(tio_member));
	var->v.options[0].fc = int_fc(TIO_FC_INT, 8, false);
	var->v.options[1].name = tio_strdup("named");
	var->v.options[1].fc = int_fc(TIO_FC_INT, 8, false);
	add_member(pl, "var", var);
	v[n] = (tio_val){.fc = var, .n = 1, .end = n + 2, .opt = 0};
	v[n + 1] = (tio_val){.fc = var->v.options[0].fc, .end = n + 2, .v.u = 7};
	n += 2;
	tio_fc *opt = tio_fc_new(TIO_FC_OPTIONAL);
	opt->v.noptions = 1;
	opt->v.options = calloc(1, sizeof(tio_member));
	opt->v.options[0].fc = tio_fc_new(TIO_FC_STRING);
	add_member(pl, "opt", opt);
	v[n] = (tio_val){.fc = opt, .n = 0, .end = n + 1};
	n++;
	v[0] = (tio_val){.fc = pl, .n = pl->st.nmembers, .end = n};

	tio_trace tr = {.path = "t\\r"};
	tio_stream_class sc = {.id = 1};
	tio_stream st = {.trace = &tr, .sc = &sc, .id = 2, .name = "s"};
	tio_event_class ec = {.id = 7, .name = "ev \"x\""};
	tio_msg m = {.type = TIO_MSG_EVENT, .stream = &st, .ec = &ec, .has_ts = true, .cycles = 5,
		     .ns = -3, .vals = v, .nvals = n, .offset = 9};
	m.scope[TIO_SCOPE_PAYLOAD] = &v[0];
	tio_msg d = {.type = TIO_MSG_DISCARDED_EVENTS, .stream = &st};

	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	tio_sink *sink = NULL;
	if (tio_sink_new("json", f, stderr, &sink) || tio_sink_consume(sink, &m) ||
	    tio_sink_consume(sink, &d) || tio_sink_finish(sink)) {
		printf("FAIL: sink error: %s\n", tio_error_message());
		failures++;
	}
	tio_sink_free(sink);
	fclose(f);
	const char *want =
		"{\"type\":\"event\",\"trace\":\"t\\\\r\",\"stream_class_id\":1,\"stream_id\":2,\"stream\":\"s\","
		"\"event_class\":\"ev \\\"x\\\"\",\"event_class_id\":7,\"cycles\":5,\"ns\":-3,\"offset\":9,"
		"\"payload\":{\"u64\":18446744073709551615,\"i64\":-9223372036854775808,"
		"\"e\":{\"value\":3,\"labels\":[\"B\"]},\"f32\":0.1,\"f64\":0.1,\"big\":1e+300,"
		"\"nan\":\"nan\",\"ninf\":\"-inf\","
		"\"s\":\"a\\\"\\\\\\n\\u0001\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd!\","
		"\"w\":\"A\xf0\x9f\x98\x80\xef\xbf\xbd" "B\","
		"\"wide\":\"0x800000000000000001\",\"blob\":\"dead0f\","
		"\"bm\":{\"value\":4,\"flags\":[\"Y\"]},\"b\":true,\"text\":\"hi\","
		"\"seq\":[-1,2],\"var\":{\"option\":0,\"value\":7},\"opt\":null}}\n"
		"{\"type\":\"discarded_events\",\"trace\":\"t\\\\r\",\"stream_class_id\":1,\"stream_id\":2,"
		"\"stream\":\"s\",\"count\":null}\n";
	if (!out || strcmp(out, want)) {
		printf("FAIL: json output differs\nwant: %sgot:  %s", want, out ? out : "(none)");
		failures++;
	}
	free(out);
	tio_fc_free(pl);
	if (failures)
		printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}

/*
 * CTF 1.8 metadata: the metadata stream loader (metadata.c) and the TSDL
 * parser (tsdl-*.c).  Parses the metadata of every babeltrace 2.1
 * ctf-traces/1/succeed trace, checks facts of a few, checks that the
 * metadata failures of ctf-traces/1/fail say where and what, and runs
 * inline TSDL snippets for the edge cases.  Exit 0 = pass.
 */
#define _GNU_SOURCE
#include "ctf/ctf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
static int checks;

#define CHECK(c)                                                                     \
	do {                                                                         \
		checks++;                                                            \
		if (!(c)) {                                                          \
			failures++;                                                  \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
		}                                                                    \
	} while (0)

#define CHECK_STR(a, b)                                                                           \
	do {                                                                                      \
		const char *a_ = (a), *b_ = (b);                                                  \
		checks++;                                                                         \
		if (!a_ || strcmp(a_, b_)) {                                                      \
			failures++;                                                               \
			fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
				a_ ? a_ : "(null)", b_);                                          \
		}                                                                                 \
	} while (0)

static char ctf1[2048];

/* ---------------------------------------------------------------- helpers */

static tio_trace_class *parse(const char *text)
{
	tio_trace_class *tc = NULL;
	if (tio_tsdl_parse(text, strlen(text), "snippet", &tc)) {
		fprintf(stderr, "unexpected parse error: %s\n", tio_error_message());
		return NULL;
	}
	return tc;
}

/* Expect a failure whose message contains every one of the NULL-terminated strings. */
static void parse_fails(int line, const char *text, ...)
{
	tio_trace_class *tc = NULL;
	checks++;
	int rc = tio_tsdl_parse(text, strlen(text), "snippet", &tc);
	if (!rc) {
		failures++;
		fprintf(stderr, "unit-tsdl.c:%d: parse succeeded, expected a failure\n", line);
		tio_trace_class_free(tc);
		return;
	}
	va_list ap;
	va_start(ap, text);
	for (const char *s; (s = va_arg(ap, const char *));) {
		if (!strstr(tio_error_message(), s)) {
			failures++;
			fprintf(stderr, "unit-tsdl.c:%d: error \"%s\" lacks \"%s\"\n", line, tio_error_message(), s);
		}
	}
	va_end(ap);
}
#define FAILS(text, ...) parse_fails(__LINE__, text, __VA_ARGS__, (const char *)NULL)

static const tio_fc *member(const tio_fc *st, const char *name)
{
	if (!st)
		return NULL;
	if (st->kind == TIO_FC_VARIANT) {
		for (uint32_t i = 0; i < st->v.noptions; i++)
			if (!strcmp(st->v.options[i].name, name))
				return st->v.options[i].fc;
		return NULL;
	}
	int i = tio_fc_member_index(st, name);
	return i < 0 ? NULL : st->st.members[i].fc;
}

static const tio_event_class *ec_by_name(const tio_trace_class *tc, const char *name)
{
	for (uint32_t s = 0; s < tc->nscs; s++)
		for (uint32_t e = 0; e < tc->scs[s]->necs; e++)
			if (!strcmp(tc->scs[s]->ecs[e]->name, name))
				return tc->scs[s]->ecs[e];
	return NULL;
}

static tio_trace_class *load_trace(const char *dir, tio_ctf_meta *m)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", ctf1, dir);
	tio_trace_class *tc = NULL;
	if (tio_ctf_meta_load(path, m)) {
		fprintf(stderr, "%s: load: %s\n", dir, tio_error_message());
		return NULL;
	}
	if (tio_tsdl_parse(m->text, m->len, path, &tc)) {
		fprintf(stderr, "%s: parse: %s\n", dir, tio_error_message());
		tio_ctf_meta_free(m);
		return NULL;
	}
	return tc;
}

/* ---------------------------------------------------------------- every succeed trace */

static int parse_all(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	char path[4096];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (access(path, R_OK) == 0) {
		tio_ctf_meta m;
		tio_trace_class *tc = NULL;
		checks++;
		(*n)++;
		if (tio_ctf_meta_load(dir, &m) || tio_tsdl_parse(m.text, m.len, path, &tc)) {
			failures++;
			fprintf(stderr, "%s: %s\n", dir, tio_error_message());
		} else if (!tc->nscs) {
			failures++;
			fprintf(stderr, "%s: no stream class\n", dir);
		}
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			parse_all(path, n);
	}
	closedir(d);
	return 0;
}

/* ---------------------------------------------------------------- facts of real traces */

static void test_wk_heartbeat(void)
{
	tio_ctf_meta m;
	tio_trace_class *tc = load_trace("succeed/wk-heartbeat-u", &m);
	CHECK(tc);
	if (!tc)
		return;
	CHECK(m.packetized && m.ctf_major == 1 && m.has_uuid && m.byte_order == TIO_LE);
	CHECK(tc->byte_order == TIO_LE && tc->has_uuid);
	CHECK(!memcmp(tc->uuid, m.uuid, 16));
	CHECK(tc->nclocks == 1);
	CHECK_STR(tc->clocks[0]->name, "monotonic");
	CHECK(tc->clocks[0]->freq == 1000000000ULL);
	CHECK(tc->clocks[0]->offset == 1351530929945824323LL && tc->clocks[0]->offset_s == 0);
	const tio_kv *kv = tio_trace_class_env(tc, "tracer_name");
	CHECK(kv && !kv->is_int && !strcmp(kv->sval, "lttng-ust"));
	kv = tio_trace_class_env(tc, "tracer_major");
	CHECK(kv && kv->is_int && kv->ival == 2);
	CHECK(member(tc->pkt_header, "magic") && member(tc->pkt_header, "magic")->role == TIO_ROLE_MAGIC);
	CHECK(member(tc->pkt_header, "uuid") && member(tc->pkt_header, "uuid")->role == TIO_ROLE_UUID);
	CHECK(member(tc->pkt_header, "stream_id")->role == TIO_ROLE_STREAM_CLASS_ID);
	CHECK(tc->nscs == 1);
	tio_stream_class *sc = tc->scs[0];
	CHECK(sc->id == 0 && sc->necs == 1 && sc->clock == 0);
	CHECK(member(sc->pkt_ctx, "timestamp_begin")->role == TIO_ROLE_BEGIN_TS);
	CHECK(member(sc->pkt_ctx, "timestamp_begin")->i.clock == 0);
	CHECK(member(sc->pkt_ctx, "timestamp_end")->role == TIO_ROLE_END_TS);
	CHECK(member(sc->pkt_ctx, "content_size")->role == TIO_ROLE_CONTENT_SIZE);
	CHECK(member(sc->pkt_ctx, "packet_size")->role == TIO_ROLE_PACKET_SIZE);
	CHECK(member(sc->pkt_ctx, "events_discarded")->role == TIO_ROLE_DISCARDED);
	CHECK(member(sc->pkt_ctx, "cpu_id")->role == TIO_ROLE_NONE);
	/* event header: enum id + variant v <id> { compact, extended } */
	const tio_fc *id = member(sc->ev_header, "id");
	const tio_fc *v = member(sc->ev_header, "v");
	CHECK(id && id->kind == TIO_FC_ENUM && id->i.size == 5 && id->align == 1 && id->role == TIO_ROLE_EVENT_CLASS_ID);
	CHECK(v && v->kind == TIO_FC_VARIANT && v->v.noptions == 2 && v->v.sel.target == id);
	CHECK_STR(v->v.sel.path, "id");
	CHECK(v->v.ranges && v->v.ranges[1].nranges == 1 && v->v.ranges[1].ranges[0].lo == 31);
	const tio_fc *ext = member(v, "extended");
	CHECK(member(ext, "id")->role == TIO_ROLE_EVENT_CLASS_ID);
	CHECK(member(ext, "timestamp")->role == TIO_ROLE_EVENT_TS && member(ext, "timestamp")->i.size == 64);
	CHECK(member(member(v, "compact"), "timestamp")->i.size == 27);
	CHECK(member(member(v, "compact"), "timestamp")->i.clock == 0);
	CHECK(member(sc->ev_common_ctx, "vtid") && member(sc->ev_common_ctx, "vtid")->i.is_signed);
	const tio_event_class *ec = sc->ecs[0];
	CHECK_STR(ec->name, "heartbeat:msg");
	CHECK(ec->loglevel == 13 && ec->sc == sc);
	CHECK(member(ec->payload, "msg") && member(ec->payload, "msg")->kind == TIO_FC_STRING);
	tio_trace_class_free(tc);
	tio_ctf_meta_free(&m);
}

static void test_kernel(void)
{
	tio_ctf_meta m;
	tio_trace_class *tc = load_trace("succeed/multi-domains/kernel", &m);
	CHECK(tc);
	if (!tc)
		return;
	CHECK(member(tc->pkt_header, "stream_instance_id")->role == TIO_ROLE_STREAM_ID);
	const tio_stream_class *sc = tc->scs[0];
	CHECK(member(sc->pkt_ctx, "packet_seq_num")->role == TIO_ROLE_SEQ_NUM);
	const tio_event_class *ec = ec_by_name(tc, "lttng_test_filter_event");
	CHECK(ec);
	if (!ec)
		goto out;
	const tio_fc *pl = ec->payload;
	/* field names lose exactly one leading '_' */
	CHECK(member(pl, "intfield") && !member(pl, "_intfield"));
	CHECK(member(pl, "_seqfield1_length"));
	CHECK(member(pl, "intfield2")->i.base == 16);
	CHECK(member(pl, "netintfield")->i.byte_order == TIO_BE);
	CHECK(member(pl, "intfield")->i.byte_order == TIO_LE);
	const tio_fc *a2 = member(pl, "arrfield2");
	CHECK(a2 && a2->kind == TIO_FC_ARRAY && a2->a.length == 10 && a2->a.text);
	CHECK(!member(pl, "arrfield1")->a.text);
	const tio_fc *s1 = member(pl, "seqfield1");
	CHECK(s1 && s1->kind == TIO_FC_SEQUENCE && s1->a.len.target == member(pl, "_seqfield1_length"));
	CHECK_STR(s1->a.len.path, "__seqfield1_length");
	CHECK(member(pl, "seqfield2")->a.text);
	const tio_fc *bs = member(pl, "bitfield_array");
	CHECK(bs && bs->align == 1 && bs->a.elem->i.size == 1);
	const tio_fc *e0 = member(pl, "enum0");
	CHECK(e0 && e0->kind == TIO_FC_ENUM && e0->i.is_signed && e0->i.size == 32 && e0->i.nmappings == 6);
	if (e0 && e0->i.nmappings == 6) {
		CHECK_STR(e0->i.mappings[4].label, "RANGE: 101 TO 303");
		CHECK(e0->i.mappings[4].ranges[0].lo == 101 && e0->i.mappings[4].ranges[0].hi == 303);
		CHECK(e0->i.mappings[5].ranges[0].lo == 304); /* auto-increment after a range */
	}
out:
	tio_trace_class_free(tc);
	tio_ctf_meta_free(&m);
}

static void test_variant_names(void)
{
	static const struct {
		const char *dir;
		const char *opts[3];
		const char *labels[3];
	} cases[] = {
		{"succeed/meta-variant-no-underscore", {"COSSETTE", "PELCHAT", "VOISINE"}, {"COSSETTE", "PELCHAT", "VOISINE"}},
		{"succeed/meta-variant-one-underscore", {"COSSETTE", "PELCHAT", "VOISINE"}, {"COSSETTE", "PELCHAT", "_VOISINE"}},
		{"succeed/meta-variant-two-underscores", {"COSSETTE", "_PELCHAT", "VOISINE"}, {"COSSETTE", "__PELCHAT", "VOISINE"}},
		{"succeed/meta-variant-same-with-underscore", {"COSSETTE", "PELCHAT", "_PELCHAT"}, {"COSSETTE", "_PELCHAT", "__PELCHAT"}},
	};
	for (size_t k = 0; k < TIO_ARRAY_LEN(cases); k++) {
		tio_ctf_meta m;
		tio_trace_class *tc = load_trace(cases[k].dir, &m);
		CHECK(tc);
		if (!tc)
			continue;
		const tio_fc *pl = tc->scs[0]->ecs[0]->payload;
		const tio_fc *tag = member(pl, "tag"), *var = member(pl, "var");
		CHECK(tag && var && var->v.sel.target == tag && var->v.noptions == 3);
		for (int o = 0; var && o < 3; o++) {
			CHECK_STR(var->v.options[o].name, cases[k].opts[o]);
			CHECK_STR(tag->i.mappings[o].label, cases[k].labels[o]);
			/* option o is selected by tag value o */
			CHECK(var->v.ranges[o].nranges == 1 && var->v.ranges[o].ranges[0].lo == o);
		}
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tio_ctf_meta m;
	tio_trace_class *tc = load_trace("succeed/meta-variant-reserved-keywords", &m);
	CHECK(tc);
	if (tc) {
		const tio_fc *var = member(tc->scs[0]->ecs[0]->payload, "var");
		CHECK(var && var->v.noptions == 28);
		CHECK(member(var, "callsite") && member(var, "_Bool") && member(var, "floating_point"));
		CHECK(var->v.ranges[27].nranges == 1 && var->v.ranges[27].ranges[0].lo == 27);
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
}

static void test_small_facts(void)
{
	tio_ctf_meta m;
	tio_trace_class *tc = load_trace("succeed/def-clk-freq", &m);
	CHECK(tc);
	if (tc) {
		CHECK(!m.packetized && tc->nclocks == 1 && tc->clocks[0]->freq == 1000000000ULL);
		CHECK(tc->clocks[0]->has_uuid && tc->clocks[0]->uuid[0] == 0x5b && tc->clocks[0]->uuid[15] == 0xc4);
		CHECK(tc->scs[0]->clock == 0);
		CHECK(member(tc->scs[0]->ev_header, "timestamp")->role == TIO_ROLE_EVENT_TS);
		CHECK(member(tc->scs[0]->ev_header, "id")->role == TIO_ROLE_EVENT_CLASS_ID);
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tc = load_trace("succeed/meta-ctx-sequence", &m);
	CHECK(tc);
	if (tc) {
		const tio_stream_class *sc = tc->scs[0];
		CHECK(sc->necs == 0);
		CHECK(member(sc->pkt_ctx, "pkt_ctx_seq")->a.len.target == member(sc->pkt_ctx, "_pkt_ctx_seq_length"));
		CHECK(member(sc->ev_common_ctx, "evt_ctx_seq")->a.len.target ==
		      member(sc->ev_common_ctx, "_evt_ctx_seq_length"));
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tc = load_trace("succeed/struct-array-align-elem", &m);
	CHECK(tc);
	if (tc) {
		const tio_fc *y = member(tc->scs[0]->ecs[0]->payload, "y");
		CHECK(y && y->kind == TIO_FC_STRUCT && y->align == 32);
		CHECK(member(y, "b")->kind == TIO_FC_ARRAY && member(y, "b")->a.length == 0);
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tc = load_trace("succeed/succeed4", &m);
	CHECK(tc);
	if (tc) {
		CHECK(tc->uuid[0] == 0x2a && tc->uuid[15] == 0x64);
		CHECK(tc->pkt_header->align == 32);
		CHECK(tc->nclocks == 0 && tc->scs[0]->clock == -1);
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tc = load_trace("succeed/env-warning", &m);
	CHECK(tc);
	if (tc) {
		const tio_kv *kv = tio_trace_class_env(tc, "dummy");
		CHECK(kv && !kv->is_int && !strcmp(kv->sval, "blah"));
		CHECK(member(tc->pkt_header, "magic")->i.base == 16);
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tc = load_trace("succeed/crlf-metadata", &m);
	CHECK(tc);
	if (tc) {
		CHECK(tc->nclocks == 1 && tc->scs[0]->necs == 1);
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tc = load_trace("succeed/meta-trailing-byte", &m);
	CHECK(tc && m.packetized);
	if (tc) {
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	tc = load_trace("succeed/multi-domains/ust", &m);
	CHECK(tc);
	if (tc) {
		CHECK(tc->nscs == 3 && tc->scs[0]->id == 0 && tc->scs[2]->id == 2); /* sorted by id */
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
}

static void fail_trace(const char *dir, const char *a, const char *b)
{
	tio_ctf_meta m;
	tio_trace_class *tc = NULL;
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", ctf1, dir);
	int rc = tio_ctf_meta_load(path, &m);
	if (!rc) {
		rc = tio_tsdl_parse(m.text, m.len, dir, &tc);
		tio_ctf_meta_free(&m);
	}
	checks++;
	if (!rc) {
		failures++;
		fprintf(stderr, "%s: metadata accepted, expected an error\n", dir);
		tio_trace_class_free(tc);
		return;
	}
	if (!strstr(tio_error_message(), a) || (b && !strstr(tio_error_message(), b))) {
		failures++;
		fprintf(stderr, "%s: error \"%s\" lacks \"%s\" or \"%s\"\n", dir, tio_error_message(), a, b ? b : "");
	}
}

static void test_fail_traces(void)
{
	fail_trace("fail/metadata-syntax-error", "metadata-syntax-error:3:58: syntax error", "']'");
	fail_trace("fail/invalid-sequence-length-field-class", "invalid-sequence-length-field-class:23:",
		   "Sequence field class's length field class is not an unsigned integer field class");
	fail_trace("fail/invalid-variant-selector-field-class", "invalid-variant-selector-field-class:23:",
		   "Variant field class's tag field class is not an enumeration field class");
	fail_trace("fail/integer-range", "integer-range:7:", "out of range");
	fail_trace("fail/fail1", "fail1:14:1:", "unsupported CTF version 0.1");
	fail_trace("fail/fail2", "fail2:9:", "unknown escape sequence");
	fail_trace("fail/lttng-modules-2.0-pre1", "metadata@0x0", "unsupported metadata packet version");
	fail_trace("fail/packet-based-metadata", "metadata@0x0", NULL);
}

/* ---------------------------------------------------------------- the metadata stream loader */

static void put32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(be ? v >> (24 - 8 * i) : v >> (8 * i));
}

/* One metadata packet of `psize` bytes holding `text`. */
static size_t packet(uint8_t *out, const char *text, size_t psize, bool be)
{
	size_t n = strlen(text);
	memset(out, 0, psize);
	put32(out, 0x75D11D57, be);
	for (int i = 0; i < 16; i++)
		out[4 + i] = (uint8_t)(0xA0 + i);
	put32(out + 24, (uint32_t)(37 + n) * 8, be);
	put32(out + 28, (uint32_t)psize * 8, be);
	out[35] = 1;
	out[36] = 8;
	memcpy(out + 37, text, n);
	return psize;
}

static int write_meta(const char *dir, const void *p, size_t n)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(p, 1, n, f);
	return fclose(f);
}

static void test_loader(void)
{
	char dir[] = "/tmp/unit-tsdl-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	static uint8_t buf[3 * 4096];
	tio_ctf_meta m;
	const char *t1 = "typealias integer { size = 8; } := u8;\ntrace { major = 1; minor = 8; ";
	const char *t2 = "byte_order = be; };\nevent { name = e; fields := struct { u8 x; }; };\n";
	for (int be = 0; be < 2; be++) {
		size_t n = packet(buf, t1, 256, be);
		n += packet(buf + n, t2, 4096, be);
		memcpy(buf + n, "\1\2\3\4\5\6\7\10\11\12\13\14", 12); /* trailing bytes: ignored */
		CHECK(write_meta(dir, buf, n + 12) == 0);
		CHECK(tio_ctf_meta_load(dir, &m) == 0);
		CHECK(m.packetized && m.byte_order == (be ? TIO_BE : TIO_LE) && m.has_uuid && m.uuid[1] == 0xA1);
		CHECK(m.len == strlen(t1) + strlen(t2) && !memcmp(m.text, t1, strlen(t1)));
		tio_trace_class *tc = NULL;
		CHECK(tio_tsdl_parse(m.text, m.len, "m", &tc) == 0);
		CHECK(tc && tc->byte_order == TIO_BE && member(tc->scs[0]->ecs[0]->payload, "x"));
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	/* a first packet too short for its header */
	CHECK(write_meta(dir, buf, 12) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) != 0);
	CHECK(strstr(tio_error_message(), "/metadata@0x0: packet header truncated (12 bytes left)"));
	/* content running past the end of the file, in the second packet */
	size_t n = packet(buf, t1, 4096, false);
	packet(buf + n, t2, 4096, false);
	CHECK(write_meta(dir, buf, n + 40) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) != 0);
	CHECK(strstr(tio_error_message(), "/metadata@0x1000: packet content truncated"));
	/* a bad magic in the second packet */
	packet(buf + n, t2, 4096, false);
	buf[n] ^= 0xFF;
	CHECK(write_meta(dir, buf, 2 * 4096) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) != 0 && strstr(tio_error_message(), "@0x1000: bad metadata packet magic"));
	/* compressed packets are refused */
	packet(buf, t1, 4096, false);
	buf[32] = 1;
	CHECK(write_meta(dir, buf, 4096) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_UNSUPPORTED);
	/* plain text: CRLF, signature, version */
	const char *crlf = "/* CTF 1.8 */\r\ntrace { byte_order = le; };\r\n// x\r\nevent { name = a; };\r\n";
	CHECK(write_meta(dir, crlf, strlen(crlf)) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == 0 && !m.packetized && m.ctf_major == 1 && m.len == strlen(crlf));
	tio_trace_class *tc = NULL;
	CHECK(tio_tsdl_parse(m.text, m.len, "m", &tc) == 0 && tc && tc->scs[0]->necs == 1);
	tio_trace_class_free(tc);
	tio_ctf_meta_free(&m);
	/* blank space and a UTF-8 BOM before the signature (issue 12, item 2) */
	static const char *const lead[] = {"\n", "  \t\r\n\n ", "\xEF\xBB\xBF", "\xEF\xBB\xBF\n\t"};
	for (size_t k = 0; k < TIO_ARRAY_LEN(lead); k++) {
		char text[256];
		snprintf(text, sizeof(text), "%s/* CTF 1.8 */\ntrace { byte_order = le; };\nevent { name = a; };\n", lead[k]);
		CHECK(write_meta(dir, text, strlen(text)) == 0);
		CHECK(tio_ctf_meta_load(dir, &m) == 0 && !m.packetized && m.ctf_major == 1 && m.len == strlen(text));
		tc = NULL;
		CHECK(tio_tsdl_parse(m.text, m.len, "m", &tc) == 0 && tc && tc->scs[0]->necs == 1);
		tio_trace_class_free(tc);
		tio_ctf_meta_free(&m);
	}
	CHECK(write_meta(dir, "\n\n  /* CTF 1.7 */", 18) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_UNSUPPORTED && strstr(tio_error_message(), "version 1.7"));
	CHECK(write_meta(dir, "\n  hello, not TSDL\n", 20) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_FORMAT &&
	      strstr(tio_error_message(), "not a CTF metadata stream (no \"/* CTF 1.8\" signature, no packet magic)"));
	CHECK(write_meta(dir, "\xEF\xBB\xBF", 3) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_FORMAT && strstr(tio_error_message(), "signature"));
	CHECK(write_meta(dir, " \xEF\xBB\xBF/* CTF 1.8 */", 17) == 0); /* a BOM only first */
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_FORMAT && strstr(tio_error_message(), "signature"));
	/* packet text starting with blank space and a BOM */
	size_t pn = packet(buf, "\xEF\xBB\xBF\n\n  trace { byte_order = le; };\nevent { name = a; };\n", 4096, false);
	CHECK(write_meta(dir, buf, pn) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == 0 && m.packetized);
	tc = NULL;
	CHECK(tio_tsdl_parse(m.text, m.len, "m", &tc) == 0 && tc && tc->scs[0]->necs == 1);
	tio_trace_class_free(tc);
	tio_ctf_meta_free(&m);
	CHECK(write_meta(dir, "/* CTF 1.7 */", 13) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_UNSUPPORTED);
	CHECK(write_meta(dir, "trace {};", 9) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_FORMAT && strstr(tio_error_message(), "signature"));
	CHECK(write_meta(dir, "", 0) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == TIO_ERR_FORMAT && strstr(tio_error_message(), "empty"));
	/* CTF 2: loaded as is */
	CHECK(write_meta(dir, "\x1e{\"type\":\"preamble\",\"version\":2}", 32) == 0);
	CHECK(tio_ctf_meta_load(dir, &m) == 0 && m.ctf_major == 2 && m.len == 32 && m.text[0] == 0x1e);
	tio_ctf_meta_free(&m);
	char path[4200];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	rmdir(dir);
}

/* ---------------------------------------------------------------- snippets */

#define HDR "/* CTF 1.8 */\ntypealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n" \
	    "typealias integer { size = 32; align = 32; signed = false; } := uint32_t;\n"
#define TRACE_LE "trace { major = 1; minor = 8; byte_order = le; };\n"

static void test_snippets(void)
{
	tio_trace_class *tc;

	/* Paths: relative in an enclosing structure, absolute into earlier scopes. */
	tc = parse(HDR "trace { byte_order = be; packet.header := struct { uint32_t magic; uint8_t hl; }; };\n"
		       "stream { event.header := struct { uint8_t len; enum : uint8_t { A, B } sel; };\n"
		       "  event.context := struct { uint8_t c[stream.event.header.len]; }; };\n"
		       "event { name = ev; context := struct { uint8_t n; };\n"
		       "  fields := struct { uint8_t n; struct { uint8_t s[n]; uint8_t t[event.context.n]; } in;\n"
		       "    uint8_t h[trace.packet.header.hl]; uint8_t u[event.fields.n];\n"
		       "    variant <stream.event.header.sel> { string A; uint32_t B; } v; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_stream_class *sc = tc->scs[0];
		const tio_event_class *ec = sc->ecs[0];
		const tio_fc *in = member(ec->payload, "in");
		CHECK(member(in, "s")->a.len.target == member(ec->payload, "n"));
		CHECK(member(in, "t")->a.len.target == member(ec->spec_ctx, "n"));
		CHECK(member(ec->payload, "h")->a.len.target == member(tc->pkt_header, "hl"));
		CHECK(member(ec->payload, "u")->a.len.target == member(ec->payload, "n"));
		CHECK(member(sc->ev_common_ctx, "c")->a.len.target == member(sc->ev_header, "len"));
		const tio_fc *v = member(ec->payload, "v");
		CHECK(v->v.sel.target == member(sc->ev_header, "sel") && v->align == 1);
		CHECK(member(v, "B")->i.byte_order == TIO_BE && member(v, "B")->align == 32);
		CHECK(ec->payload->align == 8); /* a variant does not count (4.2.2) */
		tio_trace_class_free(tc);
	}

	/* Typedef'd variant and sequence: each use site resolves on its own copy. */
	tc = parse(HDR TRACE_LE
		   "typedef variant { uint8_t a; string b; } var_t;\n"
		   "variant named { uint32_t x; uint8_t y; };\n"
		   "event { name = ev; fields := struct {\n"
		   "  enum : uint8_t { a, b } t1; var_t <t1> v1;\n"
		   "  struct { enum : uint8_t { b = 1, a = 0 } t2; var_t <t2> v2; } s;\n"
		   "  enum : uint8_t { x, y } t3; variant named <t3> v3;\n"
		   "  uint8_t n; typedef uint8_t seq_t[n]; seq_t q1; seq_t q2[2]; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_fc *pl = tc->scs[0]->ecs[0]->payload;
		const tio_fc *s = member(pl, "s");
		CHECK(member(pl, "v1")->v.sel.target == member(pl, "t1"));
		CHECK(member(s, "v2")->v.sel.target == member(s, "t2"));
		CHECK(member(s, "v2")->v.ranges[1].ranges[0].lo == 1); /* option b <- label b = 1 */
		CHECK(member(pl, "v3")->v.sel.target == member(pl, "t3"));
		CHECK(member(pl, "q1")->a.len.target == member(pl, "n"));
		const tio_fc *q2 = member(pl, "q2");
		CHECK(q2->kind == TIO_FC_ARRAY && q2->a.length == 2 && q2->a.elem->kind == TIO_FC_SEQUENCE);
		CHECK(q2->a.elem->a.len.target == member(pl, "n"));
		tio_trace_class_free(tc);
	}

	/* A sequence length through a variant (yactfr): the field of that name in each option. */
	tc = parse(HDR TRACE_LE
		   "event { name = ev; fields := struct { enum : uint8_t { X, Y, Z } tag;\n"
		   "  variant <tag> { struct { uint8_t len; } X; struct { string s; uint32_t len; } Y; string Z; } o;\n"
		   "  uint8_t seq[o.len]; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_fc *pl = tc->scs[0]->ecs[0]->payload, *o = member(pl, "o"), *seq = member(pl, "seq");
		CHECK(seq->a.len.target == member(member(o, "X"), "len"));
		CHECK(seq->a.len.nalts == 1 && seq->a.len.alts[0] == member(member(o, "Y"), "len"));
		tio_trace_class_free(tc);
	}
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { enum : uint8_t { X, Y } t;\n"
			   "  variant <t> { struct { uint8_t n; } X; struct { integer { size = 8; signed = true; } n; } Y; } o; uint8_t s[o.n]; }; };",
	      "snippet:6:", "not an unsigned integer");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { enum : uint8_t { X, Y } t;\n"
			   "  variant <t> { struct { uint8_t n; } X; string Y; } o; uint8_t s[o.m]; }; };",
	      "does not name a field of any option of the variant");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { enum : uint8_t { X } t;\n"
			   "  variant <t> { struct { enum : uint8_t { X } e; } X; } o; variant <o.e> { string X; } w; }; };",
	      "variant tag `o.e` is inside a variant");

	/* Enumerations: auto values, ranges, negatives, string labels, merged labels, no container. */
	tc = parse(HDR TRACE_LE
		   "typealias integer { size = 32; signed = true; } := int;\n"
		   "enum e8 : uint8_t { Z, O, \"two words\" = 5 ... 7, N, O = 200, };\n"
		   "event { name = ev; fields := struct {\n"
		   "  enum e8 a; enum : integer { size = 16; signed = 1; } { M = -3, P, Q = -32768 ... -10 } b;\n"
		   "  enum { X = 0xFFFF, Y } c; enum : integer { size = 64; } { BIG = 0xFFFFFFFFFFFFFFFF } d; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_fc *pl = tc->scs[0]->ecs[0]->payload;
		const tio_fc *a = member(pl, "a"), *b = member(pl, "b"), *c = member(pl, "c"), *d = member(pl, "d");
		CHECK(a->kind == TIO_FC_ENUM && a->i.size == 8 && a->i.nmappings == 4);
		CHECK_STR(a->i.mappings[2].label, "two words");
		CHECK(a->i.mappings[2].ranges[0].lo == 5 && a->i.mappings[2].ranges[0].hi == 7);
		CHECK(a->i.mappings[3].ranges[0].lo == 8);
		CHECK(a->i.mappings[1].nranges == 2 && a->i.mappings[1].ranges[1].lo == 200);
		CHECK(b->i.is_signed && b->i.mappings[0].ranges[0].lo == -3 && b->i.mappings[1].ranges[0].lo == -2);
		CHECK(b->i.mappings[2].ranges[0].lo == -32768 && b->i.mappings[2].ranges[0].hi == -10);
		CHECK(c->i.size == 32 && c->i.mappings[1].ranges[0].lo == 0x10000);
		CHECK((uint64_t)d->i.mappings[0].ranges[0].lo == UINT64_MAX);
		tio_trace_class_free(tc);
	}
	FAILS(HDR TRACE_LE "event { name = e; fields := struct { enum : uint8_t { A = 256 } x; }; };",
	      "snippet:5:", "out of range for an unsigned 8-bit container");
	FAILS(HDR TRACE_LE "event { name = e; fields := struct { enum : uint8_t { A = 255, B } x; }; };",
	      "snippet:5:", "implicit value of enumerator `B`");
	FAILS(HDR TRACE_LE "event { name = e; fields := struct { enum : uint8_t { A = -1 } x; }; };", "out of range");
	FAILS(HDR TRACE_LE "typealias floating_point { exp_dig = 8; mant_dig = 24; } := flt;\n"
			   "event { name = e; fields := struct { enum : flt { A } x; }; };", "snippet:6:", "not an integer");

	/* Integers: attributes, defaults, native byte order declared before the trace block. */
	tc = parse("typealias integer { size = 27; } := u27;\n"
		   "typealias integer { size = 16; byte_order = native; base = x; encoding = ASCII; } := u16;\n"
		   "typealias integer { size = 16; byte_order = network; base = o; signed = TRUE; } := s16;\n"
		   "typealias integer { size = 64; align = 1; base = binary; map = clock.later.value; } := clk_t;\n"
		   "typealias floating_point { exp_dig = 11; mant_dig = 53; } := double;\n"
		   "typealias integer { size = 32; align = 32; } := unsigned long;\n"
		   "typealias integer { size = 64; align = 64; } := void *;\n"
		   "trace { byte_order = be; };\n"
		   "clock { name = later; freq = 1000; offset_s = -5; offset = 7; precision = 2; absolute = true;\n"
		   "  description = \"a \\\"clock\\\"\\n\"; };\n"
		   "stream { packet.context := struct { clk_t timestamp_begin; }; };\n"
		   "event { name = \"e\"; id = 0x10; loglevel = -2; model.emf.uri = \"http://x\"; custom = 3;\n"
		   "  other = yes; junk := struct { u16 x; };\n"
		   "  fields := struct { u27 a; u16 b; s16 c; clk_t d; double f; unsigned long g; void *h;\n"
		   "    string str; u16 m[2][3]; string { encoding = ASCII; } s2; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_event_class *ec = tc->scs[0]->ecs[0];
		const tio_fc *pl = ec->payload;
		CHECK(ec->id == 16 && ec->loglevel == -2);
		CHECK_STR(ec->emf_uri, "http://x");
		CHECK(ec->nattrs == 2 && !strcmp(ec->attrs[0].key, "custom") && ec->attrs[0].is_int && ec->attrs[0].ival == 3);
		CHECK(!strcmp(ec->attrs[1].key, "other") && !strcmp(ec->attrs[1].sval, "yes"));
		CHECK(member(pl, "a")->align == 1 && member(pl, "a")->i.size == 27 && member(pl, "a")->i.base == 10);
		const tio_fc *b = member(pl, "b");
		CHECK(b->align == 8 && b->i.byte_order == TIO_BE && b->i.base == 16 && b->i.encoding == TIO_ENC_UTF8);
		CHECK(member(pl, "c")->i.is_signed && member(pl, "c")->i.base == 8);
		CHECK(member(pl, "d")->i.clock == 0 && member(pl, "d")->align == 1 && member(pl, "d")->i.base == 2);
		const tio_fc *f = member(pl, "f");
		CHECK(f->kind == TIO_FC_FLOAT && f->f.exp_dig == 11 && f->f.mant_dig == 53 && f->align == 8 &&
		      f->f.byte_order == TIO_BE);
		CHECK(member(pl, "g")->i.size == 32 && member(pl, "h")->i.size == 64);
		CHECK(member(pl, "str")->kind == TIO_FC_STRING && member(pl, "str")->align == 8);
		const tio_fc *mm = member(pl, "m");
		CHECK(mm->a.length == 2 && mm->a.elem->kind == TIO_FC_ARRAY && mm->a.elem->a.length == 3);
		CHECK(!mm->a.text && !mm->a.elem->a.text); /* 16-bit elements */
		CHECK(member(pl, "s2")->s.encoding == TIO_ENC_UTF8);
		const tio_clock *ck = tc->clocks[0];
		CHECK(ck->freq == 1000 && ck->offset_s == -5 && ck->offset == 7 && ck->precision == 2 && ck->origin_unix);
		CHECK_STR(ck->description, "a \"clock\"\n");
		CHECK(tc->scs[0]->clock == 0);
		CHECK(member(tc->scs[0]->pkt_ctx, "timestamp_begin")->role == TIO_ROLE_BEGIN_TS);
		tio_trace_class_free(tc);
	}

	/* Events before their stream, stream ids, implicit stream, auto-mapped timestamps. */
	tc = parse(HDR TRACE_LE
		   "event { name = a; stream_id = 1; id = 2; };\n"
		   "event { name = b; stream_id = 1; id = 1; };\n"
		   "stream { id = 1; event.header := struct { uint32_t id; uint32_t timestamp; }; };\n"
		   "stream { id = 0; };\n"
		   "event { name = c; stream_id = 0; };\n");
	CHECK(tc);
	if (tc) {
		CHECK(tc->nscs == 2 && tc->scs[1]->id == 1 && tc->scs[1]->necs == 2);
		CHECK(!strcmp(tc->scs[1]->ecs[0]->name, "b") && tc->scs[1]->ecs[1]->id == 2);
		/* no clock declared: a 1 GHz "default" clock, as babeltrace2 does */
		CHECK(tc->nclocks == 1 && !strcmp(tc->clocks[0]->name, "default") && tc->clocks[0]->freq == 1000000000);
		CHECK(tc->scs[1]->clock == 0 && tc->scs[0]->clock == -1);
		CHECK(member(tc->scs[1]->ev_header, "timestamp")->i.clock == 0);
		tio_trace_class_free(tc);
	}
	tc = parse(HDR TRACE_LE "event { name = a; }; event { name = b; id = 1; };");
	CHECK(tc && tc->nscs == 1 && tc->scs[0]->id == 0 && tc->scs[0]->necs == 2);
	tio_trace_class_free(tc);

	/* Typedefs in nested lexical scopes; hiding an outer name. */
	tc = parse(HDR TRACE_LE
		   "event { name = a; typedef uint32_t t; fields := struct {\n"
		   "  t x; struct { typedef uint8_t t; t y; } in; t z; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_fc *pl = tc->scs[0]->ecs[0]->payload;
		CHECK(member(pl, "x")->i.size == 32 && member(member(pl, "in"), "y")->i.size == 8 && member(pl, "z")->i.size == 32);
		tio_trace_class_free(tc);
	}

	/* Comments and keywords in odd places. */
	tc = parse(HDR TRACE_LE "env { v = ((-(3))); w = -(-4); };");
	CHECK(tc && tc->env[0].ival == -3 && tc->env[1].ival == 4);
	tio_trace_class_free(tc);

	tc = parse("/* CTF 1.8 */ // line comment\n trace { byte_order = le; /* c */ }\n"
		   "callsite { name = \"x\"; func = \"f\"; file = \"a.c\"; line = 3; ip = 0x40096c; };\n"
		   "env { a = -1; b = \"s\"; c = id; };\n"
		   "event { name = string; fields := struct { integer { size = 8; } _event, __x; }; };\n");
	CHECK(tc);
	if (tc) {
		CHECK_STR(tc->scs[0]->ecs[0]->name, "string");
		CHECK(member(tc->scs[0]->ecs[0]->payload, "event") && member(tc->scs[0]->ecs[0]->payload, "_x"));
		CHECK(tc->nenv == 3 && tc->env[0].is_int && tc->env[0].ival == -1 && !strcmp(tc->env[2].sval, "id"));
		tio_trace_class_free(tc);
	}

	/* Errors name the place and the problem. */
	FAILS(HDR "trace { major = 1; };", "snippet:4:1:", "no `byte_order`");
	FAILS(HDR "event { name = a; };", "no trace block");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { foo_t x; }; };", "snippet:5:", "unknown type `foo_t`");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { uint8_t x; uint8_t x; }; };", "duplicate field name `x`");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { uint8_t s[n]; uint8_t n; }; };",
	      "snippet:5:", "must refer to a field located before");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { uint8_t s[nope]; }; };",
	      "snippet:5:", "sequence length `nope`");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { struct { uint8_t n; } in; uint8_t s[n]; }; };",
	      "does not name a field of an enclosing structure");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { uint8_t s[event.context.n]; }; };", "not defined");
	FAILS(HDR TRACE_LE "stream { event.header := struct { uint8_t s[event.fields.n]; }; };",
	      "comes after stream.event.header");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { uint8_t n[2]; uint8_t s[n]; }; };",
	      "Sequence field class's length field class is not an unsigned integer field class");
	FAILS(HDR TRACE_LE "typedef variant { string a; } v; event { name = a; fields := struct { v x; }; };",
	      "variant has no tag");
	FAILS(HDR TRACE_LE "typealias integer { size = 8; map = clock.nope.value; } := c8;\n"
			   "event { name = a; fields := struct { c8 x; }; };", "snippet:5:", "clock `nope`");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { integer { size = 65; } x; }; };", "1 to 64 bits");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { integer { size = 8; align = 3; } x; }; };", "power of two");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { integer { align = 8; } x; }; };", "no `size`");
	FAILS(HDR TRACE_LE "event { name = a; fields := uint8_t; };", "must be a structure");
	FAILS(HDR TRACE_LE "event { name = a; }; event { name = b; };", "already used by event `a`");
	FAILS(HDR TRACE_LE "stream { id = 1; }; stream { id = 2; }; event { name = b; };", "has no `stream_id`");
	FAILS(HDR TRACE_LE "event { name = b; stream_id = 4; };", "stream class 4");
	FAILS(HDR TRACE_LE "stream { }; stream { };", "declared twice");
	FAILS(HDR "trace { byte_order = le; }; trace { byte_order = le; };", "second trace block");
	FAILS(HDR "trace { byte_order = native; };", "must be be or le");
	FAILS(HDR "trace { byte_order = le; uuid = \"1234\"; };", "snippet:4:", "invalid UUID");
	FAILS(HDR "trace { byte_order = le; }; typealias uint8_t := uint8_t;", "redefinition of type `uint8_t`");
	FAILS("trace { byte_order = le; }; /* unterminated", "snippet:1:", "unterminated comment");
	FAILS("trace { byte_order = le; }; env { s = \"abc\n\"; };", "snippet:1:", "unterminated string");
	FAILS("trace { byte_order = le; } @", "snippet:1:28:", "unexpected character '@'");
	FAILS("trace { byte_order = le; } event { name = 09; };", "invalid digit '9' in octal");
	FAILS("trace { byte_order = le; } event { name = x; fields := struct { integer { size = 8; } a : 9; }; };",
	      "bit-field of 9 bits does not fit its 8-bit unit");
	FAILS("trace { byte_order = le; } event { name = x; fields := struct { string s : 3; }; };",
	      "bit-field's type must be an integer");
	FAILS("trace { byte_order = le; ", "snippet:1:", "end of metadata");
	FAILS("trace { byte_order = le; }; env { a = 0x1ffffffffffffffff; };", "more than 64 bits");
	FAILS("trace { byte_order = le; }; clock { freq = 0; name = c; };", "must not be 0");
	FAILS("trace { byte_order = le; }; clock { freq = 10; };", "no `name`");
	FAILS("trace { byte_order = le; }; event { fields := struct { string s; }; };", "no `name`");

	/* Limits: nesting depth, typealias copy explosion. */
	tio_buf b = {0};
	tio_buf_adds(&b, "trace { byte_order = le; }; event { name = a; fields := ");
	for (int i = 0; i < 100; i++)
		tio_buf_adds(&b, "struct { ");
	tio_buf_adds(&b, "string s;");
	for (int i = 0; i < 100; i++)
		tio_buf_adds(&b, " } x;");
	tio_buf_adds(&b, " }; };");
	tc = NULL;
	checks++;
	if (tio_tsdl_parse(b.p, b.len, "deep", &tc) != TIO_ERR_LIMIT || !strstr(tio_error_message(), "deep")) {
		failures++;
		fprintf(stderr, "deep nesting: %s\n", tio_error_message());
	}
	tio_trace_class_free(tc);
	tio_buf_reset(&b);
	tio_buf_adds(&b, "trace { byte_order = le; }; typedef string a0;\n");
	for (int i = 1; i < 100; i++)
		tio_buf_addf(&b, "typedef a%d a%d[2];\n", i - 1, i);
	tc = NULL;
	checks++;
	if (tio_tsdl_parse(b.p, b.len, "arrays", &tc) != TIO_ERR_LIMIT || !strstr(tio_error_message(), "arrays:65:")) {
		failures++;
		fprintf(stderr, "deep array typedefs: %s\n", tio_error_message());
	}
	tio_trace_class_free(tc);
	tio_buf_reset(&b);
	tio_buf_adds(&b, "trace { byte_order = le; }; env { x = ");
	for (int i = 0; i < 100000; i++)
		tio_buf_addc(&b, '(');
	tio_buf_adds(&b, "1");
	tc = NULL;
	checks++;
	if (tio_tsdl_parse(b.p, b.len, "parens", &tc) != TIO_ERR_LIMIT) {
		failures++;
		fprintf(stderr, "deep parentheses: %s\n", tio_error_message());
	}
	tio_trace_class_free(tc);
	tio_buf_reset(&b);
	tio_buf_adds(&b, "trace { byte_order = le; }; typedef string t0;\n");
	for (int i = 1; i < 40; i++)
		tio_buf_addf(&b, "typedef struct { t%d a; t%d b; t%d c; t%d d; } t%d;\n", i - 1, i - 1, i - 1, i - 1, i);
	tc = NULL;
	checks++;
	if (tio_tsdl_parse(b.p, b.len, "wide", &tc) != TIO_ERR_LIMIT || !strstr(tio_error_message(), "field classes")) {
		failures++;
		fprintf(stderr, "typedef explosion: %s\n", tio_error_message());
	}
	tio_trace_class_free(tc);
	tio_buf_free(&b);
}

/* ---------------------------------------------------------------- issue 12: agree with babeltrace */

static void test_babeltrace_grammar(void)
{
	tio_trace_class *tc;

	/*
	 * String escapes: \x and octal take at most 3 digits, a value over 0xff
	 * keeps its low 8 bits, and a \0 ends the value (babeltrace's
	 * import_basic_string; the CTF test suite's string-literal-escape).
	 */
	tc = parse(HDR "trace { byte_order = le; test2 = \"?\\x20\\040\\123\\0?\"; };\n"
		   "env { hostname = \"\\nabc \\\" hex: \\x41, \\x23, \\x023, \\x0231,\\noct: \\101, \\043, \\43, "
		   "\\0431, \\0NOT SEEN\"; a = \"\\x27b\\777\\x3FF\"; b = \"\\x0\\x41\"; c = \"x\\00\\x41\"; };\n"
		   "event { name = \"e\\0f\"; fields := struct { enum : uint8_t { \"l\\0m\", n } x; }; };\n");
	CHECK(tc);
	if (tc) {
		CHECK(tc->nenv == 4);
		CHECK_STR(tc->env[0].sval, "\nabc \" hex: A, #, #, #1,\noct: A, #, #, #1, ");
		CHECK_STR(tc->env[1].sval, "{\xff\xff");
		CHECK_STR(tc->env[2].sval, "");
		CHECK_STR(tc->env[3].sval, "x");
		CHECK_STR(tc->scs[0]->ecs[0]->name, "e");
		CHECK_STR(member(tc->scs[0]->ecs[0]->payload, "x")->i.mappings[0].label, "l");
		tio_trace_class_free(tc);
	}
	FAILS(HDR TRACE_LE "env { a = \"\\xg\"; };", "snippet:5:12:", "\\x used with no following hex digits");
	FAILS(HDR TRACE_LE "env { a = \"\\q\"; };", "snippet:5:12:", "unknown escape sequence");

	/*
	 * A top-level `struct NAME { ... }` without ';' when another specifier
	 * or `typedef` follows (babeltrace's grammar: struct-inner-struct).
	 */
	tc = parse(HDR "struct a { uint8_t x; }\n"
		   "struct b { uint32_t y; struct a in; }\n"
		   "enum e : uint8_t { A, B }\n"
		   "uint32_t;\n"
		   "struct c { uint8_t z; }\n"
		   "typedef struct c c_t;\n"
		   "uint32_t typedef u32;\n" TRACE_LE
		   "event { name = ev; fields := struct { struct a a; struct b b; enum e e; c_t c; u32 u;\n"
		   "  uint8_t typedef d8; d8 v; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_fc *pl = tc->scs[0]->ecs[0]->payload;
		CHECK(member(member(pl, "a"), "x") && member(member(member(pl, "b"), "in"), "x"));
		CHECK(member(pl, "e")->kind == TIO_FC_ENUM && member(member(pl, "c"), "z"));
		CHECK(member(pl, "u")->i.size == 32 && member(pl, "v")->i.size == 8);
		tio_trace_class_free(tc);
	}
	FAILS(HDR "struct a { uint8_t x; }\n" TRACE_LE, "snippet:5:1:",
	      "expected ';' (top-level declarations only declare types), got 'trace'");
	FAILS(HDR "struct a { uint8_t x; }\ntypealias uint8_t := u8;\n" TRACE_LE, "snippet:5:1:", "got 'typealias'");
	FAILS(HDR "struct a { uint8_t x; }\n", "snippet:5:1:", "got end of metadata");
	FAILS(HDR "struct a { uint8_t x; } b;\n" TRACE_LE, "snippet:4:25:", "got 'b'");

	/*
	 * Reserved keywords where a declaration introduces a name: refused,
	 * naming the keyword and its place (babeltrace 1 and 2 and the suite's
	 * struct-reserved-keywords, typedef-reserved-keyword,
	 * typealias-reserved-keyword, variant-tag-keyword refuse them).
	 */
	FAILS(HDR TRACE_LE "event { name = a; fields := struct {\n uint32_t valid;\n  uint32_t trace; }; };",
	      "snippet:7:12:", "`trace` is a reserved keyword, it cannot be a field name");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { string string; }; };", "snippet:5:45:", "`string`");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { uint32_t align; }; };", "`align`");
	FAILS(HDR "typedef uint32_t int;\n" TRACE_LE, "snippet:4:18:", "`int` is a reserved keyword, it cannot be a type name");
	FAILS(HDR "typealias integer { size = 8; } := trace;\n" TRACE_LE, "snippet:4:36:",
	      "`trace` is a reserved keyword, it cannot be a typealias name");
	FAILS(HDR "typealias integer { size = 8; } := string;\n" TRACE_LE, "`string`");
	FAILS(HDR "typealias integer { size = 8; } := struct;\n" TRACE_LE, "`struct`");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { enum : uint8_t { A, B } _variant;\n"
			   "  variant <variant> { uint8_t A; uint32_t B; } v; }; };",
	      "snippet:6:12:", "`variant` is a reserved keyword, it cannot be a variant tag");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { enum : uint8_t { A, B } t;\n"
			   "  variant <t> { uint8_t A; uint32_t event; } v; }; };", "snippet:6:37:",
	      "it cannot be a variant option name");
	FAILS(HDR TRACE_LE "event { name = a; fields := struct { enum : uint8_t { A } t; variant <event.fields.string> "
			   "{ uint8_t A; } v; }; };", "`string`", "variant tag");
	FAILS(HDR "struct event { uint8_t x; };\n" TRACE_LE, "snippet:4:8:", "a structure name");
	FAILS(HDR "variant clock { uint8_t x; };\n" TRACE_LE, "snippet:4:9:", "a variant name");
	FAILS(HDR "enum env : uint8_t { A };\n" TRACE_LE, "snippet:4:6:", "an enumeration name");
	/* still accepted: C's type keywords as typealias names, keywords as values, labels, path prefixes */
	tc = parse(HDR "typealias uint32_t := int;\ntypealias uint8_t := unsigned char;\n"
		   "typealias integer { size = 64; } := long const;\n" TRACE_LE
		   "stream { event.header := struct { enum : uint8_t { A, B } sel; }; };\n"
		   "event { name = string; fields := struct { int a; unsigned char b; long c;\n"
		   "  enum : uint8_t { trace, string = 3, _event } _trace; enum : int { struct } _int;\n"
		   "  variant <stream.event.header.sel> { uint8_t A; uint32_t B; } _variant; }; };\n");
	CHECK(tc);
	if (tc) {
		const tio_fc *pl = tc->scs[0]->ecs[0]->payload;
		CHECK_STR(tc->scs[0]->ecs[0]->name, "string");
		CHECK(member(pl, "a")->i.size == 32 && member(pl, "b")->i.size == 8 && member(pl, "c")->i.size == 64);
		CHECK(member(pl, "trace") && member(pl, "int") && member(pl, "variant"));
		CHECK_STR(member(pl, "trace")->i.mappings[1].label, "string");
		tio_trace_class_free(tc);
	}
}

int main(void)
{
	const char *shared = getenv("TIO_SHARED");
	snprintf(ctf1, sizeof(ctf1), "%s/peer-data/ctf/babeltrace-2.1/ctf-traces/1", shared ? shared : "../shared");
	char succeed[4200];
	snprintf(succeed, sizeof(succeed), "%s/succeed", ctf1);
	int n = 0;
	parse_all(succeed, &n);
	CHECK(n >= 38);
	test_wk_heartbeat();
	test_kernel();
	test_variant_names();
	test_small_facts();
	test_fail_traces();
	test_loader();
	test_snippets();
	test_babeltrace_grammar();
	if (failures) {
		fprintf(stderr, "unit-tsdl: %d of %d checks failed\n", failures, checks);
		return 1;
	}
	printf("unit-tsdl: %d checks passed (%d succeed traces parsed)\n", checks, n);
	return 0;
}

/*
 * CTF 2 metadata (ctf2-meta.c): every metadata stream of the babeltrace 2.1
 * CTF 2 traces and of yactfr's CTF 2 iteration tests parses, with concrete
 * facts checked on some of them; the failing ones (and hand-written broken
 * streams) fail with a message that names the fragment and the JSON path.
 * TIO_VERBOSE=1 prints every stream's outcome.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/common.h"
#include "ctf/ctf.h"
#include "ir/ir.h"

#include "unit-check.h"

static int npass, nfail_ok;
static bool verbose;

static char shared[4096];

static tio_trace_class *load(const char *rel)
{
	char *path = tio_asprintf("%s/%s", shared, rel);
	char *text = NULL;
	size_t len = 0;
	tio_trace_class *tc = NULL;
	if (tio_read_file(path, &text, &len)) {
		CHECK(0, "cannot read %s: %s", path, tio_error_message());
	} else if (tio_ctf2_parse(text, len, path, &tc)) {
		CHECK(0, "%s: %s", rel, tio_error_message());
		tc = NULL;
	}
	free(text);
	free(path);
	return tc;
}

static const tio_fc *member(const tio_fc *st, const char *name)
{
	int i = tio_fc_member_index(st, name);
	return i >= 0 ? st->st.members[i].fc : NULL;
}

/* Every metadata file under a directory. */
static char **found;
static size_t nfound, found_cap;

static int collect(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	if (flag == FTW_F && !strcmp(path + ftw->base, "metadata")) {
		if (!tio_grow(&found, &found_cap, nfound + 1, sizeof(char *)))
			found[nfound++] = tio_strdup(path);
	}
	return 0;
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Parse every metadata under `dir`: expect success unless the trace directory name starts with fail- (yactfr data errors parse). */
static void parse_all(const char *dir, bool expect_ok, size_t *count)
{
	char *root = tio_asprintf("%s/%s", shared, dir);
	nfound = 0;
	nftw(root, collect, 16, FTW_PHYS);
	qsort(found, nfound, sizeof(char *), cmpstr);
	*count = nfound;
	for (size_t i = 0; i < nfound; i++) {
		char *text = NULL;
		size_t len = 0;
		tio_trace_class *tc = NULL;
		CHECK(!tio_read_file(found[i], &text, &len), "read %s", found[i]);
		int r = text ? tio_ctf2_parse(text, len, found[i], &tc) : -1;
		if (verbose)
			printf("%s %s%s%s\n", r ? "ERR" : "ok ", found[i], r ? ": " : "", r ? tio_error_message() : "");
		if (expect_ok) {
			CHECK(r == 0, "%s: %s", found[i], tio_error_message());
			npass += r == 0;
		} else {
			/* a stream without data stream class parses; the reader refuses it */
			CHECK(r != 0 || tc->nscs == 0, "%s: parsed, but must fail", found[i]);
			/* the message names the metadata, and where */
			const char *m = tio_error_message();
			CHECK(r == 0 || (strstr(m, found[i]) && (strstr(m, "fragment") || strstr(m, "end of the metadata"))),
			      "%s: message '%s'", found[i], m);
			nfail_ok++;
		}
		tio_trace_class_free(tc);
		free(text);
		free(found[i]);
	}
	free(root);
}

static void check_wk_heartbeat(void)
{
	tio_trace_class *tc = load("ctf/babeltrace-2.1/ctf-traces/2/succeed/wk-heartbeat-u/metadata");
	if (!tc)
		return;
	static const uint8_t uuid[16] = {98, 75, 25, 217, 25, 205, 78, 174, 186, 184, 131, 66, 225, 185, 106, 93};
	CHECK(tc->has_uuid && !memcmp(tc->uuid, uuid, 16), "trace UUID from the preamble");
	CHECK(tc->nclocks == 1, "one clock");
	if (tc->nclocks == 1) {
		const tio_clock *ck = tc->clocks[0];
		CHECK(!strcmp(ck->name, "monotonic") && ck->freq == 1000000000 && ck->offset_s == 1351530929 &&
			      ck->offset == 945824323 && ck->origin_unix && ck->has_uuid && ck->uuid[0] == 0xc1,
		      "clock monotonic");
		CHECK(ck->description && !strcmp(ck->description, "Monotonic Clock"), "clock description");
	}
	CHECK(tc->nenv == 7, "7 env entries, got %u", tc->nenv);
	const tio_kv *vpid = tio_trace_class_env(tc, "vpid"), *dom = tio_trace_class_env(tc, "domain");
	CHECK(vpid && vpid->is_int && vpid->ival == 3208, "env vpid");
	CHECK(dom && !dom->is_int && !strcmp(dom->sval, "ust"), "env domain");
	const tio_fc *ph = tc->pkt_header;
	CHECK(ph && ph->kind == TIO_FC_STRUCT && ph->st.nmembers == 3, "packet header");
	if (ph) {
		const tio_fc *magic = member(ph, "magic"), *u = member(ph, "uuid"), *sid = member(ph, "stream_id");
		CHECK(magic && magic->kind == TIO_FC_INT && magic->role == TIO_ROLE_MAGIC && magic->i.size == 32 &&
			      magic->align == 8 && magic->i.byte_order == TIO_LE,
		      "magic");
		CHECK(u && u->kind == TIO_FC_SBLOB && u->s.length == 16 && u->role == TIO_ROLE_METADATA_UUID &&
			      u->align == 8 && !strcmp(u->s.media_type, "application/octet-stream"),
		      "uuid blob");
		CHECK(sid && sid->role == TIO_ROLE_STREAM_CLASS_ID, "stream_id");
	}
	CHECK(tc->nscs == 1, "one stream class");
	if (tc->nscs != 1) {
		tio_trace_class_free(tc);
		return;
	}
	const tio_stream_class *sc = tc->scs[0];
	CHECK(sc->id == 0 && sc->clock == 0, "stream class 0, clock 0");
	const tio_fc *tb = member(sc->pkt_ctx, "timestamp_begin"), *te = member(sc->pkt_ctx, "timestamp_end");
	CHECK(tb && tb->role == TIO_ROLE_BEGIN_TS && tb->i.clock == 0, "timestamp_begin");
	CHECK(te && te->role == TIO_ROLE_END_TS && te->i.clock == 0, "timestamp_end");
	CHECK(member(sc->pkt_ctx, "content_size")->role == TIO_ROLE_CONTENT_SIZE, "content_size");
	CHECK(member(sc->pkt_ctx, "packet_size")->role == TIO_ROLE_PACKET_SIZE, "packet_size");
	CHECK(member(sc->pkt_ctx, "events_discarded")->role == TIO_ROLE_DISCARDED, "events_discarded");
	const tio_fc *cpu = member(sc->pkt_ctx, "cpu_id");
	CHECK(cpu && cpu->role == TIO_ROLE_NONE && cpu->i.clock == -1, "cpu_id");
	const tio_fc *eh = sc->ev_header;
	CHECK(eh && eh->align == 8, "event header minimum alignment 8");
	const tio_fc *id = member(eh, "id"), *v = member(eh, "v");
	CHECK(id && id->kind == TIO_FC_ENUM && id->i.size == 5 && id->role == TIO_ROLE_EVENT_CLASS_ID &&
		      id->i.nmappings == 2 && !strcmp(id->i.mappings[1].label, "extended") &&
		      id->i.mappings[1].ranges[0].lo == 31,
	      "event header id");
	CHECK(v && v->kind == TIO_FC_VARIANT && v->v.noptions == 2 && v->v.sel.target == id &&
		      !strcmp(v->v.sel.path, "event-record-header/id"),
	      "variant selector resolved to id");
	if (v && v->kind == TIO_FC_VARIANT && v->v.noptions == 2) {
		CHECK(!strcmp(v->v.options[0].name, "compact") && v->v.ranges &&
			      v->v.ranges[0].nranges == 1 && v->v.ranges[0].ranges[0].lo == 0 &&
			      v->v.ranges[0].ranges[0].hi == 30 && v->v.ranges[1].ranges[0].lo == 31,
		      "variant ranges");
		const tio_fc *ts = member(v->v.options[0].fc, "timestamp");
		CHECK(ts && ts->role == TIO_ROLE_EVENT_TS && ts->i.clock == 0 && ts->i.size == 27,
		      "compact timestamp is the event timestamp");
		const tio_fc *xid = member(v->v.options[1].fc, "id");
		CHECK(xid && xid->role == TIO_ROLE_EVENT_CLASS_ID && xid->i.size == 32, "extended id");
	}
	CHECK(sc->ev_common_ctx && sc->ev_common_ctx->st.nmembers == 2 &&
		      member(sc->ev_common_ctx, "vtid")->i.is_signed,
	      "common context");
	CHECK(sc->necs == 1, "one event class");
	if (sc->necs == 1) {
		const tio_event_class *ec = sc->ecs[0];
		CHECK(!strcmp(ec->name, "heartbeat:msg") && ec->id == 0 && ec->loglevel == 13, "event class");
		CHECK(ec->payload && member(ec->payload, "msg")->kind == TIO_FC_STRING &&
			      member(ec->payload, "msg")->s.encoding == TIO_ENC_UTF8,
		      "payload msg");
		CHECK(ec->nattrs == 1 && !strcmp(ec->attrs[0].key, "attributes") &&
			      strstr(ec->attrs[0].sval, "debug:line"),
		      "attributes kept");
	}
	tio_trace_class_free(tc);
}

static const tio_fc *payload_of(tio_trace_class *tc, uint64_t ecid)
{
	if (!tc || tc->nscs < 1)
		return NULL;
	const tio_event_class *ec = tio_stream_class_find_ec(tc->scs[0], ecid);
	return ec ? ec->payload : NULL;
}

static void check_small(void)
{
	/* bit map flags: ranges of bit indexes */
	tio_trace_class *tc = load("ctf/babeltrace-2.1/ctf-traces/2/succeed/fl-bm/metadata");
	const tio_fc *bm = member(payload_of(tc, 0), "lol");
	CHECK(bm && bm->kind == TIO_FC_BITMAP && bm->i.size == 8 && bm->i.nmappings == 3 &&
		      !strcmp(bm->i.mappings[1].label, "MEOW") && bm->i.mappings[1].ranges[0].lo == 2 &&
		      bm->i.mappings[1].ranges[0].hi == 5,
	      "fl-bm bit map");
	CHECK(tc && tc->nclocks == 0 && tc->scs[0]->clock == -1 && !tc->pkt_header, "fl-bm: no clock, no header");
	tio_trace_class_free(tc);

	/* optionals: boolean, unsigned and signed selectors */
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-opts/metadata");
	const tio_fc *o0 = member(payload_of(tc, 0), "opt"), *o1 = member(payload_of(tc, 1), "opt"),
		     *o2 = member(payload_of(tc, 2), "opt");
	CHECK(o0 && o0->kind == TIO_FC_OPTIONAL && o0->v.noptions == 1 && !o0->v.ranges &&
		      o0->v.sel.target == member(payload_of(tc, 0), "sel") && o0->v.sel.target->kind == TIO_FC_BOOL &&
		      o0->v.options[0].fc->kind == TIO_FC_STRING,
	      "optional, boolean selector");
	CHECK(o1 && o1->v.ranges && o1->v.ranges[0].nranges == 1 && o1->v.ranges[0].ranges[0].lo == 33 &&
		      o1->v.ranges[0].ranges[0].hi == 55,
	      "optional, unsigned selector");
	CHECK(o2 && o2->v.ranges && o2->v.ranges[0].ranges[0].lo == -23 && o2->v.ranges[0].ranges[0].hi == 17 &&
		      o2->v.sel.target->i.is_signed,
	      "optional, signed selector");
	tio_trace_class_free(tc);

	/* relative locations */
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-rel-data-loc-5/metadata");
	const tio_fc *pl = payload_of(tc, 0);
	const tio_fc *str = member(member(pl, "la struct"), "str");
	CHECK(str && str->kind == TIO_FC_DSTRING && str->s.len.target == member(member(pl, "une autre"), "len") &&
		      !strcmp(str->s.len.path, "event-record-payload/une autre/len"),
	      "relative location with canceled names, got %s", str && str->s.len.path ? str->s.len.path : "-");
	tio_trace_class_free(tc);
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-rel-data-loc-3/metadata");
	pl = payload_of(tc, 0);
	str = member(member(pl, "la struct"), "str");
	CHECK(str && str->s.len.target == member(pl, "len"), "[null, len]");
	tio_trace_class_free(tc);

	/* aliases: copied at each use */
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-dt-aliases/metadata");
	if (tc && tc->nscs == 1 && tc->scs[0]->necs == 1) {
		const tio_event_class *ec = tc->scs[0]->ecs[0];
		const tio_fc *yo = member(tc->scs[0]->ev_common_ctx, "yo"), *kilo = member(ec->spec_ctx, "kilo");
		const tio_fc *mini = member(ec->payload, "mini");
		CHECK(yo && kilo && yo != kilo && yo->kind == TIO_FC_INT && kilo->i.size == 8, "alias u8 copied");
		CHECK(mini && mini->kind == TIO_FC_ARRAY && mini->a.length == 3 && mini->a.elem->i.size == 8,
		      "alias of alias");
		CHECK(member(tc->pkt_header, "magic")->role == TIO_ROLE_MAGIC, "aliased packet header");
		CHECK(member(tc->scs[0]->pkt_ctx, "seq")->role == TIO_ROLE_SEQ_NUM, "aliased packet context");
	} else {
		CHECK(0, "pass-dt-aliases shape");
	}
	tio_trace_class_free(tc);

	/* bit order */
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-fl-sint-8-le-rev/metadata");
	pl = payload_of(tc, 0);
	CHECK(pl && !member(pl, "u8le-norm")->i.bit_rev && member(pl, "u8le-rev")->i.bit_rev &&
		      member(pl, "u8le-rev")->i.is_signed,
	      "last-to-first on little-endian reverses");
	tio_trace_class_free(tc);
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-fl-bit-map-rev/metadata");
	pl = payload_of(tc, 0);
	CHECK(pl && member(pl, "bm")->i.bit_rev && member(pl, "bm")->i.byte_order == TIO_BE &&
		      member(pl, "bm")->i.nmappings == 3,
	      "first-to-last on big-endian reverses");
	tio_trace_class_free(tc);

	/* string encodings */
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-nt-str-utf-16be/metadata");
	pl = payload_of(tc, 0);
	const tio_fc *s16 = pl && pl->st.nmembers ? pl->st.members[0].fc : NULL;
	CHECK(s16 && s16->kind == TIO_FC_STRING && s16->s.encoding == TIO_ENC_UTF16 && s16->s.byte_order == TIO_BE,
	      "utf-16be");
	tio_trace_class_free(tc);
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-nt-str-utf-32le/metadata");
	pl = payload_of(tc, 0);
	s16 = pl && pl->st.nmembers ? pl->st.members[0].fc : NULL;
	CHECK(s16 && s16->s.encoding == TIO_ENC_UTF32 && s16->s.byte_order == TIO_LE, "utf-32le");
	tio_trace_class_free(tc);

	/* BLOBs */
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-dl-blob/metadata");
	pl = payload_of(tc, 0);
	bool found_blob = false;
	for (uint32_t i = 0; pl && i < pl->st.nmembers; i++) {
		const tio_fc *b = pl->st.members[i].fc;
		if (b->kind == TIO_FC_DBLOB) {
			found_blob = true;
			bool zero = !strcmp(pl->st.members[i].name, "zero blob");
			CHECK(!strcmp(b->s.media_type, zero ? "application/lol" : "application/octet-stream") &&
				      b->s.len.target && b->s.len.target->kind == TIO_FC_INT && b->align == 8,
			      "dynamic-length BLOB");
			if (zero)
				CHECK(b->s.len.target == member(pl, "len3"), "zero blob length is len3");
		}
	}
	CHECK(found_blob, "pass-dl-blob has a DBLOB");
	tio_trace_class_free(tc);

	/* variable-length integers */
	tc = load("ctf/yactfr-iter-data/ctf-2/pass-vl-ints/metadata");
	pl = payload_of(tc, 0);
	int nu = 0, ns = 0;
	for (uint32_t i = 0; pl && i < pl->st.nmembers; i++) {
		const tio_fc *b = pl->st.members[i].fc;
		if (b->kind == TIO_FC_VARINT)
			*(b->vi.is_signed ? &ns : &nu) += 1;
	}
	CHECK(nu > 0 && ns > 0, "pass-vl-ints: %d unsigned, %d signed", nu, ns);
	tio_trace_class_free(tc);

	/* floats */
	tc = load("ctf/yactfr-iter-data/ctf-2-auto-translated/pass-fl-floats/metadata");
	pl = payload_of(tc, 0);
	int n32 = 0, n64 = 0;
	for (uint32_t i = 0; pl && i < pl->st.nmembers; i++) {
		const tio_fc *b = pl->st.members[i].fc;
		if (b->kind == TIO_FC_FLOAT && b->f.exp_dig == 8 && b->f.mant_dig == 24)
			n32++;
		if (b->kind == TIO_FC_FLOAT && b->f.exp_dig == 11 && b->f.mant_dig == 53)
			n64++;
	}
	CHECK(n32 > 0 && n64 > 0, "floats: %d binary32, %d binary64", n32, n64);
	tio_trace_class_free(tc);
}

/* Hand-written streams: each must fail with these words in the message. */
#define RS "\x1e"
#define PRE RS "{\"type\":\"preamble\",\"version\":2}\n"
#define DSC RS "{\"type\":\"data-stream-class\"}\n"
#define ERC(payload) RS "{\"type\":\"event-record-class\",\"payload-field-class\":" payload "}\n"
#define U8 "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,\"byte-order\":\"little-endian\"}"
#define S8 "{\"type\":\"fixed-length-signed-integer\",\"length\":8,\"byte-order\":\"little-endian\"}"
#define ST1(n, fc) "{\"type\":\"structure\",\"member-classes\":[{\"name\":\"" n "\",\"field-class\":" fc "}]}"
#define ST2(n1, fc1, n2, fc2)                                                                      \
	"{\"type\":\"structure\",\"member-classes\":[{\"name\":\"" n1 "\",\"field-class\":" fc1     \
	"},{\"name\":\"" n2 "\",\"field-class\":" fc2 "}]}"
#define ST3(n1, fc1, n2, fc2, n3, fc3)                                                             \
	"{\"type\":\"structure\",\"member-classes\":[{\"name\":\"" n1 "\",\"field-class\":" fc1     \
	"},{\"name\":\"" n2 "\",\"field-class\":" fc2 "},{\"name\":\"" n3 "\",\"field-class\":" fc3 "}]}"
/* a variant selected by member `s` whose two options each hold a member `n` */
#define VN(fc0, fc1)                                                                               \
	"{\"type\":\"variant\",\"selector-field-location\":{\"path\":[\"s\"]},\"options\":[{\"field-class\":" \
	ST1("n", fc0) ",\"selector-field-ranges\":[[0,0]]},{\"field-class\":" ST1("n", fc1)                 \
	",\"selector-field-ranges\":[[1,1]]}]}"
#define DLA(path) "{\"type\":\"dynamic-length-array\",\"length-field-location\":{\"path\":" path "},\"element-field-class\":" U8 "}"

static const struct bad {
	const char *text;
	int status;
	const char *words[3];
} bads[] = {
	{"", TIO_ERR_FORMAT, {"end of the metadata stream", "no preamble"}},
	{"{\"type\":\"preamble\",\"version\":2}", TIO_ERR_FORMAT, {"before the first record separator"}},
	{RS "{\"type\":\"preamble\",\"version\":2,\"extensions\":{\"my.org\":{\"zip\":{}}}}" DSC, TIO_ERR_UNSUPPORTED,
	 {"fragment 1 (preamble)", "'zip'", "/extensions"}},
	{PRE RS "{\"type\":\"data-stream-class\",\"extensions\":{\"x\":{\"y\":1}}}", TIO_ERR_FORMAT,
	 {"fragment 2 (data-stream-class)", "preamble enables no extension", "/extensions"}},
	{PRE DSC RS "{\"type\":\"event-record-class\",", TIO_ERR_FORMAT, {"fragment 3", "JSON"}},
	{PRE DSC RS "{\"type\":\"event-record-class\"} x", TIO_ERR_FORMAT, {"fragment 3", "JSON"}},
	{PRE DSC RS "{\"type\":\"event-record-class\"}{}", TIO_ERR_FORMAT, {"fragment 3", "JSON"}},
	{PRE DSC ERC(ST1("a", DLA("[\"nope\"]"))), TIO_ERR_FORMAT,
	 {"fragment 3 (event-record-class)", "no field at 'nope'",
	  "/payload-field-class/member-classes/0/field-class/length-field-location"}},
	{PRE DSC ERC(ST2("a", DLA("[\"n\"]"), "n", U8)), TIO_ERR_FORMAT, {"does not come before"}},
	{PRE DSC ERC(ST2("n", S8, "a", DLA("[\"n\"]"))), TIO_ERR_FORMAT, {"must be an unsigned integer"}},
	{PRE DSC ERC(ST2("n", U8, "a", DLA("[null, \"n\"]"))), TIO_ERR_FORMAT, {"goes above the root"}},
	{PRE DSC ERC(ST2("n", U8, "a", "{\"type\":\"dynamic-length-array\",\"length-field-location\":{\"origin\":\"packet-context\",\"path\":[\"n\"]},\"element-field-class\":" U8 "}")),
	 TIO_ERR_FORMAT, {"there is no packet-context"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,\"byte-order\":\"middle\"}")),
	 TIO_ERR_FORMAT, {"byte order", "/payload-field-class/member-classes/0/field-class/byte-order"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":0,\"byte-order\":\"big-endian\"}")),
	 TIO_ERR_FORMAT, {"length 0 out of range", "/length"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,\"byte-order\":\"big-endian\",\"alignment\":3}")),
	 TIO_ERR_FORMAT, {"power of two", "/alignment"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,\"byte-order\":\"big-endian\",\"roles\":[\"packet-magic-number\"]}")),
	 TIO_ERR_FORMAT, {"not allowed in the event-record-payload scope"}},
	{PRE RS "{\"type\":\"data-stream-class\",\"packet-context-field-class\":" ST1("t", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":64,\"byte-order\":\"big-endian\",\"roles\":[\"default-clock-timestamp\"]}") "}",
	 TIO_ERR_FORMAT, {"fragment 2 (data-stream-class)", "default clock class", "/packet-context-field-class"}},
	{PRE RS "{\"type\":\"data-stream-class\",\"default-clock-class-id\":\"c\"}", TIO_ERR_FORMAT,
	 {"no clock class with id 'c'", "/default-clock-class-id"}},
	{PRE DSC ERC(ST1("a", "\"u8\"")), TIO_ERR_FORMAT, {"no field-class alias named 'u8'"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"blob\"}")), TIO_ERR_FORMAT, {"unknown field class type \"blob\"", "/type"}},
	{PRE DSC ERC(ST1("a", U8) ) RS "{\"type\":\"event-record-class\"}", TIO_ERR_FORMAT,
	 {"fragment 4 (event-record-class)", "id 0 is already used"}},
	{PRE DSC ERC(ST2("a", U8, "a", U8)), TIO_ERR_FORMAT, {"duplicate member name 'a'"}},
	{PRE DSC ERC(ST2("s", U8, "v", "{\"type\":\"variant\",\"selector-field-location\":{\"path\":[\"s\"]},\"options\":[{\"field-class\":" U8 ",\"selector-field-ranges\":[[-1,2]]}]}")),
	 TIO_ERR_FORMAT, {"negative bound with an unsigned selector"}},
	{PRE DSC ERC(ST2("s", U8, "v", "{\"type\":\"variant\",\"selector-field-location\":{\"path\":[\"s\"]},\"options\":[{\"field-class\":" U8 ",\"selector-field-ranges\":[[0,2]]},{\"field-class\":" U8 ",\"selector-field-ranges\":[[2,3]]}]}")),
	 TIO_ERR_FORMAT, {"overlapping"}},
	/* a location that designates a field in each variant option: each must fit */
	{PRE DSC ERC(ST3("s", U8, "v", VN(U8, S8), "a", DLA("[\"v\", \"n\"]"))), TIO_ERR_FORMAT,
	 {"must be an unsigned integer"}},
	{PRE DSC ERC(ST3("s", U8, "v", VN(U8, S8), "w",
			 "{\"type\":\"variant\",\"selector-field-location\":{\"path\":[\"v\", \"n\"]},\"options\":[{\"field-class\":" U8
			 ",\"selector-field-ranges\":[[0,0]]}]}")),
	 TIO_ERR_UNSUPPORTED, {"selectors of different types or signedness", "/member-classes/2/field-class/selector-field-location"}},
	{PRE DSC ERC(ST2("s", U8, "o", "{\"type\":\"optional\",\"selector-field-location\":{\"path\":[\"s\"]},\"field-class\":" U8 "}")),
	 TIO_ERR_FORMAT, {"needs 'selector-field-ranges'"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"fixed-length-floating-point-number\",\"length\":24,\"byte-order\":\"big-endian\"}")),
	 TIO_ERR_FORMAT, {"floating point"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"fixed-length-bit-map\",\"length\":4,\"byte-order\":\"big-endian\",\"flags\":{\"x\":[[3,4]]}}")),
	 TIO_ERR_FORMAT, {"outside the 4-bit map"}},
	{PRE DSC ERC(ST1("a", "{\"type\":\"fixed-length-signed-integer\",\"length\":8,\"byte-order\":\"big-endian\",\"mappings\":{\"x\":[[3,1]]}}")),
	 TIO_ERR_FORMAT, {"lower bound is greater", "/mappings/x/0"}},
	{RS "{\"type\":\"preamble\",\"version\":3}" DSC, TIO_ERR_UNSUPPORTED, {"CTF version 3"}},
	{PRE PRE DSC, TIO_ERR_FORMAT, {"fragment 2 (preamble)", "second preamble"}},
	{PRE DSC RS "{\"type\":\"trace-class\"}", TIO_ERR_FORMAT, {"must come before any data stream class"}},
	{PRE RS "{\"type\":\"trace-class\",\"environment\":{\"a\":[1]}}" DSC, TIO_ERR_FORMAT, {"environment entry", "/environment/a"}},
	{PRE RS "{\"type\":\"trace-class\",\"packet-header-field-class\":" ST1("u", "{\"type\":\"static-length-blob\",\"length\":16,\"roles\":[\"metadata-stream-uuid\"]}") "}" DSC,
	 TIO_ERR_FORMAT, {"the preamble has no 'uuid'"}},
	{PRE RS "{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":0}" DSC, TIO_ERR_FORMAT, {"frequency must be greater than 0"}},
	{PRE RS "[1,2]" DSC, TIO_ERR_FORMAT, {"fragment 2 (?)", "must be a JSON object"}},
	{PRE RS "{\"type\":\"stream\"}" DSC, TIO_ERR_FORMAT, {"unknown fragment type"}},
	{RS "{\"type\":\"trace-class\"}" PRE, TIO_ERR_FORMAT, {"first fragment must be the preamble"}},
};

static void check_bad(void)
{
	for (size_t i = 0; i < TIO_ARRAY_LEN(bads); i++) {
		tio_trace_class *tc = NULL;
		int r = tio_ctf2_parse(bads[i].text, strlen(bads[i].text), "meta", &tc);
		const char *m = tio_error_message();
		if (verbose)
			printf("bad %zu: %d %s\n", i, r, m);
		CHECK(r == bads[i].status, "bad %zu: status %d, expected %d (%s)", i, r, bads[i].status, m);
		CHECK(!tc, "bad %zu: no trace class on error", i);
		CHECK(!strncmp(m, "meta: ", 6), "bad %zu: message starts with the name: %s", i, m);
		for (int k = 0; k < 3 && bads[i].words[k]; k++)
			CHECK(strstr(m, bads[i].words[k]), "bad %zu: '%s' not in '%s'", i, bads[i].words[k], m);
		tio_trace_class_free(tc);
	}

	/* deep nesting stops at the limit, no crash */
	tio_buf b = {0};
	tio_buf_adds(&b, PRE DSC RS "{\"type\":\"event-record-class\",\"payload-field-class\":");
	for (int i = 0; i < 150; i++)
		tio_buf_adds(&b, "{\"type\":\"static-length-array\",\"length\":1,\"element-field-class\":");
	tio_buf_adds(&b, U8);
	for (int i = 0; i < 150; i++)
		tio_buf_adds(&b, "}");
	tio_buf_adds(&b, "}");
	tio_trace_class *tc = NULL;
	int r = tio_ctf2_parse(b.p, b.len, "meta", &tc);
	CHECK(r == TIO_ERR_LIMIT && strstr(tio_error_message(), "deeper"), "nesting limit: %s", tio_error_message());
	tio_buf_free(&b);
	tio_trace_class_free(tc);
}

/* A few hand-written streams that must parse. */
static void check_good(void)
{
	static const char *const good =
		PRE RS "{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":1000,\"offset-from-origin\":{\"seconds\":-5,\"cycles\":7},"
		"\"origin\":{\"name\":\"boot\",\"uid\":\"x\"},\"precision\":3}"
		RS "{\"type\":\"field-class-alias\",\"name\":\"ts\",\"field-class\":{\"type\":\"fixed-length-unsigned-integer\",\"length\":64,\"byte-order\":\"big-endian\",\"roles\":[\"default-clock-timestamp\"]}}"
		RS "{\"type\":\"data-stream-class\",\"id\":3,\"name\":\"s\",\"default-clock-class-id\":\"c\","
		"\"packet-context-field-class\":" ST2("b", "\"ts\"", "e", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":64,\"byte-order\":\"big-endian\",\"roles\":[\"packet-end-default-clock-timestamp\"]}") ","
		"\"event-record-header-field-class\":" ST2("id", "{\"type\":\"variable-length-unsigned-integer\",\"roles\":[\"event-record-class-id\"]}", "t", "\"ts\"") "}"
		RS "{\"type\":\"event-record-class\",\"id\":9,\"data-stream-class-id\":3,\"name\":\"ev\","
		"\"attributes\":{\"lttng.org,2009\":{\"log-level\":\"warning\",\"emf-uri\":\"http://x\"}},"
		"\"payload-field-class\":{\"type\":\"structure\",\"minimum-alignment\":64,\"member-classes\":["
		"{\"name\":\"v\",\"field-class\":{\"type\":\"variant\",\"selector-field-location\":{\"origin\":\"event-record-header\",\"path\":[\"id\"]},"
		"\"options\":[{\"name\":\"x\",\"field-class\":" ST1("len", U8) ",\"selector-field-ranges\":[[0,4]]},"
		"{\"field-class\":" ST1("len", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":16,\"byte-order\":\"big-endian\"}") ",\"selector-field-ranges\":[[5,5],[7,8]]}]}},"
		"{\"name\":\"s\",\"field-class\":{\"type\":\"dynamic-length-string\",\"encoding\":\"utf-16le\",\"length-field-location\":{\"origin\":\"event-record-payload\",\"path\":[\"v\",\"len\"]}}},"
		"{\"name\":\"f\",\"field-class\":{\"type\":\"fixed-length-floating-point-number\",\"length\":256,\"byte-order\":\"little-endian\",\"alignment\":32}},"
		"{\"name\":\"ba\",\"field-class\":{\"type\":\"fixed-length-bit-array\",\"length\":3,\"byte-order\":\"little-endian\",\"attributes\":{\"k\":[1]}}}"
		"]}}\n";
	tio_trace_class *tc = NULL;
	int r = tio_ctf2_parse(good, strlen(good), "good", &tc);
	CHECK(r == 0, "good stream: %s", tio_error_message());
	if (r)
		return;
	const tio_clock *ck = tc->clocks[0];
	CHECK(ck->freq == 1000 && ck->offset_s == -5 && ck->offset == 7 && !ck->origin_unix && ck->precision == 3 &&
		      !strcmp(ck->name, "c"),
	      "clock with a custom origin");
	const tio_stream_class *sc = tc->scs[0];
	CHECK(sc->id == 3 && !strcmp(sc->name, "s") && sc->clock == 0, "stream class");
	CHECK(member(sc->pkt_ctx, "b")->role == TIO_ROLE_BEGIN_TS && member(sc->pkt_ctx, "b")->i.clock == 0 &&
		      member(sc->pkt_ctx, "e")->role == TIO_ROLE_END_TS,
	      "aliased packet begin timestamp");
	CHECK(member(sc->ev_header, "t")->role == TIO_ROLE_EVENT_TS && member(sc->ev_header, "t")->i.clock == 0,
	      "same alias as the event timestamp");
	CHECK(member(sc->ev_header, "id")->kind == TIO_FC_VARINT &&
		      member(sc->ev_header, "id")->role == TIO_ROLE_EVENT_CLASS_ID && member(sc->ev_header, "id")->align == 8,
	      "varint event class id");
	const tio_event_class *ec = tio_stream_class_find_ec(sc, 9);
	CHECK(ec && ec->loglevel == 4 && ec->emf_uri && !strcmp(ec->emf_uri, "http://x"), "LTTng log level and EMF URI");
	if (ec) {
		const tio_fc *pl = ec->payload, *v = member(pl, "v"), *s = member(pl, "s");
		CHECK(pl->align == 64, "minimum alignment");
		CHECK(v->v.options[1].name == NULL && v->v.ranges[1].nranges == 2, "unnamed option, two ranges");
		/* through a variant: each option's field, the first one as the target */
		CHECK(s->s.len.target == member(v->v.options[0].fc, "len") && s->s.len.nalts == 1 &&
			      s->s.len.alts[0] == member(v->v.options[1].fc, "len") &&
			      !strcmp(s->s.len.path, "event-record-payload/v/len") && s->s.encoding == TIO_ENC_UTF16 &&
			      s->s.byte_order == TIO_LE,
		      "location through a variant: %s", s->s.len.path);
		const tio_fc *f = member(pl, "f");
		CHECK(f->kind == TIO_FC_FLOAT && f->f.exp_dig == 19 && f->f.mant_dig == 237 && f->align == 32, "binary256");
		const tio_fc *ba = member(pl, "ba");
		CHECK(ba->kind == TIO_FC_INT && ba->i.size == 3 && ba->i.base == 16 && !ba->i.is_signed && ba->attrs &&
			      !strcmp(ba->attrs, "{\"k\":[1]}"),
		      "bit array, attributes kept");
	}
	tio_trace_class_free(tc);
}

int main(void)
{
	const char *sh = getenv("TIO_SHARED");
	const char *top = getenv("TIO_TOP");
	verbose = getenv("TIO_VERBOSE") != NULL;
	if (sh)
		snprintf(shared, sizeof(shared), "%s", sh);
	else
		snprintf(shared, sizeof(shared), "%s/../shared", top ? top : ".");
	char *probe = tio_asprintf("%s/peer-data/ctf", shared);
	if (!tio_is_dir(probe)) {
		printf("SKIP: no %s\n", probe);
		free(probe);
		return 0;
	}
	free(probe);
	snprintf(shared + strlen(shared), sizeof(shared) - strlen(shared), "/peer-data");

	size_t n_bt_ok, n_bt_fail, n_y2, n_y2a;
	parse_all("ctf/babeltrace-2.1/ctf-traces/2/succeed", true, &n_bt_ok);
	/* 2/fail: the metadata of empty-event-record is valid (its data is not) */
	parse_all("ctf/babeltrace-2.1/ctf-traces/2/fail/meta-no-stream-cls", false, &n_bt_fail);
	size_t n2;
	parse_all("ctf/babeltrace-2.1/ctf-traces/2/fail/meta-no-trace-cls-no-stream-cls", false, &n2);
	n_bt_fail += n2;
	parse_all("ctf/babeltrace-2.1/ctf-traces/2/fail/empty-event-record", true, &n2);
	parse_all("ctf/babeltrace-2.1/ctf-traces/2/intersection", true, &n2);
	/* yactfr: every fail-* case there is a data error, so all metadata parses */
	parse_all("ctf/yactfr-iter-data/ctf-2", true, &n_y2);
	parse_all("ctf/yactfr-iter-data/ctf-2-auto-translated", true, &n_y2a);
	free(found);
	CHECK(n_bt_ok >= 30 && n_bt_fail == 2 && n_y2 == 25 && n_y2a == 68, "found %zu + %zu + %zu + %zu metadata files",
	      n_bt_ok, n_bt_fail, n_y2, n_y2a);

	check_wk_heartbeat();
	check_small();
	check_bad();
	check_good();
	printf("%d metadata streams parsed, %d failed as expected, %zu broken streams checked; %d failures\n", npass,
	       nfail_ok, TIO_ARRAY_LEN(bads) + 1, failures);
	return failures ? 1 : 0;
}

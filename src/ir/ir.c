/* The common model: constructors, destructors, look-ups.  See ir.h. */
#include "ir/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

tio_fc *tio_fc_new(tio_fc_kind kind)
{
	tio_fc *fc = tio_calloc(1, sizeof(*fc));
	if (!fc)
		return NULL;
	fc->kind = kind;
	fc->align = 1;
	fc->save_slot = -1;
	if (kind == TIO_FC_INT || kind == TIO_FC_ENUM || kind == TIO_FC_BOOL ||
	    kind == TIO_FC_BITMAP) {
		fc->i.base = 10;
		fc->i.clock = -1;
	}
	if (kind == TIO_FC_VARINT)
		fc->vi.base = 10;
	return fc;
}

static void mappings_free(tio_mapping *m, uint32_t n)
{
	for (uint32_t i = 0; m && i < n; i++) {
		free(m[i].label);
		free(m[i].ranges);
	}
	free(m);
}

static tio_mapping *mappings_copy(const tio_mapping *m, uint32_t n)
{
	if (!m)
		return NULL;
	tio_mapping *c = tio_calloc(n, sizeof(*c));
	if (!c)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		c[i].label = m[i].label ? tio_strdup(m[i].label) : NULL;
		c[i].nranges = m[i].nranges;
		c[i].ranges = tio_calloc(m[i].nranges, sizeof(tio_range));
		if ((m[i].label && !c[i].label) || !c[i].ranges) {
			mappings_free(c, n);
			return NULL;
		}
		memcpy(c[i].ranges, m[i].ranges, m[i].nranges * sizeof(tio_range));
	}
	return c;
}

void tio_fc_free(tio_fc *fc)
{
	if (!fc)
		return;
	free(fc->attrs);
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		mappings_free(fc->i.mappings, fc->i.nmappings);
		break;
	case TIO_FC_VARINT:
		mappings_free(fc->vi.mappings, fc->vi.nmappings);
		break;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		free(fc->s.len.path);
		free((void *)fc->s.len.alts);
		free(fc->s.media_type);
		break;
	case TIO_FC_STRUCT:
		for (uint32_t i = 0; i < fc->st.nmembers; i++) {
			free(fc->st.members[i].name);
			tio_fc_free(fc->st.members[i].fc);
		}
		free(fc->st.members);
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		tio_fc_free(fc->a.elem);
		free(fc->a.len.path);
		free((void *)fc->a.len.alts);
		break;
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		for (uint32_t i = 0; i < fc->v.noptions; i++) {
			free(fc->v.options[i].name);
			tio_fc_free(fc->v.options[i].fc);
		}
		free(fc->v.options);
		mappings_free(fc->v.ranges, fc->v.noptions);
		free(fc->v.sel.path);
		free((void *)fc->v.sel.alts);
		break;
	case TIO_FC_FLOAT:
		break;
	}
	free(fc);
}

static char *dup_or_null(const char *s, bool *bad)
{
	if (!s)
		return NULL;
	char *d = tio_strdup(s);
	if (!d)
		*bad = true;
	return d;
}

/* A copy of `src`'s alternative targets array into `dst` (true when out of memory). */
static bool ref_alts_copy(tio_ref *dst, const tio_ref *src)
{
	dst->alts = NULL;
	if (!src->nalts)
		return false;
	dst->alts = tio_calloc(src->nalts, sizeof(*dst->alts));
	if (!dst->alts) {
		dst->nalts = 0;
		return true;
	}
	memcpy((void *)dst->alts, src->alts, src->nalts * sizeof(*dst->alts));
	return false;
}

/*
 * Deep copy.  References (tio_ref.target, .alts) are copied as they are: the
 * caller re-resolves them when the copy lands somewhere else (CTF 1
 * typealiases are copied before their paths are resolved).
 */
tio_fc *tio_fc_copy(const tio_fc *fc)
{
	if (!fc)
		return NULL;
	tio_fc *c = tio_malloc(sizeof(*c));
	if (!c)
		return NULL;
	*c = *fc;
	bool bad = false;
	c->attrs = dup_or_null(fc->attrs, &bad);
	switch (fc->kind) {
	case TIO_FC_INT:
	case TIO_FC_ENUM:
	case TIO_FC_BOOL:
	case TIO_FC_BITMAP:
		c->i.mappings = mappings_copy(fc->i.mappings, fc->i.nmappings);
		bad |= fc->i.mappings && !c->i.mappings;
		break;
	case TIO_FC_VARINT:
		c->vi.mappings = mappings_copy(fc->vi.mappings, fc->vi.nmappings);
		bad |= fc->vi.mappings && !c->vi.mappings;
		break;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		c->s.len.path = dup_or_null(fc->s.len.path, &bad);
		bad |= ref_alts_copy(&c->s.len, &fc->s.len);
		c->s.media_type = dup_or_null(fc->s.media_type, &bad);
		break;
	case TIO_FC_STRUCT:
		c->st.members = tio_calloc(fc->st.nmembers, sizeof(tio_member));
		if (!c->st.members) {
			c->st.nmembers = 0;
			bad = true;
			break;
		}
		for (uint32_t i = 0; i < fc->st.nmembers; i++) {
			c->st.members[i].name = dup_or_null(fc->st.members[i].name, &bad);
			c->st.members[i].fc = tio_fc_copy(fc->st.members[i].fc);
			bad |= !c->st.members[i].fc;
		}
		break;
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE:
		c->a.elem = tio_fc_copy(fc->a.elem);
		bad |= !c->a.elem;
		c->a.len.path = dup_or_null(fc->a.len.path, &bad);
		bad |= ref_alts_copy(&c->a.len, &fc->a.len);
		break;
	case TIO_FC_VARIANT:
	case TIO_FC_OPTIONAL:
		c->v.sel.path = dup_or_null(fc->v.sel.path, &bad);
		bad |= ref_alts_copy(&c->v.sel, &fc->v.sel);
		c->v.ranges = mappings_copy(fc->v.ranges, fc->v.noptions);
		bad |= fc->v.ranges && !c->v.ranges;
		c->v.options = tio_calloc(fc->v.noptions, sizeof(tio_member));
		if (!c->v.options) {
			c->v.noptions = 0;
			bad = true;
			break;
		}
		for (uint32_t i = 0; i < fc->v.noptions; i++) {
			c->v.options[i].name = dup_or_null(fc->v.options[i].name, &bad);
			c->v.options[i].fc = tio_fc_copy(fc->v.options[i].fc);
			bad |= !c->v.options[i].fc;
		}
		break;
	case TIO_FC_FLOAT:
		break;
	}
	if (bad) {
		tio_fc_free(c);
		return NULL;
	}
	return c;
}

int tio_fc_member_index(const tio_fc *st, const char *name)
{
	if (!st || st->kind != TIO_FC_STRUCT)
		return -1;
	for (uint32_t i = 0; i < st->st.nmembers; i++)
		if (st->st.members[i].name && !strcmp(st->st.members[i].name, name))
			return (int)i;
	return -1;
}

static void kvs_free(tio_kv *kv, uint32_t n)
{
	for (uint32_t i = 0; kv && i < n; i++) {
		free(kv[i].key);
		free(kv[i].sval);
	}
	free(kv);
}

void tio_event_class_free(tio_event_class *ec)
{
	if (!ec)
		return;
	free(ec->name);
	free(ec->emf_uri);
	tio_fc_free(ec->spec_ctx);
	tio_fc_free(ec->payload);
	kvs_free(ec->attrs, ec->nattrs);
	free(ec);
}

void tio_stream_class_free(tio_stream_class *sc)
{
	if (!sc)
		return;
	free(sc->name);
	tio_fc_free(sc->pkt_ctx);
	tio_fc_free(sc->ev_header);
	tio_fc_free(sc->ev_common_ctx);
	for (uint32_t i = 0; i < sc->necs; i++)
		tio_event_class_free(sc->ecs[i]);
	free(sc->ecs);
	kvs_free(sc->env, sc->nenv);
	free(sc);
}

void tio_trace_class_free(tio_trace_class *tc)
{
	if (!tc)
		return;
	tio_fc_free(tc->pkt_header);
	for (uint32_t i = 0; i < tc->nclocks; i++) {
		free(tc->clocks[i]->name);
		free(tc->clocks[i]->description);
		free(tc->clocks[i]);
	}
	free(tc->clocks);
	for (uint32_t i = 0; i < tc->nscs; i++)
		tio_stream_class_free(tc->scs[i]);
	free(tc->scs);
	kvs_free(tc->env, tc->nenv);
	kvs_free(tc->tables, tc->ntables);
	for (uint32_t i = 0; i < tc->nannotations; i++) {
		free(tc->annotations[i].name);
		free(tc->annotations[i].text);
	}
	free(tc->annotations);
	for (uint32_t i = 0; i < tc->nwarnings; i++)
		free(tc->warnings[i]);
	free(tc->warnings);
	free(tc);
}

int tio_trace_class_warn(tio_trace_class *tc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *w = n >= 0 ? malloc((size_t)n + 1) : NULL;
	char **v = w ? realloc(tc->warnings, (tc->nwarnings + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(w);
		return TIO_ERR_NOMEM;
	}
	tc->warnings = v;
	va_start(ap, fmt);
	vsnprintf(w, (size_t)n + 1, fmt, ap);
	va_end(ap);
	tc->warnings[tc->nwarnings++] = w;
	return 0;
}

const tio_kv *tio_trace_class_env(const tio_trace_class *tc, const char *key)
{
	for (uint32_t i = 0; i < tc->nenv; i++)
		if (!strcmp(tc->env[i].key, key))
			return &tc->env[i];
	return NULL;
}

void tio_trace_bt2_name(tio_buf *b, const tio_trace *t)
{
	const tio_kv *h = t->tc ? tio_trace_class_env(t->tc, "hostname") : NULL;
	const char *rel = t->name ? t->name : "";
	if (h && !h->is_int && h->sval)
		tio_buf_adds(b, h->sval);
	if (h && !h->is_int && h->sval && *rel)
		tio_buf_addc(b, '/');
	tio_buf_adds(b, rel);
}

static int ec_cmp(const void *a, const void *b)
{
	const tio_event_class *x = *(tio_event_class *const *)a;
	const tio_event_class *y = *(tio_event_class *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

void tio_stream_class_sort(tio_stream_class *sc)
{
	if (sc->necs > 1)
		qsort(sc->ecs, sc->necs, sizeof(*sc->ecs), ec_cmp);
}

/*
 * Not for two threads at once on one trace class: a table not read yet is
 * read here (tio_trace_class.load_table).  NULL when it cannot be.
 */
const tio_kv *tio_trace_class_table(const tio_trace_class *tc, const char *key)
{
	for (uint32_t i = 0; i < tc->ntables; i++) {
		tio_kv *kv = &tc->tables[i];
		if (strcmp(kv->key, key))
			continue;
		if (!kv->is_int && !kv->sval &&
		    (!tc->load_table || tc->load_table((tio_trace_class *)tc, kv) || !kv->sval))
			return NULL;
		return kv;
	}
	return NULL;
}

tio_event_class *tio_stream_class_find_ec(const tio_stream_class *sc, uint64_t id)
{
	uint32_t lo = 0, hi = sc->necs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t m = sc->ecs[mid]->id;
		if (m == id)
			return sc->ecs[mid];
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

tio_stream_class *tio_trace_class_find_sc(const tio_trace_class *tc, uint64_t id)
{
	for (uint32_t i = 0; i < tc->nscs; i++)
		if (tc->scs[i]->id == id)
			return tc->scs[i];
	return NULL;
}

/*
 * Clock values to ns from origin.  Three rules (docs/formats/ctf.md, "Clock
 * values to nanoseconds"):
 * - babeltrace2's (default; bt_util_ns_from_origin_clock_class): the offset
 *   normalized to whole seconds plus cycles below one second; the offset's
 *   cycles and the value each converted through a double,
 *   (uint64_t)(1e9 * cycles / freq), truncated, then added; a value whose
 *   ns reach INT64_MAX, or a sum above it, is an error as in babeltrace2;
 * - exact (c->exact, `--clock-exact`): integer floors of the offset's cycles
 *   and of the value, no double;
 * - an offset whose seconds do not fit in 64-bit ns (babeltrace2 refuses the
 *   trace): babeltrace 1's arithmetic, modulo 2^64 (offset_s * 1e9 + the
 *   offset's cycles in ns + the value in ns, cycles converted through a
 *   double, offset cycles not normalized), the result taken as signed.
 */
static uint64_t ns_from_cycles(uint64_t freq, uint64_t cycles)
{
	if (freq == 1000000000ULL)
		return cycles;
	double d = 1e9 * (double)cycles / (double)freq;
	return d >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)d;
}

/* The offset as whole seconds (any) plus cycles in [0, freq). */
static void clock_offset_norm(const tio_clock *c, uint64_t freq, __int128 *off_s, __int128 *off_c)
{
	*off_s = c->offset_s;
	*off_c = c->offset;
	if (*off_c < 0) {
		__int128 q = (-*off_c + freq - 1) / freq;
		*off_s -= q;
		*off_c += q * freq;
	}
	*off_s += *off_c / freq;
	*off_c %= freq;
}

/* babeltrace2's bound on the normalized seconds: one second kept free for the offset's cycles */
static bool offset_s_wraps(__int128 off_s)
{
	return off_s <= INT64_MIN / 1000000000 - 1 || off_s >= INT64_MAX / 1000000000 - 1;
}

bool tio_clock_offset_wraps(const tio_clock *c)
{
	uint64_t freq = c->freq ? c->freq : 1000000000ULL;
	__int128 off_s, off_c;
	clock_offset_norm(c, freq, &off_s, &off_c);
	return offset_s_wraps(off_s);
}

int tio_clock_ns(const tio_clock *c, uint64_t value, int64_t *ns)
{
	uint64_t freq = c->freq ? c->freq : 1000000000ULL;
	__int128 off_s, off_c;
	clock_offset_norm(c, freq, &off_s, &off_c);
	if (TIO_UNLIKELY(offset_s_wraps(off_s))) {
		uint64_t t = (uint64_t)c->offset_s * 1000000000ULL;
		t += c->offset >= 0 ? ns_from_cycles(freq, (uint64_t)c->offset) : -ns_from_cycles(freq, -(uint64_t)c->offset);
		t += ns_from_cycles(freq, value);
		*ns = (int64_t)t;
		return 0;
	}
	__int128 total;
	if (c->exact) {
		total = off_s * 1000000000 + (__int128)(((__uint128_t)off_c * 1000000000ULL) / freq);
		total += (__int128)(value / freq) * 1000000000;
		total += (__int128)(((__uint128_t)(value % freq) * 1000000000ULL) / freq);
	} else {
		total = off_s * 1000000000 + ns_from_cycles(freq, (uint64_t)off_c);
		uint64_t v = ns_from_cycles(freq, value);
		if (v >= (uint64_t)INT64_MAX)
			total = (__int128)INT64_MAX + 1;
		else
			total += v;
	}
	if (total > INT64_MAX || total < INT64_MIN)
		return tio_err_set(TIO_ERR_FORMAT, "clock %s: value %llu does not fit in ns from origin",
				   c->name ? c->name : "?", (unsigned long long)value);
	*ns = (int64_t)total;
	return 0;
}

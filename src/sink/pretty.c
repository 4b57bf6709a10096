/*
 * The "babeltrace" text sink: prints events as babeltrace2's
 * sink.text.pretty does, byte for byte (timestamps, deltas, trace fields,
 * scopes, escaping, enum labels, discarded-record warnings on stderr).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "sink/sink.h"

enum { F_TRACE, F_HOSTNAME, F_DOMAIN, F_PROCNAME, F_VPID, F_LOGLEVEL, F_EMF, F_CALLSITE, F_N };
enum { N_PAYLOAD, N_CONTEXT, N_SCOPE, N_HEADER, N_N };

static const char *const field_names[F_N] = {"trace",	      "trace:hostname", "trace:domain",
					     "trace:procname", "trace:vpid",	 "loglevel",
					     "emf",	      "callsite"};
static const bool field_defaults[F_N] = {false, true, false, true, true, false, false, false};
static const char *const name_names[N_N] = {"payload", "context", "scope", "header"};
static const bool name_defaults[N_N] = {true, true, false, false};

typedef struct pretty {
	tio_sink base;
	bool field[F_N], name[N_N];
	bool no_delta, clock_cycles, clock_seconds, clock_date, clock_gmt, verbose, color;
	int64_t clock_offset_ns;
	bool has_last;
	int64_t last_ns;
	uint64_t last_cycles;
	tio_buf b;
	bool start_line;
	bool neg_warned;
	struct tmpl_cache *tc; /* compiled scope templates (see "Templates" below) */
	const tio_trace *hdr_trace; /* hdr caches the trace fields part of the header of this trace */
	tio_buf hdr;
	bool hdr_dom;
	bool tcache_ok;	  /* tcache holds the date/time text of second tcache_sec */
	uint64_t tcache_sec;
	char tcache[64];
} pretty;

/* babeltrace2's colors (--color=always) */
static const char *COLOR_RST = "\033[0m";
static const char *COLOR_BOLD = "\033[1m";	    /* numbers, strings, enum labels, "x = " names */
static const char *COLOR_NAME = "\033[1m\033[1m\033[35m"; /* event name */
static const char *COLOR_FIELD = "\033[36m";	    /* field names */
static const char *COLOR_TS = "\033[1m\033[1m\033[33m";   /* timestamp */

static void plain_init(void);

static int pretty_init(tio_sink *s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT; /* sinks may be made on several threads */
	pthread_once(&once, plain_init);
	pretty *p = (pretty *)s;
	memcpy(p->field, field_defaults, sizeof(p->field));
	memcpy(p->name, name_defaults, sizeof(p->name));
	return 0;
}

/* --fields/--names: explicit items on, the rest off ("all"/"none" set every one). */
static int set_list(const char *key, const char *value, const char *const *names, bool *flags, int n)
{
	bool seen_item = false, all = false, none = false;
	bool tmp[F_N] = {0};
	char *copy = tio_strdup(value);
	if (!copy)
		return TIO_ERR_NOMEM;
	for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			all = true;
			continue;
		}
		if (!strcmp(tok, "none")) {
			none = true;
			continue;
		}
		int k;
		for (k = 0; k < n; k++)
			if (!strcmp(tok, names[k]))
				break;
		if (k == n) {
			free(copy);
			return tio_err_set(TIO_ERR_USAGE, "--%s: unknown item '%s'", key, tok);
		}
		tmp[k] = true;
		seen_item = true;
	}
	free(copy);
	if (all && none)
		return tio_err_set(TIO_ERR_USAGE, "--%s: both 'all' and 'none'", key);
	for (int k = 0; k < n; k++) {
		if (all)
			flags[k] = true;
		else if (none || seen_item)
			flags[k] = tmp[k];
	}
	return 0;
}

static int pretty_set(tio_sink *s, const char *key, const char *value)
{
	pretty *p = (pretty *)s;
	/* NULL is a flag: the booleans take it as on, the others need a value */
	if (!value && (!strcmp(key, "fields") || !strcmp(key, "names") || !strcmp(key, "clock-offset") ||
		       !strcmp(key, "clock-offset-ns") || !strcmp(key, "color")))
		return tio_err_set(TIO_ERR_USAGE, "option %s: needs a value", key);
	if (!strcmp(key, "fields"))
		return set_list(key, value, field_names, p->field, F_N);
	if (!strcmp(key, "names"))
		return set_list(key, value, name_names, p->name, N_N);
	if (!strcmp(key, "no-delta"))
		return tio_sink_bool(key, value, &p->no_delta);
	if (!strcmp(key, "clock-cycles"))
		return tio_sink_bool(key, value, &p->clock_cycles);
	if (!strcmp(key, "clock-seconds"))
		return tio_sink_bool(key, value, &p->clock_seconds);
	if (!strcmp(key, "clock-date"))
		return tio_sink_bool(key, value, &p->clock_date);
	if (!strcmp(key, "clock-gmt"))
		return tio_sink_bool(key, value, &p->clock_gmt);
	if (!strcmp(key, "verbose"))
		return tio_sink_bool(key, value, &p->verbose);
	if (!strcmp(key, "clock-offset") || !strcmp(key, "clock-offset-ns")) {
		char *end;
		long long v = strtoll(value, &end, 10);
		if (*end || !*value)
			return tio_err_set(TIO_ERR_USAGE, "--%s: '%s' is not an integer", key, value);
		p->clock_offset_ns += !strcmp(key, "clock-offset") ? v * 1000000000LL : v;
		return 0;
	}
	if (!strcmp(key, "color")) {
		if (!strcmp(value, "always"))
			p->color = true;
		else if (!strcmp(value, "never"))
			p->color = false;
		else if (!strcmp(value, "auto")) {
			const char *term = getenv("TERM");
			p->color = isatty(fileno(s->out)) && term && strcmp(term, "dumb");
		} else
			return tio_err_set(TIO_ERR_USAGE, "--color: '%s' is not never, auto or always", value);
		return 0;
	}
	return tio_err_set(TIO_ERR_USAGE, "option '%s' does not apply to the babeltrace style", key);
}

static void color(pretty *p, const char *c)
{
	if (p->color)
		tio_buf_adds(&p->b, c);
}

/* "name = " for header items and scopes: the name in bold */
static void name_eq(pretty *p, const char *name)
{
	color(p, COLOR_BOLD);
	tio_buf_adds(&p->b, name);
	color(p, COLOR_RST);
	tio_buf_adds(&p->b, " = ");
}

/* ---------------------------------------------------------------- timestamps */

static void fmt_time(pretty *p, tio_buf *b, int64_t ns)
{
	int64_t sec = ns / 1000000000, nsec = ns % 1000000000;
	bool neg;
	uint64_t sabs, nabs;
	if (sec >= 0 && nsec >= 0) {
		neg = false;
		sabs = (uint64_t)sec;
		nabs = (uint64_t)nsec;
	} else {
		/* C division truncates toward zero: both parts are <= 0 here */
		neg = true;
		sabs = (uint64_t)0 - (uint64_t)sec;
		nabs = (uint64_t)0 - (uint64_t)nsec;
	}
	if (neg && !p->clock_seconds && !p->neg_warned) {
		/* babeltrace2 does the same, once */
		fflush(p->base.out);
		fputs("[warning] Fallback to [sec.ns] to print negative time value. Use --clock-seconds.\n",
		      p->base.err);
		p->neg_warned = true;
	}
	if (p->clock_seconds || neg) {
		if (neg)
			tio_buf_addc(b, '-');
		tio_buf_addu(b, sabs);
		tio_buf_addc(b, '.');
		tio_buf_addu_pad(b, nabs, 9);
		return;
	}
	/* the broken-down time changes once a second: format it once per second */
	if (!p->tcache_ok || p->tcache_sec != sabs) {
		time_t t = (time_t)sabs;
		struct tm tm;
		if (p->clock_gmt ? !gmtime_r(&t, &tm) : !localtime_r(&t, &tm)) {
			tio_buf_addu(b, sabs);
			tio_buf_addc(b, '.');
			tio_buf_addu_pad(b, nabs, 9);
			return;
		}
		size_t n = 0;
		if (p->clock_date)
			n = strftime(p->tcache, sizeof(p->tcache), "%Y-%m-%d ", &tm);
		strftime(p->tcache + n, sizeof(p->tcache) - n, "%H:%M:%S", &tm);
		p->tcache_sec = sabs;
		p->tcache_ok = true;
	}
	tio_buf_adds(b, p->tcache);
	tio_buf_addc(b, '.');
	tio_buf_addu_pad(b, nabs, 9);
}

static void print_timestamp(pretty *p, const tio_msg *m)
{
	tio_buf *b = &p->b;
	bool names = p->name[N_HEADER];
	int64_t ns = m->ns + p->clock_offset_ns;
	if (names)
		name_eq(p, "timestamp");
	else
		tio_buf_addc(b, '[');
	color(p, COLOR_TS);
	if (p->clock_cycles)
		tio_buf_addu_pad(b, m->cycles, 20);
	else
		fmt_time(p, b, ns);
	color(p, COLOR_RST);
	if (!names)
		tio_buf_adds(b, "] ");
	if (!p->no_delta) {
		if (names) {
			tio_buf_adds(b, ", ");
			name_eq(p, "delta");
		} else {
			tio_buf_addc(b, '(');
		}
		if (!p->has_last) {
			tio_buf_adds(b, p->clock_cycles ? "+????????????" : "+?.?????????");
		} else if (p->clock_cycles) {
			tio_buf_addc(b, '+');
			tio_buf_addu_pad(b, m->cycles - p->last_cycles, 12);
		} else {
			uint64_t d = (uint64_t)ns - (uint64_t)p->last_ns; /* wraps, never overflows */
			tio_buf_addc(b, '+');
			tio_buf_addu(b, d / 1000000000);
			tio_buf_addc(b, '.');
			tio_buf_addu_pad(b, d % 1000000000, 9);
		}
		if (!names)
			tio_buf_adds(b, ") ");
	}
	p->has_last = true;
	p->last_ns = ns;
	p->last_cycles = m->cycles;
	p->start_line = !names;
}

/* ---------------------------------------------------------------- values */

/* Bytes printed as they are in a quoted string (no escape): a table, built once. */
static bool plain_byte[256];
static void plain_init(void)
{
	for (int c = 0; c < 256; c++)
		plain_byte[c] = !iscntrl(c) && c != '\\' && c != '\'' && c != '"' && c != '?';
}

static void print_escaped(tio_buf *b, const char *s, size_t len)
{
	tio_buf_addc(b, '"');
	for (size_t i = 0; i < len; i++) {
		/* copy the run of bytes that need no escape in one go */
		size_t j = i;
		while (j < len && plain_byte[(unsigned char)s[j]])
			j++;
		if (j > i) {
			tio_buf_add(b, s + i, j - i);
			i = j;
			if (i == len)
				break;
		}
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '\\': tio_buf_adds(b, "\\\\"); continue;
		case '\'': tio_buf_adds(b, "\\\'"); continue;
		case '"': tio_buf_adds(b, "\\\""); continue;
		case '?': tio_buf_adds(b, "\\\?"); continue;
		}
		if (!iscntrl(c)) {
			tio_buf_addc(b, (char)c);
			continue;
		}
		switch (c) {
		case '\0': tio_buf_adds(b, "\\0"); break;
		case '\a': tio_buf_adds(b, "\\a"); break;
		case '\b': tio_buf_adds(b, "\\b"); break;
		case 27: tio_buf_adds(b, "\\e"); break;
		case '\f': tio_buf_adds(b, "\\f"); break;
		case '\n': tio_buf_adds(b, "\\n"); break;
		case '\r': tio_buf_adds(b, "\\r"); break;
		case '\t': tio_buf_adds(b, "\\t"); break;
		case '\v': tio_buf_adds(b, "\\v"); break;
		default: tio_buf_addf(b, "\\x%02x", c); break;
		}
	}
	tio_buf_addc(b, '"');
}

static void print_int(pretty *p, const tio_fc *fc, const tio_val *v)
{
	tio_buf *b = &p->b;
	uint32_t len = fc->i.size;
	uint64_t u = v->v.u;
	bool sgn = fc->i.is_signed;
	color(p, COLOR_BOLD);
	switch (fc->i.base) {
	case 2: {
		tio_buf_adds(b, "0b");
		if (len > 64)
			len = 64;
		for (int k = (int)len - 1; k >= 0; k--)
			tio_buf_addc(b, (u >> k) & 1 ? '1' : '0');
		break;
	}
	case 8:
		if (sgn && len < 64) {
			uint32_t rl = ((len - 1) / 3 + 1) * 3;
			if (rl < 64)
				u &= (1ULL << rl) - 1;
		}
		tio_buf_addf(b, "0%" PRIo64, u);
		break;
	case 16:
		if (sgn && len < 64) {
			uint32_t rl = (len + 3) & ~3u;
			if (rl < 64)
				u &= (1ULL << rl) - 1;
		}
		tio_buf_adds(b, "0x");
		tio_buf_addx(b, u, true);
		break;
	default:
		if (sgn)
			tio_buf_addi(b, v->v.i);
		else
			tio_buf_addu(b, u);
	}
	color(p, COLOR_RST);
}

static bool in_ranges(const tio_mapping *m, const tio_val *v, bool sgn)
{
	for (uint32_t r = 0; r < m->nranges; r++) {
		if (sgn ? (v->v.i >= m->ranges[r].lo && v->v.i <= m->ranges[r].hi)
			: (v->v.u >= (uint64_t)m->ranges[r].lo && v->v.u <= (uint64_t)m->ranges[r].hi))
			return true;
	}
	return false;
}

static uint32_t print_value(pretty *p, const tio_val *vals, uint32_t i, bool names, const char *const *filter);

/* UTF-16/UTF-32 text (CTF 2): converted to UTF-8 up to the first NUL, then escaped. */
static void print_wide(pretty *p, const tio_val *v, const tio_fc *fc)
{
	tio_buf u = {0};
	const uint8_t *q = (const uint8_t *)v->v.s.p;
	unsigned unit = fc->s.encoding == TIO_ENC_UTF16 ? 2 : 4;
	bool be = fc->s.byte_order == TIO_BE;
	for (uint64_t k = 0; k + unit <= v->v.s.len; k += unit) {
		uint32_t cu = unit == 2 ? (be ? tio_be16(q + k) : tio_le16(q + k))
					: (be ? tio_be32(q + k) : tio_le32(q + k));
		if (!cu)
			break;
		if (unit == 2 && cu >= 0xD800 && cu < 0xDC00 && k + 4 <= v->v.s.len) {
			uint32_t lo = be ? tio_be16(q + k + 2) : tio_le16(q + k + 2);
			if (lo >= 0xDC00 && lo < 0xE000) {
				cu = 0x10000 + ((cu - 0xD800) << 10) + (lo - 0xDC00);
				k += 2;
			}
		}
		tio_buf_add_cp(&u, cu > 0x10FFFF ? 0xFFFD : cu);
	}
	print_escaped(&p->b, u.p ? u.p : "", u.len);
	tio_buf_free(&u);
}

/*
 * printf's "%g" (6 significant digits, shortest of fixed and exponent
 * forms, trailing zeros removed) without printf for the common range: the
 * value is scaled by an exact power of ten in long double (64-bit
 * mantissa) and rounded; when the scaled value is too close to a rounding
 * boundary to be sure, or out of range, printf decides.
 */
static bool fast_g(tio_buf *b, double d)
{
	if (!isfinite(d) || d == 0)
		return false;
	long double x = fabsl((long double)d);
	/* |d| is in [2^(ex-1), 2^ex): its decimal exponent is this or one more
	 * (the loop below moves it) */
	int ex;
	frexp(d, &ex);
	int e10 = (int)floor((ex - 1) * 0.30102999566398120);
	static const long double p10[] = {1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L,
					  1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
					  1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
	long double scaled = 0;
	for (int tries = 0; tries < 2; tries++) {
		/* scaled = x * 10^(5 - e10): 6 digits before the point; powers of ten
		 * up to 1e27 are exact, larger ones cost a rounding or two, which the
		 * boundary check below absorbs */
		int sh = 5 - e10;
		scaled = x;
		while (sh > 27) {
			scaled *= p10[27];
			sh -= 27;
		}
		while (sh < -27) {
			scaled /= p10[27];
			sh += 27;
		}
		scaled = sh >= 0 ? scaled * p10[sh] : scaled / p10[-sh];
		if (scaled >= 99999.5L && scaled < 1000000.5L)
			break;
		e10 += scaled >= 1000000.5L ? 1 : -1; /* log10 landed one off */
	}
	if (!(scaled >= 99999.5L && scaled < 1000000.5L))
		return false;
#if LDBL_MANT_DIG == 64
	/* x87 long double: floor without floorl, which switches the rounding
	   mode (a stall): adding 2^63 leaves no fraction bits, so the sum is
	   scaled rounded to the nearest whole number (no -ffast-math here: it is
	   not folded away) */
	long double big = scaled + 9223372036854775808.0L;
	long double fl = big - 9223372036854775808.0L;
	if (fl > scaled)
		fl -= 1;
#else
	long double fl = floorl(scaled);
#endif
	long double frac = scaled - fl;
	if (fabsl(frac - 0.5L) < 1e-9L)
		return false; /* too close to call: printf rounds the exact value */
	/* fl is a whole number below 2^21: exact as a double, whose conversion
	   to an integer is one SSE instruction (long double's changes the x87
	   rounding mode twice, which stalls) */
	uint64_t n = (uint64_t)(double)fl + (frac > 0.5L);
	if (n >= 1000000) { /* 999999.6 -> 1.00000e+06 */
		n /= 10;
		e10++;
	}
	if (n < 100000)
		return false;
	char dig[8];
	for (int k = 5; k >= 0; k--) {
		dig[k] = (char)('0' + n % 10);
		n /= 10;
	}
	int nd = 6; /* significant digits kept: trailing zeros go */
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (d < 0)
		tio_buf_addc(b, '-');
	if (e10 < -4 || e10 >= 6) {
		tio_buf_addc(b, dig[0]);
		if (nd > 1) {
			tio_buf_addc(b, '.');
			tio_buf_add(b, dig + 1, (size_t)nd - 1);
		}
		tio_buf_addc(b, 'e');
		tio_buf_addc(b, e10 < 0 ? '-' : '+');
		tio_buf_addu_pad(b, (uint64_t)(e10 < 0 ? -e10 : e10), 2);
	} else if (e10 >= 0) {
		tio_buf_add(b, dig, (size_t)e10 + 1);
		if (nd > e10 + 1) {
			tio_buf_addc(b, '.');
			tio_buf_add(b, dig + e10 + 1, (size_t)(nd - e10 - 1));
		}
	} else {
		tio_buf_addl(b, "0.");
		for (int k = 0; k < -e10 - 1; k++)
			tio_buf_addc(b, '0');
		tio_buf_add(b, dig, (size_t)nd);
	}
	return true;
}

static void print_float(pretty *p, double d)
{
	color(p, COLOR_BOLD);
	if (!fast_g(&p->b, d))
		tio_buf_addf(&p->b, "%g", d);
	color(p, COLOR_RST);
}

/* Prints value i and returns the index past it. */
static uint32_t print_value(pretty *p, const tio_val *vals, uint32_t i, bool names, const char *const *filter)
{
	const tio_val *v = &vals[i];
	const tio_fc *fc = v->fc;
	tio_buf *b = &p->b;
	switch (fc->kind) {
	case TIO_FC_INT:
		if (fc->i.size > 64) {
			tio_buf_adds(b, "0x");
			for (uint32_t k = 0; k < fc->i.size / 8; k++) {
				uint32_t byte = fc->i.byte_order == TIO_BE ? k : fc->i.size / 8 - 1 - k;
				tio_buf_addf(b, "%02X", v->v.big[byte]);
			}
		} else {
			print_int(p, fc, v);
		}
		return i + 1;
	case TIO_FC_BOOL:
		tio_buf_adds(b, v->v.u ? "true" : "false");
		return i + 1;
	case TIO_FC_BITMAP: {
		/* babeltrace2 2.1: the value in hex, then the set flags sorted by name */
		color(p, COLOR_BOLD);
		tio_buf_addl(b, "0x");
		tio_buf_addx(b, v->v.u, true);
		color(p, COLOR_RST);
		const char *set[64];
		uint32_t nset = 0;
		for (uint32_t k = 0; k < fc->i.nmappings && nset < 64; k++) {
			const tio_mapping *mp = &fc->i.mappings[k];
			bool on = false;
			for (uint32_t r = 0; r < mp->nranges && !on; r++)
				for (int64_t bit = mp->ranges[r].lo; bit <= mp->ranges[r].hi && bit < 64 && !on; bit++)
					on = bit >= 0 && ((v->v.u >> bit) & 1);
			if (on)
				set[nset++] = mp->label ? mp->label : "";
		}
		if (nset) {
			for (uint32_t x = 1; x < nset; x++) /* few flags: insertion sort */
				for (uint32_t y = x; y > 0 && strcmp(set[y - 1], set[y]) > 0; y--) {
					const char *t = set[y];
					set[y] = set[y - 1];
					set[y - 1] = t;
				}
			tio_buf_addl(b, " {");
			for (uint32_t x = 0; x < nset; x++) {
				tio_buf_adds(b, x ? ", \"" : " \"");
				tio_buf_adds(b, set[x]);
				tio_buf_addc(b, '"');
			}
			tio_buf_addl(b, " }");
		}
		return i + 1;
	}
	case TIO_FC_ENUM: {
		tio_buf_adds(b, "( ");
		int cnt = 0;
		for (uint32_t k = 0; k < fc->i.nmappings; k++) {
			if (!in_ranges(&fc->i.mappings[k], v, fc->i.is_signed))
				continue;
			if (cnt++)
				tio_buf_adds(b, ", ");
			color(p, COLOR_BOLD);
			tio_buf_addc(b, '"');
			tio_buf_adds(b, fc->i.mappings[k].label ? fc->i.mappings[k].label : "");
			tio_buf_addc(b, '"');
			color(p, COLOR_RST);
		}
		if (!cnt) {
			color(p, "\033[1m\033[1m\033[31m");
			tio_buf_adds(b, "<unknown>");
			color(p, COLOR_RST);
		}
		tio_buf_adds(b, " : container = ");
		print_int(p, fc, v);
		tio_buf_adds(b, " )");
		return i + 1;
	}
	case TIO_FC_FLOAT:
		print_float(p, v->v.d);
		return i + 1;
	case TIO_FC_VARINT:
		if (fc->vi.is_signed)
			tio_buf_addf(b, "%" PRId64, v->v.i);
		else
			tio_buf_addf(b, "%" PRIu64, v->v.u);
		return i + 1;
	case TIO_FC_STRING:
	case TIO_FC_SSTRING:
	case TIO_FC_DSTRING:
		color(p, COLOR_BOLD);
		if (fc->s.encoding == TIO_ENC_UTF16 || fc->s.encoding == TIO_ENC_UTF32)
			print_wide(p, v, fc);
		else
			print_escaped(b, v->v.s.p, strnlen(v->v.s.p, v->v.s.len));
		color(p, COLOR_RST);
		return i + 1;
	case TIO_FC_SBLOB:
	case TIO_FC_DBLOB:
		tio_buf_adds(b, "[");
		for (uint64_t k = 0; k < v->v.s.len; k++)
			tio_buf_addf(b, "%s %02x", k ? "," : "", (unsigned char)v->v.s.p[k]);
		tio_buf_adds(b, " ]");
		return i + 1;
	case TIO_FC_STRUCT: {
		tio_buf_addc(b, '{');
		uint32_t j = i + 1;
		int printed = 0;
		for (uint32_t k = 0; k < v->n; k++) {
			const char *nm = fc->st.members[k].name;
			if (filter && fc->st.members[k].fc->role != TIO_ROLE_NONE) {
				j = vals[j].end;
				continue;
			}
			if (printed++)
				tio_buf_addc(b, ',');
			tio_buf_addc(b, ' ');
			if (names) {
				color(p, COLOR_FIELD);
				tio_buf_adds(b, nm ? nm : "");
				color(p, COLOR_RST);
				tio_buf_adds(b, " = ");
			}
			j = print_value(p, vals, j, names, NULL);
		}
		tio_buf_adds(b, " }");
		return v->end;
	}
	case TIO_FC_ARRAY:
	case TIO_FC_SEQUENCE: {
		if (fc->a.text && v->n == 0 && v->v.s.p) {
			color(p, COLOR_BOLD);
			print_escaped(b, v->v.s.p, strnlen(v->v.s.p, v->v.s.len));
			color(p, COLOR_RST);
			return v->end;
		}
		tio_buf_addc(b, '[');
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < v->n; k++) {
			if (k)
				tio_buf_addc(b, ',');
			tio_buf_addc(b, ' ');
			if (names) {
				tio_buf_addc(b, '[');
				tio_buf_addu(b, k);
				tio_buf_adds(b, "] = ");
			}
			j = print_value(p, vals, j, names, NULL);
		}
		tio_buf_adds(b, " ]");
		return v->end;
	}
	case TIO_FC_VARIANT:
		tio_buf_adds(b, "{ ");
		if (v->n)
			print_value(p, vals, i + 1, names, NULL);
		tio_buf_adds(b, " }");
		return v->end;
	case TIO_FC_OPTIONAL:
		if (v->n)
			print_value(p, vals, i + 1, names, NULL);
		else
			tio_buf_adds(b, "<none>");
		return v->end;
	}
	return v->end;
}


/*
 * babeltrace2 keeps only fields without a meaning (role) in its packet
 * contexts: sizes, timestamps, counters are not shown, and a context left
 * empty is not printed at all.
 */
static bool role_free_member(const tio_fc *st, uint32_t k)
{
	return st->st.members[k].fc->role == TIO_ROLE_NONE;
}

/* ---------------------------------------------------------------- templates
 *
 * A scope's text is mostly fixed: "{ name = " VALUE ", other = " VALUE " }".
 * The first time a scope's field class is printed, its static shape is
 * compiled into steps: literal text (names, punctuation) and value
 * printers; nested structures are flattened, and what has no static shape
 * (arrays, sequences, variants, optionals, BLOBs) is one "generic" step
 * that prints the subtree with print_value().  A cursor walks the values
 * as the steps consume them.  Without colors only.
 */
enum { ST_LIT, ST_SKIP, ST_ENTER, ST_UDEC, ST_SDEC, ST_HEX, ST_STR, ST_ARR, ST_GEN };

typedef struct tstep {
	uint8_t op;
	uint8_t eop;	   /* ST_ARR: the elements' printer (ST_UDEC...ST_STR, or ST_GEN) */
	uint32_t off, len; /* ST_LIT: text in the pool */
	const tio_fc *fc;  /* value printers: the field class (for hex, arrays, generic) */
} tstep;

typedef struct tmpl {
	const tio_fc *root;
	uint8_t names, filter; /* filter: the scope's members with a role are not printed */
	uint8_t empty;	       /* filter left no member: the scope is not printed at all */
	tstep *steps;
	uint32_t n;
	tio_buf pool;
} tmpl;

/* Templates by (root, names, filter): an open-addressing table of indices
 * into v (an event's payload class changes from one event to the next). */
typedef struct tmpl_cache {
	tmpl *v;
	size_t n, cap;
	uint32_t *slot; /* index + 1, 0 = free */
	size_t nslot;	/* a power of two, at least twice n */
} tmpl_cache;

static int tmpl_lit(tmpl *t, size_t *cap, const char *s, size_t len)
{
	if (t->n && t->steps[t->n - 1].op == ST_LIT) { /* merge adjacent literals */
		t->steps[t->n - 1].len += (uint32_t)len;
		return tio_buf_add(&t->pool, s, len);
	}
	if (tio_grow(&t->steps, cap, t->n + 1, sizeof(tstep)))
		return TIO_ERR_NOMEM;
	t->steps[t->n++] = (tstep){ST_LIT, 0, (uint32_t)t->pool.len, (uint32_t)len, NULL};
	return tio_buf_add(&t->pool, s, len);
}

static int tmpl_op(tmpl *t, size_t *cap, uint8_t op, const tio_fc *fc)
{
	if (tio_grow(&t->steps, cap, t->n + 1, sizeof(tstep)))
		return TIO_ERR_NOMEM;
	t->steps[t->n++] = (tstep){op, 0, 0, 0, fc};
	return 0;
}

/* The printer of a value without inner structure, or ST_GEN. */
static uint8_t simple_op(const tio_fc *fc)
{
	if (fc->kind == TIO_FC_INT && fc->i.size <= 64 && fc->i.base == 10)
		return fc->i.is_signed ? ST_SDEC : ST_UDEC;
	if (fc->kind == TIO_FC_INT && fc->i.size <= 64 && fc->i.base == 16)
		return ST_HEX;
	if (fc->kind == TIO_FC_STRING && fc->s.encoding != TIO_ENC_UTF16 && fc->s.encoding != TIO_ENC_UTF32)
		return ST_STR;
	return ST_GEN;
}

/* Steps for one value of class fc (the cursor is on its value). */
static int tmpl_value(tmpl *t, size_t *cap, const tio_fc *fc, bool names, bool filter, int depth)
{
	if (depth > 32)
		return tmpl_op(t, cap, ST_GEN, fc);
	uint8_t op = simple_op(fc);
	if (op != ST_GEN)
		return tmpl_op(t, cap, op, fc);
	if (fc->kind == TIO_FC_ARRAY || fc->kind == TIO_FC_SEQUENCE) {
		int r = tmpl_op(t, cap, ST_ARR, fc);
		if (!r)
			t->steps[t->n - 1].eop = simple_op(fc->a.elem);
		return r;
	}
	if (fc->kind != TIO_FC_STRUCT)
		return tmpl_op(t, cap, ST_GEN, fc);
	int r = tmpl_op(t, cap, ST_ENTER, fc); /* the structure's own value */
	if (!r)
		r = tmpl_lit(t, cap, "{", 1);
	int printed = 0;
	for (uint32_t k = 0; !r && k < fc->st.nmembers; k++) {
		const tio_member *m = &fc->st.members[k];
		if (filter && m->fc->role != TIO_ROLE_NONE) {
			r = tmpl_op(t, cap, ST_SKIP, m->fc);
			continue;
		}
		r = printed ? tmpl_lit(t, cap, ", ", 2) : tmpl_lit(t, cap, " ", 1);
		printed++;
		if (!r && names && m->name) {
			r = tmpl_lit(t, cap, m->name, strlen(m->name));
			if (!r)
				r = tmpl_lit(t, cap, " = ", 3);
		} else if (!r && names) {
			r = tmpl_lit(t, cap, " = ", 3);
		}
		if (!r)
			r = tmpl_value(t, cap, m->fc, names, false, depth + 1);
	}
	if (!r)
		r = tmpl_lit(t, cap, " }", 2);
	return r;
}

static size_t tmpl_hash(const tio_fc *root, bool names, bool filter, size_t nslot)
{
	uint64_t h = ((uint64_t)(uintptr_t)root >> 3) ^ ((uint64_t)names << 61) ^ ((uint64_t)filter << 62);
	h *= 0x9E3779B97F4A7C15ULL;
	return (size_t)(h >> 32) & (nslot - 1);
}

static int tmpl_rehash(tmpl_cache *c, size_t nslot)
{
	uint32_t *slot = tio_calloc(nslot, sizeof(*slot));
	if (!slot)
		return TIO_ERR_NOMEM;
	for (size_t k = 0; k < c->n; k++) {
		size_t h = tmpl_hash(c->v[k].root, c->v[k].names, c->v[k].filter, nslot);
		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = (uint32_t)k + 1;
	}
	free(c->slot);
	c->slot = slot;
	c->nslot = nslot;
	return 0;
}

/*
 * The template of a scope of class root; filter: leave out the members with
 * a role (babeltrace2's packet contexts).  NULL when out of memory.
 */
static const tmpl *tmpl_get(pretty *p, const tio_fc *root, bool names, bool filter)
{
	if (!p->tc && !(p->tc = tio_calloc(1, sizeof(*p->tc))))
		return NULL;
	tmpl_cache *c = p->tc;
	size_t h = 0;
	if (c->nslot) {
		for (h = tmpl_hash(root, names, filter, c->nslot); c->slot[h]; h = (h + 1) & (c->nslot - 1)) {
			const tmpl *t = &c->v[c->slot[h] - 1];
			if (t->root == root && t->names == names && t->filter == filter)
				return t;
		}
	}
	if ((c->n + 1) * 2 > c->nslot) {
		if (tmpl_rehash(c, c->nslot ? c->nslot * 2 : 64))
			return NULL;
		for (h = tmpl_hash(root, names, filter, c->nslot); c->slot[h]; h = (h + 1) & (c->nslot - 1))
			;
	}
	if (tio_grow(&c->v, &c->cap, c->n + 1, sizeof(tmpl)))
		return NULL;
	tmpl *t = &c->v[c->n];
	memset(t, 0, sizeof(*t));
	t->root = root;
	t->names = names;
	t->filter = filter;
	bool skip = false;
	if (filter && root->kind == TIO_FC_STRUCT) {
		uint32_t kept = 0;
		for (uint32_t k = 0; k < root->st.nmembers; k++) {
			if (role_free_member(root, k))
				kept++;
			else
				skip = true;
		}
		t->empty = !kept;
	}
	size_t cap = 0;
	if (!t->empty && tmpl_value(t, &cap, root, names, skip, 0)) {
		free(t->steps);
		tio_buf_free(&t->pool);
		return NULL;
	}
	c->slot[h] = (uint32_t)c->n + 1;
	c->n++;
	return t;
}

static void tmpl_free_all(tmpl_cache *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++) {
		free(c->v[k].steps);
		tio_buf_free(&c->v[k].pool);
	}
	free(c->v);
	free(c->slot);
	free(c);
}

/* ", [K] = " (" [K] = " for the first element) */
static inline void put_index(tio_buf *b, uint32_t k)
{
	if (TIO_UNLIKELY(k >= 100 || (b->len + 16 > b->cap && tio_buf_reserve(b, 16)))) {
		tio_buf_adds(b, k ? ", [" : " [");
		tio_buf_addu(b, k);
		tio_buf_addl(b, "] = ");
		return;
	}
	char *q = b->p + b->len;
	size_t n = 0;
	if (k)
		q[n++] = ',';
	q[n++] = ' ';
	q[n++] = '[';
	if (k >= 10)
		q[n++] = (char)('0' + k / 10);
	q[n++] = (char)('0' + k % 10);
	memcpy(q + n, "] = ", 4);
	b->len += n + 4;
}

/* One value of a simple printer (op from simple_op(), not ST_GEN): returns the index past it. */
static inline uint32_t tmpl_simple(pretty *p, uint8_t op, const tio_fc *fc, const tio_val *vals, uint32_t i)
{
	tio_buf *b = &p->b;
	switch (op) {
	case ST_UDEC:
		tio_buf_addu(b, vals[i].v.u);
		break;
	case ST_SDEC:
		tio_buf_addi(b, vals[i].v.i);
		break;
	case ST_HEX:
		print_int(p, fc, &vals[i]);
		break;
	default: /* ST_STR */
		print_escaped(b, vals[i].v.s.p, vals[i].v.s.len);
		break;
	}
	return i + 1;
}

/* An array or sequence: as print_value() prints it, the elements' printer chosen once. */
static uint32_t tmpl_array(pretty *p, const tstep *st, const tio_val *vals, uint32_t i, bool names)
{
	tio_buf *b = &p->b;
	const tio_val *v = &vals[i];
	if (st->fc->a.text && v->n == 0 && v->v.s.p) {
		print_escaped(b, v->v.s.p, strnlen(v->v.s.p, v->v.s.len));
		return v->end;
	}
	tio_buf_addc(b, '[');
	uint32_t j = i + 1;
	const tio_fc *efc = st->fc->a.elem;
	for (uint32_t k = 0; k < v->n; k++) {
		if (names)
			put_index(b, k);
		else if (k)
			tio_buf_addl(b, ", ");
		else
			tio_buf_addc(b, ' ');
		j = st->eop == ST_GEN ? print_value(p, vals, j, names, NULL) : tmpl_simple(p, st->eop, efc, vals, j);
	}
	tio_buf_addl(b, " ]");
	return v->end;
}

static void tmpl_run(pretty *p, const tmpl *t, const tio_val *vals, uint32_t i, bool names)
{
	tio_buf *b = &p->b;
	const char *pool = t->pool.p;
	for (uint32_t k = 0; k < t->n; k++) {
		const tstep *st = &t->steps[k];
		switch (st->op) {
		case ST_LIT:
			tio_buf_add(b, pool + st->off, st->len);
			break;
		case ST_ENTER:
			i++;
			break;
		case ST_SKIP:
			i = vals[i].end;
			break;
		case ST_UDEC:
		case ST_SDEC:
		case ST_HEX:
		case ST_STR:
			i = tmpl_simple(p, st->op, st->fc, vals, i);
			break;
		case ST_ARR:
			i = tmpl_array(p, st, vals, i, names);
			break;
		default:
			i = print_value(p, vals, i, names, NULL);
			break;
		}
	}
}

static void print_scope(pretty *p, const tio_msg *m, int scope, const char *scope_name, bool names,
			bool filter_roles)
{
	const tio_val *v = m->scope[scope];
	if (!v)
		return;
	const tmpl *t = p->color ? NULL : tmpl_get(p, v->fc, names, filter_roles);
	const char *skip[64];
	size_t nskip = 0;
	if (t) {
		if (t->empty)
			return;
	} else if (filter_roles && v->fc->kind == TIO_FC_STRUCT) {
		uint32_t kept = 0;
		for (uint32_t k = 0; k < v->fc->st.nmembers; k++) {
			if (role_free_member(v->fc, k))
				kept++;
			else if (nskip < TIO_ARRAY_LEN(skip) - 1)
				skip[nskip++] = v->fc->st.members[k].name;
		}
		if (!kept)
			return;
	}
	skip[nskip] = NULL;
	if (!p->start_line)
		tio_buf_adds(&p->b, ", ");
	p->start_line = false;
	if (p->name[N_SCOPE])
		name_eq(p, scope_name);
	if (t)
		tmpl_run(p, t, m->vals, (uint32_t)(v - m->vals), names);
	else
		print_value(p, m->vals, (uint32_t)(v - m->vals), names, nskip ? skip : NULL);
}

static const char *env_str(const tio_trace_class *tc, const char *key, char *tmp, size_t n)
{
	const tio_kv *kv = tio_trace_class_env(tc, key);
	if (!kv)
		return NULL;
	if (kv->is_int) {
		snprintf(tmp, n, "%" PRId64, kv->ival);
		return tmp;
	}
	return kv->sval ? kv->sval : "";
}

static void print_event(pretty *p, const tio_msg *m)
{
	tio_buf *b = &p->b;
	const tio_trace_class *tc = m->stream->trace->tc;
	const tio_event_class *ec = m->ec;
	bool hn = p->name[N_HEADER];
	char tmp[32];
	p->start_line = true;
	if (m->has_ts)
		print_timestamp(p, m);
	if (p->field[F_TRACE]) {
		if (!p->start_line)
			tio_buf_adds(b, ", ");
		if (hn)
			name_eq(p, "trace");
		tio_trace_bt2_name(b, m->stream->trace);
		if (hn)
			tio_buf_adds(b, ", ");
	}
	/*
	 * hostname, domain, procname, vpid, loglevel, EMF URI: joined by ':'
	 * without names.  The environment part is the same for every event of
	 * a trace: built once per trace, copied after.
	 */
	bool dom;
	if (p->hdr_trace != m->stream->trace || !p->start_line) {
		bool first = p->start_line;
		tio_buf *save = b;
		tio_buf_reset(&p->hdr);
		b = &p->hdr;
		dom = false;
		static const struct { int f; const char *key; const char *nm; } env_fields[] = {
			{F_HOSTNAME, "hostname", "trace:hostname"},
			{F_DOMAIN, "domain", "trace:domain"},
			{F_PROCNAME, "procname", "trace:procname"},
			{F_VPID, "vpid", "trace:vpid"},
		};
		for (size_t k = 0; k < TIO_ARRAY_LEN(env_fields); k++) {
			if (!p->field[env_fields[k].f])
				continue;
			const char *s = env_str(tc, env_fields[k].key, tmp, sizeof(tmp));
			if (!s)
				continue;
			if (!first)
				tio_buf_adds(b, ", ");
			if (hn) {
				/* name_eq writes to p->b: swap buffers around it */
				tio_buf t = p->b;
				p->b = p->hdr;
				name_eq(p, env_fields[k].nm);
				p->hdr = p->b;
				p->b = t;
			} else if (dom && env_fields[k].f != F_HOSTNAME) {
				tio_buf_addc(b, ':');
			}
			if (env_fields[k].f == F_VPID)
				tio_buf_addf(b, "(%s)", s);
			else
				tio_buf_adds(b, s);
			dom = true;
		}
		b = save;
		p->hdr_dom = dom;
		/* cache only the form used when the line starts here (no timestamp names) */
		p->hdr_trace = p->start_line ? m->stream->trace : NULL;
	}
	tio_buf_add(b, p->hdr.p, p->hdr.len);
	dom = p->hdr_dom;
	if (p->field[F_LOGLEVEL] && ec->loglevel != INT64_MIN) {
		static const char *const lv[] = {
			"TRACE_EMERG", "TRACE_ALERT", "TRACE_CRIT", "TRACE_ERR", "TRACE_WARNING",
			"TRACE_NOTICE", "TRACE_INFO", "TRACE_DEBUG_SYSTEM", "TRACE_DEBUG_PROGRAM",
			"TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE", "TRACE_DEBUG_UNIT",
			"TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE", "TRACE_DEBUG"};
		if (!p->start_line)
			tio_buf_adds(b, ", ");
		if (hn)
			name_eq(p, "loglevel");
		else if (dom)
			tio_buf_addc(b, ':');
		if (ec->loglevel >= 0 && ec->loglevel < (int64_t)TIO_ARRAY_LEN(lv))
			tio_buf_addf(b, "%s (%" PRId64 ")", lv[ec->loglevel], ec->loglevel);
		else
			tio_buf_addf(b, "%" PRId64, ec->loglevel);
		dom = true;
	}
	if (p->field[F_EMF] && ec->emf_uri) {
		if (!p->start_line)
			tio_buf_adds(b, ", ");
		if (hn)
			name_eq(p, "model.emf.uri");
		else if (dom)
			tio_buf_addc(b, ':');
		tio_buf_adds(b, ec->emf_uri);
		dom = true;
	}
	if (dom && !hn)
		tio_buf_addc(b, ' ');
	if (!p->start_line)
		tio_buf_adds(b, ", ");
	p->start_line = true;
	if (hn)
		name_eq(p, "name");
	color(p, COLOR_NAME);
	tio_buf_adds(b, ec->name ? ec->name : "");
	color(p, COLOR_RST);
	tio_buf_adds(b, hn ? ", " : ": ");
	p->start_line = true;
	print_scope(p, m, TIO_SCOPE_PKT_CTX, "stream.packet.context", p->name[N_CONTEXT], !p->verbose);
	print_scope(p, m, TIO_SCOPE_EV_COMMON_CTX, "stream.event.context", p->name[N_CONTEXT], false);
	print_scope(p, m, TIO_SCOPE_EV_SPEC_CTX, "event.context", p->name[N_CONTEXT], false);
	print_scope(p, m, TIO_SCOPE_PAYLOAD, "event.fields", p->name[N_PAYLOAD], false);
	tio_buf_addc(b, '\n');
}

static void fmt_uuid(char *out, const uint8_t *u)
{
	sprintf(out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

static void print_discarded(pretty *p, const tio_msg *m)
{
	tio_buf w = {0};
	const tio_stream *s = m->stream;
	const tio_trace *t = s->trace;
	bool ev = m->type == TIO_MSG_DISCARDED_EVENTS;
	const char *what = ev ? "event" : "packet";
	if (p->color)
		tio_buf_adds(&w, "\033[33m\033[1mWARNING\033[0m\033[33m: ");
	else
		tio_buf_adds(&w, "WARNING: ");
	if (m->count)
		tio_buf_addf(&w, "Tracer discarded %" PRIu64 " %s%s ", m->count, what, m->count == 1 ? "" : "s");
	else /* count unknown (first packet, or a range cut by trimming) */
		tio_buf_addf(&w, "Tracer may have discarded %ss ", what);
	if (m->has_range) {
		tio_buf_adds(&w, "between [");
		fmt_time(p, &w, m->begin_ns + p->clock_offset_ns);
		tio_buf_adds(&w, "] and [");
		fmt_time(p, &w, m->end_ns + p->clock_offset_ns);
		tio_buf_adds(&w, "]");
	} else {
		tio_buf_adds(&w, "(unknown time range)");
	}
	tio_buf_adds(&w, " in trace \"");
	tio_trace_bt2_name(&w, t);
	tio_buf_adds(&w, "\" ");
	if (t->tc->has_uuid) {
		char u[40];
		fmt_uuid(u, t->tc->uuid);
		tio_buf_addf(&w, "(UUID: %s) ", u);
	} else {
		tio_buf_adds(&w, "(no UUID) ");
	}
	tio_buf_addf(&w, "within stream \"%s\" (stream class ID: %" PRIu64 ", stream ID: %" PRIu64 ").%s\n",
		     s->name ? s->name : "", s->sc ? s->sc->id : 0, s->id, p->color ? COLOR_RST : "");
	fflush(p->base.out);
	fputs(tio_buf_cstr(&w), p->base.err);
	tio_buf_free(&w);
}

static int flush_out(pretty *p) { return tio_sink_flush_buf(&p->base, &p->b); }

static int pretty_consume(tio_sink *s, const tio_msg *m)
{
	pretty *p = (pretty *)s;
	if (m->type == TIO_MSG_EVENT) {
		print_event(p, m);
		if (p->b.len >= 65536) {
			return flush_out(p);
		}
		return 0;
	}
	if (m->type == TIO_MSG_DISCARDED_EVENTS || m->type == TIO_MSG_DISCARDED_PACKETS) {
		if (flush_out(p))
			return TIO_ERR_IO;
		print_discarded(p, m);
	}
	return 0;
}

static int pretty_finish(tio_sink *s)
{
	pretty *p = (pretty *)s;
	if (p->color) { /* babeltrace2 ends colored outputs with a reset */
		color(p, COLOR_RST);
		fflush(s->out);
		fputs(COLOR_RST, s->err);
	}
	if (flush_out(p))
		return TIO_ERR_IO;
	return fflush(s->out) ? tio_err_set(TIO_ERR_IO, "write error on output") : 0;
}

static void pretty_fini(tio_sink *s)
{
	pretty *p = (pretty *)s;
	tio_buf_free(&p->b);
	tio_buf_free(&p->hdr);
	tmpl_free_all(p->tc);
}

const tio_sink_ops tio_sink_pretty_ops = {
	.name = "babeltrace",
	.size = sizeof(pretty),
	.init = pretty_init,
	.set = pretty_set,
	.consume = pretty_consume,
	.finish = pretty_finish,
	.fini = pretty_fini,
};

/* Unit tests: bit reading in both byte orders, sign extension, clock conversion. */
#include <stdio.h>
#include <stdlib.h>

#include "common/common.h"
#include "ir/ir.h"

#include "unit-check.h"

/* Reference: one bit at a time, as CTF 1.8.3 section 4.1.5 describes. */
static uint64_t ref_le(const uint8_t *p, uint64_t at, unsigned len)
{
	uint64_t v = 0;
	for (unsigned k = 0; k < len; k++) {
		uint64_t bit = at + k;
		v |= (uint64_t)((p[bit / 8] >> (bit % 8)) & 1) << k;
	}
	return v;
}

static uint64_t ref_be(const uint8_t *p, uint64_t at, unsigned len)
{
	uint64_t v = 0;
	for (unsigned k = 0; k < len; k++) {
		uint64_t bit = at + k;
		v = (v << 1) | ((p[bit / 8] >> (7 - bit % 8)) & 1);
	}
	return v;
}

int main(void)
{
	uint8_t buf[32];
	srand(42);
	for (int iter = 0; iter < 20000; iter++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)rand();
		unsigned len = 1 + (unsigned)rand() % 64;
		uint64_t at = (uint64_t)rand() % (8 * 16);
		uint64_t a = tio_bits_le(buf, at, len), b = ref_le(buf, at, len);
		CHECK(a == b, "le at %llu len %u: %llx != %llx", (unsigned long long)at, len,
		      (unsigned long long)a, (unsigned long long)b);
		a = tio_bits_be(buf, at, len);
		b = ref_be(buf, at, len);
		CHECK(a == b, "be at %llu len %u: %llx != %llx", (unsigned long long)at, len,
		      (unsigned long long)a, (unsigned long long)b);
	}
	CHECK(tio_sext(0x1f, 5) == -1, "sext 5 bits");
	CHECK(tio_sext(0x0f, 5) == 15, "sext positive");
	CHECK(tio_sext(0x8000000000000000ULL, 64) == INT64_MIN, "sext 64");

	tio_clock c = {.freq = 1000000000, .offset = 1351530929945824323LL};
	int64_t ns;
	CHECK(!tio_clock_ns(&c, 5, &ns) && ns == 1351530929945824328LL, "1 GHz offset in cycles: %lld",
	      (long long)ns);
	tio_clock c2 = {.freq = 1000, .offset_s = 10, .offset = 1500};
	/* offset 1500 cycles = 1 s + 500 ms; value 1234 cycles = 1 s + 234 ms */
	CHECK(!tio_clock_ns(&c2, 1234, &ns) && ns == 12734000000LL, "1 kHz: %lld", (long long)ns);
	tio_clock c3 = {.freq = 1000000000, .offset_s = -2, .offset = 0};
	CHECK(!tio_clock_ns(&c3, 500, &ns) && ns == -1999999500LL, "negative offset: %lld", (long long)ns);
	tio_clock c4 = {.freq = 3, .offset_s = 0, .offset = 0};
	CHECK(!tio_clock_ns(&c4, 4, &ns) && ns == 1333333333LL, "3 Hz truncation: %lld", (long long)ns);
	tio_clock c5 = {.freq = 1000000000, .offset_s = INT64_MAX / 1000000000 - 10};
	CHECK(tio_clock_ns(&c5, UINT64_MAX, &ns) != 0, "overflow refused");
	CHECK(tio_clock_ns(&c5, (uint64_t)INT64_MAX, &ns) != 0, "value ns reaching INT64_MAX refused (babeltrace2)");
	/* an offset whose seconds do not fit in ns: babeltrace 1's arithmetic, modulo 2^64 */
	tio_clock c6 = {.freq = 1000000000, .offset_s = 1351530929945824323LL};
	CHECK(tio_clock_offset_wraps(&c6) && !tio_clock_offset_wraps(&c5), "offset out of range seen");
	CHECK(!tio_clock_ns(&c6, 10, &ns) && ns == (int64_t)(1351530929945824323ULL * 1000000000ULL + 10),
	      "wrapping offset: %lld", (long long)ns);
	/* 2.8 GHz: babeltrace2's doubles are 1 ns below the exact floor for this value */
	tio_clock c7 = {.freq = 2800000000ULL, .offset_s = 1500000000, .offset = 1234567891};
	int64_t ns_exact;
	CHECK(!tio_clock_ns(&c7, 362366041996ULL, &ns), "2.8 GHz");
	c7.exact = true;
	CHECK(!tio_clock_ns(&c7, 362366041996ULL, &ns_exact) && ns_exact == ns + 1 && ns_exact == 1500000129857360673LL,
	      "2.8 GHz: exact %lld, babeltrace2 %lld", (long long)ns_exact, (long long)ns);

	tio_buf b = {0};
	tio_buf_addf(&b, "%s-%d", "abc", 42);
	CHECK(!strcmp(tio_buf_cstr(&b), "abc-42"), "buf printf");
	for (int i = 0; i < 1000; i++)
		tio_buf_addf(&b, "%04d", i);
	CHECK(b.len == 6 + 4000, "buf growth %zu", b.len);
	tio_buf_free(&b);

	static const char *const paths[][2] = {
		{"/a/b/../c/./d//e/", "/a/c/d/e"}, {"/..", "/"}, {"/", "/"}, {"/a/..", "/"},
		{"/x/./y/../../z", "/z"},
	};
	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		char *a = tio_path_abs(paths[k][0]);
		CHECK(a && !strcmp(a, paths[k][1]), "path %s -> %s (want %s)", paths[k][0], a ? a : "NULL",
		      paths[k][1]);
		free(a);
	}
	char *rel = tio_path_abs("x/../y");
	CHECK(rel && rel[0] == '/' && strstr(rel, "/y") && !strstr(rel, ".."), "relative path: %s", rel);
	free(rel);

	/* decimal output (digit count from the leading zeros): powers of ten +-2, random
	   magnitudes, padding, against printf */
	{
		tio_buf d = {0};
		char want[48];
		uint64_t x = 88172645463325252ULL, p10 = 1;
		for (int k = 0; k < 20; k++, p10 *= 10) {
			for (int64_t dd = -2; dd <= 2; dd++) {
				uint64_t v = p10 + (uint64_t)dd;
				tio_buf_reset(&d);
				tio_buf_addu(&d, v);
				snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
				CHECK(!strcmp(tio_buf_cstr(&d), want), "addu %s: %s", want, tio_buf_cstr(&d));
			}
		}
		for (int k = 0; k < 200000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			uint64_t v = x >> (x & 63);
			unsigned w = (unsigned)(x >> 58) % 24;
			tio_buf_reset(&d);
			tio_buf_addu_pad(&d, v, w);
			snprintf(want, sizeof(want), "%0*llu", w > 20 ? 20 : (int)w, (unsigned long long)v);
			CHECK(!strcmp(tio_buf_cstr(&d), want), "addu_pad %s: %s", want, tio_buf_cstr(&d));
			if (failures > 10)
				break;
		}
		tio_buf_reset(&d);
		tio_buf_addu(&d, 0);
		tio_buf_addu(&d, UINT64_MAX);
		CHECK(!strcmp(tio_buf_cstr(&d), "018446744073709551615"), "addu 0, max: %s", tio_buf_cstr(&d));
		tio_buf_free(&d);
	}

	if (failures)
		printf("%d failure(s)\n", failures);
	return failures != 0;
}

/*
 * Unit tests of the CTF writer's bit packing (the inverse of tio_bits_le/be,
 * CTF 1.8.3 section 4.1.5) and of its IEEE 754 encoding for any
 * exp_dig/mant_dig (CTF 1.8.3 section 4.1.7).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctf/ctf-write.h"

#include "unit-check.h"

static uint64_t rnd(void)
{
	static uint64_t x = 0x9E3779B97F4A7C15ULL;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* Decode a binary float of exp_dig/mant_dig the way the reader does (reference). */
static double decode(uint64_t bits, unsigned e, unsigned m)
{
	unsigned mb = m - 1;
	uint64_t sign = (bits >> (e + mb)) & 1;
	uint64_t ex = (bits >> mb) & ((1ULL << e) - 1);
	uint64_t fr = bits & ((1ULL << mb) - 1);
	int bias = (1 << (e - 1)) - 1;
	double v;
	if (ex == (1ULL << e) - 1)
		v = fr ? NAN : INFINITY;
	else if (ex == 0)
		v = ldexp((double)fr, 1 - bias - (int)mb);
	else
		v = ldexp((double)(fr | (1ULL << mb)), (int)ex - bias - (int)mb);
	return sign ? -v : v;
}

int main(void)
{
	/* every length and offset, both byte orders, over noise: only the field's bits change */
	for (int round = 0; round < 20000; round++) {
		uint8_t buf[24], orig[24];
		for (size_t k = 0; k < sizeof(buf); k++)
			buf[k] = orig[k] = (uint8_t)rnd();
		unsigned len = 1 + (unsigned)(rnd() % 64);
		uint64_t at = rnd() % 64;
		uint64_t v = rnd();
		uint64_t want = len == 64 ? v : v & ((1ULL << len) - 1);
		bool be = round & 1;
		if (be)
			tio_put_bits_be(buf, at, len, v);
		else
			tio_put_bits_le(buf, at, len, v);
		uint64_t got = be ? tio_bits_be(buf, at, len) : tio_bits_le(buf, at, len);
		CHECK(got == want, "%s len %u at %llu: wrote %llx read %llx", be ? "be" : "le", len,
		      (unsigned long long)at, (unsigned long long)want, (unsigned long long)got);
		/* bits outside [at, at+len) untouched */
		for (uint64_t bit = 0; bit < 8 * sizeof(buf); bit++) {
			if (bit >= at && bit < at + len)
				continue;
			unsigned sh = be ? 7 - bit % 8 : bit % 8;
			CHECK(((buf[bit / 8] >> sh) & 1) == ((orig[bit / 8] >> sh) & 1), "%s len %u at %llu: bit %llu changed",
			      be ? "be" : "le", len, (unsigned long long)at, (unsigned long long)bit);
		}
	}

	/* floats: binary64/32 exact; half (5/11) and others round-trip values they can hold */
	static const double vals[] = {0.0, -0.0, 1.0, -2.5, 65504.0, 6.103515625e-05, 5.960464477539063e-08,
				       3.0517578125e-05, INFINITY, -INFINITY, 1.5, 1024.0, -0.125};
	static const unsigned fmts[][2] = {{11, 53}, {8, 24}, {5, 11}, {8, 8}, {4, 4}};
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		unsigned e = fmts[f][0], m = fmts[f][1];
		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			double d = vals[k];
			/* only values exactly representable in this format */
			uint64_t bits = tio_float_bits(d, e, m);
			double back = decode(bits, e, m);
			if (e == 11 || (e == 8 && m == 24) || (e == 5 && m == 11 && fabs(d) <= 65504.0))
				CHECK(back == d && signbit(back) == signbit(d), "exp %u mant %u: %g -> %llx -> %g", e, m, d,
				      (unsigned long long)bits, back);
		}
		CHECK(isnan(decode(tio_float_bits(NAN, e, m), e, m)), "exp %u mant %u: NaN lost", e, m);
	}
	/* random binary32 values through the generic path (as 8/24 via a tweaked format check) */
	for (int round = 0; round < 10000; round++) {
		uint32_t x = (uint32_t)rnd();
		float fv;
		memcpy(&fv, &x, 4);
		if (isnan(fv))
			continue;
		CHECK((uint32_t)tio_float_bits((double)fv, 8, 24) == x, "binary32 %08x", x);
		/* 5/11 subnormals and normals: every bit pattern below infinity */
		uint16_t h = (uint16_t)(x & 0x7bff);
		double hv = decode(h, 5, 11);
		CHECK(tio_float_bits(hv, 5, 11) == h, "binary16 %04x -> %g -> %04llx", h, hv,
		      (unsigned long long)tio_float_bits(hv, 5, 11));
	}

	if (failures)
		printf("%d failures\n", failures);
	return failures != 0;
}

/*
 * The babeltrace-style sink prints floats as printf's "%g" without printf
 * in the common range (fast_g in src/sink/pretty.c): compare with printf
 * on millions of values of every magnitude, including the rounding edges.
 */
#include "../../src/sink/pretty.c"

#include <stdio.h>

static int failures;

static void check(double d, unsigned long *fast)
{
	tio_buf b = {0};
	char want[64];
	snprintf(want, sizeof(want), "%g", d);
	if (fast_g(&b, d)) {
		(*fast)++;
		if (strcmp(tio_buf_cstr(&b), want)) {
			if (failures++ < 20)
				printf("FAIL %.17g: got %s, printf says %s\n", d, tio_buf_cstr(&b), want);
		}
	}
	tio_buf_free(&b);
}

int main(void)
{
	unsigned long n = 0, fast = 0;
	srand(7);
	for (int k = 0; k < 2000000; k++, n++) {
		uint64_t bits = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand();
		double d;
		memcpy(&d, &bits, 8);
		check(d, &fast);
		/* values of usual magnitudes, and float32 values as traces hold them */
		double m = ((double)rand() / RAND_MAX - 0.5) * pow(10, rand() % 30 - 15);
		check(m, &fast);
		check((double)(float)m, &fast);
		n += 2;
	}
	/* rounding edges and exact decimals */
	static const double edge[] = {999999.5, 999999.4999999, 999999.5000001, 0.0001, 0.00001,
				      123456.5, 123457.5, 1e-5, 9.999995, 9.9999949, 1.5, 2.5, 0.1,
				      1e15, 1e16, 123456789, 1e-20, 3.14159265358979, -7.25};
	for (size_t k = 0; k < sizeof(edge) / sizeof(edge[0]); k++, n++)
		check(edge[k], &fast);
	printf("%lu values, %lu formatted without printf, %d differences\n", n, fast, failures);
	return failures != 0;
}

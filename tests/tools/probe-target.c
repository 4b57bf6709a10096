/*
 * The program tests/ftrace/test-probes.sh puts uprobes on: target() is
 * called 50 times with arguments that tests/tools/probe-check.py knows,
 * so that the recorded probe values can be checked one by one.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct rec {
	uint32_t a;
	int16_t b;
	uint8_t bytes[8];
	char name[16];
	double d;
};

__attribute__((noinline, used)) int target(const char *s, struct rec *r, long n, int neg)
{
	__asm__ volatile("" ::: "memory");
	return (int)(strlen(s) + r->a + (unsigned long)n + (unsigned)neg);
}

int main(void)
{
	struct rec r = {0, 0, {0, 2, 3, 250, 0, 255, 7, 8}, "", 3.5};
	int t = 0;
	for (int i = 0; i < 50; i++) {
		r.a = (uint32_t)i * 0x1000001u;
		r.b = (int16_t)(-i * 300);
		r.bytes[0] = (uint8_t)i;
		memset(r.name, 0, sizeof(r.name));
		if (i % 7)
			snprintf(r.name, sizeof(r.name), "n%d", i);
		t += target(i % 5 ? "a string with spaces\t\"quoted\"\\" : "", &r, (long)i - 25, -i);
	}
	printf("%d\n", t);
	return 0;
}

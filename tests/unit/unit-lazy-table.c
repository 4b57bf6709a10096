/*
 * trace.dat's kallsyms (megabytes) and printk formats are read on first use
 * (tio_trace_class_table), not copied at each open of the file: a decode
 * in parts opens the file once per part and before this kept a copy per
 * open that only the trace-cmd style, `info` and the trace.dat writer read.
 *
 * For a v6 file, a compressed v7 file (its section decompressed again when
 * asked) and a real recording with a 7 MB kallsyms: after opening, the
 * tables have their stored size and no text; the first lookup reads the
 * text (as long as the stored size up to its first NUL, starting with a
 * /proc/kallsyms line), a second one returns the same entry.  A missing
 * table stays NULL.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "traceio/error.h"
#include "traceio/trace.h"

#include "unit-check.h"

static void one(const char *path)
{
	tio_trace *t = unit_open_one(path);
	if (!t)
		return;
	tio_trace_class *tc = t->tc;
	const tio_kv *raw = NULL;
	for (uint32_t i = 0; i < tc->ntables; i++)
		if (!strcmp(tc->tables[i].key, "kallsyms"))
			raw = &tc->tables[i];
	CHECK(raw, "%s: no kallsyms table", path);
	if (!raw) {
		tio_trace_free(t);
		return;
	}
	CHECK(!raw->sval, "%s: kallsyms read on opening", path);
	CHECK(raw->ival > 0, "%s: kallsyms size %lld", path, (long long)raw->ival);
	const tio_kv *kv = tio_trace_class_table(tc, "kallsyms");
	CHECK(kv == raw, "%s: lookup gave another entry", path);
	if (kv && kv->sval) {
		size_t n = strlen(kv->sval);
		CHECK(n > 0 && n <= (size_t)kv->ival, "%s: %zu bytes of text, %lld stored", path, n,
		      (long long)kv->ival);
		CHECK(isxdigit((unsigned char)kv->sval[0]) && strchr(kv->sval, ' ') &&
			      strchr(kv->sval, '\n'),
		      "%s: not /proc/kallsyms text: %.40s", path, kv->sval);
		const char *first = kv->sval;
		CHECK(tio_trace_class_table(tc, "kallsyms") == kv && kv->sval == first,
		      "%s: read twice", path);
	} else {
		CHECK(0, "%s: kallsyms not read: %s", path, tio_error_message());
	}
	const tio_kv *pk = tio_trace_class_table(tc, "printk_formats");
	CHECK(!pk || pk->sval, "%s: printk_formats without text", path);
	CHECK(!tio_trace_class_table(tc, "no such table"), "%s: a missing table found", path);
	tio_trace_free(t);
}

int main(void)
{
	const char *top = getenv("TIO_TOP"), *sh = getenv("TIO_SHARED");
	char p[4096];
	snprintf(p, sizeof(p), "%s/tests/data/ftrace/funcs-v6.dat", top ? top : ".");
	one(p);
	snprintf(p, sizeof(p), "%s/tests/data/ftrace/v7-zstd-small.dat", top ? top : ".");
	one(p);
	snprintf(p, sizeof(p), "%s/peer-data/tracedat/samples/langraph-x86_64-v7-zstd.dat",
		 sh ? sh : "../shared");
	one(p);
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures != 0;
}

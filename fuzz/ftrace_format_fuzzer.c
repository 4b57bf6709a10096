/*
 * Fuzz target: one ftrace event `format` file, parsed by the trace.dat
 * reader (td_parse_format: fields to the model) and by the print fmt
 * parser (pf_event_parse), then a record printed with it (pf_print_info,
 * normal and raw).  Input: the format text, a NUL, the record bytes.
 * The record's last byte, when odd, makes the event an "ftrace" one, so
 * the built-in handlers of that system (function, func_repeats, raw_data,
 * kernel_stack) run too; it is printed twice (two CPUs, us and ns times)
 * so that the function plugin's stacks are used.
 */
#include <stdlib.h>
#include <string.h>

#include "ftrace/tracedat.h"
#include "fuzz.h"
#include "sink/printfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	const uint8_t *rec = nul ? nul + 1 : data + size;
	size_t rlen = size - tlen - (nul ? 1 : 0);
	char *text = malloc(tlen + 1);
	uint8_t *record = malloc(rlen ? rlen : 1);
	if (!text || !record)
		goto out;
	memcpy(text, data, tlen);
	text[tlen] = 0;
	memcpy(record, rec, rlen);

	td_file f;
	memset(&f, 0, sizeof(f));
	f.long_size = 8;
	f.page_size = 4096;
	f.path = "fuzz/format";
	tio_event_class *ec = NULL;
	tio_fc *common = NULL;
	if (!td_parse_format(&f, "fuzz", text, tlen, &ec, &common)) {
		td_ec_free_user(ec);
		tio_event_class_free(ec);
	}
	tio_fc_free(common);
	td_plan_free(&f.common);
	tio_err_clear();

	pf_ctx *c = pf_ctx_new(8, false);
	if (c) {
		pf_ctx_set_kallsyms(c, "ffffffff81000000 T _stext\nffffffff81001000 t do_one [mod]\n");
		pf_ctx_load_cmdlines(c, "1 init\n42 bash\n");
		const char *sys = rlen && (record[rlen - 1] & 1) ? "ftrace" : "fuzz";
		pf_event *e = pf_event_parse(c, sys, text, tlen);
		if (e) {
			tio_buf b = {0};
			pf_ctx_set_record(c, 0, 1234567890123ULL, false);
			pf_print_info(e, &b, record, (int)rlen, (int)rlen, false);
			tio_buf_reset(&b);
			pf_ctx_set_record(c, 1, 5, true);
			pf_print_info(e, &b, record, (int)rlen, (int)rlen, false);
			pf_print_info(e, &b, record, (int)rlen, (int)rlen, false);
			tio_buf_reset(&b);
			pf_print_info(e, &b, record, (int)rlen, (int)rlen, true);
			pf_record_pid(e, record, (int)rlen);
			tio_buf_free(&b);
			pf_event_free(e);
		}
		pf_ctx_free(c);
	}
out:
	free(text);
	free(record);
	return 0;
}

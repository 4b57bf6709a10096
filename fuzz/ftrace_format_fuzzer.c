/*
 * Fuzz target: one ftrace event `format` file, parsed by the trace.dat
 * reader (td_parse_format: fields to the model) and by the print fmt
 * parser (pf_event_parse), then a record printed with it (pf_print_info,
 * normal and raw, and its -l columns).  Input: the format text, a NUL,
 * the record bytes.
 * The record's last byte, when odd, makes the event an "ftrace" one, so
 * the built-in handlers of that system (function, func_repeats, raw_data,
 * kernel_stack) run too; it is printed twice (two CPUs, us and ns times)
 * so that the function plugin's stacks are used.  Otherwise the event's
 * system is the one its name has in the kernel when a built-in handler
 * exists for it (sched_switch: sched, kvm_exit: kvm...), else "fuzz".
 */
#include <stdlib.h>
#include <string.h>

#include "ftrace/tracedat.h"
#include "fuzz.h"
#include "sink/printfmt.h"

/* The system of the events the built-in plugin equivalents handle, by name. */
static const char *system_of(const char *text)
{
	static const struct {
		const char *name, *system;
	} sys[] = {
		{"sched_switch", "sched"}, {"sched_wakeup", "sched"}, {"sched_wakeup_new", "sched"},
		{"hrtimer_start", "timer"}, {"hrtimer_expire_entry", "timer"},
		{"sys_enter_futex", "syscalls"}, {"kfree", "kmem"}, {"kmalloc", "kmem"},
		{"kmalloc_node", "kmem"}, {"kmem_cache_alloc", "kmem"}, {"kmem_cache_alloc_node", "kmem"},
		{"kmem_cache_free", "kmem"}, {"tlb_flush", "tlb"}, {"kvm_exit", "kvm"}, {"kvm_entry", "kvm"},
		{"kvm_emulate_insn", "kvm"}, {"kvm_nested_vmexit", "kvm"}, {"kvm_nested_vmexit_inject", "kvm"},
		{"kvm_mmu_get_page", "kvmmmu"}, {"kvm_mmu_sync_page", "kvmmmu"},
		{"kvm_mmu_unsync_page", "kvmmmu"}, {"kvm_mmu_zap_page", "kvmmmu"},
		{"kvm_mmu_prepare_zap_page", "kvmmmu"},
	};
	const char *n = strstr(text, "name: ");
	if (!n)
		return "fuzz";
	n += 6;
	size_t len = strcspn(n, "\n");
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (strlen(sys[i].name) == len && !memcmp(n, sys[i].name, len))
			return sys[i].system;
	return "fuzz";
}

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
		const char *sys = rlen && (record[rlen - 1] & 1) ? "ftrace" : system_of(text);
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
			char lat[PF_LAT_MAX];
			pf_record_latency(e, record, (int)rlen, false, lat);
			pf_record_latency(e, record, (int)rlen, true, lat);
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

/*
 * The ftrace `print fmt` language, parsed and evaluated the way
 * libtraceevent 1.7 does it (its tokenizer, operator precedence quirks,
 * printk conversions, __print_flags/__print_symbolic/__print_hex/...,
 * binary printk, the raw field dump of `trace-cmd report -R`), over the
 * raw bytes of a record.  Each event's format text is parsed once and
 * cached by the caller; evaluation allocates nothing per event except
 * when a record needs it (bprint).
 *
 * It only needs the format text (tio_event_class attr "format"), the raw
 * record (tio_msg.raw) and the trace's side tables (kallsyms, printk
 * formats, saved cmdlines): nothing from src/ftrace.
 */
#ifndef TIO_SINK_PRINTFMT_H
#define TIO_SINK_PRINTFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"

typedef struct pf_ctx pf_ctx;
typedef struct pf_event pf_event;
typedef struct pf_fstack pf_fstack;

pf_ctx *pf_ctx_new(int long_size, bool big_endian);
void pf_ctx_free(pf_ctx *c);
/* Side tables (text as in /proc/kallsyms, printk_formats, saved_cmdlines); kallsyms
   is parsed on first use. */
void pf_ctx_set_kallsyms(pf_ctx *c, const char *text);
void pf_ctx_set_printk(pf_ctx *c, const char *text);
void pf_ctx_load_cmdlines(pf_ctx *c, const char *text);

/* comm of a pid as trace-cmd shows it ("<idle>" for 0, "<...>" when unknown). */
const char *pf_comm(pf_ctx *c, int pid);
/* The same with its length (cached per pid: the report's hot path). */
const char *pf_comm_len(pf_ctx *c, int pid, size_t *len);

/*
 * The record being printed: its CPU (-1: unknown), time (ns) and how the
 * report shows times (ns: as with `report -t`); the function plugin's
 * indentation and func_repeats' last_ts use them.
 */
void pf_ctx_set_record(pf_ctx *c, int cpu, uint64_t ts, bool ns);
/*
 * The function plugin's call stacks per CPU, which libtraceevent keeps in
 * one place for the whole process (every input of a report shares them).
 * A context has its own unless it is given one to share.
 */
pf_fstack *pf_fstack_new(void);
void pf_fstack_free(pf_fstack *fs);
void pf_ctx_set_fstack(pf_ctx *c, pf_fstack *fs);

/*
 * trace-cmd's function graph view: a funcgraph_entry record printed with
 * the record that follows it in its file, when that is its return (same
 * pid and function: one "func();" line with the duration, and the return
 * is not printed), else as a nested call "func() {" (re = NULL).
 */
bool pf_is_fgraph_entry(const pf_event *e);
bool pf_is_fgraph_exit(const pf_event *e);
void pf_fgraph_entry(pf_event *e, tio_buf *s, const uint8_t *data, int size, pf_event *re,
		     const uint8_t *rdata, int rsize);
/* A field's value (common fields included): 0, or -1 when it is missing or does not fit. */
int pf_field_val(pf_event *e, const char *name, const uint8_t *data, int size, unsigned long long *val);

/* Parse one event format file; NULL only when out of memory. */
pf_event *pf_event_parse(pf_ctx *c, const char *system, const char *text, size_t len);
void pf_event_free(pf_event *e);
const char *pf_event_name(const pf_event *e);

/* Common fields of a record (-1 when missing). */
int pf_record_pid(pf_event *e, const uint8_t *data, int size);

/*
 * trace-cmd report -l's latency columns of a record, from its common fields:
 * irqs off (d, X or .), need resched (N), hard/soft irq (h, s, H), the
 * preempt count's two nibbles in hex (. for 0), then an older kernel's
 * migrate-disable and lock depth when its events have them; with -R (raw),
 * "-0x" and the flags in hex.  Not NUL-terminated; returns the length.
 */
#define PF_LAT_MAX 48
size_t pf_record_latency(pf_event *e, const uint8_t *data, int size, bool raw, char out[PF_LAT_MAX]);

/* The info part of a report line (TEP_PRINT_INFO, or TEP_PRINT_INFO_RAW when raw). */
/* cap: bytes readable at data (>= size); libtraceevent reads fixed-size
   fields even when the record is shorter, so raw dumps show what follows. */
void pf_print_info(pf_event *e, tio_buf *s, const uint8_t *data, int size, int cap, bool raw);

#endif

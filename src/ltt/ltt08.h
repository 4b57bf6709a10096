/*
 * The 2008 LTTng layout of seed 000 ("The LTTng trace format", 2008/06/02):
 * a trace directory with cpu_N and control/NAME_N tracefiles of equal-size
 * blocks, each block a 40-byte start/end header, the 64-byte trace header,
 * then events with a (32 or 64-bit TSC, facility id, event id, size) header.
 * Shared by the reader (ltt08-read.c, format "lttng0-2008") and the writer
 * (ltt08-write.c, sink "lttng0").  docs/formats/ltt0x.md, "The 2008 layout",
 * lists every choice the seed leaves open; the offsets below are those.
 */
#ifndef TIO_LTT08_H
#define TIO_LTT08_H

#include "ltt/ltt0x.h"

#define L8_MAGIC 0x00D6B7EDu

/* block start/end header (block relative) */
#define L8_BEGIN_TSC 0
#define L8_BEGIN_FREQ 8
#define L8_END_TSC 16
#define L8_END_FREQ 24
#define L8_LOST_SIZE 32
#define L8_BUF_SIZE 36
/* trace header: every field aligned on its own size (C layout) */
#define L8_TH 40
#define L8_MAGIC_OFF 40
#define L8_ARCH_TYPE 44
#define L8_ARCH_VARIANT 48
#define L8_FLOAT_WORD_ORDER 52
#define L8_ARCH_SIZE 56
#define L8_MAJOR 57
#define L8_MINOR 58
#define L8_FLIGHT_RECORDER 59
#define L8_HAS_HEARTBEAT 60
#define L8_ALIGNMENT 61
#define L8_TSC_LSB_TRUNCATE 62
#define L8_TSCBITS 63
#define L8_COMPACT_DATA_SHIFT 64
#define L8_FREQ_SCALE 68
#define L8_START_FREQ 72
#define L8_START_TSC 80
#define L8_START_MONOTONIC 88
#define L8_START_SEC 96
#define L8_START_NSEC 100
#define L8_HDR 104 /* events start here */

#define L8_BLOCK_MIN 256u
#define L8_BLOCK_MAX (1u << 30)
#define L8_MAJOR_VERSION 1 /* what the writer writes; the reader takes 0 and 1 */
#define L8_MINOR_VERSION 0

/* the core facility (id 0), described by the reader itself */
#define L8_CORE_MARKER_ID 0
#define L8_CORE_MARKER_FORMAT 1
#define L8_CORE_HEARTBEAT 2
extern const char *const l8_core_names[3];
extern const char *const l8_core_formats[3];

/* padding before an object of `size` bytes at `at` when aligning on min(size, alignment) */
static inline uint32_t l8_pad(uint64_t at, uint32_t size, uint32_t alignment)
{
	return ltt0x_align(at, size, alignment);
}

#endif

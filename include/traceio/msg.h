/* traceio: the messages a trace produces (events, discarded records...). */
#ifndef TRACEIO_MSG_H
#define TRACEIO_MSG_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tio_msg tio_msg;

enum tio_msg_kind {
	TIO_MSG_KIND_EVENT = 0,
	TIO_MSG_KIND_DISCARDED_EVENTS,
	TIO_MSG_KIND_DISCARDED_PACKETS,
	TIO_MSG_KIND_PACKET_BEGIN,
	TIO_MSG_KIND_PACKET_END,
	TIO_MSG_KIND_STREAM_BEGIN,
	TIO_MSG_KIND_STREAM_END,
};

int tio_msg_kind(const tio_msg *m);

/* Answers of a skip-classes callback (tio_mux_set_skip_classes, tio_sink_skip_wants). */
enum { TIO_SKIP_NONE = 0, TIO_SKIP_WANT = 1, TIO_SKIP_ASK = 2 };
/* Event name, or NULL when the message is not an event. */
const char *tio_msg_event_name(const tio_msg *m);
/* Timestamp in ns from the clock origin; false when the message has none. */
bool tio_msg_time_ns(const tio_msg *m, int64_t *ns);

/*
 * Where the message comes from, for reports such as `traceio check`: the
 * path of its stream's (first) data file, NULL when unknown, and the byte
 * offset of the record in that file (0 when the reader does not say).
 */
const char *tio_msg_stream_path(const tio_msg *m);
uint64_t tio_msg_offset(const tio_msg *m);
/*
 * The message's stream: its number among its trace's streams (0 to
 * tio_index_info.streams - 1, the `i` of tio_trace_stream_index), the
 * same in every open of the trace.
 */
uint32_t tio_msg_stream_number(const tio_msg *m);

/*
 * An event its reader keeps in file order although it is earlier than an
 * event read before it from the same stream (LTTng 0.x: an event a few µs
 * out of order, see docs/formats/ltt0x.md): true, with how far before the
 * latest earlier event of its stream it is, in ns and clock cycles (either
 * pointer may be NULL).  Such an event is not an error; `traceio check`
 * lists it as a note.  False for every other message.
 */
bool tio_msg_out_of_order(const tio_msg *m, int64_t *ns_back, uint64_t *cycles_back);

#ifdef __cplusplus
}
#endif
#endif

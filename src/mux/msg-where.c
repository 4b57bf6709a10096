/* Public accessors saying where a message comes from (traceio/msg.h). */
#include "ir/ir.h"
#include "traceio/msg.h"

const char *tio_msg_stream_path(const tio_msg *m)
{
	if (!m->stream)
		return NULL;
	return m->stream->path ? m->stream->path : m->stream->name;
}

uint64_t tio_msg_offset(const tio_msg *m) { return m->offset; }

/* The LTTng 0.x reader is the only one that keeps events out of time order. */
bool tio_ltt0x_msg_back(const tio_msg *m, int64_t *ns_back, uint64_t *cycles_back);

bool tio_msg_out_of_order(const tio_msg *m, int64_t *ns_back, uint64_t *cycles_back)
{
	if (!m->stream || m->type != TIO_MSG_EVENT)
		return false;
	return tio_ltt0x_msg_back(m, ns_back, cycles_back);
}

uint32_t tio_msg_stream_number(const tio_msg *m) { return m->stream ? m->stream->index : 0; }

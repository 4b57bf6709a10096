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

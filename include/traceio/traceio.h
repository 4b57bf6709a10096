/*
 * traceio: read, print and convert trace files from Linux tracers
 * (CTF 1.8, CTF 2, trace.dat v6/v7, LTTng 0.x, the new LTT format).
 *
 * Simple use: tio_trace_open() each input, tio_mux_new() over them, then
 * tio_mux_next() and hand each message to a sink (tio_sink_new("babeltrace")).
 */
#ifndef TRACEIO_H
#define TRACEIO_H

#include "traceio/class.h"
#include "traceio/error.h"
#include "traceio/field.h"
#include "traceio/filter.h"
#include "traceio/msg.h"
#include "traceio/mux.h"
#include "traceio/sink.h"
#include "traceio/trace.h"

#define TRACEIO_VERSION "0.1.0"

#endif

/*
 * CTF internals shared by the metadata side (metadata.c, tsdl-*.c) and the
 * data side (ctf-reader.c, ctf-plan.c).  CTF 1.8.3: diamon.org/ctf/v1.8.3.
 */
#ifndef TIO_CTF_H
#define TIO_CTF_H

#include "ir/ir.h"

/*
 * Read the metadata stream of the trace directory `dir` (file "metadata"):
 * plain text (starts with "/ * CTF 1.8") or packetized (packets with magic
 * 0x75D11D57 in either byte order; each packet contributes its content
 * only).  *text is malloc'd and NUL-terminated.  `packetized` tells which
 * it was; `uuid` receives the packet header UUID when packetized.
 */
typedef struct tio_ctf_meta {
	char *text;
	size_t len;
	bool packetized;
	uint8_t byte_order; /* of the metadata packets */
	uint8_t uuid[16];
	bool has_uuid;
	int ctf_major;	    /* 1 for TSDL, 2 for CTF 2 JSON (RS-separated fragments) */
} tio_ctf_meta;

int tio_ctf_meta_load(const char *dir, tio_ctf_meta *out);
void tio_ctf_meta_free(tio_ctf_meta *m);

/*
 * Parse TSDL text into a trace class.  `name` is used in messages:
 * "NAME:LINE:COL: what went wrong".  On success every tio_ref in the
 * tree has its target resolved (a field class of the same tree), roles
 * are set on the well-known fields (see docs/formats/ctf.md), field names
 * are as babeltrace2 shows them (one leading '_' stripped), and every
 * stream class has its event classes sorted by id.
 */
int tio_tsdl_parse(const char *text, size_t len, const char *name, tio_trace_class **out);

/* The same from a CTF 2 metadata stream (JSON text sequence): ctf2-meta.c, docs/formats/ctf2.md. */
int tio_ctf2_parse(const char *text, size_t len, const char *name, tio_trace_class **out);

#endif

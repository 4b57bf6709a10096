/* Fuzz target: TSDL metadata text (CTF 1.8) to the model (tio_tsdl_parse). */
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the metadata loader hands the parser NUL-terminated text: do the same */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	tio_trace_class *tc = NULL;
	if (!tio_tsdl_parse(text, size, "fuzz/metadata", &tc))
		tio_trace_class_free(tc);
	tio_err_clear();
	free(text);
	return 0;
}

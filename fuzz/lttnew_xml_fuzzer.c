/*
 * Fuzz target: the new LTT format's XML event descriptions (lenient XML,
 * facilities, typerefs), each facility's canonical text, and every event
 * type mapped to the model for both architectures' word sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ltt/lttnew.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	lx_node *root = NULL;
	if (lx_parse(text, size, "fuzz.xml", &root)) {
		tio_err_clear();
		free(text);
		return 0;
	}
	for (uint32_t i = 0; i < root->nkids; i++) {
		if (strcmp(root->kids[i]->name, "facility"))
			continue;
		lt_facility *f = NULL;
		if (lt_facility_from_xml(root->kids[i], "fuzz.xml", &f)) {
			tio_err_clear();
			continue;
		}
		tio_buf b = {0};
		lt_facility_text(f, &b);
		tio_buf_free(&b);
		static const lt_arch archs[] = {{8, 4, false}, {4, 2, true}};
		for (uint32_t e = 0; e < f->nevents; e++) {
			for (size_t a = 0; a < 2; a++) {
				tio_fc *fc = NULL;
				if (f->events[e].t && !lt_type_fc(f->events[e].t, &archs[a], "fuzz.xml", &fc)) {
					lt_type *back = NULL;
					if (fc && !lt_type_from_fc(fc, "fuzz.xml", &back))
						lt_type_free(back);
					tio_fc_free(fc);
				}
				tio_err_clear();
			}
		}
		lt_facility_free(f);
	}
	lx_free(root);
	tio_err_clear();
	free(text);
	return 0;
}

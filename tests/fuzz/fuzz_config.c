// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the scenario loader, text in, resolved configuration
 * or an error out (issue #15).  Any input must give one or the other,
 * with no crash, no sanitizer finding and no leak; an error must name
 * the file.  docs/cli.md, "Fuzzing", has how to run it and what it found.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size);
	GError *err = NULL;
	struct qsim_config *cfg = cfg_load_text("fuzz.ini", text, NULL, &err);

	if (cfg) {
		cfg_free(cfg);
	} else if (!err || !strstr(err->message, "fuzz.ini")) {
		abort(); /* an error must exist and name the file */
	}
	if (err)
		g_error_free(err);
	g_free(text);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: --set overrides (issue #15).  Each input line is one
 * `section.key=value` applied to a fixed valid scenario; the result must
 * be a configuration or an error naming --set or the file, never a crash,
 * a sanitizer finding or a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char base[] = "[run]\nduration = 1ms\n"
			   "[machine]\npcpus = 4\n"
			   "[partition]\nvcpus = 8\n"
			   "[lock]\ntype = pv_qspinlock\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size);
	char **sets = g_strsplit(text, "\n", 16);
	GError *err = NULL;
	struct qsim_config *cfg = cfg_load_text("fuzz.ini", base, sets, &err);

	if (cfg) {
		cfg_free(cfg);
	} else if (!err || (!strstr(err->message, "--set") &&
			    !strstr(err->message, "fuzz.ini"))) {
		abort();
	}
	if (err)
		g_error_free(err);
	g_strfreev(sets);
	g_free(text);
	return 0;
}

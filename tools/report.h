/* SPDX-License-Identifier: MIT */
/*
 * The human-readable summary of one run, including the lkml locktest
 * lines, so results paste straight into a cover letter.
 */
#ifndef QSIM_TOOLS_REPORT_H
#define QSIM_TOOLS_REPORT_H

#include <stdio.h>

#include "tools/model.h"

void report_summary(FILE *out, const struct qsim_config *cfg,
		    const struct qsim_results *res);
/* The summary as JSON (json-glib): the run, every lock column, per-vCPU
 * acquisitions and time split, the pCPU split and the counters; @run_id
 * 0 when not stored.  A new string. */
char *report_json(const struct qsim_config *cfg, const struct qsim_results *res,
		  int64_t run_id, const char *db);
struct _JsonBuilder;
/* Member @name: @v, or null when it is not finite (JSON has no NaN). */
void report_json_real(struct _JsonBuilder *b, const char *name, double v);
/* The builder's one value as pretty-printed JSON (a new string). */
char *report_json_text(struct _JsonBuilder *b);
/* "1,234,567" */
char *report_thousands(int64_t v);

#endif

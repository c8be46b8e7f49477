/* SPDX-License-Identifier: MIT */
/*
 * `qsim report` and `qsim export`: stored runs as readable tables (with
 * the lkml locktest lines) and as CSV or JSON (json-glib).  Runs are
 * selected by id, by tag, by resolved key values, or the last N.
 * docs/cli.md.
 */
#ifndef QSIM_TOOLS_EXPORT_H
#define QSIM_TOOLS_EXPORT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct export_opts {
	const char *db;
	int64_t *ids; /* these runs, or by the selection below */
	unsigned int nids;
	char **tags, **wheres;
	unsigned int last;  /* 0: all (export) or 20 (report) */
	bool lkml;	    /* report: the locktest lines of each run */
	const char *format; /* export: csv or json */
	const char *table;  /* export csv: runs, locks, vcpus, params,
			       counters */
};

/* Exit code: 0, 1 bad input or no such run. */
int report_main(const struct export_opts *o, FILE *out, GError **error);
int export_main(const struct export_opts *o, FILE *out, GError **error);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * `qsim compare` and `qsim sweep`: variants over seeds, their figures from
 * the store, statistics and a verdict.
 *
 * A variant is a scenario file with overrides (run over the seeds, or
 * found in the store when this binary ran that resolved scenario before),
 * or a group of stored runs selected by tag or by resolved key values.
 * For each metric every variant gets its mean over runs and the 95%
 * interval of the mean (Student's t); compare sets each variant against
 * the first with Welch's t interval for the difference of the means: a
 * significant difference (the interval excludes 0) is `better` or
 * `worse` by the metric's direction, else `no significant difference`.
 * A sweep is the variants of a grid of key values, printed as one row
 * per point.  docs/cli.md.
 */
#ifndef QSIM_TOOLS_COMPARE_H
#define QSIM_TOOLS_COMPARE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct compare_opts {
	const char *db;	    /* the store (results.db) */
	char **files;	    /* scenario files, one variant each */
	char **vary;	    /* KEY=V1,V2: a variant per value (crossed) */
	char **grid;	    /* sweep: KEY=V1,V2 or KEY=LO..HI:STEP */
	char **sets;	    /* overrides for every fresh variant */
	char **tags;	    /* stored groups by tag (--tagged) */
	char **wheres;	    /* stored groups: "sec.key=value;..." */
	char **metrics;	    /* the metrics shown (NULL: the defaults) */
	char **fail_if;	    /* METRIC:worse[:PCT] */
	const char *json;   /* also write JSON here ("-": stdout) */
	const char *csv;    /* also write CSV here ("-": stdout) */
	const char *tag;    /* runs.tag of the runs made */
	const char *emit;   /* sweep: write job files here, run nothing */
	unsigned int seeds; /* per fresh variant */
	uint64_t first_seed;
	unsigned int jobs; /* 0: the host's cores */
	bool sweep;
	bool progress_tty; /* draw the progress bar in place */
};

/* Exit code (docs/cli.md): 0, 1 bad input, 2 a --fail-if held or a run
 * ended in a violation, 3 the store failed, 128 + signal if stopped. */
int compare_main(const struct compare_opts *o, FILE *out);

/* Expand one grid spec into its values; false with @error if malformed. */
bool compare_grid_values(const char *spec, char **key, GPtrArray *values,
			 GError **error);

/* A metric's query (?1: a run id) and unit; NULL if there is none. */
const char *compare_metric_sql(const char *name, const char **unit);
/* "throughput, work, ...": every metric (a new string). */
char *compare_metric_names(void);
/* Append to @cond (a condition on runs r) the runs with tag @tag, or with
 * the resolved values of @where ("sec.key=value;..."), binding @binds. */
bool compare_where_sql(const char *tag, const char *where, GString *cond,
		       GPtrArray *binds, GError **error);
/* Rewrite @cond (non-empty) so that of the runs it selects, copies of one
 * result (the same parameters and binary: imported twice, or run again
 * with --no-reuse) count once, the oldest: the simulator is
 * deterministic, so a copy is no new sample. */
void compare_distinct_sql(GString *cond);

#endif

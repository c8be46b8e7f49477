/* SPDX-License-Identifier: MIT */
/*
 * qsim validate: simulated against published figures.
 *
 * Each file in scenarios/validation/ is one published result: a base
 * scenario (the ordinary sections), a [validate] section naming the case
 * and its source, one [variant NAME] section per configuration measured
 * (a list of section.key=value overrides of the base), and one
 * [figure NAME] section per published figure:
 *
 *   what       ratio  metric(of) / metric(to)
 *              value  metric(of)
 *              min    metric(of), or metric(of) / metric(to) when `to`
 *                     is given, must be at least `published`
 *              max    the same, at most `published`
 *   metric     throughput, spread (per-vCPU acquisitions max/min), jain,
 *              spin_share (spin / dispatched time), lat_p99_ns, ...
 *   published  the figure as published
 *   tolerance  allowed factor either way (log distance); default 1.5
 *
 * Every variant runs over the seeds 1..N in parallel over the host's
 * cores; a figure uses the median over seeds of each variant's metric.
 * A ratio or value passes when simulated / published is within the
 * tolerance either way and, for a ratio, it lies on the same side of 1
 * as the published one (the ordering holds).  docs/validation.md.
 */
#ifndef QSIM_TOOLS_VALIDATE_H
#define QSIM_TOOLS_VALIDATE_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

struct validate_opts {
	const char *dir;     /* scenarios/validation */
	char **names;	     /* cases to run (name or file stem), or NULL */
	unsigned int seeds;  /* 0: each case's own */
	unsigned int jobs;   /* 0: host cores */
	bool list;	     /* list the cases only */
	const char *md_path; /* also write the table as Markdown */
};

struct validate_result {
	unsigned int cases, figures, passed;
};

/* Run; prints the table to @out.  False on bad input (@error set). */
bool validate_main(const struct validate_opts *o, struct validate_result *res,
		   FILE *out, GError **error);

/*
 * The scenario of validation case @path with its variant @variant applied
 * (NULL: the base alone), for `qsim run FILE --variant NAME`: the scenario
 * text in *@text and the variant's overrides, NULL-terminated, in *@sets
 * (g_strfreev).  False if @path is not a case or has no such variant.
 */
bool validate_case_scenario(const char *path, const char *variant, char **text,
			    char ***sets, GError **error);

/* Whether @path is a validation case (has a [validate] section). */
bool validate_is_case(const char *path);

#endif

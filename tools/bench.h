/* SPDX-License-Identifier: MIT */
/*
 * qsim bench: the fixed benchmark scenarios, their figures, the scaling
 * tables and the targets (docs/performance.md).  A command, never a test.
 */
#ifndef QSIM_TOOLS_BENCH_H
#define QSIM_TOOLS_BENCH_H

#include <stdbool.h>
#include <stdio.h>

struct bench_opts {
	bool quick;	  /* shorter simulated durations */
	const char *json; /* write the table here too, or NULL */
	const char *only; /* run only scenarios whose name has this */
};

int bench_main(const struct bench_opts *o, FILE *out);

#endif

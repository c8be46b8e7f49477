/* SPDX-License-Identifier: MIT */
/*
 * qsim bench: the fixed benchmark scenarios, their figures, the scaling
 * tables and the targets (docs/performance.md).  A command, never a test.
 */
#ifndef QSIM_TOOLS_BENCH_H
#define QSIM_TOOLS_BENCH_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct bench_opts {
	bool quick;	     /* shorter simulated durations */
	const char *json;    /* write the table here too, or NULL */
	const char *only;    /* run only scenarios whose name has this */
	unsigned int repeat; /* runs per scenario, the fastest counts (>= 1) */
	const char *compare; /* an earlier --json file to compare with */
};

int bench_main(const struct bench_opts *o, FILE *out);

/* One scenario's figures as the JSON file holds them. */
struct bench_row {
	char name[64];
	double sim_s, host_s;
	uint64_t events, acquisitions;
};

/*
 * Read the scenarios of a file `qsim bench --json` wrote into @rows
 * (of struct bench_row).  False with @err set (naming the file, and the
 * line of a malformed scenario) when it cannot.
 */
bool bench_read_json(const char *path, GArray *rows, GError **err);

/*
 * The comparison table: every scenario of @now also in @before, with the
 * host seconds per simulated second of each and their ratio, and whether
 * the simulation itself is the same (equal simulated time, events and
 * acquisitions); then the geometric mean of the ratios.
 */
void bench_print_compare(FILE *out, const GArray *before, const GArray *now);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * qsim torture: many short seeded scenarios under the adversarial
 * dispatcher, run in parallel, stopping at the first violation with a
 * replayable scenario file, its replay command and a trace.
 * docs/torture.md.
 */
#ifndef QSIM_TOOLS_TORTURE_H
#define QSIM_TOOLS_TORTURE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct torture_opts {
	const char *lock;    /* NULL: pv_qspinlock */
	const char *mapping; /* NULL: a random mapping per seed */
	const char *mutant;  /* NULL: the unmutated lock */
	const char *memory;  /* machine.memory, NULL: sc */
	uint64_t first_seed;
	uint64_t seeds; /* 0: run for host_seconds instead */
	double host_seconds;
	unsigned int jobs;
	bool keep_going;
	const char *out_dir;
	bool quiet;
	FILE *progress; /* seeds done, failures and ETA here (or NULL) */
	bool tty;	/* a line redrawn in place, else one every 10 s */
};

/* One failing seed: its violation and the scenario that replays it. */
struct torture_failure {
	uint64_t seed;
	char *violation;
	char *scenario; /* torture_scenario(seed) */
};

struct torture_result {
	/* from first_seed, the seeds that all ran: up to the first failure
	 * without --keep-going, the prefix that ran when interrupted */
	uint64_t seeds_run;
	uint64_t failures;
	uint64_t first_failing_seed; /* valid when failures > 0 */
	char *first_violation;	     /* its one-line description */
	char *replay;		     /* its replay command */
	double host_seconds;
	double sim_seconds;
	uint64_t events;
	GArray *failed; /* struct torture_failure, by seed */
	bool interrupted;
	/* Every seed from first_seed up to this one (excluded) ran to its
	 * end: an interrupted torture goes on from here. */
	uint64_t next_seed;
};

/* The lock tortured: --lock, a mutant's, or pv_qspinlock. */
const char *torture_lock(const struct torture_opts *o);
/* The scenario text torture generates for @seed (deterministic). */
char *torture_scenario(const struct torture_opts *o, uint64_t seed);
/* Run; prints progress and the summary to @out.  False on bad options. */
bool torture_run(const struct torture_opts *o, struct torture_result *res,
		 FILE *out, GError **error);
void torture_result_clear(struct torture_result *res);

#endif

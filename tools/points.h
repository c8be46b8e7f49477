/* SPDX-License-Identifier: MIT */
/*
 * Many runs at once, for `qsim compare` and `qsim sweep`: a point is one
 * resolved scenario (a variant and a seed).  A point whose identity (the
 * SHA-256 of its resolved parameters and of this binary) is already in the
 * store is not run again; the others run in parallel over the host's
 * cores, each stored in its own transaction as it finishes, with a
 * progress line and an ETA.  SIGINT or SIGTERM stops the runs in flight
 * without storing them; finished points stay stored.
 */
#ifndef QSIM_TOOLS_POINTS_H
#define QSIM_TOOLS_POINTS_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

#include "tools/config.h"
#include "tools/store.h"

struct point {
	unsigned int variant; /* index into the caller's variants */
	struct qsim_config *cfg;
	int64_t run_id; /* 0 until found or stored */
	bool reused;	/* found in the store, not run */
	bool violation; /* the run ended in a model violation */
};

struct points_opts {
	struct store *st;
	unsigned int jobs; /* 0: the host's cores */
	const char *what;  /* "qsim sweep": the prefix of its messages */
	FILE *progress;	   /* where progress goes (stderr) */
	bool tty;	   /* a bar redrawn in place, else a line each 10 s */
};

struct points_result {
	unsigned int reused, ran, violations;
	bool interrupted; /* by a signal: some points have no run */
};

void point_free(gpointer p);

/* Set run_id (and reused) of every point already stored. */
bool points_lookup(struct store *st, GPtrArray *points, GError **error);

/* Run and store every point without a run; false if storing failed. */
bool points_run(GPtrArray *points, const struct points_opts *o,
		struct points_result *res, GError **error);

#endif

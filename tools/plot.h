/* SPDX-License-Identifier: MIT */
/*
 * `qsim plot`: figures from the store, drawn by gnuplot (PNG through its
 * pngcairo terminal, or SVG, by the output's extension).
 *
 *   sweep     a metric against a swept key, one line per value of
 *             another key (--by), the mean over runs with its 95%
 *             interval (Student's t) as error bars
 *   cdf       the acquisition-latency CDF of each run given (--run),
 *             from its stored histogram
 *   fairness  per-vCPU acquisitions of one run, as bars
 *
 * The gnuplot script, with its data inline, is kept beside the figure
 * (OUT.gp) to be edited and drawn again.  docs/cli.md.
 */
#ifndef QSIM_TOOLS_PLOT_H
#define QSIM_TOOLS_PLOT_H

#include <glib.h>
#include <stdint.h>

struct plot_opts {
	const char *kind; /* sweep, cdf, fairness */
	const char *db;
	const char *out;
	const char *x, *by;    /* sweep: section.key of x and of the lines */
	const char *metric;    /* sweep: default throughput */
	char **tags, **wheres; /* sweep: which runs (default: all) */
	int64_t *runs;	       /* cdf, fairness */
	unsigned int nruns;
	const char *title; /* default: made from the rest */
};

/* Exit code: 0, 1 bad input or nothing to plot, 3 gnuplot failed. */
int plot_main(const struct plot_opts *o, GError **error);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Statistics over seeds for `qsim compare` and `qsim sweep`: the mean of a
 * sample and its 95% confidence interval from Student's t, and Welch's
 * unequal-variance t interval for the difference of two means.
 */
#ifndef QSIM_TOOLS_STATS_H
#define QSIM_TOOLS_STATS_H

#include <stdbool.h>

struct stats_sample {
	unsigned int n;
	double mean, sd; /* sd: sample standard deviation (n - 1) */
	double ci;	 /* half-width of the 95% interval of the mean; NAN
			  * for n < 2 */
};

void stats_sample(const double *x, unsigned int n, struct stats_sample *s);

/* The p quantile (0 < p < 1) of Student's t with @df > 0 degrees of
 * freedom (not necessarily whole). */
double stats_t_quantile(double p, double df);

/* Student's t cumulative distribution at @t with @df degrees of freedom. */
double stats_t_cdf(double t, double df);

struct stats_diff {
	double diff;	  /* b.mean - a.mean */
	double df;	  /* Welch-Satterthwaite degrees of freedom */
	double lo, hi;	  /* 95% interval of the difference */
	bool significant; /* the interval excludes 0 */
	bool defined;	  /* both samples have n >= 2 */
};

/* Welch's t interval for b.mean - a.mean. */
void stats_welch(const struct stats_sample *a, const struct stats_sample *b,
		 struct stats_diff *d);

#endif

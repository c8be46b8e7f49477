/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram of picosecond durations: 16 linear sub-buckets per
 * power of two, so any recorded value is reported within 6.25% (values
 * under 16 ps exactly).  Count, sum and the exact min/max are kept too.
 */
#ifndef QSIM_SIM_HIST_H
#define QSIM_SIM_HIST_H

#include "sim/types.h"

#define SIM_HIST_SUB_BITS 4
#define SIM_HIST_SUB	  (1u << SIM_HIST_SUB_BITS)
#define SIM_HIST_NBUCKETS (64u * SIM_HIST_SUB)

struct sim_hist {
	uint64_t count;
	uint64_t sum_ps_lo; /* 128-bit sum: hi:lo */
	uint64_t sum_ps_hi;
	sim_time_t min_ps, max_ps;
	uint64_t *buckets; /* SIM_HIST_NBUCKETS, allocated on first record */
};

void sim_hist_init(struct sim_hist *h);
void sim_hist_free(struct sim_hist *h);
void sim_hist_reset(struct sim_hist *h);
void sim_hist_record(struct sim_hist *h, sim_time_t v);
/* Value at quantile q in [0,1]: the upper bound of the bucket, capped by max. */
sim_time_t sim_hist_quantile(const struct sim_hist *h, double q);
double sim_hist_mean(const struct sim_hist *h);
unsigned int sim_hist_bucket_of(sim_time_t v);
sim_time_t sim_hist_bucket_lo(unsigned int b);
sim_time_t sim_hist_bucket_hi(unsigned int b); /* inclusive */

#endif

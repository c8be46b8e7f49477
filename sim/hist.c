// SPDX-License-Identifier: MIT
/*
 * Log-linear histogram; see hist.h.  Bucket b = e * 16 + s holds, for
 * e = 0, the values s (exact), and for e >= 1 the values whose top bit is
 * bit (e + 3) and whose next four bits are s.
 */
#include <glib.h>
#include <math.h>

#include "sim/hist.h"

void sim_hist_init(struct sim_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ps = SIM_TIME_NEVER;
}

void sim_hist_free(struct sim_hist *h)
{
	g_free(h->buckets);
	h->buckets = NULL;
}

void sim_hist_reset(struct sim_hist *h)
{
	uint64_t *b = h->buckets;

	if (b)
		memset(b, 0, SIM_HIST_NBUCKETS * sizeof(*b));
	sim_hist_init(h);
	h->buckets = b;
}

unsigned int sim_hist_bucket_of(sim_time_t v)
{
	unsigned int top, e;

	if (v < SIM_HIST_SUB)
		return (unsigned int)v;
	top = 63u - (unsigned int)__builtin_clzll(v);
	e = top - SIM_HIST_SUB_BITS + 1;
	return e * SIM_HIST_SUB +
	       (unsigned int)((v >> (top - SIM_HIST_SUB_BITS)) &
			      (SIM_HIST_SUB - 1));
}

sim_time_t sim_hist_bucket_lo(unsigned int b)
{
	unsigned int e = b / SIM_HIST_SUB, s = b % SIM_HIST_SUB;

	if (e == 0)
		return s;
	return (sim_time_t)(SIM_HIST_SUB + s) << (e - 1);
}

sim_time_t sim_hist_bucket_hi(unsigned int b)
{
	unsigned int e = b / SIM_HIST_SUB;

	if (e == 0)
		return b;
	return sim_hist_bucket_lo(b) + ((sim_time_t)1 << (e - 1)) - 1;
}

void sim_hist_record(struct sim_hist *h, sim_time_t v)
{
	uint64_t lo;

	if (!h->buckets)
		h->buckets = g_new0(uint64_t, SIM_HIST_NBUCKETS);
	h->buckets[sim_hist_bucket_of(v)]++;
	h->count++;
	lo = h->sum_ps_lo + v;
	h->sum_ps_hi += lo < h->sum_ps_lo;
	h->sum_ps_lo = lo;
	if (v < h->min_ps)
		h->min_ps = v;
	if (v > h->max_ps)
		h->max_ps = v;
}

sim_time_t sim_hist_quantile(const struct sim_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (unsigned int b = 0; b < SIM_HIST_NBUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank)
			return SIM_MIN(sim_hist_bucket_hi(b), h->max_ps);
	}
	return h->max_ps;
}

double sim_hist_mean(const struct sim_hist *h)
{
	if (!h->count)
		return 0.0;
	return ((double)h->sum_ps_hi * 18446744073709551616.0 +
		(double)h->sum_ps_lo) /
	       (double)h->count;
}

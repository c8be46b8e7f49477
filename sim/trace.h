/* SPDX-License-Identifier: MIT */
/*
 * The event trace: a ring of the most recent model events (dispatches,
 * hcalls, lock requests, acquisitions and releases, shim points), always
 * on, so a violation report can show what led up to it.  Records carry a
 * static description string and two integers; printing them needs no
 * knowledge of the layers that wrote them.
 */
#ifndef QSIM_SIM_TRACE_H
#define QSIM_SIM_TRACE_H

#include <glib.h>

#include "sim/types.h"

struct sim_trace_rec {
	sim_time_t t;
	int32_t cpu;	  /* -1: not a vCPU's event */
	const char *what; /* static printf format of a and b (int64_t) */
	int64_t a, b;
};

struct sim_trace {
	struct sim_trace_rec *ring;
	uint32_t cap; /* a power of two, or 0 = off */
	uint64_t n;   /* records ever written */
	/* Each vCPU's own last records too, so a report can show what one
	 * did when it went to sleep, however long ago (NULL: none). */
	struct sim_trace_rec *cpu_ring;
	uint32_t cpu_cap; /* per cpu, a power of two */
	uint32_t ncpus;
	uint64_t *cpu_n;
};

void sim_trace_init(struct sim_trace *tr, uint32_t cap);
void sim_trace_free(struct sim_trace *tr);
/* Keep each of @ncpus cpus' last @cap records as well (after init). */
void sim_trace_init_cpus(struct sim_trace *tr, uint32_t ncpus, uint32_t cap);

static inline void sim_trace_add(struct sim_trace *tr, sim_time_t t,
				 int32_t cpu, const char *what, int64_t a,
				 int64_t b)
{
	struct sim_trace_rec *r;

	if (!tr->cap)
		return;
	r = &tr->ring[tr->n++ & (tr->cap - 1)];
	r->t = t;
	r->cpu = cpu;
	r->what = what;
	r->a = a;
	r->b = b;
	if (tr->cpu_ring && cpu >= 0 && (uint32_t)cpu < tr->ncpus)
		tr->cpu_ring[(uint64_t)cpu * tr->cpu_cap +
			     (tr->cpu_n[cpu]++ & (tr->cpu_cap - 1))] = *r;
}

/* Append the last @max records (oldest first) to @out, one per line. */
void sim_trace_dump(const struct sim_trace *tr, uint32_t max, GString *out);
/* The same for cpu @cpu's own records; how many it wrote. */
uint32_t sim_trace_dump_cpu(const struct sim_trace *tr, uint32_t cpu,
			    uint32_t max, GString *out);

#endif

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
};

void sim_trace_init(struct sim_trace *tr, uint32_t cap);
void sim_trace_free(struct sim_trace *tr);

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
}

/* Append the last @max records (oldest first) to @out, one per line. */
void sim_trace_dump(const struct sim_trace *tr, uint32_t max, GString *out);

#endif

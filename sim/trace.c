// SPDX-License-Identifier: MIT
/*
 * The event trace ring; see trace.h.
 */
#include "sim/trace.h"

void sim_trace_init(struct sim_trace *tr, uint32_t cap)
{
	uint32_t c = 1;

	tr->n = 0;
	if (!cap) {
		tr->cap = 0;
		tr->ring = NULL;
		return;
	}
	while (c < cap)
		c <<= 1;
	tr->cap = c;
	tr->ring = g_new0(struct sim_trace_rec, c);
}

void sim_trace_free(struct sim_trace *tr)
{
	g_free(tr->ring);
	g_free(tr->cpu_ring);
	g_free(tr->cpu_n);
	tr->ring = NULL;
	tr->cpu_ring = NULL;
	tr->cpu_n = NULL;
	tr->cap = 0;
	tr->ncpus = 0;
}

void sim_trace_init_cpus(struct sim_trace *tr, uint32_t ncpus, uint32_t cap)
{
	uint32_t c = 1;

	while (c < cap)
		c <<= 1;
	g_free(tr->cpu_ring);
	g_free(tr->cpu_n);
	tr->ncpus = ncpus;
	tr->cpu_cap = c;
	tr->cpu_ring = g_new0(struct sim_trace_rec, (gsize)ncpus * c);
	tr->cpu_n = g_new0(uint64_t, ncpus);
}

static void dump_rec(const struct sim_trace_rec *r, GString *out)
{
	g_string_append_printf(out, "  %14.6f us  ",
			       (double)r->t / (double)SIM_US);
	if (r->cpu >= 0)
		g_string_append_printf(out, "vCPU %-4d ", r->cpu);
	else
		g_string_append(out, "          ");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	/* @what is a static format taking the two integers. */
	g_string_append_printf(out, r->what, r->a, r->b);
#pragma GCC diagnostic pop
	g_string_append_c(out, '\n');
}

uint32_t sim_trace_dump_cpu(const struct sim_trace *tr, uint32_t cpu,
			    uint32_t max, GString *out)
{
	uint64_t n, have, from;

	if (!tr->cpu_ring || cpu >= tr->ncpus)
		return 0;
	n = tr->cpu_n[cpu];
	have = SIM_MIN(SIM_MIN(n, (uint64_t)tr->cpu_cap), (uint64_t)max);
	from = n - have;
	for (uint64_t i = from; i < n; i++)
		dump_rec(&tr->cpu_ring[(uint64_t)cpu * tr->cpu_cap +
				       (i & (tr->cpu_cap - 1))],
			 out);
	return (uint32_t)have;
}

void sim_trace_dump(const struct sim_trace *tr, uint32_t max, GString *out)
{
	uint64_t have = tr->n < tr->cap ? tr->n : tr->cap;
	uint64_t from;

	if (max < have)
		have = max;
	from = tr->n - have;
	for (uint64_t i = from; i < tr->n; i++)
		dump_rec(&tr->ring[i & (tr->cap - 1)], out);
}

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
	tr->ring = NULL;
	tr->cap = 0;
}

void sim_trace_dump(const struct sim_trace *tr, uint32_t max, GString *out)
{
	uint64_t have = tr->n < tr->cap ? tr->n : tr->cap;
	uint64_t from;

	if (max < have)
		have = max;
	from = tr->n - have;
	for (uint64_t i = from; i < tr->n; i++) {
		const struct sim_trace_rec *r = &tr->ring[i & (tr->cap - 1)];

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
}

/* SPDX-License-Identifier: MIT */
/*
 * `qsim trace`: a run's timeline as Chrome trace-event JSON, which the
 * Perfetto UI (ui.perfetto.dev) and chrome://tracing open.  A track per
 * pCPU (the vCPU it runs, dispatch latencies), a track per vCPU (lock wait
 * and hold slices, hcalls, preempted and asleep intervals), flow arrows
 * from a prod or kick to the wakee's next dispatch, and counters (vCPUs
 * running, waiters per lock), over a window of simulated time.  The run
 * is simulated again (deterministic: the same run), up to the window's
 * end only.  docs/cli.md.
 */
#ifndef QSIM_TOOLS_TRACE_H
#define QSIM_TOOLS_TRACE_H

#include <glib.h>
#include <stdio.h>

#include "tools/config.h"

struct trace_opts {
	sim_time_t from_ps, to_ps; /* the window; to_ps 0: from + 1 ms */
	bool from_set;		   /* else from the end of the warm-up */
	const char *out;	   /* the JSON file ("-": stdout) */
};

struct trace_result {
	uint64_t events; /* trace events written */
	sim_time_t from_ps, to_ps;
	sim_time_t limit_ps; /* the latest --to: the end of the drain */
	/* The run stopped at a model violation (WL_OK: it did not): when,
	 * and its message (the caller frees it). */
	enum wl_violation status;
	sim_time_t violation_ps;
	char *violation;
};

/* Trace @cfg's run into o->out; false with @error if it cannot. */
bool trace_run(const struct qsim_config *cfg, const struct trace_opts *o,
	       struct trace_result *res, GError **error);

#endif

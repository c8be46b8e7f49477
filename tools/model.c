// SPDX-License-Identifier: MIT
/*
 * Wiring one run together; see model.h.
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "tools/model.h"
#include "locks/lock.h"
#include "sim/mm.h"
#include "sim/observe.h"

struct run {
	const struct qsim_config *cfg;
	struct sim sim;
	struct hv hv;
	struct wl wl;
	/* Noise partitions running the lock workload (noise.locktest). */
	struct wl *noise_wl;
	unsigned int n_noise_wl;
	struct wl_lock_iface iface;
	struct sim_event warmup;
	GPtrArray *obs; /* struct obs *: one per partition with locks */
};

_Static_assert(SIM_POINT_CS == HV_PT_critical_section,
	       "the workload's point is the hypervisor's critical_section");

static void coroutine_fn point_hook(void *data, struct sim_cpu *c, int point)
{
	(void)data;
	hv_point(c->owner, (enum hv_point)point);
}

/* A noise vCPU: computes for ever, in 1 ms steps. */
static void coroutine_fn hog_main(struct sim_cpu *c, void *arg)
{
	(void)arg;
	for (;;)
		sim_cpu_work(c, SIM_MS);
}

/* The guest's idle loop (workload.think_idle). */
static void coroutine_fn guest_idle(struct sim_cpu *c, sim_time_t d)
{
	hv_idle(c->owner, d);
}

static void warmup_ev(struct sim_event *ev)
{
	struct run *r = ev->data;
	sim_time_t t = ev->time_ps;

	wl_reset_stats(&r->wl, t);
	for (unsigned int n = 0; n < r->n_noise_wl; n++)
		if (r->noise_wl[n].nvcpus) /* else a hog partition */
			wl_reset_stats(&r->noise_wl[n], t);
	hv_reset_stats(&r->hv, t);
	r->sim.line_waits = 0;
	for (unsigned int i = 0; i < r->sim.ncpus; i++) {
		struct sim_cpu *c = r->sim.cpus[i];

		sim_cpu_flush_acct(c, t);
		memset(c->acct_ps, 0, sizeof(c->acct_ps));
		memset(c->counters, 0, sizeof(c->counters));
		sim_rspin_reset_stats(c, t);
		c->wakeups = 0;
		c->resv_lost = 0;
		c->irqs = 0;
		c->irq_ps = 0;
		c->ipis = 0;
	}
}

const char *qsim_status_text(enum wl_violation v)
{
	return v == WL_OK ? "ok" : "violation";
}

const char *qsim_violation_kind(enum wl_violation v)
{
	return v == WL_OK ? NULL : wl_violation_name(v);
}

char *qsim_shell_word(const char *path)
{
	bool plain = *path != '\0';

	for (const char *c = path; *c; c++)
		if (!g_ascii_isalnum(*c) && !strchr("_./:=,+@%-", *c))
			plain = false;
	return plain ? g_strdup(path) : g_shell_quote(path);
}

char *qsim_replay_command(const struct qsim_config *cfg)
{
	GString *s = g_string_new("qsim run ");
	g_autofree char *word = qsim_shell_word(cfg->path);

	/* The line must be safe to paste. */
	g_string_append(s, word);
	g_string_append_printf(s, " --seed %" PRIu64, cfg->seed);
	for (char **o = cfg->overrides; o && *o; o++) {
		g_autofree char *q = NULL;

		if (g_str_has_prefix(*o, "run.seed="))
			continue;
		q = g_shell_quote(*o);
		g_string_append_printf(s, " --set %s", q);
	}
	if (strcmp(cfg->path, "-") == 0) /* the text came on stdin */
		g_string_append(s, " < SCENARIO  # SCENARIO: this run's "
				   "runs.scenario_text");
	return g_string_free(s, FALSE);
}

static const char *hv_state_name(enum hv_vcpu_state s)
{
	switch (s) {
	case HV_RUNNABLE:
		return "preempted (runnable)";
	case HV_DISPATCHING:
		return "being dispatched";
	case HV_RUNNING:
		return "running";
	case HV_CEDED:
		return "ceded";
	case HV_WAKING:
		return "waking (prodded)";
	}
	return "?";
}

static char *violation_report(struct run *r)
{
	GString *s = g_string_new(NULL);
	char buf[32];

	g_string_append_printf(
		s, "VIOLATION (%s) at %s: %s\n",
		wl_violation_name(r->wl.violation),
		sim_format_time(r->wl.violation_ps, buf, sizeof(buf)),
		r->wl.violation_msg);
	g_string_append(s, "locks:\n");
	wl_describe_locks(&r->wl, s);
	g_string_append(s, "vCPUs of the guest under test:\n");
	for (unsigned int i = 0; i < r->cfg->vcpus; i++) {
		struct hv_vcpu *v = r->hv.vcpus[i];
		struct wl_vcpu *w = &r->wl.vcpus[i];

		g_string_append_printf(s, "  vCPU %u: %s, yield_count %u%s", i,
				       hv_state_name(v->state),
				       v->lppaca->yield_count,
				       v->prod_latch ? ", prod latched" : "");
		if (v->pcpu)
			g_string_append_printf(s, " on pCPU %u", v->pcpu->id);
		if (w->holding)
			g_string_append_printf(s, ", holds lock %u",
					       w->holding->idx);
		if (w->waiting)
			g_string_append_printf(
				s, ", waits for lock %u since %s",
				w->waiting->idx,
				sim_format_time(w->req_ps, buf, sizeof(buf)));
		g_string_append_c(s, '\n');
	}
	/* What each vCPU involved (waiting or holding) did last: for one
	 * that went to sleep, the events up to its sleep, however long ago
	 * (issue #16: diagnosis). */
	for (unsigned int i = 0, shown = 0; i < r->cfg->vcpus && shown < 8;
	     i++) {
		struct wl_vcpu *w = &r->wl.vcpus[i];

		if (!w->holding && !w->waiting)
			continue;
		g_string_append_printf(s, "vCPU %u's last events:\n", i);
		if (!sim_trace_dump_cpu(&r->sim.trace, i, 16, s))
			g_string_append(s, "  (none kept)\n");
		shown++;
	}
	if (r->sim.trace.cap) {
		g_string_append(s, "last events:\n");
		sim_trace_dump(&r->sim.trace, 40, s);
	}
	return g_string_free(s, FALSE);
}

static double ns(sim_time_t ps)
{
	return (double)ps / 1000.0;
}

static void counter_add(GArray *a, const char *name, uint64_t v)
{
	struct qsim_counter c = {name, v};

	g_array_append_val(a, c);
}

static void collect(struct run *r, struct qsim_results *res, sim_time_t end)
{
	const struct qsim_config *cfg = r->cfg;
	double secs;
	sim_time_t fin;
	sim_time_t begin = SIM_MIN(cfg->warmup_ps, end);
	double acq_sum = 0, acq_sq = 0;
	double pcpu_time;
	sim_time_t split[SIM_ACCT_NR] = {0};
	struct hv_vcpu_stats tot = {0};

	res->measured_ps = end - begin;
	secs = (double)res->measured_ps / (double)SIM_S;
	res->nlocks = cfg->nlocks;
	res->nvcpus = r->cfg->vcpus; /* the guest under test's */
	res->npcpus = cfg->pcpus;
	res->locks = g_new0(struct qsim_lock_result, res->nlocks);
	res->vcpus = g_new0(struct qsim_vcpu_result, res->nvcpus);
	res->events = r->sim.events;
	res->switches = r->sim.switches;

	/* (an interrupted run's end may be past the simulated time) */
	fin = res->interrupted ? SIM_MIN(end, r->sim.now_ps) : end;
	wl_finish(&r->wl, fin);
	for (unsigned int n = 0; n < r->n_noise_wl; n++)
		if (r->noise_wl[n].nvcpus)
			wl_finish(&r->noise_wl[n], fin);
	hv_flush_stats(&r->hv, end);
	for (unsigned int i = 0; i < res->nlocks; i++) {
		struct wl_lock_stats *st = &r->wl.locks[i].st;
		struct qsim_lock_result *l = &res->locks[i];

		l->acquisitions = (int64_t)st->acquisitions;
		l->read_acquisitions = (int64_t)st->read_acquisitions;
		l->write_acquisitions = (int64_t)st->write_acquisitions;
		l->read_lat_mean_ns = sim_hist_mean(&st->read_latency) / 1000.0;
		l->read_lat_p99_ns =
			ns(sim_hist_quantile(&st->read_latency, 0.99));
		l->write_lat_mean_ns =
			sim_hist_mean(&st->write_latency) / 1000.0;
		l->write_lat_p99_ns =
			ns(sim_hist_quantile(&st->write_latency, 0.99));
		l->throughput = secs > 0 ? (double)st->acquisitions / secs : 0;
		l->lat_mean_ns = sim_hist_mean(&st->latency) / 1000.0;
		l->lat_p50_ns = ns(sim_hist_quantile(&st->latency, 0.50));
		l->lat_p90_ns = ns(sim_hist_quantile(&st->latency, 0.90));
		l->lat_p99_ns = ns(sim_hist_quantile(&st->latency, 0.99));
		l->lat_p999_ns = ns(sim_hist_quantile(&st->latency, 0.999));
		l->lat_max_ns = ns(st->latency.max_ps);
		l->hold_mean_ns = sim_hist_mean(&st->hold) / 1000.0;
		l->handoffs = (int64_t)st->handoff.count;
		l->handoff_mean_ns = sim_hist_mean(&st->handoff) / 1000.0;
		l->handoff_p99_ns = ns(sim_hist_quantile(&st->handoff, 0.99));
		l->lhp_events = (int64_t)st->lhp_events;
		l->lhp_total_ns = ns(st->lhp_total_ps);
		l->lhp_max_ns = ns(st->lhp_max_ps);
		l->lhp_waiter_ns = ns(st->lhp_waiter_ps);
		l->lwp_events = (int64_t)st->lwp_events;
		l->lwp_total_ns = ns(st->lwp_total_ps);
		l->lwp_max_ns = ns(st->lwp_max_ps);
		l->long_holds = (int64_t)st->long_holds;
		l->nested = (int64_t)st->nested;
		l->unfinished_waits = (int64_t)st->unfinished;
		/* The histograms move to the result. */
		l->latency = st->latency;
		l->hold = st->hold;
		l->handoff = st->handoff;
		l->read_latency = st->read_latency;
		l->write_latency = st->write_latency;
		st->latency.buckets = st->hold.buckets = NULL;
		st->handoff.buckets = NULL;
		st->read_latency.buckets = st->write_latency.buckets = NULL;
	}

	res->acq_min = INT64_MAX;
	res->acq_max = 0;
	for (unsigned int i = 0; i < res->nvcpus; i++) {
		struct sim_cpu *c = r->hv.vcpus[i]->cpu;
		struct qsim_vcpu_result *v = &res->vcpus[i];

		sim_cpu_flush_acct(c, end);
		v->acquisitions = (int64_t)r->wl.vcpus[i].acquisitions;
		v->read_acquisitions =
			(int64_t)r->wl.vcpus[i].read_acquisitions;
		v->write_acquisitions =
			(int64_t)r->wl.vcpus[i].write_acquisitions;
		v->units = (int64_t)r->wl.vcpus[i].units;
		res->units += r->wl.vcpus[i].units;
		if (i == 0 && r->wl.stat_log && r->wl.stat_log->len)
			res->stat_log = g_strdup(r->wl.stat_log->str);
		v->run_ns = ns(c->acct_ps[SIM_ACCT_RUN]);
		v->spin_ns = ns(c->acct_ps[SIM_ACCT_SPIN]);
		v->hcall_ns = ns(c->acct_ps[SIM_ACCT_HCALL]);
		v->preempted_ns = ns(c->acct_ps[SIM_ACCT_PREEMPTED]);
		v->idle_ns = ns(c->acct_ps[SIM_ACCT_IDLE]);
		v->spin_wakeups = (int64_t)c->wakeups;
		v->hv = r->hv.vcpus[i]->st;
		for (int e = 0; e < LOCKEVENT_NUM; e++) {
			v->lock_events[e] = c->counters[e];
			res->lock_events[e] += c->counters[e];
		}
		for (int a = 0; a < SIM_ACCT_NR; a++)
			split[a] += c->acct_ps[a];
#define X(name, doc) tot.name += v->hv.name;
		HV_VCPU_STATS(X)
#undef X
		res->acq_min = SIM_MIN(res->acq_min, v->acquisitions);
		res->acq_max = SIM_MAX(res->acq_max, v->acquisitions);
		acq_sum += (double)v->acquisitions;
		acq_sq += (double)v->acquisitions * (double)v->acquisitions;
	}
	res->acq_mean = res->nvcpus ? acq_sum / res->nvcpus : 0;
	res->jain = acq_sq > 0 ? acq_sum * acq_sum / (res->nvcpus * acq_sq) : 0;

	pcpu_time = (double)res->measured_ps * res->npcpus;
	if (pcpu_time > 0) {
		sim_time_t idle = 0, disp = 0;

		for (unsigned int i = 0; i < cfg->pcpus; i++) {
			idle += r->hv.pcpus[i].idle_ps;
			disp += r->hv.pcpus[i].dispatch_ps;
		}
		res->util_run = (double)split[SIM_ACCT_RUN] / pcpu_time;
		res->util_spin = (double)split[SIM_ACCT_SPIN] / pcpu_time;
		res->util_hcall = (double)split[SIM_ACCT_HCALL] / pcpu_time;
		res->util_idle = (double)idle / pcpu_time;
		res->util_dispatch = (double)disp / pcpu_time;
	}

	res->dtl = r->hv.dtl; /* the results own the records now */
	r->hv.dtl = NULL;
	res->nparts = r->hv.nparts;
	res->parts = g_new0(struct qsim_partition_result, res->nparts);
	for (unsigned int i = 0; i < res->nparts; i++) {
		struct hv_partition *hp = r->hv.parts[i];
		struct qsim_partition_result *pr = &res->parts[i];
		sim_time_t run = 0;

		for (unsigned int v = 0; v < hp->nvcpus; v++)
			run += hp->vcpus[v]->run_ps;
		pr->vcpus = hp->nvcpus;
		if (i == 0 || (r->noise_wl && i - 1 < r->n_noise_wl)) {
			const struct wl *w = i ? &r->noise_wl[i - 1] : &r->wl;

			for (unsigned int l = 0; l < w->p.nlocks; l++)
				pr->acquisitions += w->locks[l].st.acquisitions;
		}
		pr->entitlement = hp->entitlement_cpu / 100.0;
		pr->capped = hp->capped;
		pr->weight = hp->weight;
		pr->physc = res->measured_ps
				    ? (double)run / (double)res->measured_ps
				    : 0;
		pr->entc_pct = 100.0 * pr->physc / pr->entitlement;
	}
	res->counters = g_array_new(FALSE, FALSE, sizeof(struct qsim_counter));
#define X(name, doc) counter_add(res->counters, "hv_" #name, tot.name);
	HV_VCPU_STATS(X)
#undef X
	for (int e = 0; e < LOCKEVENT_NUM; e++)
		if (lk_event_name(e))
			counter_add(res->counters, lk_event_name(e),
				    res->lock_events[e]);
	{
		uint64_t unl = res->lock_events[LOCKEVENT_pv_kick_unlock];
		uint64_t wake = res->lock_events[LOCKEVENT_pv_kick_wake];

		res->pv_hash_hops_avg =
			unl ? (double)res->lock_events[LOCKEVENT_pv_hash_hops] /
					(double)unl
			    : 0;
		res->pv_latency_kick_ns =
			unl ? (double)res->lock_events
						[LOCKEVENT_pv_latency_kick] /
					(double)unl
			    : 0;
		res->pv_latency_wake_ns =
			wake ? (double)res->lock_events
						[LOCKEVENT_pv_latency_wake] /
					(double)wake
			     : 0;
	}
	{
		uint64_t lost = 0, irqs = 0, irq_ps = 0;

		for (unsigned int i = 0; i < r->sim.ncpus; i++) {
			lost += r->sim.cpus[i]->resv_lost;
			irqs += r->sim.cpus[i]->irqs;
			irq_ps += r->sim.cpus[i]->irq_ps;
		}
		counter_add(res->counters, "sim_resv_lost", lost);
		counter_add(res->counters, "sim_line_waits", r->sim.line_waits);
		counter_add(res->counters, "sim_rspin_specs",
			    r->sim.rspin_specs);
		counter_add(res->counters, "sim_rspin_aborts",
			    r->sim.rspin_aborts);
		counter_add(res->counters, "sim_rspin_relaxes",
			    r->sim.rspin_relaxes);
		counter_add(res->counters, "sim_rspin_parks",
			    r->sim.rspin_parks);
		counter_add(res->counters, "sim_irqs", irqs);
		counter_add(res->counters, "sim_irq_ps", irq_ps);
	}
	if (r->cfg->ipi_prob > 0) {
		uint64_t handled = 0;

		for (unsigned int i = 0; i < r->wl.nvcpus;
		     i++) /* the guest's */
			handled += r->wl.vcpus[i].cpu->ipis;
		counter_add(res->counters, "sim_ipi_calls", r->wl.ipi_calls);
		counter_add(res->counters, "sim_ipi_wait_ps",
			    r->wl.ipi_wait_ps);
		counter_add(res->counters, "sim_ipi_handled", handled);
	}
	counter_add(res->counters, "sim_events", res->events);
	counter_add(res->counters, "sim_switches", res->switches);
}

/* The cross-calls' csd lines: one per sender and target, per workload. */
static size_t cross_call_bytes(const struct qsim_config *cfg)
{
	size_t n = 0;

	if (cfg->ipi_prob <= 0)
		return 0;
	n += (size_t)cfg->vcpus * cfg->vcpus;
	for (unsigned int i = 0; i < cfg->noise_parts; i++)
		if (cfg->noise[i].locktest)
			n += (size_t)cfg->noise[i].vcpus * cfg->noise[i].vcpus;
	return n * cfg->line_bytes;
}

bool qsim_model_run(const struct qsim_config *cfg, struct qsim_results *res,
		    GError **error)
{
	static const struct qsim_hooks none;

	return qsim_model_run_hooks(cfg, res, &none, error);
}

void qsim_model_topo(const struct qsim_config *cfg, struct sim_topo *topo)
{
	*topo = (struct sim_topo){
		.smt = cfg->smt,
		.cores_per_chip = cfg->cores_per_chip,
		.cache_cores = cfg->cache_cores,
		.npcpus = cfg->pcpus,
		.hmt_low_pct = cfg->hmt_low_pct,
		.llsc = strcmp(cfg->atomics, "llsc") == 0,
		.relax_yields = cfg->relax_yields,
	};
	memcpy(topo->smt_tput, cfg->smt_tput, sizeof(topo->smt_tput));
}

bool qsim_model_run_hooks(const struct qsim_config *cfg,
			  struct qsim_results *res,
			  const struct qsim_hooks *hooks, GError **error)
{
	struct run *r = g_new0(struct run, 1);
	const struct lk_ops *ops = strcmp(cfg->mutant, "none")
					   ? lk_find_mutant(cfg->mutant)
					   : lk_find(cfg->lock);
	struct sim_topo topo;
	struct hv_params hp = {
		.policy = cfg->policy,
		.npcpus = cfg->pcpus,
		.slice_ps = cfg_slice(cfg),
		.dispatch_latency_ps = cfg->dispatch_latency_ps,
		.hcall_ps = cfg_hcall(cfg),
		.wake_latency_ps = cfg_wake_latency(cfg),
		.partition_switch_ps = cfg_partition_switch(cfg),
		.vcpu_migrate_ps = cfg->vcpu_migrate_ps,
		.prod_cuts_directed_confer = cfg->prod_cuts_directed_confer,
		.window_ps = cfg->window_ps,
		.window_phase = true,
		.min_granularity_ps = cfg->min_granularity_ps,
		.wakeup_granularity_ps = cfg->wakeup_granularity_ps,
		.keep_dtl = cfg->dtl_records,
		.whole_core = cfg->whole_core,
		.ple_window_ps = cfg_ple_window(cfg),
		.halt_poll_ps = cfg_halt_poll(cfg),
		.halt_poll_shrink = cfg->halt_poll_shrink,
		.kick_boost = cfg->kick_boost,
		.kick_yield = cfg->kick_yield,
		.smt = cfg->smt,
		.cores_per_chip = cfg->cores_per_chip,
		.balance_interval_ps = cfg->balance_interval_ps,
		.migration_cost_ps = cfg->migration_cost_ps,
		.no_latch = ops && ops->hv_no_latch,
	};
	struct wl_params wp = {
		.type = wl_type_parse(cfg->workload),
		/* a locktest's or locktorture's unit is one acquisition:
		 * steps is the other types' key */
		.steps = wl_type_parse(cfg->workload) == WL_LOCKTEST ||
					 wl_type_parse(cfg->workload) ==
						 WL_LOCKTORTURE
				 ? 1
				 : cfg->steps,
		.unit_idle = cfg->unit_idle.set ? &cfg->unit_idle.d : NULL,
		.stat_interval_ps =
			cfg->stat_interval_ps == SIM_TIME_NEVER
				? (cfg->warmup_ps + cfg->duration_ps) / 4
				: cfg->stat_interval_ps,
		/* lines for any workload when asked for: --stat-interval,
		 * or a stat_interval set (not auto) */
		.stat_any = hooks->stat_fn != NULL ||
			    cfg->stat_interval_ps != SIM_TIME_NEVER,
		.stat_fn = hooks->stat_fn,
		.stat_data = hooks->data,
		.cs = cfg->cs,
		.think = cfg->think,
		.think_idle = cfg->think_idle,
		.nlocks = cfg->nlocks,
		.pick = strcmp(cfg->pick, "vcpu") == 0	 ? WL_PICK_VCPU
			: strcmp(cfg->pick, "step") == 0 ? WL_PICK_STEP
							 : WL_PICK_RANDOM,
		.warmup_end_ps = cfg->warmup_ps,
		.hang_bound_ps = cfg->hang_bound_ps,
		/* the reader keys act only on a lock with a reader side */
		.read_pct = cfg_lock_reads(cfg) ? cfg->read_pct : 0,
		.readers = cfg_lock_reads(cfg) ? cfg->readers : 0,
		.lock_cs = cfg->lock_cs,
		.read_cs = cfg->read_cs.set && cfg_lock_reads(cfg)
				   ? &cfg->read_cs.d
				   : NULL,
		.write_cs = cfg->write_cs.set ? &cfg->write_cs.d : NULL,
		.long_hold_prob = cfg->long_hold_prob,
		.nest_prob = cfg->nest_prob,
		.ipi_prob = cfg->ipi_prob,
		.ipi_targets = cfg->ipi_targets,
		.ipi_handler_ps = cfg->ipi_handler_ps,
		.long_hold_ps = cfg->long_hold_ps,
		.stutter_ps = cfg->stutter_ps,
		.sleep_bound_ps = cfg->sleep_bound_ps,
		.cs_data = cfg_memory(cfg) != SIM_MEMORY_SC,
		.seed = cfg->seed,
	};
	struct lk_params lp = {
		.spin_threshold = cfg->spin_threshold,
		.pending_loops = cfg->pending_loops,
		.wait_early = strcmp(cfg->wait_early, "prev-preempted") == 0
				      ? LK_WAIT_EARLY_PREV_PREEMPTED
			      : strcmp(cfg->wait_early, "none") == 0
				      ? LK_WAIT_EARLY_NONE
				      : LK_WAIT_EARLY_PREV_STATE,
		.steal = strcmp(cfg->steal, "oneshot") == 0 ? LK_STEAL_ONESHOT
			 : strcmp(cfg->steal, "none") == 0  ? LK_STEAL_NONE
							    : LK_STEAL_HYBRID,
		.pv_mapping = lk_pv_mapping_parse(cfg->pv_mapping),
		.line_bytes = cfg->line_bytes,
		.page_bytes = cfg->page_bytes,
		.backoff_hashed = strcmp(cfg->backoff, "hashed") == 0,
		.numa_nodes =
			(cfg->pcpus + cfg->smt * cfg->cores_per_chip - 1) /
			(cfg->smt * cfg->cores_per_chip),
		.qspl_set = cfg->qspl_set,
		.qspl =
			{
#define X(name, def, max, help) .name = cfg->qspl_##name,
				QSPL_TUNABLES(X)
#undef X
			},
	};
	size_t line = cfg->line_bytes;
	size_t arena = (size_t)(cfg->vcpus + cfg_noise_vcpus(cfg) +
				(cfg->noise_parts + 1) * cfg->nlocks + 64) *
			       line * 8 +
		       (64u << 20) + cross_call_bytes(cfg);
	g_autofree void **addrs = g_new0(void *, cfg->nlocks);
	g_autofree void **noise_addrs = NULL;
	g_autofree void **args = g_new0(void *, cfg->vcpus);
	struct hv_partition *part;
	sim_time_t end = cfg->warmup_ps + cfg->duration_ps;
	gint64 t0 = g_get_monotonic_time();

	memset(res, 0, sizeof(*res));
	QSIM_BUG_ON(!ops, "lock %s passed validation but is not registered",
		    cfg->lock);
	r->cfg = cfg;
	qsim_model_topo(cfg, &topo);
	sim_init(&r->sim, arena, cfg->line_bytes, &cfg->cost, &topo,
		 (size_t)cfg->stack_kib << 10);
	sim_set_seed(&r->sim, cfg->seed);
	r->sim.rspin_on = r->sim.rspin_on && cfg->raw_spin;
	r->sim.noise = (struct sim_noise){
		.tick_period_ps = cfg->hz ? SIM_S / cfg->hz : 0,
		.tick_ps = cfg->tick_ps,
		.irq_mean_ps = cfg->irq_rate ? SIM_S / cfg->irq_rate : 0,
		.irq_ps = cfg->irq_ps,
	};
	if (strcmp(cfg->policy, "adversarial") == 0) {
		/* The adversary's knobs apply to its policy only. */
		_Static_assert(HV_PT_NR <= G_N_ELEMENTS(hp.point_prob),
			       "point_prob too small");
		memcpy(hp.point_prob, cfg->point_prob, sizeof(hp.point_prob));
		hp.spurious_wake = cfg->spurious_wake;
		hp.drain_late = cfg->drain_late;
	}
	hv_init(&r->hv, &r->sim, &hp, cfg->seed);
	sim_trace_free(&r->sim.trace);
	sim_trace_init(&r->sim.trace, cfg->trace_events);
	if (cfg->trace_events) /* and each vCPU's own last 32 */
		sim_trace_init_cpus(&r->sim.trace,
				    cfg->vcpus + cfg_noise_vcpus(cfg), 32);
	r->sim.point_hook = point_hook;
	r->sim.point_data = &r->hv;
	/* Each lock on a line of its own, in a fixed order. */
	for (unsigned int i = 0; i < cfg->nlocks; i++)
		addrs[i] = sim_mem_alloc(&r->sim.mem, ops->size, line);
	r->iface.lock = ops->lock;
	r->iface.unlock = ops->unlock;
	r->iface.read_lock = ops->read_lock;
	r->iface.read_unlock = ops->read_unlock;
	r->iface.idle = guest_idle;
	wl_init(&r->wl, &r->sim, &wp, &r->iface, addrs, cfg->vcpus);
	for (unsigned int i = 0; i < cfg->vcpus; i++)
		args[i] = wl_vcpu_arg(&r->wl, i);
	part = hv_partition_add(&r->hv, cfg->vcpus, cfg->shared, wl_vcpu_main,
				args);
	part->entitlement_cpu = cfg->entitlement_cpu;
	part->capped = cfg->capped;
	part->weight = cfg->weight;
	part->kvm_guest = strcmp(cfg->pv_mapping, "kvm") == 0;
	for (unsigned int i = 0; i < cfg->vcpus; i++)
		wl_bind(&r->wl, i, r->hv.vcpus[i]->cpu);
	/*
	 * Noise partitions: their vCPUs burn CPU and touch no lock, or run
	 * the guest's lock workload on locks and lock globals of their own,
	 * from a random stream of their own.
	 */
	r->n_noise_wl = cfg->noise_parts;
	r->noise_wl = g_new0(struct wl, cfg->noise_parts);
	noise_addrs = g_new0(void *, cfg->noise_parts * cfg->nlocks);
	for (unsigned int n = 0; n < cfg->noise_parts; n++) {
		const struct cfg_noise_part *np = &cfg->noise[n];
		g_autofree void **nargs = g_new0(void *, np->vcpus);
		struct wl *nw = np->locktest ? &r->noise_wl[n] : NULL;

		if (nw) {
			struct wl_params nwp = wp;

			nwp.stat_any = false; /* the guest's lines only */
			nwp.stat_fn = NULL;
			void **na = &noise_addrs[n * cfg->nlocks];

			nwp.seed =
				cfg->seed ^ (0x9e3779b97f4a7c15ull * (n + 1));
			for (unsigned int i = 0; i < cfg->nlocks; i++)
				na[i] = sim_mem_alloc(&r->sim.mem, ops->size,
						      line);
			wl_init(nw, &r->sim, &nwp, &r->iface, na, np->vcpus);
			for (unsigned int i = 0; i < np->vcpus; i++)
				nargs[i] = wl_vcpu_arg(nw, i);
		}
		part = hv_partition_add(&r->hv, np->vcpus, true,
					nw ? wl_vcpu_main : hog_main, nargs);
		part->entitlement_cpu = np->entitlement_cpu;
		part->capped = np->capped;
		part->weight = np->weight;
		part->kvm_guest = strcmp(cfg->pv_mapping, "kvm") == 0;
		for (unsigned int i = 0; nw && i < np->vcpus; i++)
			wl_bind(nw, i, part->vcpus[i]->cpu);
	}
	for (unsigned int p = 0; ops->global_size && p < r->hv.nparts; p++) {
		struct hv_partition *gp = r->hv.parts[p];
		size_t gsz;
		void *g;

		if (p > 0 && !cfg->noise[p - 1].locktest)
			continue; /* hogs take no lock */
		lp.shared = gp->shared;
		lp.arena_lo = (const char *)r->sim.mem.base;
		lp.arena_hi = (const char *)r->sim.mem.base + r->sim.mem.size;
		lp.memory = (int)cfg_memory(cfg);
		gsz = ops->global_size(&lp, gp->nvcpus);
		g = sim_mem_alloc(&r->sim.mem, gsz, line);
		ops->global_init(g, &lp, gp->nvcpus);
		gp->guest = g;
	}
	sim_mem_seal(&r->sim.mem);
	sim_mm_enable(&r->sim, cfg_memory(cfg), cfg->memory_window_ps,
		      cfg->store_delay_ps);
	if (r->sim.mm && strcmp(cfg->policy, "adversarial") == 0)
		/* The adversary chooses when buffered stores drain. */
		sim_mm_set_drain(&r->sim, hv_adversary_drain, &r->hv);
	for (unsigned int i = 0; i < cfg->nlocks; i++)
		ops->init(addrs[i]);
	for (unsigned int i = 0; i < r->n_noise_wl * cfg->nlocks; i++)
		if (noise_addrs[i])
			ops->init(noise_addrs[i]);
	/* The observers: invariants checked outside the lock code. */
	r->obs = g_ptr_array_new_with_free_func((GDestroyNotify)obs_free);
	for (unsigned int p = 0; ops->word && p < r->hv.nparts; p++) {
		void **la = p ? &noise_addrs[(p - 1) * cfg->nlocks] : addrs;
		g_autofree char *who = g_strdup_printf("partition %u", p);
		struct obs *o;
		void *hb;
		size_t hn;

		if (p > 0 && !cfg->noise[p - 1].locktest)
			continue;
		o = obs_new(&r->sim,
			    ops->word == LK_WORD_PPC ? OBS_PPC : OBS_QSPINLOCK,
			    who);
		g_ptr_array_add(r->obs, o);
		for (unsigned int i = 0; i < cfg->nlocks; i++)
			obs_watch_lock(o, la[i], i);
		if (ops->pv_hash && r->hv.parts[p]->guest &&
		    ops->pv_hash(r->hv.parts[p]->guest, &hb, &hn))
			obs_watch_pv_hash(o, hb, hn);
		if (ops->qnode_counts && r->hv.parts[p]->guest) {
			size_t stride;
			unsigned int nc;
			int max;

			if (ops->qnode_counts(r->hv.parts[p]->guest, &hb,
					      &stride, &nc, &max))
				obs_watch_qnode_counts(o, hb, stride, nc, max);
		}
	}

	r->sim.host_deadline_us = t0 + (gint64)cfg->host_timeout_s * 1000000;
	r->sim.tl_fn = hooks->tl_fn;
	r->sim.tl_data = hooks->data;
	r->sim.progress_fn = hooks->progress_fn;
	r->sim.progress_data = hooks->data;
	sim_event_init(&r->warmup, warmup_ev, r, SIM_PRIO_CHECK);
	if (cfg->warmup_ps)
		sim_schedule(&r->sim, &r->warmup, cfg->warmup_ps);
	hv_start(&r->hv, 0);
	sim_noise_start(&r->sim, 0);
	/* The guest's last: its violation hook is the one installed. */
	for (unsigned int n = 0; n < r->n_noise_wl; n++)
		if (r->noise_wl[n].nvcpus)
			wl_start(&r->noise_wl[n], 0);
	wl_start(&r->wl, 0);
	sim_run(&r->sim, end);
	for (unsigned int n = 0; n < r->n_noise_wl; n++) {
		struct wl *nw = &r->noise_wl[n];

		if (nw->violation != WL_OK)
			wl_violation(&r->wl, nw->violation, nw->violation_ps,
				     "noise partition %u: %s", n + 1,
				     nw->violation_msg);
	}

	if (r->sim.interrupted && r->wl.violation == WL_OK) {
		res->interrupted = true;
		res->interrupted_ps = r->sim.now_ps;
		end = SIM_MAX(r->sim.now_ps, cfg->warmup_ps);
	}
	if (r->wl.violation == WL_OK && !r->sim.stop &&
	    sim_evq_top_time(&r->sim.q) == SIM_TIME_NEVER)
		wl_violation(&r->wl, WL_VIOL_DEADLOCK, r->sim.now_ps,
			     "no events left: every vCPU is blocked");
	QSIM_BUG_ON(!hv_check_invariants(&r->hv));
	for (unsigned int i = 0; i < r->sim.ncpus; i++)
		QSIM_BUG_ON(!sim_cpu_check_invariants(r->sim.cpus[i]));

	res->status = r->wl.violation;
	collect(r, res, r->wl.violation ? r->wl.violation_ps : end);
	if (res->status == WL_OK && !res->interrupted && cfg->drain) {
		/* The drain (after the figures: they stay the measured
		 * interval's): every waiter must get its lock. */
		r->sim.stop = false;
		wl_drain(&r->wl, r->sim.now_ps,
			 cfg->hang_bound_ps + cfg->sleep_bound_ps);
		sim_run(&r->sim, r->sim.now_ps + cfg->hang_bound_ps +
					 cfg->sleep_bound_ps);
		if (r->sim.interrupted && r->wl.violation == WL_OK) {
			res->interrupted = true;
			res->interrupted_ps = r->sim.now_ps;
		}
		res->status = r->wl.violation;
	}
	res->replay = qsim_replay_command(cfg);
	if (res->status != WL_OK) {
		res->violation_ps = r->wl.violation_ps;
		res->violation_msg = g_strdup(r->wl.violation_msg);
		res->report = violation_report(r);
		if (r->sim.trace.cap) {
			GString *t = g_string_new(NULL);

			sim_trace_dump(&r->sim.trace, r->sim.trace.cap, t);
			res->trace = g_string_free(t, FALSE);
		}
	}
	res->host_seconds = (double)(g_get_monotonic_time() - t0) / 1e6;

	for (unsigned int p = 0; ops->global_fini && p < r->hv.nparts; p++)
		if (r->hv.parts[p]->guest)
			ops->global_fini(r->hv.parts[p]->guest);
	g_ptr_array_free(r->obs, TRUE);
	wl_destroy(&r->wl);
	for (unsigned int n = 0; n < r->n_noise_wl; n++)
		if (r->noise_wl[n].nvcpus)
			wl_destroy(&r->noise_wl[n]);
	g_free(r->noise_wl);
	hv_destroy(&r->hv);
	sim_destroy(&r->sim);
	g_free(r);
	(void)error;
	return true;
}

void qsim_results_clear(struct qsim_results *res)
{
	for (unsigned int i = 0; res->locks && i < res->nlocks; i++) {
		sim_hist_free(&res->locks[i].latency);
		sim_hist_free(&res->locks[i].hold);
		sim_hist_free(&res->locks[i].handoff);
		sim_hist_free(&res->locks[i].read_latency);
		sim_hist_free(&res->locks[i].write_latency);
	}
	g_free(res->locks);
	g_free(res->vcpus);
	g_free(res->parts);
	g_free(res->violation_msg);
	g_free(res->report);
	g_free(res->replay);
	g_free(res->trace);
	g_free(res->stat_log);
	if (res->counters)
		g_array_free(res->counters, TRUE);
	if (res->dtl)
		g_array_free(res->dtl, TRUE);
	memset(res, 0, sizeof(*res));
}

int qsim_results_exit_code(const struct qsim_results *res)
{
	return res->status == WL_OK ? 0 : 2;
}

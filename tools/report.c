// SPDX-License-Identifier: MIT
/*
 * The run summary; see report.h.  Every figure printed here is also in the
 * store (docs/database.md).
 */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>

#include "tools/report.h"
#include "locks/lock.h"
#include "sim/workload.h"

char *report_thousands(int64_t v)
{
	char digits[32];
	GString *s = g_string_new(NULL);
	int n, lead;

	if (v < 0) {
		g_string_append_c(s, '-');
		v = -v;
	}
	n = snprintf(digits, sizeof(digits), "%" PRId64, v);
	lead = n % 3 ? n % 3 : 3;
	g_string_append_len(s, digits, lead);
	for (int i = lead; i < n; i += 3) {
		g_string_append_c(s, ',');
		g_string_append_len(s, digits + i, 3);
	}
	return g_string_free(s, FALSE);
}

static const char *fmt_ns(double ns, char *buf, size_t len)
{
	if (ns >= 1e6)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.2fus", ns / 1e3);
	else
		snprintf(buf, len, "%.0fns", ns);
	return buf;
}

static const char *fmt_rate(double ops, char *buf, size_t len)
{
	if (ops >= 1e6)
		snprintf(buf, len, "%.3f Mop/s", ops / 1e6);
	else if (ops >= 1e3)
		snprintf(buf, len, "%.1f kop/s", ops / 1e3);
	else
		snprintf(buf, len, "%.0f op/s", ops);
	return buf;
}

/*
 * The lock-event counters that fired, kernel names first, with the
 * kernel's derived averages for the sum-type ones.
 */
static void report_lock_events(FILE *out, const struct qsim_results *res)
{
	int shown = 0;

	for (int e = 0; e < LOCKEVENT_NUM; e++) {
		uint64_t v = res->lock_events[e];

		if (!v || !lk_event_name(e))
			continue;
		if (!shown++)
			fprintf(out, "events   ");
		else if (shown % 4 == 1)
			fprintf(out, "\n         ");
		if (e == LOCKEVENT_pv_hash_hops)
			fprintf(out, " %s %.2f", lk_event_name(e),
				res->pv_hash_hops_avg);
		else if (e == LOCKEVENT_pv_latency_kick)
			fprintf(out, " %s %.0fns", lk_event_name(e),
				res->pv_latency_kick_ns);
		else if (e == LOCKEVENT_pv_latency_wake)
			fprintf(out, " %s %.0fns", lk_event_name(e),
				res->pv_latency_wake_ns);
		else
			fprintf(out, " %s %" PRIu64, lk_event_name(e), v);
	}
	if (shown)
		fputc('\n', out);
}

/* The summary shows at most this many locks' blocks. */
#define REPORT_LOCKS 8u

/* ebizzy, kbuild, netperf: a unit is more than one acquisition. */
static bool unit_workload(const struct qsim_config *cfg)
{
	enum wl_type t = wl_type_parse(cfg->workload);

	return t != WL_LOCKTEST && t != WL_LOCKTORTURE;
}

static const char *unit_singular(enum wl_type t)
{
	switch (t) {
	case WL_EBIZZY:
		return "record";
	case WL_KBUILD:
		return "job";
	case WL_NETPERF:
		return "transaction";
	default:
		return "unit";
	}
}

/* The value of the run's counter @name (0 if it has none). */
static uint64_t counter_of(const struct qsim_results *res, const char *name)
{
	for (guint i = 0; res->counters && i < res->counters->len; i++) {
		const struct qsim_counter *k =
			&g_array_index(res->counters, struct qsim_counter, i);

		if (!strcmp(k->name, name))
			return k->value;
	}
	return 0;
}

void report_summary(FILE *out, const struct qsim_config *cfg,
		    const struct qsim_results *res)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];
	double secs = (double)res->measured_ps / (double)SIM_S;
	struct hv_vcpu_stats tot = {0};
	double total_acq = 0;

	for (unsigned int i = 0; i < res->nvcpus; i++) {
#define X(name, doc) tot.name += res->vcpus[i].hv.name;
		HV_VCPU_STATS(X)
#undef X
	}

	fprintf(out, "qsim: %s, seed %" PRIu64 "\n", cfg->path, cfg->seed);
	fprintf(out,
		"machine   %s preset, %u pCPUs (SMT%u, %u cores/chip, %u-byte "
		"lines)\n",
		cfg->preset, cfg->pcpus, cfg->smt, cfg->cores_per_chip,
		cfg->line_bytes);
	fprintf(out,
		"guest     %u vCPUs, %s, overcommit %.2fx; policy %s, slice "
		"%s\n",
		cfg->vcpus,
		cfg->shared
			? "shared processors"
			: "told dedicated (shared = false: no pv lock paths)",
		cfg_overcommit(cfg), cfg->policy,
		sim_format_time(cfg_slice(cfg), a, sizeof(a)));
	{
		const struct lk_ktree_identity *id = lk_ktree_of(cfg->lock);

		if (id) {
			unsigned int n = 0;

			while (id->files[n][0])
				n++;
			fprintf(out,
				"kernel    Linux %s tree %s%s%s%s, %u files\n",
				id->version, id->path,
				*id->describe ? " (" : "", id->describe,
				*id->describe ? ")" : "", n);
		}
	}
	fprintf(out, "workload  %s on %u %s lock%s: ", cfg->workload,
		cfg->nlocks, cfg->lock, cfg->nlocks == 1 ? "" : "s");
	/* The holds the run used: per lock, per side, or one for all. */
	if (*cfg->lock_cs_text) {
		fprintf(out, "cs %s by lock", cfg->lock_cs_text);
	} else if (cfg_lock_reads(cfg) &&
		   (cfg->read_cs.set || cfg->write_cs.set)) {
		fprintf(out, "write cs %s, read cs %s",
			sim_format_duration(cfg->write_cs.set ? &cfg->write_cs.d
							      : &cfg->cs,
					    b, sizeof(b)),
			sim_format_duration(cfg->read_cs.set ? &cfg->read_cs.d
							     : &cfg->cs,
					    c, sizeof(c)));
	} else {
		fprintf(out, "cs %s",
			sim_format_duration(cfg->write_cs.set ? &cfg->write_cs.d
							      : &cfg->cs,
					    b, sizeof(b)));
	}
	fprintf(out, ", think %s%s",
		sim_format_duration(&cfg->think, c, sizeof(c)),
		cfg->think_idle ? " (idle)" : "");
	if (!cfg_lock_reads(cfg)) {
		if (cfg->read_pct || cfg->readers || cfg->read_cs.set)
			fprintf(out, ", no reader side (read_pct, readers, "
				     "read_cs unused)");
	} else if (cfg->read_pct) {
		fprintf(out, ", %u%% reads", cfg->read_pct);
	} else if (cfg->readers) {
		fprintf(out, ", %u reader vCPU%s", cfg->readers,
			cfg->readers == 1 ? "" : "s");
	}
	if (cfg->long_hold_prob > 0)
		fprintf(out, ", long holds of %s (p %g)",
			sim_format_time(cfg->long_hold_ps, b, sizeof(b)),
			cfg->long_hold_prob);
	if (cfg->stutter_ps)
		fprintf(out, ", stutter %s",
			sim_format_time(cfg->stutter_ps, b, sizeof(b)));
	if (cfg->ipi_prob > 0)
		fprintf(out, ", cross-calls before %g of lock steps",
			cfg->ipi_prob);
	if (unit_workload(cfg)) {
		enum wl_type t = wl_type_parse(cfg->workload);

		fprintf(out, "; %u lock steps a %s",
			cfg->steps ? cfg->steps : wl_default_steps(t),
			unit_singular(t));
	}
	if (cfg->unit_idle.set)
		fprintf(out, "%s idle %s",
			unit_workload(cfg) ? ", then" : "; after each step,",
			sim_format_duration(&cfg->unit_idle.d, b, sizeof(b)));
	fputc('\n', out);
	fprintf(out,
		"measured  %s after %s warm-up; %" PRIu64 " events, %" PRIu64
		" switches, %.2f s host\n",
		sim_format_time(res->measured_ps, d, sizeof(d)),
		sim_format_time(cfg->warmup_ps, e, sizeof(e)), res->events,
		res->switches, res->host_seconds);
	fputc('\n', out);

	/* Many locks (kbuild's 64): the busiest REPORT_LOCKS, in index
	 * order, and a line for the rest. */
	g_autofree bool *shown = g_new0(bool, SIM_MAX(res->nlocks, 1u));
	uint64_t rest_acq = 0;
	unsigned int rest = 0;

	for (unsigned int i = 0; i < res->nlocks; i++) {
		unsigned int busier = 0;

		for (unsigned int j = 0; j < res->nlocks; j++)
			busier += res->locks[j].acquisitions >
					  res->locks[i].acquisitions ||
				  (res->locks[j].acquisitions ==
					   res->locks[i].acquisitions &&
				   j < i);
		shown[i] = busier < REPORT_LOCKS;
		total_acq += (double)res->locks[i].acquisitions;
		if (!shown[i]) {
			rest++;
			rest_acq += (uint64_t)res->locks[i].acquisitions;
		}
	}
	for (unsigned int i = 0; i < res->nlocks; i++) {
		const struct qsim_lock_result *l = &res->locks[i];
		g_autofree char *n = report_thousands(l->acquisitions);

		if (!shown[i])
			continue;
		fprintf(out, "lock %-5u%s acquisitions, %s\n", i, n,
			fmt_rate(l->throughput, a, sizeof(a)));
		if (l->read_acquisitions)
			fprintf(out,
				"  reads %" PRId64
				" (latency mean %s, p99 %s); "
				"writes %" PRId64 " (mean %s, p99 %s)\n",
				l->read_acquisitions,
				fmt_ns(l->read_lat_mean_ns, a, sizeof(a)),
				fmt_ns(l->read_lat_p99_ns, b, sizeof(b)),
				l->write_acquisitions,
				fmt_ns(l->write_lat_mean_ns, c, sizeof(c)),
				fmt_ns(l->write_lat_p99_ns, d, sizeof(d)));
		fprintf(out,
			"  latency mean %s  p50 %s  p90 %s  p99 %s  p99.9 %s  "
			"max %s",
			fmt_ns(l->lat_mean_ns, a, sizeof(a)),
			fmt_ns(l->lat_p50_ns, b, sizeof(b)),
			fmt_ns(l->lat_p90_ns, c, sizeof(c)),
			fmt_ns(l->lat_p99_ns, d, sizeof(d)),
			fmt_ns(l->lat_p999_ns, e, sizeof(e)),
			fmt_ns(l->lat_max_ns, f, sizeof(f)));
		if (l->unfinished_waits)
			fprintf(out, " (%" PRId64 " unfinished)",
				l->unfinished_waits);
		fputc('\n', out);
		fprintf(out,
			"  hold mean %s; hand-off mean %s, p99 %s over %" PRId64
			" hand-offs\n",
			fmt_ns(l->hold_mean_ns, a, sizeof(a)),
			fmt_ns(l->handoff_mean_ns, b, sizeof(b)),
			fmt_ns(l->handoff_p99_ns, c, sizeof(c)), l->handoffs);
		fprintf(out,
			"  LHP %" PRId64 " events, total %s, max %s; waiters "
			"lost %s\n",
			l->lhp_events, fmt_ns(l->lhp_total_ns, a, sizeof(a)),
			fmt_ns(l->lhp_max_ns, b, sizeof(b)),
			fmt_ns(l->lhp_waiter_ns, c, sizeof(c)));
		fprintf(out, "  LWP %" PRId64 " events, total %s, max %s\n",
			l->lwp_events, fmt_ns(l->lwp_total_ns, a, sizeof(a)),
			fmt_ns(l->lwp_max_ns, b, sizeof(b)));
		if (l->long_holds)
			fprintf(out, "  long holds %" PRId64 "\n",
				l->long_holds);
		if (l->nested)
			fprintf(out,
				"  nested %" PRId64
				" (taken holding a lock of lower index)\n",
				l->nested);
	}
	if (rest) {
		g_autofree char *n = report_thousands((int64_t)rest_acq);

		fprintf(out,
			"locks     %u more (the %u busiest are above): %s "
			"acquisitions in all; every lock is in run --json and "
			"the store\n",
			rest, REPORT_LOCKS, n);
	}
	for (unsigned int i = 0; i < res->nparts; i++) {
		const struct qsim_partition_result *pr = &res->parts[i];

		const char *what = i ? "noise    " : "partition";
		char acq[64] = "";

		if (i && cfg->noise[i - 1].locktest)
			snprintf(acq, sizeof(acq), ", locktest %.3f Mop/s",
				 res->measured_ps
					 ? (double)pr->acquisitions /
						   ((double)res->measured_ps /
						    SIM_S) /
						   1e6
					 : 0);

		/* Entitlement only means something to powervm. */
		if (strcmp(cfg->policy, "powervm"))
			fprintf(out, "%s %u vCPUs, weight %u: physc %.2f%s\n",
				what, pr->vcpus, pr->weight, pr->physc, acq);
		else
			fprintf(out,
				"%s %u vCPUs, entitlement %.2f PU %s (weight "
				"%u): physc %.2f, entc %.0f%%%s\n",
				what, pr->vcpus, pr->entitlement,
				pr->capped ? "capped" : "uncapped", pr->weight,
				pr->physc, pr->entc_pct, acq);
	}
	fprintf(out,
		"fairness  per-vCPU acquisitions min/mean/max %" PRId64
		"/%lld/%" PRId64 ", Jain index %.4f\n",
		res->acq_min, llround(res->acq_mean), res->acq_max, res->jain);
	fprintf(out,
		"pCPUs     run %.1f%%  spin %.1f%%  hcall %.1f%%  dispatch "
		"%.1f%%  idle %.1f%%",
		100 * res->util_run, 100 * res->util_spin,
		100 * res->util_hcall, 100 * res->util_dispatch,
		100 * res->util_idle);
	if (res->nparts > 1 && res->npcpus) {
		double noise = 0;

		/* Time the noise partitions ran, so the split sums to 100. */
		for (unsigned int i = 1; i < res->nparts; i++)
			noise += res->parts[i].physc;
		fprintf(out, "  noise %.1f%%", 100 * noise / res->npcpus);
	}
	fputc('\n', out);
	fprintf(out,
		"hcalls    confer directed %" PRIu64 " (stale %" PRIu64
		"), undirected %" PRIu64 "; %" PRIu64
		" confers yielded the pCPU; prod %" PRIu64 " (latched %" PRIu64
		"); cede %" PRIu64 "\n",
		tot.confers_directed, tot.confers_stale, tot.confers_undirected,
		tot.confers_yielded, tot.prods, tot.prods_latched, tot.cedes);
	if (tot.halts || tot.kicks)
		fprintf(out,
			"kvm       halt %" PRIu64 " (cut short %" PRIu64
			", ended while polled %" PRIu64
			", polled in vain %" PRIu64 "); kick %" PRIu64
			" (latched %" PRIu64 ")\n",
			tot.halts, tot.kick_returns, tot.halt_polls_ok,
			tot.halt_polls_missed, tot.kicks, tot.kicks_latched);
	if (cfg_ple_window(cfg))
		fprintf(out,
			"ple       %" PRIu64 " pause-loop exits, %" PRIu64
			" yielded to a waiting vCPU of the guest\n",
			tot.ple_exits, tot.ple_yields);
	fprintf(out,
		"dispatch  %" PRIu64 " dispatches, %" PRIu64 " preemptions",
		tot.dispatches, tot.preemptions);
	if (tot.ple_yields)
		fprintf(out, ", %" PRIu64 " pause-loop yields", tot.ple_yields);
	fputc('\n', out);
	if (res->nvcpus && res->measured_ps) {
		double vt = (double)res->nvcpus * (double)res->measured_ps;

		fprintf(out,
			"dtl       %" PRIu64 " preempt, %" PRIu64
			" cede, %" PRIu64 " confer; of vCPU time: steal "
			"%.1f%% (queued %.1f%%, waking %.1f%%), ceded idle "
			"%.1f%%\n",
			tot.dtl_preempt, tot.dtl_cede, tot.dtl_confer,
			100 * (double)tot.steal_ps / vt,
			100 * (double)tot.dtl_enqueue_dispatch_ps / vt,
			100 * (double)tot.dtl_ready_enqueue_ps / vt,
			100 * (double)tot.dtl_wait_ready_ps / vt);
	}
	if (cfg->ipi_prob > 0) {
		uint64_t calls = counter_of(res, "sim_ipi_calls");
		uint64_t wait = counter_of(res, "sim_ipi_wait_ps");
		uint64_t handled = counter_of(res, "sim_ipi_handled");

		fprintf(out,
			"ipis      %" PRIu64 " cross-calls, waited %.2fus each "
			"on average, %.1f%% of vCPU time; %" PRIu64
			" handlers run\n",
			calls,
			calls ? (double)wait / (double)calls / SIM_US : 0.0,
			res->nvcpus && res->measured_ps
				? 100.0 * (double)wait /
					  ((double)res->nvcpus *
					   (double)res->measured_ps)
				: 0.0,
			handled);
	}
	report_lock_events(out, res);
	fputc('\n', out);
	{
		g_autofree char *mn = report_thousands(res->acq_min);
		g_autofree char *me = report_thousands(llround(res->acq_mean));
		g_autofree char *mx = report_thousands(res->acq_max);
		double rate = secs > 0 ? total_acq / secs : 0;
		g_autofree char *tr = report_thousands(llround(rate));
		g_autofree char *pr = report_thousands(
			llround(res->nvcpus ? rate / res->nvcpus : 0));

		fprintf(out, "Threads = %u, Min/Mean/Max = %s/%s/%s\n",
			res->nvcpus, mn, me, mx);
		fprintf(out, "Total Rate = %s op/s; Percpu Rate = %s op/s\n",
			tr, pr);
	}
	if (unit_workload(cfg)) {
		enum wl_type t = wl_type_parse(cfg->workload);
		double rate = secs > 0 ? (double)res->units / secs : 0;
		g_autofree char *tr = report_thousands(llround(rate));
		g_autofree char *name = g_strdup(wl_unit_name(t));

		name[0] = g_ascii_toupper(name[0]);
		fprintf(out, "%s = %s /s; per vCPU %.1f /s\n", name, tr,
			res->nvcpus ? rate / res->nvcpus : 0);
	}
	if (res->stat_log) {
		fputc('\n', out);
		fputs(res->stat_log, out);
	}
	if (res->report) {
		fputc('\n', out);
		fputs(res->report, out);
		fprintf(out, "replay: %s\n", res->replay);
	}
}

static void j_str(JsonBuilder *b, const char *name, const char *v)
{
	json_builder_set_member_name(b, name);
	if (v)
		json_builder_add_string_value(b, v);
	else
		json_builder_add_null_value(b);
}

static void j_int(JsonBuilder *b, const char *name, int64_t v)
{
	json_builder_set_member_name(b, name);
	json_builder_add_int_value(b, v);
}

void report_json_real(JsonBuilder *b, const char *name, double v)
{
	json_builder_set_member_name(b, name);
	if (isfinite(v))
		json_builder_add_double_value(b, v);
	else
		json_builder_add_null_value(b);
}

char *report_json_text(JsonBuilder *b)
{
	g_autoptr(JsonGenerator) g = json_generator_new();
	g_autoptr(JsonNode) root = json_builder_get_root(b);

	json_generator_set_root(g, root);
	json_generator_set_pretty(g, TRUE);
	return json_generator_to_data(g, NULL);
}

#define J_I(b, name, v) j_int(b, name, (int64_t)(v))
#define J_R(b, name, v) report_json_real(b, name, (double)(v))

char *report_json(const struct qsim_config *cfg, const struct qsim_results *res,
		  int64_t run_id, const char *db)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	j_str(b, "scenario", cfg->path);
	J_I(b, "seed", cfg->seed);
	j_str(b, "lock", cfg->lock);
	{
		/* a kernel tree's lock: which tree, as the summary says */
		const struct lk_ktree_identity *id = lk_ktree_of(cfg->lock);

		if (id) {
			json_builder_set_member_name(b, "kernel_tree");
			json_builder_begin_object(b);
			j_str(b, "path", id->path);
			j_str(b, "version", id->version);
			j_str(b, "describe", id->describe);
			json_builder_end_object(b);
		}
	}
	j_str(b, "policy", cfg->policy);
	J_I(b, "vcpus", cfg->vcpus);
	J_I(b, "pcpus", cfg->pcpus);
	J_R(b, "overcommit", cfg_overcommit(cfg));
	/* As the database has them: status ok or violation, the kind in
	 * violation; the message beside it. */
	j_str(b, "status", qsim_status_text(res->status));
	j_str(b, "violation", qsim_violation_kind(res->status));
	j_str(b, "violation_message", res->violation_msg);
	j_str(b, "replay", res->replay);
	J_R(b, "measured_s", (double)res->measured_ps / (double)SIM_S);
	J_I(b, "events", res->events);
	J_I(b, "switches", res->switches);
	J_R(b, "host_seconds", res->host_seconds);
	if (run_id) {
		J_I(b, "run_id", run_id);
		j_str(b, "db", db);
	}
	json_builder_set_member_name(b, "locks");
	json_builder_begin_array(b);
	for (unsigned int i = 0; i < res->nlocks; i++) {
		const struct qsim_lock_result *l = &res->locks[i];

		json_builder_begin_object(b);
#define X(name, kind, help) J_##kind(b, #name, l->name);
		QSIM_LOCK_COLS(X)
#undef X
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "per_vcpu");
	json_builder_begin_array(b);
	for (unsigned int i = 0; i < res->nvcpus; i++) {
		const struct qsim_vcpu_result *v = &res->vcpus[i];

		json_builder_begin_object(b);
#define X(name, kind, help) J_##kind(b, #name, v->name);
		QSIM_VCPU_COLS(X)
#undef X
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "pcpu_time");
	json_builder_begin_object(b);
	J_R(b, "run", res->util_run);
	J_R(b, "spin", res->util_spin);
	J_R(b, "hcall", res->util_hcall);
	J_R(b, "dispatch", res->util_dispatch);
	J_R(b, "idle", res->util_idle);
	json_builder_end_object(b);
	json_builder_set_member_name(b, "fairness");
	json_builder_begin_object(b);
	J_I(b, "min", res->acq_min);
	J_R(b, "mean", res->acq_mean);
	J_I(b, "max", res->acq_max);
	J_R(b, "jain", res->jain);
	json_builder_end_object(b);
	J_I(b, "units", res->units);
	json_builder_set_member_name(b, "counters");
	json_builder_begin_object(b);
	for (guint i = 0; res->counters && i < res->counters->len; i++) {
		const struct qsim_counter *c =
			&g_array_index(res->counters, struct qsim_counter, i);

		J_I(b, c->name, c->value);
	}
	json_builder_end_object(b);
	json_builder_end_object(b);
	return report_json_text(b);
}

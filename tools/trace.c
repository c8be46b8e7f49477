// SPDX-License-Identifier: MIT
/*
 * qsim trace; see trace.h.  The timeline records of the engine, the
 * hypervisor and the workload (enum sim_tl_kind) come in time order; each
 * track keeps what is open on it (a dispatch, a lock wait or hold, an
 * interval off the CPU) and writes a complete slice when it closes,
 * clipped to the window.  Every trace event is one JSON object made by
 * json-glib, streamed, so a long window needs no memory for the whole.
 */
#include <errno.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "tools/model.h"
#include "tools/outfile.h"
#include "tools/trace.h"

enum { PID_PCPU = 1, PID_VCPU = 2 };

struct open_slice {
	sim_time_t since; /* SIM_TIME_NEVER: none open */
	int64_t arg;	  /* the lock, the vCPU, whether idle */
};

struct vtrack {
	struct open_slice wait, hold, off, asleep;
	int64_t flow; /* a wake-up's flow to close at the next run, or 0 */
};

struct tracer {
	FILE *out;
	sim_time_t from, to, hcall_ps;
	unsigned int npcpus, ncpus, nlocks, guest_vcpus;
	struct open_slice *run, *disp; /* per pCPU */
	struct vtrack *v;	       /* per engine cpu */
	unsigned int running, *waiters;
	int64_t flows;
	uint64_t events;
	bool opened; /* the counters' values at the window's start given */
};

static double us(sim_time_t t)
{
	return (double)t / (double)SIM_US;
}

static void put(struct tracer *tr, JsonObject *o)
{
	g_autoptr(JsonNode) n = json_node_init_object(json_node_alloc(), o);
	g_autofree char *s = json_to_string(n, FALSE);

	fprintf(tr->out, "%s%s", tr->events++ ? ",\n" : "", s);
	json_object_unref(o);
}

static JsonObject *ev(const char *ph, const char *name, const char *cat,
		      int pid, int64_t tid, sim_time_t t)
{
	JsonObject *o = json_object_new();

	json_object_set_string_member(o, "ph", ph);
	if (name)
		json_object_set_string_member(o, "name", name);
	if (cat)
		json_object_set_string_member(o, "cat", cat);
	json_object_set_int_member(o, "pid", pid);
	json_object_set_int_member(o, "tid", tid);
	json_object_set_double_member(o, "ts", us(t));
	return o;
}

/* A complete slice [b, e) on a track, clipped to the window. */
static void slice(struct tracer *tr, int pid, int64_t tid, const char *name,
		  const char *cat, sim_time_t b, sim_time_t e, const char *key,
		  int64_t val)
{
	JsonObject *o;

	if (b == SIM_TIME_NEVER || e < tr->from || b > tr->to)
		return;
	b = SIM_MAX(b, tr->from);
	e = SIM_MIN(e, tr->to);
	if (e == b && b == 0) /* dispatched at once: not preempted */
		return;
	o = ev("X", name, cat, pid, tid, b);
	json_object_set_double_member(o, "dur", us(e - b));
	if (key) {
		JsonObject *a = json_object_new();

		json_object_set_int_member(a, key, val);
		json_object_set_object_member(o, "args", a);
	}
	put(tr, o);
}

static bool in_window(struct tracer *tr, sim_time_t t)
{
	return t >= tr->from && t <= tr->to;
}

static void counter(struct tracer *tr, int pid, const char *name,
		    const char *series, sim_time_t t, int64_t value)
{
	JsonObject *o, *a;

	if (!in_window(tr, t))
		return;
	o = ev("C", name, NULL, pid, 0, t);
	a = json_object_new();
	json_object_set_int_member(a, series, value);
	json_object_set_object_member(o, "args", a);
	put(tr, o);
}

static void close_slice(struct tracer *tr, struct open_slice *s, int pid,
			int64_t tid, const char *name, const char *cat,
			sim_time_t t, const char *key)
{
	slice(tr, pid, tid, name, cat, s->since, t, key, s->arg);
	s->since = SIM_TIME_NEVER;
}

static void flow(struct tracer *tr, const char *ph, int64_t id, int64_t tid,
		 sim_time_t t)
{
	JsonObject *o;

	if (!in_window(tr, t))
		return;
	o = ev(ph, "wake-up", "wake", PID_VCPU, tid, t);
	json_object_set_int_member(o, "id", id);
	if (ph[0] == 'f')
		json_object_set_string_member(o, "bp", "e");
	put(tr, o);
}

/* An interval off the CPU that is not a preemption, by its kind. */
static const char *asleep_name(int64_t kind)
{
	static const char *const n[] = {"ceded", "halted", "idle", "waking"};

	return kind >= 0 && kind < 4 ? n[kind] : "asleep";
}

static void lock_name(char *buf, size_t n, const char *what, int64_t lock)
{
	g_snprintf(buf, n, "%s lock %" PRId64, what, lock);
}

/*
 * The counters as they stand when the window opens: a counter is drawn
 * from its events, and one that does not change inside the window (no
 * dispatch in a 1 ms window of 10 ms slices) would have none.
 */
static void open_window(struct tracer *tr)
{
	char name[48];

	tr->opened = true;
	counter(tr, PID_PCPU, "running vCPUs", "vCPUs", tr->from, tr->running);
	for (unsigned int l = 0; l < tr->nlocks; l++)
		if (tr->waiters[l]) {
			lock_name(name, sizeof(name), "waiters on", l);
			counter(tr, PID_VCPU, name, "waiters", tr->from,
				tr->waiters[l]);
		}
}

static void on_record(void *data, sim_time_t t, enum sim_tl_kind k, int32_t cpu,
		      int64_t a, int64_t b)
{
	struct tracer *tr = data;
	struct vtrack *v;
	char name[48];

	if (!tr->opened && t >= tr->from)
		open_window(tr);
	if ((unsigned int)cpu >= tr->ncpus)
		return;
	v = &tr->v[cpu];
	switch (k) {
	case SIM_TL_DISPATCHING:
		if ((uint64_t)a < tr->npcpus)
			tr->disp[a] = (struct open_slice){t, cpu};
		break;
	case SIM_TL_RUN:
		if ((uint64_t)a < tr->npcpus) {
			g_snprintf(name, sizeof(name), "dispatch vCPU %d", cpu);
			close_slice(tr, &tr->disp[a], PID_PCPU, a, name, "hv",
				    t, "vcpu");
			tr->run[a] = (struct open_slice){t, cpu};
		}
		close_slice(tr, &v->asleep, PID_VCPU, cpu,
			    asleep_name(v->asleep.arg), "hv", t, NULL);
		close_slice(tr, &v->off, PID_VCPU, cpu, "preempted", "hv", t,
			    NULL);
		if (v->flow) {
			flow(tr, "f", v->flow, cpu, t);
			v->flow = 0;
		}
		tr->running++;
		counter(tr, PID_PCPU, "running vCPUs", "vCPUs", t, tr->running);
		break;
	case SIM_TL_STOP:
		if ((uint64_t)a < tr->npcpus) {
			g_snprintf(name, sizeof(name), "vCPU %d", cpu);
			close_slice(tr, &tr->run[a], PID_PCPU, a, name, "run",
				    t, "vcpu");
		}
		/* preempted: off until it runs; idle: asleep until woken,
		 * then waking until it runs */
		if (!b)
			v->off = (struct open_slice){t, 0};
		else if (v->asleep.since == SIM_TIME_NEVER)
			v->asleep = (struct open_slice){t, 2}; /* idle loop */
		tr->running--;
		counter(tr, PID_PCPU, "running vCPUs", "vCPUs", t, tr->running);
		break;
	case SIM_TL_SLEEP:
		v->asleep = (struct open_slice){t, a};
		break;
	case SIM_TL_WAKE:
		close_slice(tr, &v->asleep, PID_VCPU, cpu,
			    asleep_name(v->asleep.arg), "hv", t, NULL);
		v->asleep = (struct open_slice){t, 3}; /* now: waking */
		if (a >= 0 && (uint64_t)a < tr->ncpus) {
			v->flow = ++tr->flows;
			flow(tr, "s", v->flow, a, t);
		}
		break;
	case SIM_TL_LOCK_WAIT:
		v->wait = (struct open_slice){t, a};
		if ((uint64_t)a < tr->nlocks) {
			tr->waiters[a]++;
			lock_name(name, sizeof(name), "waiters on", a);
			counter(tr, PID_VCPU, name, "waiters", t,
				tr->waiters[a]);
		}
		break;
	case SIM_TL_LOCK_HOLD:
		lock_name(name, sizeof(name), b ? "read-wait" : "wait", a);
		close_slice(tr, &v->wait, PID_VCPU, cpu, name, "lock", t,
			    "lock");
		v->hold = (struct open_slice){t, a};
		if ((uint64_t)a < tr->nlocks) {
			tr->waiters[a]--;
			lock_name(name, sizeof(name), "waiters on", a);
			counter(tr, PID_VCPU, name, "waiters", t,
				tr->waiters[a]);
		}
		break;
	case SIM_TL_LOCK_RELEASE:
		lock_name(name, sizeof(name), "hold", a);
		close_slice(tr, &v->hold, PID_VCPU, cpu, name, "lock", t,
			    "lock");
		break;
	case SIM_TL_HCALL: {
		static const char *const hc[] = {"H_CONFER", "H_PROD", "kick"};

		if ((uint64_t)a < G_N_ELEMENTS(hc))
			slice(tr, PID_VCPU, cpu, hc[a], "hcall",
			      t - SIM_MIN(t, tr->hcall_ps), t, "target", b);
		break;
	}
	}
}

static void meta(struct tracer *tr, const char *what, int pid, int64_t tid,
		 const char *name, int64_t sort)
{
	JsonObject *o = ev("M", what, NULL, pid, tid, 0);
	JsonObject *a = json_object_new();

	json_object_remove_member(o, "ts");
	json_object_set_string_member(a, "name", name);
	json_object_set_object_member(o, "args", a);
	put(tr, o);
	if (sort >= 0) {
		o = ev("M",
		       tid < 0 ? "process_sort_index" : "thread_sort_index",
		       NULL, pid, tid, 0);
		json_object_remove_member(o, "ts");
		a = json_object_new();
		json_object_set_int_member(a, "sort_index", sort);
		json_object_set_object_member(o, "args", a);
		put(tr, o);
	}
}

static void tracks(struct tracer *tr)
{
	char name[48];

	meta(tr, "process_name", PID_PCPU, 0, "pCPUs (the shared pool)", -1);
	meta(tr, "process_name", PID_VCPU, 0, "vCPUs", -1);
	for (unsigned int p = 0; p < tr->npcpus; p++) {
		g_snprintf(name, sizeof(name), "pCPU %u", p);
		meta(tr, "thread_name", PID_PCPU, p, name, p);
	}
	for (unsigned int c = 0; c < tr->ncpus; c++) {
		if (c < tr->guest_vcpus)
			g_snprintf(name, sizeof(name), "vCPU %u", c);
		else
			g_snprintf(name, sizeof(name), "vCPU %u (noise)", c);
		meta(tr, "thread_name", PID_VCPU, c, name, c);
	}
}

/* What is still open at the window's end closes there. */
static void finish(struct tracer *tr)
{
	char name[48];

	if (!tr->opened)
		open_window(tr);

	for (unsigned int p = 0; p < tr->npcpus; p++) {
		g_snprintf(name, sizeof(name), "vCPU %" PRId64, tr->run[p].arg);
		close_slice(tr, &tr->run[p], PID_PCPU, p, name, "run", tr->to,
			    "vcpu");
		g_snprintf(name, sizeof(name), "dispatch vCPU %" PRId64,
			   tr->disp[p].arg);
		close_slice(tr, &tr->disp[p], PID_PCPU, p, name, "hv", tr->to,
			    "vcpu");
	}
	for (unsigned int c = 0; c < tr->ncpus; c++) {
		struct vtrack *v = &tr->v[c];

		lock_name(name, sizeof(name), "wait", v->wait.arg);
		close_slice(tr, &v->wait, PID_VCPU, c, name, "lock", tr->to,
			    "lock");
		lock_name(name, sizeof(name), "hold", v->hold.arg);
		close_slice(tr, &v->hold, PID_VCPU, c, name, "lock", tr->to,
			    "lock");
		close_slice(tr, &v->off, PID_VCPU, c, "preempted", "hv", tr->to,
			    NULL);
		close_slice(tr, &v->asleep, PID_VCPU, c,
			    asleep_name(v->asleep.arg), "hv", tr->to, NULL);
	}
}

bool trace_run(const struct qsim_config *cfg, const struct trace_opts *o,
	       struct trace_result *res, GError **error)
{
	g_autoptr(qsim_config) run = NULL;
	struct tracer tr = {0};
	struct qsim_out of;
	struct qsim_results r;
	g_autofree char *dur = NULL, *wu = NULL;
	char b1[32], b2[32];
	const char *sets[4];
	sim_time_t end, drain_end;
	bool ok;

	tr.from = o->from_set ? o->from_ps : cfg->warmup_ps;
	/* The default window is 1 ms, or what is left of the run. */
	tr.to = o->to_ps ? o->to_ps
			 : SIM_MIN(tr.from + SIM_MS,
				   cfg->warmup_ps + cfg->duration_ps);
	if (tr.to <= tr.from) {
		g_set_error(
			error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			o->to_ps ? "--to must be after --from"
				 : "--from %s: at or after the run's end, %s",
			sim_format_time(tr.from, b1, sizeof(b1)),
			sim_format_time(cfg->warmup_ps + cfg->duration_ps, b2,
					sizeof(b2)));
		return false;
	}
	/* Past the run's end: its drain phase ([check] drain), where a
	 * wake-up lost late in the run is caught, at most hang_bound +
	 * sleep_bound long. */
	end = cfg->warmup_ps + cfg->duration_ps;
	drain_end = cfg->drain ? end + cfg->hang_bound_ps + cfg->sleep_bound_ps
			       : end;
	if (tr.to > drain_end) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    cfg->drain
				    ? "--to %s: after the run's drain, which "
				      "ends by %s"
				    : "--to %s: after the run's end, %s",
			    sim_format_time(tr.to, b1, sizeof(b1)),
			    sim_format_time(drain_end, b2, sizeof(b2)));
		return false;
	}
	/* The same run, ended at the window's end: what happens before it
	 * does not depend on when the run stops; without the drain, which
	 * would start there and not where the run's own does.  A window
	 * that reaches the run's end runs it all, drain included. */
	if (tr.to < end) {
		wu = g_strdup_printf("run.warmup=%" PRIu64 "ps",
				     (uint64_t)SIM_MIN(cfg->warmup_ps, tr.to));
		dur = g_strdup_printf(
			"run.duration=%" PRIu64 "ps",
			(uint64_t)SIM_MAX(
				tr.to - SIM_MIN(cfg->warmup_ps, tr.to),
				(sim_time_t)SIM_US));
	}
	sets[0] = wu;
	sets[1] = dur;
	sets[2] = wu ? "check.drain=false" : NULL;
	sets[3] = NULL;
	run = cfg_load_text(cfg->path, cfg->resolved, (char **)sets, error);
	if (!run)
		return false;
	if (!qsim_out_open(&of, o->out, error))
		return false;
	tr.out = of.f;
	tr.hcall_ps = cfg_hcall(run);
	tr.npcpus = run->pcpus;
	tr.guest_vcpus = run->vcpus;
	tr.ncpus = run->vcpus + cfg_noise_vcpus(run);
	tr.nlocks = run->nlocks;
	tr.run = g_new(struct open_slice, tr.npcpus);
	tr.disp = g_new(struct open_slice, tr.npcpus);
	for (unsigned int p = 0; p < tr.npcpus; p++)
		tr.run[p].since = tr.disp[p].since = SIM_TIME_NEVER;
	tr.v = g_new0(struct vtrack, tr.ncpus);
	for (unsigned int c = 0; c < tr.ncpus; c++)
		tr.v[c].wait.since = tr.v[c].hold.since = tr.v[c].asleep.since =
			SIM_TIME_NEVER;
	/* every vCPU starts runnable and not dispatched: preempted until
	 * it first runs (one that is never dispatched in the window is
	 * drawn so, not left blank) */
	for (unsigned int c = 0; c < tr.ncpus; c++)
		tr.v[c].off = (struct open_slice){0, 0};
	tr.waiters = g_new0(unsigned int, SIM_MAX(tr.nlocks, 1u));
	fprintf(tr.out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
	tracks(&tr);
	ok = qsim_model_run_hooks(
		run, &r, &(struct qsim_hooks){.tl_fn = on_record, .data = &tr},
		error);
	res->status = WL_OK;
	res->violation_ps = 0;
	res->violation = NULL;
	if (ok) {
		/* A violation stops the run: the timeline ends there, with
		 * a mark saying what broke. */
		if (r.status != WL_OK) {
			res->status = r.status;
			res->violation_ps = r.violation_ps;
			res->violation = g_strdup(r.violation_msg);
			tr.to = SIM_MAX(tr.from,
					SIM_MIN(tr.to, r.violation_ps));
			if (in_window(&tr, r.violation_ps)) {
				g_autofree char *name = g_strdup_printf(
					"violation: %s", r.violation_msg);
				JsonObject *mark =
					ev("i", name, "check", PID_PCPU, 0,
					   r.violation_ps);

				json_object_set_string_member(mark, "s", "g");
				put(&tr, mark);
			}
		}
		/* Stopped before the window: nothing happened in it. */
		if (r.status == WL_OK || r.violation_ps >= tr.from)
			finish(&tr);
		qsim_results_clear(&r);
	}
	fprintf(tr.out, "\n]}\n");
	/* a failed run or write leaves the file as it was */
	if (!qsim_out_close(&of, ok, ok ? error : NULL))
		ok = false;
	res->events = tr.events;
	res->from_ps = tr.from;
	res->to_ps = tr.to;
	res->limit_ps = drain_end;
	g_free(tr.run);
	g_free(tr.disp);
	g_free(tr.v);
	g_free(tr.waiters);
	return ok;
}

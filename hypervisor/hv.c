// SPDX-License-Identifier: MIT
/*
 * The hypervisor mechanism: dispatch, undispatch, yield counts, the prod
 * latch and the hcalls.  Policies (which vCPU runs next, when to preempt)
 * are ops tables; see policy_rr.c.  State machine and invariants: hv.h.
 */
#include <glib.h>
#include <string.h>

#include "hypervisor/hv.h"

const struct hv_policy_ops *const hv_policies[] = {
	&hv_policy_rr,	&hv_policy_powervm,
	&hv_policy_kvm, &hv_policy_adversarial,
	NULL,
};

const struct hv_policy_ops *hv_policy_find(const char *name)
{
	for (unsigned int i = 0; hv_policies[i]; i++)
		if (strcmp(hv_policies[i]->name, name) == 0)
			return hv_policies[i];
	return NULL;
}

static void pcpu_ev(struct sim_event *ev);
static void wake_done(struct sim_event *ev);
static void ple_exit(struct sim_event *ev);
static void idle_timer(struct sim_event *ev);
static void ple_spin_hook(void *data, struct sim_cpu *c, bool begin,
			  sim_time_t t);

void hv_init(struct hv *hv, struct sim *s, const struct hv_params *p,
	     uint64_t seed)
{
	memset(hv, 0, sizeof(*hv));
	hv->sim = s;
	hv->p = *p;
	hv->ops = hv_policy_find(p->policy);
	QSIM_BUG_ON(!hv->ops, "unknown policy %s", p->policy);
	sim_rng_init(&hv->rng, seed, SIM_RNG_DISPATCH, 0);
	if (p->ple_window_ps) {
		s->spin_hook = ple_spin_hook;
		s->spin_data = hv;
	}
	hv->pcpus = g_new0(struct hv_pcpu, p->npcpus);
	if (p->keep_dtl)
		hv->dtl =
			g_array_new(FALSE, FALSE, sizeof(struct hv_dtl_record));
	if (p->whole_core) {
		unsigned int ncores;

		QSIM_BUG_ON(!p->smt, "whole-core dispatch needs smt");
		ncores = (p->npcpus + p->smt - 1) / p->smt;
		hv->core_owner = g_new(int, ncores);
		hv->core_busy = g_new0(unsigned int, ncores);
		for (unsigned int c = 0; c < ncores; c++)
			hv->core_owner[c] = -1;
	}
	for (unsigned int i = 0; i < p->npcpus; i++) {
		struct hv_pcpu *pc = &hv->pcpus[i];

		pc->hv = hv;
		pc->id = i;
		pc->idle_since = 0;
		sim_event_init(&pc->ev, pcpu_ev, pc, SIM_PRIO_HV);
	}
}

void hv_destroy(struct hv *hv)
{
	for (unsigned int i = 0; i < hv->nparts; i++) {
		g_free(hv->parts[i]->vcpus);
		g_free(hv->parts[i]);
	}
	for (unsigned int i = 0; i < hv->nvcpus; i++)
		g_free(hv->vcpus[i]);
	g_free(hv->parts);
	g_free(hv->vcpus);
	g_free(hv->pcpus);
	if (hv->dtl)
		g_array_free(hv->dtl, TRUE);
	g_free(hv->core_owner);
	g_free(hv->core_busy);
	memset(hv, 0, sizeof(*hv));
}

struct hv_partition *hv_partition_add(struct hv *hv, unsigned int nvcpus,
				      bool shared, sim_cpu_fn fn,
				      void *const *args)
{
	struct hv_partition *part = g_new0(struct hv_partition, 1);

	QSIM_BUG_ON(hv->nparts >= HV_MAX_PARTS, "too many partitions");
	struct sim_mem *m = &hv->sim->mem;
	size_t line = (size_t)1 << m->line_shift;

	part->id = hv->nparts;
	part->nvcpus = nvcpus;
	part->shared = shared;
	part->entitlement_cpu = 100 * nvcpus; /* until told: dedicated-like */
	part->weight = 128;
	part->vcpus = g_new0(struct hv_vcpu *, nvcpus);
	hv->parts = g_renew(struct hv_partition *, hv->parts, hv->nparts + 1);
	hv->parts[hv->nparts++] = part;
	hv->vcpus = g_renew(struct hv_vcpu *, hv->vcpus, hv->nvcpus + nvcpus);
	for (unsigned int i = 0; i < nvcpus; i++) {
		struct hv_vcpu *v = g_new0(struct hv_vcpu, 1);

		v->hv = hv;
		v->part = part;
		v->idx = i;
		v->gid = hv->nvcpus;
		v->state = HV_RUNNABLE;
		v->last_pcpu = -1;
		/* Each lppaca on its own line, as the real ones are 1 KiB. */
		v->lppaca = sim_mem_alloc(m, sizeof(*v->lppaca), line);
		v->lppaca->yield_count = 1;
		v->cpu = sim_cpu_create(hv->sim, fn, args[i]);
		v->cpu->owner = v;
		sim_event_init(&v->wake_ev, wake_done, v, SIM_PRIO_HV);
		sim_event_init(&v->ple_ev, ple_exit, v, SIM_PRIO_HV);
		sim_event_init(&v->timer_ev, idle_timer, v, SIM_PRIO_HV);
		part->vcpus[i] = v;
		hv->vcpus[hv->nvcpus++] = v;
	}
	return part;
}

struct hv_vcpu *hv_current_vcpu(void)
{
	struct sim_cpu *c = sim_current();

	return c ? c->owner : NULL;
}

void hv_rq_push_tail(struct hv *hv, struct hv_vcpu *v)
{
	QSIM_BUG_ON(v->on_rq, "vCPU %u queued twice", v->gid);
	v->rq_next = NULL;
	v->rq_prev = hv->rq_tail;
	if (hv->rq_tail)
		hv->rq_tail->rq_next = v;
	else
		hv->rq_head = v;
	hv->rq_tail = v;
	v->on_rq = true;
	hv->rq_len++;
}

struct hv_vcpu *hv_rq_take_first(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *v = hv->rq_head;

	while (v && !hv_may_dispatch(hv, p, v))
		v = v->rq_next;
	if (v)
		hv_rq_remove(hv, v);
	return v;
}

void hv_rq_remove(struct hv *hv, struct hv_vcpu *v)
{
	QSIM_BUG_ON(!v->on_rq, "vCPU %u not queued", v->gid);
	if (v->rq_prev)
		v->rq_prev->rq_next = v->rq_next;
	else
		hv->rq_head = v->rq_next;
	if (v->rq_next)
		v->rq_next->rq_prev = v->rq_prev;
	else
		hv->rq_tail = v->rq_prev;
	v->rq_next = v->rq_prev = NULL;
	v->on_rq = false;
	hv->rq_len--;
}

static void yield_count_bump(struct hv_vcpu *v, sim_time_t t)
{
	v->lppaca->yield_count++;
	sim_mem_poke(v->hv->sim, &v->lppaca->yield_count, t);
}

static void pcpu_busy(struct hv_pcpu *p, sim_time_t t)
{
	if (p->idle_since != SIM_TIME_NEVER) {
		if (t > p->idle_since)
			p->idle_ps += t - p->idle_since;
		p->idle_since = SIM_TIME_NEVER;
	}
}

/*
 * Start dispatching @v on @p: it runs after the dispatch latency.
 * @inherit: @v gets the rest of the slice the pCPU's previous vCPU gave up
 * (a confer hands over the rest of the caller's dispatch), not a new one.
 */
static void pcpu_start_after(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t,
			     bool inherit, sim_time_t latency);

static void pcpu_start(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t,
		       bool inherit)
{
	pcpu_start_after(p, v, t, inherit, p->hv->p.dispatch_latency_ps);
}

/* The same, running @v after @latency. */
static void pcpu_start_after(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t,
			     bool inherit, sim_time_t latency)
{
	struct hv *hv = p->hv;

	p->inherit = inherit;
	/* A conferred slice stays on the conferrer's bill (and a slice
	 * conferred on again, on the first conferrer's). */
	if (!inherit || !p->payer || p->payer->part != v->part)
		p->payer = v;
	else
		p->payer->paying = p;
	pcpu_busy(p, t);
	if (hv->p.whole_core) {
		unsigned int c = p->id / hv->p.smt;

		QSIM_BUG_ON(!hv_may_dispatch(hv, p, v));
		hv->core_owner[c] = (int)v->part->id;
		hv->core_busy[c]++;
	}
	p->cur = v;
	v->pcpu = p;
	v->state = HV_DISPATCHING;
	p->ev_kind = HV_PCPU_DISPATCH_DONE;
	p->dispatch_ps += latency;
	sim_schedule(hv->sim, &p->ev, t + latency);
}

static void whole_core_kick(struct hv *hv, sim_time_t t);

static void hv_pcpu_pick(struct hv_pcpu *p, sim_time_t t)
{
	struct hv *hv = p->hv;
	struct hv_vcpu *v = hv->ops->pick(hv, p);

	QSIM_BUG_ON(p->cur != NULL);
	if (!v) {
		if (p->idle_since == SIM_TIME_NEVER)
			p->idle_since = t;
	} else {
		pcpu_start(p, v, t, false);
	}
	whole_core_kick(hv, t);
}

/*
 * Whole-core dispatch: a core's owner changes as its threads pick, so
 * after every pick the idle pCPUs look again for a vCPU they may run.
 */
static void whole_core_kick(struct hv *hv, sim_time_t t)
{
	if (!hv->p.whole_core || hv->kicking)
		return;
	hv->kicking = true;
	/* Until a pass dispatches nothing: a thread that picked may have
	 * claimed its core for a partition a sibling skipped earlier. */
	for (unsigned int before = hv->rq_len + 1; hv->rq_len < before;) {
		before = hv->rq_len;
		hv_kick_idle_pcpus(hv, t);
	}
	hv->kicking = false;
}

/* A vCPU became runnable: queue it and wake an idle pCPU if there is one. */
static void vcpu_make_runnable(struct hv_vcpu *v, sim_time_t t)
{
	struct hv *hv = v->hv;
	struct hv_pcpu *idle = NULL;

	v->state = HV_RUNNABLE;
	hv->ops->enqueue(hv, v);
	if (v->last_pcpu >= 0 && hv_pcpu_free(&hv->pcpus[v->last_pcpu]))
		idle = &hv->pcpus[v->last_pcpu];
	for (unsigned int i = 0; !idle && i < hv->p.npcpus; i++)
		if (hv_pcpu_free(&hv->pcpus[i]))
			idle = &hv->pcpus[i];
	if (idle)
		hv_pcpu_pick(idle, t);
}

static void hv_trace(struct hv_vcpu *v, sim_time_t t, const char *fmt,
		     int64_t a, int64_t b)
{
	sim_trace_add(&v->hv->sim->trace, t, (int32_t)v->gid, fmt, a, b);
}

static sim_time_t slice_of(struct hv *hv, struct hv_vcpu *v)
{
	return hv->ops->slice ? hv->ops->slice(hv, v) : hv->p.slice_ps;
}

/*
 * Close @v's DTL record at its dispatch at @t: add its components, clipped
 * to the measured interval, to the vCPU's figures (and keep the record if
 * the run keeps them).
 */
static void dtl_close(struct hv *hv, struct hv_vcpu *v, sim_time_t t)
{
	sim_time_t s = hv->stats_since;
	struct hv_dtl_record r = {
		.vcpu = v->gid,
		.reason = v->dtl_reason,
		.undispatched_ps = SIM_MAX(v->dtl_undispatched_ps, s),
		.ready_ps = SIM_MAX(v->dtl_ready_ps, s),
		.enqueued_ps = SIM_MAX(v->dtl_enqueued_ps, s),
		.dispatched_ps = t,
	};

	v->dtl_open = false;
	if (t < s)
		return;
	QSIM_BUG_ON(r.undispatched_ps > r.ready_ps ||
		    r.ready_ps > r.enqueued_ps || r.enqueued_ps > t);
	switch (r.reason) {
	case HV_DTL_PREEMPT:
		v->st.dtl_preempt++;
		break;
	case HV_DTL_CEDE:
		v->st.dtl_cede++;
		break;
	default:
		v->st.dtl_confer++;
		break;
	}
	v->st.dtl_wait_ready_ps += r.ready_ps - r.undispatched_ps;
	v->st.dtl_ready_enqueue_ps += r.enqueued_ps - r.ready_ps;
	v->st.dtl_enqueue_dispatch_ps += t - r.enqueued_ps;
	v->st.steal_ps += t - r.ready_ps;
	if (hv->dtl)
		g_array_append_val(hv->dtl, r);
}

static void dispatch_done(struct hv_pcpu *p, sim_time_t t)
{
	struct hv *hv = p->hv;
	struct hv_vcpu *v = p->cur;

	v->state = HV_RUNNING;
	v->dispatched_at = t;
	if (v->dtl_open)
		dtl_close(hv, v, t);
	/* Dispatched into a spin wait: the pause-loop count starts over. */
	if (hv->p.ple_window_ps && v->cpu->wait.active)
		sim_schedule(hv->sim, &v->ple_ev, t + hv->p.ple_window_ps);
	yield_count_bump(v, t);
	v->st.dispatches++;
	hv_trace(v, t, "dispatched on pCPU %" PRId64 ", yield count %" PRId64,
		 p->id, v->lppaca->yield_count);
	sim_cpu_dispatch(v->cpu, t, (int)p->id);
	p->ev_kind = HV_PCPU_SLICE_END;
	if (!p->inherit) {
		p->slice_end_ps = t + slice_of(hv, v);
	} else {
		/* The rest of the slice, but never more than its own. */
		p->slice_end_ps = SIM_MIN(p->slice_end_ps, t + slice_of(hv, v));
		if (p->slice_end_ps < t)
			p->slice_end_ps = t; /* nothing left of it */
	}
	sim_schedule(hv->sim, &p->ev, p->slice_end_ps);
}

/* Charge a running @v's CPU time up to @t to every account. */
static void charge(struct hv_vcpu *v, sim_time_t t)
{
	if (t <= v->dispatched_at)
		return;
	hv_payer(v)->win_used_ps += t - v->dispatched_at;
	v->run_ps += t - v->dispatched_at;
	v->cpu_ps += t - v->dispatched_at;
	v->dispatched_at = t;
}

/* Take @v off its pCPU; the caller decides what the pCPU does next. */
static struct hv_pcpu *vcpu_leave(struct hv_vcpu *v, sim_time_t t, bool idle,
				  enum hv_dtl_reason why)
{
	struct hv_pcpu *p = v->pcpu;

	QSIM_BUG_ON(v->state != HV_RUNNING || !p || p->cur != v);
	sim_evq_cancel(&v->hv->sim->q, &p->ev);
	sim_evq_cancel(&v->hv->sim->q, &v->ple_ev);
	charge(v, t);
	if (v->hv->p.whole_core) {
		unsigned int c = p->id / v->hv->p.smt;

		if (--v->hv->core_busy[c] == 0)
			v->hv->core_owner[c] = -1;
	}
	/* Open the DTL record; a ceded vCPU's ready and queued times come
	 * with its prod and wake. */
	v->dtl_open = true;
	v->dtl_reason = (uint8_t)why;
	v->dtl_undispatched_ps = t;
	v->dtl_ready_ps = t;
	v->dtl_enqueued_ps = t;
	yield_count_bump(v, t);
	sim_cpu_undispatch(v->cpu, t, idle);
	p->cur = NULL;
	v->pcpu = NULL;
	v->last_pcpu = (int)p->id;
	return p;
}

/* Take running @v off its pCPU and queue it again. */
static struct hv_pcpu *vcpu_requeue(struct hv_vcpu *v, sim_time_t t,
				    enum hv_dtl_reason why)
{
	struct hv_pcpu *p = vcpu_leave(v, t, false, why);

	v->state = HV_RUNNABLE;
	v->hv->ops->enqueue(v->hv, v);
	return p;
}

/* The hypervisor takes the pCPU from running @v (@why: as below). */
static void vcpu_preempt(struct hv_vcpu *v, sim_time_t t, const char *why)
{
	vcpu_requeue(v, t, HV_DTL_PREEMPT);
	v->st.preemptions++;
	hv_trace(v, t, why, 0, 0);
}

/*
 * Preempt @p's running vCPU: back on the run queue, @p picks again.
 * @why: the trace format (a literal taking two unused int64 arguments).
 */
static void pcpu_preempt(struct hv_pcpu *p, sim_time_t t, const char *why)
{
	vcpu_preempt(p->cur, t, why);
	hv_pcpu_pick(p, t);
}

/*
 * Whole-core dispatch switches a core as a unit: when one thread's slice
 * ends and it must make room, every running thread of the core goes back
 * on the run queue, and then the core's idle threads pick afresh (the
 * first pick decides the partition the core runs next).
 */
static void core_preempt(struct hv_pcpu *p, sim_time_t t)
{
	struct hv *hv = p->hv;
	unsigned int first = p->id / hv->p.smt * hv->p.smt;
	unsigned int end = SIM_MIN(first + hv->p.smt, hv->p.npcpus);

	for (unsigned int i = first; i < end; i++) {
		struct hv_vcpu *v = hv->pcpus[i].cur;

		if (v && v->state == HV_RUNNING)
			vcpu_preempt(v, t,
				     "preempted with its core%.0" PRId64
				     "%.0" PRId64);
	}
	for (unsigned int i = first; i < end; i++)
		if (hv_pcpu_free(&hv->pcpus[i]))
			hv_pcpu_pick(&hv->pcpus[i], t);
}

static void slice_end(struct hv_pcpu *p, sim_time_t t)
{
	struct hv *hv = p->hv;
	struct hv_vcpu *v = p->cur;

	if (!hv->ops->should_preempt(hv, p)) {
		p->slice_end_ps = t + slice_of(hv, v);
		sim_schedule(hv->sim, &p->ev, p->slice_end_ps);
		return;
	}
	if (hv->p.whole_core) {
		core_preempt(p, t);
		return;
	}
	pcpu_preempt(p, t,
		     "preempted at the end of its slice%.0" PRId64
		     "%.0" PRId64);
}

static void poll_end(struct hv_pcpu *p, sim_time_t t);

static void pcpu_ev(struct sim_event *ev)
{
	struct hv_pcpu *p = ev->data;

	if (p->ev_kind == HV_PCPU_DISPATCH_DONE)
		dispatch_done(p, ev->time_ps);
	else if (p->ev_kind == HV_PCPU_POLL_END)
		poll_end(p, ev->time_ps);
	else
		slice_end(p, ev->time_ps);
}

/* A ceded vCPU is made ready at @t (prod, kick or timer): runnable after
 * the wake latency. */
static void vcpu_wake(struct hv_vcpu *v, sim_time_t t)
{
	v->state = HV_WAKING;
	v->dtl_ready_ps = t;
	sim_schedule(v->hv->sim, &v->wake_ev, t + v->hv->p.wake_latency_ps);
}

static void wake_done(struct sim_event *ev)
{
	struct hv_vcpu *v = ev->data;

	struct hv *hv = v->hv;
	struct hv_pcpu *p;

	QSIM_BUG_ON(v->state != HV_WAKING);
	/* No longer idle: from now on it waits for a pCPU. */
	sim_cpu_set_acct(v->cpu, SIM_ACCT_PREEMPTED, ev->time_ps);
	v->dtl_enqueued_ps = ev->time_ps;
	if (hv->ops->woken)
		hv->ops->woken(hv, v);
	vcpu_make_runnable(v, ev->time_ps);
	if (v->state != HV_RUNNABLE || !hv->ops->wake_preempt)
		return;
	p = hv->ops->wake_preempt(hv, v);
	if (p)
		pcpu_preempt(p, ev->time_ps,
			     "preempted by a waking vCPU%.0" PRId64
			     "%.0" PRId64);
}

/*
 * Directed yield: running @v gives its pCPU, and the rest of its slice, to
 * queued @tv and goes back on the run queue itself.
 */
static void yield_to(struct hv_vcpu *v, struct hv_vcpu *tv, sim_time_t t,
		     enum hv_dtl_reason why)
{
	struct hv *hv = v->hv;
	struct hv_pcpu *p = vcpu_requeue(v, t, why);

	hv_rq_remove(hv, tv);
	pcpu_start(p, tv, t, true);
	whole_core_kick(hv, t);
}

/*
 * Pause-loop exiting.  The engine reports spin waits beginning and ending;
 * a running vCPU that spins ple_window without a break (waits that follow
 * one another within HV_PLE_GAP, as a failed trylock between two spins,
 * count as one loop) exits to the
 * hypervisor, which yields its pCPU to a preempted (queued) vCPU of the
 * same guest, taken round robin, as KVM's directed yield on a spin exit
 * does.  With none queued the vCPU spins on for another window.
 */
static void ple_spin_hook(void *data, struct sim_cpu *c, bool begin,
			  sim_time_t t)
{
	struct hv *hv = data;
	struct hv_vcpu *v = c->owner;

	if (!v)
		return;
	if (!begin) {
		v->ple_spin_end = t;
		return;
	}
	/* A wait right after the last one continues the same loop. */
	if (sim_event_queued(&v->ple_ev) && t - v->ple_spin_end <= HV_PLE_GAP)
		return;
	sim_evq_cancel(&hv->sim->q, &v->ple_ev);
	if (v->state == HV_RUNNING)
		sim_schedule(hv->sim, &v->ple_ev, t + hv->p.ple_window_ps);
}

static void ple_exit(struct sim_event *ev)
{
	struct hv_vcpu *v = ev->data, *tv = NULL;
	struct hv_partition *part = v->part;
	struct hv *hv = v->hv;
	sim_time_t t = ev->time_ps;

	QSIM_BUG_ON(v->state != HV_RUNNING);
	/* The loop broke off: it is doing other work, not spinning. */
	if (!v->cpu->wait.active && t - v->ple_spin_end > HV_PLE_GAP)
		return;
	v->st.ple_exits++;
	for (unsigned int i = 0; i < part->nvcpus && !tv; i++) {
		struct hv_vcpu *o =
			part->vcpus[(part->ple_next + i) % part->nvcpus];

		if (o != v && o->state == HV_RUNNABLE &&
		    hv_may_dispatch(hv, v->pcpu, o))
			tv = o;
	}
	if (!tv) {
		sim_schedule(hv->sim, &v->ple_ev, t + hv->p.ple_window_ps);
		return;
	}
	part->ple_next = (tv->idx + 1) % part->nvcpus;
	v->st.ple_yields++;
	hv_trace(v, t, "pause-loop exit: yields to vCPU %" PRId64 "%.0" PRId64,
		 tv->idx, 0);
	yield_to(v, tv, t, HV_DTL_PREEMPT);
}

sim_time_t hv_vcpu_entitlement(const struct hv *hv, const struct hv_vcpu *v)
{
	return hv->p.window_ps * v->part->entitlement_cpu / 100 /
	       v->part->nvcpus;
}

void hv_kick_idle_pcpus(struct hv *hv, sim_time_t t)
{
	for (unsigned int i = 0; i < hv->p.npcpus && hv->rq_len; i++)
		if (hv_pcpu_free(&hv->pcpus[i]))
			hv_pcpu_pick(&hv->pcpus[i], t);
}

static void window_ev(struct sim_event *ev)
{
	struct hv *hv = ev->data;

	/* Charge the running vCPUs up to here, then open the new window. */
	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		struct hv_vcpu *v = hv->vcpus[i];

		if (v->state == HV_RUNNING)
			charge(v, ev->time_ps);
		v->win_used_ps = 0;
	}
	hv->ops->window(hv, ev->time_ps);
	hv_kick_idle_pcpus(hv, ev->time_ps);
	sim_schedule(hv->sim, &hv->window_ev, ev->time_ps + hv->p.window_ps);
}

void hv_start(struct hv *hv, sim_time_t t)
{
	if (hv->ops->window) {
		sim_event_init(&hv->window_ev, window_ev, hv, SIM_PRIO_HV);
		sim_schedule(hv->sim, &hv->window_ev, t + hv->p.window_ps);
	}
	for (unsigned int i = 0; i < hv->nvcpus; i++)
		hv->ops->enqueue(hv, hv->vcpus[i]);
	for (unsigned int i = 0; i < hv->p.npcpus; i++)
		if (hv_pcpu_free(&hv->pcpus[i]))
			hv_pcpu_pick(&hv->pcpus[i], t);
}

void hv_reset_stats(struct hv *hv, sim_time_t t)
{
	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		struct hv_vcpu *v = hv->vcpus[i];

		memset(&v->st, 0, sizeof(v->st));
		if (v->state == HV_RUNNING)
			charge(v, t);
		v->run_ps = 0;
	}
	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];

		p->idle_ps = 0;
		p->dispatch_ps = 0;
		if (p->idle_since != SIM_TIME_NEVER)
			p->idle_since = t;
	}
	hv->stats_since = t;
	if (hv->dtl)
		g_array_set_size(hv->dtl, 0);
}

void hv_flush_stats(struct hv *hv, sim_time_t t)
{
	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		struct hv_vcpu *v = hv->vcpus[i];

		if (v->state == HV_RUNNING)
			charge(v, t);
		v->st.cpu_time_ps = v->run_ps;
	}
	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];

		if (p->idle_since != SIM_TIME_NEVER && t > p->idle_since) {
			p->idle_ps += t - p->idle_since;
			p->idle_since = t;
		}
	}
}

/* Every hcall: charge its cost as hcall time, then act at the new time. */
static sim_time_t hcall_enter(struct hv_vcpu *v)
{
	struct sim_cpu *c = v->cpu;

	QSIM_BUG_ON(sim_current() != c,
		    "hcall from a vCPU that is not running");
	/* No sync yet: only the hcall's effect must be in time order. */
	sim_cpu_set_acct(c, SIM_ACCT_HCALL, c->now_ps);
	c->now_ps += v->hv->p.hcall_ps;
	sim_cpu_sync(c);
	return c->now_ps;
}

static long hcall_exit(struct hv_vcpu *v, long ret)
{
	struct sim_cpu *c = v->cpu;

	sim_cpu_set_acct(c, c->wait.active ? SIM_ACCT_SPIN : SIM_ACCT_RUN,
			 c->now_ps);
	return ret;
}

/*
 * KVM halt polling (Linux's kvm_vcpu_halt; docs/hypervisor.md): a halted
 * vCPU's host thread polls its pCPU for a wake-up for up to its poll
 * window before it really sleeps; a wake-up while it polls resumes it at
 * once, with no wake or dispatch latency.  After each halt the window
 * adapts as KVM's does: a halt longer than halt_poll_ns_max shrinks it
 * to 0 (halt_poll_ns_shrink = 0), a shorter one grows it, from 10 us
 * (halt_poll_ns_grow_start) doubling (halt_poll_ns_grow = 2), up to the
 * maximum.  The polled time is host work: counted with dispatch.
 */
#define HV_HALT_POLL_GROW_START (10 * SIM_US)

static void halt_poll_adapt(struct hv_vcpu *v, sim_time_t t)
{
	sim_time_t max = v->hv->p.halt_poll_ps, halted = t - v->halted_at;

	if (!max)
		return;
	if (halted > max)
		v->halt_poll_ps = 0;
	else if (v->halt_poll_ps < max)
		v->halt_poll_ps =
			SIM_MIN(max, v->halt_poll_ps ? 2 * v->halt_poll_ps
						     : HV_HALT_POLL_GROW_START);
}

/* The pCPU stops polling for @v: a wake-up came, or the window ran out. */
static void poll_stop(struct hv_pcpu *p, sim_time_t t)
{
	struct hv_vcpu *v = p->polling;

	p->dispatch_ps += t - p->poll_since;
	p->polling = NULL;
	v->poll_pcpu = NULL;
}

static void poll_end(struct hv_pcpu *p, sim_time_t t)
{
	struct hv_vcpu *v = p->polling;

	poll_stop(p, t);
	v->st.halt_polls_missed++;
	hv_pcpu_pick(p, t);
}

/* Give up the pCPU; back when dispatched again (after a prod if ceded).
 * A KVM halt (@poll) first polls, if its window is open. */
static void coroutine_fn vcpu_sleep(struct hv_vcpu *v, sim_time_t t, bool poll)
{
	struct hv_pcpu *p = vcpu_leave(v, t, true, HV_DTL_CEDE);

	v->state = HV_CEDED;
	v->halted_at = t;
	if (poll && v->halt_poll_ps) {
		p->polling = v;
		p->poll_since = t;
		v->poll_pcpu = p;
		p->ev_kind = HV_PCPU_POLL_END;
		sim_schedule(v->hv->sim, &p->ev, t + v->halt_poll_ps);
	} else {
		hv_pcpu_pick(p, t);
	}
	sim_cpu_park(v->cpu);
	if (poll)
		halt_poll_adapt(v, v->cpu->now_ps);
}

/* The adversary's interrupts: a blocking wait may return at once. */
static bool spurious_return(struct hv_vcpu *v)
{
	struct hv *hv = v->hv;

	if (hv->p.spurious_wake <= 0.0 ||
	    sim_rng_unit(&hv->rng) >= hv->p.spurious_wake)
		return false;
	v->st.spurious_returns++;
	return true;
}

/*
 * Sleep until woken (H_CEDE, or KVM's halt): unless a wake-up is latched
 * in @latch (consumed) or the adversary makes it return at once.
 */
static long coroutine_fn hcall_sleep(struct hv_vcpu *v, bool *latch,
				     uint64_t *slept, uint64_t *cut_short,
				     bool kvm)
{
	sim_time_t t = hcall_enter(v);

	if (*latch) {
		*latch = false;
		(*cut_short)++;
		return hcall_exit(v, H_SUCCESS);
	}
	if (spurious_return(v)) {
		hv_trace(v, t,
			 kvm ? "halt returned spuriously%.0" PRId64 "%.0" PRId64
			     : "H_CEDE returned spuriously%.0" PRId64
			       "%.0" PRId64,
			 0, 0);
		return hcall_exit(v, H_SUCCESS);
	}
	(*slept)++;
	hv_trace(v, t,
		 kvm ? "halt: sleeps%.0" PRId64 "%.0" PRId64
		     : "H_CEDE: sleeps%.0" PRId64 "%.0" PRId64,
		 0, 0);
	vcpu_sleep(v, t, kvm);
	return hcall_exit(v, H_SUCCESS);
}

long coroutine_fn hv_hcall_cede(struct hv_vcpu *v)
{
	return hcall_sleep(v, &v->prod_latch, &v->st.cedes,
			   &v->st.latch_returns, false);
}

long coroutine_fn hv_hcall_halt(struct hv_vcpu *v)
{
	return hcall_sleep(v, &v->kick_latch, &v->st.halts, &v->st.kick_returns,
			   true);
}

/* The longest-queued vCPU of @self's partition that may take its pCPU. */
static struct hv_vcpu *partition_first_queued(struct hv *hv,
					      struct hv_vcpu *self)
{
	for (struct hv_vcpu *o = hv->rq_head; o; o = o->rq_next)
		if (o->part == self->part && o != self &&
		    hv_may_dispatch(hv, self->pcpu, o))
			return o;
	return NULL;
}

long coroutine_fn hv_hcall_confer(struct hv_vcpu *v, long target,
				  uint32_t yield_count)
{
	struct hv *hv = v->hv;
	sim_time_t t = hcall_enter(v);
	struct hv_vcpu *tv;

	if (target == -1) {
		v->st.confers_undirected++;
		if (v->prod_latch) {
			v->prod_latch = false;
			v->st.latch_returns++;
			return hcall_exit(v, H_SUCCESS);
		}
		/* The rest of the dispatch goes to another vCPU of the
		 * partition, the one queued longest. */
		tv = partition_first_queued(hv, v);
		if (!tv) {
			v->st.confers_ignored++;
			return hcall_exit(v, H_SUCCESS);
		}
		v->st.confers_yielded++;
		hv_trace(v, t,
			 "H_CONFER(-1): yields to vCPU %" PRId64 "%.0" PRId64,
			 tv->idx, 0);
		yield_to(v, tv, t, HV_DTL_CONFER);
		sim_cpu_park(v->cpu);
		return hcall_exit(v, H_SUCCESS);
	}
	if (target < 0 || (unsigned long)target >= v->part->nvcpus)
		return hcall_exit(v, H_PARAMETER);
	v->st.confers_directed++;
	tv = v->part->vcpus[target];
	if (tv == v) {
		/* Confer to self: wait for a prod, consuming a latched one. */
		if (v->prod_latch) {
			v->prod_latch = false;
			v->st.latch_returns++;
			return hcall_exit(v, H_SUCCESS);
		}
		v->st.cedes++;
		vcpu_sleep(v, t, false);
		return hcall_exit(v, H_SUCCESS);
	}
	if (tv->lppaca->yield_count != yield_count) {
		v->st.confers_stale++;
		return hcall_exit(v, H_SUCCESS);
	}
	if (!(yield_count & 1) || tv->state != HV_RUNNABLE ||
	    (hv->p.prod_cuts_directed_confer && v->prod_latch)) {
		if (v->prod_latch && hv->p.prod_cuts_directed_confer) {
			v->prod_latch = false;
			v->st.latch_returns++;
		}
		v->st.confers_ignored++;
		return hcall_exit(v, H_SUCCESS);
	}
	/* Directed yield: the target takes over this pCPU. */
	v->st.confers_yielded++;
	hv_trace(v, t, "H_CONFER(%" PRId64 ", %" PRId64 "): yields to it",
		 target, yield_count);
	yield_to(v, tv, t, HV_DTL_CONFER);
	sim_cpu_park(v->cpu);
	return hcall_exit(v, H_SUCCESS);
}

/*
 * Wake @target (H_PROD, or KVM's kick): a sleeping target becomes runnable
 * after the wake latency; one not asleep gets the wake latched, so its
 * next sleep returns at once (offset of the latch field in the vCPU).
 */
static long coroutine_fn hcall_wake(struct hv_vcpu *v, long target,
				    size_t latch_off, uint64_t *calls,
				    uint64_t *latched)
{
	struct hv *hv = v->hv;
	sim_time_t t = hcall_enter(v);
	struct hv_vcpu *tv;

	if (target < 0 || (unsigned long)target >= v->part->nvcpus)
		return hcall_exit(v, H_PARAMETER);
	tv = v->part->vcpus[target];
	(*calls)++;
	hv_trace(v, t, "wakes vCPU %" PRId64 ", which was asleep: %" PRId64,
		 target, tv->state == HV_CEDED);
	if (tv->state == HV_CEDED && tv->poll_pcpu) {
		/* Its host thread still polls: it runs again at once. */
		struct hv_pcpu *p = tv->poll_pcpu;

		sim_evq_cancel(&hv->sim->q, &p->ev);
		poll_stop(p, t);
		tv->st.halt_polls_ok++;
		tv->dtl_ready_ps = t;
		tv->dtl_enqueued_ps = t;
		pcpu_start_after(p, tv, t, false, 0);
	} else if (tv->state == HV_CEDED) {
		vcpu_wake(tv, t);
	} else if (tv->state != HV_WAKING && !hv->p.no_latch) {
		*(bool *)((char *)tv + latch_off) = true;
		(*latched)++;
	}
	return hcall_exit(v, H_SUCCESS);
}

long coroutine_fn hv_hcall_prod(struct hv_vcpu *v, long target)
{
	return hcall_wake(v, target, offsetof(struct hv_vcpu, prod_latch),
			  &v->st.prods, &v->st.prods_latched);
}

long coroutine_fn hv_hcall_kick(struct hv_vcpu *v, long target)
{
	return hcall_wake(v, target, offsetof(struct hv_vcpu, kick_latch),
			  &v->st.kicks, &v->st.kicks_latched);
}

const char *const hv_point_names[HV_PT_NR] = {
#define X(name, key, doc) #name,
	HV_POINTS(X)
#undef X
};

void coroutine_fn hv_preempt_self(struct hv_vcpu *v)
{
	sim_time_t t;

	sim_cpu_sync(v->cpu);
	t = v->cpu->now_ps;
	pcpu_preempt(v->pcpu, t,
		     "preempted by the adversary%.0" PRId64 "%.0" PRId64);
	sim_cpu_park(v->cpu);
}

/* The idle timer fired: a ceded vCPU wakes as if prodded. */
static void idle_timer(struct sim_event *ev)
{
	struct hv_vcpu *v = ev->data;

	if (v->state != HV_CEDED)
		return; /* awake already: its idle loop sees the time */
	hv_trace(v, ev->time_ps, "idle timer: wakes%.0" PRId64 "%.0" PRId64, 0,
		 0);
	vcpu_wake(v, ev->time_ps);
}

void coroutine_fn hv_idle(struct hv_vcpu *v, sim_time_t d)
{
	sim_time_t until;

	sim_cpu_sync(v->cpu);
	until = v->cpu->now_ps + d;
	if (!d)
		return;
	sim_schedule(v->hv->sim, &v->timer_ev, until);
	while (v->cpu->now_ps < until) {
		hv_hcall_cede(v);
		sim_cpu_sync(v->cpu);
	}
	sim_evq_cancel(&v->hv->sim->q, &v->timer_ev);
}

void coroutine_fn hv_point(struct hv_vcpu *v, enum hv_point pt)
{
	struct hv *hv = v->hv;

	if (hv->ops->at_point)
		hv->ops->at_point(hv, v, pt);
}

bool hv_check_invariants(const struct hv *hv)
{
	unsigned int queued = 0;

	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		const struct hv_vcpu *v = hv->vcpus[i];
		bool running = v->state == HV_RUNNING;

		if (((v->lppaca->yield_count & 1) == 0) != running)
			return false; /* H1 */
		if ((running || v->state == HV_DISPATCHING) &&
		    (!v->pcpu || v->pcpu->cur != v))
			return false; /* H2 */
		if (v->on_rq != (v->state == HV_RUNNABLE))
			return false; /* H3 */
		queued += v->on_rq;
	}
	for (unsigned int i = 0; hv->p.whole_core && i < hv->p.npcpus; i++) {
		const struct hv_pcpu *p = &hv->pcpus[i];

		if (p->cur &&
		    hv->core_owner[i / hv->p.smt] != (int)p->cur->part->id)
			return false; /* H5: one partition per core */
	}
	return queued == hv->rq_len;
}

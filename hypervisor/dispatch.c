// SPDX-License-Identifier: MIT
/*
 * The dispatch core: starting and ending dispatches, slices, preemption,
 * wake-ups and directed yield; the pCPU's events.  State machine and
 * invariants: hv.h; policies choose (policy_*.c).
 */
#include <glib.h>
#include <string.h>

#include "hypervisor/hv_internal.h"

void hv_yield_count_bump(struct hv_vcpu *v, sim_time_t t)
{
	v->lppaca->yield_count++;
	v->hv->gen++;
	sim_mem_poke(v->hv->sim, &v->lppaca->yield_count, t);
}

void hv_pcpu_busy(struct hv_pcpu *p, sim_time_t t)
{
	if (p->idle_since != SIM_TIME_NEVER) {
		if (t > p->idle_since)
			p->idle_ps += t - p->idle_since;
		p->idle_since = SIM_TIME_NEVER;
	}
}

/* Start dispatching @v on @p (hv_internal.h). */
void hv_pcpu_start(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t,
		   bool inherit)
{
	const struct hv_params *hp = &p->hv->p;
	sim_time_t lat = hp->dispatch_latency_ps;

	/* A partition switch (LPID, MMU context) and a vCPU moving to
	 * another pCPU cost more than a switch between a partition's vCPUs
	 * on the pCPU they ran on. */
	if (p->last_part >= 0 && p->last_part != (int)v->part->id)
		lat += hp->partition_switch_ps;
	if (v->last_pcpu >= 0 && v->last_pcpu != (int)p->id)
		lat += hp->vcpu_migrate_ps;
	hv_pcpu_start_after(p, v, t, inherit, lat);
}

/* The same, running @v after @latency. */
void hv_pcpu_start_after(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t,
			 bool inherit, sim_time_t latency)
{
	struct hv *hv = p->hv;

	QSIM_BUG_ON(hv_vcpu_lent(v, p)); /* one dispatch at a time */
	hv->gen++;
	p->inherit = inherit;
	/* A conferred slice stays on the conferrer's bill (and a slice
	 * conferred on again, on the first conferrer's). */
	if (!inherit || !p->payer || p->payer->part != v->part)
		p->payer = v;
	else
		p->payer->paying = p;
	/* The pool time a dispatch takes counts against the payer's share
	 * of spare capacity when it runs on spare time (the partition
	 * whose vCPUs confer often makes the pool dispatch often). */
	if (hv->ops->window && latency &&
	    p->payer->win_used_ps >= hv_vcpu_entitlement(hv, p->payer))
		p->payer->part->spare_vt += hv_spare_vt_of(
			hv, p->payer, p->payer->win_used_ps, latency);
	hv_pcpu_busy(p, t);
	if (hv->p.whole_core) {
		unsigned int c = p->id / hv->p.smt;

		QSIM_BUG_ON(!hv_may_dispatch(hv, p, v));
		hv->core_owner[c] = (int)v->part->id;
		hv->core_busy[c]++;
	}
	p->cur = v;
	p->last_part = (int)v->part->id;
	v->pcpu = p;
	v->state = HV_DISPATCHING;
	sim_tl(hv->sim, t, SIM_TL_DISPATCHING, (int32_t)v->cpu->id, p->id, 0);
	p->ev_kind = HV_PCPU_DISPATCH_DONE;
	p->dispatch_ps += latency;
	sim_schedule(hv->sim, &p->ev, t + latency);
}

/* May a confer hand its cycles to @tv (PAPR: not dispatched, not ceded,
 * not conferring to all, its dispatch count unchanged)? */
static bool confer_target_ok(struct hv_vcpu *tv, uint32_t yc)
{
	return tv->state == HV_RUNNABLE && !hv_vcpu_conferring(tv) &&
	       tv->lppaca->yield_count == yc;
}

/*
 * @v, conferring to all, was picked for @p: its dispatch goes instead to
 * the next entry of its confer structure that may take it, on @v's bill
 * and slice; @v waits at the back of the queue.  False once the
 * structure is clear: @v itself runs.
 */
static bool confer_instead(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t)
{
	struct hv *hv = p->hv;

	while (v->confer_next < v->confer_n) {
		struct hv_confer_entry *e = &v->confer[v->confer_next++];

		if (!confer_target_ok(e->v, e->yield_count) ||
		    !hv_may_dispatch(hv, p, e->v))
			continue;
		hv_rq_remove(hv, e->v);
		hv->ops->enqueue(hv, v);
		hv_trace(v, t,
			 "its confer structure gives the dispatch to vCPU "
			 "%" PRId64 "%.0" PRId64,
			 e->v->idx, 0);
		p->payer = v;
		p->slice_end_ps =
			t + hv->p.dispatch_latency_ps + hv_slice_of(hv, v);
		hv_pcpu_start(p, e->v, t, true);
		return true;
	}
	v->confer_n = v->confer_next = 0;
	return false;
}

/*
 * One run queue for the pool: a vCPU just queued (preempted, or the
 * lender or yielder of a slice) is offered to the free pCPUs, which may
 * have idled while nothing queued could run on them.  Not from inside a
 * kick (the picks it makes call here).
 */
static void offer_to_idle(struct hv *hv, sim_time_t t, const struct hv_vcpu *v)
{
	if (!hv->ops->shared_queue || hv->kicking)
		return;
	hv->kicking = true;
	hv_kick_idle_pcpus_from(hv, t, v);
	hv->kicking = false;
}

void hv_pcpu_pick(struct hv_pcpu *p, sim_time_t t)
{
	struct hv *hv = p->hv;
	/* The bill of the dispatch that ended here: its vCPU, if queued,
	 * may be dispatched again now (hv_vcpu_lent). */
	struct hv_vcpu *lender = p->payer;
	struct hv_vcpu *v = hv->ops->pick(hv, p);

	QSIM_BUG_ON(p->cur != NULL);
	if (!v) {
		if (p->idle_since == SIM_TIME_NEVER)
			p->idle_since = t;
	} else if (!v->confer_n || !confer_instead(p, v, t)) {
		hv_pcpu_start(p, v, t, false);
	}
	/* If this pCPU took another, a free one takes the lender. */
	if (lender && lender->on_rq)
		offer_to_idle(hv, t, lender);
	hv_whole_core_kick(hv, t);
}

/*
 * Whole-core dispatch: a core's owner changes as its threads pick, so
 * after every pick the idle pCPUs look again for a vCPU they may run.
 */
void hv_whole_core_kick(struct hv *hv, sim_time_t t)
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
void hv_vcpu_make_runnable(struct hv_vcpu *v, sim_time_t t)
{
	struct hv *hv = v->hv;
	struct hv_pcpu *idle = NULL;

	v->state = HV_RUNNABLE;
	hv->ops->enqueue(hv, v);
	if (hv->ops->target) {
		idle = hv->ops->target(hv, v);
		if (idle && idle->polling) {
			/*
			 * KVM polls only while nothing else wants the CPU
			 * (kvm_vcpu_can_poll: single_task_running()): the
			 * poll ends and the pCPU picks.
			 */
			sim_evq_cancel(&hv->sim->q, &idle->ev);
			hv_poll_end(idle, t);
		} else if (idle && hv_pcpu_free(idle)) {
			hv_pcpu_pick(idle, t);
		}
		return;
	}
	if (v->last_pcpu >= 0 && hv_pcpu_free(&hv->pcpus[v->last_pcpu]))
		idle = &hv->pcpus[v->last_pcpu];
	for (unsigned int i = 0; !idle && i < hv->p.npcpus; i++)
		if (hv_pcpu_free(&hv->pcpus[i]))
			idle = &hv->pcpus[i];
	if (idle)
		hv_pcpu_pick(idle, t);
}

void hv_trace(struct hv_vcpu *v, sim_time_t t, const char *fmt, int64_t a,
	      int64_t b)
{
	sim_trace_add(&v->hv->sim->trace, t, (int32_t)v->gid, fmt, a, b);
}

sim_time_t hv_slice_of(struct hv *hv, struct hv_vcpu *v)
{
	return hv->ops->slice ? hv->ops->slice(hv, v) : hv->p.slice_ps;
}

/*
 * Add @v's undispatched time up to @t, made ready at @ready and queued at
 * @enq, clipped to the measured interval, to its figures: the components
 * of its DTL record (or of its wait for the first dispatch) and steal.
 * False if @t is before the interval.
 */
static bool dtl_account(struct hv *hv, struct hv_vcpu *v, sim_time_t ready,
			sim_time_t enq, sim_time_t t)
{
	sim_time_t s = hv->stats_since;
	sim_time_t und = SIM_MAX(v->dtl_undispatched_ps, s);

	if (t < s)
		return false;
	ready = SIM_MAX(ready, s);
	enq = SIM_MAX(enq, s);
	QSIM_BUG_ON(und > ready || ready > enq || enq > t);
	v->st.dtl_wait_ready_ps += ready - und;
	v->st.dtl_ready_enqueue_ps += enq - ready;
	v->st.dtl_enqueue_dispatch_ps += t - enq;
	v->st.steal_ps += t - ready;
	return true;
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
	if (!dtl_account(hv, v, v->dtl_ready_ps, v->dtl_enqueued_ps, t))
		return;
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
	if (hv->dtl)
		g_array_append_val(hv->dtl, r);
}

/*
 * At the measured interval's end @t: the undispatched time of a record
 * still open (or of a first dispatch still awaited) counts in the figures
 * up to @t, so that CPU time and the records' components tile the
 * interval; the record itself is not counted or kept (it has no
 * dispatch).  A ceded vCPU not yet made ready waits for that up to @t, a
 * waking one is made ready but not yet queued.
 */
void hv_dtl_flush(struct hv *hv, struct hv_vcpu *v, sim_time_t t)
{
	sim_time_t ready = v->dtl_ready_ps, enq = v->dtl_enqueued_ps;

	if (!v->dtl_open && !v->dtl_first)
		return;
	/* A run a violation stopped ends where it was found, and a vCPU
	 * running ahead of it (its local time) may have left after that:
	 * nothing of that record falls in the run. */
	if (v->dtl_undispatched_ps >= t)
		return;
	if (v->state == HV_CEDED)
		ready = enq = t;
	else if (v->state == HV_WAKING)
		enq = t;
	dtl_account(hv, v, SIM_MIN(ready, t), SIM_MIN(enq, t), t);
}

static void dispatch_done(struct hv_pcpu *p, sim_time_t t)
{
	struct hv *hv = p->hv;
	struct hv_vcpu *v = p->cur;

	v->state = HV_RUNNING;
	v->dispatched_at = t;
	if (v->dtl_open)
		dtl_close(hv, v, t);
	if (v->dtl_first) {
		v->dtl_first = false;
		dtl_account(hv, v, v->dtl_ready_ps, v->dtl_enqueued_ps, t);
	}
	/* Dispatched into a spin wait: the pause-loop count starts over. */
	/* Scheduled in: KVM's PLE window shrinks back to its base
	 * (ple_window_shrink = 0 resets it). */
	v->ple_cur_ps = hv->p.ple_window_ps;
	if (hv->p.ple_window_ps && v->cpu->wait.active)
		sim_schedule(hv->sim, &v->ple_ev, t + v->ple_cur_ps);
	hv_yield_count_bump(v, t);
	if (v->lppaca->preempted) {
		/* KVM clears it as the vCPU enters (record_steal_time). */
		v->lppaca->preempted = 0;
		sim_mem_poke(hv->sim, &v->lppaca->preempted, t);
	}
	v->st.dispatches++;
	hv_trace(v, t, "dispatched on pCPU %" PRId64 ", yield count %" PRId64,
		 p->id, v->lppaca->yield_count);
	sim_cpu_dispatch(v->cpu, t, (int)p->id);
	p->ev_kind = HV_PCPU_SLICE_END;
	if (!p->inherit) {
		p->slice_end_ps = t + hv_slice_of(hv, v);
	} else {
		/* The rest of the slice, but never more than its own. */
		p->slice_end_ps =
			SIM_MIN(p->slice_end_ps, t + hv_slice_of(hv, v));
		if (p->slice_end_ps < t)
			p->slice_end_ps = t; /* nothing left of it */
	}
	sim_schedule(hv->sim, &p->ev, p->slice_end_ps);
}

/* Charge a running @v's CPU time up to @t to every account. */
void hv_charge(struct hv_vcpu *v, sim_time_t t)
{
	struct hv_vcpu *payer = hv_payer(v);
	sim_time_t d;

	if (t <= v->dispatched_at)
		return;
	d = t - v->dispatched_at;
	/* Entitlement windows: what goes beyond the payer's entitlement is
	 * spare capacity, its partition's uncapped share. */
	if (v->hv->ops->window)
		payer->part->spare_vt +=
			hv_spare_vt_of(v->hv, payer, payer->win_used_ps, d);
	payer->win_used_ps += d;
	v->run_ps += d;
	v->cpu_ps += d;
	v->dispatched_at = t;
}

/* Take @v off its pCPU; the caller decides what the pCPU does next. */
struct hv_pcpu *hv_vcpu_leave(struct hv_vcpu *v, sim_time_t t, bool idle,
			      enum hv_dtl_reason why)
{
	struct hv_pcpu *p = v->pcpu;

	QSIM_BUG_ON(v->state != HV_RUNNING || !p || p->cur != v);
	sim_evq_cancel(&v->hv->sim->q, &p->ev);
	sim_evq_cancel(&v->hv->sim->q, &v->ple_ev);
	hv_charge(v, t);
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
	hv_yield_count_bump(v, t);
	if (!idle) {
		/* Scheduled out while runnable (kvm_sched_out: on_rq): the
		 * steal-time preempted flag (kvm_steal_time_set_preempted). */
		v->lppaca->preempted = 1;
		sim_mem_poke(v->hv->sim, &v->lppaca->preempted, t);
	}
	sim_cpu_undispatch(v->cpu, t, idle);
	v->hv->gen++;
	p->cur = NULL;
	v->pcpu = NULL;
	v->last_pcpu = (int)p->id;
	return p;
}

/* Take running @v off its pCPU and queue it again. */
struct hv_pcpu *hv_vcpu_requeue(struct hv_vcpu *v, sim_time_t t,
				enum hv_dtl_reason why)
{
	struct hv_pcpu *p = hv_vcpu_leave(v, t, false, why);

	v->state = HV_RUNNABLE;
	v->hv->ops->enqueue(v->hv, v);
	return p;
}

/* The hypervisor takes the pCPU from running @v (@why: as below). */
void hv_vcpu_preempt(struct hv_vcpu *v, sim_time_t t, const char *why)
{
	hv_vcpu_requeue(v, t, HV_DTL_PREEMPT);
	v->st.preemptions++;
	hv_trace(v, t, why, 0, 0);
}

/*
 * Preempt @p's running vCPU: back on the run queue, @p picks again.
 * @why: the trace format (a literal taking two unused int64 arguments).
 */
void hv_pcpu_preempt(struct hv_pcpu *p, sim_time_t t, const char *why)
{
	struct hv *hv = p->hv;
	struct hv_vcpu *v = p->cur;

	hv_vcpu_preempt(v, t, why);
	hv_pcpu_pick(p, t);
	offer_to_idle(hv, t, v);
}

/*
 * Whole-core dispatch switches a core as a unit: when one thread's slice
 * ends and it must make room, every running thread of the core goes back
 * on the run queue, and then the core's idle threads pick afresh (the
 * first pick decides the partition the core runs next).  @why: as for
 * hv_pcpu_preempt.
 */
static void core_preempt(struct hv_pcpu *p, sim_time_t t, const char *why)
{
	struct hv *hv = p->hv;
	unsigned int first, end;

	hv_core_range(hv, p, &first, &end);
	for (unsigned int i = first; i < end; i++) {
		struct hv_vcpu *v = hv->pcpus[i].cur;

		if (v && v->state == HV_RUNNING)
			hv_vcpu_preempt(v, t, why);
	}
	for (unsigned int i = first; i < end; i++)
		if (hv_pcpu_free(&hv->pcpus[i]))
			hv_pcpu_pick(&hv->pcpus[i], t);
}

/*
 * Preempt @p for queued @v.  Under whole-core dispatch a vCPU of another
 * partition can have none of the core's threads while the partition
 * running there keeps one, so with a policy that says so (its
 * wake_preempt checked every thread of the core: whole_core_preempt) the
 * whole core goes.
 */
void hv_pcpu_preempt_for(struct hv_pcpu *p, const struct hv_vcpu *v,
			 sim_time_t t, const char *why)
{
	struct hv *hv = p->hv;

	if (hv->p.whole_core && hv->ops->whole_core_preempt &&
	    p->cur->part != v->part)
		core_preempt(p, t, why);
	else
		hv_pcpu_preempt(p, t, why);
}

static void slice_end(struct hv_pcpu *p, sim_time_t t)
{
	struct hv *hv = p->hv;
	struct hv_vcpu *v = p->cur;

	if (!hv->ops->should_preempt(hv, p)) {
		p->slice_end_ps = t + hv_slice_of(hv, v);
		sim_schedule(hv->sim, &p->ev, p->slice_end_ps);
		return;
	}
	if (hv->p.whole_core) {
		core_preempt(p, t,
			     "preempted with its core%.0" PRId64 "%.0" PRId64);
		return;
	}
	hv_pcpu_preempt(p, t,
			"preempted at the end of its slice%.0" PRId64
			"%.0" PRId64);
}

void hv_pcpu_ev(struct sim_event *ev)
{
	struct hv_pcpu *p = ev->data;

	if (p->ev_kind == HV_PCPU_DISPATCH_DONE)
		dispatch_done(p, ev->time_ps);
	else if (p->ev_kind == HV_PCPU_POLL_END)
		hv_poll_end(p, ev->time_ps);
	else
		slice_end(p, ev->time_ps);
}

/* A ceded vCPU is made ready at @t (prod, kick or timer): runnable after
 * the wake latency. */
void hv_vcpu_wake(struct hv_vcpu *v, sim_time_t t)
{
	v->state = HV_WAKING;
	v->dtl_ready_ps = t;
	sim_schedule(v->hv->sim, &v->wake_ev, t + v->hv->p.wake_latency_ps);
}

void hv_wake_done(struct sim_event *ev)
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
	hv_vcpu_make_runnable(v, ev->time_ps);
	if (v->boost_pending && v->state == HV_RUNNABLE && v->rq_cpu >= 0) {
		/* Its kicker yielded to it: next on its pCPU, now. */
		p = &hv->pcpus[v->rq_cpu];
		v->boost_pending = false;
		p->next_buddy = v;
		if (p->cur && p->cur->state == HV_RUNNING) {
			hv_pcpu_preempt(p, ev->time_ps,
					"preempted for a kicked vCPU%.0" PRId64
					"%.0" PRId64);
			return;
		}
	}
	v->boost_pending = false;
	if (v->state != HV_RUNNABLE || !hv->ops->wake_preempt)
		return;
	p = hv->ops->wake_preempt(hv, v);
	if (p)
		hv_pcpu_preempt_for(p, v, ev->time_ps,
				    "preempted by a waking vCPU%.0" PRId64
				    "%.0" PRId64);
}

/*
 * Directed yield, PowerVM's way: running @v gives its pCPU, and the rest
 * of its slice, to queued @tv and goes back on the run queue itself.
 * Linux's way (yield_in_place: KVM's kvm_vcpu_yield_to calls yield_to):
 * @tv becomes the next buddy of its own pCPU, whose running vCPU is
 * preempted for it (resched_curr); @v yields (skip buddy) and leaves its
 * pCPU only if someone else is queued there.
 */
bool hv_yield_to(struct hv_vcpu *v, struct hv_vcpu *tv, sim_time_t t,
		 enum hv_dtl_reason why)
{
	struct hv *hv = v->hv;
	struct hv_pcpu *p, *q;

	if (!hv->ops->yield_in_place) {
		p = hv_vcpu_requeue(v, t, why);
		hv_rq_remove(hv, tv);
		hv_pcpu_start(p, tv, t, true);
		/* The yielder, queued, may run on a free pCPU (one that
		 * idled while it was lent). */
		offer_to_idle(hv, t, v);
		hv_whole_core_kick(hv, t);
		return true;
	}
	p = v->pcpu;
	q = tv->rq_cpu >= 0 ? &hv->pcpus[tv->rq_cpu] : p;
	q->next_buddy = tv;
	if (q != p) {
		if (q->polling) {
			sim_evq_cancel(&hv->sim->q, &q->ev);
			hv_poll_end(q, t);
		} else if (q->cur && q->cur->state == HV_RUNNING) {
			hv_pcpu_preempt(
				q, t,
				"preempted for a directed yield%.0" PRId64
				"%.0" PRId64);
		} else if (hv_pcpu_free(q)) {
			hv_pcpu_pick(q, t);
		}
		if (!p->nr_queued)
			return false; /* nobody else here: it runs on */
	}
	p->skip_buddy = v;
	hv_vcpu_requeue(v, t, why);
	hv_pcpu_pick(p, t);
	return true;
}

// SPDX-License-Identifier: MIT
/*
 * The hcalls (H_CEDE, H_CONFER, H_PROD; KVM's halt and kick), the
 * guest's idle loop and shim points.  Semantics: docs/hypervisor.md.
 */
#include <glib.h>
#include <string.h>

#include "hypervisor/hv_internal.h"

/* Every hcall: hv_charge its cost as hcall time, then act at the new time. */
static sim_time_t hcall_enter(struct hv_vcpu *v)
{
	struct sim_cpu *c = v->cpu;

	QSIM_BUG_ON(sim_current() != c,
		    "hcall from a vCPU that is not running");
	sim_cpu_impure(c); /* ends a raw spin's speculation */
	/* No sync yet: only the hcall's effect must be in time order. */
	sim_cpu_set_acct(c, SIM_ACCT_HCALL, c->now_ps);
	c->now_ps += v->hv->p.hcall_ps;
	sim_cpu_sync(c);
	return c->now_ps;
}

static long hcall_exit(struct hv_vcpu *v, long ret)
{
	struct sim_cpu *c = v->cpu;

	sim_cpu_set_acct(c, sim_cpu_busy_acct(c), c->now_ps);
	return ret;
}

/* Give up the pCPU; back when dispatched again (after a prod if ceded).
 * A KVM halt (@poll) first polls, if its window is open. */
static void coroutine_fn vcpu_sleep(struct hv_vcpu *v, sim_time_t t, bool poll)
{
	struct hv_pcpu *p = hv_vcpu_leave(v, t, true, HV_DTL_CEDE);

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
		hv_halt_poll_adapt(v, v->cpu->now_ps);
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
	if (v->timer_pending) {
		/* A pending interrupt (the idle timer) ends it at once. */
		v->timer_pending = false;
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
	sim_tl(v->hv->sim, t, SIM_TL_SLEEP, (int32_t)v->cpu->id,
	       v->in_idle ? 2 : kvm, 0);
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

/*
 * PAPR's H_CONFER to all: record, in @v's confer structure, the
 * partition's other vCPUs that are preempted now (queued, not ceded, not
 * conferring to all) with their dispatch counts, in queue order (the
 * longest queued first).  Returns how many.
 */
static unsigned int confer_record(struct hv *hv, struct hv_vcpu *v)
{
	unsigned int n = 0;

	if (!v->confer)
		v->confer = g_new(struct hv_confer_entry, v->part->nvcpus);
	for (struct hv_vcpu *o = hv->rq_head; o; o = o->rq_next)
		if (o->part == v->part && o != v && !hv_vcpu_conferring(o)) {
			v->confer[n].v = o;
			v->confer[n].yield_count = o->lppaca->yield_count;
			n++;
		}
	return n;
}

bool hv_confer_rescan;

/*
 * At a generation when every confer target of @v's partition was lent to
 * another pCPU, could one be a target for @v?  Only the vCPU whose slice
 * @v's pCPU runs (its payer): any other is still lent elsewhere.
 */
static bool payer_may_take(struct hv_vcpu *v)
{
	struct hv_vcpu *o = v->pcpu ? v->pcpu->payer : NULL;

	return o && o != v && o->part == v->part && o->on_rq &&
	       !hv_vcpu_conferring(o);
}

long coroutine_fn hv_hcall_confer(struct hv_vcpu *v, long target,
				  uint32_t yield_count)
{
	struct hv *hv = v->hv;
	sim_time_t t = hcall_enter(v);
	struct hv_vcpu *tv;

	sim_tl(hv->sim, t, SIM_TL_HCALL, (int32_t)v->cpu->id, SIM_TL_CONFER,
	       target >= 0 && (unsigned long)target < v->part->nvcpus
		       ? (int64_t)v->part->vcpus[target]->cpu->id
		       : -1);
	if (target == -1) {
		v->st.confers_undirected++;
		if (v->prod_latch) {
			v->prod_latch = false;
			v->st.latch_returns++;
			return hcall_exit(v, H_SUCCESS);
		}
		/* KVM-HV ignores a confer to all: it returns at once. */
		if (hv->ops->yield_in_place) {
			v->st.confers_ignored++;
			return hcall_exit(v, H_SUCCESS);
		}
		/*
		 * PowerVM: until every vCPU of the partition preempted now
		 * has had a dispatch, @v's dispatches go to them (its confer
		 * structure, consumed in hv_pcpu_pick); the rest of this one
		 * goes to the first of them that may take this pCPU.  If
		 * nothing it looks at changed since its last confer found
		 * nobody, it finds nobody again (host time only: the same
		 * result without the scan).
		 */
		if (!hv_confer_rescan &&
		    (v->confer_none_gen == hv->gen ||
		     v->part->confer_empty_gen == hv->gen ||
		     (v->part->confer_lent_gen == hv->gen &&
		      !payer_may_take(v)))) {
			v->st.confers_ignored++;
			return hcall_exit(v, H_SUCCESS);
		}
		v->confer_n = confer_record(hv, v);
		v->confer_next = 0;
		/* The record is the same for every running vCPU of the
		 * partition (it lists queued ones only): an empty one holds
		 * for all of them until the hypervisor moves. */
		if (!v->confer_n)
			v->part->confer_empty_gen = hv->gen;
		for (tv = NULL; v->confer_next < v->confer_n && !tv;) {
			struct hv_confer_entry *e =
				&v->confer[v->confer_next++];

			if (hv_may_dispatch(hv, v->pcpu, e->v))
				tv = e->v;
		}
		if (!tv) {
			/* Nobody to confer to here (none preempted, or
			 * none may run on this core): it returns.  Without
			 * whole-core dispatch, what stopped each target was
			 * its lent dispatch: remembered for the partition. */
			if (v->confer_n && !hv->p.whole_core)
				v->part->confer_lent_gen = hv->gen;
			v->confer_n = v->confer_next = 0;
			v->confer_none_gen = hv->gen;
			v->st.confers_ignored++;
			return hcall_exit(v, H_SUCCESS);
		}
		v->st.confers_yielded++;
		hv_trace(v, t,
			 "H_CONFER(-1): yields to vCPU %" PRId64 "%.0" PRId64,
			 tv->idx, 0);
		if (hv_yield_to(v, tv, t, HV_DTL_CONFER))
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
	    hv_vcpu_conferring(tv) || hv_vcpu_lent(tv, v->pcpu) ||
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
	if (hv_yield_to(v, tv, t, HV_DTL_CONFER))
		sim_cpu_park(v->cpu);
	return hcall_exit(v, H_SUCCESS);
}

/* Wake ceded or halted @v: at once if its pCPU still polls for it, else
 * runnable after the wake latency. */
/* Wake ceded or halted @v at @t; @by: the waker's engine cpu, or -1. */
static void wake_sleeper(struct hv_vcpu *v, sim_time_t t, int64_t by)
{
	struct hv *hv = v->hv;
	struct hv_pcpu *p = v->poll_pcpu;

	sim_tl(hv->sim, t, SIM_TL_WAKE, (int32_t)v->cpu->id, by, 0);
	if (!p) {
		hv_vcpu_wake(v, t);
		return;
	}
	/* Its host thread still polls: it runs again at once. */
	sim_evq_cancel(&hv->sim->q, &p->ev);
	hv_poll_stop(p, t);
	v->st.halt_polls_ok++;
	v->dtl_ready_ps = t;
	v->dtl_enqueued_ps = t;
	hv_pcpu_start_after(p, v, t, false, 0);
}

void hv_irq_hook(void *data, struct sim_cpu *c, sim_time_t t, bool tick)
{
	struct hv_vcpu *v = c->owner;

	(void)data;
	if (!v || v->state != HV_CEDED || (tick && v->in_idle))
		return;
	v->st.irq_wakes++;
	hv_trace(v, t,
		 tick ? "a tick ends its sleep%.0" PRId64 "%.0" PRId64
		      : "an interrupt ends its sleep%.0" PRId64 "%.0" PRId64,
		 0, 0);
	wake_sleeper(v, t, -1);
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
	sim_tl(hv->sim, t, SIM_TL_HCALL, (int32_t)v->cpu->id,
	       latch_off == offsetof(struct hv_vcpu, kick_latch) ? SIM_TL_KICK
								 : SIM_TL_PROD,
	       (int64_t)tv->cpu->id);
	hv_trace(v, t, "wakes vCPU %" PRId64 ", which was asleep: %" PRId64,
		 target, tv->state == HV_CEDED);
	/* A prod is for a vCPU conferring to all a reason to run: its
	 * confer structure is dropped (PAPR: the prodded processor is
	 * dispatched). */
	tv->confer_n = tv->confer_next = 0;
	hv->gen++;
	if (tv->state == HV_CEDED) {
		wake_sleeper(tv, t, (int64_t)v->cpu->id);
	} else if (tv->state != HV_WAKING && !hv->p.no_latch) {
		*(bool *)((char *)tv + latch_off) = true;
		(*latched)++;
	}
	/*
	 * KVM's kick hypercall then yields to the kicked vCPU if it waits
	 * for a CPU (kvm_sched_yield after kvm_pv_kick_cpu_op): it runs
	 * next on its own pCPU.  One still waking gets that when queued.
	 */
	if (latch_off == offsetof(struct hv_vcpu, kick_latch) &&
	    hv->ops->yield_in_place && hv->p.kick_yield) {
		if (tv->state == HV_WAKING) {
			tv->boost_pending = true;
		} else if (tv->state == HV_RUNNABLE) {
			v->st.kick_yields++;
			if (hv_yield_to(v, tv, t, HV_DTL_PREEMPT))
				sim_cpu_park(v->cpu);
		}
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

void coroutine_fn hv_preempt_self(struct hv_vcpu *v)
{
	sim_time_t t;

	sim_cpu_sync(v->cpu);
	t = v->cpu->now_ps;
	hv_pcpu_preempt(v->pcpu, t,
			"preempted by the adversary%.0" PRId64 "%.0" PRId64);
	sim_cpu_park(v->cpu);
}

/* The idle timer fired: a ceded vCPU wakes as if prodded. */
void hv_idle_timer(struct sim_event *ev)
{
	struct hv_vcpu *v = ev->data;

	if (v->state != HV_CEDED) {
		/* Awake: the decrementer interrupt stays pending, so a cede
		 * on the way (its hcall under way) returns at once. */
		v->timer_pending = true;
		return;
	}
	hv_trace(v, ev->time_ps, "idle timer: wakes%.0" PRId64 "%.0" PRId64, 0,
		 0);
	/* As any interrupt: a halt-polling host thread sees it at once. */
	wake_sleeper(v, ev->time_ps, -1);
}

void coroutine_fn hv_idle(struct hv_vcpu *v, sim_time_t d)
{
	sim_time_t until;

	sim_cpu_sync(v->cpu);
	until = v->cpu->now_ps + d;
	if (!d)
		return;
	sim_schedule(v->hv->sim, &v->timer_ev, until);
	v->in_idle = true;
	while (v->cpu->now_ps < until) {
		hv_hcall_cede(v);
		sim_cpu_sync(v->cpu);
	}
	v->in_idle = false;
	v->timer_pending = false;
	sim_evq_cancel(&v->hv->sim->q, &v->timer_ev);
}

void coroutine_fn hv_point(struct hv_vcpu *v, enum hv_point pt)
{
	struct hv *hv = v->hv;

	if (hv->ops->at_point)
		hv->ops->at_point(hv, v, pt);
}

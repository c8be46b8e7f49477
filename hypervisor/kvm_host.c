// SPDX-License-Identifier: MIT
/*
 * KVM's host-side behaviour on top of any dispatcher: pause-loop exiting
 * and halt polling (docs/hypervisor.md).
 */
#include <glib.h>
#include <string.h>

#include "hypervisor/hv_internal.h"

/*
 * Pause-loop exiting.  The engine reports spin waits beginning and ending;
 * a running vCPU that spins its PLE window without a break (waits that
 * follow one another within HV_PLE_GAP, as a failed trylock between two
 * spins, count as one loop) exits to the hypervisor.  As KVM's
 * handle_pause: the window doubles (ple_window_grow = 2; it goes back to
 * ple_window when the vCPU is next scheduled in, ple_window_shrink = 0),
 * then kvm_vcpu_on_spin yields to a vCPU of the same guest that wants to
 * run and does not (queued: preempted, or, with the kick boost, woken),
 * taken round robin from the last one boosted.  With none, or when the
 * yield leaves it running, the vCPU spins on for the grown window.
 */
void hv_ple_spin_hook(void *data, struct sim_cpu *c, bool begin, sim_time_t t)
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
		sim_schedule(hv->sim, &v->ple_ev, t + v->ple_cur_ps);
}

void hv_ple_exit(struct sim_event *ev)
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
	v->ple_cur_ps = SIM_MIN(2 * v->ple_cur_ps, HV_PLE_WINDOW_MAX);
	for (unsigned int i = 0; i < part->nvcpus && !tv; i++) {
		struct hv_vcpu *o =
			part->vcpus[(part->ple_next + i) % part->nvcpus];

		/* vcpu->ready: preempted while runnable, or (the boost)
		 * woken by a kick and not yet running. */
		if (o != v && o->state == HV_RUNNABLE &&
		    (hv->p.kick_boost || o->dtl_reason != HV_DTL_CEDE) &&
		    hv_may_dispatch(hv, v->pcpu, o))
			tv = o;
	}
	if (tv) {
		part->ple_next = (tv->idx + 1) % part->nvcpus;
		v->st.ple_yields++;
		hv_trace(v, t,
			 "pause-loop exit: yields to vCPU %" PRId64
			 "%.0" PRId64,
			 tv->idx, 0);
		if (hv_yield_to(v, tv, t, HV_DTL_PREEMPT))
			return;
	}
	sim_schedule(hv->sim, &v->ple_ev, t + v->ple_cur_ps);
}

/*
 * KVM halt polling (Linux's kvm_vcpu_halt; docs/hypervisor.md): a halted
 * vCPU's host thread polls its pCPU for a wake-up for up to its poll
 * window before it really sleeps; a wake-up while it polls resumes it at
 * once, with no wake or dispatch latency.  After each halt the window
 * adapts as KVM's does: a halt the window covered leaves it as it is, one
 * longer than halt_poll_ns_max shrinks it (divided by halt_poll_shrink,
 * 0 below the grow start; halt_poll_shrink = 0: to 0),
 * one between the two (and under the maximum) grows it, from 10 us
 * (halt_poll_ns_grow_start) doubling (halt_poll_ns_grow = 2), up to the
 * maximum.  The polled time is host work: counted with dispatch.
 */
#define HV_HALT_POLL_GROW_START (10 * SIM_US)

void hv_halt_poll_adapt(struct hv_vcpu *v, sim_time_t t)
{
	sim_time_t max = v->hv->p.halt_poll_ps, halted = t - v->halted_at;

	if (!max)
		return;
	/* Within the window (the poll caught it): as it is.  Longer than
	 * the maximum: reset.  Between, and under the maximum: grow. */
	if (halted <= v->halt_poll_ps)
		return;
	if (halted > max) {
		/* shrink_halt_poll_ns: divide, or reset; below the grow
		 * start it is 0 */
		unsigned int k = v->hv->p.halt_poll_shrink;

		v->halt_poll_ps = k ? v->halt_poll_ps / k : 0;
		if (v->halt_poll_ps < HV_HALT_POLL_GROW_START)
			v->halt_poll_ps = 0;
	} else if (v->halt_poll_ps < max && halted < max)
		v->halt_poll_ps =
			SIM_MIN(max, v->halt_poll_ps ? 2 * v->halt_poll_ps
						     : HV_HALT_POLL_GROW_START);
}

/* The pCPU stops polling for @v: a wake-up came, or the window ran out. */
void hv_poll_stop(struct hv_pcpu *p, sim_time_t t)
{
	struct hv_vcpu *v = p->polling;

	p->dispatch_ps += t - p->poll_since;
	p->polling = NULL;
	v->poll_pcpu = NULL;
}

void hv_poll_end(struct hv_pcpu *p, sim_time_t t)
{
	struct hv_vcpu *v = p->polling;

	hv_poll_stop(p, t);
	v->st.halt_polls_missed++;
	hv_pcpu_pick(p, t);
}

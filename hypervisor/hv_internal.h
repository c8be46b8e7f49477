/* SPDX-License-Identifier: MIT */
/*
 * Inside the hypervisor model: what its files (hv.c setup and accounts,
 * dispatch.c the dispatch core, hcall.c the hcalls, kvm_host.c KVM's
 * host-side loops) share.  Policies use hv.h only.
 */
#ifndef QSIM_HV_INTERNAL_H
#define QSIM_HV_INTERNAL_H

#include "hypervisor/hv.h"

/* dispatch.c */
void hv_yield_count_bump(struct hv_vcpu *v, sim_time_t t);
void hv_pcpu_busy(struct hv_pcpu *p, sim_time_t t);
/*
 * Start dispatching @v on @p: it runs after the dispatch latency (or
 * @latency).  @inherit: @v gets the rest of the slice the pCPU's previous
 * vCPU gave up (a confer hands over the rest of the caller's dispatch),
 * not a new one.
 */
void hv_pcpu_start(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t,
		   bool inherit);
void hv_pcpu_start_after(struct hv_pcpu *p, struct hv_vcpu *v, sim_time_t t,
			 bool inherit, sim_time_t latency);
void hv_whole_core_kick(struct hv *hv, sim_time_t t);
void hv_vcpu_make_runnable(struct hv_vcpu *v, sim_time_t t);
void hv_trace(struct hv_vcpu *v, sim_time_t t, const char *fmt, int64_t a,
	      int64_t b);
sim_time_t hv_slice_of(struct hv *hv, struct hv_vcpu *v);
void hv_charge(struct hv_vcpu *v, sim_time_t t);
void hv_dtl_flush(struct hv *hv, struct hv_vcpu *v, sim_time_t t);
struct hv_pcpu *hv_vcpu_leave(struct hv_vcpu *v, sim_time_t t, bool idle,
			      enum hv_dtl_reason why);
struct hv_pcpu *hv_vcpu_requeue(struct hv_vcpu *v, sim_time_t t,
				enum hv_dtl_reason why);
void hv_vcpu_preempt(struct hv_vcpu *v, sim_time_t t, const char *why);
void hv_pcpu_preempt(struct hv_pcpu *p, sim_time_t t, const char *why);
/* hv_kick_idle_pcpus, the free pCPUs taken from @v's home pCPU on
 * (powervm's affinity: if @v is the first queued vCPU they may take, it
 * goes to the first free pCPU from its home). */
void hv_kick_idle_pcpus_from(struct hv *hv, sim_time_t t,
			     const struct hv_vcpu *v);

/* The pCPUs [*first, *end) of @p's core. */
static inline void hv_core_range(const struct hv *hv, const struct hv_pcpu *p,
				 unsigned int *first, unsigned int *end)
{
	*first = (unsigned int)p->id / hv->p.smt * hv->p.smt;
	*end = SIM_MIN(*first + hv->p.smt, hv->p.npcpus);
}
void hv_pcpu_preempt_for(struct hv_pcpu *p, const struct hv_vcpu *v,
			 sim_time_t t, const char *why);
void hv_pcpu_ev(struct sim_event *ev);
void hv_vcpu_wake(struct hv_vcpu *v, sim_time_t t);
void hv_wake_done(struct sim_event *ev);
/* Directed yield from running @v to queued @tv; true if @v left its pCPU
 * (the caller parks it if it is the running coroutine). */
bool hv_yield_to(struct hv_vcpu *v, struct hv_vcpu *tv, sim_time_t t,
		 enum hv_dtl_reason why);

/* kvm_host.c */
void hv_ple_spin_hook(void *data, struct sim_cpu *c, bool begin, sim_time_t t);
void hv_ple_exit(struct sim_event *ev);
void hv_halt_poll_adapt(struct hv_vcpu *v, sim_time_t t);
void hv_poll_stop(struct hv_pcpu *p, sim_time_t t);
void hv_poll_end(struct hv_pcpu *p, sim_time_t t);

/* hcall.c */
void hv_idle_timer(struct sim_event *ev);
/* A tick (@tick) or interrupt for @c's vCPU while it is off its pCPU: a
 * cede or halt ends, as a prod or kick would end it; an idle vCPU's tick
 * is stopped (NOHZ). */
void hv_irq_hook(void *data, struct sim_cpu *c, sim_time_t t, bool tick);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * pv_wait / pv_kick: the architecture glue between the generic pv
 * slowpath and the hypervisor, one mapping per scenario (lock.pv_mapping).
 * Every mapping is free of lost wakeups the way its real counterpart is:
 * pv_wait re-checks *ptr == val, and a kick that lands between that check
 * and the sleep is latched by the hypervisor (the prod latch, or KVM's
 * pending unhalt), so the sleep returns at once.  docs/locks.md.
 *
 * Also the kernel's latency accounting: the kicker stamps the target's
 * per-CPU slot and counts the hypercall's duration (pv_latency_kick); a
 * waiter whose slot is stamped when pv_wait returns was woken by that
 * kick (pv_kick_wake, pv_latency_wake).
 *
 * Included by pv_qspinlock.c only, so that each mutant build of it gets
 * its own copy (the no_recheck mutant changes pv_wait).
 */
#ifndef QSIM_LOCKS_PV_GLUE_H
#define QSIM_LOCKS_PV_GLUE_H

#include "locks/qspinlock.h"

/* splpar-directed: the holder recorded for the lock we are queued on. */
static int pv_recorded_holder(struct qs_guest *g)
{
	void *lock = g->wait_lock[smp_processor_id()];
	u16 h;

	if (!lock)
		return -1;
	h = READ_ONCE(g->holders[hash_ptr(lock, g->holder_bits)]);
	return (int)h - 1;
}

static void splpar_directed_wait(struct qs_guest *g, u8 *ptr, u8 val)
{
	/* Does not return until *ptr changes (the 2016 v4 behaviour). */
	while (READ_ONCE(*ptr) == val) {
		int holder = pv_recorded_holder(g);
		u32 yc;

		if (holder >= 0 && holder != smp_processor_id()) {
			yc = yield_count_of(holder);
			if (yc & 1) {
				yield_to_preempted(holder, yc);
				continue;
			}
		}
		yield_to_any();
	}
}

static void pv_wait(u8 *ptr, u8 val)
{
	struct qs_guest *g = qs_guest();
	int me = smp_processor_id();
	uint64_t before = lk_dispatch_count();

	g->kick_time[me] = 0;
	switch (g->p.pv_mapping) {
	case LK_PV_SPLPAR_UNDIRECTED:
		if (READ_ONCE(*ptr) == val)
			yield_to_any();
		break;
	case LK_PV_SPLPAR_DIRECTED:
		splpar_directed_wait(g, ptr, val);
		break;
	case LK_PV_SPLPAR_CEDE:
		/* The re-check; a prod from here on is latched. */
		if (MUTANT(no_recheck) || READ_ONCE(*ptr) == val)
			plpar_hcall_norets(H_CEDE);
		break;
	case LK_PV_KVM:
		if (MUTANT(no_recheck) || READ_ONCE(*ptr) == val)
			kvm_halt();
		break;
	}
	if (lk_dispatch_count() != before)
		lockevent_inc(sim_pv_wait_slept);
	if (g->kick_time[me]) {
		lockevent_inc(pv_kick_wake);
		lockevent_add(pv_latency_wake,
			      sched_clock() - g->kick_time[me]);
	}
}

static void pv_kick(int cpu)
{
	struct qs_guest *g = qs_guest();
	uint64_t start = sched_clock();

	g->kick_time[cpu] = start;
	if (g->p.pv_mapping == LK_PV_KVM)
		kvm_kick_cpu(cpu);
	else
		prod_cpu(cpu); /* always: a prod latches if not yet asleep */
	lockevent_add(pv_latency_kick, sched_clock() - start);
}

#endif

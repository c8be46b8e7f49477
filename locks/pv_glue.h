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
static int pv_recorded_holder(void *arg)
{
	struct qs_guest *g = arg;
	void *lock = g->wait_lock[smp_processor_id()];
	u16 h;

	if (!lock)
		return -1;
	h = READ_ONCE(g->holders[hash_ptr(lock, g->holder_bits)]);
	return (int)h - 1;
}

static void pv_wait(u8 *ptr, u8 val)
{
	struct qs_guest *g = qs_guest();
	int me = smp_processor_id();
	uint64_t before = lk_dispatch_count();

	g->kick_time[me] = 0;
	lk_pv_wait_mapped(g->p.pv_mapping, ptr, val, pv_recorded_holder, g,
			  !MUTANT(no_recheck));
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
	lk_pv_kick_mapped(g->p.pv_mapping, cpu);
	lockevent_add(pv_latency_kick, sched_clock() - start);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * qsim arch (kernel-tree mode): the arch half of the generic qspinlock,
 * as an arch with paravirt spinlocks provides it.  One library serves
 * both kernel_qspinlock and kernel_pv_qspinlock: which slowpath and
 * unlock run is the instance's qk_params.paravirt, chosen when it is
 * loaded (where a kernel patches its pv ops at boot).  The powerpc build
 * does not see this file: the tree's own asm/qspinlock.h comes first.
 */
#ifndef QSIM_ASM_QSPINLOCK_H
#define QSIM_ASM_QSPINLOCK_H

#include <qsim/kernel.h>
#include <asm-generic/qspinlock_types.h>

/* The [lock] keys pending_loops and spin_threshold. */
#define _Q_PENDING_LOOPS ((int)qk_params.pending_loops)
#define SPIN_THRESHOLD	 ((int)qk_params.spin_threshold)

void native_queued_spin_lock_slowpath(struct qspinlock *lock, u32 val);
void __pv_queued_spin_lock_slowpath(struct qspinlock *lock, u32 val);
void __pv_init_lock_hash(void);
void __pv_queued_spin_unlock(struct qspinlock *lock);
void __pv_queued_spin_unlock_slowpath(struct qspinlock *lock, u8 locked);

/* As powerpc's pseries did with the generic pv lock: the pv slowpath on
 * shared processors only. */
static inline void queued_spin_lock_slowpath(struct qspinlock *lock, u32 val)
{
	if (qk_params.paravirt && is_shared_processor())
		__pv_queued_spin_lock_slowpath(lock, val);
	else
		native_queued_spin_lock_slowpath(lock, val);
}

#define queued_spin_unlock queued_spin_unlock
static inline void queued_spin_unlock(struct qspinlock *lock)
{
	if (qk_params.paravirt && is_shared_processor())
		__pv_queued_spin_unlock(lock);
	else
		smp_store_release(&lock->locked, 0);
}

/* The scenario's pv mapping (docs/locks.md), in qsim. */
static inline void pv_wait(u8 *ptr, u8 val)
{
	qk->pv_sleep(qk_self, ptr, val);
}

static inline void pv_kick(int cpu)
{
	qk->pv_wake(qk_self, cpu);
}

#include <asm-generic/qspinlock.h>

#endif

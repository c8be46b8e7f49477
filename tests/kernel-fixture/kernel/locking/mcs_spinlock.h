/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the MCS queue node and its wait and hand-over,
 * which an arch may replace (asm/mcs_spinlock.h).
 */
#ifndef FIXTURE_MCS_SPINLOCK_H
#define FIXTURE_MCS_SPINLOCK_H

#include <asm/mcs_spinlock.h>

struct mcs_spinlock {
	struct mcs_spinlock *next; /* the waiter queued behind this one */
	int locked;		   /* set by the predecessor: your turn */
	int count;		   /* in a CPU's first node: nodes in use */
};

/* Wait for the predecessor's hand-over; acquire ordering. */
#ifndef arch_mcs_spin_lock_contended
#define arch_mcs_spin_lock_contended(flag) \
	smp_cond_load_acquire((flag), VAL != 0)
#endif

/* Hand over to the successor; release ordering. */
#ifndef arch_mcs_spin_unlock_contended
#define arch_mcs_spin_unlock_contended(flag) smp_store_release((flag), 1)
#endif

#endif

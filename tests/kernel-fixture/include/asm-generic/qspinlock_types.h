/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the queued lock's word.  32 bits: the holder byte
 * (bits 0-7: 0 free, 1 held, 3 held and a halted waiter to kick) and the
 * queue tail (bits 16-31: the last waiter's CPU + 1 and node index).
 * An original layout for testing, not the kernel's: no pending bit.
 */
#ifndef FIXTURE_ASM_GENERIC_QSPINLOCK_TYPES_H
#define FIXTURE_ASM_GENERIC_QSPINLOCK_TYPES_H

#include <linux/types.h>

typedef struct qspinlock {
	union {
		atomic_t val;
		struct {
#ifdef __LITTLE_ENDIAN
			u8 locked;
			u8 unused;
			u16 tail;
#else
			u16 tail;
			u8 unused;
			u8 locked;
#endif
		};
	};
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED             \
	{                                     \
		{                             \
			.val = ATOMIC_INIT(0) \
		}                             \
	}

#define _Q_LOCKED_VAL  1U
#define _Q_LOCKED_MASK 0x000000ffU
#define _Q_TAIL_OFFSET 16
#define _Q_TAIL_MASK   0xffff0000U

#endif

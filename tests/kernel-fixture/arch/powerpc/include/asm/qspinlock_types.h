/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the fixture's powerpc lock word, in the bit places
 * of the kernel's (so that qsim's powerpc observer reads it too): the low
 * half holds the owner (bit 0 set while held, the owner's CPU in bits
 * 1-14), bit 16 is unused, and bits 17-31 the queue tail (the last
 * waiter's CPU + 1 and node index, 0 when nobody is queued).
 */
#ifndef FIXTURE_PPC_QSPINLOCK_TYPES_H
#define FIXTURE_PPC_QSPINLOCK_TYPES_H

#include <linux/types.h>

typedef struct qspinlock {
	union {
		u32 val;
		struct {
#ifdef __LITTLE_ENDIAN
			u16 owner;
			u16 tail;
#else
			u16 tail;
			u16 owner;
#endif
		};
	};
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED \
	{                         \
		{                 \
			.val = 0  \
		}                 \
	}

#define FX_OWNER_MASK 0x0000ffffU
#define FX_TAIL_SHIFT 17

#endif

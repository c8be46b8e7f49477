// SPDX-License-Identifier: MIT
/*
 * qrwlock: the queued reader/writer lock (LOCK-FACTS.md section 7).  One
 * 32-bit count word and a wait_lock, here the paravirt queued spinlock
 * (native paths on dedicated processors), so its queueing, stealing and pv
 * behaviour carry into the rwlock.
 *
 * cnts: bits 0-7 the writer byte (0xff: a writer holds it), bit 8 a
 * writer is waiting, bits 9-31 the reader count (one reader = 0x200).
 *
 * Fairness: a contended reader or writer queues on wait_lock; a waiting
 * writer sets the waiting bit, so fast-path readers back out and queue
 * behind it (a process-context reader never passes a waiting writer);
 * queued readers leave wait_lock as soon as they hold the read lock, so
 * consecutive readers enter as a batch.
 */
#include "locks/qspinlock.h"

#define _QW_LOCKED  0x0ffU
#define _QW_WAITING 0x100U
#define _QW_WMASK   0x1ffU
#define _QR_BIAS    0x200U

struct qrwlock {
	union {
		atomic_t cnts;
		u8 wlocked; /* byte 0 on a little-endian host */
	};
	struct qspinlock wait_lock;
};

static void qrw_init(void *p)
{
	struct qrwlock *lock = p;

	lock->cnts.counter = 0;
	qs_lock_init(&lock->wait_lock);
}

static void wait_lock_take(struct qrwlock *lock)
{
	lk_pv_qspinlock_ops.lock(&lock->wait_lock);
}

static void wait_lock_give(struct qrwlock *lock)
{
	lk_pv_qspinlock_ops.unlock(&lock->wait_lock);
}

static void qrw_read_lock(void *p)
{
	struct qrwlock *lock = p;
	u32 c = (u32)atomic_add_return_acquire((int)_QR_BIAS, &lock->cnts);

	if (!(c & _QW_WMASK))
		return;
	/* A writer holds it or waits: back out and queue (process context). */
	atomic_sub((int)_QR_BIAS, &lock->cnts);
	wait_lock_take(lock);
	atomic_add((int)_QR_BIAS, &lock->cnts);
	/* Only a holding writer stops us now; pairs with the write unlock. */
	atomic_cond_read_acquire(&lock->cnts, !((u32)VAL & _QW_LOCKED));
	wait_lock_give(lock);
}

static void qrw_read_unlock(void *p)
{
	struct qrwlock *lock = p;

	(void)atomic_sub_return_release((int)_QR_BIAS, &lock->cnts);
}

static bool qrw_write_trylock(void *p)
{
	struct qrwlock *lock = p;
	int c = atomic_read(&lock->cnts);

	if (c)
		return false;
	return atomic_try_cmpxchg_acquire(&lock->cnts, &c, (int)_QW_LOCKED);
}

static void qrw_write_lock(void *p)
{
	struct qrwlock *lock = p;
	int c = 0;

	if (likely(atomic_try_cmpxchg_acquire(&lock->cnts, &c,
					      (int)_QW_LOCKED)))
		return;
	wait_lock_take(lock);
	if (qrw_write_trylock(lock))
		goto out;
	/* New fast-path readers and writers now fail and queue. */
	atomic_or((int)_QW_WAITING, &lock->cnts);
	for (;;) {
		/* All readers gone, no writer: only our waiting bit left. */
		c = atomic_cond_read_relaxed(&lock->cnts,
					     (u32)VAL == _QW_WAITING);
		if (atomic_try_cmpxchg_acquire(&lock->cnts, &c,
					       (int)_QW_LOCKED))
			break;
	}
out:
	wait_lock_give(lock);
}

static void qrw_write_unlock(void *p)
{
	struct qrwlock *lock = p;

	smp_store_release(&lock->wlocked, 0);
}

const struct lk_ops lk_qrwlock_ops = {
	.name = "qrwlock",
	.desc = "queued rwlock: reader count and writer byte, FIFO through a "
		"pv_qspinlock wait_lock, waiting writers block new readers",
	.size = sizeof(struct qrwlock),
	.align = sizeof(u32),
	.init = qrw_init,
	.lock = qrw_write_lock,
	.unlock = qrw_write_unlock,
	.trylock = qrw_write_trylock,
	.read_lock = qrw_read_lock,
	.read_unlock = qrw_read_unlock,
	.global_size = qs_guest_size,
	.global_init = qs_guest_init,
	.global_fini = qs_guest_fini,
	.paravirt = true,
	.params = "pv_mapping SPIN_THRESHOLD wait_early steal",
};

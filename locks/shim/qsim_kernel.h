/* SPDX-License-Identifier: MIT */
/*
 * The kernel-API shim: the vocabulary lock code is written in, with the
 * kernel's spellings, executed against the simulated machine.
 *
 * Every access to guest-shared memory goes through here so the engine can
 * order it in virtual time (the horizon rule), cost it (the cache-line
 * model) and wake spin waiters when a line changes.  The simulated machine
 * is sequentially consistent, so the _relaxed/_acquire/_release variants
 * differ only in cost; each variant exists so that code reads as kernel
 * code does and keeps its ordering annotations.
 *
 * Waiting is event-driven: smp_cond_load_*(), spin_until_cond() and the
 * bounded spin_until_cond_timeout() sleep on the lines their condition
 * read and wake when one is written, with exactly the result iterating
 * would give (sim/engine.h, E4).  docs/shim.md lists the whole vocabulary.
 *
 * Outside a running vCPU (lock initialisation at setup) accesses are plain.
 */
#ifndef QSIM_KERNEL_H
#define QSIM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/mm.h"
#include "hypervisor/hv.h"
#include "locks/lock.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(i) \
	{              \
		(i)    \
	}

#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#define barrier()	   __asm__ __volatile__("" ::: "memory")
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)
#define BUG_ON(cond)	   QSIM_BUG_ON(cond)
#define BUG()		   QSIM_BUG_ON(1)

/* --- hooks into the engine (shim.c) --- */

void lk_shim_barrier(sim_time_t cost);
void lk_shim_ord_fence(int ord, bool entry, bool done);
void lk_shim_relax(void);
void lk_shim_spin_relax(void);

static inline struct sim_cpu *lk_access_begin(const volatile void *p,
					      enum sim_access kind)
{
	struct sim_cpu *c = sim_current();

	if (c)
		sim_access(c, (const void *)p, kind);
	return c;
}

static inline void lk_access_end(struct sim_cpu *c, const volatile void *p,
				 bool changed)
{
	if (c && changed)
		sim_mem_written(c->sim, (const void *)p, c->access_ps);
}

/*
 * The memory model (sim/mm.h, docs/memory-model.md): under `sc` (c->mm
 * NULL) accesses read and write the arena's bytes directly; under `tso`
 * and `power` a load's value and a store's visibility come from the
 * model.
 */
static inline void lk_mm_lw(void)
{
	struct sim_cpu *c = sim_current();

	if (c && c->mm)
		sim_mm_fence(c, SIM_FENCE_LW);
}

static inline void lk_mm_acquire(void)
{
	struct sim_cpu *c = sim_current();

	if (c && c->mm)
		sim_mm_acquire(c);
}

/* After an acquire load: its barrier's cost (lk_shim_ord_fence), and
 * under a weak model later loads read no older. */
static inline void lk_acquired(void)
{
	lk_shim_ord_fence(SIM_ORD_ACQUIRE, false, true);
	lk_mm_acquire();
}

/* --- plain shared accesses --- */

#define READ_ONCE(x)                                                        \
	({                                                                  \
		struct sim_cpu *__ro_c = lk_access_begin(&(x), SIM_READ);   \
		__auto_type __ro_v = *(const volatile __typeof__(x) *)&(x); \
		if (__ro_c && __ro_c->mm)                                   \
			sim_mm_load(__ro_c, &(x), &__ro_v, sizeof(__ro_v)); \
		__ro_v;                                                     \
	})

#define WRITE_ONCE(x, val)                                                 \
	do {                                                               \
		__typeof__(x) __wo_new = (val);                            \
		struct sim_cpu *__wo_c = lk_access_begin(&(x), SIM_WRITE); \
		if (__wo_c && __wo_c->mm) {                                \
			sim_mm_store(__wo_c, &(x), &__wo_new,              \
				     sizeof(__wo_new));                    \
		} else {                                                   \
			bool __wo_ch = (x) != __wo_new;                    \
			*(volatile __typeof__(x) *)&(x) = __wo_new;        \
			lk_access_end(__wo_c, &(x), __wo_ch);              \
		}                                                          \
	} while (0)

/* --- barriers: a cost, and under a weak model their ordering; a full
 * barrier also waits for this CPU's buffered stores to complete --- */

#define smp_mb()		      lk_shim_barrier(1)
#define smp_rmb()		      lk_shim_barrier(0)
#define smp_wmb()		      lk_shim_barrier(0)
#define smp_mb__before_atomic()	      smp_mb()
#define smp_mb__after_atomic()	      smp_mb()
#define smp_acquire__after_ctrl_dep() lk_shim_barrier(0)

#define smp_load_acquire(p)                           \
	({                                            \
		__auto_type __la_v = READ_ONCE(*(p)); \
		lk_acquired();                        \
		__la_v;                               \
	})
#define smp_store_release(p, v)                                 \
	do {                                                    \
		lk_shim_ord_fence(SIM_ORD_RELEASE, true, true); \
		lk_mm_lw();                                     \
		WRITE_ONCE(*(p), (v));                          \
	} while (0)
#define smp_store_mb(x, v)        \
	do {                      \
		WRITE_ONCE(x, v); \
		smp_mb();         \
	} while (0)

/* --- read-modify-write on any 1, 2, 4 or 8 byte object --- */

/*
 * An atomic is a larx/stcx. pair (docs/cost-model.md): lk_larx loads with
 * a reservation, lk_stcx tries the store and fails, making the caller
 * retry from the larx, when another CPU wrote the line meanwhile.  @hint
 * is powerpc's lock hint (EH=1, used where a lock is taken): the line is
 * held from larx to stcx., so the pair cannot fail.  @ord (enum
 * sim_order: 0 relaxed, 1 fully ordered, acquire, release) is its
 * ordering: under a weak memory model (sim/mm.h) what must be visible
 * before it and which later loads may not pass it; and the barriers'
 * cost on the machine (lk_shim_ord_fence).
 */
static inline struct sim_cpu *lk_larx(const volatile void *p, bool hint)
{
	return lk_access_begin(p, hint ? SIM_RMW : SIM_RMW_RESV);
}

static inline bool lk_stcx(struct sim_cpu *c, const volatile void *p)
{
	return !c || sim_access_stcx(c, (const void *)p);
}

static inline void lk_rmw_begin(const volatile void *p, size_t size, int ord)
{
	struct sim_cpu *c = sim_current();

	lk_shim_ord_fence(ord, true, true);
	if (c && c->mm)
		sim_mm_rmw_begin(c, p, size, (enum sim_order)ord);
}

/* The atomic stored @n over @old at @p: memory, the model, watchers. */
#define lk_rmw_store(c, p, old, n)                                         \
	do {                                                               \
		*(p) = (n);                                                \
		if ((c) && (c)->mm)                                        \
			sim_mm_rmw_written((c), (p), &(old), sizeof(old)); \
		lk_access_end((c), (p), (n) != (old));                     \
	} while (0)

/* @stored: the atomic wrote (a failed compare branches past the sync). */
static inline void lk_rmw_end(int ord, bool stored)
{
	struct sim_cpu *c = sim_current();

	if (c && c->mm)
		sim_mm_rmw_end(c, (enum sim_order)ord);
	lk_shim_ord_fence(ord, false, stored);
}

#define __cmpxchg_hint(ptr, o, n, ord, hint)                            \
	({                                                              \
		__typeof__(ptr) __cx_p = (ptr);                         \
		__typeof__(*__cx_p) __cx_o = (o), __cx_n = (n), __cx_r; \
		struct sim_cpu *__cx_c;                                 \
		lk_rmw_begin(__cx_p, sizeof(*__cx_p), (ord));           \
		do {                                                    \
			__cx_c = lk_larx(__cx_p, hint);                 \
			__cx_r = *__cx_p;                               \
		} while (__cx_r == __cx_o && !lk_stcx(__cx_c, __cx_p)); \
		if (__cx_r == __cx_o)                                   \
			lk_rmw_store(__cx_c, __cx_p, __cx_r, __cx_n);   \
		lk_rmw_end(ord, __cx_r == __cx_o);                      \
		__cx_r;                                                 \
	})
#define __cmpxchg(ptr, o, n, ord) __cmpxchg_hint(ptr, o, n, ord, false)

#define cmpxchg(ptr, o, n)	   __cmpxchg(ptr, o, n, SIM_ORD_FULL)
#define cmpxchg_relaxed(ptr, o, n) __cmpxchg(ptr, o, n, SIM_ORD_RELAXED)
#define cmpxchg_acquire(ptr, o, n) __cmpxchg(ptr, o, n, SIM_ORD_ACQUIRE)
#define cmpxchg_release(ptr, o, n) __cmpxchg(ptr, o, n, SIM_ORD_RELEASE)
/* powerpc's lock-acquire cmpxchg (lwarx with EH=1), acquire ordering. */
#define cmpxchg_lock(ptr, o, n) __cmpxchg_hint(ptr, o, n, SIM_ORD_ACQUIRE, true)

/* fetch-op on a scalar: returns the old value. */
#define __fetch_op(ptr, op, v, ord)                                       \
	({                                                                \
		__typeof__(ptr) __fo_p = (ptr);                           \
		__typeof__(*__fo_p) __fo_old, __fo_new;                   \
		struct sim_cpu *__fo_c;                                   \
		lk_rmw_begin(__fo_p, sizeof(*__fo_p), (ord));             \
		do {                                                      \
			__fo_c = lk_larx(__fo_p, false);                  \
			__fo_old = *__fo_p;                               \
			__fo_new = (__typeof__(*__fo_p))(__fo_old op(v)); \
		} while (!lk_stcx(__fo_c, __fo_p));                       \
		lk_rmw_store(__fo_c, __fo_p, __fo_old, __fo_new);         \
		lk_rmw_end(ord, true);                                    \
		__fo_old;                                                 \
	})

/*
 * powerpc's update loop as its lock code writes it in assembly: larx
 * (@hint: the lock hint), the loaded value in @o; give up without a
 * store when @stop holds, else store @next, retrying from the larx when
 * the stcx. fails.  No load before the larx: the larx is the first
 * access (a failed test has then still asked for the line).  Returns
 * the loaded value.  @ord as for the atomics.
 */
#define __larx_update(ptr, o, stop, next, hint, ord)             \
	({                                                       \
		__typeof__(ptr) __lu_p = (ptr);                  \
		__typeof__(*__lu_p) o, __lu_n = 0;               \
		struct sim_cpu *__lu_c;                          \
		bool __lu_stop;                                  \
		lk_rmw_begin(__lu_p, sizeof(*__lu_p), (ord));    \
		for (;;) {                                       \
			__lu_c = lk_larx(__lu_p, hint);          \
			o = *__lu_p;                             \
			__lu_stop = (stop);                      \
			if (__lu_stop)                           \
				break;                           \
			__lu_n = (next);                         \
			if (lk_stcx(__lu_c, __lu_p))             \
				break;                           \
		}                                                \
		if (!__lu_stop)                                  \
			lk_rmw_store(__lu_c, __lu_p, o, __lu_n); \
		lk_rmw_end(ord, !__lu_stop);                     \
		o;                                               \
	})

/* Add @v unless the loaded value is negative (no store then); returns
 * the loaded value plus @v (> 0: stored). */
#define __add_unless_negative(ptr, v, hint, ord)                       \
	((__typeof__(*(ptr)))(__larx_update(ptr, __an_o, __an_o < 0,   \
					    __an_o + (v), hint, ord) + \
			      (v)))

#define __xchg(ptr, v, ord)                                   \
	({                                                    \
		__typeof__(ptr) __xc_p = (ptr);               \
		__typeof__(*__xc_p) __xc_n = (v), __xc_r;     \
		struct sim_cpu *__xc_c;                       \
		lk_rmw_begin(__xc_p, sizeof(*__xc_p), (ord)); \
		do {                                          \
			__xc_c = lk_larx(__xc_p, false);      \
			__xc_r = *__xc_p;                     \
		} while (!lk_stcx(__xc_c, __xc_p));           \
		lk_rmw_store(__xc_c, __xc_p, __xc_r, __xc_n); \
		lk_rmw_end(ord, true);                        \
		__xc_r;                                       \
	})

#define xchg(ptr, v)	     __xchg(ptr, v, SIM_ORD_FULL)
#define xchg_relaxed(ptr, v) __xchg(ptr, v, SIM_ORD_RELAXED)
#define xchg_acquire(ptr, v) __xchg(ptr, v, SIM_ORD_ACQUIRE)
#define xchg_release(ptr, v) __xchg(ptr, v, SIM_ORD_RELEASE)

/* --- atomic_t --- */

#define atomic_read(v)		 READ_ONCE((v)->counter)
#define atomic_read_acquire(v)	 smp_load_acquire(&(v)->counter)
#define atomic_set(v, i)	 WRITE_ONCE((v)->counter, (i))
#define atomic_set_release(v, i) smp_store_release(&(v)->counter, (i))

#define atomic_cmpxchg(v, o, n)		cmpxchg(&(v)->counter, o, n)
#define atomic_cmpxchg_relaxed(v, o, n) cmpxchg_relaxed(&(v)->counter, o, n)
#define atomic_cmpxchg_acquire(v, o, n) cmpxchg_acquire(&(v)->counter, o, n)
#define atomic_cmpxchg_release(v, o, n) cmpxchg_release(&(v)->counter, o, n)
#define atomic_xchg(v, n)		xchg(&(v)->counter, n)
#define atomic_xchg_relaxed(v, n)	xchg_relaxed(&(v)->counter, n)

/* try_cmpxchg: on failure *old is updated with the value seen. */
#define __atomic_try_cmpxchg(v, po, n, ord)                              \
	({                                                               \
		int *__tc_po = (po);                                     \
		int __tc_o = *__tc_po;                                   \
		int __tc_r = __cmpxchg(&(v)->counter, __tc_o, (n), ord); \
		if (__tc_r != __tc_o)                                    \
			*__tc_po = __tc_r;                               \
		__tc_r == __tc_o;                                        \
	})
#define __atomic_try_cmpxchg_hint(v, po, n, hint, ord)                         \
	({                                                                     \
		int *__tl_po = (po);                                           \
		int __tl_o = *__tl_po;                                         \
		int __tl_r =                                                   \
			__cmpxchg_hint(&(v)->counter, __tl_o, (n), ord, hint); \
		if (__tl_r != __tl_o)                                          \
			*__tl_po = __tl_r;                                     \
		__tl_r == __tl_o;                                              \
	})
/* powerpc's lock-acquire try_cmpxchg (lwarx with EH=1, acquire). */
#define atomic_try_cmpxchg_lock(v, po, n) \
	__atomic_try_cmpxchg_hint(v, po, n, true, SIM_ORD_ACQUIRE)
#define atomic_try_cmpxchg(v, po, n) \
	__atomic_try_cmpxchg(v, po, n, SIM_ORD_FULL)
#define atomic_try_cmpxchg_relaxed(v, po, n) \
	__atomic_try_cmpxchg(v, po, n, SIM_ORD_RELAXED)
#define atomic_try_cmpxchg_acquire(v, po, n) \
	__atomic_try_cmpxchg(v, po, n, SIM_ORD_ACQUIRE)
#define atomic_try_cmpxchg_release(v, po, n) \
	__atomic_try_cmpxchg(v, po, n, SIM_ORD_RELEASE)

#define __atomic_op(v, op, i, ord)     __fetch_op(&(v)->counter, op, (i), ord)
#define atomic_fetch_add(i, v)	       __atomic_op(v, +, i, SIM_ORD_FULL)
#define atomic_fetch_add_relaxed(i, v) __atomic_op(v, +, i, SIM_ORD_RELAXED)
#define atomic_fetch_add_acquire(i, v) __atomic_op(v, +, i, SIM_ORD_ACQUIRE)
#define atomic_fetch_add_release(i, v) __atomic_op(v, +, i, SIM_ORD_RELEASE)
#define atomic_fetch_sub(i, v)	       __atomic_op(v, -, i, SIM_ORD_FULL)
#define atomic_fetch_or(i, v)	       __atomic_op(v, |, i, SIM_ORD_FULL)
#define atomic_fetch_or_relaxed(i, v)  __atomic_op(v, |, i, SIM_ORD_RELAXED)
#define atomic_fetch_or_acquire(i, v)  __atomic_op(v, |, i, SIM_ORD_ACQUIRE)
#define atomic_fetch_and(i, v)	       __atomic_op(v, &, i, SIM_ORD_FULL)
#define atomic_fetch_andnot(i, v)      __atomic_op(v, &, ~(i), SIM_ORD_FULL)
#define atomic_fetch_andnot_relaxed(i, v) \
	__atomic_op(v, &, ~(i), SIM_ORD_RELAXED)

#define atomic_add(i, v)		((void)__atomic_op(v, +, i, SIM_ORD_RELAXED))
#define atomic_sub(i, v)		((void)__atomic_op(v, -, i, SIM_ORD_RELAXED))
#define atomic_inc(v)			atomic_add(1, v)
#define atomic_dec(v)			atomic_sub(1, v)
#define atomic_or(i, v)			((void)__atomic_op(v, |, i, SIM_ORD_RELAXED))
#define atomic_andnot(i, v)		((void)__atomic_op(v, &, ~(i), SIM_ORD_RELAXED))
#define atomic_add_return(i, v)		(atomic_fetch_add(i, v) + (i))
#define atomic_add_return_acquire(i, v) (atomic_fetch_add_acquire(i, v) + (i))
#define atomic_sub_return_release(i, v) \
	(__atomic_op(v, -, i, SIM_ORD_RELEASE) - (i))

/* --- waiting --- */

#define cpu_relax() lk_shim_relax()

/*
 * Spin until @cond_expr (which may use VAL, the value just loaded) holds;
 * sleeps on *ptr's line between writes.  Returns the final VAL.
 */
#define __smp_cond_load(ptr, cond_expr)                          \
	({                                                       \
		__typeof__(ptr) __PTR = (ptr);                   \
		__typeof__(*__PTR) VAL;                          \
		struct sim_cpu *__cl_c = sim_current();          \
		if (__cl_c)                                      \
			sim_wait_begin(__cl_c);                  \
		for (;;) {                                       \
			VAL = READ_ONCE(*__PTR);                 \
			if (cond_expr)                           \
				break;                           \
			BUG_ON(!__cl_c);                         \
			sim_wait_block(__cl_c, SIM_BUDGET_NONE); \
		}                                                \
		if (__cl_c)                                      \
			sim_wait_end(__cl_c);                    \
		VAL;                                             \
	})

#define smp_cond_load_relaxed(ptr, cond_expr) __smp_cond_load(ptr, cond_expr)
#define smp_cond_load_acquire(ptr, cond_expr)                         \
	({                                                            \
		__auto_type __ca_v = __smp_cond_load(ptr, cond_expr); \
		lk_acquired();                                        \
		__ca_v;                                               \
	})
#define atomic_cond_read_relaxed(v, c) smp_cond_load_relaxed(&(v)->counter, (c))
#define atomic_cond_read_acquire(v, c) smp_cond_load_acquire(&(v)->counter, (c))

/*
 * Bounded spin: the meaning of
 *	for (n = iters; n; n--) { if (cond) break; cpu_relax(); }
 * returning n (0 when the budget ran out), at O(1) host cost.
 * spin_until_cond_limit is the same loop with spin_cpu_relax(), as
 * powerpc's counted spin loops have it.
 */
#define __spin_until_cond_budget(cond, iters, begin)             \
	({                                                       \
		uint64_t __sc_n = (iters);                       \
		struct sim_cpu *__sc_c = sim_current();          \
		BUG_ON(!__sc_c);                                 \
		begin(__sc_c);                                   \
		while (__sc_n) {                                 \
			if (cond)                                \
				break;                           \
			__sc_n = sim_wait_block(__sc_c, __sc_n); \
		}                                                \
		sim_wait_end(__sc_c);                            \
		__sc_n;                                          \
	})
#define spin_until_cond_timeout(cond, iters) \
	__spin_until_cond_budget(cond, iters, sim_wait_begin)
#define spin_until_cond_limit(cond, iters) \
	__spin_until_cond_budget(cond, iters, sim_wait_begin_spin)

/*
 * A bounded spin with a periodic extra check, meaning exactly
 *
 *	for (n = iters; n; n--) {
 *		if (cond(arg))
 *			return n;
 *		if (n % every == 0 && check(arg))
 *			return n | LK_SPIN_CHECKED;
 *		cpu_relax();
 *	}
 *	return 0;
 *
 * (pv_wait_node's loop: the hand-off, and every 256 spins the
 * predecessor).  The vCPU sleeps on the lines cond and check read, and
 * checks over unchanged lines cost their time without waking it.
 */
#define LK_SPIN_CHECKED (1ULL << 63)
uint64_t lk_spin_periodic(uint64_t iters, uint32_t every, bool (*cond)(void *),
			  bool (*check)(void *), void *arg);

/* Spin until @cond holds (powerpc's spin_until_cond, whose iterations
 * relax with spin_cpu_relax()), event-driven.  The caller sets the SMT
 * priority (spin_begin). */
#define spin_until_cond(cond)                                    \
	do {                                                     \
		struct sim_cpu *__su_c = sim_current();          \
		BUG_ON(!__su_c);                                 \
		sim_wait_begin_spin(__su_c);                     \
		while (!(cond))                                  \
			sim_wait_block(__su_c, SIM_BUDGET_NONE); \
		sim_wait_end(__su_c);                            \
	} while (0)

/*
 * SMT priority: between HMT_low() and HMT_medium() this hardware thread
 * gives most of its core to its siblings, and runs slowly itself when
 * they are busy (docs/cost-model.md, the SMT share).  powerpc brackets
 * its spin loops with spin_begin()/spin_end().
 */
static inline void lk_hmt(bool low)
{
	struct sim_cpu *c = sim_current();

	if (c)
		sim_cpu_set_hmt_low(c, low);
}
#define HMT_low()    lk_hmt(true)
#define HMT_medium() lk_hmt(false)
#define spin_begin() HMT_low()
#define spin_end()   HMT_medium()
/* powerpc: a nop before POWER10 (the priority nops are spin_begin's and
 * spin_end's), pause_short since (cost.spin_relax). */
#define spin_cpu_relax() lk_shim_spin_relax()

/* --- lock-event counters (lock_events.h names) --- */

#include "locks/lock_events.h"

static inline void lk_event_add(enum lock_event ev, uint64_t n)
{
	struct sim_cpu *c = sim_current();

	if (c)
		c->counters[ev] += n;
}

#define lockevent_inc(ev)    lk_event_add(LOCKEVENT_##ev, 1)
#define lockevent_add(ev, n) lk_event_add(LOCKEVENT_##ev, (uint64_t)(n))
#define lockevent_cond_inc(ev, c)                        \
	do {                                             \
		if (c)                                   \
			lk_event_add(LOCKEVENT_##ev, 1); \
	} while (0)

/* --- guest-kernel state and model hooks --- */

/* This partition's lock globals (struct lk_ops.global_init). */
void *lk_guest(void);
/* A host-independent key for a guest address: its arena offset. */
uint64_t lk_addr_key(const void *p);
/* The kernel's multiplicative pointer hash, over lk_addr_key(). */
uint32_t hash_ptr(const void *p, unsigned int bits);
/* Local time in nanoseconds (sched_clock of the running vCPU). */
uint64_t sched_clock(void);
/* How often this vCPU has been dispatched (did an hcall really sleep?). */
uint64_t lk_dispatch_count(void);
/* A broken lock invariant: stop the run and report it (exit code 2). */
/*
 * Torture's checks inside qsim's own lock code (P1's host-side count of
 * hash entries, R7, Q1): cmake -DQSIM_LOCK_CHECKS=OFF compiles them out,
 * so that a build shows what the observers outside the lock code catch
 * alone (docs/torture.md, "Observers").  Checks the kernel itself makes
 * (a full hash table, a corrupted locked byte) stay.
 */
#ifdef QSIM_NO_LOCK_CHECKS
#define LK_CHECKS 0
#else
#define LK_CHECKS 1
#endif

void lk_violation(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* A shim point (hypervisor/hv.h): the adversary may preempt us here. */
void lk_shim_point(enum hv_point pt);
#define lk_point(name) lk_shim_point(HV_PT_##name)

#define in_interrupt() 0
#define prefetchw(p)   ((void)(p))

/* --- CPUs and the paravirt interface --- */

int smp_processor_id(void);
int num_possible_cpus(void);
bool is_shared_processor(void);
u32 yield_count_of(int cpu);
bool vcpu_is_preempted(int cpu);
long plpar_hcall_norets(long opcode, ...);
void yield_to_preempted(int cpu, u32 yield_count);
void yield_to_any(void);
void prod_cpu(int cpu);
/*
 * The scenario's pv mapping (docs/locks.md): pv_wait's sleep and
 * pv_kick's wake-up, without the lock's bookkeeping.  @holder gives the
 * splpar-directed mapping the recorded holder of the lock waited on (-1:
 * none); @recheck: re-check *ptr == val before sleeping (always, but for
 * the no_recheck mutant).
 */
void lk_pv_wait_mapped(enum lk_pv_mapping m, u8 *ptr, u8 val,
		       int (*holder)(void *), void *arg, bool recheck);
void lk_pv_kick_mapped(enum lk_pv_mapping m, int cpu);
/* The KVM flavour's halt and KVM_HC_KICK_CPU. */
void kvm_halt(void);
void kvm_kick_cpu(int cpu);

#define H_SUCCESS 0
#define H_CEDE	  0xE0
#define H_CONFER  0xE4
#define H_PROD	  0xE8

#endif

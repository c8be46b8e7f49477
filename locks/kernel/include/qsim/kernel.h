/* SPDX-License-Identifier: MIT */
/*
 * qsim's arch for kernel-tree mode: the kernel vocabulary the lock files
 * use, with their spellings, on top of the qsim interface (kapi.h).
 * Every linux/ and asm/ header of this include tree includes this one;
 * the tree's own headers (asm-generic qspinlock, the powerpc qspinlock
 * headers, kernel/locking/) are reached through forwarders generated at
 * configure time.  docs/kernel-tree.md lists the vocabulary and why each
 * mapping is what it is.
 *
 * Compiled with -nostdinc: nothing of the host's headers but the
 * compiler's own (stddef, stdint, stdbool, stdarg).
 */
#ifndef QSIM_KERNEL_ARCH_H
#define QSIM_KERNEL_ARCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kapi.h"

/* --- the configuration qsim's arch is built with --- */
#define CONFIG_SMP		  1
#define CONFIG_64BIT		  1
#define CONFIG_NR_CPUS		  8192
#define CONFIG_PARAVIRT_SPINLOCKS 1
#define CONFIG_QUEUED_SPINLOCKS	  1
#define CONFIG_LOCK_EVENT_COUNTS  1
#define CONFIG_NUMA		  1
#define CONFIG_PPC64		  1 /* read by the powerpc files only */
#define CONFIG_PPC_SPLPAR	  1
#define __LITTLE_ENDIAN		  1234

/* --- the library copy's link to qsim (glue/common.h sets them) --- */
extern const struct qk_api *qk;
extern struct qk_inst *qk_self;
extern struct qk_params qk_params;
extern char *qk_percpu_base;
extern size_t qk_percpu_stride;
extern const char __start_qk_percpu[], __stop_qk_percpu[];

/* --- types --- */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef long ssize_t;
typedef long long loff_t;
typedef unsigned long ulong;
typedef unsigned int uint;

typedef struct {
	int counter;
} atomic_t;
typedef struct {
	s64 counter;
} atomic64_t;
typedef atomic64_t atomic_long_t;
#define ATOMIC_INIT(i) \
	{              \
		(i)    \
	}

/* --- compiler --- */
#define likely(x)		     __builtin_expect(!!(x), 1)
#define unlikely(x)		     __builtin_expect(!!(x), 0)
#define __always_inline		     inline __attribute__((__always_inline__))
#define noinline		     __attribute__((__noinline__))
#define __noinline		     noinline
#define __pure			     __attribute__((__pure__))
#define __maybe_unused		     __attribute__((__unused__))
#define __always_unused		     __attribute__((__unused__))
#define __used			     __attribute__((__used__))
#define __aligned(x)		     __attribute__((__aligned__(x)))
#define __packed		     __attribute__((__packed__))
#define __section(s)		     __attribute__((__section__(s)))
#define __must_check		     __attribute__((__warn_unused_result__))
#define __noreturn		     __attribute__((__noreturn__))
#define __cold			     __attribute__((__cold__))
#define __printf(a, b)		     __attribute__((__format__(printf, a, b)))
#define __read_mostly		     /* one copy per library copy anyway */
#define __ro_after_init		     /* idem */
#define __init			     /* run by qk_setup */
#define __initdata		     /* idem */
#define __initconst		     /* idem */
#define __exit			     /* never run */
#define __lockfunc		     /* no .spinlock.text: one object */
#define __visible		     /* idem */
#define notrace			     /* no tracing */
#define __percpu		     /* per-CPU templates: DEFINE_PER_CPU */
#define __user			     /* no user space */
#define __kernel		     /* idem */
#define __iomem			     /* idem */
#define __rcu			     /* idem */
#define __force			     /* sparse annotations */
#define __bitwise		     /* idem */
#define __acquires(x)		     /* idem */
#define __releases(x)		     /* idem */
#define __must_hold(x)		     /* idem */
#define __no_kcsan		     /* idem */
#define noinstr			     /* idem */
#define __cacheline_aligned	     __aligned(SMP_CACHE_BYTES)
#define ____cacheline_aligned	     __aligned(SMP_CACHE_BYTES)
#define ____cacheline_aligned_in_smp __aligned(SMP_CACHE_BYTES)
#define __cacheline_aligned_in_smp   __aligned(SMP_CACHE_BYTES)
/* The largest line of qsim's presets: alignment, not the cost model's
 * line (which qk_params.line_bytes gives; the arena aligns by it). */
#define L1_CACHE_BYTES	128
#define SMP_CACHE_BYTES L1_CACHE_BYTES
#define L1_CACHE_SHIFT	7
/* The scenario's page size (machine.page_size): it sizes the pv hash. */
#define PAGE_SIZE  ((unsigned long)qk_params.page_bytes)
#define PAGE_SHIFT ilog2(PAGE_SIZE)

#define barrier()	    __asm__ __volatile__("" ::: "memory")
#define __stringify_1(x...) #x
#define __stringify(x...)   __stringify_1(x)
#define ___PASTE(a, b)	    a##b
#define __PASTE(a, b)	    ___PASTE(a, b)
#define __UNIQUE_ID(p)	    __PASTE(__PASTE(__UNIQUE_ID_, p), __COUNTER__)

#define IS_ENABLED(opt)		    __qk_is_enabled(opt)
#define __qk_is_enabled(v)	    __qk_is_enabled2(__qk_arg_placeholder_##v)
#define __qk_arg_placeholder_1	    0,
#define __qk_is_enabled2(arg)	    __qk_take_second(arg 1, 0, 0)
#define __qk_take_second(a, b, ...) b
#define IS_BUILTIN(opt)		    IS_ENABLED(opt)

#define ARRAY_SIZE(a)		    (sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a)		    (((x) + ((__typeof__(x))(a)-1)) & ~((__typeof__(x))(a)-1))
#define DIV_ROUND_UP(n, d)	    (((n) + (d)-1) / (d))
#define DIV_ROUND_CLOSEST_ULL(x, d) (((x) + (d) / 2) / (d))
#define BIT(n)			    (1UL << (n))
#define BITS_PER_LONG		    64
#define BITS_PER_BYTE		    8
#define U8_MAX			    0xffU
#define U16_MAX			    0xffffU
#define U32_MAX			    0xffffffffU
#define INT_MAX			    0x7fffffff
#define UINT_MAX		    0xffffffffU
#define LONG_MAX		    0x7fffffffffffffffL
#define ULLONG_MAX		    (~0ULL)
#define container_of(p, t, m)	    ((t *)((char *)(p)-offsetof(t, m)))
#define min(a, b)		    ((a) < (b) ? (a) : (b))
#define max(a, b)		    ((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		    min((t)(a), (t)(b))
#define max_t(t, a, b)		    max((t)(a), (t)(b))
#define do_div(n, base)                           \
	({                                        \
		u32 __dd_b = (base);              \
		u32 __dd_r = (u32)((n) % __dd_b); \
		(n) = (n) / __dd_b;               \
		__dd_r;                           \
	})

static inline unsigned int qk_ilog2(unsigned long v)
{
	return v ? 63 - (unsigned int)__builtin_clzl(v) : 0;
}
#define ilog2(v) qk_ilog2(v)
static inline unsigned long roundup_pow_of_two(unsigned long v)
{
	return v <= 1 ? 1 : 1UL << (qk_ilog2(v - 1) + 1);
}

/* --- bugs and warnings: a broken invariant is a result (exit 2) --- */
#define BUILD_BUG_ON(c)	       _Static_assert(!(c), "BUILD_BUG_ON: " #c)
#define BUILD_BUG_ON_MSG(c, m) _Static_assert(!(c), m)
#define BUG()		       qk->bug(__FILE__, __LINE__, "BUG()")
#define BUG_ON(c)                                                      \
	do {                                                           \
		if (unlikely(c))                                       \
			qk->bug(__FILE__, __LINE__, "BUG_ON(" #c ")"); \
	} while (0)
#define WARN_ON(c)                                                       \
	({                                                               \
		bool __w_c = !!(c);                                      \
		if (unlikely(__w_c))                                     \
			qk->warn(__FILE__, __LINE__, "WARN_ON(" #c ")"); \
		__w_c;                                                   \
	})
#define WARN_ON_ONCE(c) WARN_ON(c)
#define WARN(c, fmt...)                                               \
	({                                                            \
		bool __w_c = !!(c);                                   \
		if (unlikely(__w_c))                                  \
			qk->warn(__FILE__, __LINE__, "WARN(" #c ")"); \
		__w_c;                                                \
	})
#define WARN_ONCE(c, fmt...) WARN(c, fmt)
#define debug_locks	     1
#define debug_locks_silent   0
#define debug_locks_off()    0
#define kcsan_release() \
	do {            \
	} while (0)
#define kcsan_acquire() \
	do {            \
	} while (0)
#define EXPORT_SYMBOL(s)     extern __typeof__(s) s
#define EXPORT_SYMBOL_GPL(s) extern __typeof__(s) s
#define pr_info(fmt...) \
	do {            \
	} while (0)
#define pr_warn(fmt...) \
	do {            \
	} while (0)
#define pr_err(fmt...) \
	do {           \
	} while (0)
#define printk(fmt...) \
	do {           \
	} while (0)
int snprintf(char *buf, size_t n, const char *fmt, ...);

/* --- shared memory: every marked access is a simulated one --- */

static __always_inline void *qk_access(const volatile void *p, int kind)
{
	return qk->access(p, kind);
}

/*
 * Under a weak memory model (qk_params.memory, docs/memory-model.md) a
 * marked load's value and a marked store's visibility come from the
 * model; under sc they are the arena's bytes, directly.
 */
#define READ_ONCE(x)                                                        \
	({                                                                  \
		void *__ro_c = qk_access(&(x), QK_READ);                    \
		__auto_type __ro_v = *(const volatile __typeof__(x) *)&(x); \
		if (qk_params.memory && __ro_c)                             \
			qk->mm_load(__ro_c, &(x), &__ro_v, sizeof(__ro_v)); \
		__ro_v;                                                     \
	})
#define WRITE_ONCE(x, val)                                                   \
	do {                                                                 \
		__typeof__(x) __wo_v = (val), __wo_o;                        \
		void *__wo_c = qk_access(&(x), QK_WRITE);                    \
		if (qk_params.memory && __wo_c) {                            \
			qk->mm_store(__wo_c, &(x), &__wo_v, sizeof(__wo_v)); \
		} else {                                                     \
			__wo_o = *(volatile __typeof__(x) *)&(x);            \
			*(volatile __typeof__(x) *)&(x) = __wo_v;            \
			if (__builtin_memcmp(&__wo_o, &__wo_v,               \
					     sizeof(__wo_v)))                \
				qk->written(__wo_c, &(x));                   \
		}                                                            \
	} while (0)
#define data_race(expr) (expr)
#define ACCESS_ONCE(x)	(*(volatile __typeof__(x) *)&(x))

/* --- barriers: their costs and, under a weak model, their ordering
 * (lwsync for the light ones); a full barrier also waits for this CPU's
 * buffered stores --- */
#define mb()			      qk->fence(1)
#define rmb()			      qk->fence(0)
#define wmb()			      qk->fence(0)
#define smp_mb()		      qk->fence(1)
#define smp_rmb()		      qk->fence(0)
#define smp_wmb()		      qk->fence(0)
#define smp_mb__before_atomic()	      smp_mb()
#define smp_mb__after_atomic()	      smp_mb()
#define smp_mb__after_spinlock()      smp_mb()
#define smp_acquire__after_ctrl_dep() qk->fence(0)
/* @expr, a load, then under a weak model later loads read no older. */
#define __qk_acquired(expr)                          \
	({                                           \
		__auto_type __aq_v = (expr);         \
		qk->ord_fence(QK_ORD_ACQUIRE, 0, 1); \
		if (qk_params.memory)                \
			qk->mm_acquire();            \
		__aq_v;                              \
	})
#define smp_load_acquire(p) __qk_acquired(READ_ONCE(*(p)))
#define smp_store_release(p, v)                      \
	do {                                         \
		qk->ord_fence(QK_ORD_RELEASE, 1, 1); \
		if (qk_params.memory)                \
			qk->mm_release();            \
		WRITE_ONCE(*(p), (v));               \
	} while (0)
#define smp_store_mb(x, v)        \
	do {                      \
		WRITE_ONCE(x, v); \
		smp_mb();         \
	} while (0)

/*
 * Every read-modify-write is one larx/stcx. update: load with a
 * reservation, decide, try the store, retry from the load when the
 * reservation was lost.  @cond and @new see the loaded value as
 * __qk_old; @ord is its ordering (enum qk_order): its barriers'
 * cost (qk->ord_fence: on POWER a fully ordered one, the unsuffixed
 * kernel atomics, has the kernel's entry and exit syncs, the exit one
 * only when it stored; an acquire one an isync after a store, a release
 * one an lwsync before), and under a weak model each orders as sim/mm.h
 * says.  Evaluates to the loaded value.
 */
#define __qk_update(ptr, cond, new, ord, hint)                              \
	({                                                                  \
		__typeof__(ptr) __u_p = (ptr);                              \
		__typeof__(*__u_p) __qk_old, __u_n;                         \
		void *__u_c;                                                \
		bool __u_do;                                                \
		if ((ord) != QK_ORD_RELAXED)                                \
			qk->ord_fence((ord), 1, 1);                         \
		if (qk_params.memory)                                       \
			qk->mm_rmw_begin(__u_p, sizeof(*__u_p), (ord));     \
		for (;;) {                                                  \
			__u_c = qk_access(__u_p,                            \
					  (hint) ? QK_RMW : QK_RMW_RESV);   \
			__qk_old = *(volatile __typeof__(*__u_p) *)__u_p;   \
			__u_do = (cond);                                    \
			if (!__u_do)                                        \
				break;                                      \
			__u_n = (new);                                      \
			if (qk->stcx(__u_c, __u_p))                         \
				break;                                      \
		}                                                           \
		if (__u_do) {                                               \
			*(volatile __typeof__(*__u_p) *)__u_p = __u_n;      \
			if (qk_params.memory && __u_c)                      \
				qk->mm_rmw_written(__u_c, __u_p, &__qk_old, \
						   sizeof(__qk_old));       \
			if (__builtin_memcmp(&__u_n, &__qk_old,             \
					     sizeof(__u_n)))                \
				qk->written(__u_c, __u_p);                  \
		}                                                           \
		if (qk_params.memory)                                       \
			qk->mm_rmw_end((ord));                              \
		if ((ord) != QK_ORD_RELAXED)                                \
			qk->ord_fence((ord), 0, __u_do);                    \
		__qk_old;                                                   \
	})

#define __qk_cmpxchg(p, o, n, ord)                                    \
	({                                                            \
		__typeof__(*(p)) __c_o = (o), __c_n = (n);            \
		__qk_update(p, __qk_old == __c_o, __c_n, ord, false); \
	})
#define cmpxchg(p, o, n)	 __qk_cmpxchg(p, o, n, QK_ORD_FULL)
#define cmpxchg_relaxed(p, o, n) __qk_cmpxchg(p, o, n, QK_ORD_RELAXED)
#define cmpxchg_acquire(p, o, n) __qk_cmpxchg(p, o, n, QK_ORD_ACQUIRE)
#define cmpxchg_release(p, o, n) __qk_cmpxchg(p, o, n, QK_ORD_RELEASE)
#define cmpxchg64(p, o, n)	 cmpxchg(p, o, n)

#define __qk_try_cmpxchg(p, po, n, ord)                                  \
	({                                                               \
		__typeof__(*(p)) *__t_po = (po), __t_o = *__t_po,        \
				 __t_r = __qk_cmpxchg(p, __t_o, n, ord); \
		bool __t_ok = __t_r == __t_o;                            \
		if (!__t_ok)                                             \
			*__t_po = __t_r;                                 \
		__t_ok;                                                  \
	})
#define try_cmpxchg(p, po, n)	      __qk_try_cmpxchg(p, po, n, QK_ORD_FULL)
#define try_cmpxchg_relaxed(p, po, n) __qk_try_cmpxchg(p, po, n, QK_ORD_RELAXED)
#define try_cmpxchg_acquire(p, po, n) __qk_try_cmpxchg(p, po, n, QK_ORD_ACQUIRE)
#define try_cmpxchg_release(p, po, n) __qk_try_cmpxchg(p, po, n, QK_ORD_RELEASE)

#define __qk_xchg(p, v, ord)                             \
	({                                               \
		__typeof__(*(p)) __x_v = (v);            \
		__qk_update(p, true, __x_v, ord, false); \
	})
#define xchg(p, v)	   __qk_xchg(p, v, QK_ORD_FULL)
#define xchg_relaxed(p, v) __qk_xchg(p, v, QK_ORD_RELAXED)
#define xchg_acquire(p, v) __qk_xchg(p, v, QK_ORD_ACQUIRE)
#define xchg_release(p, v) __qk_xchg(p, v, QK_ORD_RELEASE)

/* atomic_t and atomic64_t: the same on their counter. */
#define __qk_fetch(v, op, i, ord)        \
	__qk_update(&(v)->counter, true, \
		    (__typeof__((v)->counter))(__qk_old op(i)), ord, false)
#define atomic_read(v)			READ_ONCE((v)->counter)
#define atomic_read_acquire(v)		smp_load_acquire(&(v)->counter)
#define atomic_set(v, i)		WRITE_ONCE((v)->counter, (i))
#define atomic_set_release(v, i)	smp_store_release(&(v)->counter, (i))
#define atomic_cmpxchg(v, o, n)		cmpxchg(&(v)->counter, o, n)
#define atomic_cmpxchg_relaxed(v, o, n) cmpxchg_relaxed(&(v)->counter, o, n)
#define atomic_cmpxchg_acquire(v, o, n) cmpxchg_acquire(&(v)->counter, o, n)
#define atomic_cmpxchg_release(v, o, n) cmpxchg_release(&(v)->counter, o, n)
#define atomic_try_cmpxchg(v, po, n)	try_cmpxchg(&(v)->counter, po, n)
#define atomic_try_cmpxchg_relaxed(v, po, n) \
	try_cmpxchg_relaxed(&(v)->counter, po, n)
#define atomic_try_cmpxchg_acquire(v, po, n) \
	try_cmpxchg_acquire(&(v)->counter, po, n)
#define atomic_try_cmpxchg_release(v, po, n) \
	try_cmpxchg_release(&(v)->counter, po, n)
#define atomic_xchg(v, n)		  xchg(&(v)->counter, n)
#define atomic_xchg_relaxed(v, n)	  xchg_relaxed(&(v)->counter, n)
#define atomic_xchg_acquire(v, n)	  xchg_acquire(&(v)->counter, n)
#define atomic_xchg_release(v, n)	  xchg_release(&(v)->counter, n)
#define atomic_fetch_add(i, v)		  __qk_fetch(v, +, i, QK_ORD_FULL)
#define atomic_fetch_add_relaxed(i, v)	  __qk_fetch(v, +, i, QK_ORD_RELAXED)
#define atomic_fetch_add_acquire(i, v)	  __qk_fetch(v, +, i, QK_ORD_ACQUIRE)
#define atomic_fetch_add_release(i, v)	  __qk_fetch(v, +, i, QK_ORD_RELEASE)
#define atomic_fetch_sub(i, v)		  __qk_fetch(v, -, i, QK_ORD_FULL)
#define atomic_fetch_sub_release(i, v)	  __qk_fetch(v, -, i, QK_ORD_RELEASE)
#define atomic_fetch_or(i, v)		  __qk_fetch(v, |, i, QK_ORD_FULL)
#define atomic_fetch_or_relaxed(i, v)	  __qk_fetch(v, |, i, QK_ORD_RELAXED)
#define atomic_fetch_or_acquire(i, v)	  __qk_fetch(v, |, i, QK_ORD_ACQUIRE)
#define atomic_fetch_or_release(i, v)	  __qk_fetch(v, |, i, QK_ORD_RELEASE)
#define atomic_fetch_and(i, v)		  __qk_fetch(v, &, i, QK_ORD_FULL)
#define atomic_fetch_andnot(i, v)	  __qk_fetch(v, &, ~(i), QK_ORD_FULL)
#define atomic_fetch_andnot_relaxed(i, v) __qk_fetch(v, &, ~(i), QK_ORD_RELAXED)
#define atomic_fetch_andnot_release(i, v) __qk_fetch(v, &, ~(i), QK_ORD_RELEASE)
#define atomic_add(i, v)		  ((void)__qk_fetch(v, +, i, QK_ORD_RELAXED))
#define atomic_sub(i, v)		  ((void)__qk_fetch(v, -, i, QK_ORD_RELAXED))
#define atomic_inc(v)			  atomic_add(1, v)
#define atomic_dec(v)			  atomic_sub(1, v)
#define atomic_or(i, v)			  ((void)__qk_fetch(v, |, i, QK_ORD_RELAXED))
#define atomic_and(i, v)		  ((void)__qk_fetch(v, &, i, QK_ORD_RELAXED))
#define atomic_andnot(i, v)		  ((void)__qk_fetch(v, &, ~(i), QK_ORD_RELAXED))
#define atomic_add_return(i, v)		  (atomic_fetch_add(i, v) + (i))
#define atomic_add_return_relaxed(i, v)	  (atomic_fetch_add_relaxed(i, v) + (i))
#define atomic_add_return_acquire(i, v)	  (atomic_fetch_add_acquire(i, v) + (i))
#define atomic_add_return_release(i, v)	  (atomic_fetch_add_release(i, v) + (i))
#define atomic_sub_return(i, v)		  (atomic_fetch_sub(i, v) - (i))
#define atomic_sub_return_release(i, v)	  (atomic_fetch_sub_release(i, v) - (i))
#define atomic_inc_return(v)		  atomic_add_return(1, v)
#define atomic_dec_return(v)		  atomic_sub_return(1, v)
#define atomic_dec_and_test(v)		  (atomic_dec_return(v) == 0)
#define atomic64_read(v)		  atomic_read(v)
#define atomic64_set(v, i)		  atomic_set(v, i)
#define atomic_long_read(v)		  atomic_read(v)
#define atomic_long_set(v, i)		  atomic_set(v, i)

/* --- waiting --- */

static __always_inline void cpu_relax(void)
{
	qk->relax();
}

/*
 * The cond-loads: spin until @cond_expr (over VAL, the value just
 * loaded) holds.  A pure condition is an event-driven wait, exactly
 * equal to the loop (sim/engine.h E4) at O(1) host cost; a condition
 * with side effects (a counter, as the pending wait's) runs as the
 * plain loop it is, which the engine's raw-spin mechanism runs exactly.
 * Which is which is decided at build time: tools/kasm.c replaces
 * __qk_cond_pure(expr) by 1 or 0 from the expression's tokens.
 */
#define __qk_cond_load(ptr, cond_expr)                            \
	({                                                        \
		__typeof__(ptr) __PTR = (ptr);                    \
		__typeof__(*__PTR) VAL;                           \
		if (__qk_cond_pure(cond_expr) && qk->running()) { \
			qk->wait_begin();                         \
			for (;;) {                                \
				VAL = READ_ONCE(*__PTR);          \
				if (cond_expr)                    \
					break;                    \
				qk->wait_block(UINT64_MAX);       \
			}                                         \
			qk->wait_end();                           \
		} else {                                          \
			for (;;) {                                \
				VAL = READ_ONCE(*__PTR);          \
				if (cond_expr)                    \
					break;                    \
				cpu_relax();                      \
			}                                         \
		}                                                 \
		VAL;                                              \
	})
#define smp_cond_load_relaxed(ptr, c)  __qk_cond_load(ptr, c)
#define smp_cond_load_acquire(ptr, c)  __qk_acquired(__qk_cond_load(ptr, c))
#define atomic_cond_read_relaxed(v, c) smp_cond_load_relaxed(&(v)->counter, (c))
#define atomic_cond_read_acquire(v, c) smp_cond_load_acquire(&(v)->counter, (c))

/* SMT priority (powerpc): spin loops run at low priority. */
#define HMT_low()	 qk->hmt(true)
#define HMT_medium()	 qk->hmt(false)
#define HMT_very_low()	 qk->hmt(true)
#define HMT_medium_low() qk->hmt(true)
#define spin_begin()	 HMT_low()
#define spin_end()	 HMT_medium()
#define spin_cpu_relax() qk->spin_relax()
#define spin_until_cond(cond)                     \
	do {                                      \
		if (unlikely(!(cond))) {          \
			spin_begin();             \
			do {                      \
				spin_cpu_relax(); \
			} while (!(cond));        \
			spin_end();               \
		}                                 \
	} while (0)
#define prefetch(p)  ((void)(p))
#define prefetchw(p) ((void)(p))
#define cond_resched() \
	do {           \
	} while (0)
#define in_interrupt()	  0
#define in_task()	  1
#define preempt_disable() barrier()
#define preempt_enable()  barrier()

/* --- CPUs --- */
static __always_inline int smp_processor_id(void)
{
	return qk->cpu_id();
}
#define raw_smp_processor_id() smp_processor_id()
#define num_possible_cpus()    ((int)qk->nr_cpus(qk_self))
#define num_online_cpus()      num_possible_cpus()
#define num_present_cpus()     num_possible_cpus()
#define nr_cpu_ids	       ((unsigned int)num_possible_cpus())
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < num_possible_cpus(); (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define cpu_to_node(cpu)	 qk->cpu_to_node(qk_self, (cpu))
#define numa_node_id()		 cpu_to_node(smp_processor_id())
#define sched_clock()		 qk->clock_ns()
#define local_clock()		 qk->clock_ns()

/* --- per-CPU data: the template lives in the library's qk_percpu
 * section; each CPU's copy is guest memory of the partition --- */
#define DEFINE_PER_CPU_SECTION(type, name, sec) \
	__section("qk_percpu") __typeof__(type) name
#define DECLARE_PER_CPU_SECTION(type, name, sec) \
	extern __section("qk_percpu") __typeof__(type) name
#define DEFINE_PER_CPU(type, name)  DEFINE_PER_CPU_SECTION(type, name, "")
#define DECLARE_PER_CPU(type, name) DECLARE_PER_CPU_SECTION(type, name, "")
#define DEFINE_PER_CPU_ALIGNED(type, name) \
	DEFINE_PER_CPU_SECTION(type, name, "") ____cacheline_aligned
#define DECLARE_PER_CPU_ALIGNED(type, name) DECLARE_PER_CPU(type, name)
#define DEFINE_PER_CPU_SHARED_ALIGNED(type, name) \
	DEFINE_PER_CPU_ALIGNED(type, name)
#define DEFINE_PER_CPU_READ_MOSTLY(type, name) DEFINE_PER_CPU(type, name)

static __always_inline void *qk_percpu(const void *tmpl, int cpu)
{
	return qk_percpu_base + (size_t)cpu * qk_percpu_stride +
	       ((const char *)tmpl - __start_qk_percpu);
}
#define per_cpu_ptr(p, cpu) ((__typeof__(p))qk_percpu((p), (cpu)))
#define this_cpu_ptr(p)	    per_cpu_ptr(p, smp_processor_id())
#define raw_cpu_ptr(p)	    this_cpu_ptr(p)
#define per_cpu(var, cpu)   (*per_cpu_ptr(&(var), (cpu)))
#define __this_cpu_ptr(p)   this_cpu_ptr(p)

/* Reads and writes of this CPU's copy are accesses like any other;
 * the lock-event counters (lock_events.h) are counted by qsim. */
bool qk_is_event(const void *tmpl, unsigned int *ev);
#define __qk_pcpu_add(var, n)                                           \
	do {                                                            \
		unsigned int __pa_ev;                                   \
		if (qk_is_event(&(var), &__pa_ev)) {                    \
			qk->event(qk_self, __pa_ev, (uint64_t)(n));     \
		} else {                                                \
			__typeof__(var) *__pa_p = this_cpu_ptr(&(var)); \
			WRITE_ONCE(*__pa_p, READ_ONCE(*__pa_p) + (n));  \
		}                                                       \
	} while (0)
#define this_cpu_read(var)	 READ_ONCE(*this_cpu_ptr(&(var)))
#define this_cpu_write(var, v)	 WRITE_ONCE(*this_cpu_ptr(&(var)), (v))
#define this_cpu_add(var, n)	 __qk_pcpu_add(var, n)
#define this_cpu_sub(var, n)	 __qk_pcpu_add(var, -(n))
#define this_cpu_inc(var)	 __qk_pcpu_add(var, 1)
#define this_cpu_dec(var)	 __qk_pcpu_add(var, -1)
#define __this_cpu_read(var)	 this_cpu_read(var)
#define __this_cpu_write(var, v) this_cpu_write(var, v)
#define __this_cpu_add(var, n)	 this_cpu_add(var, n)
#define __this_cpu_inc(var)	 this_cpu_inc(var)
#define __this_cpu_dec(var)	 this_cpu_dec(var)
#define raw_cpu_read(var)	 this_cpu_read(var)
#define raw_cpu_write(var, v)	 this_cpu_write(var, v)
#define raw_cpu_add(var, n)	 this_cpu_add(var, n)
#define raw_cpu_inc(var)	 this_cpu_inc(var)
#define raw_cpu_dec(var)	 this_cpu_dec(var)

/* --- boot-time services --- */
#define HASH_EARLY 0x00000001
#define HASH_ZERO  0x00000002
void *alloc_large_system_hash(const char *name, unsigned long bucketsize,
			      unsigned long numentries, int scale, int flags,
			      unsigned int *hash_shift, unsigned int *hash_mask,
			      unsigned long low_limit,
			      unsigned long high_limit);

static inline u32 hash_ptr(const void *p, unsigned int bits)
{
	return qk->hash_ptr(p, bits);
}
#define hash_long(v, bits) hash_ptr((const void *)(v), bits)

typedef int (*initcall_t)(void);
#define __qk_initcall(fn)                             \
	static initcall_t __PASTE(__qk_initcall_, fn) \
	__used __section("qk_initcall") = (fn)
#define device_initcall(fn)	       __qk_initcall(fn)
#define late_initcall(fn)	       __qk_initcall(fn)
#define arch_initcall(fn)	       __qk_initcall(fn)
#define core_initcall(fn)	       __qk_initcall(fn)
#define subsys_initcall(fn)	       __qk_initcall(fn)
#define fs_initcall(fn)		       __qk_initcall(fn)
#define machine_device_initcall(m, fn) __qk_initcall(fn)
/* Boot parameters: none are passed; the handler is kept, not run. */
#define early_param(str, fn) \
	static int (*__PASTE(__qk_param_, fn))(char *) __used = (fn)
#define __setup(str, fn) early_param(str, fn)

/* Mutexes and RCU: only set-up code takes them, never concurrently. */
struct mutex {
	int unused;
};
#define DEFINE_MUTEX(m) struct mutex m = {0}
#define mutex_lock(m)	((void)(m))
#define mutex_unlock(m) ((void)(m))
#define synchronize_rcu() \
	do {              \
	} while (0)

/* --- debugfs: the files' knobs, set from the scenario's [lock] keys --- */
struct dentry;
struct inode {
	void *i_private;
};
struct file {
	struct inode *f_inode;
};
struct file_operations {
	qk_knob_get get;
	qk_knob_set set;
};
#define DEFINE_SIMPLE_ATTRIBUTE(name, g, s, fmt) \
	static const struct file_operations name = {.get = (g), .set = (s)}
#define DEFINE_DEBUGFS_ATTRIBUTE(name, g, s, fmt) \
	DEFINE_SIMPLE_ATTRIBUTE(name, g, s, fmt)
extern struct dentry *arch_debugfs_dir;
static inline struct dentry *debugfs_create_file(
	const char *name, unsigned short mode, struct dentry *parent,
	void *data, const struct file_operations *fops)
{
	qk->knob(qk_self, name, data, fops->get, fops->set);
	return NULL;
}
static inline struct inode *file_inode(const struct file *f)
{
	return f->f_inode;
}
static inline ssize_t simple_read_from_buffer(void *to, size_t count,
					      loff_t *ppos, const void *from,
					      size_t available)
{
	return 0; /* counters are read through qsim, not a file */
}
#define EBADF  9
#define EINVAL 22
#define ENOMEM 12

/* --- tracepoints: none --- */
#define LCB_F_SPIN  (1U << 0)
#define LCB_F_READ  (1U << 1)
#define LCB_F_WRITE (1U << 2)
#define trace_contention_begin(lock, flags) \
	do {                                \
	} while (0)
#define trace_contention_end(lock, ret) \
	do {                            \
	} while (0)

/* --- paravirt (powerpc's pseries and qsim's pv mappings) --- */
static inline bool is_shared_processor(void)
{
	return qk->is_shared(qk_self);
}
static inline u32 yield_count_of(int cpu)
{
	return qk->yield_count(cpu);
}
static inline bool vcpu_is_preempted(int cpu)
{
	return qk->vcpu_is_preempted(cpu);
}
#define H_CEDE	 0xE0
#define H_CONFER 0xE4
#define H_PROD	 0xE8
static inline void yield_to_preempted(int cpu, u32 yield_count)
{
	qk->hcall(H_CONFER, cpu, yield_count);
}
static inline void yield_to_any(void)
{
	qk->hcall(H_CONFER, -1, 0);
}
static inline void prod_cpu(int cpu)
{
	qk->hcall(H_PROD, cpu, 0);
}

/* powerpc's barrier strings, pasted into its asm templates:
 * tools/kasm.c models these instructions. */
#define PPC_ACQUIRE_BARRIER	 "\n\tisync\n"
#define PPC_RELEASE_BARRIER	 "\n\tlwsync\n"
#define PPC_ATOMIC_ENTRY_BARRIER "\n\tsync\n"
#define PPC_ATOMIC_EXIT_BARRIER	 "\n\tsync\n"

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The interface between qsim and a kernel-tree lock library (kernel-tree
 * mode, docs/kernel-tree.md).
 *
 * A kernel-tree lock is the kernel's own lock files, compiled against
 * qsim's arch include tree (locks/kernel/include) into a shared object
 * that qsim embeds.  Each partition of each simulation loads its own copy
 * (sim/.. never shares one), so the files' statics are per partition and
 * per host thread.  The copy calls qsim only through the table below,
 * handed over by qk_bind; qsim calls the copy only through the qk_*
 * entry points the glue (locks/kernel/glue/) exports.
 *
 * This header is included on both sides: plain C, no libc, no qsim type.
 */
#ifndef QSIM_LOCKS_KERNEL_KAPI_H
#define QSIM_LOCKS_KERNEL_KAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QK_API_VERSION 6

/* The kinds of a shared access (sim/engine.h's enum sim_access). */
enum qk_access {
	QK_READ,
	QK_WRITE,
	QK_RMW,	     /* a larx with the lock hint, or a locked atomic */
	QK_RMW_RESV, /* a larx that can lose its reservation */
};

enum { QK_PV_WAITING, QK_PV_HOLDER };

/* The ordering of an atomic (sim/mm.h's enum sim_order). */
enum qk_order {
	QK_ORD_RELAXED,
	QK_ORD_FULL,	/* sync before and after */
	QK_ORD_ACQUIRE, /* later loads after it */
	QK_ORD_RELEASE, /* earlier accesses before its store */
};

/* The partition a library copy belongs to (qsim's side, opaque). */
struct qk_inst;

/* A debugfs knob the kernel file registered (get/set as its fops do). */
typedef int (*qk_knob_get)(void *data, unsigned long long *val);
typedef int (*qk_knob_set)(void *data, unsigned long long val);

struct qk_api {
	unsigned int version;
	/* Shared memory: sync and cost an access of @kind to @p; returns
	 * the running vCPU (NULL outside one: set-up, plain access). */
	void *(*access)(const volatile void *p, int kind);
	/* A plain (unmarked) load or store of @size bytes of guest memory,
	 * seen through the compiler's instrumentation (glue/common.h) before
	 * the compiled code makes it: an access like a marked one; a store
	 * is taken as a change. */
	void (*plain)(const volatile void *p, size_t size, int kind);
	/* After a store that changed @p's bytes. */
	void (*written)(void *cpu, const volatile void *p);
	/* The stcx. after access(QK_RMW_RESV): false = reservation lost. */
	bool (*stcx)(void *cpu, const volatile void *p);
	/* A barrier: 0 lightweight (lwsync, isync), 1 full (sync). */
	void (*fence)(int full);
	/* The barriers of an ordered atomic or access (@ord, enum qk_order;
	 * version 5, was rmw_fence for fully ordered atomics only): @entry
	 * before it, else after it, when it is @done (an atomic that
	 * stored, a load).  The clean-room shim's lk_shim_ord_fence: on
	 * POWER a sync each side of a fully ordered atomic (none after a
	 * failed compare), a light barrier's cost after an acquire and
	 * before a release; on x86 only a full one's ordering. */
	void (*ord_fence)(int ord, int entry, int done);
	/*
	 * The weak memory models (qk_params.memory, docs/memory-model.md),
	 * called only when one is on.  After access(QK_READ) of a marked
	 * load: the value the model gives, over *out.  A marked store
	 * after access(QK_WRITE): the model makes it visible (it writes
	 * memory itself where no model applies).  Around an atomic (@ord,
	 * enum qk_order): before its first larx, after its store with the
	 * bytes it replaced, and after it (stored or not).  mm_acquire:
	 * an acquire load was just made (later loads read no older).
	 */
	void (*mm_load)(void *cpu, const volatile void *p, void *out,
			size_t size);
	void (*mm_store)(void *cpu, volatile void *p, const void *val,
			 size_t size);
	void (*mm_rmw_begin)(const volatile void *p, size_t size, int ord);
	void (*mm_rmw_written)(void *cpu, const volatile void *p,
			       const void *old, size_t size);
	void (*mm_rmw_end)(int ord);
	void (*mm_acquire)(void);
	void (*mm_release)(void);
	void (*relax)(void);
	/* powerpc's spin_cpu_relax(): a nop before POWER10 (api 6). */
	void (*spin_relax)(void);
	/* SMT priority low (spin_begin, HMT_low) or back to medium. */
	void (*hmt)(bool low);
	/* Event-driven waits (sim/engine.h, sim_wait_*). */
	void (*wait_begin)(void);
	uint64_t (*wait_block)(uint64_t budget);
	void (*wait_end)(void);

	/* The running vCPU (false: set-up code) and its partition. */
	bool (*running)(void);
	int (*cpu_id)(void);
	unsigned int (*nr_cpus)(struct qk_inst *in);
	int (*cpu_to_node)(struct qk_inst *in, int cpu);
	uint64_t (*clock_ns)(void);
	uint32_t (*hash_ptr)(const void *p, unsigned int bits);

	/* Paravirt: the lppaca, hcalls, and the scenario's pv mapping. */
	bool (*is_shared)(struct qk_inst *in);
	uint32_t (*yield_count)(int cpu);
	bool (*vcpu_is_preempted)(int cpu);
	long (*hcall)(long opcode, long a, long b);
	void (*pv_sleep)(struct qk_inst *in, uint8_t *ptr, uint8_t val);
	void (*pv_wake)(struct qk_inst *in, int cpu);
	/* The splpar-directed mapping's record: the lock a vCPU waits
	 * for (QK_PV_WAITING), then holds (QK_PV_HOLDER). */
	void (*pv_note)(struct qk_inst *in, const void *lock, int what);

	/* Guest memory of the partition (boot-time allocations). */
	void *(*alloc)(struct qk_inst *in, const char *what, size_t size,
		       size_t align);
	/* A kernel lock event (index into qk_info.events), add @n. */
	void (*event)(struct qk_inst *in, unsigned int ev, uint64_t n);
	void (*knob)(struct qk_inst *in, const char *name, void *data,
		     qk_knob_get get, qk_knob_set set);
	/* BUG(), WARN(): a broken invariant stops the run (exit 2). */
	void (*bug)(const char *file, int line, const char *what);
	void (*warn)(const char *file, int line, const char *what);
};

/* What a library copy tells qsim about itself (glue, qk_info). */
struct qk_info {
	unsigned int api_version;
	const char *kind; /* "generic" or "ppc" */
	size_t lock_size; /* sizeof(arch_spinlock_t) */
	size_t lock_align;
	/* The per-CPU template (DEFINE_PER_CPU) and the lock events. */
	const char *percpu_start, *percpu_end;
	unsigned int nevents;
	const char *const *event_names;
	/* In the per-CPU template: the CPU's count of queue nodes in use
	 * (an int), and how many nodes it has (observer O7). */
	const char *qnode_count;
	int qnode_max;
};

/* The entry points of a library copy (dlsym names). */
#define QK_SYM_INFO    "qk_info"
#define QK_SYM_BIND    "qk_bind"
#define QK_SYM_SETUP   "qk_setup"
#define QK_SYM_LOCK    "qk_lock"
#define QK_SYM_UNLOCK  "qk_unlock"
#define QK_SYM_TRYLOCK "qk_trylock"

/* qk_bind(api, inst, params): the parameters the arch layer reads. */
struct qk_params {
	uint32_t spin_threshold; /* SPIN_THRESHOLD */
	uint32_t pending_loops;	 /* _Q_PENDING_LOOPS */
	bool paravirt;		 /* the pv slowpath (generic files) */
	unsigned int nr_cpus;
	unsigned int line_bytes; /* SMP_CACHE_BYTES */
	unsigned int page_bytes; /* PAGE_SIZE */
	int memory;		 /* machine.memory: 0 sc, else a weak model */
	/* Guest memory: the plain accesses worth reporting. */
	const char *arena_lo, *arena_hi;
};

/* qk_setup(percpu, stride): each CPU's copy of the per-CPU template at
 * percpu + cpu * stride; runs the files' initcalls and pv hash set-up. */

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The lock registry: one ops table per algorithm, the same verbs for all
 * (docs/locks.md).  A lock lives in guest memory (the arena); the table
 * says how big it is.  A lock algorithm may also keep guest-kernel globals
 * (per-CPU queue nodes, the pv hash table): each partition gets its own
 * copy, sized by global_size and set up by global_init.  Lock code itself
 * sees only the shim.
 */
#ifndef QSIM_LOCKS_LOCK_H
#define QSIM_LOCKS_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How pv_wait / pv_kick map onto the hypervisor (docs/locks.md). */
enum lk_pv_mapping {
	LK_PV_SPLPAR_UNDIRECTED, /* 2020 powerpc: one H_CONFER(-1); H_PROD */
	LK_PV_SPLPAR_DIRECTED,	 /* 2016 proposal: confer to the holder */
	LK_PV_SPLPAR_CEDE,	 /* H_CEDE until prodded; H_PROD */
	LK_PV_KVM,		 /* halt until kicked; kick hypercall */
};
#define LK_PV_NR (LK_PV_KVM + 1)

/* Which early-wait test a queued pv waiter applies every 256 spins. */
enum lk_wait_early {
	LK_WAIT_EARLY_PREV_STATE,     /* predecessor's pv state only (6.x) */
	LK_WAIT_EARLY_PREV_PREEMPTED, /* ... or its vCPU preempted (4.15) */
	LK_WAIT_EARLY_NONE, /* never: spin the whole threshold (4.2) */
};

enum lk_steal {
	LK_STEAL_HYBRID,  /* hybrid queued/unfair trylock (current) */
	LK_STEAL_ONESHOT, /* one steal attempt at entry (4.5 - 4.19) */
	LK_STEAL_NONE,	  /* no stealing (4.2) */
};

/* Tunables, from the scenario's [lock] section. */
struct lk_params {
	uint32_t spin_threshold; /* SPIN_THRESHOLD */
	uint32_t pending_loops;	 /* _Q_PENDING_LOOPS */
	enum lk_wait_early wait_early;
	enum lk_steal steal;
	enum lk_pv_mapping pv_mapping;
	unsigned int line_bytes;
	unsigned int page_bytes;
	bool backoff_hashed;	 /* ticket_backoff: delays per lock hash */
	unsigned int numa_nodes; /* the guest's nodes: chips its pool spans */
	bool shared;		 /* the partition's processors are shared */
	uint32_t qspl_set;	 /* which qspl_* keys the scenario set */
	const char *arena_lo, *arena_hi; /* guest memory (host addresses) */
	int memory; /* machine.memory (enum sim_memory): 0 sc */
	/* ppc_qspinlock: the qspl_* tunables under their kernel names. */
	struct {
/* X(name, default, max, help) */
#define QSPL_TUNABLES(X)                                                     \
	X(steal_spins, 32, 1u << 20,                                         \
	  "steal attempts before queueing; 0 = none")                        \
	X(remote_steal_spins, 4, 1u << 20,                                   \
	  "the same when the owner is on another NUMA node")                 \
	X(head_spins, 256, 1u << 20, "head spins before setting must-queue") \
	X(pv_yield_owner, 1, 1, "H_CONFER to a preempted owner (0/1)")       \
	X(pv_yield_allow_steal, 0, 1,                                        \
	  "the head drops must-queue while it confers (0/1)")                \
	X(pv_spin_on_preempted_owner, 0, 1,                                  \
	  "do not count spins while the owner is preempted (0/1)")           \
	X(pv_sleepy_lock, 1, 1, "the sleepy bit and factor (0/1)")           \
	X(pv_sleepy_lock_sticky, 0, 1,                                       \
	  "keep setting sleepy once a preempted owner was seen (0/1)")       \
	X(pv_sleepy_lock_interval_ns, 0, 1000000000u,                        \
	  "per-CPU memory of sleepiness, ns (0 = off)")                      \
	X(pv_sleepy_lock_factor, 256, 1u << 16,                              \
	  "spin budget factor when sleepy")                                  \
	X(pv_yield_prev, 1, 1, "H_CONFER to a preempted predecessor (0/1)")  \
	X(pv_yield_sleepy_owner, 1, 1,                                       \
	  "queued waiters yield to a sleepy owner (0/1)")                    \
	X(pv_prod_head, 0, 1, "H_PROD the new head if preempted (0/1)")
#define X(name, def, max, help) uint32_t name;
		QSPL_TUNABLES(X)
#undef X
	} qspl;
};

struct lk_ops {
	const char *name;
	const char *desc;
	size_t size; /* bytes of one lock in guest memory */
	size_t align;
	void (*init)(void *lock);
	void (*lock)(void *lock);
	void (*unlock)(void *lock);
	bool (*trylock)(void *lock);
	/* Reader side, for rwlocks (NULL otherwise). */
	void (*read_lock)(void *lock);
	void (*read_unlock)(void *lock);
	/* Guest-kernel globals, per partition (0 = none). */
	size_t (*global_size)(const struct lk_params *p, unsigned int nr_cpus);
	void (*global_init)(void *globals, const struct lk_params *p,
			    unsigned int nr_cpus);
	/* The [lock] keys it reads, space separated ("qspl_*": all of them). */
	const char *params;
	/* Deliberately broken: validation must report a violation. */
	bool broken;
	/* Uses pv_wait/pv_kick, so the pv mapping matters. */
	bool paravirt;
	/* Its word's layout, for the observers (sim/observe.h). */
	enum lk_word {
		LK_WORD_NONE,
		LK_WORD_QSPINLOCK, /* the generic queued spinlock's */
		LK_WORD_PPC,	   /* the powerpc queued spinlock's (6.2 on) */
	} word;
	/* The pv hash table in @globals: entries of a lock then a node
	 * pointer (false: none). */
	bool (*pv_hash)(void *globals, void **base, size_t *entries);
	/* Each cpu's queue-node count in @globals: an int at @base + cpu *
	 * @stride for @ncpus cpus, from 0 to @max (false: none known). */
	bool (*qnode_counts)(void *globals, void **base, size_t *stride,
			     unsigned int *ncpus, int *max);
	/* Built from a kernel tree's own files (docs/kernel-tree.md). */
	bool kernel_tree;
	/* The tunables it registers, as "[lock] key=its default" (the
	 * tree's own initial value; NULL-terminated, for g_strfreev);
	 * NULL: every key in params. */
	char **(*knobs)(void);
	/* A mutant build: its name, what it breaks, how to expose it. */
	const char *mutant;
	const char *mutant_desc;
	const char *mutant_mapping; /* a mapping that exposes it, or NULL */
	const char *mutant_memory;  /* the memory model it needs, or NULL */
	bool hv_no_latch;	    /* the hypervisor must not latch kicks */
	void (*global_fini)(void *globals);
};

/*
 * The kernel tree this binary's kernel_* locks were built from: its path,
 * the Linux version its Makefile names, `git describe --dirty` (or ""),
 * and the SHA-256 of each file the build read, a {NULL, NULL}-terminated
 * list of {path in the tree, hex digest}.  NULL in a build without one.
 */
struct lk_ktree_identity {
	const char *path, *version, *describe;
	const char *const (*files)[2];
};
const struct lk_ktree_identity *lk_ktree_identity(void);
/* The tree lock type @lock was built from; NULL for qsim's own locks. */
const struct lk_ktree_identity *lk_ktree_of(const char *lock);

/* Does @ops read [lock] @key (one of its params)? */
bool lk_reads_key(const struct lk_ops *ops, const char *key);

/* NULL-terminated, in `qsim list` order. */
extern const struct lk_ops *const lk_registry[];
const struct lk_ops *lk_find(const char *name);
/* The mutant builds (locks/mutants.h), NULL-terminated. */
extern const struct lk_ops *const lk_mutants[];
const struct lk_ops *lk_find_mutant(const char *name);

extern const struct lk_ops lk_tas_ops;
extern const struct lk_ops lk_ticket_ops;
extern const struct lk_ops lk_qspinlock_ops;
extern const struct lk_ops lk_pv_qspinlock_ops;
extern const struct lk_ops lk_ppc_qspinlock_ops;
extern const struct lk_ops lk_qrwlock_ops;
extern const struct lk_ops lk_rwlock_legacy_ops;
extern const struct lk_ops lk_ticket_backoff_ops;
extern const struct lk_ops lk_unfair_ops;
extern const struct lk_ops lk_busted_ops;
/* Kernel-tree mode (locks/kernel/, docs/kernel-tree.md). */
extern const struct lk_ops lk_kernel_qspinlock_ops;
extern const struct lk_ops lk_kernel_pv_qspinlock_ops;
extern const struct lk_ops lk_kernel_ppc_qspinlock_ops;

/* ticket.c's release and trylock, shared with ticket_backoff.c. */
void ticket_unlock(void *lock);
bool ticket_trylock(void *lock);

/* The mapping's name, "?" for none (m >= LK_PV_NR). */
const char *lk_pv_mapping_name(enum lk_pv_mapping m);
/* The inverse; the name must be valid (lk_pv_mapping_valid). */
enum lk_pv_mapping lk_pv_mapping_parse(const char *name);
bool lk_pv_mapping_valid(const char *name);

#endif

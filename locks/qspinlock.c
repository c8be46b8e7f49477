// SPDX-License-Identifier: MIT
/*
 * qspinlock: the generic queued spinlock, native build.  The fast path is
 * one acquire compare-and-swap (0,0,0) -> (0,0,1); contention goes to the
 * slowpath template (qspinlock_slowpath.h) compiled here with empty pv
 * hooks; unlock is a release store of the locked byte.  Also home of the
 * guest-globals layout shared with pv_qspinlock.  docs/locks.md.
 */
#include "locks/qspinlock.h"

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static unsigned int ilog2_ceil(size_t v)
{
	unsigned int b = 0;

	while (((size_t)1 << b) < v)
		b++;
	return b;
}

/*
 * pv hash table entries: LOCK-FACTS 2.2, four a CPU in whole cache lines,
 * at least a page's worth, then a power of two rounded *down*: the kernel
 * asks the boot-time hash allocator for that size as both its lower and
 * upper limit, and the allocator rounds up to a power of two, clamps to
 * the limit and takes the floor of the log (96 CPUs with 4 KiB pages: 384
 * asked, 256 entries).  qsim rounded up until session 14 (512).
 */
static size_t pv_hash_entries(const struct lk_params *p, unsigned int nr)
{
	size_t per_line = p->line_bytes / sizeof(struct pv_hash_entry);
	size_t min = p->page_bytes / sizeof(struct pv_hash_entry);
	size_t want = align_up((size_t)nr * 4, per_line ? per_line : 1);
	size_t n = want > min ? want : min;
	unsigned int b = ilog2_ceil(n);

	return (size_t)1 << (((size_t)1 << b) == n ? b : b - 1);
}

/* The guest globals, in this order, each part line aligned. */
struct qs_layout {
	size_t head, nodes, hash, holders, kick, wait, total;
};

static struct qs_layout qs_layout(const struct lk_params *p, unsigned int nr)
{
	size_t line = p->line_bytes;
	struct qs_layout l;

	l.head = 0;
	l.nodes = align_up(sizeof(struct qs_guest), line);
	l.hash = l.nodes +
		 align_up((size_t)nr * _Q_MAX_NODES * sizeof(struct qnode),
			  line);
	l.holders = l.hash + align_up(pv_hash_entries(p, nr) *
					      sizeof(struct pv_hash_entry),
				      line);
	l.kick =
		l.holders + align_up(sizeof(u16) << (ilog2_ceil(nr) + 2), line);
	l.wait = l.kick + align_up((size_t)nr * sizeof(u64), line);
	l.total = l.wait + align_up((size_t)nr * sizeof(void *), line);
	return l;
}

size_t qs_guest_size(const struct lk_params *p, unsigned int nr_cpus)
{
	return qs_layout(p, nr_cpus).total;
}

void qs_guest_init(void *globals, const struct lk_params *p,
		   unsigned int nr_cpus)
{
	struct qs_layout l = qs_layout(p, nr_cpus);
	char *base = globals;
	struct qs_guest *g = globals;

	BUG_ON(nr_cpus >= QS_MAX_CPUS);
	g->p = *p;
	g->nr_cpus = nr_cpus;
	g->qnodes = (struct qnode *)(base + l.nodes);
	g->pv_lock_hash = (struct pv_hash_entry *)(base + l.hash);
	g->pv_lock_hash_bits = ilog2_ceil(pv_hash_entries(p, nr_cpus));
	g->holders = (u16 *)(base + l.holders);
	g->holder_bits = ilog2_ceil(nr_cpus) + 2;
	g->kick_time = (u64 *)(base + l.kick);
	g->wait_lock = (void **)(base + l.wait);
	for (unsigned int i = 0; i < nr_cpus * _Q_MAX_NODES; i++)
		g->qnodes[i].cpu = (int)(i / _Q_MAX_NODES);
	g->hash_count = g_hash_table_new(g_direct_hash, g_direct_equal);
}

void qs_guest_fini(void *globals)
{
	struct qs_guest *g = globals;

	g_hash_table_destroy(g->hash_count);
	g->hash_count = NULL;
}

bool qs_pv_hash(void *globals, void **base, size_t *entries)
{
	struct qs_guest *g = globals;

	*base = g->pv_lock_hash;
	*entries = (size_t)1 << g->pv_lock_hash_bits;
	return true;
}

bool qs_qnode_counts(void *globals, void **base, size_t *stride,
		     unsigned int *ncpus, int *max)
{
	struct qs_guest *g = globals;

	/* node 0 of each cpu's _Q_MAX_NODES counts them */
	*base = &g->qnodes[0].count;
	*stride = sizeof(struct qnode) * _Q_MAX_NODES;
	*ncpus = g->nr_cpus;
	*max = _Q_MAX_NODES;
	return true;
}

void qs_lock_init(void *p)
{
	struct qspinlock *lock = p;

	lock->val.counter = 0;
}

/* Succeeds only from (0,0,0): any tail or pending makes it fail. */
bool qs_trylock(struct qspinlock *lock)
{
	int v = atomic_read(&lock->val);

	if (v)
		return false;
	/* The generic trylock: no lock hint (only powerpc's queued_spin_lock
	 * fast path has it, before the 6.2 rewrite). */
	return atomic_try_cmpxchg_acquire(&lock->val, &v, (int)_Q_LOCKED_VAL);
}

/* The native build of the slowpath: no pv hooks. */
#define QS_SLOWPATH		      native_queued_spin_lock_slowpath
#define QS_PV			      0
#define QS_TRYLOCK(l)		      qs_trylock(l)
#define qs_pv_init_node(n)	      ((void)(n))
#define qs_pv_wait_node(n, prev)      ((void)(n), (void)(prev))
#define qs_pv_kick_node(l, n)	      ((void)(l), (void)(n))
#define qs_pv_wait_head_or_lock(l, n) ((void)(l), (void)(n), 0U)
#include "locks/qspinlock_slowpath.h"

static void qs_lock(void *p)
{
	struct qspinlock *lock = p;
	int v = 0;

	if (likely(atomic_try_cmpxchg_lock(&lock->val, &v, (int)_Q_LOCKED_VAL)))
		return;
	native_queued_spin_lock_slowpath(lock, (u32)v);
}

void native_queued_spin_unlock(struct qspinlock *lock)
{
	/* Only the locked byte: pending and tail stay as they are. */
	smp_store_release(&lock->locked, 0);
}

static void qs_unlock(void *p)
{
	native_queued_spin_unlock(p);
}

static bool qs_trylock_op(void *p)
{
	return qs_trylock(p);
}

const struct lk_ops lk_qspinlock_ops = {
	.name = "qspinlock",
	.desc = "generic queued spinlock (MCS queue, pending bit), native "
		"slowpath",
	.size = sizeof(struct qspinlock),
	.align = sizeof(u32),
	.init = qs_lock_init,
	.lock = qs_lock,
	.unlock = qs_unlock,
	.trylock = qs_trylock_op,
	.global_size = qs_guest_size,
	.global_init = qs_guest_init,
	.global_fini = qs_guest_fini,
	.word = LK_WORD_QSPINLOCK,
	.qnode_counts = qs_qnode_counts,
	.params = "_Q_PENDING_LOOPS",
};

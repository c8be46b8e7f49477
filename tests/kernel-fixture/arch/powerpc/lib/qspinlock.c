// SPDX-License-Identifier: MIT
/*
 * qsim fixture tree: arch/powerpc/lib/qspinlock.c.
 *
 * The fixture's powerpc queued lock, written for qsim's tests with the
 * interfaces the kernel's powerpc lock uses (per-CPU nodes, the lppaca
 * yield count, H_CONFER and H_PROD, debugfs tunables registered by an
 * initcall, larx/stcx. asm).  Its own algorithm:
 *
 * - a waiter first tries to steal the owner half for qspl_steal_spins
 *   rounds, yielding to a preempted owner on shared processors;
 * - then it swaps itself into the tail half and, behind a predecessor,
 *   waits for a hand-over, yielding to the predecessor when preempted;
 * - the head takes the owner half when it clears (and the tail, if it is
 *   still the last); past qspl_head_spins rounds it yields to a
 *   preempted owner (qspl_pv_yield_owner); it hands the queue on and,
 *   with qspl_pv_prod_head, prods the next head if preempted.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/processor.h>
#include <linux/smp.h>
#include <asm/qspinlock.h>
#include <asm/paravirt.h>

#define FX_NODES 4

struct fx_qnode {
	struct fx_qnode *next;
	int cpu;
	u8 granted;
};

struct qnodes {
	int count;
	struct fx_qnode nodes[FX_NODES];
};

static DEFINE_PER_CPU_ALIGNED(struct qnodes, qnodes);

static int steal_spins = 16;
static int head_spins = 64;
static bool pv_yield_owner = true;
static bool pv_prod_head;

static inline u32 fx_tail_of(int cpu, int idx)
{
	return (u32)(cpu + 1) * FX_NODES + (u32)idx;
}

static inline struct fx_qnode *fx_node_of(u32 tail)
{
	int cpu = (int)(tail / FX_NODES) - 1;

	return &per_cpu_ptr(&qnodes, cpu)->nodes[tail % FX_NODES];
}

/* Put @tail in the tail half; return the word before. */
static __always_inline u32 fx_publish_tail(struct qspinlock *lock, u32 tail)
{
	u32 seen, next;

	asm volatile(PPC_RELEASE_BARRIER "1:	lwarx	%0,0,%2\n"
					 "	andi.	%1,%0,0xffff\n"
					 "	or	%1,%1,%3\n"
					 "	stwcx.	%1,0,%2\n"
					 "	bne-	1b\n"
		     : "=&r"(seen), "=&r"(next)
		     : "r"(&lock->val), "r"(tail << FX_TAIL_SHIFT)
		     : "cr0", "memory");
	return seen;
}

/*
 * The head's take: if the owner half is clear, set it to @me, and clear
 * the tail if it is still @tail_hi.  Returns the word before.
 */
static __always_inline u32 fx_head_take(struct qspinlock *lock, u32 me,
					u32 tail_hi)
{
	u32 seen, next;

	asm volatile("1:	lwarx	%0,0,%2,1\n"
		     "	andi.	%1,%0,0xffff\n"
		     "	bne-	3f\n"
		     "	andis.	%1,%0,0xffff\n"
		     "	cmpw	0,%1,%4\n"
		     "	bne-	2f\n"
		     "	li	%1,0\n"
		     "2:	or	%1,%1,%3\n"
		     "	stwcx.	%1,0,%2\n"
		     "	bne-	1b\n" PPC_ACQUIRE_BARRIER "3:\n"
		     : "=&r"(seen), "=&r"(next)
		     : "r"(&lock->val), "r"(me), "r"(tail_hi)
		     : "cr0", "memory");
	return seen;
}

/* Confer to @cpu if its vCPU is preempted (odd yield count). */
static __always_inline void fx_yield_to(int cpu)
{
	u32 yc = yield_count_of(cpu);

	if (!(yc & 1))
		return;
	smp_rmb();
	yield_to_preempted(cpu, yc);
}

static __always_inline void fx_yield_to_owner(u32 word)
{
	int owner = (word & 1) ? (int)((word & FX_OWNER_MASK) >> 1) : -1;

	if (pv_yield_owner && owner >= 0 && is_shared_processor())
		fx_yield_to(owner);
}

static bool fx_try_steal(struct qspinlock *lock, u32 me)
{
	int i;

	spin_begin();
	for (i = 0; i < steal_spins; i++) {
		u32 word = READ_ONCE(lock->val);

		if (!(word & FX_OWNER_MASK)) {
			spin_end();
			if (!(fx_take_owner(lock, me) & FX_OWNER_MASK))
				return true;
			spin_begin();
		} else {
			fx_yield_to_owner(word);
		}
		spin_cpu_relax();
	}
	spin_end();
	return false;
}

void queued_spin_lock_slowpath(struct qspinlock *lock)
{
	u32 me = fx_owner_me(), tail, word;
	struct qnodes *qn = this_cpu_ptr(&qnodes);
	struct fx_qnode *node, *next;
	int idx, i;

	if (fx_try_steal(lock, me))
		return;

	idx = qn->count++;
	BUG_ON(idx >= FX_NODES);
	node = &qn->nodes[idx];
	node->next = NULL;
	node->cpu = smp_processor_id();
	node->granted = 0;
	tail = fx_tail_of(smp_processor_id(), idx);

	word = fx_publish_tail(lock, tail);
	if (word >> FX_TAIL_SHIFT) {
		struct fx_qnode *prev = fx_node_of(word >> FX_TAIL_SHIFT);
		int prev_cpu = READ_ONCE(prev->cpu);

		WRITE_ONCE(prev->next, node);
		spin_begin();
		while (!READ_ONCE(node->granted)) {
			if (is_shared_processor())
				fx_yield_to(prev_cpu);
			spin_cpu_relax();
		}
		spin_end();
		smp_rmb();
	}

	spin_begin();
	for (i = 0;; i++) {
		word = READ_ONCE(lock->val);
		if (!(word & FX_OWNER_MASK)) {
			spin_end();
			word = fx_head_take(lock, me, tail << FX_TAIL_SHIFT);
			if (!(word & FX_OWNER_MASK))
				break;
			spin_begin();
			continue;
		}
		if (i >= head_spins)
			fx_yield_to_owner(word);
		spin_cpu_relax();
	}

	if ((word >> FX_TAIL_SHIFT) != tail) {
		spin_begin();
		while (!(next = READ_ONCE(node->next)))
			spin_cpu_relax();
		spin_end();
		smp_store_release(&next->granted, 1);
		if (pv_prod_head && is_shared_processor() &&
		    vcpu_is_preempted(next->cpu))
			prod_cpu(next->cpu);
	}
	qn->count--;
}
EXPORT_SYMBOL(queued_spin_lock_slowpath);

#include <linux/debugfs.h>

static int fx_set_steal(void *data, u64 val)
{
	if (val > (1 << 20))
		return -EINVAL;
	steal_spins = (int)val;
	return 0;
}

static int fx_get_steal(void *data, u64 *val)
{
	*val = (u64)steal_spins;
	return 0;
}

DEFINE_SIMPLE_ATTRIBUTE(fops_fx_steal, fx_get_steal, fx_set_steal, "%llu\n");

static int fx_set_head(void *data, u64 val)
{
	if (val > (1 << 20))
		return -EINVAL;
	head_spins = (int)val;
	return 0;
}

static int fx_get_head(void *data, u64 *val)
{
	*val = (u64)head_spins;
	return 0;
}

DEFINE_SIMPLE_ATTRIBUTE(fops_fx_head, fx_get_head, fx_set_head, "%llu\n");

static int fx_set_yield_owner(void *data, u64 val)
{
	pv_yield_owner = !!val;
	return 0;
}

static int fx_get_yield_owner(void *data, u64 *val)
{
	*val = pv_yield_owner;
	return 0;
}

DEFINE_SIMPLE_ATTRIBUTE(fops_fx_yield_owner, fx_get_yield_owner,
			fx_set_yield_owner, "%llu\n");

static int fx_set_prod_head(void *data, u64 val)
{
	pv_prod_head = !!val;
	return 0;
}

static int fx_get_prod_head(void *data, u64 *val)
{
	*val = pv_prod_head;
	return 0;
}

DEFINE_SIMPLE_ATTRIBUTE(fops_fx_prod_head, fx_get_prod_head, fx_set_prod_head,
			"%llu\n");

/* Four of powerpc's tunables, by their debugfs names. */
static __init int fx_debugfs_init(void)
{
	debugfs_create_file("qspl_steal_spins", 0600, arch_debugfs_dir, NULL,
			    &fops_fx_steal);
	debugfs_create_file("qspl_head_spins", 0600, arch_debugfs_dir, NULL,
			    &fops_fx_head);
	if (is_shared_processor()) {
		debugfs_create_file("qspl_pv_yield_owner", 0600,
				    arch_debugfs_dir, NULL,
				    &fops_fx_yield_owner);
		debugfs_create_file("qspl_pv_prod_head", 0600, arch_debugfs_dir,
				    NULL, &fops_fx_prod_head);
	}
	return 0;
}
device_initcall(fx_debugfs_init);

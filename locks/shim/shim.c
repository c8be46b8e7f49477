// SPDX-License-Identifier: MIT
/*
 * The out-of-line half of the kernel-API shim (qsim_kernel.h): CPU
 * identity, the lppaca accessors and the hcall entry, mapped onto the
 * engine and the hypervisor model.
 */
#include <glib.h>
#include <stdarg.h>

#include "qsim_kernel.h"
#include "hypervisor/hv.h"

void lk_shim_barrier(sim_time_t full)
{
	struct sim_cpu *c = sim_current();
	const struct sim_mem *m;

	if (!c)
		return;
	m = &c->sim->mem;
	if (!full) {
		/* lwsync (smp_rmb, smp_wmb): a hit's time, and its ordering.
		 * On x86 they are compiler barriers (TSO orders loads with
		 * loads and stores with stores): no time (session 14). */
		if (m->topo.llsc)
			c->now_ps += m->cost.hit_ps;
		if (c->mm)
			sim_mm_fence(c, SIM_FENCE_LW);
		return;
	}
	/* sync: its own cost, and no earlier than the store buffer drains. */
	c->now_ps += sim_mem_jitter(m, m->cost.barrier_ps, &c->mrng);
	sim_cpu_sync_stores(c);
}

/*
 * The barriers of an ordered atomic or access (@ord, enum sim_order):
 * @entry before it, else after it, when it is @done (an atomic that
 * stored, a load).  On POWER, as the kernel's asm/synch.h, asm/cmpxchg.h
 * and asm/barrier.h have them: a fully ordered atomic has a sync on each
 * side, the one after only when it stored (a compare that fails branches
 * past it); an acquire atomic an isync after its stcx. (none after a
 * failed compare), an acquire load an lwsync after it; a release an
 * lwsync before.  The light ones cost `hit`, as smp_rmb's lwsync does
 * (until session 17 they cost nothing, where the kernel file's own
 * isync and lwsync in kernel-tree mode did); their ordering is the
 * memory model's acquire or release.  Until session 14 qsim charged one
 * sync, after, even for a failed compare.  On x86 a locked instruction
 * is itself the fence (Intel SDM vol. 3A, 8.2.2): its cost is the
 * atomic's and it waited for the store buffer before it ran
 * (sim_access), so only a full one's ordering remains; TSO gives
 * acquire and release for nothing.
 */
void lk_shim_ord_fence(int ord, bool entry, bool done)
{
	struct sim_cpu *c = sim_current();

	if (!c || ord == SIM_ORD_RELAXED)
		return;
	if (!c->sim->mem.topo.llsc) {
		/* a locked instruction orders whether its compare held */
		if (ord == SIM_ORD_FULL && !entry)
			sim_cpu_sync_stores(c);
	} else if (!done) {
		return; /* a failed compare branches past the barrier */
	} else if (ord == SIM_ORD_FULL) {
		lk_shim_barrier(1);
	} else if (entry == (ord == SIM_ORD_RELEASE)) {
		c->now_ps += c->sim->mem.cost.hit_ps;
	}
}

static void relax_at(const void *frame)
{
	struct sim_cpu *c = sim_current();

	if (c)
		sim_relax(c, c->sim->mem.cost.relax_ps, frame);
}

/* Through the frame stub: a steady raw loop can park (sim/rspin.c). */
void lk_shim_relax(void)
{
	sim_coro_frame_call(relax_at);
}

static void spin_relax_at(const void *frame)
{
	struct sim_cpu *c = sim_current();

	if (c)
		sim_relax(c, c->sim->mem.cost.spin_relax_ps, frame);
}

void lk_shim_spin_relax(void)
{
	sim_coro_frame_call(spin_relax_at);
}

static struct hv_vcpu *self(void)
{
	struct hv_vcpu *v = hv_current_vcpu();

	BUG_ON(!v);
	return v;
}

int smp_processor_id(void)
{
	return (int)self()->idx;
}

int num_possible_cpus(void)
{
	return (int)self()->part->nvcpus;
}

bool is_shared_processor(void)
{
	return self()->part->shared;
}

static struct hv_vcpu *vcpu_of(int cpu)
{
	struct hv_vcpu *me = self();

	BUG_ON(cpu < 0 || (unsigned int)cpu >= me->part->nvcpus);
	return me->part->vcpus[cpu];
}

u32 yield_count_of(int cpu)
{
	struct hv_vcpu *v = vcpu_of(cpu);

	return READ_ONCE(v->lppaca->yield_count);
}

/*
 * pseries: the yield count is odd while the vCPU is off its pCPU.  A KVM
 * guest (x86's kvm_vcpu_is_preempted): the steal-time preempted flag,
 * set only when the host preempted it, not when it halted.
 */
bool vcpu_is_preempted(int cpu)
{
	if (self()->part->kvm_guest)
		return READ_ONCE(vcpu_of(cpu)->lppaca->preempted) != 0;
	if (!is_shared_processor())
		return false;
	return yield_count_of(cpu) & 1;
}

/*
 * A weak memory model (sim/mm.h): a call into the hypervisor orders the
 * vCPU's earlier accesses before whatever it does, as a sync would.  The
 * hypervisor runs on the same hardware thread after the vCPU's stores in
 * program order, and its paths that wake or switch vCPUs hold barriers,
 * so a store before a kick is visible to the vCPU it wakes, and a store
 * before a cede to whoever reads it while the vCPU sleeps.
 */
static void hcall_sync(void)
{
	struct sim_cpu *c = sim_current();

	if (c && c->mm)
		sim_mm_fence(c, SIM_FENCE_SYNC);
}

long plpar_hcall_norets(long opcode, ...)
{
	struct hv_vcpu *v = self();
	va_list ap;
	long a, b;

	hcall_sync();
	va_start(ap, opcode);
	switch (opcode) {
	case H_CEDE:
		va_end(ap);
		return hv_hcall_cede(v);
	case H_CONFER:
		a = va_arg(ap, long);
		b = va_arg(ap, long);
		va_end(ap);
		return hv_hcall_confer(v, a, (uint32_t)b);
	case H_PROD:
		a = va_arg(ap, long);
		va_end(ap);
		return hv_hcall_prod(v, a);
	default:
		va_end(ap);
		return H_PARAMETER;
	}
}

void yield_to_preempted(int cpu, u32 yield_count)
{
	plpar_hcall_norets(H_CONFER, (long)cpu, (long)yield_count);
}

void yield_to_any(void)
{
	plpar_hcall_norets(H_CONFER, -1L, 0L);
}

void prod_cpu(int cpu)
{
	plpar_hcall_norets(H_PROD, (long)cpu);
}

/* splpar-directed: does not return until *ptr changes (the 2016 v4
 * behaviour), conferring to the recorded holder while it is preempted. */
static void splpar_directed_wait(u8 *ptr, u8 val, int (*holder)(void *),
				 void *arg)
{
	while (READ_ONCE(*ptr) == val) {
		int h = holder ? holder(arg) : -1;
		u32 yc;

		if (h >= 0 && h != smp_processor_id()) {
			yc = yield_count_of(h);
			if (yc & 1) {
				yield_to_preempted(h, yc);
				continue;
			}
		}
		yield_to_any();
	}
}

void lk_pv_wait_mapped(enum lk_pv_mapping m, u8 *ptr, u8 val,
		       int (*holder)(void *), void *arg, bool recheck)
{
	/* Drained before the re-check, so that the hcall after it has
	 * nothing to drain and runs at once (sim/mm.h). */
	hcall_sync();
	switch (m) {
	case LK_PV_SPLPAR_UNDIRECTED:
		if (READ_ONCE(*ptr) == val)
			yield_to_any();
		break;
	case LK_PV_SPLPAR_DIRECTED:
		splpar_directed_wait(ptr, val, holder, arg);
		break;
	case LK_PV_SPLPAR_CEDE:
		/* The re-check; a prod from here on is latched. */
		if (!recheck || READ_ONCE(*ptr) == val)
			plpar_hcall_norets(H_CEDE);
		break;
	case LK_PV_KVM:
		if (!recheck || READ_ONCE(*ptr) == val)
			kvm_halt();
		break;
	}
}

void lk_pv_kick_mapped(enum lk_pv_mapping m, int cpu)
{
	if (m == LK_PV_KVM)
		kvm_kick_cpu(cpu);
	else
		prod_cpu(cpu); /* always: a prod latches if not yet asleep */
}

uint64_t lk_spin_periodic(uint64_t iters, uint32_t every, bool (*cond)(void *),
			  bool (*check)(void *), void *arg)
{
	struct sim_cpu *c = sim_current();
	uint64_t n = iters;

	BUG_ON(!c || !every);
	while (n) {
		unsigned int normal;

		/* One real evaluation at counter n. */
		sim_wait_begin(c);
		if (cond(arg)) {
			sim_wait_end(c);
			return n;
		}
		normal = c->wait.nreads;
		if (n % every == 0) {
			if (check(arg)) {
				sim_wait_end(c);
				return n | LK_SPIN_CHECKED;
			}
			/* Fold the next checks while nothing changes. */
			n = sim_wait_block_every(c, n, every, normal);
		} else {
			/* Spin on cond alone up to the next check. */
			uint64_t run = n % every;
			uint64_t left = sim_wait_block(c, run);

			n = n - run + left;
		}
		sim_wait_end(c);
	}
	return 0;
}

void kvm_halt(void)
{
	hcall_sync();
	hv_hcall_halt(self());
}

void kvm_kick_cpu(int cpu)
{
	hcall_sync();
	hv_hcall_kick(self(), (long)cpu);
}

void lk_shim_point(enum hv_point pt)
{
	struct hv_vcpu *v = hv_current_vcpu();

	if (v)
		hv_point(v, pt);
}

void *lk_guest(void)
{
	return self()->part->guest;
}

uint64_t lk_addr_key(const void *p)
{
	struct sim_cpu *c = sim_current();

	BUG_ON(!c || !sim_mem_contains(&c->sim->mem, p));
	return sim_mem_offset(&c->sim->mem, p);
}

uint32_t hash_ptr(const void *p, unsigned int bits)
{
	/* Multiply by 2^64 / phi and keep the top bits. */
	uint64_t h = lk_addr_key(p) * 0x61C8864680B583EBULL;

	return bits ? (uint32_t)(h >> (64 - bits)) : 0;
}

uint64_t sched_clock(void)
{
	struct sim_cpu *c = sim_current();

	if (!c)
		return 0;
	sim_rspin_timed(c); /* a loop that reads the clock is not steady */
	return c->now_ps / 1000;
}

uint64_t lk_dispatch_count(void)
{
	sim_rspin_timed(sim_current());
	return self()->st.dispatches;
}

void lk_violation(const char *fmt, ...)
{
	struct sim_cpu *c = sim_current();
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	BUG_ON(!c);
	sim_report_violation(c, msg);
	g_free(msg);
	sim_cpu_halt_run(c);
}

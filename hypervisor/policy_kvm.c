// SPDX-License-Identifier: MIT
/*
 * `kvm`: vCPUs as host threads under Linux's fair scheduler (CFS), one
 * run queue per host CPU (LOCK-FACTS.md 6, docs/hypervisor.md).
 *
 * - Each vCPU accrues virtual runtime, its CPU time scaled by 128 / the
 *   partition's weight.  A pCPU runs the vCPU of its own queue with the
 *   least vruntime, for the scheduling period (hypervisor.slice) divided
 *   over the vCPUs on that pCPU, never less than min_granularity; at the
 *   slice end it keeps running unless one queued there has less.
 * - A waking vCPU goes to its previous pCPU if that is free, else to a
 *   free pCPU of the same chip (the last-level cache), scanning from the
 *   previous one, else back to its previous pCPU (select_idle_sibling).
 *   It is placed no further back than half a period behind that queue's
 *   least vruntime, and preempts the vCPU running there if it leads it
 *   by more than wakeup_granularity.
 * - Load balancing moves queued vCPUs between pCPUs, by load (summed
 *   weight): a pCPU that goes idle pulls at once from the busiest queue,
 *   its chip first, a vCPU that is not cache hot (not run for
 *   migration_cost); every balance interval idle pCPUs pull any queued
 *   vCPU, and every 16th interval (the kernel's busy_factor) busy pCPUs
 *   even out their loads.  A migrating vCPU keeps its vruntime relative
 *   to its queue's least.
 *
 * - Directed yield (a pause-loop exit, H_CONFER under KVM-HV) is Linux's
 *   yield_to: the target becomes the next buddy of its own pCPU, which
 *   is rescheduled for it; the yielder becomes its pCPU's skip buddy and
 *   gives way only if someone else is queued there (hv_yield_to).
 *
 * Ties (initial placement, equal loads) are drawn from the dispatcher's
 * seeded stream, so equal guests do not run in lockstep.
 */
#include "hypervisor/hv.h"

#define KVM_WEIGHT_UNIT 128
#define KVM_BUSY_FACTOR 16 /* sd->busy_factor, kernel/sched/topology.c */
#define KVM_NR_MIGRATE	32 /* sysctl_sched_nr_migrate: moves per balance */

/* CPU time so far, counting a dispatch under way. */
static sim_time_t cpu_now(const struct hv *hv, const struct hv_vcpu *v)
{
	return v->cpu_ps + hv_uncharged(hv, v);
}

static int64_t vruntime(const struct hv *hv, const struct hv_vcpu *v)
{
	return v->vrt_off +
	       (int64_t)(cpu_now(hv, v) * KVM_WEIGHT_UNIT / hv_vcpu_weight(v));
}

static unsigned int chip_of(const struct hv *hv, unsigned int pcpu)
{
	unsigned int per = hv->p.smt * hv->p.cores_per_chip;

	return per ? pcpu / per : 0;
}

/* vCPUs on @p: queued there, plus the one it runs (or polls for). */
static unsigned int nr_running(const struct hv_pcpu *p)
{
	return p->nr_queued + (p->cur || p->polling);
}

static uint64_t load_of(const struct hv_pcpu *p)
{
	const struct hv_vcpu *c = p->cur ? p->cur : p->polling;

	return p->rq_load + (c ? hv_vcpu_weight(c) : 0);
}

/* @p's least vruntime, over its queue and its running vCPU; monotonic. */
static int64_t update_min_vruntime(struct hv *hv, struct hv_pcpu *p)
{
	bool any = false;
	int64_t min = 0;

	if (p->cur) {
		min = vruntime(hv, p->cur);
		any = true;
	}
	for (const struct hv_vcpu *v = hv->rq_head; v && p->nr_queued;
	     v = v->rq_next) {
		int64_t vr;

		if (v->rq_cpu != (int)p->id)
			continue;
		vr = vruntime(hv, v);
		if (!any || vr < min)
			min = vr;
		any = true;
	}
	if (any && min > p->min_vruntime)
		p->min_vruntime = min;
	return p->min_vruntime;
}

/* Queue @v on @p, its vruntime carried over from @from's queue. */
static void queue_on(struct hv *hv, struct hv_vcpu *v, struct hv_pcpu *p,
		     struct hv_pcpu *from)
{
	if (from && from != p)
		v->vrt_off += update_min_vruntime(hv, p) -
			      update_min_vruntime(hv, from);
	v->rq_cpu = (int)p->id;
	hv_rq_push_tail(hv, v);
}

/* The least loaded pCPU (ties at random): where a new vCPU starts. */
static struct hv_pcpu *idlest(struct hv *hv)
{
	struct hv_pcpu *best = NULL;
	unsigned int nbest = 0;

	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];

		if (!best || load_of(p) < load_of(best)) {
			best = p;
			nbest = 1;
		} else if (load_of(p) == load_of(best) &&
			   sim_rng_below(&hv->rng, ++nbest) == 0) {
			best = p; /* reservoir: each tie equally likely */
		}
	}
	return best;
}

/* select_idle_sibling: previous pCPU if free, else a free one of its
 * chip, scanning on from it, else the previous one. */
static struct hv_pcpu *wake_target(struct hv *hv, struct hv_vcpu *v)
{
	unsigned int n = hv->p.npcpus, prev;

	if (v->last_pcpu < 0)
		return idlest(hv);
	prev = (unsigned int)v->last_pcpu;
	if (hv_pcpu_free(&hv->pcpus[prev]) && !hv->pcpus[prev].nr_queued)
		return &hv->pcpus[prev];
	for (unsigned int k = 1; k < n; k++) {
		unsigned int i = (prev + k) % n;
		struct hv_pcpu *p = &hv->pcpus[i];

		if (chip_of(hv, i) == chip_of(hv, prev) && hv_pcpu_free(p) &&
		    !p->nr_queued)
			return p;
	}
	return &hv->pcpus[prev];
}

static void kvm_enqueue(struct hv *hv, struct hv_vcpu *v)
{
	struct hv_pcpu *p;

	if (v->wake_cpu >= 0) {
		p = &hv->pcpus[v->wake_cpu]; /* placed by kvm_woken */
		v->wake_cpu = -1;
	} else if (v->last_pcpu >= 0) {
		p = &hv->pcpus[v->last_pcpu]; /* preempted: stays */
	} else {
		/*
		 * A new vCPU thread: on the least loaded pCPU, at a random
		 * point of a scheduling period (guests are not started in
		 * the same instant, nor their vCPU threads all at once).
		 */
		p = idlest(hv);
		v->vrt_off = (int64_t)sim_rng_below(&hv->rng, hv->p.slice_ps);
	}
	queue_on(hv, v, p, NULL);
}

static bool cache_hot(const struct hv *hv, const struct hv_vcpu *v)
{
	return v->dtl_open && hv->sim->now_ps - v->dtl_undispatched_ps <
				      hv->p.migration_cost_ps;
}

/* The queued vCPU of @p with the least vruntime that @to may take (not
 * cache hot, with @hot_ok false), or NULL. */
static struct hv_vcpu *least_on(struct hv *hv, const struct hv_pcpu *p,
				struct hv_pcpu *to, bool hot_ok)
{
	struct hv_vcpu *best = NULL;
	int64_t best_vr = 0;

	if (!p->nr_queued)
		return NULL;
	for (struct hv_vcpu *v = hv->rq_head; v; v = v->rq_next) {
		int64_t vr;

		if (v->rq_cpu != (int)p->id ||
		    (to && !hv_may_dispatch(hv, to, v)))
			continue;
		if (!hot_ok && cache_hot(hv, v))
			continue;
		vr = vruntime(hv, v);
		if (!best || vr < best_vr) {
			best = v;
			best_vr = vr;
		}
	}
	return best;
}

/* Move queued @v to @to's queue. */
static void migrate(struct hv *hv, struct hv_vcpu *v, struct hv_pcpu *to)
{
	struct hv_pcpu *from = &hv->pcpus[v->rq_cpu];

	hv_rq_remove(hv, v);
	queue_on(hv, v, to, from);
}

/* The busiest pCPU (by load) with a vCPU @to could take, in @to's chip
 * (@same) or elsewhere; ties at random. */
static struct hv_pcpu *busiest(struct hv *hv, struct hv_pcpu *to, bool same,
			       bool hot_ok)
{
	struct hv_pcpu *best = NULL;
	unsigned int nbest = 0;

	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];

		if (p == to || nr_running(p) < 2 || !p->nr_queued ||
		    (chip_of(hv, i) == chip_of(hv, to->id)) != same ||
		    !least_on(hv, p, to, hot_ok))
			continue;
		if (!best || load_of(p) > load_of(best)) {
			best = p;
			nbest = 1;
		} else if (load_of(p) == load_of(best) &&
			   sim_rng_below(&hv->rng, ++nbest) == 0) {
			best = p;
		}
	}
	return best;
}

/* An idle @to pulls one vCPU: its chip first, then the rest. */
static struct hv_vcpu *pull(struct hv *hv, struct hv_pcpu *to, bool hot_ok)
{
	for (int same = 1; same >= 0; same--) {
		struct hv_pcpu *from = busiest(hv, to, same, hot_ok);
		struct hv_vcpu *v;

		if (!from)
			continue;
		v = least_on(hv, from, to, hot_ok);
		migrate(hv, v, to);
		return v;
	}
	return NULL;
}

/* Under whole-core dispatch, the least vruntime queued on any thread of
 * @p's core that @p may run (core scheduling's core-wide pick). */
static struct hv_vcpu *least_on_core(struct hv *hv, struct hv_pcpu *p)
{
	unsigned int lo = p->id / hv->p.smt * hv->p.smt;
	unsigned int hi = SIM_MIN(lo + hv->p.smt, hv->p.npcpus);
	struct hv_vcpu *best = NULL;

	for (unsigned int i = lo; i < hi; i++) {
		struct hv_vcpu *v = least_on(hv, &hv->pcpus[i], p, true);

		if (v && (!best || vruntime(hv, v) < vruntime(hv, best)))
			best = v;
	}
	return best;
}

/*
 * Linux's buddies, set by a directed yield: the next buddy runs first if
 * it is queued here; the skip buddy (the yielder) only if nobody else is.
 */
static struct hv_vcpu *buddy_pick(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *next = p->next_buddy, *skip = p->skip_buddy,
		       *best = NULL;
	int64_t best_vr = 0;

	p->next_buddy = p->skip_buddy = NULL;
	if (next && next->on_rq && next->rq_cpu == (int)p->id &&
	    hv_may_dispatch(hv, p, next))
		return next;
	if (!skip || !skip->on_rq || skip->rq_cpu != (int)p->id)
		return NULL;
	for (struct hv_vcpu *v = hv->rq_head; v; v = v->rq_next) {
		int64_t vr;

		if (v == skip || v->rq_cpu != (int)p->id ||
		    !hv_may_dispatch(hv, p, v))
			continue;
		vr = vruntime(hv, v);
		if (!best || vr < best_vr) {
			best = v;
			best_vr = vr;
		}
	}
	return best;
}

static struct hv_vcpu *kvm_pick(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *v = buddy_pick(hv, p);

	if (!v)
		v = hv->p.whole_core ? least_on_core(hv, p)
				     : least_on(hv, p, p, true);

	/* newidle balance: pull a vCPU that is not cache hot. */
	if (!v && pull(hv, p, false))
		v = least_on(hv, p, p, true);
	if (v)
		hv_rq_remove(hv, v);
	return v;
}

/*
 * At a slice end: does a vCPU queued here have less vruntime?  Under
 * whole-core dispatch the core's threads decide together, as Linux's core
 * scheduling does: any thread's queue counts.
 */
static bool kvm_should_preempt(struct hv *hv, struct hv_pcpu *p)
{
	int64_t cur = vruntime(hv, p->cur);
	unsigned int lo = p->id, hi = p->id + 1;

	if (hv->p.whole_core) {
		lo = p->id / hv->p.smt * hv->p.smt;
		hi = SIM_MIN(lo + hv->p.smt, hv->p.npcpus);
	}
	for (struct hv_vcpu *v = hv->rq_head; v; v = v->rq_next)
		if (v->rq_cpu >= (int)lo && v->rq_cpu < (int)hi &&
		    vruntime(hv, v) < cur)
			return true;
	return false;
}

static sim_time_t kvm_slice(struct hv *hv, struct hv_vcpu *v)
{
	unsigned int n = v->pcpu ? nr_running(v->pcpu) : 1;

	if (!n)
		n = 1;
	return SIM_MAX(hv->p.slice_ps / n, hv->p.min_granularity_ps);
}

static void kvm_woken(struct hv *hv, struct hv_vcpu *v)
{
	struct hv_pcpu *p = wake_target(hv, v);
	int64_t floor, vr;

	/* Relative to the queue it joins: the one it left, renormalised. */
	if (v->last_pcpu >= 0 && v->last_pcpu != (int)p->id)
		v->vrt_off += update_min_vruntime(hv, p) -
			      update_min_vruntime(hv, &hv->pcpus[v->last_pcpu]);
	floor = update_min_vruntime(hv, p) - (int64_t)hv->p.slice_ps / 2;
	vr = vruntime(hv, v);
	if (vr < floor)
		v->vrt_off += floor - vr;
	v->wake_cpu = (int)p->id;
}

static struct hv_pcpu *kvm_wake_preempt(struct hv *hv, struct hv_vcpu *v)
{
	struct hv_pcpu *p;
	int64_t gran;

	if (v->rq_cpu < 0)
		return NULL;
	p = &hv->pcpus[v->rq_cpu];
	if (!p->cur || p->cur->state != HV_RUNNING)
		return NULL;
	gran = (int64_t)(hv->p.wakeup_granularity_ps * KVM_WEIGHT_UNIT /
			 hv_vcpu_weight(v));
	return vruntime(hv, p->cur) - vruntime(hv, v) > gran ? p : NULL;
}

static struct hv_pcpu *kvm_target(struct hv *hv, struct hv_vcpu *v)
{
	return v->rq_cpu >= 0 ? &hv->pcpus[v->rq_cpu] : NULL;
}

static sim_time_t balance_interval(const struct hv *hv)
{
	return hv->p.balance_interval_ps ? hv->p.balance_interval_ps
					 : hv->p.npcpus * SIM_MS;
}

/* Busy balance: move queued vCPUs from the most to the least loaded
 * pCPU while that evens them out. */
static void balance_busy(struct hv *hv, sim_time_t t)
{
	for (unsigned int n = 0; n < KVM_NR_MIGRATE; n++) {
		struct hv_pcpu *hi = NULL, *lo = NULL;
		struct hv_vcpu *v;

		for (unsigned int i = 0; i < hv->p.npcpus; i++) {
			struct hv_pcpu *p = &hv->pcpus[i];

			if (!hi || load_of(p) > load_of(hi))
				hi = p;
			if (!lo || load_of(p) < load_of(lo))
				lo = p;
		}
		v = least_on(hv, hi, lo, true);
		if (!v || load_of(hi) - load_of(lo) <= hv_vcpu_weight(v))
			break;
		migrate(hv, v, lo);
		if (hv_pcpu_free(lo))
			hv_pcpu_pick(lo, t);
	}
}

static void balance_ev(struct sim_event *ev)
{
	struct hv *hv = ev->data;
	sim_time_t t = ev->time_ps;

	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];

		if (hv_pcpu_free(p) && !p->nr_queued && pull(hv, p, true))
			hv_pcpu_pick(p, t);
	}
	if (++hv->balance_runs % KVM_BUSY_FACTOR == 0)
		balance_busy(hv, t);
	sim_schedule(hv->sim, &hv->balance_ev, t + balance_interval(hv));
}

static void kvm_start(struct hv *hv, sim_time_t t)
{
	sim_event_init(&hv->balance_ev, balance_ev, hv, SIM_PRIO_HV);
	sim_schedule(hv->sim, &hv->balance_ev, t + balance_interval(hv));
}

const struct hv_policy_ops hv_policy_kvm = {
	.name = "kvm",
	.desc = "KVM-like: CFS per-CPU run queues, fair share by weight, "
		"wake-up placement and preemption, load balancing",
	.enqueue = kvm_enqueue,
	.pick = kvm_pick,
	.should_preempt = kvm_should_preempt,
	.slice = kvm_slice,
	.woken = kvm_woken,
	.wake_preempt = kvm_wake_preempt,
	.target = kvm_target,
	.start = kvm_start,
	.yield_in_place = true,
};

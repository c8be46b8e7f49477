// SPDX-License-Identifier: MIT
/*
 * `powervm`: shared-processor dispatch by entitlement (LOCK-FACTS.md 6.5).
 * Time is cut into dispatch windows (hypervisor.window, 10 ms).  Each
 * vCPU is entitled, per window, to its partition's entitled capacity
 * divided over its vCPUs (1.0 processing unit = one pCPU for the whole
 * window).  A vCPU with entitlement left is dispatched first, in queue
 * order, for at most a slice and at most what it has left.  One that has
 * used its entitlement waits for the next window if its partition is
 * capped; if uncapped it may use capacity nobody entitled wants, shared
 * between the uncapped partitions in proportion to their weights (a
 * weighted draw from the dispatcher's stream).  Each vCPU's window runs at
 * a phase of its own, and each has a home pCPU that it is dispatched on
 * when it becomes runnable and that pCPU is free.  docs/hypervisor.md.
 */
#include "hypervisor/hv.h"

/* CPU time used in this window, counting a dispatch under way. */
static sim_time_t used_now(const struct hv *hv, const struct hv_vcpu *v)
{
	sim_time_t used = v->win_used_ps;
	const struct hv_pcpu *p = v->paying;

	if (v->pcpu && v->pcpu->payer == v)
		used += hv_uncharged(hv, v);
	/* The slice it conferred, if still running on its bill. */
	if (p && p->payer == v && p->cur && p->cur != v)
		used += hv_uncharged(hv, p->cur);
	return used;
}

static bool entitled(const struct hv *hv, const struct hv_vcpu *v)
{
	return used_now(hv, v) < hv_vcpu_entitlement(hv, v);
}

static bool eligible(const struct hv *hv, const struct hv_vcpu *v)
{
	return entitled(hv, v) || !v->part->capped;
}

static void pvm_enqueue(struct hv *hv, struct hv_vcpu *v)
{
	hv_rq_push_tail(hv, v);
}

static struct hv_vcpu *pvm_pick(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *v;
	uint64_t total = 0, draw;

	/* Entitled vCPUs first, first come first served: affinity decides
	 * where a vCPU goes when it becomes runnable (pvm_target), not who
	 * runs next. */
	for (v = hv->rq_head; v; v = v->rq_next) {
		if (entitled(hv, v) && hv_may_dispatch(hv, p, v)) {
			hv_rq_remove(hv, v);
			return v;
		}
	}
	/*
	 * Spare capacity: draw an uncapped partition with a vCPU waiting,
	 * in proportion to its weight, then take its first waiting vCPU.
	 * (Weighting vCPUs instead would favour whichever partition has
	 * more vCPUs waiting, i.e. the one that has been losing.)
	 */
	bool seen[HV_MAX_PARTS] = {false};
	struct hv_vcpu *first[HV_MAX_PARTS] = {NULL};

	for (v = hv->rq_head; v; v = v->rq_next) {
		unsigned int id = v->part->id;

		if (v->part->capped || seen[id] || !hv_may_dispatch(hv, p, v))
			continue;
		seen[id] = true;
		first[id] = v;
		total += v->part->weight;
	}
	if (!total)
		return NULL;
	draw = sim_rng_below(&hv->rng, total);
	for (unsigned int id = 0; id < hv->nparts; id++) {
		if (!seen[id])
			continue;
		if (draw < first[id]->part->weight) {
			hv_rq_remove(hv, first[id]);
			return first[id];
		}
		draw -= first[id]->part->weight;
	}
	return NULL;
}

static bool pvm_should_preempt(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *payer = hv_payer(p->cur);

	/* Out of entitlement and capped: off until the next window. */
	if (!eligible(hv, payer))
		return true;
	for (struct hv_vcpu *v = hv->rq_head; v; v = v->rq_next) {
		/* Someone entitled waits, or we share spare time round. */
		if (entitled(hv, v) ||
		    (!entitled(hv, payer) && eligible(hv, v)))
			return true;
	}
	return false;
}

static sim_time_t pvm_slice(struct hv *hv, struct hv_vcpu *v)
{
	struct hv_vcpu *payer = hv_payer(v); /* a conferred slice: the giver */
	sim_time_t left;

	if (!entitled(hv, payer))
		return hv->p.slice_ps;
	left = hv_vcpu_entitlement(hv, payer) - used_now(hv, payer);
	return SIM_MAX(SIM_MIN(hv->p.slice_ps, left), SIM_US);
}

static void pvm_window(struct hv *hv, struct hv_vcpu *v, sim_time_t t)
{
	/* The mechanism refilled @v's entitlement; vCPUs running on spare
	 * time make room for it at their slice end. */
	(void)hv;
	(void)v;
	(void)t;
}

/*
 * Home pCPUs: each partition's vCPUs spread over the pool from an offset
 * of its own (drawn from the dispatcher's stream), so its vCPU i has
 * pCPU (offset + i) mod pCPUs: PowerVM redispatches a virtual processor
 * where it ran, for its caches, when it can.
 */
static void pvm_start(struct hv *hv, sim_time_t t)
{
	(void)t;
	for (unsigned int k = 0; k < hv->nparts; k++) {
		struct hv_partition *part = hv->parts[k];
		unsigned int off =
			(unsigned int)sim_rng_below(&hv->rng, hv->p.npcpus);

		for (unsigned int i = 0; i < part->nvcpus; i++)
			part->vcpus[i]->home_pcpu =
				(int)((off + i) % hv->p.npcpus);
	}
}

/* A runnable vCPU goes to its home pCPU if that is free, else to the
 * first free one after it. */
static struct hv_pcpu *pvm_target(struct hv *hv, struct hv_vcpu *v)
{
	unsigned int n = hv->p.npcpus, home = (unsigned int)v->home_pcpu;

	for (unsigned int k = 0; k < n; k++) {
		struct hv_pcpu *p = &hv->pcpus[(home + k) % n];

		if (hv_pcpu_free(p))
			return p;
	}
	return NULL;
}

const struct hv_policy_ops hv_policy_powervm = {
	.name = "powervm",
	.desc = "PowerVM-like: 10 ms windows, entitlement per vCPU, capped "
		"partitions stop, uncapped share spare capacity by weight",
	.enqueue = pvm_enqueue,
	.pick = pvm_pick,
	.should_preempt = pvm_should_preempt,
	.slice = pvm_slice,
	.window = pvm_window,
	.start = pvm_start,
	.target = pvm_target,
};

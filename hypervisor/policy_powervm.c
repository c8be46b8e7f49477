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
 * between the uncapped partitions in proportion to their weights (the
 * partition with the least spare time for its weight goes first); a
 * queued vCPU with entitlement left takes a pCPU from one running on
 * spare time at once.  Each vCPU's window runs at a phase of its own,
 * and each has a home pCPU that it is dispatched on when it becomes
 * runnable and that pCPU is free.  docs/hypervisor.md.
 */
#include "hypervisor/hv_internal.h"

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
	return entitled(hv, v) || hv_part_takes_spare(v->part);
}

static void pvm_enqueue(struct hv *hv, struct hv_vcpu *v)
{
	hv_rq_push_tail(hv, v);
}

/* Each partition's spare time for its weight (spare_vt), counting the
 * dispatches under way; @using (or NULL): it has a vCPU on spare time. */
static void spare_vts(struct hv *hv, uint64_t *vt, bool *using)
{
	for (unsigned int id = 0; id < hv->nparts; id++) {
		vt[id] = hv->parts[id]->spare_vt;
		if (using)
			using[id] = false;
	}
	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_vcpu *c = hv->pcpus[i].cur, *payer;
		sim_time_t unch;

		if (!c || c->state != HV_RUNNING)
			continue;
		payer = hv_payer(c);
		unch = hv_uncharged(hv, c);
		vt[payer->part->id] +=
			hv_spare_vt_of(hv, payer, payer->win_used_ps, unch);
		if (using &&
		    payer->win_used_ps + unch > hv_vcpu_entitlement(hv, payer))
			using[payer->part->id] = true;
	}
}

static struct hv_vcpu *pvm_pick(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *v;

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
	 * Spare capacity goes to the uncapped partition with a vCPU waiting
	 * that has had the least of it for its weight (its spare time over
	 * its weight, counting the dispatches under way), then to that
	 * partition's first waiting vCPU; exact ties are drawn from the
	 * dispatcher's stream.  A share of capacity, not of picks: drawing
	 * partitions by weight at each pick gave a partition with more
	 * vCPUs or longer slices more than its weight (session 10).  A
	 * partition that starts wanting spare time again starts at most a
	 * window's worth behind the least served of those that wanted it
	 * already (as CFS places a waking task at min_vruntime less a
	 * bound); one that wants it all along keeps what it is owed.
	 */
	uint64_t vt[HV_MAX_PARTS], best = UINT64_MAX, floor = UINT64_MAX;
	bool using[HV_MAX_PARTS];
	struct hv_vcpu *first[HV_MAX_PARTS] = {NULL};
	unsigned int nbest = 0, pick = 0;

	for (v = hv->rq_head; v; v = v->rq_next) {
		unsigned int id = v->part->id;

		if (!hv_part_takes_spare(v->part) || first[id] ||
		    !hv_may_dispatch(hv, p, v))
			continue;
		first[id] = v;
	}
	spare_vts(hv, vt, using);
	for (unsigned int id = 0; id < hv->nparts; id++)
		if (hv->parts[id]->spare_wanting && (first[id] || using[id]) &&
		    vt[id] < floor)
			floor = vt[id];
	for (unsigned int id = 0; id < hv->nparts; id++) {
		struct hv_partition *part = hv->parts[id];
		bool was = part->spare_wanting;

		part->spare_wanting = first[id] || using[id];
		if (!first[id])
			continue;
		if (!was && floor != UINT64_MAX) {
			uint64_t lag = hv->p.window_ps * HV_SPARE_SCALE /
				       hv_vcpu_weight(first[id]);

			if (vt[id] + lag < floor) {
				part->spare_vt += floor - lag - vt[id];
				vt[id] = floor - lag;
			}
		}
		if (vt[id] < best) {
			best = vt[id];
			nbest = 0;
		}
		if (vt[id] == best)
			nbest++;
	}
	if (!nbest)
		return NULL;
	if (nbest > 1)
		pick = (unsigned int)sim_rng_below(&hv->rng, nbest);
	for (unsigned int id = 0; id < hv->nparts; id++) {
		if (!first[id] || vt[id] != best)
			continue;
		if (!pick--) {
			hv_rq_remove(hv, first[id]);
			return first[id];
		}
	}
	return NULL;
}

static bool pvm_should_preempt(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *payer = hv_payer(p->cur);

	/* Out of entitlement, taking no spare: off until the next window. */
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

/* Does @p run a vCPU on spare time (its payer past its entitlement)? */
static bool on_spare(const struct hv *hv, const struct hv_pcpu *p)
{
	return p->cur && p->cur->state == HV_RUNNING &&
	       !entitled(hv, hv_payer(p->cur));
}

/* May @v have @p by preempting its runner: it runs on spare time and,
 * under whole-core dispatch, so does every busy thread of its core (of
 * another partition, the core goes as a unit: hv_pcpu_preempt_for). */
static bool may_take(const struct hv *hv, const struct hv_pcpu *p,
		     const struct hv_vcpu *v)
{
	unsigned int first, end;

	if (!on_spare(hv, p))
		return false;
	if (!hv->p.whole_core || p->cur->part == v->part)
		return hv_may_dispatch(hv, p, v);
	hv_core_range(hv, p, &first, &end);
	for (unsigned int i = first; i < end; i++)
		if (hv->pcpus[i].cur && !on_spare(hv, &hv->pcpus[i]))
			return false;
	return true;
}

/*
 * Entitled capacity is guaranteed within each window; spare capacity is
 * what nobody entitled wants.  So a queued vCPU with entitlement left
 * (woken, or refilled at its window start) takes a pCPU from a vCPU
 * running on spare time at once, not at that one's slice end: with
 * slices as long as the window, waiting for the slice end lost a hog
 * partition most of its entitlement to a bigger one (session 10).  The
 * spare runner it takes from is of the partition with the most spare
 * time for its weight (the counterpart of pvm_pick's choice); among
 * those, the first from @v's home pCPU on.
 */
static struct hv_pcpu *spare_runner(struct hv *hv, const struct hv_vcpu *v)
{
	unsigned int n = hv->p.npcpus, home = (unsigned int)v->home_pcpu;
	uint64_t vt[HV_MAX_PARTS], most = 0;
	struct hv_pcpu *best = NULL;

	/* A lent vCPU waits for its own dispatch to come back. */
	if (!v->on_rq || !entitled(hv, v) || hv_vcpu_lent(v, NULL))
		return NULL;
	for (unsigned int k = 0; k < n; k++) {
		struct hv_pcpu *p = &hv->pcpus[(home + k) % n];

		if (hv_pcpu_free(p) && hv_may_dispatch(hv, p, v))
			return NULL; /* it takes a free one */
	}
	spare_vts(hv, vt, NULL);
	for (unsigned int k = 0; k < n; k++) {
		struct hv_pcpu *p = &hv->pcpus[(home + k) % n];
		unsigned int id;

		if (!may_take(hv, p, v))
			continue;
		id = hv_payer(p->cur)->part->id;
		if (!best || vt[id] > most) {
			best = p;
			most = vt[id];
		}
	}
	return best;
}

static struct hv_pcpu *pvm_wake_preempt(struct hv *hv, struct hv_vcpu *v)
{
	return spare_runner(hv, v);
}

static void pvm_window(struct hv *hv, struct hv_vcpu *v, sim_time_t t)
{
	struct hv_pcpu *p = spare_runner(hv, v);

	if (p)
		hv_pcpu_preempt_for(p, v, t,
				    "preempted for an entitled vCPU%.0" PRId64
				    "%.0" PRId64);
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
	.wake_preempt = pvm_wake_preempt,
	.start = pvm_start,
	.target = pvm_target,
	.shared_queue = true,
	.whole_core_preempt = true,
};

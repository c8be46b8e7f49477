// SPDX-License-Identifier: MIT
/*
 * `kvm`: vCPUs as host threads under a CFS-like fair scheduler
 * (LOCK-FACTS.md 6, DESIGN §3).  Each vCPU accrues virtual runtime, its
 * CPU time scaled by 128 / the partition's weight, so CPU time is shared
 * in proportion to weight.  A pCPU runs the queued vCPU with the least
 * vruntime, for a slice of the scheduling period (hypervisor.slice)
 * divided over the vCPUs per pCPU that want to run, but never less than
 * hypervisor.min_granularity; at the slice end it keeps running unless a
 * queued vCPU has less vruntime.  A vCPU waking from halt is placed no
 * further back than half a period behind the least vruntime (sleepers get
 * a bounded credit), and preempts the running vCPU with the most vruntime
 * if it leads it by more than hypervisor.wakeup_granularity.
 * docs/hypervisor.md.
 */
#include "hypervisor/hv.h"

#define KVM_WEIGHT_UNIT 128

static unsigned int weight_of(const struct hv_vcpu *v)
{
	return v->part->weight ? v->part->weight : 1;
}

/* CPU time so far, counting a dispatch under way. */
static sim_time_t cpu_now(const struct hv *hv, const struct hv_vcpu *v)
{
	return v->cpu_ps + hv_uncharged(hv, v);
}

static int64_t vruntime(const struct hv *hv, const struct hv_vcpu *v)
{
	return v->vrt_off +
	       (int64_t)(cpu_now(hv, v) * KVM_WEIGHT_UNIT / weight_of(v));
}

/* The least vruntime of the vCPUs that want a pCPU; never goes back. */
static int64_t update_min_vruntime(struct hv *hv)
{
	bool any = false;
	int64_t min = 0;

	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		const struct hv_vcpu *v = hv->vcpus[i];
		int64_t vr;

		if (v->state != HV_RUNNING && v->state != HV_RUNNABLE &&
		    v->state != HV_DISPATCHING)
			continue;
		vr = vruntime(hv, v);
		if (!any || vr < min)
			min = vr;
		any = true;
	}
	if (any && min > hv->min_vruntime)
		hv->min_vruntime = min;
	return hv->min_vruntime;
}

static void kvm_enqueue(struct hv *hv, struct hv_vcpu *v)
{
	hv_rq_push_tail(hv, v);
}

static struct hv_vcpu *kvm_pick(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *best = NULL;
	int64_t best_vr = 0;

	/* Ties go to the longest queued (queue order). */
	for (struct hv_vcpu *v = hv->rq_head; v; v = v->rq_next) {
		int64_t vr;

		if (!hv_may_dispatch(hv, p, v))
			continue;
		vr = vruntime(hv, v);
		if (!best || vr < best_vr) {
			best = v;
			best_vr = vr;
		}
	}
	if (best)
		hv_rq_remove(hv, best);
	return best;
}

static bool kvm_should_preempt(struct hv *hv, struct hv_pcpu *p)
{
	int64_t cur = vruntime(hv, p->cur);

	for (struct hv_vcpu *v = hv->rq_head; v; v = v->rq_next)
		if (vruntime(hv, v) < cur)
			return true;
	return false;
}

static sim_time_t kvm_slice(struct hv *hv, struct hv_vcpu *v)
{
	unsigned int running = hv->rq_len + 1, per_pcpu;

	for (unsigned int i = 0; i < hv->p.npcpus; i++)
		running += hv->pcpus[i].cur && hv->pcpus[i].cur != v;
	per_pcpu = (running + hv->p.npcpus - 1) / hv->p.npcpus;
	return SIM_MAX(hv->p.slice_ps / per_pcpu, hv->p.min_granularity_ps);
}

static void kvm_woken(struct hv *hv, struct hv_vcpu *v)
{
	int64_t floor = update_min_vruntime(hv) - (int64_t)hv->p.slice_ps / 2;
	int64_t vr = vruntime(hv, v);

	if (vr < floor)
		v->vrt_off += floor - vr;
}

static struct hv_pcpu *kvm_wake_preempt(struct hv *hv, struct hv_vcpu *v)
{
	int64_t vr = vruntime(hv, v), worst_vr = 0;
	int64_t gran = (int64_t)(hv->p.wakeup_granularity_ps * KVM_WEIGHT_UNIT /
				 weight_of(v));
	struct hv_pcpu *worst = NULL;

	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];
		int64_t cvr;

		if (!p->cur || p->cur->state != HV_RUNNING)
			continue;
		cvr = vruntime(hv, p->cur);
		if (!worst || cvr > worst_vr) {
			worst = p;
			worst_vr = cvr;
		}
	}
	return worst && worst_vr - vr > gran ? worst : NULL;
}

const struct hv_policy_ops hv_policy_kvm = {
	.name = "kvm",
	.desc = "KVM-like: CFS fair share by weight, minimum granularity, "
		"sleeper placement and wake-up preemption",
	.enqueue = kvm_enqueue,
	.pick = kvm_pick,
	.should_preempt = kvm_should_preempt,
	.slice = kvm_slice,
	.woken = kvm_woken,
	.wake_preempt = kvm_wake_preempt,
};

// SPDX-License-Identifier: MIT
/*
 * `rr`: plain round robin over one shared run queue.  A vCPU runs for a
 * time slice; at its end it goes to the back of the queue if anyone is
 * waiting, else it keeps the pCPU.  The simplest baseline dispatcher.
 */
#include "hypervisor/hv.h"

static void rr_enqueue(struct hv *hv, struct hv_vcpu *v)
{
	hv_rq_push_tail(hv, v);
}

static struct hv_vcpu *rr_pick(struct hv *hv, struct hv_pcpu *p)
{
	return hv_rq_take_first(hv, p);
}

static bool rr_should_preempt(struct hv *hv, struct hv_pcpu *p)
{
	return hv->rq_len > 0;
}

const struct hv_policy_ops hv_policy_rr = {
	.name = "rr",
	.desc = "round robin: fixed time slices over one FIFO run queue",
	.enqueue = rr_enqueue,
	.pick = rr_pick,
	.should_preempt = rr_should_preempt,
	.shared_queue = true,
};

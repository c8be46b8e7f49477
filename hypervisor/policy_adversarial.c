// SPDX-License-Identifier: MIT
/*
 * `adversarial`: the torture dispatcher.  Round robin over one run queue
 * like `rr`, but every slice has a random length (exponential, mean
 * hypervisor.slice), and at each shim point the guest announces (between
 * a state store and the hcall that depends on it, between hashing and
 * _Q_SLOW_VAL, between unhash and release, right after a hand-off, inside
 * a critical section, ...) the vCPU is preempted with that point's
 * probability.  Cedes and halts may also return at once
 * (hypervisor.spurious_wake), as interrupts make them do.  All draws come
 * from the dispatcher's seeded stream.  docs/hypervisor.md.
 */
#include <math.h>

#include "hypervisor/hv.h"

static void adv_enqueue(struct hv *hv, struct hv_vcpu *v)
{
	hv_rq_push_tail(hv, v);
}

static struct hv_vcpu *adv_pick(struct hv *hv, struct hv_pcpu *p)
{
	return hv_rq_take_first(hv, p);
}

static bool adv_should_preempt(struct hv *hv, struct hv_pcpu *p)
{
	return hv->rq_len > 0;
}

static sim_time_t adv_slice(struct hv *hv, struct hv_vcpu *v)
{
	double u = sim_rng_unit(&hv->rng);
	double s = -log1p(-u) * (double)hv->p.slice_ps;

	return SIM_MAX((sim_time_t)s, SIM_US);
}

static void coroutine_fn adv_at_point(struct hv *hv, struct hv_vcpu *v,
				      enum hv_point pt)
{
	double prob = hv->p.point_prob[pt];

	if (prob <= 0.0 || sim_rng_unit(&hv->rng) >= prob)
		return;
	/* Only worth it when someone else can use the pCPU. */
	if (!hv->rq_len)
		return;
	hv_preempt_self(v);
}

/*
 * Under a weak memory model (sim/mm.h) the adversary also chooses when
 * buffered stores drain: with probability drain_late a store stays in its
 * buffer for the whole of machine.store_delay (until a barrier, atomic
 * or hcall of its cpu drains it sooner).
 */
bool hv_adversary_drain(void *data, struct sim_cpu *c)
{
	struct hv *hv = data;

	(void)c;
	return hv->p.drain_late > 0.0 &&
	       sim_rng_unit(&hv->rng) < hv->p.drain_late;
}

const struct hv_policy_ops hv_policy_adversarial = {
	.name = "adversarial",
	.desc = "torture: random slices, preemption at the shim points where "
		"it hurts most, spurious wake-ups",
	.enqueue = adv_enqueue,
	.pick = adv_pick,
	.should_preempt = adv_should_preempt,
	.slice = adv_slice,
	.at_point = adv_at_point,
	.shared_queue = true,
};

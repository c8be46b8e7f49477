// SPDX-License-Identifier: MIT
/*
 * The hypervisor model's setup and accounts: partitions, vCPUs and their
 * lppacas, the run-queue list, dispatch windows, statistics and the
 * invariants.  The mechanism is in dispatch.c (dispatch, undispatch,
 * yield counts), hcall.c (the hcalls) and kvm_host.c (pause-loop exiting,
 * halt polling); policies (which vCPU runs next, when to preempt) are ops
 * tables, policy_*.c.  State machine and invariants: hv.h.
 */
#include <glib.h>
#include <string.h>

#include "hypervisor/hv_internal.h"

const struct hv_policy_ops *const hv_policies[] = {
	&hv_policy_rr,	&hv_policy_powervm,
	&hv_policy_kvm, &hv_policy_adversarial,
	NULL,
};

const struct hv_policy_ops *hv_policy_find(const char *name)
{
	for (unsigned int i = 0; hv_policies[i]; i++)
		if (strcmp(hv_policies[i]->name, name) == 0)
			return hv_policies[i];
	return NULL;
}

void hv_init(struct hv *hv, struct sim *s, const struct hv_params *p,
	     uint64_t seed)
{
	memset(hv, 0, sizeof(*hv));
	hv->gen = 1; /* above every vCPU's confer_none_gen */
	hv->sim = s;
	hv->p = *p;
	hv->ops = hv_policy_find(p->policy);
	QSIM_BUG_ON(!hv->ops, "unknown policy %s", p->policy);
	sim_rng_init(&hv->rng, seed, SIM_RNG_DISPATCH, 0);
	if (p->ple_window_ps) {
		s->spin_hook = hv_ple_spin_hook;
		s->spin_data = hv;
	}
	s->irq_hook = hv_irq_hook;
	s->irq_data = hv;
	hv->pcpus = g_new0(struct hv_pcpu, p->npcpus);
	if (p->keep_dtl)
		hv->dtl =
			g_array_new(FALSE, FALSE, sizeof(struct hv_dtl_record));
	if (p->whole_core) {
		unsigned int ncores;

		QSIM_BUG_ON(!p->smt, "whole-core dispatch needs smt");
		ncores = (p->npcpus + p->smt - 1) / p->smt;
		hv->core_owner = g_new(int, ncores);
		hv->core_busy = g_new0(unsigned int, ncores);
		for (unsigned int c = 0; c < ncores; c++)
			hv->core_owner[c] = -1;
	}
	for (unsigned int i = 0; i < p->npcpus; i++) {
		struct hv_pcpu *pc = &hv->pcpus[i];

		pc->hv = hv;
		pc->id = i;
		pc->idle_since = 0;
		pc->last_part = -1;
		sim_event_init(&pc->ev, hv_pcpu_ev, pc, SIM_PRIO_HV);
	}
}

void hv_destroy(struct hv *hv)
{
	for (unsigned int i = 0; i < hv->nparts; i++) {
		g_free(hv->parts[i]->vcpus);
		g_free(hv->parts[i]);
	}
	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		g_free(hv->vcpus[i]->confer);
		g_free(hv->vcpus[i]);
	}
	g_free(hv->parts);
	g_free(hv->vcpus);
	g_free(hv->pcpus);
	if (hv->dtl)
		g_array_free(hv->dtl, TRUE);
	g_free(hv->core_owner);
	g_free(hv->core_busy);
	memset(hv, 0, sizeof(*hv));
}

struct hv_partition *hv_partition_add(struct hv *hv, unsigned int nvcpus,
				      bool shared, sim_cpu_fn fn,
				      void *const *args)
{
	struct hv_partition *part = g_new0(struct hv_partition, 1);

	QSIM_BUG_ON(hv->nparts >= HV_MAX_PARTS, "too many partitions");
	struct sim_mem *m = &hv->sim->mem;
	size_t line = (size_t)1 << m->line_shift;

	part->id = hv->nparts;
	part->nvcpus = nvcpus;
	part->shared = shared;
	part->entitlement_cpu = 100 * nvcpus; /* until told: dedicated-like */
	part->weight = 128;
	part->vcpus = g_new0(struct hv_vcpu *, nvcpus);
	hv->parts = g_renew(struct hv_partition *, hv->parts, hv->nparts + 1);
	hv->parts[hv->nparts++] = part;
	hv->vcpus = g_renew(struct hv_vcpu *, hv->vcpus, hv->nvcpus + nvcpus);
	for (unsigned int i = 0; i < nvcpus; i++) {
		struct hv_vcpu *v = g_new0(struct hv_vcpu, 1);

		v->hv = hv;
		v->part = part;
		v->idx = i;
		v->gid = hv->nvcpus;
		v->state = HV_RUNNABLE;
		v->last_pcpu = -1;
		v->home_pcpu = -1;
		v->rq_cpu = -1;
		v->wake_cpu = -1;
		/* Each lppaca on its own line, as the real ones are 1 KiB. */
		v->lppaca = sim_mem_alloc(m, sizeof(*v->lppaca), line);
		v->lppaca->yield_count = 1;
		v->cpu = sim_cpu_create(hv->sim, fn, args[i]);
		v->cpu->owner = v;
		sim_event_init(&v->wake_ev, hv_wake_done, v, SIM_PRIO_HV);
		sim_event_init(&v->ple_ev, hv_ple_exit, v, SIM_PRIO_HV);
		sim_event_init(&v->timer_ev, hv_idle_timer, v, SIM_PRIO_HV);
		part->vcpus[i] = v;
		hv->vcpus[hv->nvcpus++] = v;
	}
	return part;
}

struct hv_vcpu *hv_current_vcpu(void)
{
	struct sim_cpu *c = sim_current();

	return c ? c->owner : NULL;
}

void hv_rq_push_tail(struct hv *hv, struct hv_vcpu *v)
{
	QSIM_BUG_ON(v->on_rq, "vCPU %u queued twice", v->gid);
	v->rq_next = NULL;
	v->rq_prev = hv->rq_tail;
	if (hv->rq_tail)
		hv->rq_tail->rq_next = v;
	else
		hv->rq_head = v;
	hv->rq_tail = v;
	v->on_rq = true;
	hv->rq_len++;
	hv->gen++;
	if (v->rq_cpu >= 0) {
		hv->pcpus[v->rq_cpu].nr_queued++;
		hv->pcpus[v->rq_cpu].rq_load += hv_vcpu_weight(v);
	}
}

struct hv_vcpu *hv_rq_take_first(struct hv *hv, struct hv_pcpu *p)
{
	struct hv_vcpu *v = hv->rq_head;

	while (v && !hv_may_dispatch(hv, p, v))
		v = v->rq_next;
	if (v)
		hv_rq_remove(hv, v);
	return v;
}

void hv_rq_remove(struct hv *hv, struct hv_vcpu *v)
{
	QSIM_BUG_ON(!v->on_rq, "vCPU %u not queued", v->gid);
	if (v->rq_prev)
		v->rq_prev->rq_next = v->rq_next;
	else
		hv->rq_head = v->rq_next;
	if (v->rq_next)
		v->rq_next->rq_prev = v->rq_prev;
	else
		hv->rq_tail = v->rq_prev;
	v->rq_next = v->rq_prev = NULL;
	v->on_rq = false;
	hv->rq_len--;
	hv->gen++;
	if (v->rq_cpu >= 0) {
		hv->pcpus[v->rq_cpu].nr_queued--;
		hv->pcpus[v->rq_cpu].rq_load -= hv_vcpu_weight(v);
		v->rq_cpu = -1;
	}
}

sim_time_t hv_vcpu_entitlement(const struct hv *hv, const struct hv_vcpu *v)
{
	return hv->p.window_ps * v->part->entitlement_cpu / 100 /
	       v->part->nvcpus;
}

void hv_kick_idle_pcpus(struct hv *hv, sim_time_t t)
{
	hv_kick_idle_pcpus_from(hv, t, NULL);
}

void hv_kick_idle_pcpus_from(struct hv *hv, sim_time_t t,
			     const struct hv_vcpu *v)
{
	unsigned int n = hv->p.npcpus;
	unsigned int first =
		v && v->home_pcpu >= 0 ? (unsigned int)v->home_pcpu : 0;

	for (unsigned int k = 0; k < n && hv->rq_len; k++) {
		struct hv_pcpu *p = &hv->pcpus[(first + k) % n];

		if (hv_pcpu_free(p))
			hv_pcpu_pick(p, t);
	}
}

/* @v's dispatch window begins: charge it up to here, refill it. */
static void window_ev(struct sim_event *ev)
{
	struct hv_vcpu *v = ev->data;
	struct hv *hv = v->hv;
	sim_time_t t = ev->time_ps;

	if (v->state == HV_RUNNING)
		hv_charge(v, t);
	/* A slice it conferred still runs on its bill: what ran of it so
	 * far belongs to the window that ends here. */
	if (hv_vcpu_lent(v, NULL) && v->paying->cur->state == HV_RUNNING)
		hv_charge(v->paying->cur, t);
	v->win_used_ps = 0;
	hv->ops->window(hv, v, t);
	if (v->on_rq)
		hv_kick_idle_pcpus_from(hv, t, v);
	sim_schedule(hv->sim, &v->win_ev, t + hv->p.window_ps);
}

void hv_start(struct hv *hv, sim_time_t t)
{
	/* Each vCPU's dispatch window at a phase of its own, so that no
	 * partition is dispatched as a gang at a common window start. */
	for (unsigned int i = 0; hv->ops->window && i < hv->nvcpus; i++) {
		struct hv_vcpu *v = hv->vcpus[i];

		sim_event_init(&v->win_ev, window_ev, v, SIM_PRIO_HV);
		sim_schedule(hv->sim, &v->win_ev,
			     t + (hv->p.window_phase
					  ? 1 + sim_rng_below(&hv->rng,
							      hv->p.window_ps)
					  : hv->p.window_ps));
	}
	if (hv->ops->start)
		hv->ops->start(hv, t);
	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		struct hv_vcpu *v = hv->vcpus[i];

		v->dtl_first = true;
		v->dtl_undispatched_ps = v->dtl_ready_ps = t;
		v->dtl_enqueued_ps = t;
		hv->ops->enqueue(hv, v);
	}
	for (unsigned int i = 0; i < hv->p.npcpus; i++)
		if (hv_pcpu_free(&hv->pcpus[i]))
			hv_pcpu_pick(&hv->pcpus[i], t);
}

void hv_reset_stats(struct hv *hv, sim_time_t t)
{
	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		struct hv_vcpu *v = hv->vcpus[i];

		memset(&v->st, 0, sizeof(v->st));
		if (v->state == HV_RUNNING)
			hv_charge(v, t);
		v->run_ps = 0;
	}
	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];

		p->idle_ps = 0;
		p->dispatch_ps = 0;
		if (p->idle_since != SIM_TIME_NEVER)
			p->idle_since = t;
	}
	hv->stats_since = t;
	if (hv->dtl)
		g_array_set_size(hv->dtl, 0);
}

void hv_flush_stats(struct hv *hv, sim_time_t t)
{
	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		struct hv_vcpu *v = hv->vcpus[i];

		if (v->state == HV_RUNNING)
			hv_charge(v, t);
		v->st.cpu_time_ps = v->run_ps;
		hv_dtl_flush(hv, v, t);
	}
	for (unsigned int i = 0; i < hv->p.npcpus; i++) {
		struct hv_pcpu *p = &hv->pcpus[i];

		if (p->idle_since != SIM_TIME_NEVER && t > p->idle_since) {
			p->idle_ps += t - p->idle_since;
			p->idle_since = t;
		}
	}
}

const char *const hv_point_names[HV_PT_NR] = {
#define X(name, key, doc) #name,
	HV_POINTS(X)
#undef X
};

bool hv_check_invariants(const struct hv *hv)
{
	unsigned int queued = 0;

	for (unsigned int i = 0; i < hv->nvcpus; i++) {
		const struct hv_vcpu *v = hv->vcpus[i];
		bool running = v->state == HV_RUNNING;

		if (((v->lppaca->yield_count & 1) == 0) != running)
			return false; /* H1 */
		if ((running || v->state == HV_DISPATCHING) &&
		    (!v->pcpu || v->pcpu->cur != v))
			return false; /* H2 */
		if (v->on_rq != (v->state == HV_RUNNABLE))
			return false; /* H3 */
		queued += v->on_rq;
	}
	for (unsigned int i = 0; hv->p.whole_core && i < hv->p.npcpus; i++) {
		const struct hv_pcpu *p = &hv->pcpus[i];

		if (p->cur &&
		    hv->core_owner[i / hv->p.smt] != (int)p->cur->part->id)
			return false; /* H5: one partition per core */
	}
	return queued == hv->rq_len;
}

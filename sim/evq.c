// SPDX-License-Identifier: MIT
/*
 * The d-ary heap event queue; see evq.h for the ordering contract.
 */
#include <glib.h>

#include "sim/evq.h"

static inline bool slot_before(const struct sim_evq_slot *a,
			       const struct sim_evq_slot *b)
{
	if (a->time_ps != b->time_ps)
		return a->time_ps < b->time_ps;
	return a->order < b->order;
}

void sim_evq_init(struct sim_evq *q)
{
	q->cap = 64;
	q->len = 0;
	q->next_seq = 0;
	q->heap = g_new(struct sim_evq_slot, q->cap);
}

/* Queued events may already be freed by their owners: touch none. */
void sim_evq_destroy(struct sim_evq *q)
{
	g_free(q->heap);
	q->heap = NULL;
	q->len = q->cap = 0;
}

void sim_event_init(struct sim_event *ev, sim_event_fn fn, void *data,
		    uint32_t prio)
{
	QSIM_BUG_ON(prio >= (1u << 15));
	ev->time_ps = 0;
	ev->seq = 0;
	ev->prio = prio;
	ev->heap_idx = SIM_EV_IDLE;
	ev->fn = fn;
	ev->data = data;
}

static inline void heap_set(struct sim_evq *q, uint32_t i,
			    struct sim_evq_slot s)
{
	q->heap[i] = s;
	s.ev->heap_idx = i;
}

static void sift_up(struct sim_evq *q, uint32_t i)
{
	struct sim_evq_slot s = q->heap[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / SIM_EVQ_ARITY;

		if (!slot_before(&s, &q->heap[parent]))
			break;
		heap_set(q, i, q->heap[parent]);
		i = parent;
	}
	heap_set(q, i, s);
}

static void sift_down(struct sim_evq *q, uint32_t i)
{
	struct sim_evq_slot s = q->heap[i];

	for (;;) {
		uint32_t first = SIM_EVQ_ARITY * i + 1, best, end;

		if (first >= q->len)
			break;
		best = first;
		end = SIM_MIN(first + SIM_EVQ_ARITY, q->len);
		for (uint32_t ch = first + 1; ch < end; ch++)
			if (slot_before(&q->heap[ch], &q->heap[best]))
				best = ch;
		if (!slot_before(&q->heap[best], &s))
			break;
		heap_set(q, i, q->heap[best]);
		i = best;
	}
	heap_set(q, i, s);
}

void sim_evq_cancel(struct sim_evq *q, struct sim_event *ev)
{
	uint32_t i = ev->heap_idx;
	struct sim_event *moved;

	if (i == SIM_EV_IDLE)
		return;
	QSIM_BUG_ON(i >= q->len || q->heap[i].ev != ev);
	ev->heap_idx = SIM_EV_IDLE;
	q->len--;
	if (i == q->len)
		return;
	moved = q->heap[q->len].ev;
	heap_set(q, i, q->heap[q->len]);
	sift_down(q, i);
	if (moved->heap_idx == i)
		sift_up(q, i);
}

void sim_evq_push(struct sim_evq *q, struct sim_event *ev, sim_time_t t)
{
	struct sim_evq_slot s;

	if (sim_event_queued(ev)) {
		/* Re-key in place: one sift instead of a removal and an
		 * insertion (a running cpu re-queues its own event). */
		uint32_t i = ev->heap_idx;

		ev->time_ps = t;
		ev->seq = q->next_seq++;
		q->heap[i].time_ps = t;
		q->heap[i].order = ((uint64_t)ev->prio << 48) |
				   (ev->seq & ((1ULL << 48) - 1));
		sift_up(q, i);
		sift_down(q, ev->heap_idx);
		return;
	}
	if (q->len == q->cap) {
		q->cap *= 2;
		q->heap = g_renew(struct sim_evq_slot, q->heap, q->cap);
	}
	ev->time_ps = t;
	ev->seq = q->next_seq++;
	s.time_ps = t;
	s.order = ((uint64_t)ev->prio << 48) | (ev->seq & ((1ULL << 48) - 1));
	s.ev = ev;
	heap_set(q, q->len, s);
	q->len++;
	sift_up(q, q->len - 1);
}

struct sim_event *sim_evq_pop(struct sim_evq *q)
{
	struct sim_event *top;

	if (!q->len)
		return NULL;
	top = q->heap[0].ev;
	top->heap_idx = SIM_EV_IDLE;
	q->len--;
	if (q->len) {
		heap_set(q, 0, q->heap[q->len]);
		sift_down(q, 0);
	}
	return top;
}

bool sim_evq_check_invariants(const struct sim_evq *q)
{
	for (uint32_t i = 0; i < q->len; i++) {
		if (q->heap[i].ev->heap_idx != i)
			return false;
		if (q->heap[i].time_ps != q->heap[i].ev->time_ps)
			return false;
		if (i &&
		    slot_before(&q->heap[i], &q->heap[(i - 1) / SIM_EVQ_ARITY]))
			return false;
	}
	return true;
}

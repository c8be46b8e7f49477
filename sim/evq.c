// SPDX-License-Identifier: MIT
/*
 * The binary heap event queue; see evq.h for the ordering contract.
 */
#include <glib.h>

#include "sim/evq.h"

static inline sim_evq_key make_key(const struct sim_event *ev)
{
	return (sim_evq_key)ev->time_ps << 64 | (uint64_t)ev->prio << 48 |
	       (ev->seq & ((1ULL << 48) - 1));
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
	ev->gen = 0;
	ev->tie = 0;
	ev->prio = prio;
	ev->heap_idx = SIM_EV_IDLE;
	ev->fn = fn;
	ev->data = data;
}

static inline __attribute__((always_inline)) void heap_set(
	struct sim_evq_slot *h, uint32_t i, struct sim_evq_slot s)
{
	h[i] = s;
	s.ev->heap_idx = i;
}

/* Fill the hole at @i with @s, moving it up past later parents. */
static inline __attribute__((always_inline)) void sift_up(struct sim_evq *q,
							  uint32_t i,
							  struct sim_evq_slot s)
{
	struct sim_evq_slot *h = q->heap;

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (s.key >= h[parent].key)
			break;
		heap_set(h, i, h[parent]);
		i = parent;
	}
	heap_set(h, i, s);
}

/* Fill the hole at @i with @s, moving it down past earlier children. */
static inline __attribute__((always_inline)) void sift_down(
	struct sim_evq *q, uint32_t i, struct sim_evq_slot s)
{
	struct sim_evq_slot *h = q->heap;
	uint32_t len = q->len;

	for (;;) {
		uint32_t best = 2 * i + 1;

		if (best >= len)
			break;
		if (best + 1 < len && h[best + 1].key < h[best].key)
			best++;
		if (h[best].key >= s.key)
			break;
		heap_set(h, i, h[best]);
		i = best;
	}
	heap_set(h, i, s);
}

void sim_evq_cancel(struct sim_evq *q, struct sim_event *ev)
{
	uint32_t i = ev->heap_idx;
	struct sim_evq_slot last;

	if (i == SIM_EV_IDLE)
		return;
	QSIM_BUG_ON(i >= q->len || q->heap[i].ev != ev);
	ev->heap_idx = SIM_EV_IDLE;
	q->len--;
	if (i == q->len)
		return;
	last = q->heap[q->len];
	if (i > 0 && last.key < q->heap[(i - 1) / 2].key)
		sift_up(q, i, last);
	else
		sift_down(q, i, last);
}

void sim_evq_push(struct sim_evq *q, struct sim_event *ev, sim_time_t t)
{
	struct sim_evq_slot s;

	ev->time_ps = t;
	ev->gen++;
	ev->seq = ev->tie ? sim_evq_tie_seq(ev->tie, t) : q->next_seq++;
	s.key = make_key(ev);
	s.ev = ev;
	if (sim_event_queued(ev)) {
		/* Re-key in place: one sift instead of a removal and an
		 * insertion (a running cpu re-queues its own event). */
		uint32_t i = ev->heap_idx;

		if (s.key < q->heap[i].key)
			sift_up(q, i, s);
		else
			sift_down(q, i, s);
		return;
	}
	if (q->len == q->cap) {
		q->cap *= 2;
		q->heap = g_renew(struct sim_evq_slot, q->heap, q->cap);
	}
	q->len++;
	sift_up(q, q->len - 1, s);
}

struct sim_event *sim_evq_pop(struct sim_evq *q)
{
	struct sim_event *top;

	if (!q->len)
		return NULL;
	top = q->heap[0].ev;
	top->heap_idx = SIM_EV_IDLE;
	q->len--;
	if (q->len)
		sift_down(q, 0, q->heap[q->len]);
	return top;
}

bool sim_evq_check_invariants(const struct sim_evq *q)
{
	for (uint32_t i = 0; i < q->len; i++) {
		if (q->heap[i].ev->heap_idx != i)
			return false;
		if (q->heap[i].key != make_key(q->heap[i].ev))
			return false;
		if (i && q->heap[i].key < q->heap[(i - 1) / 2].key)
			return false;
	}
	return true;
}

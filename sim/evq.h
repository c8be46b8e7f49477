/* SPDX-License-Identifier: MIT */
/*
 * The event queue: an intrusive binary min-heap ordered by
 * (time, priority, sequence).  The sequence is a per-queue insertion
 * counter, so events at the same time and priority run in the order they
 * were scheduled, identically on every run; or, for an event with a fixed
 * tie (a cpu's resume: its id), a hash of the time and that number
 * (sim_evq_tie_seq), so that the order at equal time does not depend on
 * the history of pushes.
 *
 * Events are embedded in their owners (a vCPU context, a pCPU, the
 * watchdog), so scheduling allocates nothing; an event is either queued
 * (heap_idx != SIM_EV_IDLE) or idle.
 */
#ifndef QSIM_SIM_EVQ_H
#define QSIM_SIM_EVQ_H

#include "sim/types.h"

#define SIM_EV_IDLE UINT32_MAX

struct sim_event;
typedef void (*sim_event_fn)(struct sim_event *ev);

struct sim_event {
	sim_time_t time_ps;
	uint64_t seq;
	uint64_t gen;  /* pushes so far (which push is queued) */
	uint32_t prio; /* lower runs first at equal time */
	uint32_t tie;  /* nonzero: the fixed order at equal time and prio */
	uint32_t heap_idx;
	sim_event_fn fn;
	void *data;
};

/*
 * Heap slots carry the ordering key inline, so sifting compares
 * contiguous memory instead of chasing event pointers.  The key is one
 * 128-bit number, time << 64 | prio << 48 | seq, so a comparison is a
 * single (two-word) compare: 2^48 insertions per run are plenty.  The heap
 * is binary; 4-ary was measured no faster (docs/performance.md).
 */
__extension__ typedef unsigned __int128 sim_evq_key;

struct sim_evq_slot {
	sim_evq_key key;
	struct sim_event *ev;
};

static inline sim_time_t sim_evq_slot_time(const struct sim_evq_slot *s)
{
	return (sim_time_t)(s->key >> 64);
}

struct sim_evq {
	struct sim_evq_slot *heap;
	uint32_t len, cap;
	uint64_t next_seq;
};

void sim_evq_init(struct sim_evq *q);
void sim_evq_destroy(struct sim_evq *q);
void sim_event_init(struct sim_event *ev, sim_event_fn fn, void *data,
		    uint32_t prio);
/* Queue @ev at @t; if already queued it is moved (and gets a new seq). */
void sim_evq_push(struct sim_evq *q, struct sim_event *ev, sim_time_t t);
void sim_evq_cancel(struct sim_evq *q, struct sim_event *ev);
struct sim_event *sim_evq_pop(struct sim_evq *q);

static inline bool sim_event_queued(const struct sim_event *ev)
{
	return ev->heap_idx != SIM_EV_IDLE;
}

static inline struct sim_event *sim_evq_peek(const struct sim_evq *q)
{
	return q->len ? q->heap[0].ev : NULL;
}

static inline sim_time_t sim_evq_top_time(const struct sim_evq *q)
{
	return q->len ? sim_evq_slot_time(&q->heap[0]) : SIM_TIME_NEVER;
}

/* The key of the earliest event but @self (all ones: none). */
static inline sim_evq_key sim_evq_horizon_key(const struct sim_evq *q,
					      const struct sim_event *self)
{
	if (!q->len)
		return ~(sim_evq_key)0;
	if (q->heap[0].ev != self)
		return q->heap[0].key;
	if (q->len == 1)
		return ~(sim_evq_key)0;
	if (q->len == 2 || q->heap[1].key < q->heap[2].key)
		return q->heap[1].key;
	return q->heap[2].key;
}

/*
 * The sequence of an event with a fixed tie at @t: a 16-bit hash of (t,
 * tie) above the tie itself.  Independent of the history of pushes, and
 * with no standing preference: which of two cpus meeting at the same
 * picosecond goes first changes from one picosecond to the next (a plain
 * id order made low-numbered cpus win every tie, and the fairness figures
 * showed it).
 */
static inline uint64_t sim_evq_tie_seq(uint32_t tie, sim_time_t t)
{
	uint64_t h = (uint64_t)t ^ ((uint64_t)tie * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return (h & 0xffff) << 32 | tie;
}

/* The key @ev would have at @t. */
static inline sim_evq_key sim_evq_key_at(const struct sim_event *ev,
					 sim_time_t t)
{
	return (sim_evq_key)t << 64 | (uint64_t)ev->prio << 48 |
	       sim_evq_tie_seq(ev->tie, t);
}

/*
 * The earliest time of any event but @self: the horizon of the cpu whose
 * resume event @self still sits in the queue while it runs (engine.c).
 */
static inline sim_time_t sim_evq_horizon(const struct sim_evq *q,
					 const struct sim_event *self)
{
	if (!q->len)
		return SIM_TIME_NEVER;
	if (q->heap[0].ev != self)
		return sim_evq_slot_time(&q->heap[0]);
	if (q->len == 1)
		return SIM_TIME_NEVER;
	if (q->len == 2 || q->heap[1].key < q->heap[2].key)
		return sim_evq_slot_time(&q->heap[1]);
	return sim_evq_slot_time(&q->heap[2]);
}

bool sim_evq_check_invariants(const struct sim_evq *q);

#endif

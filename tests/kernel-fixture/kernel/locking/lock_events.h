/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: lock-event counters, one per-CPU array indexed by
 * the events of lock_events_list.h.  The array itself is defined by
 * whoever owns the counters (qsim's glue, here).
 */
#ifndef FIXTURE_LOCK_EVENTS_H
#define FIXTURE_LOCK_EVENTS_H

#define LOCK_EVENT(name) LOCKEVENT_##name,
enum lock_events {
#include "lock_events_list.h"
	lockevent_num /* how many there are */
};
#undef LOCK_EVENT

#ifdef CONFIG_LOCK_EVENT_COUNTS
DECLARE_PER_CPU(unsigned long, lockevents[lockevent_num]);
#define lockevent_add(name, n) raw_cpu_add(lockevents[LOCKEVENT_##name], (n))
#else
#define lockevent_add(name, n) \
	do {                   \
	} while (0)
#endif
#define lockevent_inc(name) lockevent_add(name, 1)

#endif

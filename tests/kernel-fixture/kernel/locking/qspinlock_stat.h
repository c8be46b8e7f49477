/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the queued lock's statistics are its lock events
 * alone (no latency histograms in the fixture).
 */
#ifndef FIXTURE_QSPINLOCK_STAT_H
#define FIXTURE_QSPINLOCK_STAT_H

#include "lock_events.h"

#endif

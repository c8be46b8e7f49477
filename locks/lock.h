/* SPDX-License-Identifier: MIT */
/*
 * The lock registry: one ops table per algorithm, the same verbs for all
 * (docs/locks.md).  A lock lives in guest memory (the arena); the table
 * says how big it is.  Lock code itself sees only the shim.
 */
#ifndef QSIM_LOCKS_LOCK_H
#define QSIM_LOCKS_LOCK_H

#include <stdbool.h>
#include <stddef.h>

struct lk_ops {
	const char *name;
	const char *desc;
	size_t size; /* bytes of one lock in guest memory */
	size_t align;
	void (*init)(void *lock);
	void (*lock)(void *lock);
	void (*unlock)(void *lock);
	bool (*trylock)(void *lock);
	/* Deliberately broken: validation must report a violation. */
	bool broken;
};

/* NULL-terminated, in `qsim list` order. */
extern const struct lk_ops *const lk_registry[];
const struct lk_ops *lk_find(const char *name);

extern const struct lk_ops lk_tas_ops;
extern const struct lk_ops lk_ticket_ops;
extern const struct lk_ops lk_busted_ops;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Kernel-tree mode, qsim's side (ktree.c, docs/kernel-tree.md).
 */
#ifndef QSIM_LOCKS_KERNEL_KTREE_H
#define QSIM_LOCKS_KERNEL_KTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locks/lock.h"

struct qk_inst;

/* One embedded library and the lock type built on it. */
struct kt_type {
	const char *name; /* kernel_qspinlock, ... */
	const char *lib, *lib_end;
	bool paravirt;
};

/* A boot-time allocation of a library copy (the pv hash table). */
struct kt_alloc {
	const char *what;
	char *base;
	size_t size;
};

size_t kt_global_size(const struct kt_type *t, const struct lk_params *p,
		      unsigned int nr_cpus);
void kt_global_init(const struct kt_type *t, void *globals,
		    const struct lk_params *p, unsigned int nr_cpus);
void kt_global_fini(void *globals);
void kt_lock(void *lock);
void kt_unlock(void *lock);
bool kt_trylock(void *lock);
/* The [lock] qspl_* keys the scenario set, through the file's knobs. */
void kt_apply_knobs(struct qk_inst *in, const struct lk_params *p);
char **kt_knob_names(const struct kt_type *t);
bool kt_knob_set(struct qk_inst *in, const char *name, uint64_t val);
bool kt_knob_get(struct qk_inst *in, const char *name, uint64_t *val);
const struct kt_alloc *kt_find_alloc(const void *globals, const char *what);

#endif

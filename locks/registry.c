// SPDX-License-Identifier: MIT
/*
 * The registry of lock ops tables, looked up by name, and the lock-event
 * names.
 */
#include <string.h>

#include "locks/lock.h"
#include "locks/lock_events.h"
#include "locks/mutants.h"
#include "sim/engine.h"

_Static_assert(LOCKEVENT_NUM <= SIM_CPU_COUNTERS,
	       "more lock events than per-cpu counter slots");

const char *const lock_event_names[LOCKEVENT_NAMED] = {
#define X(name, kind) #name,
	LOCK_EVENTS(X)
#undef X
};

static const char *tree_event_names[LOCKEVENT_TREE_SLOTS];
static GMutex tree_event_lock; /* torture's workers load trees at once */

const char *lk_event_name(int e)
{
	const char *n;

	if (e < LOCKEVENT_NAMED)
		return lock_event_names[e];
	g_mutex_lock(&tree_event_lock);
	n = tree_event_names[e - LOCKEVENT_NAMED];
	g_mutex_unlock(&tree_event_lock);
	return n;
}

int lk_tree_event_slot(const char *name)
{
	int slot = -1;

	g_mutex_lock(&tree_event_lock);
	for (int k = 0; k < LOCKEVENT_TREE_SLOTS && slot < 0; k++) {
		if (!tree_event_names[k])
			tree_event_names[k] = g_intern_string(name);
		if (!strcmp(tree_event_names[k], name))
			slot = LOCKEVENT_NAMED + k;
	}
	g_mutex_unlock(&tree_event_lock);
	return slot;
}

/* clang-format off */
const struct lk_ops *const lk_registry[] = {
	&lk_tas_ops,
	&lk_ticket_ops,
	&lk_ticket_backoff_ops,
	&lk_qspinlock_ops,
	&lk_ppc_qspinlock_ops,
	&lk_pv_qspinlock_ops,
	&lk_unfair_ops,
	&lk_qrwlock_ops,
	&lk_rwlock_legacy_ops,
	&lk_busted_ops,
#ifdef QSIM_KTREE_GENERIC
	&lk_kernel_qspinlock_ops,
	&lk_kernel_pv_qspinlock_ops,
#endif
#ifdef QSIM_KTREE_PPC
	&lk_kernel_ppc_qspinlock_ops,
#endif
	NULL,
};
/* clang-format on */

/* A build without the catalogue (-DQSIM_MUTANT_BUILDS=OFF, for the
 * generated mutants of tools/mutate.py) lists none. */
#ifndef QSIM_NO_MUTANT_BUILDS
#define X(id, name, mapping, memory, doc) \
	extern const struct lk_ops lk_mutant_##id##_ops;
LK_MUTANTS(X)
#undef X
#endif

const struct lk_ops *const lk_mutants[] = {
#ifndef QSIM_NO_MUTANT_BUILDS
#define X(id, name, mapping, memory, doc) &lk_mutant_##id##_ops,
	LK_MUTANTS(X)
#undef X
#endif
		NULL,
};

const struct lk_ops *lk_find_mutant(const char *name)
{
	for (unsigned int i = 0; lk_mutants[i]; i++)
		if (strcmp(lk_mutants[i]->mutant, name) == 0)
			return lk_mutants[i];
	return NULL;
}

#if defined(QSIM_KTREE_GENERIC) || defined(QSIM_KTREE_PPC)
/* Generated at every build by locks/kernel/identity.cmake. */
extern const char qsim_ktree_path[], qsim_ktree_version[],
	qsim_ktree_describe[];
extern const char *const qsim_ktree_files[][2];

const struct lk_ktree_identity *lk_ktree_identity(void)
{
	static const struct lk_ktree_identity id = {
		qsim_ktree_path,
		qsim_ktree_version,
		qsim_ktree_describe,
		qsim_ktree_files,
	};

	return &id;
}
#else
const struct lk_ktree_identity *lk_ktree_identity(void)
{
	return NULL;
}
#endif

const struct lk_ktree_identity *lk_ktree_of(const char *lock)
{
	const struct lk_ops *ops = lk_find(lock);

	return ops && ops->kernel_tree ? lk_ktree_identity() : NULL;
}

bool lk_reads_key(const struct lk_ops *ops, const char *key)
{
	size_t n = strlen(key);

	/* @params: keys separated by single spaces */
	for (const char *p = ops->params; p && *p;) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && strncmp(p, key, n) == 0)
			return true;
		p = end ? end + 1 : p + len;
	}
	return false;
}

const struct lk_ops *lk_find(const char *name)
{
	for (unsigned int i = 0; lk_registry[i]; i++)
		if (strcmp(lk_registry[i]->name, name) == 0)
			return lk_registry[i];
	return NULL;
}

const char *lk_pv_mapping_name(enum lk_pv_mapping m)
{
	switch (m) {
	case LK_PV_SPLPAR_UNDIRECTED:
		return "splpar-undirected";
	case LK_PV_SPLPAR_DIRECTED:
		return "splpar-directed";
	case LK_PV_SPLPAR_CEDE:
		return "splpar-cede";
	case LK_PV_KVM:
		return "kvm";
	}
	return "?";
}

static int mapping_index(const char *name)
{
	for (int m = 0; m < LK_PV_NR; m++)
		if (strcmp(lk_pv_mapping_name((enum lk_pv_mapping)m), name) ==
		    0)
			return m;
	return -1;
}

bool lk_pv_mapping_valid(const char *name)
{
	return mapping_index(name) >= 0;
}

enum lk_pv_mapping lk_pv_mapping_parse(const char *name)
{
	int m = mapping_index(name);

	QSIM_BUG_ON(m < 0, "unknown pv mapping %s", name);
	return (enum lk_pv_mapping)m;
}

// SPDX-License-Identifier: MIT
/*
 * busted: a lock that does not lock (locktorture's lock_busted).  It
 * exists so that a validation harness that catches nothing cannot pass:
 * the mutual-exclusion check must report it on every contended run.
 */
#include "qsim_kernel.h"
#include "locks/lock.h"

struct busted_lock {
	u32 word;
};

static void busted_init(void *p)
{
	struct busted_lock *lock = p;

	lock->word = 0;
}

static void busted_lock(void *p)
{
	struct busted_lock *lock = p;

	/* Looks at the lock, then walks in regardless. */
	(void)READ_ONCE(lock->word);
}

static bool busted_trylock(void *p)
{
	busted_lock(p);
	return true;
}

static void busted_unlock(void *p)
{
	struct busted_lock *lock = p;

	WRITE_ONCE(lock->word, 0);
}

const struct lk_ops lk_busted_ops = {
	.name = "busted",
	.desc = "deliberately broken: never excludes anyone (validation "
		"must catch it)",
	.size = sizeof(struct busted_lock),
	.align = sizeof(u32),
	.init = busted_init,
	.lock = busted_lock,
	.unlock = busted_unlock,
	.trylock = busted_trylock,
	.broken = true,
};

// SPDX-License-Identifier: MIT
/*
 * The registry of lock ops tables, looked up by name.
 */
#include <string.h>

#include "locks/lock.h"

const struct lk_ops *const lk_registry[] = {
	&lk_tas_ops,
	&lk_ticket_ops,
	&lk_busted_ops,
	NULL,
};

const struct lk_ops *lk_find(const char *name)
{
	for (unsigned int i = 0; lk_registry[i]; i++)
		if (strcmp(lk_registry[i]->name, name) == 0)
			return lk_registry[i];
	return NULL;
}

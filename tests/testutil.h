/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the Check suites.
 */
#ifndef QSIM_TESTS_TESTUTIL_H
#define QSIM_TESTS_TESTUTIL_H

#include <check.h>

#include "tools/config.h"
#include "tools/model.h"

/* Costs with distinct, odd-looking values so ties are rare. */
extern const struct sim_cost tu_cost;

/* A bare engine with @n cpus (no hypervisor), pcpu i for cpu i. */
void tu_sim_init(struct sim *s, unsigned int npcpus);
/* Run a suite, return the process exit status. */
int tu_run(Suite *s);
/* Load a scenario from text with overrides (NULL-terminated varargs). */
struct qsim_config *tu_config(const char *text, ...);
/* Run @cfg, asserting no internal error. */
void tu_model(const struct qsim_config *cfg, struct qsim_results *res);
/* A small scenario: @lock, @vcpus on @pcpus, @ms of simulated time. */
char *tu_scenario(const char *lock, unsigned int vcpus, unsigned int pcpus,
		  unsigned int ms);

/*
 * The validation harness: @ops with 16 vCPUs on @pcpus for 20 ms under the
 * always-on checks, with up to two overrides (NULL: none; a NULL first
 * ends the list).  A broken lock must be caught as broken mutual
 * exclusion; any other must run clean and make progress, its figures
 * consistent.
 */
struct lk_ops;
void tu_validate(const struct lk_ops *ops, unsigned int pcpus,
		 const char *override1, const char *override2);

#endif

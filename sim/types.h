/* SPDX-License-Identifier: MIT */
/*
 * Basic types shared by every layer of qsim: simulated time, the bug macro.
 * Time is an unsigned count of picoseconds; never a double (docs/design.md).
 */
#ifndef QSIM_SIM_TYPES_H
#define QSIM_SIM_TYPES_H

#include <inttypes.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

typedef uint64_t sim_time_t;

#define SIM_PS	       ((sim_time_t)1)
#define SIM_NS	       ((sim_time_t)1000)
#define SIM_US	       ((sim_time_t)1000000)
#define SIM_MS	       ((sim_time_t)1000000000)
#define SIM_S	       ((sim_time_t)1000000000000ULL)
#define SIM_TIME_NEVER UINT64_MAX

/* Broken model invariants are bugs in qsim itself: abort loudly. */
void sim_bug(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/* Printed with an internal error when set (this thread's scenario, say). */
extern __thread const char *sim_bug_context;
#define QSIM_BUG_ON(cond, ...)                                              \
	do {                                                                \
		if (__builtin_expect(!!(cond), 0))                          \
			sim_bug(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
	} while (0)

#define SIM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SIM_MIN(a, b)	  ((a) < (b) ? (a) : (b))
#define SIM_MAX(a, b)	  ((a) > (b) ? (a) : (b))

#endif

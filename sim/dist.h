/* SPDX-License-Identifier: MIT */
/*
 * Durations drawn from a distribution: fixed, exponential or uniform.
 * Scenario syntax (docs/scenarios.md): "200ns", "exp:200ns",
 * "uniform:100ns:300ns".
 */
#ifndef QSIM_SIM_DIST_H
#define QSIM_SIM_DIST_H

#include "sim/rng.h"

enum sim_dist_kind {
	SIM_DIST_FIXED,
	SIM_DIST_EXP,
	SIM_DIST_UNIFORM,
};

struct sim_duration {
	enum sim_dist_kind kind;
	sim_time_t a_ps; /* fixed value, mean, or low bound */
	sim_time_t b_ps; /* high bound (uniform) */
};

sim_time_t sim_duration_draw(const struct sim_duration *d, struct sim_rng *r);
sim_time_t sim_duration_mean(const struct sim_duration *d);
/* Parse "150ns", "10ms", "2.5us", "1s", "300ps", or "0" (zero needs no
 * unit); false on bad syntax. */
bool sim_parse_time(const char *s, sim_time_t *out);
bool sim_parse_duration(const char *s, struct sim_duration *out);
/* Format like "150ns" or "2.5us" into @buf. */
const char *sim_format_time(sim_time_t t, char *buf, size_t len);
const char *sim_format_duration(const struct sim_duration *d, char *buf,
				size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Seeded random streams.  Every entity (a vCPU's workload, the dispatcher,
 * a fault injector) owns a stream derived from (run seed, kind, id), so
 * adding an entity never changes the draws of the others.
 * Generator: xoshiro256** seeded through splitmix64.
 */
#ifndef QSIM_SIM_RNG_H
#define QSIM_SIM_RNG_H

#include "sim/types.h"

struct sim_rng {
	uint64_t s[4];
};

enum sim_rng_kind {
	SIM_RNG_WORKLOAD = 1,
	SIM_RNG_DISPATCH = 2,
	SIM_RNG_FAULT = 3,
	SIM_RNG_MACHINE = 4, /* a cpu's machine noise: jitter, arbitration */
	SIM_RNG_IRQ = 5,     /* a cpu's interrupts: tick phase, arrivals */
	SIM_RNG_MEMORY = 6, /* a cpu's weak memory: store delays, early loads */
};

void sim_rng_init(struct sim_rng *r, uint64_t seed, uint32_t kind, uint32_t id);
uint64_t sim_rng_next(struct sim_rng *r);
/* Uniform in [0, n), unbiased; n > 0. */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t n);
/* Uniform in [0, 1) with 53 bits. */
double sim_rng_unit(struct sim_rng *r);

#endif

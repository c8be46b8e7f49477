/* SPDX-License-Identifier: MIT */
/*
 * Coroutines: every simulated vCPU runs real C code on its own stack.
 *
 * Stacks are mmap'ed with a guard page below, so an overflow faults instead
 * of corrupting a neighbour.  The switch is a few instructions of assembly
 * on x86-64 (the callee-saved registers only); other
 * hosts fall back to ucontext.  Under AddressSanitizer every switch is
 * announced with __sanitizer_{start,finish}_switch_fiber; under valgrind
 * every stack is registered.  Design notes: docs/design.md, "Coroutines".
 *
 * Three kinds of switch exist: the engine resumes a coroutine
 * (sim_coro_resume), a coroutine yields back to the engine
 * (sim_coro_yield), and a coroutine hands the host CPU straight to the
 * next one (sim_coro_transfer).  Functions that may end up in sim_coro_yield are
 * marked coroutine_fn.
 */
#ifndef QSIM_SIM_CORO_H
#define QSIM_SIM_CORO_H

#include "sim/types.h"

#define coroutine_fn /* may switch coroutines */

struct sim_coro;
typedef void (*sim_coro_fn)(void *arg);

/* Create a coroutine that will run fn(arg) on a fresh stack. */
struct sim_coro *sim_coro_create(sim_coro_fn fn, void *arg, size_t stack_bytes);
void sim_coro_destroy(struct sim_coro *co);
/* Run @co until it yields or finishes.  Called from the main context. */
void sim_coro_resume(struct sim_coro *co);
/* From inside a coroutine: go back to the main context. */
void coroutine_fn sim_coro_yield(void);
/* From inside a coroutine: switch straight to another one, which later
 * yields to main or transfers back; saves a switch through main. */
void coroutine_fn sim_coro_transfer(struct sim_coro *to);
bool sim_coro_finished(const struct sim_coro *co);
struct sim_coro *sim_coro_self(void);
/* Name of the switch implementation, for the benchmark and --version. */
const char *sim_coro_impl(void);

/*
 * Checkpoints: a copy of a running coroutine's live stack, from which it
 * can be resumed again later, as if sim_coro_checkpoint returned a second
 * time (a stack-copying continuation).  The coroutine must not have
 * changed anything else that matters meanwhile: the caller restores the
 * rest of its state.  Only with the x86-64 switch and without
 * AddressSanitizer (sim_coro_can_checkpoint).
 */
struct sim_coro_ckpt {
	void *buf;
	size_t cap, len;
	void *sp;
	bool rewound; /* set by sim_coro_rewind, cleared on return */
};

bool sim_coro_can_checkpoint(void);
/* Take one (inside the running coroutine): false on the first return,
 * true when it returns again after a rewind. */
bool coroutine_fn sim_coro_checkpoint(struct sim_coro_ckpt *ck);
/* Rewind suspended @co to @ck: its next resume returns from the
 * sim_coro_checkpoint that took @ck. */
void sim_coro_rewind(struct sim_coro *co, struct sim_coro_ckpt *ck);
/* From inside the coroutine that took @ck: abandon the current frames
 * and return from that sim_coro_checkpoint again (true). */
__attribute__((noreturn)) void coroutine_fn
sim_coro_jump(struct sim_coro_ckpt *ck);
void sim_coro_ckpt_free(struct sim_coro_ckpt *ck);

/* The address just above @co's stack. */
const void *sim_coro_stack_top(const struct sim_coro *co);
/*
 * Call fn(frame), frame being where the caller's state begins on the
 * stack: its callee-saved registers, pushed, then its return address and
 * frames.  Two calls from the same state see equal bytes from frame to
 * the stack top.  Where there is no such switch (sim_coro_has_frames
 * false: ASan, ucontext) frame is NULL.
 */
void sim_coro_frame_call(void (*fn)(const void *frame));
bool sim_coro_has_frames(void);

#endif

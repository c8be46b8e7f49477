// SPDX-License-Identifier: MIT
/*
 * Coroutine switching; see coro.h.  The x86-64 switcher saves what the
 * SysV ABI makes callee-saved and nothing else: a switch is a call, so the
 * caller-saved registers are already dead.
 */
#include <glib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/coro.h"

#if defined(__SANITIZE_ADDRESS__)
#define QSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QSIM_ASAN 1
#endif
#endif

#ifdef QSIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define QSIM_VALGRIND 1
#endif

#if defined(__x86_64__)
#define QSIM_CORO_ASM 1
#else
#include <ucontext.h>
#endif

struct sim_coro {
	sim_coro_fn fn;
	void *arg;
	void *map; /* mmap base, guard page included */
	size_t map_bytes;
	void *stack_lo; /* usable stack bottom */
	size_t stack_bytes;
	bool finished;
#ifdef QSIM_CORO_ASM
	void *sp; /* saved stack pointer while suspended */
#else
	ucontext_t uc;
#endif
#ifdef QSIM_VALGRIND
	unsigned int vg_id;
#endif
};

/* The main (engine) context and which coroutine runs now. */
static __thread struct sim_coro *current;
#ifdef QSIM_CORO_ASM
static __thread void *main_sp;
#else
static __thread ucontext_t main_uc;
#endif
#ifdef QSIM_ASAN
static __thread const void *main_stack_lo;
static __thread size_t main_stack_bytes;
static __thread void *asan_fake_main;
#endif

#ifdef QSIM_CORO_ASM
/*
 * sim_coro_switch(&save_sp, new_sp): push the callee-saved registers, save
 * rsp, load the other stack, pop, return into it.  The MXCSR and x87
 * control words are not switched: nothing in qsim changes them, and
 * saving them cost a third of the switch (docs/performance.md).
 * A new stack is prepared by coro_prepare_stack() to look exactly like a
 * suspended one whose return address is sim_coro_trampoline.
 */
void sim_coro_switch(void **save_sp, void *new_sp);
void sim_coro_trampoline(void);
__asm__(".text\n"
	".globl sim_coro_switch\n"
	".type sim_coro_switch,@function\n"
	"sim_coro_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size sim_coro_switch,.-sim_coro_switch\n"
	".globl sim_coro_trampoline\n"
	".type sim_coro_trampoline,@function\n"
	"sim_coro_trampoline:\n"
	"	movq %r12, %rdi\n"
	"	callq *%r13\n"
	"	ud2\n"
	".size sim_coro_trampoline,.-sim_coro_trampoline\n"
	".section .note.GNU-stack,\"\",@progbits\n"
	".text\n");
#endif

const char *sim_coro_impl(void)
{
#ifdef QSIM_CORO_ASM
	return "x86_64-asm";
#else
	return "ucontext";
#endif
}

static void coro_entry(void *p);

/* Was the latest switch into a coroutine made by the main context? */
static __thread bool from_main;

/* Inside a coroutine after a switch: learn the main stack's bounds. */
static void asan_finish(void *fake)
{
#ifdef QSIM_ASAN
	if (from_main)
		__sanitizer_finish_switch_fiber(fake, &main_stack_lo,
						&main_stack_bytes);
	else
		__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
	(void)fake;
#endif
}

#ifdef QSIM_CORO_ASM
static void coro_prepare_stack(struct sim_coro *co)
{
	uint64_t *sp = (uint64_t *)((char *)co->stack_lo + co->stack_bytes);

	/* After "ret" pops the trampoline address, rsp is 16-byte aligned. */
	*--sp = (uint64_t)(uintptr_t)sim_coro_trampoline;
	*--sp = 0;				 /* rbp */
	*--sp = 0;				 /* rbx */
	*--sp = (uint64_t)(uintptr_t)co;	 /* r12: argument */
	*--sp = (uint64_t)(uintptr_t)coro_entry; /* r13: entry */
	*--sp = 0;				 /* r14 */
	*--sp = 0;				 /* r15 */
	co->sp = sp;
}
#else
static void coro_uc_entry(unsigned int hi, unsigned int lo)
{
	coro_entry((void *)(((uintptr_t)hi << 32) | lo));
}
#endif

struct sim_coro *sim_coro_create(sim_coro_fn fn, void *arg, size_t stack_bytes)
{
	struct sim_coro *co = g_new0(struct sim_coro, 1);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	stack_bytes = (stack_bytes + page - 1) & ~(page - 1);
	co->fn = fn;
	co->arg = arg;
	co->map_bytes = stack_bytes + page;
	co->map = mmap(NULL, co->map_bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	QSIM_BUG_ON(co->map == MAP_FAILED, "mmap of a %zu byte stack failed",
		    co->map_bytes);
	/* The guard page: an overflow is a clear SIGSEGV. */
	QSIM_BUG_ON(mprotect(co->map, page, PROT_NONE) != 0);
	co->stack_lo = (char *)co->map + page;
	co->stack_bytes = stack_bytes;
#ifdef QSIM_ASAN
	/* The range may have held an abandoned fiber's poisoned frames. */
	__asan_unpoison_memory_region(co->stack_lo, stack_bytes);
#endif
#ifdef QSIM_VALGRIND
	co->vg_id = VALGRIND_STACK_REGISTER(co->stack_lo,
					    (char *)co->stack_lo + stack_bytes);
#endif
#ifdef QSIM_CORO_ASM
	coro_prepare_stack(co);
#else
	QSIM_BUG_ON(getcontext(&co->uc) != 0);
	co->uc.uc_stack.ss_sp = co->stack_lo;
	co->uc.uc_stack.ss_size = stack_bytes;
	co->uc.uc_link = NULL;
	makecontext(&co->uc, (void (*)(void))coro_uc_entry, 2,
		    (unsigned int)((uintptr_t)co >> 32),
		    (unsigned int)(uintptr_t)co);
#endif
	return co;
}

void sim_coro_destroy(struct sim_coro *co)
{
	if (!co)
		return;
	QSIM_BUG_ON(co == current, "destroying the running coroutine");
#ifdef QSIM_VALGRIND
	VALGRIND_STACK_DEREGISTER(co->vg_id);
#endif
#ifdef QSIM_ASAN
	/* A coroutine abandoned mid-run leaves poisoned frames behind. */
	__asan_unpoison_memory_region(co->stack_lo, co->stack_bytes);
#endif
	munmap(co->map, co->map_bytes);
	g_free(co);
}

bool sim_coro_finished(const struct sim_coro *co)
{
	return co->finished;
}

struct sim_coro *sim_coro_self(void)
{
	return current;
}

static void coro_entry(void *p)
{
	struct sim_coro *co = p;

	asan_finish(NULL);
	co->fn(co->arg);
	co->finished = true;
	/* Never resumed again: tell ASan to drop this fiber's fake stack. */
#ifdef QSIM_ASAN
	__sanitizer_start_switch_fiber(NULL, main_stack_lo, main_stack_bytes);
#endif
	current = NULL;
#ifdef QSIM_CORO_ASM
	{
		void *dead_sp;

		sim_coro_switch(&dead_sp, main_sp);
	}
#else
	setcontext(&main_uc);
#endif
	__builtin_unreachable();
}

void sim_coro_resume(struct sim_coro *co)
{
	QSIM_BUG_ON(current != NULL, "nested coroutine resume");
	QSIM_BUG_ON(co->finished, "resuming a finished coroutine");
	current = co;
	from_main = true;
#ifdef QSIM_ASAN
	__sanitizer_start_switch_fiber(&asan_fake_main, co->stack_lo,
				       co->stack_bytes);
#endif
#ifdef QSIM_CORO_ASM
	sim_coro_switch(&main_sp, co->sp);
#else
	QSIM_BUG_ON(swapcontext(&main_uc, &co->uc) != 0);
#endif
#ifdef QSIM_ASAN
	__sanitizer_finish_switch_fiber(asan_fake_main, NULL, NULL);
#endif
}

void coroutine_fn sim_coro_yield(void)
{
	struct sim_coro *co = current;
	void *fake = NULL;

	QSIM_BUG_ON(co == NULL, "yield outside a coroutine");
	current = NULL;
#ifdef QSIM_ASAN
	__sanitizer_start_switch_fiber(&fake, main_stack_lo, main_stack_bytes);
#endif
#ifdef QSIM_CORO_ASM
	sim_coro_switch(&co->sp, main_sp);
#else
	QSIM_BUG_ON(swapcontext(&co->uc, &main_uc) != 0);
#endif
	asan_finish(fake);
}

/* --- checkpoints --- */

#if defined(QSIM_CORO_ASM) && !defined(QSIM_ASAN)
/*
 * A small helper context per thread copies the caller's stack while the
 * caller is suspended in sim_coro_switch (its registers pushed below its
 * saved sp), then switches straight back.
 */
static __thread void *ckpt_sp;	  /* the helper, suspended */
static __thread void *ckpt_stack; /* its stack */
static __thread struct sim_coro *ckpt_co;
static __thread struct sim_coro_ckpt *ckpt_req;
static __thread bool ckpt_jump; /* restore the request and go there */

static void ckpt_helper(void)
{
	for (;;) {
		struct sim_coro *co = ckpt_co;
		struct sim_coro_ckpt *ck = ckpt_req;
		char *top = (char *)co->stack_lo + co->stack_bytes;
		size_t len = (size_t)(top - (char *)co->sp);

		if (ckpt_jump) {
			ckpt_jump = false;
			memcpy(ck->sp, ck->buf, ck->len);
			ck->rewound = true;
			sim_coro_switch(&ckpt_sp, ck->sp);
			continue;
		}
		if (len > ck->cap) {
			ck->cap = len * 2;
			ck->buf = g_realloc(ck->buf, ck->cap);
		}
		memcpy(ck->buf, co->sp, len);
		ck->len = len;
		ck->sp = co->sp;
		sim_coro_switch(&ckpt_sp, co->sp);
	}
}

static void ckpt_init(void)
{
	size_t bytes = 64 << 10;
	uint64_t *sp;

	ckpt_stack = g_malloc(bytes);
	/* "ret" enters ckpt_helper as a call would: a (never used) return
	 * address on top, so rsp + 8 is 16-byte aligned. */
	sp = (uint64_t *)(((uintptr_t)ckpt_stack + bytes) & ~(uintptr_t)15);
	*--sp = 0;
	*--sp = (uint64_t)(uintptr_t)ckpt_helper;
	for (int i = 0; i < 6; i++)
		*--sp = 0; /* rbp rbx r12 r13 r14 r15 */
	ckpt_sp = sp;
}

bool sim_coro_can_checkpoint(void)
{
	return true;
}

bool coroutine_fn sim_coro_checkpoint(struct sim_coro_ckpt *ck)
{
	struct sim_coro *co = current;

	QSIM_BUG_ON(co == NULL, "checkpoint outside a coroutine");
	if (!ckpt_sp)
		ckpt_init();
	ck->rewound = false;
	ckpt_co = co;
	ckpt_req = ck;
	sim_coro_switch(&co->sp, ckpt_sp);
	/* Back from the helper, or resumed after a rewind. */
	if (ck->rewound) {
		ck->rewound = false;
		return true;
	}
	return false;
}

void sim_coro_rewind(struct sim_coro *co, struct sim_coro_ckpt *ck)
{
	QSIM_BUG_ON(co == current, "rewinding the running coroutine");
	memcpy(ck->sp, ck->buf, ck->len);
	co->sp = ck->sp;
	ck->rewound = true;
}

void coroutine_fn sim_coro_jump(struct sim_coro_ckpt *ck)
{
	struct sim_coro *co = current;
	void *abandoned;

	QSIM_BUG_ON(co == NULL, "jump outside a coroutine");
	if (!ckpt_sp)
		ckpt_init();
	ckpt_co = co;
	ckpt_req = ck;
	ckpt_jump = true;
	/* The helper copies the frames back on its own stack: ours are
	 * overwritten, never returned to. */
	sim_coro_switch(&abandoned, ckpt_sp);
	__builtin_unreachable();
}
#else
bool sim_coro_can_checkpoint(void)
{
	return false;
}

bool coroutine_fn sim_coro_checkpoint(struct sim_coro_ckpt *ck)
{
	(void)ck;
	QSIM_BUG_ON(1, "coroutine checkpoints need the x86-64 switch");
	return false;
}

void sim_coro_rewind(struct sim_coro *co, struct sim_coro_ckpt *ck)
{
	(void)co;
	(void)ck;
	QSIM_BUG_ON(1, "coroutine checkpoints need the x86-64 switch");
}

void coroutine_fn sim_coro_jump(struct sim_coro_ckpt *ck)
{
	(void)ck;
	QSIM_BUG_ON(1, "coroutine checkpoints need the x86-64 switch");
	__builtin_unreachable();
}
#endif

void sim_coro_ckpt_free(struct sim_coro_ckpt *ck)
{
	g_free(ck->buf);
	memset(ck, 0, sizeof(*ck));
}

void coroutine_fn sim_coro_transfer(struct sim_coro *to)
{
	struct sim_coro *co = current;
	void *fake = NULL;

	QSIM_BUG_ON(co == NULL || to == co || to->finished,
		    "bad coroutine transfer");
	current = to;
	from_main = false;
#ifdef QSIM_ASAN
	__sanitizer_start_switch_fiber(&fake, to->stack_lo, to->stack_bytes);
#endif
#ifdef QSIM_CORO_ASM
	sim_coro_switch(&co->sp, to->sp);
#else
	QSIM_BUG_ON(swapcontext(&co->uc, &to->uc) != 0);
#endif
	asan_finish(fake);
}

const void *sim_coro_stack_top(const struct sim_coro *co)
{
	return (const char *)co->stack_lo + co->stack_bytes;
}

#if defined(QSIM_CORO_ASM) && !defined(QSIM_ASAN)
/*
 * sim_coro_frame_call(fn): push the callee-saved registers, then call
 * fn(frame) with frame the stack pointer: [frame, stack top) is then the
 * caller's whole state (its registers, its return address, its frames).
 */
__asm__(".text\n"
	".globl sim_coro_frame_call\n"
	".type sim_coro_frame_call,@function\n"
	"sim_coro_frame_call:\n"
	"\tmovq %rdi, %rax\n"
	"\tpushq %rbx\n"
	"\tpushq %rbp\n"
	"\tpushq %r12\n"
	"\tpushq %r13\n"
	"\tpushq %r14\n"
	"\tpushq %r15\n"
	"\tmovq %rsp, %rdi\n"
	"\tsubq $8, %rsp\n"
	"\tcall *%rax\n"
	"\taddq $8, %rsp\n"
	"\tpopq %r15\n"
	"\tpopq %r14\n"
	"\tpopq %r13\n"
	"\tpopq %r12\n"
	"\tpopq %rbp\n"
	"\tpopq %rbx\n"
	"\tret\n"
	".size sim_coro_frame_call, .-sim_coro_frame_call\n");

bool sim_coro_has_frames(void)
{
	return true;
}
#else
void sim_coro_frame_call(void (*fn)(const void *frame))
{
	fn(NULL);
}

bool sim_coro_has_frames(void)
{
	return false;
}
#endif

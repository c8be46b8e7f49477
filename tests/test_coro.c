// SPDX-License-Identifier: MIT
/*
 * Coroutines: switching, interleaving, deep stacks, the guard page.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/coro.h"
#include "tests/testutil.h"

static int trace[16];
static int ntrace;

static void body(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < 3; i++) {
		trace[ntrace++] = id * 10 + i;
		sim_coro_yield();
	}
}

START_TEST(test_interleave)
{
	struct sim_coro *a = sim_coro_create(body, (void *)1, 64 << 10);
	struct sim_coro *b = sim_coro_create(body, (void *)2, 64 << 10);
	static const int want[] = {10, 20, 11, 21, 12, 22};

	ntrace = 0;
	for (int i = 0; i < 4; i++) {
		sim_coro_resume(a);
		sim_coro_resume(b);
	}
	ck_assert_int_eq(ntrace, 6);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(trace[i], want[i]);
	ck_assert(sim_coro_finished(a));
	ck_assert(sim_coro_finished(b));
	ck_assert_ptr_null(sim_coro_self());
	sim_coro_destroy(a);
	sim_coro_destroy(b);
}
END_TEST

static int depth_reached;

static int recurse(int n)
{
	volatile char pad[512];

	pad[0] = (char)n;
	if (n == 0)
		return pad[0];
	return recurse(n - 1) + pad[0];
}

static void deep(void *arg)
{
	int n = (int)(intptr_t)arg;

	depth_reached = recurse(n) >= 0 ? n : -1;
	sim_coro_yield();
}

START_TEST(test_deep_stack_fits)
{
	struct sim_coro *c = sim_coro_create(deep, (void *)80, 64 << 10);

	depth_reached = 0;
	sim_coro_resume(c);
	ck_assert_int_eq(depth_reached, 80);
	sim_coro_destroy(c);
}
END_TEST

#ifndef __SANITIZE_ADDRESS__
/* An overflow must hit the guard page and die, not corrupt memory. */
START_TEST(test_guard_page)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sim_coro *c =
			sim_coro_create(deep, (void *)100000, 16 << 10);

		signal(SIGSEGV, SIG_DFL);
		sim_coro_resume(c);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status), "overflow did not fault");
}
END_TEST
#endif

/*
 * A checkpoint taken inside a coroutine: after it the coroutine changes
 * its locals and yields; rewound, it returns from the checkpoint again
 * with the locals as they were, and can be rewound any number of times.
 */
static struct sim_coro_ckpt CK;
static int ck_trace[8];
static int ck_n;

static void ck_body(void *arg)
{
	volatile int local = 10;
	bool again;

	(void)arg;
	local += 5;
	again = sim_coro_checkpoint(&CK);
	ck_trace[ck_n++] = local * (again ? -1 : 1);
	local += 100; /* what a rewind must undo */
	sim_coro_yield();
	ck_trace[ck_n++] = local;
	sim_coro_yield();
}

START_TEST(test_checkpoint_rewind)
{
	struct sim_coro *co;

	if (!sim_coro_can_checkpoint())
		return; /* ucontext or ASan builds: not offered */
	co = sim_coro_create(ck_body, NULL, 64 << 10);
	ck_n = 0;
	sim_coro_resume(co); /* 15, first return */
	sim_coro_rewind(co, &CK);
	sim_coro_resume(co); /* -15: returned again, local restored */
	sim_coro_rewind(co, &CK);
	sim_coro_resume(co); /* -15 once more */
	sim_coro_resume(co); /* 115: runs on after the checkpoint */
	ck_assert_int_eq(ck_n, 4);
	ck_assert_int_eq(ck_trace[0], 15);
	ck_assert_int_eq(ck_trace[1], -15);
	ck_assert_int_eq(ck_trace[2], -15);
	ck_assert_int_eq(ck_trace[3], 115);
	sim_coro_resume(co);
	ck_assert(sim_coro_finished(co));
	sim_coro_destroy(co);
	sim_coro_ckpt_free(&CK);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("coro");
	TCase *tc = tcase_create("coro");

	tcase_add_test(tc, test_interleave);
	tcase_add_test(tc, test_checkpoint_rewind);
	tcase_add_test(tc, test_deep_stack_fits);
#ifndef __SANITIZE_ADDRESS__
	/* ASan reports the overflow itself; the fault is tested without it. */
	tcase_add_test(tc, test_guard_page);
#endif
	suite_add_tcase(s, tc);
	return tu_run(s);
}

// SPDX-License-Identifier: MIT
/*
 * The statistics of `qsim compare` against values worked out by hand and
 * against printed tables of Student's t (two-sided 95%: the 0.975
 * quantile; e.g. NIST/SEMATECH e-Handbook of Statistical Methods, table
 * 1.3.6.7.2).
 */
#include <math.h>

#include "tests/testutil.h"
#include "tools/stats.h"

START_TEST(test_t_table)
{
	/* df: the 0.975 quantile as tabulated, to 3 decimals */
	static const struct {
		double df, t;
	} tab[] = {
		{1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},   {5, 2.571},
		{9, 2.262},  {10, 2.228}, {30, 2.042}, {100, 1.984},
	};

	for (unsigned int i = 0; i < G_N_ELEMENTS(tab); i++)
		ck_assert_double_eq_tol(stats_t_quantile(0.975, tab[i].df),
					tab[i].t, 0.0006);
	/* far out, the normal's 1.95996 */
	ck_assert_double_eq_tol(stats_t_quantile(0.975, 1e7), 1.95996, 1e-4);
	/* symmetry, and the CDF the quantile inverts */
	ck_assert_double_eq_tol(stats_t_cdf(0, 3.5), 0.5, 1e-12);
	ck_assert_double_eq_tol(stats_t_quantile(0.025, 4), -2.776, 0.0006);
	/* t with 1 df is Cauchy: CDF(1) = 1/2 + atan(1)/pi = 0.75 */
	ck_assert_double_eq_tol(stats_t_cdf(1, 1), 0.75, 1e-12);
	/* with 2 df, CDF(t) = 1/2 + t / (2 sqrt(2 + t^2)): at 2, 0.9082483 */
	ck_assert_double_eq_tol(stats_t_cdf(2, 2), 0.5 + 2 / (2 * sqrt(6)),
				1e-12);
}
END_TEST

START_TEST(test_sample)
{
	/* 10, 12, 14: mean 12, squares 4 + 0 + 4 over 2 = 4, sd 2;
	 * interval 4.303 * 2 / sqrt(3) = 4.9687 */
	const double x[] = {10, 12, 14};
	struct stats_sample s;

	stats_sample(x, 3, &s);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_double_eq_tol(s.mean, 12, 1e-12);
	ck_assert_double_eq_tol(s.sd, 2, 1e-12);
	ck_assert_double_eq_tol(s.ci, 4.3027 * 2 / sqrt(3), 1e-3);
	stats_sample(x, 1, &s); /* one value: no interval */
	ck_assert(isnan(s.sd) && isnan(s.ci));
	ck_assert_double_eq(s.mean, 10);
}
END_TEST

START_TEST(test_welch)
{
	/*
	 * A = 10, 12, 14 (sd 2), B = 20, 21, 22 (sd 1).  By hand: diff 9;
	 * variances of the means 4/3 and 1/3, se = sqrt(5/3) = 1.29099;
	 * df = (5/3)^2 / ((4/3)^2 / 2 + (1/3)^2 / 2) = (25/9) / (17/18)
	 * = 50/17 = 2.94118, between the tables' 2 and 3 df.
	 */
	const double a[] = {10, 12, 14}, b[] = {20, 21, 22};
	const double c[] = {11, 12, 13};
	struct stats_sample sa, sb, sc;
	struct stats_diff d;
	double q;

	stats_sample(a, 3, &sa);
	stats_sample(b, 3, &sb);
	stats_welch(&sa, &sb, &d);
	ck_assert(d.defined);
	ck_assert_double_eq_tol(d.diff, 9, 1e-12);
	ck_assert_double_eq_tol(d.df, 50.0 / 17.0, 1e-9);
	q = (d.hi - d.diff) / sqrt(5.0 / 3.0);
	ck_assert_double_eq_tol(d.diff - d.lo, d.hi - d.diff, 1e-9);
	ck_assert(q > 3.182 && q < 4.303);
	ck_assert_double_eq_tol(stats_t_cdf(q, 50.0 / 17.0), 0.975, 1e-9);
	ck_assert(d.significant); /* 9 - 3.3 * 1.29 > 0 */
	/* C = 11, 12, 13 against A: the same mean, nothing to see */
	stats_sample(c, 3, &sc);
	stats_welch(&sa, &sc, &d);
	ck_assert_double_eq_tol(d.diff, 0, 1e-12);
	ck_assert(!d.significant);
	/* one value: undefined */
	stats_sample(c, 1, &sc);
	stats_welch(&sa, &sc, &d);
	ck_assert(!d.defined && !d.significant);
	/* no spread at all: the difference is exact */
	{
		const double e[] = {5, 5}, f[] = {6, 6};
		struct stats_sample se, sf;

		stats_sample(e, 2, &se);
		stats_sample(f, 2, &sf);
		stats_welch(&se, &sf, &d);
		ck_assert(d.significant && d.lo == 1 && d.hi == 1);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");

	tcase_add_test(tc, test_t_table);
	tcase_add_test(tc, test_sample);
	tcase_add_test(tc, test_welch);
	suite_add_tcase(s, tc);
	return tu_run(s);
}

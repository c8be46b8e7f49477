// SPDX-License-Identifier: MIT
/*
 * Duration parsing, formatting and sampling.  Parsing is exact decimal
 * arithmetic in picoseconds, so "2.5us" is 2500000 ps on every host.
 */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/dist.h"

static const struct {
	const char *suffix;
	sim_time_t ps;
} units[] = {
	{"ps", SIM_PS}, {"ns", SIM_NS}, {"us", SIM_US},
	{"ms", SIM_MS}, {"s", SIM_S},
};

bool sim_parse_time(const char *s, sim_time_t *out)
{
	uint64_t whole = 0, frac = 0, frac_div = 1;
	const char *p = s;
	size_t i;

	if (!s || !g_ascii_isdigit(*p))
		return false;
	while (g_ascii_isdigit(*p)) {
		if (whole > UINT64_MAX / 10 - 10)
			return false;
		whole = whole * 10 + (uint64_t)(*p++ - '0');
	}
	if (*p == '.') {
		p++;
		if (!g_ascii_isdigit(*p))
			return false;
		while (g_ascii_isdigit(*p)) {
			if (frac_div >= 1000000000000ULL)
				return false;
			frac = frac * 10 + (uint64_t)(*p++ - '0');
			frac_div *= 10;
		}
	}
	/* Zero needs no unit: "0" is 0ps. */
	if (!*p && !whole && !frac && p == s + 1) {
		*out = 0;
		return true;
	}
	for (i = 0; i < SIM_ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].suffix) == 0) {
			sim_time_t u = units[i].ps;

			if (whole > UINT64_MAX / u)
				return false;
			if ((frac * u) % frac_div)
				return false; /* finer than a picosecond */
			*out = whole * u + frac * u / frac_div;
			return true;
		}
	}
	return false;
}

const char *sim_format_time(sim_time_t t, char *buf, size_t len)
{
	for (int i = (int)SIM_ARRAY_SIZE(units) - 1; i >= 0; i--) {
		sim_time_t u = units[i].ps;

		if (t >= u || i == 0) {
			if (t % u == 0)
				snprintf(buf, len, "%" PRIu64 "%s", t / u,
					 units[i].suffix);
			else
				snprintf(buf, len, "%.3f%s",
					 (double)t / (double)u,
					 units[i].suffix);
			return buf;
		}
	}
	return buf;
}

bool sim_parse_duration(const char *s, struct sim_duration *out)
{
	g_auto(GStrv) parts = NULL;
	guint n;

	if (!s)
		return false;
	parts = g_strsplit(s, ":", -1);
	n = g_strv_length(parts);
	if (n == 1) {
		out->kind = SIM_DIST_FIXED;
		out->b_ps = 0;
		return sim_parse_time(parts[0], &out->a_ps);
	}
	if (n == 2 && strcmp(parts[0], "exp") == 0) {
		out->kind = SIM_DIST_EXP;
		out->b_ps = 0;
		return sim_parse_time(parts[1], &out->a_ps);
	}
	if (n == 3 && strcmp(parts[0], "uniform") == 0) {
		out->kind = SIM_DIST_UNIFORM;
		return sim_parse_time(parts[1], &out->a_ps) &&
		       sim_parse_time(parts[2], &out->b_ps) &&
		       out->a_ps <= out->b_ps;
	}
	return false;
}

const char *sim_format_duration(const struct sim_duration *d, char *buf,
				size_t len)
{
	char a[32], b[32];

	sim_format_time(d->a_ps, a, sizeof(a));
	switch (d->kind) {
	case SIM_DIST_FIXED:
		snprintf(buf, len, "%s", a);
		break;
	case SIM_DIST_EXP:
		snprintf(buf, len, "exp:%s", a);
		break;
	case SIM_DIST_UNIFORM:
		snprintf(buf, len, "uniform:%s:%s", a,
			 sim_format_time(d->b_ps, b, sizeof(b)));
		break;
	}
	return buf;
}

sim_time_t sim_duration_draw(const struct sim_duration *d, struct sim_rng *r)
{
	switch (d->kind) {
	case SIM_DIST_FIXED:
		return d->a_ps;
	case SIM_DIST_EXP: {
		double u = sim_rng_unit(r);

		/* -ln(1-u) in [0, 37]: finite for u in [0, 1). */
		return (sim_time_t)llround(-log1p(-u) * (double)d->a_ps);
	}
	case SIM_DIST_UNIFORM:
		return d->a_ps + sim_rng_below(r, d->b_ps - d->a_ps + 1);
	}
	return d->a_ps;
}

sim_time_t sim_duration_mean(const struct sim_duration *d)
{
	if (d->kind == SIM_DIST_UNIFORM)
		return (d->a_ps + d->b_ps) / 2;
	return d->a_ps;
}

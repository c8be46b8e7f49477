// SPDX-License-Identifier: MIT
/*
 * qsim-kasm: the build step between preprocessing and compiling a kernel
 * file in kernel-tree mode (docs/kernel-tree.md).
 *
 *   qsim-kasm IN.i OUT.c
 *
 * IN.i is a preprocessed translation unit (kernel file plus glue, with
 * line markers).  OUT.c is the same unit with two kinds of construct
 * rewritten; nothing else changes:
 *
 * - Inline assembly.  Each asm statement with a non-empty template is
 *   translated, instruction by instruction, into C on qsim's machine
 *   model: lwarx/stwcx. become a load with a reservation and a store
 *   conditional on the simulated line (the same model as every other
 *   atomic), barriers become their costs, compares and branches become C.
 *   The instruction set is the one powerpc lock code uses; any other
 *   instruction, operand form or constraint stops the build with an error
 *   naming the file, the line, the template and what was not modelled.
 *   Nothing is ever compiled for the host as written.  Empty templates
 *   (compiler barriers) stay as they are.
 * - __qk_cond_pure(expr), which the arch's cond-load macros emit: 1 when
 *   expr's tokens show no side effect (no ++, --, assignment or call), so
 *   the wait may be event-driven; 0 otherwise (the loop runs as written).
 *
 * Exit status 0, or 1 with a message on stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- input: tokens, with the source position from line markers --- */

struct src {
	const char *s;
	size_t n, i;
	char *file; /* the original file of position i */
	long line;  /* its line */
	unsigned int nasm;
};

static void die_at(const struct src *in, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void die_at(const struct src *in, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%ld: error: ", in->file ? in->file : "?", in->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A line marker: # N "file" ... at the start of a line. */
static bool line_marker(struct src *in, GString *out)
{
	size_t j = in->i;
	long n;
	char *end;
	const char *q, *qe;

	if (in->s[j] != '#' || (j > 0 && in->s[j - 1] != '\n'))
		return false;
	j++;
	while (j < in->n && in->s[j] == ' ')
		j++;
	if (j >= in->n || !isdigit((unsigned char)in->s[j]))
		return false;
	n = strtol(in->s + j, &end, 10);
	q = strchr(end, '"');
	qe = q ? strchr(q + 1, '"') : NULL;
	if (q && qe && (size_t)(qe - in->s) < in->n &&
	    !memchr(end, '\n', (size_t)(q - end))) {
		g_free(in->file);
		in->file = g_strndup(q + 1, (size_t)(qe - q - 1));
	}
	in->line = n - 1; /* the newline ending the marker counts one */
	end = memchr(in->s + j, '\n', in->n - j);
	j = end ? (size_t)(end - in->s) : in->n;
	if (out)
		g_string_append_len(out, in->s + in->i, (gssize)(j - in->i));
	in->i = j;
	return true;
}

enum tok_kind { T_EOF, T_ID, T_STR, T_CHR, T_NUM, T_PUNCT };

struct tok {
	enum tok_kind kind;
	size_t at, len;
};

static size_t skip_quoted(const struct src *in, size_t j, char q)
{
	for (j++; j < in->n && in->s[j] != q; j++)
		if (in->s[j] == '\\')
			j++;
	return j + 1;
}

/* The next token from in->i, copying whitespace and markers to @out. */
static struct tok next_tok(struct src *in, GString *out)
{
	static const char *const puncts[] = {
		"<<=", ">>=", "...", "->", "++", "--", "<<", ">>",
		"<=",  ">=",  "==",  "!=", "&&", "||", "*=", "/=",
		"%=",  "+=",  "-=",  "&=", "^=", "|=", "##", NULL};
	struct tok t = {T_EOF, 0, 0};
	const char *s = in->s;
	size_t j;

	for (;;) {
		if (in->i >= in->n)
			return t;
		if (line_marker(in, out))
			continue;
		if (s[in->i] == '\n')
			in->line++;
		if (!isspace((unsigned char)s[in->i]))
			break;
		if (out)
			g_string_append_c(out, s[in->i]);
		in->i++;
	}
	j = in->i;
	t.at = j;
	if (isalpha((unsigned char)s[j]) || s[j] == '_') {
		while (j < in->n &&
		       (isalnum((unsigned char)s[j]) || s[j] == '_'))
			j++;
		t.kind = T_ID;
	} else if (isdigit((unsigned char)s[j]) ||
		   (s[j] == '.' && isdigit((unsigned char)s[j + 1]))) {
		while (j < in->n &&
		       (isalnum((unsigned char)s[j]) || s[j] == '.' ||
			((s[j] == '+' || s[j] == '-') &&
			 (s[j - 1] == 'e' || s[j - 1] == 'E' ||
			  s[j - 1] == 'p' || s[j - 1] == 'P'))))
			j++;
		t.kind = T_NUM;
	} else if (s[j] == '"') {
		j = skip_quoted(in, j, '"');
		t.kind = T_STR;
	} else if (s[j] == '\'') {
		j = skip_quoted(in, j, '\'');
		t.kind = T_CHR;
	} else {
		size_t k;

		t.kind = T_PUNCT;
		for (k = 0; puncts[k]; k++)
			if (!strncmp(s + j, puncts[k], strlen(puncts[k])))
				break;
		j += puncts[k] ? strlen(puncts[k]) : 1;
	}
	t.len = j - t.at;
	in->i = j;
	return t;
}

static bool tok_is(const struct src *in, struct tok t, const char *w)
{
	return t.len == strlen(w) && !strncmp(in->s + t.at, w, t.len);
}

static char *tok_str(const struct src *in, struct tok t)
{
	return g_strndup(in->s + t.at, t.len);
}

/* The tokens of a parenthesised group whose '(' was just read. */
static GArray *group(struct src *in)
{
	GArray *toks = g_array_new(FALSE, FALSE, sizeof(struct tok));
	int depth = 1;

	for (;;) {
		struct tok t = next_tok(in, NULL);

		if (t.kind == T_EOF)
			die_at(in, "unbalanced parentheses");
		if (t.kind == T_PUNCT && tok_is(in, t, "("))
			depth++;
		if (t.kind == T_PUNCT && tok_is(in, t, ")") && --depth == 0)
			return toks;
		g_array_append_val(toks, t);
	}
}

/* --- __qk_cond_pure --- */

static bool cond_pure(const struct src *in, GArray *toks)
{
	static const char *const side[] = {
		"++", "--", "=",  "+=", "-=",  "*=",  "/=",
		"%=", "&=", "|=", "^=", "<<=", ">>=", NULL};
	static const char *const not_calls[] = {"sizeof",
						"__typeof__",
						"typeof",
						"__alignof__",
						"__builtin_expect",
						"_Alignof",
						"__builtin_constant_p",
						"if",
						"while",
						"for",
						"switch",
						"return",
						NULL};

	for (guint i = 0; i < toks->len; i++) {
		struct tok t = g_array_index(toks, struct tok, i);

		if (t.kind == T_PUNCT)
			for (int k = 0; side[k]; k++)
				if (tok_is(in, t, side[k]))
					return false;
		if (t.kind == T_ID && i + 1 < toks->len &&
		    tok_is(in, g_array_index(toks, struct tok, i + 1), "(")) {
			bool call = true;

			for (int k = 0; not_calls[k]; k++)
				if (tok_is(in, t, not_calls[k]))
					call = false;
			if (call)
				return false;
		}
	}
	return true;
}

/* --- asm statements --- */

struct operand {
	char *name;	  /* [name], or NULL */
	char *constraint; /* without modifiers */
	char *expr;
	bool output, inout, imm;
	int tied; /* an input tied to output N ("0"), else -1 */
};

struct asm_stmt {
	GString *tmpl;
	GPtrArray *ops; /* struct operand *, outputs first */
	unsigned int nout;
	GString *clobbers;
	char *file;
	long line;
};

static void op_free(gpointer p)
{
	struct operand *o = p;

	g_free(o->name);
	g_free(o->constraint);
	g_free(o->expr);
	g_free(o);
}

/* Concatenated string literals, C escapes decoded. */
static void append_string(const struct src *in, struct tok t, GString *s)
{
	const char *p = in->s + t.at + 1, *e = in->s + t.at + t.len - 1;

	while (p < e) {
		if (*p != '\\') {
			g_string_append_c(s, *p++);
			continue;
		}
		p++;
		switch (*p) {
		case 'n':
			g_string_append_c(s, '\n');
			break;
		case 't':
			g_string_append_c(s, '\t');
			break;
		case '\\':
		case '"':
		case '\'':
			g_string_append_c(s, *p);
			break;
		default:
			die_at(in, "asm template: escape \\%c not modelled",
			       *p);
		}
		p++;
	}
}

static char *join_toks(const struct src *in, GArray *toks, guint a, guint b)
{
	GString *s = g_string_new(NULL);

	for (guint i = a; i < b; i++) {
		struct tok t = g_array_index(toks, struct tok, i);

		if (s->len)
			g_string_append_c(s, ' ');
		g_string_append_len(s, in->s + t.at, (gssize)t.len);
	}
	return g_string_free(s, FALSE);
}

/* Split the asm's group at top-level ':' and its operand lists at ','. */
static void parse_asm(struct src *in, GArray *toks, struct asm_stmt *a)
{
	guint sect_start[5] = {0}, nsect = 1, depth = 0;

	for (guint i = 0; i < toks->len; i++) {
		struct tok t = g_array_index(toks, struct tok, i);

		if (tok_is(in, t, "(") || tok_is(in, t, "[") ||
		    tok_is(in, t, "{"))
			depth++;
		else if (tok_is(in, t, ")") || tok_is(in, t, "]") ||
			 tok_is(in, t, "}"))
			depth--;
		else if (!depth && tok_is(in, t, ":")) {
			if (nsect == 4)
				die_at(in, "asm goto is not modelled");
			sect_start[nsect++] = i + 1;
		}
	}
	sect_start[nsect] = toks->len + 1;
	a->tmpl = g_string_new(NULL);
	for (guint i = 0;
	     i + 1 < sect_start[1] || (nsect == 1 && i < toks->len); i++) {
		struct tok t = g_array_index(toks, struct tok, i);

		if (t.kind != T_STR)
			die_at(in, "asm template is not a string literal");
		append_string(in, t, a->tmpl);
	}
	a->ops = g_ptr_array_new_with_free_func(op_free);
	a->clobbers = g_string_new(NULL);
	for (guint sect = 1; sect < nsect; sect++) {
		guint lo = sect_start[sect], hi = sect_start[sect + 1] - 1;
		guint i = lo;

		while (i < hi) {
			struct operand *o;
			struct tok t;
			GString *c;
			guint e, d = 0;

			if (sect == 3) { /* clobbers */
				t = g_array_index(toks, struct tok, i);
				if (t.kind == T_STR) {
					char *cs = tok_str(in, t);

					g_string_append_printf(a->clobbers,
							       "%s ", cs);
					g_free(cs);
				}
				i++;
				continue;
			}
			o = g_new0(struct operand, 1);
			o->tied = -1;
			o->output = sect == 1;
			t = g_array_index(toks, struct tok, i);
			if (tok_is(in, t, "[")) {
				o->name = tok_str(
					in,
					g_array_index(toks, struct tok, i + 1));
				i += 3;
				t = g_array_index(toks, struct tok, i);
			}
			if (t.kind != T_STR)
				die_at(in, "asm operand without a constraint");
			c = g_string_new(NULL);
			append_string(in, t, c);
			i++;
			/* ( expr ) */
			t = g_array_index(toks, struct tok, i);
			if (!tok_is(in, t, "("))
				die_at(in, "asm operand without (expression)");
			for (e = i; e < hi; e++) {
				t = g_array_index(toks, struct tok, e);
				if (tok_is(in, t, "("))
					d++;
				else if (tok_is(in, t, ")") && --d == 0)
					break;
			}
			o->expr = join_toks(in, toks, i + 1, e);
			i = e + 1;
			if (i < hi &&
			    tok_is(in, g_array_index(toks, struct tok, i), ","))
				i++;
			/* constraint: modifiers, then one letter or digit */
			{
				const char *p = c->str;

				while (*p == '=' || *p == '+' || *p == '&') {
					if (*p == '+')
						o->inout = true;
					p++;
				}
				o->constraint = g_strdup(p);
			}
			g_string_free(c, TRUE);
			if (!strcmp(o->constraint, "r") ||
			    !strcmp(o->constraint, "b"))
				;
			else if (!o->output && (!strcmp(o->constraint, "i") ||
						!strcmp(o->constraint, "n") ||
						!strcmp(o->constraint, "I")))
				o->imm = true;
			else if (!o->output &&
				 isdigit((unsigned char)o->constraint[0]) &&
				 !o->constraint[1])
				o->tied = o->constraint[0] - '0';
			else
				die_at(in,
				       "asm operand constraint \"%s\" is not "
				       "modelled (template \"%s\")",
				       o->constraint, a->tmpl->str);
			if (o->output)
				a->nout++;
			g_ptr_array_add(a->ops, o);
		}
	}
}

/* --- the instruction model --- */

struct xlate {
	struct src *in;
	struct asm_stmt *a;
	GString *c; /* the C being generated */
	unsigned int id;
	/* local labels: definitions in order */
	GArray *label_num, *label_line;
	unsigned int line_no; /* of the instruction being translated */
	const char *insn;     /* for messages */
};

static void bad(struct xlate *x, const char *what) __attribute__((noreturn));

static void bad(struct xlate *x, const char *what)
{
	die_at(x->in,
	       "asm not modelled: %s in \"%s\"\n"
	       "  the whole template: \"%s\"\n"
	       "  qsim models the instructions of powerpc lock code "
	       "(docs/kernel-tree.md, \"What the build does\", item 3, "
	       "\"Inline asm, fail-closed\"); add a model in "
	       "tools/kasm.c",
	       what, x->insn, x->a->tmpl->str);
}

static int op_index(struct xlate *x, const char *tok)
{
	if (tok[0] != '%')
		return -1;
	if (tok[1] == '[') {
		size_t n = strcspn(tok + 2, "]");

		for (guint i = 0; i < x->a->ops->len; i++) {
			struct operand *o = g_ptr_array_index(x->a->ops, i);

			if (o->name && strlen(o->name) == n &&
			    !strncmp(o->name, tok + 2, n))
				return (int)i;
		}
		bad(x, "an unknown named operand");
	}
	if (isdigit((unsigned char)tok[1])) {
		int i = atoi(tok + 1);

		if (i < 0 || (guint)i >= x->a->ops->len)
			bad(x, "an operand number out of range");
		return i;
	}
	bad(x, "an operand modifier");
}

/* A register operand: the C variable holding it. */
static char *reg(struct xlate *x, const char *tok)
{
	int i = op_index(x, tok);
	struct operand *o;

	if (i < 0)
		bad(x, "a literal register (only %N operands are modelled)");
	o = g_ptr_array_index(x->a->ops, i);
	if (o->imm)
		bad(x, "an immediate operand used as a register");
	if (o->tied >= 0)
		i = o->tied;
	return g_strdup_printf("__qk_r%d", i);
}

/* RA of an indexed form: literal 0 means zero, else a register. */
static char *reg0(struct xlate *x, const char *tok)
{
	if (!strcmp(tok, "0"))
		return g_strdup("0");
	return reg(x, tok);
}

/* An immediate: a number, or an "i" operand. */
static char *imm(struct xlate *x, const char *tok)
{
	int i;
	char *end;

	if (tok[0] != '%') {
		errno = 0;
		(void)strtoll(tok, &end, 0);
		if (errno || *end)
			bad(x, "an immediate that is not a number");
		return g_strdup_printf("((int64_t)(%s))", tok);
	}
	i = op_index(x, tok);
	if (!((struct operand *)g_ptr_array_index(x->a->ops, i))->imm)
		bad(x, "a register operand used as an immediate");
	return g_strdup_printf(
		"((int64_t)(%s))",
		((struct operand *)g_ptr_array_index(x->a->ops, i))->expr);
}

static void set_cr0(struct xlate *x, const char *r)
{
	g_string_append_printf(x->c,
			       "__qk_lt = (int64_t)%s < 0; "
			       "__qk_gt = (int64_t)%s > 0; "
			       "__qk_eq = %s == 0;\n",
			       r, r, r);
}

static const char *label_of(struct xlate *x, const char *ref)
{
	static char buf[64];
	char *end;
	long n = strtol(ref, &end, 10);
	int found = -1;

	if (end == ref || (strcmp(end, "b") && strcmp(end, "f")))
		bad(x, "a branch target that is not a local label (Nb, Nf)");
	for (guint i = 0; i < x->label_num->len; i++) {
		unsigned int ln = g_array_index(x->label_line, unsigned int, i);

		if (g_array_index(x->label_num, long, i) != n)
			continue;
		if (!strcmp(end, "b") && ln <= x->line_no)
			found = (int)i;
		if (!strcmp(end, "f") && ln > x->line_no) {
			found = (int)i;
			break;
		}
	}
	if (found < 0)
		bad(x, "a branch to a label that is not there");
	snprintf(buf, sizeof(buf), "__qk_asm%u_L%d", x->id, found);
	return buf;
}

static void cond_branch(struct xlate *x, const char *cond, char **args,
			int nargs)
{
	const char *target;

	if (nargs == 2) {
		if (strcmp(args[0], "cr0") && strcmp(args[0], "0"))
			bad(x, "a branch on a CR field other than cr0");
		target = label_of(x, args[1]);
	} else if (nargs == 1) {
		target = label_of(x, args[0]);
	} else {
		bad(x, "a branch without one target");
	}
	g_string_append_printf(x->c, "if (%s) goto %s;\n", cond, target);
}

/* The compare field must be cr0. */
static int cmp_args(struct xlate *x, char **args, int nargs)
{
	if (nargs == 3) {
		if (strcmp(args[0], "0") && strcmp(args[0], "cr0"))
			bad(x, "a compare into a CR field other than cr0");
		return 1;
	}
	if (nargs != 2)
		bad(x, "a compare with other than two operands");
	return 0;
}

static void need(struct xlate *x, int nargs, int n)
{
	if (nargs != n)
		bad(x, "a wrong number of operands");
}

static void insn(struct xlate *x, const char *mn, char **args, int nargs)
{
	GString *c = x->c;
	size_t ml = strlen(mn);
	bool dot = ml > 1 && mn[ml - 1] == '.';
	char *base = g_strndup(mn, dot ? ml - 1 : ml);
	char *r[4] = {NULL};

	/* Hints with literal registers: SMT priority, speculation. */
	if (!strcmp(mn, "or") && nargs == 3 && !strcmp(args[0], args[1]) &&
	    !strcmp(args[1], args[2]) && isdigit((unsigned char)args[0][0])) {
		int n = atoi(args[0]);

		if (n == 1 || n == 31)
			g_string_append(c, "qk->hmt(true);\n");
		else if (n == 2)
			g_string_append(c, "qk->hmt(false);\n");
		else
			bad(x, "an SMT priority hint other than or 1/2/31");
		goto out;
	}
	if (!strcmp(mn, "ori") && nargs == 3 && !strcmp(args[0], "31") &&
	    !strcmp(args[1], "31") && !strcmp(args[2], "0"))
		goto out; /* speculation barrier: no speculation here */
	if (!strcmp(mn, "miso") || !strcmp(mn, "nop")) {
		need(x, nargs, 0);
		goto out; /* a store-gathering hint; no cost modelled */
	}
	if (!strcmp(mn, "isync") || !strcmp(mn, "lwsync")) {
		need(x, nargs, 0);
		g_string_append(c, "qk->fence(0);\n");
		goto out;
	}
	if (!strcmp(mn, "sync") || !strcmp(mn, "hwsync")) {
		need(x, nargs, 0);
		g_string_append(c, "qk->fence(1);\n");
		goto out;
	}
	if (!strcmp(mn, "lwarx")) {
		if (nargs != 3 && nargs != 4)
			bad(x, "lwarx with other than 3 or 4 operands");
		r[0] = reg(x, args[0]);
		r[1] = reg0(x, args[1]);
		r[2] = reg(x, args[2]);
		r[3] = nargs == 4 ? imm(x, args[3]) : g_strdup("0");
		/* Under a weak model the larx reads the newest value, after
		 * this cpu's buffered stores to it (sim/mm.h). */
		g_string_append_printf(
			c,
			"__qk_ea = %s + %s; "
			"if (qk_params.memory) qk->mm_rmw_begin((const "
			"volatile void *)(uintptr_t)__qk_ea, 4, "
			"QK_ORD_RELAXED); "
			"__qk_cpu = qk->access((const volatile void *)"
			"(uintptr_t)__qk_ea, %s ? QK_RMW : QK_RMW_RESV); "
			"%s = *(volatile uint32_t *)(uintptr_t)__qk_ea; "
			"if (qk_params.memory) "
			"qk->mm_rmw_end(QK_ORD_RELAXED);\n",
			r[1], r[2], r[3], r[0]);
		goto out;
	}
	if (!strcmp(mn, "stwcx.")) {
		need(x, nargs, 3);
		r[0] = reg(x, args[0]);
		r[1] = reg0(x, args[1]);
		r[2] = reg(x, args[2]);
		g_string_append_printf(
			c,
			"__qk_ea = %s + %s; __qk_lt = __qk_gt = 0; "
			"__qk_eq = qk->stcx(__qk_cpu, (const volatile void *)"
			"(uintptr_t)__qk_ea); "
			"if (__qk_eq && *(volatile uint32_t "
			"*)(uintptr_t)__qk_ea "
			"!= (uint32_t)%s) { uint32_t __qk_old = "
			"*(volatile uint32_t *)(uintptr_t)__qk_ea; "
			"*(volatile uint32_t *)"
			"(uintptr_t)__qk_ea = (uint32_t)%s; "
			"if (qk_params.memory) qk->mm_rmw_written(__qk_cpu, "
			"(const volatile void *)(uintptr_t)__qk_ea, "
			"&__qk_old, 4); "
			"qk->written(__qk_cpu, (const volatile void *)"
			"(uintptr_t)__qk_ea); }\n",
			r[1], r[2], r[0], r[0]);
		goto out;
	}
	if (!strcmp(base, "and") || !strcmp(base, "andc") ||
	    !strcmp(base, "or") || !strcmp(base, "orc") ||
	    !strcmp(base, "xor") || !strcmp(base, "nor") ||
	    !strcmp(base, "nand") || !strcmp(base, "add") ||
	    !strcmp(base, "subf")) {
		static const char *const ops[][3] = {
			{"and", "", "&"},   {"andc", "", "& ~"},
			{"or", "", "|"},    {"orc", "", "| ~"},
			{"xor", "", "^"},   {"nor", "~", "|"},
			{"nand", "~", "&"}, {"add", "", "+"},
			{"subf", "", "-"}};
		size_t k = 0;

		need(x, nargs, 3);
		while (strcmp(ops[k][0], base))
			k++;
		r[0] = reg(x, args[0]);
		r[1] = reg(x, args[1]);
		r[2] = reg(x, args[2]);
		/* subf RT,RA,RB is RB - RA */
		g_string_append_printf(c, "%s = %s(%s %s %s);\n", r[0],
				       ops[k][1], k == 8 ? r[2] : r[1],
				       ops[k][2], k == 8 ? r[1] : r[2]);
		if (dot)
			set_cr0(x, r[0]);
		goto out;
	}
	if (!strcmp(mn, "andi.") || !strcmp(mn, "ori") || !strcmp(mn, "xori") ||
	    !strcmp(mn, "addi") || !strcmp(mn, "andis.") ||
	    !strcmp(mn, "oris")) {
		const char *op = mn[0] == 'a' && mn[1] == 'n' ? "&"
				 : mn[0] == 'o'		      ? "|"
				 : mn[0] == 'x'		      ? "^"
							      : "+";
		bool shifted = !strcmp(mn, "andis.") || !strcmp(mn, "oris");

		need(x, nargs, 3);
		r[0] = reg(x, args[0]);
		r[1] = !strcmp(mn, "addi") ? reg0(x, args[1]) : reg(x, args[1]);
		r[2] = imm(x, args[2]);
		if (!strcmp(mn, "addi"))
			g_string_append_printf(c, "%s = %s + (uint64_t)%s;\n",
					       r[0], r[1], r[2]);
		else
			g_string_append_printf(
				c,
				"%s = %s %s ((uint64_t)(uint16_t)%s << %d);\n",
				r[0], r[1], op, r[2], shifted ? 16 : 0);
		if (mn[ml - 1] == '.')
			set_cr0(x, r[0]);
		goto out;
	}
	if (!strcmp(mn, "li") || !strcmp(mn, "lis")) {
		need(x, nargs, 2);
		r[0] = reg(x, args[0]);
		r[1] = imm(x, args[1]);
		g_string_append_printf(c, "%s = (uint64_t)(%s << %d);\n", r[0],
				       r[1], mn[2] == 's' ? 16 : 0);
		goto out;
	}
	if (!strcmp(base, "mr")) {
		need(x, nargs, 2);
		r[0] = reg(x, args[0]);
		r[1] = reg(x, args[1]);
		g_string_append_printf(c, "%s = %s;\n", r[0], r[1]);
		if (dot)
			set_cr0(x, r[0]);
		goto out;
	}
	if (!strcmp(mn, "cmpw") || !strcmp(mn, "cmplw") ||
	    !strcmp(mn, "cmpd") || !strcmp(mn, "cmpld") ||
	    !strcmp(mn, "cmpwi") || !strcmp(mn, "cmplwi") ||
	    !strcmp(mn, "cmpdi") || !strcmp(mn, "cmpldi")) {
		int k = cmp_args(x, args, nargs);
		bool word = strchr(mn, 'w') != NULL;
		bool logical = mn[3] == 'l';
		bool immediate = mn[ml - 1] == 'i';
		const char *t = word ? (logical ? "uint32_t" : "int32_t")
				     : (logical ? "uint64_t" : "int64_t");

		r[0] = reg(x, args[k]);
		r[1] = immediate ? imm(x, args[k + 1]) : reg(x, args[k + 1]);
		g_string_append_printf(c,
				       "{ %s __a = (%s)%s, __b = (%s)%s; "
				       "__qk_lt = __a < __b; __qk_gt = __a > "
				       "__b; __qk_eq = __a == __b; }\n",
				       t, t, r[0], t, r[1]);
		goto out;
	}
	if (base[0] == 'b') {
		char *b = g_strdup(base);
		size_t bl = strlen(b);
		const char *cond = NULL;

		if (dot)
			bad(x, "a branch that records");
		if (bl > 1 && (b[bl - 1] == '-' || b[bl - 1] == '+'))
			b[--bl] = '\0'; /* prediction hints */
		if (!strcmp(b, "b"))
			cond = "1";
		else if (!strcmp(b, "beq"))
			cond = "__qk_eq";
		else if (!strcmp(b, "bne"))
			cond = "!__qk_eq";
		else if (!strcmp(b, "blt"))
			cond = "__qk_lt";
		else if (!strcmp(b, "bgt"))
			cond = "__qk_gt";
		else if (!strcmp(b, "ble"))
			cond = "!__qk_gt";
		else if (!strcmp(b, "bge"))
			cond = "!__qk_lt";
		g_free(b);
		if (!cond)
			bad(x, "a branch form");
		cond_branch(x, cond, args, nargs);
		goto out;
	}
	bad(x, "the instruction");
out:
	for (int i = 0; i < 4; i++)
		g_free(r[i]);
	g_free(base);
}

/* Split a template into lines; each line: optional "N:", then one
 * instruction.  Comments (#) run to the end of the line. */
static GPtrArray *template_lines(const char *tmpl)
{
	GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
	char **parts = g_strsplit_set(tmpl, "\n;", -1);

	for (char **p = parts; *p; p++) {
		char *hash = strchr(*p, '#');

		if (hash)
			*hash = '\0';
		g_ptr_array_add(lines, g_strstrip(g_strdup(*p)));
	}
	g_strfreev(parts);
	return lines;
}

/* The label defined on template line @line. */
static int label_slot(const struct xlate *x, unsigned int line)
{
	for (guint j = 0; j < x->label_line->len; j++)
		if (g_array_index(x->label_line, unsigned int, j) == line)
			return (int)j;
	return -1;
}

static void translate(struct src *in, struct asm_stmt *a, GString *out)
{
	struct xlate x = {.in = in, .a = a, .id = in->nasm++};
	GPtrArray *lines = template_lines(a->tmpl->str);
	GString *c = g_string_new(NULL);

	x.c = c;
	x.label_num = g_array_new(FALSE, FALSE, sizeof(long));
	x.label_line = g_array_new(FALSE, FALSE, sizeof(unsigned int));
	/* First pass: the labels. */
	for (guint i = 0; i < lines->len; i++) {
		char *l = g_ptr_array_index(lines, i);
		char *colon = strchr(l, ':');
		char *end;
		long n;

		if (!colon)
			continue;
		n = strtol(l, &end, 10);
		x.insn = l;
		if (end == l || end != colon)
			bad(&x, "a label that is not a number");
		g_array_append_val(x.label_num, n);
		g_array_append_val(x.label_line, i);
	}
	/* Operands into registers. */
	g_string_append_printf(c, "do { uint64_t __qk_ea = 0; void *__qk_cpu "
				  "= 0; _Bool __qk_lt = 0, __qk_gt = 0, "
				  "__qk_eq = 0;");
	for (guint i = 0; i < a->ops->len; i++) {
		struct operand *o = g_ptr_array_index(a->ops, i);

		if (o->imm || o->tied >= 0)
			continue;
		if (o->output && !o->inout)
			g_string_append_printf(c, " uint64_t __qk_r%u = 0;", i);
		else
			g_string_append_printf(c,
					       " uint64_t __qk_r%u = "
					       "(uint64_t)(uintptr_t)(%s);",
					       i, o->expr);
	}
	for (guint i = 0; i < a->ops->len; i++) {
		struct operand *o = g_ptr_array_index(a->ops, i);

		if (o->tied >= 0)
			g_string_append_printf(
				c, " __qk_r%d = (uint64_t)(uintptr_t)(%s);",
				o->tied, o->expr);
	}
	g_string_append(c, "\n");
	/* Second pass: the instructions. */
	for (guint i = 0; i < lines->len; i++) {
		char *l = g_ptr_array_index(lines, i);
		char *colon = strchr(l, ':');
		char *body = colon ? colon + 1 : l;
		char **words, *mn, *rest;
		char **args = NULL;
		int nargs = 0;

		x.line_no = i;
		if (colon)
			g_string_append_printf(c, "__qk_asm%u_L%d: ;\n", x.id,
					       label_slot(&x, i));
		body = g_strstrip(body);
		if (!*body)
			continue;
		x.insn = body;
		words = g_strsplit_set(body, " \t", 2);
		mn = words[0];
		rest = words[1] ? g_strstrip(words[1]) : NULL;
		if (rest && *rest) {
			args = g_strsplit(rest, ",", -1);
			for (char **p = args; *p; p++) {
				g_strstrip(*p);
				nargs++;
			}
		}
		insn(&x, mn, args, nargs);
		g_strfreev(args);
		g_strfreev(words);
	}
	/* Outputs back. */
	for (guint i = 0; i < a->ops->len; i++) {
		struct operand *o = g_ptr_array_index(a->ops, i);

		if (o->output)
			g_string_append_printf(
				c, " (%s) = (__typeof__(%s))__qk_r%u;", o->expr,
				o->expr, i);
	}
	g_string_append(c, " (void)__qk_ea; (void)__qk_cpu; (void)__qk_lt; "
			   "(void)__qk_gt; (void)__qk_eq; } while (0)");
	/* Keep the line count: the generated C goes on one line. */
	for (gsize i = 0; i < c->len; i++)
		if (c->str[i] == '\n')
			c->str[i] = ' ';
	g_string_append(out, c->str);
	g_string_free(c, TRUE);
	g_ptr_array_free(lines, TRUE);
	g_array_free(x.label_num, TRUE);
	g_array_free(x.label_line, TRUE);
}

static bool asm_keyword(const struct src *in, struct tok t)
{
	return tok_is(in, t, "asm") || tok_is(in, t, "__asm__") ||
	       tok_is(in, t, "__asm");
}

static bool asm_qualifier(const struct src *in, struct tok t)
{
	return tok_is(in, t, "volatile") || tok_is(in, t, "__volatile__") ||
	       tok_is(in, t, "__volatile") || tok_is(in, t, "inline") ||
	       tok_is(in, t, "__inline") || tok_is(in, t, "goto");
}

static void process(struct src *in, GString *out)
{
	for (;;) {
		struct tok t = next_tok(in, out);

		if (t.kind == T_EOF)
			return;
		if (t.kind == T_ID && tok_is(in, t, "__qk_cond_pure")) {
			struct tok p = next_tok(in, out);
			GArray *g;

			if (!tok_is(in, p, "("))
				die_at(in, "__qk_cond_pure without (");
			g = group(in);
			g_string_append(out, cond_pure(in, g) ? "(1)" : "(0)");
			g_array_free(g, TRUE);
			continue;
		}
		if (t.kind == T_ID && asm_keyword(in, t)) {
			struct asm_stmt a = {0};
			struct tok q;
			GArray *g;
			size_t start = t.at;
			long line = in->line;

			do
				q = next_tok(in, NULL);
			while (q.kind == T_ID && asm_qualifier(in, q));
			if (!tok_is(in, q, "("))
				die_at(in, "asm without (");
			g = group(in);
			parse_asm(in, g, &a);
			if (strspn(a.tmpl->str, " \t\n") == a.tmpl->len) {
				/* An empty template: a compiler barrier. */
				g_string_append_len(out, in->s + start,
						    (gssize)(in->i - start));
			} else {
				in->line = line;
				translate(in, &a, out);
				/* The newlines the statement spanned. */
				for (size_t k = start; k < in->i; k++)
					if (in->s[k] == '\n') {
						g_string_append_c(out, '\n');
						in->line++;
					}
			}
			g_string_free(a.tmpl, TRUE);
			g_string_free(a.clobbers, TRUE);
			g_ptr_array_free(a.ops, TRUE);
			g_array_free(g, TRUE);
			continue;
		}
		g_string_append_len(out, in->s + t.at, (gssize)t.len);
	}
}

int main(int argc, char **argv)
{
	struct src in = {0};
	GString *out = g_string_new(NULL);
	GError *err = NULL;
	gchar *text;
	gsize len;

	if (argc != 3) {
		fprintf(stderr, "usage: qsim-kasm IN.i OUT.c\n");
		return 1;
	}
	if (!g_file_get_contents(argv[1], &text, &len, &err)) {
		fprintf(stderr, "qsim-kasm: %s\n", err->message);
		return 1;
	}
	in.s = text;
	in.n = len;
	in.file = g_strdup(argv[1]);
	in.line = 1;
	process(&in, out);
	if (!g_file_set_contents(argv[2], out->str, (gssize)out->len, &err)) {
		fprintf(stderr, "qsim-kasm: %s\n", err->message);
		return 1;
	}
	g_free(text);
	g_free(in.file);
	g_string_free(out, TRUE);
	return 0;
}

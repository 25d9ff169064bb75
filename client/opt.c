#include "opt.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "arg.h"

/*
 * getopt_long() answers a long option with its val: the index of its spec
 * above this, so that it never looks like a letter, ':' or '?'.
 */
#define OPT_VAL_BASE 0x100

/* The synopsis stays within this many columns, going on indented. */
#define OPT_SYNOPSIS_WIDTH  72
#define OPT_SYNOPSIS_INDENT 16

/* Where the help of an option starts in OPT_MODE_HELP. */
#define OPT_HELP_COLUMN 24

static enum opt_mode opt_mode = OPT_MODE_SYNOPSIS;
static const char *opt_summary;

void
opt_set_mode(enum opt_mode mode, const char *summary)
{
	opt_mode = mode;
	opt_summary = summary;
}

int
opt_is_option(const char *s)
{
	if (s == NULL || s[0] != '-' || s[1] == '\0')
		return 0;
	/* "-5" and "-.5" are numbers. */
	return !(isdigit((unsigned char)s[1]) ||
		 (s[1] == '.' && isdigit((unsigned char)s[2])));
}

/*
 * The messages of cmd_err(), written here again: options are read below
 * the commands, which opt.c knows nothing of.
 */
static void opt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
opt_err(const char *fmt, ...)
{
	va_list ap;

	fputs("tapctl: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
opt_choice(const struct opt_spec *spec, const char *value)
{
	int i;

	if (value == NULL || spec->choices == NULL)
		return -1;
	for (i = 0; spec->choices[i] != NULL; i++)
		if (strcmp(value, spec->choices[i]) == 0)
			return i;
	return -1;
}

/* Checks value against the kind and bounds of spec, saying what is wrong. */
static int
opt_check(const char *cmd, const struct opt_spec *spec, const char *value)
{
	int64_t v;
	int i;

	switch (spec->kind) {
	case OPT_INT:
		if (arg_int64(value, spec->lo, spec->hi, &v) == 0)
			return 0;
		opt_err("%s: --%s must be an integer in %" PRId64 "..%" PRId64
			": '%s'",
			cmd, spec->name, spec->lo, spec->hi, value);
		return -EINVAL;
	case OPT_LIST:
		if (arg_list(value, (double)spec->lo, (double)spec->hi,
			     spec->max) == 0)
			return 0;
		opt_err("%s: --%s must be up to %u numbers in (%" PRId64
			", %" PRId64 "] separated by commas: '%s'",
			cmd, spec->name, spec->max, spec->lo, spec->hi, value);
		return -EINVAL;
	case OPT_CHOICE:
		if (opt_choice(spec, value) >= 0)
			return 0;
		/* "must be json, ndjson or csv", from the table. */
		fprintf(stderr, "tapctl: error: %s: --%s must be ", cmd,
			spec->name);
		for (i = 0; spec->choices[i] != NULL; i++) {
			if (i > 0)
				fputs(spec->choices[i + 1] == NULL ? " or "
								   : ", ",
				      stderr);
			fputs(spec->choices[i], stderr);
		}
		fprintf(stderr, ": '%s'\n", value);
		return -EINVAL;
	case OPT_FLAG:
	case OPT_STRING:
		break;
	}
	return 0;
}

int
opt_parse(const char *cmd, const struct opt_spec *specs, size_t n, int argc,
	  char **argv, const char **values, int *next)
{
	struct option longs[OPT_MAX + 1];
	/* "+:", then each letter and its ':', then the NUL. */
	char shorts[2 + 2 * OPT_MAX + 1];
	size_t i, len = 0;
	int c, rc;

	if (n > OPT_MAX) {
		opt_err("%s: more than %d options in its table", cmd, OPT_MAX);
		return -EINVAL;
	}
	memset(longs, 0, sizeof(longs));
	/* Options end at the first argument (+); ':' for a missing value. */
	shorts[len++] = '+';
	shorts[len++] = ':';
	for (i = 0; i < n; i++) {
		values[i] = NULL;
		longs[i].name = specs[i].name;
		longs[i].has_arg = specs[i].kind == OPT_FLAG
					   ? no_argument
					   : required_argument;
		longs[i].val = OPT_VAL_BASE + (int)i;
		if (specs[i].letter != 0) {
			shorts[len++] = (char)specs[i].letter;
			if (specs[i].kind != OPT_FLAG)
				shorts[len++] = ':';
		}
	}
	shorts[len] = '\0';
	/* GNU getopt starts over (and rereads its settings) at 0. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c == ':') {
			opt_err("%s: option '%s' needs a value", cmd,
				argv[optind - 1]);
			return -EINVAL;
		}
		if (c >= OPT_VAL_BASE && (size_t)(c - OPT_VAL_BASE) < n) {
			i = (size_t)(c - OPT_VAL_BASE);
		} else {
			for (i = 0; i < n && specs[i].letter != c; i++)
				;
		}
		if (c == '?' || i == n) {
			opt_err("%s: unknown option '%s'", cmd,
				argv[optind - 1]);
			return -EINVAL;
		}
		/*
		 * A separate word that is an option is no value: the
		 * value is missing ("--name=--x" says it is meant).
		 */
		if (specs[i].kind != OPT_FLAG && optarg == argv[optind - 1] &&
		    opt_is_option(optarg)) {
			opt_err("%s: option '%s' needs a value", cmd,
				argv[optind - 2]);
			return -EINVAL;
		}
		if ((rc = opt_check(cmd, &specs[i], optarg)) < 0)
			return rc;
		values[i] = specs[i].kind == OPT_FLAG ? specs[i].name : optarg;
	}
	*next = optind;
	return 0;
}

int
opt_end(const char *cmd, int argc, char **argv, int next)
{
	if (next < argc) {
		opt_err("%s: unexpected argument '%s'", cmd, argv[next]);
		return -EINVAL;
	}
	return 0;
}

/* Prints piece on the synopsis line, going on to the next when it is full. */
static void
opt_piece(FILE *f, const char *piece, size_t *col)
{
	if (*col + 1 + strlen(piece) > OPT_SYNOPSIS_WIDTH) {
		fprintf(f, "\n%*s", OPT_SYNOPSIS_INDENT, "");
		*col = OPT_SYNOPSIS_INDENT;
	} else {
		fputc(' ', f);
		(*col)++;
	}
	fputs(piece, f);
	*col += strlen(piece);
}

/* OPT_MODE_WORDS: each option, then the lower-case words of args. */
static void
opt_words(FILE *f, const struct opt_spec *specs, size_t n, const char *args)
{
	const char *p, *q, *v;
	size_t i;

	/* "--name VALUE" for an option that takes one. */
	for (i = 0; i < n; i++) {
		v = specs[i].kind != OPT_FLAG ? " VALUE" : "";
		fprintf(f, "--%s%s\n", specs[i].name, v);
		if (specs[i].letter != 0)
			fprintf(f, "-%c%s\n", specs[i].letter, v);
	}
	for (p = args; p != NULL && *p != '\0'; p = q) {
		for (q = p; islower((unsigned char)*q); q++)
			;
		if (q > p && (*q == '\0' || *q == ' ') &&
		    (p == args || p[-1] == ' '))
			fprintf(f, "%.*s\n", (int)(q - p), p);
		while (*q != '\0' && *q != ' ')
			q++;
		while (*q == ' ')
			q++;
	}
}

void
opt_options(FILE *f, const struct opt_spec *specs, size_t n)
{
	char form[128];
	size_t i;

	for (i = 0; i < n; i++) {
		if (specs[i].letter != 0)
			snprintf(form, sizeof(form), "-%c, --%s",
				 specs[i].letter, specs[i].name);
		else
			snprintf(form, sizeof(form), "--%s", specs[i].name);
		if (specs[i].kind != OPT_FLAG) {
			size_t len = strlen(form);

			snprintf(form + len, sizeof(form) - len, " %s",
				 specs[i].arg != NULL ? specs[i].arg : "VALUE");
		}
		if (specs[i].help == NULL)
			fprintf(f, "  %s\n", form);
		else if (strlen(form) + 2 >= OPT_HELP_COLUMN)
			fprintf(f, "  %s\n%*s%s\n", form, OPT_HELP_COLUMN, "",
				specs[i].help);
		else
			fprintf(f, "  %-*s%s\n", OPT_HELP_COLUMN - 2, form,
				specs[i].help);
	}
}

void
opt_synopsis(FILE *f, const char *cmd, const struct opt_spec *specs, size_t n,
	     const char *args)
{
	static const char help_lead[] = "usage: tapctl [GLOBAL OPTIONS]";
	char piece[128];
	const char *arg;
	size_t i, col;

	if (opt_mode == OPT_MODE_WORDS) {
		opt_words(f, specs, n, args);
		return;
	}
	if (opt_mode == OPT_MODE_HELP) {
		fprintf(f, "%s %s", help_lead, cmd);
		col = sizeof(help_lead) + strlen(cmd);
	} else {
		fprintf(f, "  %s", cmd);
		col = 2 + strlen(cmd);
	}
	for (i = 0; i < n; i++) {
		arg = specs[i].arg != NULL ? specs[i].arg : "VALUE";
		if (specs[i].required && specs[i].letter != 0)
			snprintf(piece, sizeof(piece), "-%c %s",
				 specs[i].letter, arg);
		else if (specs[i].required)
			snprintf(piece, sizeof(piece), "--%s %s", specs[i].name,
				 arg);
		else if (specs[i].kind == OPT_FLAG)
			snprintf(piece, sizeof(piece), "[--%s]", specs[i].name);
		else
			snprintf(piece, sizeof(piece), "[--%s %s]",
				 specs[i].name, arg);
		opt_piece(f, piece, &col);
	}
	if (args != NULL)
		opt_piece(f, args, &col);
	fputc('\n', f);
	if (opt_mode == OPT_MODE_HELP) {
		if (opt_summary != NULL)
			fprintf(f, "%s\n", opt_summary);
		if (n > 0)
			fputs("options:\n", f);
		opt_options(f, specs, n);
	}
}

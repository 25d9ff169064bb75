/*
 * The options of a tapctl command, from a table: each command describes
 * its options once (name, kind, bounds, the query parameter they fill,
 * the value as the synopsis shows it) and opt_parse() reads them all the
 * same way, with getopt_long (so "--name=value" and unambiguous
 * abbreviations work as they always did), checking every value before
 * the command runs.
 */
#ifndef TAPCTL_OPT_H
#define TAPCTL_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most options one command has. */
#define OPT_MAX 16

enum opt_kind {
	OPT_FLAG,   /* no value */
	OPT_STRING, /* any value, for the server to check */
	OPT_INT,    /* a decimal integer in [lo, hi] */
	OPT_LIST,   /* up to max comma-separated numbers in (lo, hi] */
	OPT_CHOICE, /* one of the words of choices */
};

struct opt_spec {
	const char *name; /* the long option, without "--" */
	int letter;	  /* a short option as well ('o' for -o), or 0 */
	enum opt_kind kind;
	const char *param;	    /* the query parameter it fills, or NULL */
	int64_t lo, hi;		    /* OPT_INT and OPT_LIST: the bounds */
	unsigned max;		    /* OPT_LIST: at most this many numbers */
	const char *const *choices; /* OPT_CHOICE: NULL-terminated */
	const char *arg;  /* the value in the synopsis ("S", "ID"), or NULL */
	int required;	  /* shown unbracketed: the command needs it */
	const char *help; /* what it does, for --help (one line), or NULL */
};

/*
 * What opt_synopsis() prints, set by the --help and completion code of
 * tapctl.c around a command's usage function: that function is all a
 * command provides, and each mode reads the same table from it.
 */
enum opt_mode {
	OPT_MODE_SYNOPSIS, /* the synopsis line, for the command list */
	OPT_MODE_HELP,	   /* "usage: tapctl ...", then a line per option */
	OPT_MODE_WORDS,	   /* the option and subcommand words, for completion */
};

/*
 * Sets the mode; summary (or NULL) is what OPT_MODE_HELP prints under the
 * usage line: what the command does.
 */
void opt_set_mode(enum opt_mode mode, const char *summary);

/*
 * Whether s is an option word ("-x", "--name", "--name=value"), which is
 * never taken as the value of another option: "-" alone (standard output)
 * and a negative number are values.
 */
int opt_is_option(const char *s);

/*
 * Parses the options of command cmd (argv[0] is its name) against the n
 * specs (at most OPT_MAX; NULL when n is 0).  A value that is an option
 * word (opt_is_option()) is refused as missing: "--app --json" never
 * filters for an app called "--json".  The value of specs[i] goes
 * to values[i] (values has n slots, all set): the argument as given, the
 * option's name for a flag, NULL when the option is absent; the last of
 * a repeated option wins.  Options end at the first argument that is not
 * one, or at "--"; *next is set to its index.  Returns 0, or -EINVAL after
 * saying on stderr what is wrong (an unknown option, a missing value, a
 * value out of its kind or bounds).
 */
int opt_parse(const char *cmd, const struct opt_spec *specs, size_t n, int argc,
	      char **argv, const char **values, int *next);

/*
 * Refuses arguments left after the options: returns 0 when next is argc,
 * else -EINVAL after naming the first one.
 */
int opt_end(const char *cmd, int argc, char **argv, int next);

/*
 * The index of value among the choices of an OPT_CHOICE spec, or -1
 * (value may be NULL).
 */
int opt_choice(const struct opt_spec *spec, const char *value);

/*
 * Prints the synopsis line of command cmd: its name, each option as the
 * specs describe it ("[--since S]", "-o FILE" when required), then args
 * (its other arguments, or NULL), wrapped to fit a terminal.  In
 * OPT_MODE_HELP the line starts with "usage: tapctl [GLOBAL OPTIONS]" and
 * each option follows on a line of its own with its help; in
 * OPT_MODE_WORDS only the words a shell completes are printed, one a
 * line: "--name" of each option, and the lower-case words of args (the
 * subcommands, as in "start NAME | stop ID | list").
 */
void opt_synopsis(FILE *f, const char *cmd, const struct opt_spec *specs,
		  size_t n, const char *args);

/*
 * Prints a line for each of the n specs: its form ("-o, --output FILE")
 * and its help beside it, as OPT_MODE_HELP shows a command's options.
 */
void opt_options(FILE *f, const struct opt_spec *specs, size_t n);

#endif

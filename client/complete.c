#include "complete.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The words of one command, as its usage function gives them in
 * OPT_MODE_WORDS: a word a line, "--name" or "--name ARG" for an option
 * that takes a value.  Prints them space-separated on f (the ARG left
 * out); with values, prints only the options that take a value, as
 * "|--name" (a bash and zsh case pattern).  Returns 0 or -ENOMEM.
 */
static int
complete_words(FILE *f, const struct cmd_entry *c, int values)
{
	char *buf = NULL, *line, *end, *sp;
	size_t len = 0;
	FILE *m;

	if ((m = open_memstream(&buf, &len)) == NULL)
		return -ENOMEM;
	opt_set_mode(OPT_MODE_WORDS, NULL);
	c->usage(m);
	opt_set_mode(OPT_MODE_SYNOPSIS, NULL);
	if (fclose(m) != 0) {
		free(buf);
		return -ENOMEM;
	}
	for (line = buf; line != NULL && *line != '\0'; line = end) {
		if ((end = strchr(line, '\n')) != NULL)
			*end++ = '\0';
		sp = strchr(line, ' ');
		if (sp != NULL)
			*sp = '\0';
		if (!values)
			fprintf(f, " %s", line);
		else if (sp != NULL)
			fprintf(f, "|%s", line);
	}
	free(buf);
	return 0;
}

/* The global options: every word, or the "|--name" of the valued ones. */
static void
complete_globals(FILE *f, const struct opt_spec *g, size_t n, int values)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (values && g[i].kind == OPT_FLAG)
			continue;
		fprintf(f, values ? "|--%s" : " --%s", g[i].name);
		if (!values && g[i].letter != 0)
			fprintf(f, " -%c", g[i].letter);
	}
}

/* The script's lists: the valued options, then each command's words. */
static int
complete_lists(FILE *f, const char *shell, const struct cmd_entry *cmds,
	       size_t n, const struct opt_spec *globals, size_t nglobals)
{
	int zsh = strcmp(shell, "zsh") == 0;
	size_t i;
	int rc;

	/* Options whose value is the next word: complete file names. */
	fputs("\t__tapctl_valued='", f);
	complete_globals(f, globals, nglobals, 1);
	for (i = 0; i < n; i++)
		if ((rc = complete_words(f, &cmds[i], 1)) < 0)
			return rc;
	fputs("|'\n", f);
	fputs("\tcase $__tapctl_cmd in\n", f);
	fputs(zsh ? "\t('')" : "\t'')", f);
	fputs(" __tapctl_words='", f);
	for (i = 0; i < n; i++)
		fprintf(f, " %s", cmds[i].name);
	complete_globals(f, globals, nglobals, 0);
	fputs("' ;;\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, zsh ? "\t(%s)" : "\t%s)", cmds[i].name);
		fputs(" __tapctl_words='", f);
		if (strcmp(cmds[i].name, "help") == 0) {
			size_t k;

			for (k = 0; k < n; k++)
				fprintf(f, " %s", cmds[k].name);
		} else if ((rc = complete_words(f, &cmds[i], 0)) < 0) {
			return rc;
		}
		complete_globals(f, globals, nglobals, 0);
		fputs("' ;;\n", f);
	}
	fputs(zsh ? "\t(*)" : "\t*)", f);
	fputs(" __tapctl_words='' ;;\n\tesac\n", f);
	return 0;
}

/*
 * The command is the first word that is neither an option nor the value
 * of a global option that takes one; the same loop in both shells.
 */
static void
complete_find_cmd(FILE *f, const struct opt_spec *globals, size_t nglobals,
		  const char *word, const char *first, const char *last)
{
	fprintf(f,
		"\t__tapctl_cmd=''\n"
		"\tfor ((__tapctl_i = %s; __tapctl_i < %s; __tapctl_i++)); "
		"do\n"
		"\t\tcase ${%s[__tapctl_i]} in\n\t\t(''",
		first, last, word);
	complete_globals(f, globals, nglobals, 1);
	fputs(") ((__tapctl_i++)) ;;\n", f);
	fputs("\t\t(--*) ;;\n"
	      "\t\t(-*) ;;\n",
	      f);
	fprintf(f,
		"\t\t(*) __tapctl_cmd=${%s[__tapctl_i]}; break ;;\n"
		"\t\tesac\n"
		"\tdone\n",
		word);
}

int
complete_script(FILE *f, const char *shell, const struct cmd_entry *cmds,
		size_t n, const struct opt_spec *globals, size_t nglobals)
{
	int rc;

	if (strcmp(shell, "bash") == 0) {
		fputs("# bash completion for tapctl: source <(tapctl "
		      "completion bash)\n"
		      "_tapctl() {\n"
		      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
		      "prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		      "\tlocal __tapctl_cmd __tapctl_i __tapctl_words "
		      "__tapctl_valued\n",
		      f);
		complete_find_cmd(f, globals, nglobals, "COMP_WORDS", "1",
				  "COMP_CWORD");
		if ((rc = complete_lists(f, shell, cmds, n, globals,
					 nglobals)) < 0)
			return rc;
		fputs("\tcase \"$__tapctl_valued\" in\n"
		      "\t*\"|$prev|\"*)\n"
		      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		      "\t\treturn ;;\n"
		      "\tesac\n",
		      f);
		return fputs("\tCOMPREPLY=($(compgen -W \"$__tapctl_words\" "
			     "-- \"$cur\"))\n"
			     "}\n"
			     "complete -F _tapctl tapctl\n",
			     f) < 0
			       ? -EIO
			       : 0;
	}
	if (strcmp(shell, "zsh") == 0) {
		fputs("#compdef tapctl\n"
		      "# zsh completion for tapctl: source <(tapctl "
		      "completion zsh)\n"
		      "_tapctl() {\n"
		      "\tlocal __tapctl_cmd __tapctl_i __tapctl_words "
		      "__tapctl_valued\n",
		      f);
		complete_find_cmd(f, globals, nglobals, "words", "2",
				  "CURRENT");
		if ((rc = complete_lists(f, shell, cmds, n, globals,
					 nglobals)) < 0)
			return rc;
		fputs("\tcase \"$__tapctl_valued\" in\n"
		      "\t(*\"|${words[CURRENT-1]}|\"*) _files; return ;;\n"
		      "\tesac\n"
		      "\tcompadd -- ${=__tapctl_words}\n"
		      "}\n"
		      "compdef _tapctl tapctl\n",
		      f);
		return 0;
	}
	return -EINVAL;
}

/*
 * Shell completion for tapctl: the script "tapctl completion bash|zsh"
 * prints, generated from the table of commands (each command's words
 * come from its usage function in OPT_MODE_WORDS) and the global options,
 * so a new command completes as soon as it is in the table.
 */
#ifndef TAPCTL_COMPLETE_H
#define TAPCTL_COMPLETE_H

#include <stddef.h>
#include <stdio.h>

#include "cmd.h"
#include "opt.h"

/*
 * Prints the completion script for shell ("bash" or "zsh") of the n
 * commands and the nglobals global options.  Returns 0, -EINVAL for
 * another shell, or -ENOMEM.
 */
int complete_script(FILE *f, const char *shell, const struct cmd_entry *cmds,
		    size_t n, const struct opt_spec *globals, size_t nglobals);

#endif

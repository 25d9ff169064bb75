/*
 * processes.log of a recorded session (docs/formats.md 4.5): the owners
 * the live daemon resolved (owner.h), one line per owner
 * "<monotonic_ns> <pid> <uid> <package>" separated by blanks, so that a
 * replay attributes each window to the package the live run gave it
 * without the device's /proc.  Blank lines and lines starting with '#'
 * are skipped; a malformed line (a field missing or extra, a number out
 * of range, a bad package name, a line over PROCESSES_LOG_LINE_MAX bytes
 * or with a NUL byte) is skipped and counted, as are lines past
 * PROCESSES_LOG_ENTRIES_MAX.
 *
 * A lookup names a pid and uid, as a window list gives them, and a time:
 * among the lines of that pid and uid, the latest at or before the time
 * answers, else the earliest after it (the live daemon writes a line
 * when it resolves an owner, just after the touch that needed it).  A
 * uid of -1 matches any.
 */
#ifndef TAPD_PROCESSES_LOG_H
#define TAPD_PROCESSES_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROCESSES_LOG_LINE_MAX	  512
#define PROCESSES_LOG_ENTRIES_MAX 1000000

struct processes_log_stats {
	uint64_t lines;	    /* lines read, blanks and comments included */
	uint64_t malformed; /* lines skipped as malformed */
	uint64_t dropped;   /* lines past PROCESSES_LOG_ENTRIES_MAX */
	uint64_t entries;   /* owners held */
};

struct processes_log;

/*
 * Reads path.  Returns 0 and sets *out (even when every line was
 * malformed: the stats say so), or a negative errno when the file cannot
 * be opened or read, -ENOMEM.
 */
int processes_log_load(const char *path, struct processes_log **out);

/* The same from an open stream, which stays open; name is for messages. */
int processes_log_load_stream(FILE *fp, const char *name,
			      struct processes_log **out);

/* NULL is a no-op. */
void processes_log_free(struct processes_log *l);

/*
 * The package of pid and uid at t_ns, as the header says: returns 0 and
 * sets *package (valid until processes_log_free()), or -ENOENT.
 */
int processes_log_find(const struct processes_log *l, int64_t t_ns, int32_t pid,
		       int64_t uid, const char **package);

void processes_log_get_stats(const struct processes_log *l,
			     struct processes_log_stats *st);

#endif

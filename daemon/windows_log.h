/*
 * windows.log of a recorded session (docs/formats.md 4.5): the window
 * lists the live daemon read, so that a replay hit-tests its taps
 * against exactly those.  The file is a sequence of blocks, each a line
 * "@ <monotonic_ns>" (the time the list was read, CLOCK_MONOTONIC in
 * nanoseconds) followed by the verbatim output of `dumpsys input`, which
 * is parsed into a window list (winlist.h).  The list in force at a time
 * t is that of the last block with a time <= t.
 *
 * What is not a block is skipped and counted: text before the first
 * block, lines starting with '@' that are no "@ <number>" (kept as text
 * of the block they are in; dumpsys input never prints one).  Equal
 * times keep file order, so the later block wins.  A block whose time is
 * earlier than the block before it ends the log, as a foreground log's
 * does (foreground.h): it and everything after it are not used, and
 * windows_log_get_jump() says where.  At most WINDOWS_LOG_BLOCKS_MAX
 * blocks and WINDOWS_LOG_WINDOWS_MAX windows in all are kept, each block
 * parsed with the window list's own bounds; the first block past either
 * limit and all after it are dropped and counted, and lookups past the
 * last block kept answer with it.
 */
#ifndef TAPD_WINDOWS_LOG_H
#define TAPD_WINDOWS_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "winlist.h"

#define WINDOWS_LOG_BLOCKS_MAX 4096
/* Windows in all blocks kept: a block that would pass it is dropped. */
#define WINDOWS_LOG_WINDOWS_MAX 262144
/* Longest "@ <monotonic_ns>" line: a longer one is text. */
#define WINDOWS_LOG_MARK_MAX 64

struct windows_log_stats {
	uint64_t bytes;	      /* bytes read */
	uint64_t blocks;      /* blocks kept */
	uint64_t dropped;     /* blocks past the limits */
	uint64_t bad_marks;   /* lines starting with '@' that are no mark */
	uint64_t stray_bytes; /* bytes before the first block */
	uint64_t windows;     /* windows in all blocks kept */
};

/* Where the log's time went back first. */
struct windows_log_jump {
	uint64_t block;	 /* the block that went back, from 1 */
	int64_t from_ns; /* the block before it */
	int64_t to_ns;	 /* its own time, less than from_ns */
};

struct windows_log;

/*
 * Reads path.  Returns 0 and sets *out (even when no block was found),
 * or a negative errno when the file cannot be opened or read, -ENOMEM.
 */
int windows_log_load(const char *path, struct windows_log **out);

/* The same from an open stream, which stays open; name is for messages. */
int windows_log_load_stream(FILE *fp, const char *name,
			    struct windows_log **out);

/* NULL is a no-op. */
void windows_log_free(struct windows_log *l);

/* Blocks kept, and the time and list of the i-th (NULL past the end). */
size_t windows_log_count(const struct windows_log *l);
const struct winlist *windows_log_block(const struct windows_log *l, size_t i,
					int64_t *t_ns);

/*
 * The list in force at t_ns: returns 0, sets *list (valid until
 * windows_log_free()) and, unless NULL, *t_block to its block's time; or
 * -ENOENT when t_ns is before the first block.
 */
int windows_log_at(const struct windows_log *l, int64_t t_ns,
		   const struct winlist **list, int64_t *t_block);

void windows_log_get_stats(const struct windows_log *l,
			   struct windows_log_stats *st);

/* 0 and *j when the log's time went back, else -ENOENT. */
int windows_log_get_jump(const struct windows_log *l,
			 struct windows_log_jump *j);

#endif

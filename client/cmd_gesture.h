/*
 * tapctl tap, press, swipe and run: gestures tapd injects through the
 * touch screen (POST /v1/gestures?wait=1, tapd run --allow-inject), each
 * measured like a finger's.  Every gesture prints one line once its tap
 * is stored: kind, app, first frame, settle, launch ("-" for what is not
 * known); with --repeat a p50/p90/p99 table of first frame and settle
 * follows.  run plays a script (one JSON object a line: a gesture as the
 * API takes it, or {"sleep_ms": N}) inside a named session and prints
 * the session and its apps at the end.  With --json the taps' objects
 * come out one a line as the API gave them.
 */
#ifndef TAPCTL_CMD_GESTURE_H
#define TAPCTL_CMD_GESTURE_H

#include <stdio.h>

#include "cmd.h"

void cmd_tap_usage(FILE *f);
void cmd_press_usage(FILE *f);
void cmd_swipe_usage(FILE *f);
void cmd_run_usage(FILE *f);

/* Each returns an exit code (CMD_EXIT_*). */
int cmd_tap(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_press(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_swipe(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_run(struct cmd_ctx *ctx, int argc, char **argv);

#endif

/*
 * Compares the database `tapd replay` wrote with a session's truth.json:
 * every gesture of the truth must be stored (matched by t_up_ns) with the
 * same kind, app, pid, status, flags, t_down_ns, first_frame_ns and
 * settle_ns (to the microsecond), frame count and jank bits, and nothing
 * else may be stored.  Prints one summary line on stdout and each
 * difference in detail.
 */
#ifndef TAPD_SIM_CHECK_H
#define TAPD_SIM_CHECK_H

/*
 * Returns the exit status: 0 when everything matches, 1 when something
 * differs, 2 when a file cannot be read (after printing why).
 */
int check_run(const char *truth_path, const char *db_path, int verbose);

#endif

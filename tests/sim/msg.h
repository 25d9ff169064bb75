/*
 * Diagnostics of the simulator on stderr, prefixed "tapd-sim: ".  The
 * simulator keeps away from daemon/ (it is the independent ground truth),
 * so it has this instead of daemon/log.h.
 */
#ifndef TAPD_SIM_MSG_H
#define TAPD_SIM_MSG_H

/* Prints the message. */
void msg_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints the message, then ": " and strerror(errno). */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/*
 * Logging: one place every message goes through, the daemon's own and the
 * libraries' (SQLite, libevdev, libmicrohttpd).  Messages go to stderr until
 * log_open_file() names a file; SIGHUP handlers call log_reopen() so that
 * rotation works.  Every function saves and restores errno.
 */
#ifndef TAPD_LOG_H
#define TAPD_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARN = 1,
	LOG_LEVEL_INFO = 2,
	LOG_LEVEL_DEBUG = 3,
};

/*
 * Sets the most detailed level that is printed (LOG_LEVEL_WARN by default)
 * and the program name that prefixes each line.  name is not copied and
 * must outlive the logger.
 */
void log_init(const char *name, enum log_level level);

/* The level set by log_init() or log_set_level(). */
enum log_level log_get_level(void);
void log_set_level(enum log_level level);

/*
 * Appends messages to the file at path instead of stderr.  Returns 0 or a
 * negative errno; on failure the previous destination stays.
 */
int log_open_file(const char *path);

/* Reopens the file given to log_open_file(); a no-op on stderr. */
int log_reopen(void);

/* Closes the log file, if any, and goes back to stderr. */
void log_close(void);

/*
 * Routes SQLite's and libevdev's own diagnostics into this logger.  Call
 * once, before the first SQLite call of the process (SQLite accepts its
 * log hook only before it initializes).
 */
void log_route_libraries(void);

/* A libmicrohttpd MHD_OPTION_EXTERNAL_LOGGER callback; cls is unused. */
void log_mhd(void *cls, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Like log_warnx() with ": strerror(errno)" appended. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_msgv(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif

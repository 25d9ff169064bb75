#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *log_name = "tapd";
static enum log_level log_level = LOG_LEVEL_WARN;
static char *log_path;
static FILE *log_file;

/*
 * Messages come from the ingest thread, the writer and the HTTP threads at
 * once; the lock keeps each line whole and guards the file swap on SIGHUP.
 */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARN] = "warning",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

void
log_init(const char *name, enum log_level level)
{
	if (name)
		log_name = name;
	log_level = level;
}

enum log_level
log_get_level(void)
{
	return log_level;
}

void
log_set_level(enum log_level level)
{
	log_level = level;
}

static void __attribute__((format(printf, 2, 0)))
log_write(enum log_level level, const char *fmt, va_list ap, const char *tail)
{
	char line[2048];
	char stamp[32] = "";
	struct timespec ts;
	struct tm tm;
	FILE *out;
	int n;

	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return;
	/* A message cut at the buffer's end says so rather than vanish. */
	if ((size_t)n >= sizeof(line))
		memcpy(line + sizeof(line) - 5, "...", 4);

	pthread_mutex_lock(&log_lock);
	out = log_file ? log_file : stderr;
	/* A file gets wall-clock stamps; stderr is stamped by its supervisor.
	 */
	if (log_file && clock_gettime(CLOCK_REALTIME, &ts) == 0 &&
	    localtime_r(&ts.tv_sec, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S ", &tm);
	fprintf(out, "%s%s: %s: %s%s%s\n", stamp, log_name, level_names[level],
		line, tail ? ": " : "", tail ? tail : "");
	fflush(out);
	pthread_mutex_unlock(&log_lock);
}

void
log_msgv(enum log_level level, const char *fmt, va_list ap)
{
	int saved = errno;

	if (level <= log_level)
		log_write(level, fmt, ap, NULL);
	errno = saved;
}

void
log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_msgv(level, fmt, ap);
	va_end(ap);
}

/*
 * The text of an errno without strerror()'s shared buffer.  glibc with
 * _GNU_SOURCE has the GNU strerror_r, which returns the text (maybe not in
 * buf); musl, which the Android build uses, has only the XSI one, which
 * fills buf and returns 0.
 */
static const char *
log_strerror(int err, char *buf, size_t size)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
	return strerror_r(err, buf, size);
#else
	if (strerror_r(err, buf, size) != 0)
		(void)snprintf(buf, size, "error %d", err);
	return buf;
#endif
}

void
log_warn(const char *fmt, ...)
{
	int saved = errno;
	char err[128];
	va_list ap;

	if (LOG_LEVEL_WARN <= log_level) {
		const char *s = log_strerror(saved, err, sizeof(err));

		va_start(ap, fmt);
		log_write(LOG_LEVEL_WARN, fmt, ap, s);
		va_end(ap);
	}
	errno = saved;
}

#define LOG_FN(fn, level)                                                      \
	void fn(const char *fmt, ...)                                          \
	{                                                                      \
		va_list ap;                                                    \
                                                                               \
		va_start(ap, fmt);                                             \
		log_msgv(level, fmt, ap);                                      \
		va_end(ap);                                                    \
	}

LOG_FN(log_error, LOG_LEVEL_ERROR)
LOG_FN(log_warnx, LOG_LEVEL_WARN)
LOG_FN(log_info, LOG_LEVEL_INFO)
LOG_FN(log_debug, LOG_LEVEL_DEBUG)

int
log_open_file(const char *path)
{
	FILE *f = NULL;
	char *copy = NULL;
	int rc = 0;

	copy = strdup(path);
	if (!copy) {
		rc = -ENOMEM;
		goto out;
	}
	f = fopen(path, "ae");
	if (!f) {
		rc = -errno;
		goto out;
	}
	pthread_mutex_lock(&log_lock);
	if (log_file)
		fclose(log_file);
	free(log_path);
	log_file = f;
	log_path = copy;
	pthread_mutex_unlock(&log_lock);
	f = NULL;
	copy = NULL;
out:
	free(copy);
	if (f)
		fclose(f);
	return rc;
}

int
log_reopen(void)
{
	FILE *f;
	int rc = 0;

	pthread_mutex_lock(&log_lock);
	if (log_path) {
		f = fopen(log_path, "ae");
		if (!f) {
			/* Keep writing to the old file rather than lose lines.
			 */
			rc = -errno;
		} else {
			fclose(log_file);
			log_file = f;
		}
	}
	pthread_mutex_unlock(&log_lock);
	return rc;
}

void
log_close(void)
{
	pthread_mutex_lock(&log_lock);
	if (log_file)
		fclose(log_file);
	log_file = NULL;
	free(log_path);
	log_path = NULL;
	pthread_mutex_unlock(&log_lock);
}

static void
log_sqlite(void *arg, int code, const char *msg)
{
	int primary = code & 0xff;

	(void)arg;
	/*
	 * SQLite reports recoverable conditions here too (a schema change
	 * that forced a re-prepare, an automatic index); only real errors
	 * are warnings.
	 */
	/*
	 * A file SQLite cannot open is reported by its caller, with the
	 * database's name first ("cannot open database 'x.db': ..."); SQLite's
	 * own line (its source line and an errno) is for debugging.
	 */
	if (primary == SQLITE_NOTICE || primary == SQLITE_SCHEMA ||
	    primary == SQLITE_CANTOPEN)
		log_debug("sqlite: %s (%d)", msg, code);
	else if (primary == SQLITE_WARNING)
		log_info("sqlite: %s (%d)", msg, code);
	else
		log_warnx("sqlite: %s (%d)", msg, code);
}

static void __attribute__((format(printf, 6, 0)))
log_evdev(enum libevdev_log_priority priority, void *data, const char *file,
	  int line, const char *func, const char *fmt, va_list args)
{
	enum log_level level;
	char msg[512];
	size_t n;

	(void)data;
	(void)file;
	(void)line;
	switch (priority) {
	case LIBEVDEV_LOG_ERROR:
		level = LOG_LEVEL_WARN;
		break;
	case LIBEVDEV_LOG_INFO:
		level = LOG_LEVEL_INFO;
		break;
	default:
		level = LOG_LEVEL_DEBUG;
		break;
	}
	if (level > log_level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, args);
	/* libevdev ends its messages with a newline; ours add one. */
	n = strlen(msg);
	if (n > 0 && msg[n - 1] == '\n')
		msg[n - 1] = '\0';
	log_msg(level, "libevdev: %s: %s", func, msg);
}

void
log_route_libraries(void)
{
	/* Fails harmlessly (SQLITE_MISUSE) if SQLite is already initialized. */
	if (sqlite3_config(SQLITE_CONFIG_LOG, log_sqlite, NULL) != SQLITE_OK)
		log_debug(
			"sqlite log hook not set: sqlite already initialized");
	libevdev_set_log_function(log_evdev, NULL);
	libevdev_set_log_priority(LIBEVDEV_LOG_DEBUG);
}

void
log_mhd(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	/*
	 * A failed bind is reported by api.c with the address asked for;
	 * libmicrohttpd's line names port 0 whatever the port was.
	 */
	if (strncmp(msg, "Failed to bind", 14) == 0) {
		log_debug("microhttpd: %s", msg);
		return;
	}
	log_msg(LOG_LEVEL_WARN, "microhttpd: %s", msg);
}

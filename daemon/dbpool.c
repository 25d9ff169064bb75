#include "dbpool.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "store.h"

#define DBPOOL_MAX_SIZE 64

struct dbpool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char *path;
	bool immutable;
	unsigned size;
	unsigned nfree;
	struct store **all;  /* every connection, for free */
	struct store **free; /* the nfree checked in */
};

static bool
dbpool_exists(const char *path, const char *suffix)
{
	char name[PATH_MAX];
	int n;

	n = snprintf(name, sizeof(name), "%s%s", path, suffix);
	if (n < 0 || (size_t)n >= sizeof(name))
		return false;
	return access(name, F_OK) == 0;
}

/*
 * Whether SQLite could open path read-only in WAL mode: it needs both
 * side files, or the right to create them next to the file.  A file in
 * rollback-journal mode needs neither, but cannot be told apart without
 * opening it, and immutable serves it just as well.
 */
static bool
dbpool_needs_immutable(const char *path)
{
	char dir[PATH_MAX];
	const char *slash;
	int n;

	if (dbpool_exists(path, "-wal") && dbpool_exists(path, "-shm"))
		return false;
	slash = strrchr(path, '/');
	if (!slash)
		n = snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		n = snprintf(dir, sizeof(dir), "/");
	else
		n = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path),
			     path);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return false;
	return access(dir, W_OK) != 0;
}

/*
 * What to hand store_open() for path: path itself, or a malloc'd URI in
 * *uri when the file must be opened as immutable.
 */
static int
dbpool_name(const char *path, char **uri, const char **name, bool quiet)
{
	*uri = NULL;
	*name = path;
	if (!dbpool_needs_immutable(path))
		return 0;
	*uri = store_file_uri(path, "immutable=1");
	if (!*uri)
		return -ENOMEM;
	*name = *uri;
	if (quiet)
		return 0;
	log_info("serving '%s' as immutable: its directory is read-only and "
		 "the WAL files are missing",
		 path);
	if (dbpool_exists(path, "-wal"))
		log_warnx("serving '%s' without its '-wal' file: the taps "
			  "still in it are not served",
			  path);
	return 0;
}

int
dbpool_open_store(const char *path, struct store **out, int *immutable)
{
	const char *name;
	char *uri;
	int rc;

	if (!path || !*path || !out)
		return -EINVAL;
	rc = dbpool_name(path, &uri, &name, true);
	if (rc < 0)
		return rc;
	rc = store_open(name, STORE_OPEN_READONLY, out);
	if (rc == 0 && immutable)
		*immutable = uri != NULL;
	free(uri);
	return rc;
}

int
dbpool_new(const char *path, unsigned size, struct dbpool **out)
{
	pthread_condattr_t attr;
	struct dbpool *pool = NULL;
	char *uri = NULL;
	const char *name;
	bool cond = false, lock = false;
	unsigned i;
	int rc;

	if (!path || !*path || !out || size == 0 || size > DBPOOL_MAX_SIZE)
		return -EINVAL;
	rc = -ENOMEM;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		goto out;
	pool->path = strdup(path);
	pool->all = calloc(size, sizeof(*pool->all));
	pool->free = calloc(size, sizeof(*pool->free));
	if (!pool->path || !pool->all || !pool->free)
		goto out;
	if (pthread_mutex_init(&pool->lock, NULL) != 0)
		goto out;
	lock = true;
	if (pthread_condattr_init(&attr) != 0)
		goto out;
	if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
	    pthread_cond_init(&pool->cond, &attr) == 0)
		cond = true;
	pthread_condattr_destroy(&attr);
	if (!cond)
		goto out;
	rc = dbpool_name(path, &uri, &name, false);
	if (rc < 0)
		goto out;
	pool->immutable = uri != NULL;
	for (i = 0; i < size; i++) {
		rc = store_open(name, STORE_OPEN_READONLY, &pool->all[i]);
		if (rc < 0)
			goto out;
		pool->free[i] = pool->all[i];
		pool->size++;
	}
	pool->nfree = pool->size;
	*out = pool;
	pool = NULL;
	rc = 0;
out:
	free(uri);
	if (pool) {
		for (i = 0; i < pool->size; i++)
			store_close(pool->all[i]);
		if (cond)
			pthread_cond_destroy(&pool->cond);
		if (lock)
			pthread_mutex_destroy(&pool->lock);
		free(pool->all);
		free(pool->free);
		free(pool->path);
		free(pool);
	}
	return rc;
}

void
dbpool_free(struct dbpool *pool)
{
	unsigned i;

	if (!pool)
		return;
	if (pool->nfree != pool->size)
		log_warnx("closing the pool of '%s' with %u of %u connections "
			  "still out",
			  pool->path, pool->size - pool->nfree, pool->size);
	for (i = 0; i < pool->size; i++)
		store_close(pool->all[i]);
	pthread_cond_destroy(&pool->cond);
	pthread_mutex_destroy(&pool->lock);
	free(pool->all);
	free(pool->free);
	free(pool->path);
	free(pool);
}

int
dbpool_get(struct dbpool *pool, int timeout_ms, struct store **out)
{
	struct timespec deadline;
	int rc = 0;

	if (timeout_ms < 0)
		timeout_ms = 0;
	loop_deadline(&deadline, timeout_ms);
	pthread_mutex_lock(&pool->lock);
	while (pool->nfree == 0) {
		if (pthread_cond_timedwait(&pool->cond, &pool->lock,
					   &deadline) == ETIMEDOUT &&
		    pool->nfree == 0) {
			rc = -ETIMEDOUT;
			break;
		}
	}
	if (rc == 0)
		*out = pool->free[--pool->nfree];
	pthread_mutex_unlock(&pool->lock);
	return rc;
}

void
dbpool_put(struct dbpool *pool, struct store *st)
{
	if (!st)
		return;
	/* A handler that left a statement running must not starve the writer.
	 */
	store_reset(st);
	pthread_mutex_lock(&pool->lock);
	if (pool->nfree < pool->size)
		pool->free[pool->nfree++] = st;
	pthread_cond_signal(&pool->cond);
	pthread_mutex_unlock(&pool->lock);
}

const char *
dbpool_path(const struct dbpool *pool)
{
	return pool->path;
}

int
dbpool_immutable(const struct dbpool *pool)
{
	return pool->immutable;
}

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
#include "store_sql.h"
#include "store_taps.h"

#define DBPOOL_MAX_SIZE 64

/*
 * A request waiting for a connection, on its own stack.  Connections are
 * handed to the waiters in the order they came: with a condition shared
 * by all, whichever thread the scheduler woke first took the connection,
 * and under 64 clients on 4 connections some waited ten times as long as
 * the mean.
 */
struct dbpool_waiter {
	pthread_cond_t cond;
	struct store *got;
	struct dbpool_waiter *next;
};

/*
 * What store_info() last answered on one connection, and the file's
 * data_version then: /v1/health asks for it on every request, and
 * counting a million taps each time made the cheapest endpoint one of
 * the dearest.  data_version changes whenever another connection (the
 * writer, another process) commits, so an unchanged one means an
 * unchanged count.  Only the thread holding the connection touches it.
 */
struct dbpool_info {
	bool valid;
	int64_t data_version;
	int64_t version, taps;
};

/* One answer of the cache (dbpool.h): key and body malloc'd. */
struct dbpool_answer {
	char *key;
	uint32_t hash;
	char *body;
	size_t len;
};

/*
 * What the pool keeps per connection: the count of dbpool_info(), the
 * answers and the statement that reads data_version, prepared once
 * (preparing it cost as much as the rest of a /v1/health).  Only the
 * thread holding the connection touches it.
 */
struct dbpool_conn {
	struct dbpool_info info;
	sqlite3_stmt *dv;
	sqlite3_stmt *begin, *rollback;
	/* The version every answer kept was computed under. */
	int64_t answers_dv;
	/* Set by dbpool_answer_get() for the put that follows it. */
	bool armed;
	int64_t armed_dv;
	unsigned next; /* the slot replaced next */
	struct dbpool_answer answer[DBPOOL_ANSWERS];
};

struct dbpool {
	pthread_mutex_t lock;
	pthread_condattr_t attr; /* CLOCK_MONOTONIC, for the waiters */
	char *path;
	bool immutable;
	unsigned size;
	unsigned nfree;
	struct store **all;		   /* every connection, for free */
	struct store **free;		   /* the nfree checked in */
	struct dbpool_conn *conn;	   /* of all[i] */
	struct dbpool_waiter *head, *tail; /* oldest first */
};

/* The pool's record of st, or NULL when st is not one of its own. */
static struct dbpool_conn *
dbpool_conn_of(struct dbpool *pool, const struct store *st)
{
	unsigned i;

	for (i = 0; pool && i < pool->size; i++)
		if (pool->all[i] == st)
			return &pool->conn[i];
	return NULL;
}

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

/* Forgets every answer of c. */
static void
dbpool_answers_clear(struct dbpool_conn *c)
{
	unsigned i;

	for (i = 0; i < DBPOOL_ANSWERS; i++) {
		free(c->answer[i].key);
		free(c->answer[i].body);
		memset(&c->answer[i], 0, sizeof(c->answer[i]));
	}
	c->next = 0;
}

/*
 * Prepares a statement a connection keeps.  SQLITE_PREPARE_PERSISTENT
 * tells SQLite it lives as long as the connection.
 */
static int
dbpool_keep(sqlite3 *db, const char *sql, sqlite3_stmt **stmt)
{
	int rc;

	rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt,
				NULL);
	return rc == SQLITE_OK ? 0
			       : store__db_fail(db, rc, "prepare a statement");
}

/* Prepares what a connection keeps: its version, BEGIN and ROLLBACK. */
static int
dbpool_conn_init(struct dbpool_conn *c, struct store *st)
{
	sqlite3 *db = store__sqlite(st);
	int rc;

	rc = dbpool_keep(db, "PRAGMA data_version", &c->dv);
	if (rc == 0)
		rc = dbpool_keep(db, "BEGIN", &c->begin);
	if (rc == 0)
		rc = dbpool_keep(db, "ROLLBACK", &c->rollback);
	return rc;
}

/* Before the connection closes, which a statement left would stop. */
static void
dbpool_conn_release(struct dbpool_conn *c)
{
	dbpool_answers_clear(c);
	sqlite3_finalize(c->dv);
	sqlite3_finalize(c->begin);
	sqlite3_finalize(c->rollback);
	c->dv = NULL;
	c->begin = NULL;
	c->rollback = NULL;
}

int
dbpool_new(const char *path, unsigned size, struct dbpool **out)
{
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
	pool->conn = calloc(size, sizeof(*pool->conn));
	if (!pool->path || !pool->all || !pool->free || !pool->conn)
		goto out;
	if (pthread_mutex_init(&pool->lock, NULL) != 0)
		goto out;
	lock = true;
	if (pthread_condattr_init(&pool->attr) != 0)
		goto out;
	cond = true;
	if (pthread_condattr_setclock(&pool->attr, CLOCK_MONOTONIC) != 0)
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
		rc = dbpool_conn_init(&pool->conn[i], pool->all[i]);
		if (rc < 0)
			goto out;
	}
	pool->nfree = pool->size;
	*out = pool;
	pool = NULL;
	rc = 0;
out:
	free(uri);
	if (pool) {
		for (i = 0; i < pool->size; i++) {
			dbpool_conn_release(&pool->conn[i]);
			store_close(pool->all[i]);
		}
		if (cond)
			pthread_condattr_destroy(&pool->attr);
		if (lock)
			pthread_mutex_destroy(&pool->lock);
		free(pool->all);
		free(pool->free);
		free(pool->conn);
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
	for (i = 0; i < pool->size; i++) {
		dbpool_conn_release(&pool->conn[i]);
		store_close(pool->all[i]);
	}
	pthread_condattr_destroy(&pool->attr);
	pthread_mutex_destroy(&pool->lock);
	free(pool->all);
	free(pool->free);
	free(pool->conn);
	free(pool->path);
	free(pool);
}

/* Takes w out of the queue, wherever it is in it. */
static void
dbpool_unqueue(struct dbpool *pool, struct dbpool_waiter *w)
{
	struct dbpool_waiter **p, *prev = NULL;

	for (p = &pool->head; *p; prev = *p, p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			if (pool->tail == w)
				pool->tail = prev;
			return;
		}
}

int
dbpool_get(struct dbpool *pool, int timeout_ms, struct store **out)
{
	struct dbpool_waiter w;
	struct timespec deadline;
	int rc = 0;

	if (timeout_ms < 0)
		timeout_ms = 0;
	pthread_mutex_lock(&pool->lock);
	/* A free connection goes to the oldest waiter, never past it. */
	if (pool->nfree > 0 && !pool->head) {
		*out = pool->free[--pool->nfree];
		pthread_mutex_unlock(&pool->lock);
		return 0;
	}
	if (timeout_ms == 0 || pthread_cond_init(&w.cond, &pool->attr) != 0) {
		pthread_mutex_unlock(&pool->lock);
		return -ETIMEDOUT;
	}
	loop_deadline(&deadline, timeout_ms);
	w.got = NULL;
	w.next = NULL;
	if (pool->tail)
		pool->tail->next = &w;
	else
		pool->head = &w;
	pool->tail = &w;
	/* dbpool_put() hands the connection over and dequeues w itself. */
	while (!w.got)
		if (pthread_cond_timedwait(&w.cond, &pool->lock, &deadline) ==
			    ETIMEDOUT &&
		    !w.got) {
			dbpool_unqueue(pool, &w);
			rc = -ETIMEDOUT;
			break;
		}
	if (rc == 0)
		*out = w.got;
	pthread_mutex_unlock(&pool->lock);
	pthread_cond_destroy(&w.cond);
	return rc;
}

void
dbpool_put(struct dbpool *pool, struct store *st)
{
	struct dbpool_conn *c = dbpool_conn_of(pool, st);
	struct dbpool_waiter *w;

	if (!st)
		return;
	/* A version read by this request vouches for no later one. */
	if (c)
		c->armed = false;
	/* A handler that left a statement running must not starve the writer.
	 */
	store_reset(st);
	pthread_mutex_lock(&pool->lock);
	w = pool->head;
	if (w) {
		pool->head = w->next;
		if (!pool->head)
			pool->tail = NULL;
		w->got = st;
		pthread_cond_signal(&w->cond);
	} else if (pool->nfree < pool->size) {
		pool->free[pool->nfree++] = st;
	}
	pthread_mutex_unlock(&pool->lock);
}

/*
 * PRAGMA data_version of st's connection, or -1 when it cannot be read:
 * through the statement c keeps, or prepared for once without c.
 */
static int64_t
dbpool_data_version(struct store *st, struct dbpool_conn *c)
{
	sqlite3_stmt *stmt = c ? c->dv : NULL;
	int64_t v = -1;

	if (!stmt &&
	    sqlite3_prepare_v2(store__sqlite(st), "PRAGMA data_version", -1,
			       &stmt, NULL) != SQLITE_OK)
		stmt = NULL;
	if (stmt && sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int64(stmt, 0);
	if (c)
		sqlite3_reset(stmt);
	else
		sqlite3_finalize(stmt);
	return v;
}

int
dbpool_info(struct dbpool *pool, struct store *st, int64_t *version,
	    int64_t *taps)
{
	struct dbpool_conn *c = dbpool_conn_of(pool, st);
	struct dbpool_info *info;
	int64_t dv;
	int rc;

	if (!c)
		return store_info(st, version, taps);
	info = &c->info;
	/*
	 * Read before the count: a commit between the two changes the
	 * version the next request reads, so a count is never kept under a
	 * version older than what it counted.
	 */
	dv = dbpool_data_version(st, c);
	if (info->valid && dv >= 0 && dv == info->data_version) {
		*version = info->version;
		*taps = info->taps;
		return 0;
	}
	info->valid = false;
	rc = store_info(st, version, taps);
	if (rc == 0 && dv >= 0) {
		info->valid = true;
		info->data_version = dv;
		info->version = *version;
		info->taps = *taps;
	}
	return rc;
}

/* FNV-1a over key, to skip most comparisons. */
static uint32_t
dbpool_hash(const char *key)
{
	uint32_t h = 2166136261u;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h;
}

int
dbpool_answer_get(struct dbpool *pool, struct store *st, const char *key,
		  char **body, size_t *len)
{
	struct dbpool_conn *c = dbpool_conn_of(pool, st);
	struct dbpool_answer *a;
	uint32_t h;
	int64_t dv;
	unsigned i;
	char *copy;

	if (!c)
		return 0;
	c->armed = false;
	dv = dbpool_data_version(st, c);
	if (dv < 0) {
		/* A version that cannot be read vouches for nothing. */
		dbpool_answers_clear(c);
		return 0;
	}
	if (dv != c->answers_dv) {
		dbpool_answers_clear(c);
		c->answers_dv = dv;
	}
	c->armed = true;
	c->armed_dv = dv;
	h = dbpool_hash(key);
	for (i = 0; i < DBPOOL_ANSWERS; i++) {
		a = &c->answer[i];
		if (!a->key || a->hash != h || strcmp(a->key, key) != 0)
			continue;
		copy = malloc(a->len + 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, a->body, a->len);
		copy[a->len] = '\0';
		*body = copy;
		*len = a->len;
		return 1;
	}
	return 0;
}

int
dbpool_answer_put(struct dbpool *pool, struct store *st, const char *key,
		  const char *body, size_t len)
{
	struct dbpool_conn *c = dbpool_conn_of(pool, st);
	struct dbpool_answer *a;
	size_t klen;

	if (!c || !c->armed)
		return 0;
	c->armed = false;
	klen = strlen(key);
	if (c->armed_dv != c->answers_dv || len > DBPOOL_ANSWER_MAX ||
	    klen >= DBPOOL_ANSWER_KEY)
		return 0;
	a = &c->answer[c->next];
	free(a->key);
	free(a->body);
	memset(a, 0, sizeof(*a));
	a->key = malloc(klen + 1);
	a->body = malloc(len + 1);
	if (!a->key || !a->body) {
		free(a->key);
		free(a->body);
		memset(a, 0, sizeof(*a));
		return -ENOMEM;
	}
	memcpy(a->key, key, klen + 1);
	memcpy(a->body, body, len);
	a->body[len] = '\0';
	a->len = len;
	a->hash = dbpool_hash(key);
	c->next = (c->next + 1) % DBPOOL_ANSWERS;
	return 0;
}

int
dbpool_read_begin(struct dbpool *pool, struct store *st)
{
	struct dbpool_conn *c = dbpool_conn_of(pool, st);
	sqlite3 *db = store__sqlite(st);
	int rc;

	if (!c)
		return store_read_begin(st);
	/* Inside one already (as store_read_begin() allows): nothing to do. */
	if (!sqlite3_get_autocommit(db))
		return 0;
	rc = sqlite3_step(c->begin);
	sqlite3_reset(c->begin);
	if (rc != SQLITE_DONE)
		return store__db_fail(db, rc, "begin a read transaction");
	return 0;
}

void
dbpool_read_end(struct dbpool *pool, struct store *st)
{
	struct dbpool_conn *c = dbpool_conn_of(pool, st);

	if (!c) {
		store_read_end(st);
		return;
	}
	/* A read transaction has nothing to keep: ROLLBACK ends it. */
	if (!sqlite3_get_autocommit(store__sqlite(st))) {
		sqlite3_step(c->rollback);
		sqlite3_reset(c->rollback);
	}
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

#include "serve.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "dbpool.h"
#include "log.h"
#include "metrics.h"
#include "status.h"
#include "store.h"

int
serve_url(const char *listen, uint16_t port, char *buf, size_t len)
{
	const char *colon;
	int n;

	if (!listen)
		listen = "127.0.0.1:7878";
	/* The host is everything before the last colon ("[::1]" included). */
	colon = strrchr(listen, ':');
	n = snprintf(buf, len, "%.*s:%u",
		     colon ? (int)(colon - listen) : (int)strlen(listen),
		     listen, (unsigned)port);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* Seeds the tap metrics from what the database already holds. */
static int
load_metrics(const char *db, struct metrics *m)
{
	struct store *st = NULL;
	int rc;

	/* Opened the way the pool opens it, so a read-only copy works too. */
	rc = dbpool_open_store(db, &st, NULL);
	if (rc == 0)
		rc = metrics_load(m, st);
	store_close(st);
	return rc;
}

int
serve_run(const struct serve_options *opts)
{
	struct api_config cfg;
	struct metrics *metrics = NULL;
	struct status *status = NULL;
	struct api *api = NULL;
	sigset_t block, old;
	char url[300];
	int rc;

	rc = status_new("serve", &status);
	if (rc == 0)
		rc = metrics_new(&metrics);
	if (rc < 0)
		goto out;
	rc = load_metrics(opts->db, metrics);
	if (rc < 0)
		goto out;
	status_set_source(status, STATUS_SOURCE_STORE, STATUS_HEALTH_UP,
			  "sqlite", "'%s' (read-only)", opts->db);
	api_config_default(&cfg);
	if (opts->listen)
		cfg.listen = opts->listen;
	cfg.token_file = opts->token_file;
	cfg.db_path = opts->db;
	cfg.status = status;
	cfg.metrics = metrics;

	/*
	 * The server's threads inherit the signal mask: with the signals
	 * blocked while they start, only this thread ever handles them.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = api_start(&cfg, &api);
	if (rc < 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		goto out;
	}
	serve_url(cfg.listen, api_port(api), url, sizeof(url));
	printf("listening on http://%s\n", url);
	fflush(stdout);
	/* sigsuspend closes the gap between testing the flag and sleeping. */
	while (!*opts->stop)
		sigsuspend(&old);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	log_info("stopping");
out:
	api_stop(api);
	metrics_free(metrics);
	status_free(status);
	return rc;
}

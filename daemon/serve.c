#include "serve.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "log.h"
#include "metrics.h"
#include "status.h"

int
serve_run(const struct serve_options *opts)
{
	struct api_config cfg;
	struct metrics *metrics = NULL;
	struct status *status = NULL;
	struct api *api = NULL;
	sigset_t block, old;
	int blocked = 0;
	int rc;

	rc = api_check(opts->listen, opts->token_file);
	if (rc < 0)
		return rc;
	rc = status_new("serve", &status);
	if (rc == 0)
		rc = metrics_new(&metrics);
	if (rc == 0)
		rc = metrics_set_buckets(metrics, opts->buckets);
	if (rc < 0)
		goto out;
	status_set_source(status, STATUS_SOURCE_STORE, STATUS_HEALTH_UP,
			  "sqlite", "'%s' (read-only)", opts->db);
	api_config_default(&cfg);
	if (opts->listen)
		cfg.listen = opts->listen;
	cfg.token_file = opts->token_file;
	cfg.no_ui = opts->no_ui;
	cfg.db_path = opts->db;
	cfg.status = status;
	cfg.metrics = metrics;
	/* Blocked from here on, the stop signals wait for sigsuspend(). */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	blocked = 1;
	rc = api_bring_up(&cfg, &api);
	if (rc < 0)
		goto out;
	/* sigsuspend closes the gap between testing the flag and sleeping. */
	while (!*opts->stop)
		sigsuspend(&old);
	log_info("stopping");
out:
	if (blocked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	api_stop(api);
	metrics_free(metrics);
	status_free(status);
	return rc;
}

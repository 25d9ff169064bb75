/* The live reading of the display: see display_live.h. */
#include "display_live.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "child.h"
#include "log.h"
#include "loop.h"

#define MS INT64_C(1000000)

struct display_live {
	struct loop *loop;
	struct child_set *cs;
	struct child *child; /* the read under way, or NULL */
	struct loop_timer *timer;
	char *dumpsys;
	display_live_cb on_read;
	void *ctx;
	int64_t refresh_ms;
	int failed; /* a failure was logged */
};

static void
on_exit_read(void *ctx, struct child *c)
{
	struct display_live *dl = ctx;
	struct display_dump d;
	const char *out;
	char why[128];
	size_t len = 0;

	out = child_out(c, &len);
	if (child_clean_exit(c) && display_dump_parse(out, len, &d) == 0) {
		dl->on_read(dl->ctx, &d);
	} else if (!dl->failed) {
		dl->failed = 1;
		child_exit_text(c, why, sizeof(why));
		log_info("dumpsys display described no display (%s%s%s): "
			 "the display is device.json's, if any",
			 child_clean_exit(c) ? "nothing parsed" : why,
			 child_errline(c)[0] ? ": " : "", child_errline(c));
	}
	child_free(c);
	dl->child = NULL;
}

static int
on_children(void *ctx, uint32_t events)
{
	struct display_live *dl = ctx;

	(void)events;
	return child_set_dispatch(dl->cs);
}

static void
start_read(struct display_live *dl)
{
	char *argv[] = {dl->dumpsys, "display", NULL};
	struct child_spec spec;
	char why[256];

	if (dl->child)
		return;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.out_max = DISPLAY_LIVE_OUT_MAX;
	spec.timeout_ms = DISPLAY_LIVE_TIMEOUT_MS;
	spec.on_exit = on_exit_read;
	spec.ctx = dl;
	if (child_spawn(dl->cs, &spec, &dl->child, why, sizeof(why)) < 0) {
		dl->child = NULL;
		if (!dl->failed++)
			log_info("%s", why);
	}
}

static int
on_timer(void *ctx)
{
	struct display_live *dl = ctx;

	start_read(dl);
	return loop_timer_at(dl->timer, loop_now_ns() + dl->refresh_ms * MS);
}

int
display_live_new(const struct display_live_config *cfg,
		 struct display_live **out)
{
	struct display_live *dl;
	int rc;

	*out = NULL;
	if (!child_can_run(cfg->dumpsys_bin ? cfg->dumpsys_bin : "dumpsys"))
		return 0;
	dl = calloc(1, sizeof(*dl));
	if (!dl)
		return -ENOMEM;
	dl->on_read = cfg->on_read;
	dl->ctx = cfg->ctx;
	dl->refresh_ms =
		cfg->refresh_ms > 0 ? cfg->refresh_ms : DISPLAY_LIVE_REFRESH_MS;
	dl->dumpsys = strdup(cfg->dumpsys_bin ? cfg->dumpsys_bin : "dumpsys");
	rc = dl->dumpsys ? child_set_new(&dl->cs) : -ENOMEM;
	if (rc == 0) {
		rc = loop_add_fd(cfg->loop, child_set_fd(dl->cs), EPOLLIN,
				 on_children, dl);
		if (rc == 0)
			dl->loop = cfg->loop;
	}
	if (rc == 0)
		rc = loop_timer_new(cfg->loop, on_timer, dl, &dl->timer);
	/* The first read at once, at the loop's first wait. */
	if (rc == 0)
		rc = loop_timer_at(dl->timer, loop_now_ns());
	if (rc < 0) {
		log_error("cannot set up dumpsys display: %s", strerror(-rc));
		display_live_free(dl);
		return rc;
	}
	*out = dl;
	return 0;
}

void
display_live_free(struct display_live *dl)
{
	if (!dl)
		return;
	/* The timer is the loop's: it only has to stop calling dl. */
	if (dl->timer)
		loop_timer_at(dl->timer, INT64_MAX);
	if (dl->loop)
		loop_del_fd(dl->loop, child_set_fd(dl->cs));
	child_free(dl->child);
	child_set_free(dl->cs);
	free(dl->dumpsys);
	free(dl);
}

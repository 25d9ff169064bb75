#include "frames_notify.h"

#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "log.h"

int
frames_notify_open(unsigned poll_ms)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		log_info("frames: no inotify (%s): the trace file is read "
			 "every %u ms",
			 strerror(errno), poll_ms);
	return fd;
}

int
frames_notify_watch(int fd, const char *path)
{
	if (fd < 0)
		return -1;
	return inotify_add_watch(fd, path, IN_MODIFY | IN_CLOSE_WRITE);
}

void
frames_notify_unwatch(int fd, int wd)
{
	if (fd >= 0 && wd >= 0)
		inotify_rm_watch(fd, wd);
}

int
frames_notify_drain(int fd)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int any = 0;

	if (fd < 0)
		return 0;
	/* Which file does not matter: the caller reads every open one. */
	while (read(fd, buf, sizeof(buf)) > 0)
		any = 1;
	return any;
}

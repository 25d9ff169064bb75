#include "pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "log.h"

int
pidfile_take(const char *path, int *out)
{
	char buf[32];
	int fd, n, rc;

	*out = -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		log_error("cannot open pidfile '%s': %s", path,
			  strerror(errno));
		return rc;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc = errno == EWOULDBLOCK ? -EEXIST : -errno;
		n = (int)read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		log_error("cannot take pidfile '%s': tapd is already running "
			  "(pid %s)",
			  path, buf[0] ? buf : "?");
		close(fd);
		return rc;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || write(fd, buf, (size_t)n) != n) {
		rc = -errno;
		log_error("cannot write pidfile '%s': %s", path,
			  strerror(errno));
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

void
pidfile_release(const char *path, int fd)
{
	if (fd < 0)
		return;
	unlink(path);
	close(fd);
}

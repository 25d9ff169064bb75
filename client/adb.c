/*
 * adb, run as a child with its stdout read through a pipe: see adb.h.
 */
#include "adb.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arg.h"
#include "cmd.h"

/* adb answers in a few lines; a command of tapctl --all in more. */
#define ADB_OUT_MAX (4 * 1024 * 1024)

/* $ADB, else adb from PATH. */
static const char *
adb_bin(void)
{
	const char *env = getenv("ADB");

	return env && *env ? env : "adb";
}

int
adb_exec(char **argv, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	*out = NULL;
	if (pipe(fds) < 0) {
		cmd_err("cannot run '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	if ((buf = malloc(ADB_OUT_MAX + 1)) == NULL) {
		close(fds[0]);
		close(fds[1]);
		cmd_err("cannot run '%s': out of memory", argv[0]);
		return -1;
	}
	fflush(stdout);
	if ((pid = fork()) < 0) {
		cmd_err("cannot run '%s': %s", argv[0], strerror(errno));
		close(fds[0]);
		close(fds[1]);
		free(buf);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fds[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "tapctl: cannot run '%s': %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		n = read(fds[0], buf + len, ADB_OUT_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == ADB_OUT_MAX)
			break;
	}
	close(fds[0]);
	buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*out = buf;
	if (!WIFEXITED(status))
		return 128;
	return WEXITSTATUS(status);
}

/* adb_exec() of adb itself (argv[0] set here). */
static int
adb_run(char **argv, char **out)
{
	argv[0] = (char *)(uintptr_t)adb_bin();
	return adb_exec(argv, out);
}

int
adb_devices(struct adb_device **out, size_t *n)
{
	struct adb_device *list = NULL, *grown;
	char *argv[] = {NULL, (char *)(uintptr_t) "devices", NULL};
	char *text = NULL, *line, *next, *tab;
	size_t count = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = adb_run(argv, &text);
	if (rc != 0) {
		if (rc > 0)
			cmd_err("'%s devices' failed (exit %d)", adb_bin(), rc);
		free(text);
		return -1;
	}
	/* "List of devices attached", then "SERIAL\tSTATE" lines. */
	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		tab = strchr(line, '\t');
		if (!tab || tab == line)
			continue;
		*tab++ = '\0';
		if (strlen(line) >= sizeof(list->serial))
			continue;
		grown = realloc(list, (count + 1) * sizeof(*list));
		if (!grown) {
			cmd_err("cannot list the adb devices: out of memory");
			free(list);
			free(text);
			return -1;
		}
		list = grown;
		snprintf(list[count].serial, sizeof(list[count].serial), "%s",
			 line);
		tab[strcspn(tab, " \t")] = '\0';
		snprintf(list[count].state, sizeof(list[count].state), "%s",
			 tab);
		count++;
	}
	free(text);
	*out = list;
	*n = count;
	return 0;
}

int
adb_forward(const char *serial, int remote_port, int *local_port)
{
	char remote[32], *text = NULL;
	char *argv[] = {NULL,
			(char *)(uintptr_t) "-s",
			(char *)(uintptr_t)serial,
			(char *)(uintptr_t) "forward",
			(char *)(uintptr_t) "tcp:0",
			remote,
			NULL};
	double port;
	int rc;

	snprintf(remote, sizeof(remote), "tcp:%d", remote_port);
	rc = adb_run(argv, &text);
	if (rc == 0) {
		/* adb prints the local port it picked. */
		text[strcspn(text, "\r\n")] = '\0';
		if (arg_double(text, 1, 65535, &port) < 0 ||
		    port != (int)port) {
			cmd_err("'%s -s %s forward' printed '%.40s', not a "
				"port",
				adb_bin(), serial, text);
			rc = -1;
		} else {
			*local_port = (int)port;
		}
	} else if (rc > 0) {
		cmd_err("cannot forward a port to device '%s' (adb exit %d)",
			serial, rc);
		rc = -1;
	}
	free(text);
	return rc;
}

int
adb_forward_remove(const char *serial, int local_port)
{
	char local[32], *text = NULL;
	char *argv[] = {NULL,
			(char *)(uintptr_t) "-s",
			(char *)(uintptr_t)serial,
			(char *)(uintptr_t) "forward",
			(char *)(uintptr_t) "--remove",
			local,
			NULL};
	int rc;

	snprintf(local, sizeof(local), "tcp:%d", local_port);
	rc = adb_run(argv, &text);
	free(text);
	if (rc > 0)
		cmd_err("cannot remove the forward of port %d to device '%s' "
			"(adb exit %d)",
			local_port, serial, rc);
	return rc == 0 ? 0 : -1;
}

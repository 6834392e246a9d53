// SPDX-License-Identifier: MIT
/* flipbed plugin tests: the shared harness (see helper.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "helper.h"

static char dir[64];
static pid_t server = -1;
static char *extra_args[32];
static size_t nextra;

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	return remove(path);
}

/* Print and count sanitizer reports the sanitized plugin left. */
static int sanitizer_reports(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char buf[4096];
		size_t got;
		FILE *fp;

		if (strncmp(e->d_name, "asan.", 5) && strncmp(e->d_name, "ubsan.", 6))
			continue;
		n++;
		fprintf(stderr, "sanitizer report %s:\n", e->d_name);
		fp = fopen(fbt_path(e->d_name), "r");
		while (fp && (got = fread(buf, 1, sizeof buf, fp)) > 0)
			fwrite(buf, 1, got, stderr);
		if (fp)
			fclose(fp);
	}
	if (d)
		closedir(d);
	return n;
}

static void show_server_log(void)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "tail -n 30 %s/nbdkit.log >&2", dir);
	if (system(cmd) < 0)
		perror("system");
}

static void cleanup(void)
{
	int reports;

	if (server > 0) {
		kill(server, SIGKILL);
		waitpid(server, NULL, 0);
		server = -1;
	}
	if (!dir[0])
		return;
	reports = sanitizer_reports();
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	dir[0] = '\0';
	if (reports)
		_exit(1);
}

int fbt_finish(int failed)
{
	if (failed && dir[0] && access(fbt_path("nbdkit.log"), F_OK) == 0)
		show_server_log();
	return failed;
}

const char *fbt_dir(void)
{
	if (!dir[0]) {
		strcpy(dir, "/tmp/flipbed-test.XXXXXX");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			exit(1);
		}
		atexit(cleanup);
		signal(SIGPIPE, SIG_IGN);
	}
	return dir;
}

char *fbt_path(const char *name)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof bufs[0], "%s/%s", fbt_dir(), name);
	return b;
}

uint8_t fbt_pattern(uint64_t i)
{
	return (uint8_t)(i * 131 + (i >> 9) + 7);
}

void fbt_make_image(uint64_t size)
{
	uint8_t buf[65536];
	uint64_t off, i;
	int fd = open(fbt_path("image"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	fbt_assert(fd >= 0, "create image: %m");
	for (off = 0; off < size; off += sizeof buf) {
		size_t n = size - off < sizeof buf ? size - off : sizeof buf;

		for (i = 0; i < n; i++)
			buf[i] = fbt_pattern(off + i);
		fbt_assert(pwrite(fd, buf, n, off) == (ssize_t)n,
			   "write image: %m");
	}
	close(fd);
}

void fbt_read_image(void *buf, uint64_t len, uint64_t off)
{
	int fd = open(fbt_path("image"), O_RDONLY);

	fbt_assert(fd >= 0 && pread(fd, buf, len, off) == (ssize_t)len,
		   "read image: %m");
	close(fd);
}

void fbt_write_image(const void *buf, uint64_t len, uint64_t off)
{
	int fd = open(fbt_path("image"), O_WRONLY);

	fbt_assert(fd >= 0 && pwrite(fd, buf, len, off) == (ssize_t)len,
		   "write image: %m");
	close(fd);
}

const char *fbt_nbdkit_env(void)
{
#ifdef FB_LIBASAN
	return "LD_PRELOAD=" FB_LIBASAN " ASAN_OPTIONS=detect_leaks=0 ";
#else
	return "";
#endif
}

/* As tests/lib.sh's skip: under CI a missing prerequisite is a failure. */
static void require_nbdkit(void)
{
	const char *ci = getenv("CI");

	if (system("nbdkit --version >/dev/null 2>&1") == 0)
		return;
	if (ci && strcmp(ci, "true") == 0)
		fail_msg("under CI a prerequisite must be there: nbdkit is "
			 "not installed (Debian package nbdkit)");
	printf("nbdkit is not installed (Debian package nbdkit)\n");
	exit(77);
}

/* fork + exec nbdkit -f serving on NAME.sock with its pid in NAME.pid,
 * with the given words.
 */
static pid_t spawn(const char *name, char **words, size_t nwords,
		   const char *log)
{
	char sock[600], pidfile[600];
	char *argv[64];
	size_t argc = 0, i;
	pid_t pid;

	argv[argc++] = "nbdkit";
	argv[argc++] = "-f";
	argv[argc++] = "--exit-with-parent";
	snprintf(sock, sizeof sock, "%s/%s.sock", fbt_dir(), name);
	snprintf(pidfile, sizeof pidfile, "%s/%s.pid", fbt_dir(), name);
	argv[argc++] = "-U";
	argv[argc++] = sock;
	argv[argc++] = "-P";
	argv[argc++] = pidfile;
	argv[argc++] = FB_PLUGIN;
	for (i = 0; i < nwords && argc < 63; i++)
		argv[argc++] = words[i];
	argv[argc] = NULL;
	unlink(pidfile);
	unlink(sock);	/* nbdkit leaves it behind */
	fflush(NULL);
	pid = fork();
	fbt_assert(pid >= 0, "fork: %m");
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		dup2(fd, 2);
		dup2(fd, 1);
#ifdef FB_LIBASAN
		{
			char opt[1024];

			/* nbdkit itself (not built with ASan) leaks a little
			 * at exit: suppress leaks allocated directly by its
			 * code, keep the plugin's.
			 */
			snprintf(opt, sizeof opt, "%s/lsan.supp", dir);
			fd = open(opt, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (write(fd, "leak:/usr/bin/nbdkit\n", 21) != 21)
				_exit(127);
			close(fd);
			setenv("LD_PRELOAD", FB_LIBASAN, 1);
			snprintf(opt, sizeof opt, "suppressions=%s/lsan.supp:"
				 "print_suppressions=0", dir);
			setenv("LSAN_OPTIONS", opt, 1);
			snprintf(opt, sizeof opt, "log_path=%s/asan:detect_leaks=1:"
				 "malloc_context_size=2", dir);
			setenv("ASAN_OPTIONS", opt, 1);
			snprintf(opt, sizeof opt,
				 "log_path=%s/ubsan:print_stacktrace=1", dir);
			setenv("UBSAN_OPTIONS", opt, 1);
		}
#endif
		execvp("nbdkit", argv);
		_exit(127);
	}
	return pid;
}

static void std_words(char **w, size_t *n)
{
	static char file[600], ctl[600], log[600];

	snprintf(file, sizeof file, "file=%s", fbt_path("image"));
	snprintf(ctl, sizeof ctl, "control=%s", fbt_path("ctl.sock"));
	snprintf(log, sizeof log, "faultlog=%s", fbt_path("faultlog.json"));
	w[(*n)++] = file;
	w[(*n)++] = ctl;
	w[(*n)++] = log;
}

static void start_words(void)
{
	char *w[48];
	size_t n = 0, i;
	int status;

	std_words(w, &n);
	for (i = 0; i < nextra; i++)
		w[n++] = extra_args[i];
	server = spawn("nbd", w, n, fbt_path("nbdkit.log"));
	for (i = 0; i < 1000; i++) {
		if (access(fbt_path("nbd.pid"), F_OK) == 0)
			return;
		if (waitpid(server, &status, WNOHANG) == server) {
			server = -1;
			fail_msg("nbdkit exited at start (status 0x%x)",
				 status);
		}
		sleep_ms(10);
	}
	fail_msg("nbdkit did not write its pid file within 10 s");
}

void fbt_start(const char *extra, ...)
{
	va_list ap;
	const char *s;

	require_nbdkit();
	fbt_dir();
	while (nextra > 0)
		free(extra_args[--nextra]);
	va_start(ap, extra);
	for (s = extra; s && nextra < 31; s = va_arg(ap, const char *))
		extra_args[nextra++] = strdup(s);
	va_end(ap);
	start_words();
}

int fbt_serve(uint64_t size)
{
	fbt_make_image(size);
	fbt_start(NULL);
	return 0;
}

#ifdef FB_LIBASAN
static bool log_has_error(void)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "grep -q 'error:' %s", fbt_path("fail.log"));
	return system(cmd) == 0;
}
#endif

char *fbt_start_fails(const char *first, ...)
{
	char *w[48], *out;
	size_t n = 0, i;
	const char *s;
	va_list ap;
	int status = 0;
	FILE *fp;
	long len;
	pid_t pid;

	require_nbdkit();
	unlink(fbt_path("fail.log"));
	va_start(ap, first);
	for (s = first; s; s = va_arg(ap, const char *))
		w[n++] = (char *)s;
	va_end(ap);
	/* Its own socket and pid file: a running server keeps its own. */
	pid = spawn("fail", w, n, fbt_path("fail.log"));
	for (i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) != pid; i++) {
#ifdef FB_LIBASAN
		/* With libasan preloaded, nbdkit (even with its own file
		 * plugin) can deadlock in exit() after an error formatted
		 * with %m (glibc's locale lock, p11-kit's destructor).
		 */
		if (i == 300 && log_has_error()) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			status = 1 << 8;
			break;
		}
#endif
		sleep_ms(10);
	}
	if (i == 1000) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("nbdkit %s did not fail within 10 s", first);
	}
	fbt_assert(WIFEXITED(status) && WEXITSTATUS(status) != 0,
		   "nbdkit should have failed (status 0x%x)", status);
	fp = fopen(fbt_path("fail.log"), "r");
	fbt_assert(fp != NULL, "fail.log: %m");
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	out = calloc(1, len + 1);
	assert_int_equal(fread(out, 1, len, fp), len);
	fclose(fp);
	return out;
}

void fbt_stop(void)
{
	int status, reports, i;
	pid_t r = 0;

	if (server <= 0)
		return;
	kill(server, SIGTERM);
	/* nbdkit waits for its clients to leave: a connection that a failed
	 * case left open would hold it, and the test, for ever.
	 */
	for (i = 0; i < 1000 && (r = waitpid(server, &status, WNOHANG)) == 0;
	     i++)
		sleep_ms(10);
	if (r == 0) {
		kill(server, SIGKILL);
		waitpid(server, NULL, 0);
	}
	server = -1;
	fbt_assert(r != 0, "nbdkit did not exit within 10 s of SIGTERM (a "
		   "client still connected?)");
	fbt_assert(r > 0, "waitpid: %m");
	fbt_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "nbdkit exited with status 0x%x", status);
	reports = sanitizer_reports();
	fbt_assert(reports == 0, "the sanitized plugin reported %d errors",
		   reports);
}

void fbt_stop_case(void **state)
{
	fbt_stop();
}

void fbt_restart(void)
{
	fbt_stop();
	start_words();
}

struct nbd_handle *fbt_connect(void)
{
	struct nbd_handle *h = nbd_create();
	char uri[600];

	fbt_assert(h != NULL, "nbd_create: %s", nbd_get_error());
	nbd_add_meta_context(h, LIBNBD_CONTEXT_BASE_ALLOCATION);
	snprintf(uri, sizeof uri, "nbd+unix:///?socket=%s", fbt_path("nbd.sock"));
	fbt_assert(nbd_connect_uri(h, uri) == 0, "connect: %s",
		   nbd_get_error());
	return h;
}

int fbt_connect_setup(void **state)
{
	*state = fbt_connect();
	return 0;
}

int fbt_connect_teardown(void **state)
{
	nbd_close(*state);
	return 0;
}

void fbt_pread(struct nbd_handle *h, void *buf, size_t len, uint64_t off)
{
	fbt_assert(nbd_pread(h, buf, len, off, 0) == 0, "pread %zu at %lu: %s",
		   len, (unsigned long)off, nbd_get_error());
}

void fbt_pwrite(struct nbd_handle *h, const void *buf, size_t len,
		uint64_t off, uint32_t flags)
{
	fbt_assert(nbd_pwrite(h, buf, len, off, flags) == 0,
		   "pwrite %zu at %lu: %s", len, (unsigned long)off,
		   nbd_get_error());
}

int fbt_ctl_open(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(a.sun_path, fbt_path("ctl.sock"));
	fbt_assert(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0,
		   "connect control socket: %m");
	return fd;
}

/* True when buf ends with a complete "ok..." or "err..." line. */
static bool complete(const char *buf, size_t n)
{
	const char *last;

	if (n == 0 || buf[n - 1] != '\n')
		return false;
	for (last = buf + n - 1; last > buf && last[-1] != '\n'; last--)
		;
	return strncmp(last, "ok", 2) == 0 || strncmp(last, "err", 3) == 0;
}

char *fbt_ctl_fd(int fd, const char *line)
{
	size_t cap = 4096, n = 0, len = strlen(line);
	char *buf = malloc(cap);

	fbt_assert(send(fd, line, len, MSG_NOSIGNAL) == (ssize_t)len &&
		   send(fd, "\n", 1, MSG_NOSIGNAL) == 1, "send '%s': %m", line);
	while (!complete(buf, n)) {
		ssize_t r;

		if (cap - n < 1024)
			buf = realloc(buf, cap *= 2);
		r = recv(fd, buf + n, cap - n - 1, 0);
		fbt_assert(r > 0, "control socket closed after '%s'", line);
		n += r;
	}
	buf[n] = '\0';
	return buf;
}

char *fbt_ctl(const char *line)
{
	static char *last;
	int fd = fbt_ctl_open();

	free(last);
	last = fbt_ctl_fd(fd, line);
	close(fd);
	return last;
}

char *fbt_ctl_ok(const char *line)
{
	char *r = fbt_ctl(line);

	fbt_assert(strncmp(r, "ok", 2) == 0 || strstr(r, "\nok") != NULL,
		   "'%s' answered '%s'", line, r);
	return r;
}

json_t *fbt_faultlog(void)
{
	json_t *a = json_array();
	FILE *fp = fopen(fbt_path("faultlog.json"), "r");
	char *line = NULL;
	size_t cap = 0;

	fbt_assert(fp != NULL, "open fault log: %m");
	while (getline(&line, &cap, fp) > 0) {
		json_error_t e;
		json_t *o = json_loads(line, 0, &e);

		fbt_assert(o != NULL, "fault log line is not JSON (%s): %s",
			   e.text, line);
		json_array_append_new(a, o);
	}
	free(line);
	fclose(fp);
	return a;
}

// SPDX-License-Identifier: MIT
/*
 * flipbed boot: serve an image with nbdkit, boot a kernel variant with the
 * guest agent, run the given steps, stream what happens, and say whether
 * every step met its expectation. See harness/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "kernels.h"
#include "kernel_modules.h"
#include "paths.h"
#include "guest/steps.h"
#include "boot/nbd.h"
#include "boot/vm.h"
#include "util.h"

#define MAX_RULES 64
#define FB_BOOT_MAX_CPUS 4	/* --cpus: more vCPUs than host cores only slow each other */
#define TAIL_LINES 80

struct rule_at {
	const char *name, *rule;
};

struct boot {
	const char *variant, *image, *faultlog, *source, *writelog;
	double timeout;
	int console, cpus;
	const char *steps[STEP_MAX_STEPS];
	struct step parsed[STEP_MAX_STEPS];
	char result[STEP_MAX_STEPS][24];	/* "ok", an errno name, or "" (none yet) */
	int nsteps;
	const char *rules[MAX_RULES];
	int nrules;
	struct rule_at at[MAX_RULES];
	int nat;
	struct fb_nbd nbd;
	char *tail[TAIL_LINES];		/* the console's last lines */
	int ntail;
	int bad_rule;
};

static void help(void)
{
	printf("usage: flipbed boot [--kernel NAME | --kernel-image PATH [--modules DIR]] --image IMAGE\n"
	       "                    [--step 'STEP']...\n"
	       "                    [--timeout S] [--rule 'RULE']... [--rule-at NAME 'RULE']...\n"
	       "                    [--faultlog FILE] [--writelog FILE] [--source IMAGE] [--console]\n"
	       "                    [--cpus N]\n"
	       "Boots the kernel NAME (default patched; kernel/kernels.ini: %s)\n"
	       "under QEMU with IMAGE as /dev/vda, runs the steps in the guest agent,\n"
	       "streams step results and kernel messages.\n"
	       "--kernel-image boots a vmlinux or bzImage built elsewhere, once it is checked\n"
	       "for virtio-mmio, virtio-blk, virtio_console (its serial port), the 8250 console and ext4;\n"
	       "--modules DIR gives those it has as modules (lib/modules/RELEASE).\n"
	       "--source attaches another ext4 image read-only as /dev/vdb for 'copy-source'.\n"
	       "--writelog FILE records every write, zero, trim and flush that reaches IMAGE\n"
	       "(the plugin's write log; flipbed-replay rebuilds IMAGE at any flush from it).\n"
	       "--cpus N gives the guest N vCPUs (1 to %d; default 1), each a host thread, so\n"
	       "that a race between guest threads runs truly in parallel.\n"
	       "A step may start with 'expect ERRNAME' (must fail with it) or 'may' (not counted).\n"
	       "Exit: 0 all steps met and the guest ended cleanly, 1 not, 2 bad input,\n"
	       "3 QEMU/nbdkit failed, 4 timeout, 128+N killed by signal N. Steps:\n",
	       fb_kernel_names(), FB_BOOT_MAX_CPUS);
	step_list(stdout);
}

static int parse_number(const char *arg, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	return *end || *out <= 0 ? -1 : 0;
}

static int parse_args(struct boot *b, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "kernel-image", required_argument, NULL, 'K' },
		{ "modules", required_argument, NULL, 'M' },
		{ "image", required_argument, NULL, 'i' },
		{ "step", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "rule", required_argument, NULL, 'r' },
		{ "rule-at", required_argument, NULL, 'a' },
		{ "faultlog", required_argument, NULL, 'f' },
		{ "source", required_argument, NULL, 'S' },
		{ "writelog", required_argument, NULL, 'w' },
		{ "console", no_argument, NULL, 'c' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	b->variant = "patched";
	b->timeout = 60;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': b->variant = optarg; break;
		case 'K':
			if (fb_kernel_add_image(optarg, &b->variant))
				return EXIT_BADINPUT;
			break;
		case 'M':
			if (fb_kernel_add_modules(optarg))
				return EXIT_BADINPUT;
			break;
		case 'i': b->image = optarg; break;
		case 'f': b->faultlog = optarg; break;
		case 'S': b->source = optarg; break;
		case 'w': b->writelog = optarg; break;
		case 'c': b->console = 1; break;
		case 'C': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || end == optarg || n < 1 || n > FB_BOOT_MAX_CPUS)
				return fb_bad_input("flipbed boot", "--cpus '%s': accepted: 1 to %d",
						    optarg, FB_BOOT_MAX_CPUS);
			b->cpus = (int)n;
			break;
		}
		case 'h': help(); exit(EXIT_MET);
		case 's':
			if (b->nsteps == STEP_MAX_STEPS)
				return fb_bad_input("flipbed boot", "more than %d --step options",
						    STEP_MAX_STEPS);
			b->steps[b->nsteps++] = optarg;
			break;
		case 't':
			if (parse_number(optarg, &b->timeout))
				return fb_bad_input("flipbed boot", "--timeout '%s': accepted: seconds, a number above 0",
						    optarg);
			break;
		case 'r':
			if (b->nrules == MAX_RULES)
				return fb_bad_input("flipbed boot", "more than %d --rule options",
						    MAX_RULES);
			b->rules[b->nrules++] = optarg;
			break;
		case 'a':
			if (optind >= argc)
				return fb_bad_input("flipbed boot", "--rule-at needs two arguments: NAME 'RULE'");
			if (b->nat == MAX_RULES)
				return fb_bad_input("flipbed boot", "more than %d --rule-at options",
						    MAX_RULES);
			b->at[b->nat++] = (struct rule_at){ optarg, argv[optind++] };
			break;
		default:
			return fb_bad_input("flipbed boot", "unknown option or missing argument '%s'; see flipbed boot --help",
					    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fb_bad_input("flipbed boot", "unexpected argument '%s'; steps are given with --step 'STEP'",
				    argv[optind]);
	if (fb_kernel_image_finish())
		return EXIT_BADINPUT;
	return 0;
}

static int check_steps(struct boot *b)
{
	char why[1024];

	for (int i = 0; i < b->nsteps; i++)
		if (step_parse(b->steps[i], &b->parsed[i], why, sizeof(why)))
			return fb_bad_input("flipbed boot", "--step %d: %s", i + 1, why);
		else if (b->parsed[i].id == STEP_CRASH && i + 1 < b->nsteps)
			return fb_bad_input("flipbed boot", "--step %d: crash must be the last step (the guest is gone after it)",
					    i + 1);
	for (int a = 0; a < b->nat; a++) {
		int found = 0;

		for (int i = 0; i < b->nsteps; i++)
			found |= b->parsed[i].id == STEP_WAIT &&
				 !strcmp(b->parsed[i].argv[0], b->at[a].name);
		if (!found)
			return fb_bad_input("flipbed boot", "--rule-at %s: no step 'wait %s'; add --step 'wait %s' where the fault should be armed",
					    b->at[a].name, b->at[a].name, b->at[a].name);
	}
	return 0;
}

/* IMAGE must be a writable ext2/3/4 image: magic 0xEF53 at byte 1080. */
static int check_image(const char *image)
{
	unsigned char m[2];
	int fd;

	if (!image)
		return fb_bad_input("flipbed boot", "--image IMAGE is required (an ext4 image file, e.g. made by mkfs.ext4)");
	fd = open(image, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fb_bad_input("flipbed boot", "--image %s: %s; accepted: an existing, writable ext4 image file",
				    image, strerror(errno));
	if (pread(fd, m, 2, 1080) != 2 || m[0] != 0x53 || m[1] != 0xef) {
		close(fd);
		return fb_bad_input("flipbed boot", "--image %s: not an ext4 image (no superblock magic 0xEF53 at byte 1080)",
				    image);
	}
	close(fd);
	return 0;
}

/*
 * The source disk is only read (QEMU opens it read-only); its path goes
 * into a QEMU option string, where a comma would split it.
 */
static int check_source(const char *source)
{
	unsigned char m[2];
	int fd;

	if (!source)
		return 0;
	if (strchr(source, ','))
		return fb_bad_input("flipbed boot", "--source %s: a path with a comma cannot be passed to QEMU; link or move it",
				    source);
	fd = open(source, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fb_bad_input("flipbed boot", "--source %s: %s; accepted: an existing ext4 image file",
				    source, strerror(errno));
	if (pread(fd, m, 2, 1080) != 2 || m[0] != 0x53 || m[1] != 0xef) {
		close(fd);
		return fb_bad_input("flipbed boot", "--source %s: not an ext4 image (no superblock magic 0xEF53 at byte 1080); make one with mke2fs -d TREE",
				    source);
	}
	close(fd);
	return 0;
}

/*
 * The write log is created (and truncated) by the plugin when it starts:
 * a log path naming the image or the source disk would destroy it, so the
 * same file is refused; the path must be a file flipbed can create.
 */
static int check_writelog(const struct boot *b)
{
	const char *disks[] = { b->image, b->source };
	struct stat st, d;
	int fd;

	if (!b->writelog)
		return 0;
	if (!stat(b->writelog, &st))
		for (size_t i = 0; i < sizeof(disks) / sizeof(disks[0]); i++)
			if (disks[i] && !stat(disks[i], &d) && d.st_dev == st.st_dev &&
			    d.st_ino == st.st_ino)
				return fb_bad_input("flipbed boot", "--writelog %s: is the disk %s; the log would overwrite it",
						    b->writelog, disks[i]);
	fd = open(b->writelog, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return fb_bad_input("flipbed boot", "--writelog %s: %s; accepted: a file path flipbed can create",
				    b->writelog, strerror(errno));
	close(fd);
	return 0;
}

static int check_built(struct boot *b, char *kernel, char *initrd, char *plugin)
{
	const char *bd = build_dir();
	const struct fb_kernel *k = fb_kernel_find(b->variant);

	if (!k)
		return fb_bad_input("flipbed boot", "--kernel '%s': accepted: %s",
				    b->variant, fb_kernel_names());
	fb_path_kernel(k, kernel, PATH_MAX);
	if (access(kernel, R_OK))
		return fb_bad_input("flipbed boot", "kernel variant '%s' is not built (%s missing); build it with 'make %s'",
				    b->variant, kernel, k->make_target);
	fb_path_initrd(initrd, PATH_MAX);
	if (access(initrd, R_OK))
		return fb_bad_input("flipbed boot", "%s is not built; build it with 'make %s'",
				    initrd, "build/guest/initramfs.cpio.gz");
	if (!fb_modules_initrd(k, initrd, PATH_MAX))
		return EXIT_BADINPUT;
	if (access(initrd, R_OK))
		return fb_bad_input("flipbed boot", "%s is not built; build it with 'make %s'",
				    initrd, "build/guest/initramfs.cpio.gz");
	fb_path_plugin(plugin, PATH_MAX);
	if (access(plugin, R_OK)) {
		*plugin = '\0';
		if (b->nrules || b->nat || b->faultlog || b->writelog)
			return fb_bad_input("flipbed boot", "--rule, --rule-at, --faultlog and --writelog need the flipbed nbdkit plugin, which is not built (%s/lib/nbdkit-flipbed-plugin.so; 'make %s'); without them the image is served by nbdkit's file plugin",
					    bd, "build/lib/nbdkit-flipbed-plugin.so");
	}
	return 0;
}

/* Send "add RULE"; 0 armed, EXIT_BADINPUT refused, EXIT_INFRA unreachable. */
static int arm(struct boot *b, const char *where, const char *rule)
{
	char line[1024], reply[512];
	int rc;

	snprintf(line, sizeof(line), "add %s", rule);
	rc = fb_nbd_control(&b->nbd, line, reply, sizeof(reply));
	printf("flipbed: %s: add %s -> %s\n", where, rule, reply);
	if (rc > 0) {
		b->bad_rule = 1;
		fprintf(stderr, "flipbed boot: rule '%s' refused by the plugin: %s\n", rule, reply);
		return EXIT_BADINPUT;
	}
	if (rc < 0) {
		fprintf(stderr, "flipbed boot: %s\n", reply);
		return EXIT_INFRA;
	}
	return 0;
}

static void on_console(void *ctx, const char *line)
{
	struct boot *b = ctx;

	if (b->console)
		printf("console %s\n", line);
	free(b->tail[b->ntail % TAIL_LINES]);
	b->tail[b->ntail++ % TAIL_LINES] = xstrdup(line);
}

static void on_agent(void *ctx, const char *line)
{
	struct boot *b = ctx;
	int n;

	printf("%s\n", line);
	if (sscanf(line, "step %d ", &n) == 1 && n >= 1 && n <= b->nsteps)
		fb_vm_step_result(line, n, b->steps[n - 1], b->result[n - 1],
			       sizeof(b->result[n - 1]));
}

static int on_wait(void *ctx, const char *name)
{
	struct boot *b = ctx;
	char where[128];

	snprintf(where, sizeof(where), "at wait %s", name);
	for (int a = 0; a < b->nat; a++)
		if (!strcmp(b->at[a].name, name) && arm(b, where, b->at[a].rule))
			return -1;
	return 0;
}

static void print_times(const struct fb_vm_times *t)
{
	char s[5][32];
	const double v[5] = {
		t->channel,
		t->console,
		t->ready >= 0 && t->channel >= 0 ? t->ready - t->channel : -1,
		t->done >= 0 && t->ready >= 0 ? t->done - t->ready : -1,
		t->done >= 0 && t->exit >= 0 ? t->exit - t->done : -1,
	};

	for (int i = 0; i < 5; i++)
		snprintf(s[i], sizeof(s[i]), v[i] < 0 ? "-" : "%.3f", v[i]);
	printf("flipbed: times qemu-start %s first-console %s kernel+agent-start %s steps %s reboot %s total %.3f s, qemu cpu %.3f s\n",
	       s[0], s[1], s[2], s[3], s[4], t->exit, t->cpu);
}

/* Count the steps; print the unmet ones. Returns the number unmet. */
static int judge(struct boot *b)
{
	int met = 0, unmet = 0, uncounted = 0;

	for (int i = 0; i < b->nsteps; i++) {
		const struct step *s = &b->parsed[i];

		if (s->expect == EXPECT_ANY) {
			uncounted++;
		} else if (*b->result[i] && step_met(s, b->result[i])) {
			met++;
		} else {
			unmet++;
			printf("flipbed: step %d '%s' not met: %s\n", i + 1, b->steps[i],
			       *b->result[i] ? b->result[i] : "no result");
		}
	}
	printf("flipbed: %d steps: %d met, %d not met, %d not counted (may)\n",
	       b->nsteps, met, unmet, uncounted);
	return unmet;
}

static int boot(struct boot *b, const char *kernel, const char *initrd,
		const char *plugin, const char *dir)
{
	struct fb_nbd_config nc = { b->image, *plugin ? plugin : NULL, b->faultlog, dir,
				    b->writelog };
	struct fb_vm_config vc = {
		.kernel = kernel, .initrd = initrd, .disk_sock = b->nbd.sock, .dir = dir,
		.source = b->source,
		.mem_mb = fb_kernel_find(b->variant)->mem_mb, .cpus = b->cpus,
		.pci = fb_kernel_find(b->variant)->modules != NULL,
		.timeout = b->timeout, .steps = b->steps, .nsteps = b->nsteps,
		.peer = &b->nbd.proc,
	};
	struct fb_vm_hooks hooks = { .ctx = b, .console = on_console, .agent = on_agent,
				     .wait = on_wait };
	struct fb_vm_result r;
	char why[1024];
	int rc, unmet;

	if (!*plugin)
		printf("flipbed: serving %s with nbdkit's file plugin (the flipbed plugin is not built)\n",
		       b->image);
	if (fb_nbd_start(&b->nbd, &nc, why, sizeof(why))) {
		if (fb_proc_interrupted())
			return 128 + fb_proc_interrupted();
		fprintf(stderr, "flipbed boot: %s\n", why);
		return EXIT_INFRA;
	}
	vc.disk_sock = b->nbd.sock;
	for (int i = 0; i < b->nrules; i++)
		if ((rc = arm(b, "before boot", b->rules[i])))
			return rc;
	fb_vm_run(&vc, &hooks, &r);
	fb_nbd_stop(&b->nbd);
	if (r.end != FB_VM_END_CLEAN && !b->console)
		for (int i = b->ntail > TAIL_LINES ? b->ntail - TAIL_LINES : 0; i < b->ntail; i++)
			printf("console %s\n", b->tail[i % TAIL_LINES]);
	unmet = judge(b);
	print_times(&r.t);
	printf("flipbed: guest end: %s: %s\n", fb_vm_end_name(r.end), r.why);
	switch (r.end) {
	case FB_VM_END_CLEAN: return unmet ? EXIT_UNMET : EXIT_MET;
	case FB_VM_END_REBOOT: return EXIT_UNMET;
	case FB_VM_END_INFRA: return EXIT_INFRA;
	case FB_VM_END_TIMEOUT: return EXIT_TIMEOUT;
	case FB_VM_END_INTERRUPTED: return 128 + fb_proc_interrupted();
	case FB_VM_END_ABORTED: return b->bad_rule ? EXIT_BADINPUT : EXIT_INFRA;
	}
	return EXIT_INFRA;
}

int cmd_boot(int argc, char **argv)
{
	static struct boot b;
	char kernel[PATH_MAX], initrd[PATH_MAX], plugin[PATH_MAX], dir[PATH_MAX];
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((rc = parse_args(&b, argc, argv)) || (rc = check_steps(&b)) ||
	    (rc = check_image(b.image)) || (rc = check_source(b.source)) ||
	    (rc = check_writelog(&b)) || (rc = check_built(&b, kernel, initrd, plugin)))
		return rc;
	if (fb_proc_init() < 0 || fb_private_dir(dir, sizeof(dir))) {
		fprintf(stderr, "flipbed boot: cannot make a directory %s: %s\n", dir, strerror(errno));
		return EXIT_INFRA;
	}
	rc = boot(&b, kernel, initrd, plugin, dir);
	fb_proc_kill_all();
	if (rc == EXIT_INFRA)
		fprintf(stderr, "flipbed boot: logs kept in %s\n", dir);
	else
		fb_remove_tree(dir);
	return rc;
}

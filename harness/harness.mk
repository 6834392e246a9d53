# SPDX-License-Identifier: MIT
# harness/: the user's command build/bin/flipbed (see harness/README.md).
# One folder per part, each named for what it does:
#   boot/      children that never outlive flipbed (proc.c), nbdkit and its
#              control socket (nbd.c), one QEMU boot with the guest agent
#              (vm.c), and `flipbed boot` (boot.c)
#   scenario/  scenario files (libinih), their ${EXPR} (expr.c), the step
#              vocabulary, matrices, the expectation a fault implies
#              (computed.c) and its cited exceptions (csum_first.c)
#   golden/    golden images: one per mkfs + populate recipe, cached
#   judge/     the checks after a case: e2fsck, the data manifest, the
#              durable files, the undetected cause (judge/judge.mk)
#   witness/   the host side of the guest's witnesses, each with its part
#              of the reports: fserror (FAN_FS_ERROR), bioread (the block
#              layer's reads) (witness/witness.mk)
#   run/       the case engine: one case (runcase.c), many in one boot
#              (batch.c), the workers, progress and the run directory (run.c)
#   cmd/       the arguments of `flipbed run`/`matrix` (run_cmd.c) and
#              `flipbed image` (image_cmd.c), which hand their cases to run/
#   classify/  console transcript -> outcome; klog.c, what each kernel
#              message means (classify/classify.mk)
#   report/    the results library and report/show/diff/merge (report/report.mk)
#   campaign/  seeded scenario generation, findings, the minimizer
#   coverage/  a coverage kernel's gcov counters per case, the checksum
#              verification sites of its source and `flipbed coverage`
#              (coverage/coverage.mk)
#   crash/     power cuts at every flush point of a workload (crash/crash.mk)
#   bisect/    the first kernel commit that changes a case (bisect/bisect.mk)
# main.c dispatches the subcommands declared in cmd.h; util.c, outcome.c
# and the other files at the top are shared by all of them (html.c: the
# text of the pages). Which folder may include which is the table of
# tests/layout.sh. Objects are compiled once; -MMD records which headers
# each one read, so a changed header rebuilds exactly its users.

HARNESS_SRCS := $(addprefix harness/,main.c util.c outcome.c kernels.c kernel_image.c kernel_modules.c kernel_trace.c paths.c options.c html.c \
	boot/boot.c boot/proc.c boot/nbd.c boot/vm.c \
	scenario/scenario.c scenario/expr.c scenario/matrix.c scenario/vocab.c \
	scenario/computed.c scenario/csum_first.c \
	golden/golden.c golden/filehash.c \
	run/target.c run/badobj.c run/runcase.c run/batch.c run/run.c \
	cmd/run_cmd.c cmd/image_cmd.c \
	classify/classify.c classify/klog.c classify/attrib.c classify/split.c classify/order.c \
	campaign/campaign.c campaign/campaign_gen.c campaign/campaign_find.c \
	campaign/campaign_min.c campaign/campaign_guide.c)
# The guest's step table and file pattern, the objects the agent links
# (guest/guest.mk): one source, one object for both.
HARNESS_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(HARNESS_SRCS)) \
	$(B)/obj/guest/steps.o $(B)/obj/guest/pattern.o
# -I. for the guest's headers, included as "guest/steps.h".
HARNESS_CFLAGS = -Iharness -I. -I$(B)/obj/harness $(FBX_CFLAGS) \
	$(call PKG_CFLAGS,inih jansson)
HARNESS_LIBS = $(REPORT_LIB) $(FBX_LIBS) $(call PKG_LIBS,inih jansson)
# The unit tests of every folder (UNIT_TEST, mk/unit-test.mk, in the
# folder's fragment) include the harness's headers as the objects do.
HARNESS_TEST_CFLAGS := -Iharness -I.

# What a guided campaign learns from its cases' coverage (campaign_guide.c).
$(eval $(call UNIT_TEST,test-campaign-guide,harness/tests/test-campaign-guide.c \
	$(B)/obj/harness/campaign/campaign_guide.o $(B)/obj/harness/util.o,jansson,$(HARNESS_TEST_CFLAGS)))

# The golden image's content hash, reading only its data (golden/filehash.c).
$(eval $(call UNIT_TEST,test-filehash,harness/tests/test-filehash.c harness/golden/filehash.c \
	guest/pattern.c,,$(HARNESS_TEST_CFLAGS)))

include harness/classify/classify.mk
include harness/scenario/scenario.mk
include harness/judge/judge.mk
include harness/crash/crash.mk
include harness/bisect/bisect.mk
include harness/report/report.mk
include harness/witness/witness.mk
include harness/coverage/coverage.mk
include harness/tests/fuzz/fuzz.mk

# The kernel registry flipbed carries (kernels.c): kernel/kernels.ini as a
# C string. What links kernels.o reads it with libinih.
KERNELS_INI_H := $(B)/obj/harness/kernels_ini.h
REPORT_LIBS += $(call PKG_LIBS,inih)
$(KERNELS_INI_H): kernel/kernels.ini
	@mkdir -p $(@D)
	{ echo '/* Made from kernel/kernels.ini by harness/harness.mk. */'; \
	  echo 'static const char fb_kernels_ini[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/\t"/; s/$$/\\n"/' $<; \
	  printf '\t"";\n'; } > $@.tmp && mv $@.tmp $@
$(B)/obj/harness/kernels.o: $(KERNELS_INI_H)

ALL += $(B)/bin/flipbed
PACKAGES += nbdkit libnbd-bin qemu-system-x86 e2fsprogs procps libinih-dev attr \
	libjansson-dev libext2fs-dev
# The shell tests read case records with jq: a record is JSON with sorted
# keys, so no field has a fixed place in its line.
PACKAGES += jq
# Every harness/tests/*.sh that names its groups; each says in its header
# what it checks. The unit tests are declared beside the code they test.
TESTS += $(call SHELL_TESTS,harness/tests)

# The hostile inputs that boot (harness/tests/HOSTILE.md): about 40 s, not
# part of make check.
.PHONY: check-hostile
check-hostile: $(B)/bin/flipbed $(B)/guest/initramfs.cpio.gz $(B)/lib/nbdkit-flipbed-plugin.so
	@tests/run harness/tests/hostile-slow.sh
BENCHES += bench-boot bench-matrix bench-campaign bench-kasan-profile

# flipbed campaign (findings keep their image as compressed qcow2: qemu-img)
# and show --inspect (guestfish boots a libguestfs appliance on the
# distribution's kernel: libguestfs-tools needs linux-image-amd64 to build it).
PACKAGES += qemu-utils libguestfs-tools linux-image-amd64

$(B)/obj/harness/%.o: harness/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP $(HARNESS_CFLAGS) -c $< -o $@

$(B)/bin/flipbed: $(HARNESS_OBJS) $(REPORT_LIB) $(FBX_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(HARNESS_OBJS) $(HARNESS_LIBS)

-include $(HARNESS_OBJS:.o=.d)

# The main job: the quick matrix on both kernels, then the summary table.
_run: $(ALL)
	@$(B)/bin/flipbed matrix quick

.PHONY: bench-boot bench-matrix bench-campaign bench-kasan-profile
bench-campaign: $(ALL)
	@harness/bench-campaign.sh

# the kasan kernel (make kasan): the campaign profiles full and kasan side by side
bench-kasan-profile: $(ALL)
	@harness/bench-kasan-profile.sh

bench-matrix: $(ALL)
	@harness/bench-matrix.sh

bench-boot: $(ALL)
	@harness/bench-boot.sh

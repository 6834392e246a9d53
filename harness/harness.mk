# harness/: the user's command build/bin/flipbed (see harness/README.md).
# `flipbed boot` stands on proc.c (children that never outlive flipbed),
# nbd.c (nbdkit and its control socket) and vm.c (one QEMU boot with the
# guest agent); the scenario runner reuses the same three.

# The scenario runner (`flipbed run`/`matrix`) adds scenario.c (scenario
# files, libinih), matrix.c (axes -> cases), image.c (golden images),
# manifest.c (user data, libext2fs), runcase.c (one case) and run.c (workers,
# progress, results); it links the corruptor library, the classifier and the
# report library (harness/tests/classify.mk, harness/tests/report.mk).
# The report library and the classifier's test come first: their variables
# are prerequisites below.
-include harness/tests/report.mk
-include harness/tests/classify.mk

HARNESS_SRCS := $(addprefix harness/,main.c boot.c proc.c nbd.c vm.c \
	scenario.c matrix.c vocab.c image.c manifest.c runcase.c run.c util.c \
	classify.c outcome.c campaign.c campaign_gen.c campaign_find.c \
	campaign_min.c image_cmd.c) harness/guest/steps.c harness/guest/pattern.c
HARNESS_HDRS := $(addprefix harness/,cmd.h proc.h nbd.h vm.h scenario.h run.h \
	matrix.h vocab.h image.h manifest.h runcase.h classify.h outcome.h util.h \
	report.h campaign.h) harness/guest/steps.h harness/guest/steps.def \
	harness/guest/agent.h $(FBX_HDRS)
HARNESS_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(HARNESS_SRCS))
HARNESS_CFLAGS = -Iharness $(FBX_CFLAGS) $(shell $(PKG_CONFIG) --cflags inih jansson)
HARNESS_LIBS = $(REPORT_LIB) $(FBX_LIBS) $(shell $(PKG_CONFIG) --libs inih jansson)

ALL += $(B)/bin/flipbed
PACKAGES += nbdkit libnbd-bin qemu-system-x86 e2fsprogs procps libinih-dev attr \
	libjansson-dev libext2fs-dev
TESTS += $(addprefix harness/tests/,bad-input.sh boot-smoke.sh detect-smoke.sh \
	timeout.sh interrupt.sh rule.sh panic.sh infra.sh scenario-errors.sh \
	matrix-interrupt.sh matrix-ci.sh campaign-gen.sh campaign-minimize.sh image-cmd.sh \
	copy-source.sh campaign-interrupt-start.sh \
	campaign-run.sh)
BENCHES += bench-boot bench-matrix bench-campaign

# flipbed campaign (findings keep their image as compressed qcow2: qemu-img)
# and show --inspect (guestfish boots a libguestfs appliance on the
# distribution's kernel: libguestfs-tools needs linux-image-amd64 to build it).
PACKAGES += qemu-utils libguestfs-tools linux-image-amd64

$(B)/obj/harness/%.o: harness/%.c $(HARNESS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(HARNESS_CFLAGS) -c $< -o $@

$(B)/bin/flipbed: $(HARNESS_OBJS) $(REPORT_LIB) $(FBX_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(HARNESS_OBJS) $(HARNESS_LIBS)

# The main job: the quick matrix on both kernels, then the summary table.
_run: $(ALL)
	@$(B)/bin/flipbed matrix quick

.PHONY: bench-boot bench-matrix bench-campaign
bench-campaign: $(ALL)
	@harness/bench-campaign.sh

bench-matrix: $(ALL)
	@harness/bench-matrix.sh

bench-boot: $(ALL)
	@harness/bench-boot.sh

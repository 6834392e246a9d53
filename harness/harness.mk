# harness/: the user's command build/bin/flipbed (see harness/README.md).
# `flipbed boot` stands on proc.c (children that never outlive flipbed),
# nbd.c (nbdkit and its control socket) and vm.c (one QEMU boot with the
# guest agent); the scenario runner reuses the same three.

HARNESS_SRCS := $(addprefix harness/,main.c boot.c proc.c nbd.c vm.c) harness/guest/steps.c
HARNESS_HDRS := $(addprefix harness/,cmd.h proc.h nbd.h vm.h) \
	harness/guest/steps.h harness/guest/steps.def
HARNESS_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(HARNESS_SRCS))

ALL += $(B)/bin/flipbed
PACKAGES += nbdkit libnbd-bin qemu-system-x86 e2fsprogs procps
TESTS += $(addprefix harness/tests/,bad-input.sh boot-smoke.sh detect-smoke.sh \
	timeout.sh interrupt.sh rule.sh panic.sh)
BENCHES += bench-boot

$(B)/obj/harness/%.o: harness/%.c $(HARNESS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iharness -c $< -o $@

$(B)/bin/flipbed: $(HARNESS_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^

# Until the scenario matrix exists, the main job is a boot smoke on the
# patched kernel with a fresh image under build/run/; it prints the step log.
_run: $(ALL)
	@mkdir -p $(B)/run
	@rm -f $(B)/run/smoke.img
	@mkfs.ext4 -q -F -O metadata_csum,inline_data $(B)/run/smoke.img 64M > /dev/null
	$(B)/bin/flipbed boot --kernel patched --image $(B)/run/smoke.img --step mount \
		--step 'write /a 5000' --step 'mkdir /d' --step 'write /d/small 40' \
		--step 'hash /' --step 'cat /proc/mounts' --step umount

.PHONY: bench-boot
bench-boot: $(ALL)
	@harness/bench-boot.sh
-include harness/tests/classify.mk

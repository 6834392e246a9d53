# SPDX-License-Identifier: MIT
# guest/: the static guest agent and the initramfs it is /init of.
# See guest/README.md for the protocol and the steps. The host shares the
# step table (steps.def, steps.c) and the file pattern (pattern.c): flipbed
# links the same objects (harness/harness.mk) and includes "guest/steps.h".

GUEST_SRCS := $(addprefix guest/,agent.c bioread.c chan.c copy.c fds.c fserror.c gcov.c kmsg.c modules.c ops.c pattern.c race.c steps.c)
GUEST_OBJS := $(patsubst guest/%.c,$(B)/obj/guest/%.o,$(GUEST_SRCS))

ALL += $(B)/guest/initramfs.cpio.gz
PACKAGES += gcc libc6-dev binutils gzip

$(B)/obj/guest/%.o: guest/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(GUEST_OBJS:.o=.d)

$(B)/guest/agent: $(GUEST_OBJS)
	@mkdir -p $(@D)
	$(CC) -static -pthread -o $@ $^

$(B)/guest/mkcpio: guest/mkcpio.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# /init is the stripped agent (a smaller initramfs boots faster); the
# unstripped build/guest/agent keeps the symbols for gdb.
$(B)/guest/initramfs.cpio.gz: $(B)/guest/agent $(B)/guest/mkcpio
	strip -o $(B)/guest/init $(B)/guest/agent
	$(B)/guest/mkcpio $(B)/guest/init | gzip -9n > $@.tmp
	mv $@.tmp $@

# The step parser shared with the host (steps.c), on its own.
$(eval $(call UNIT_TEST,guest/steps-test,guest/tests/steps-test.c guest/steps.c))

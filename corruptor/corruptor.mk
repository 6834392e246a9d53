# SPDX-License-Identifier: MIT
# corruptor/: the ext4 object map on libext2fs (build/lib/libflipbed-ext4.a,
# header corruptor/flipbed-ext4.h) and its CLI build/bin/flipbed-corrupt.
#
#   make                   the library and the CLI
#   make check             corruptor/tests/*.sh on images made in the test
#   make bench-corruptor   flipbed-corrupt map vs e2fsck -fn, 1 GiB, 50,000 files
#   make fuzz-long         fuzz map/verify/pick for FUZZ_SECONDS (default
#                          600; make check runs 20 s), corpus in build/fuzz
#
# Linking the library: $(FBX_CFLAGS) to compile, $(FBX_LIBS) to link.

FBX := corruptor
FBX_SRCS := map.c buf.c journal.c seal.c fields.c pick.c records.c
FBX_HDRS := $(FBX)/flipbed-ext4.h $(FBX)/fbx-int.h
FBX_OBJS := $(patsubst %.c,$(B)/obj/$(FBX)/%.o,$(FBX_SRCS))
FBX_LIB := $(B)/lib/libflipbed-ext4.a
FBX_CLI := $(B)/bin/flipbed-corrupt
FBX_CFLAGS = -I$(FBX) $(call PKG_CFLAGS,ext2fs com_err)
FBX_LIBS = $(FBX_LIB) $(call PKG_LIBS,ext2fs com_err)

FBX_FUZZER := $(B)/tests/bin/corruptor-fuzz

ALL += $(FBX_LIB) $(FBX_CLI)
PACKAGES += libext2fs-dev comerr-dev e2fsprogs clang-14 libfuzzer-14-dev \
	libclang-rt-14-dev perl perl-modules-5.36 valgrind
TESTS += $(call SHELL_TESTS,$(FBX)/tests)
BENCHES += bench-corruptor

# Each object depends on the headers it read (-MMD), not on every header.
# -I.: the CLI includes common/die.h.
$(B)/obj/$(FBX)/%.o: $(FBX)/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP $(FBX_CFLAGS) -I. -c $< -o $@

-include $(FBX_OBJS:.o=.d) $(B)/obj/$(FBX)/flipbed-corrupt.d

$(FBX_LIB): $(FBX_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# fb_die (common/die.c) is shared with flipbed-replay.
$(FBX_CLI): $(B)/obj/$(FBX)/flipbed-corrupt.o common/die.c common/die.h \
		$(FBX_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I. -o $@ $< common/die.c $(FBX_LIBS)

# The fuzzer: the library's sources built with ASan and UBSan around
# tests/fuzz.c. tests/fuzz.sh runs it; it needs the binary built first.
$(FBX_FUZZER): $(addprefix $(FBX)/,$(FBX_SRCS)) $(FBX)/tests/fuzz.c \
		$(FBX_HDRS)
	@mkdir -p $(@D)
	clang-14 -g -O1 -std=gnu11 -D_GNU_SOURCE $(FBX_CFLAGS) \
		-fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -o $@ \
		$(addprefix $(FBX)/,$(FBX_SRCS)) $(FBX)/tests/fuzz.c \
		$(call PKG_LIBS,ext2fs com_err)

$(FBX)/tests/fuzz.sh: $(FBX_FUZZER)

# A long run keeps what it finds beside the plugin's (make fuzz-long).
.PHONY: fuzz-long-corruptor
fuzz-long: fuzz-long-corruptor
fuzz-long-corruptor: $(FBX_FUZZER)
	@mkdir -p $(B)/fuzz/corruptor-corpus
	FLIPBED_FUZZ_SECONDS=$(FUZZ_SECONDS) FLIPBED_FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) \
	FLIPBED_FUZZ_CORPUS=$(B)/fuzz/corruptor-corpus \
	FLIPBED_FUZZ_CRASHES=$(B)/fuzz/corruptor-crashes \
		$(FBX)/tests/fuzz.sh

.PHONY: bench-corruptor
bench-corruptor: $(FBX_CLI)
	@$(FBX)/bench.sh

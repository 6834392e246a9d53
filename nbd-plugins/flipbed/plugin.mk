# SPDX-License-Identifier: MIT
# nbd-plugins/flipbed: the nbdkit fault-injection plugin, its man page,
# its tests (plain and ASan+UBSan builds), its fuzzer and its benchmarks,
# and flipbed-replay, which replays the plugin's write log.
#
#   make                 build/lib/nbdkit-flipbed-plugin.so,
#                        build/bin/flipbed-replay, their man pages
#   make check           unit + nbdkit tests twice, 60 s of fuzzing
#   make fuzz-long       fuzz for FUZZ_SECONDS (default 600), growing the
#                        corpus in build/fuzz/plugin-corpus; reports
#                        executions, corpus size and crashes
#   make bench-plugin    file plugin vs flipbed, 0 and 10,000 rules
#   make bench-plugin-witness  the read witness per request: nothing
#                        watched vs 10 watched ranges
#   make bench-plugin-writelog  writes with and without writelog=

FB := nbd-plugins/flipbed
FB_PURE := rule.c mutate.c command.c wlog.c
FB_SRCS := $(FB_PURE) grace.c ruleset.c stats.c faultlog.c disk.c \
	witness.c stall.c writelog.c inject.c control.c flipbed.c
FB_TESTS := serve faults control concurrency witness devfaults writelog
FB_HDRS := $(wildcard $(FB)/*.h)

FB_PLUGIN := $(B)/lib/nbdkit-flipbed-plugin.so
FB_ASAN_PLUGIN := $(B)/tests/lib/asan/nbdkit-flipbed-plugin.so
FB_MAN := $(B)/man/man1/nbdkit-flipbed-plugin.1
FB_REPLAY := $(B)/bin/flipbed-replay
FB_REPLAY_ASAN := $(B)/tests/bin/flipbed-replay-asan
FB_REPLAY_MAN := $(B)/man/man1/flipbed-replay.1
FB_REPLAY_SRCS := $(FB)/replay.c $(FB)/wlog.c common/die.c
FB_FUZZER := $(B)/tests/bin/plugin-fuzz
FB_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
FB_CFLAGS = $(CFLAGS) -pthread -I$(FB) $(call PKG_CFLAGS,nbdkit)
FB_CLANG := clang-14

ALL += $(FB_PLUGIN) $(FB_MAN) $(FB_REPLAY) $(FB_REPLAY_MAN)
TESTS += $(call SHELL_TESTS,$(FB)/tests)
BENCHES += bench-plugin bench-plugin-witness bench-plugin-writelog
PACKAGES += nbdkit nbdkit-plugin-dev libnbd-dev libnbd-bin libjansson-dev \
	clang-14 libfuzzer-14-dev libclang-rt-14-dev perl

# The plugin, plain and sanitized; each object depends on the headers it
# read (-MMD), not on every header.
FB_OBJS := $(addprefix $(B)/obj/flipbed/,$(FB_SRCS:.c=.o))
FB_ASAN_OBJS := $(addprefix $(B)/obj/flipbed-asan/,$(FB_SRCS:.c=.o))

$(B)/obj/flipbed/%.o: $(FB)/%.c
	@mkdir -p $(@D)
	$(CC) $(FB_CFLAGS) -MMD -MP -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/obj/flipbed-asan/%.o: $(FB)/%.c
	@mkdir -p $(@D)
	$(CC) $(FB_CFLAGS) -MMD -MP $(FB_SAN) -fPIC -fvisibility=hidden -c -o $@ $<

-include $(FB_OBJS:.o=.d) $(FB_ASAN_OBJS:.o=.d)

$(FB_PLUGIN): $(FB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -pthread -o $@ $^

$(FB_ASAN_PLUGIN): $(FB_ASAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FB_SAN) -shared -pthread -o $@ $^

$(FB_MAN): $(FB)/nbdkit-flipbed-plugin.pod
	@mkdir -p $(@D)
	pod2man --section=1 --center=flipbed --release=flipbed \
		--name=nbdkit-flipbed-plugin $< > $@

# flipbed-replay shares the write log's format (wlog.c) with the plugin,
# and fb_die (common/die.c) with flipbed-corrupt.
$(FB_REPLAY): $(FB_REPLAY_SRCS) $(FB)/wlog.h common/die.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(FB) -I. -o $@ $(FB_REPLAY_SRCS)

$(FB_REPLAY_ASAN): $(FB_REPLAY_SRCS) $(FB)/wlog.h common/die.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FB_SAN) -I$(FB) -I. -o $@ $(FB_REPLAY_SRCS)

$(FB_REPLAY_MAN): $(FB)/flipbed-replay.pod
	@mkdir -p $(@D)
	pod2man --section=1 --center=flipbed --release=flipbed \
		--name=flipbed-replay $< > $@

# Tests (cmocka, mk/unit-test.mk), each plain and with ASan+UBSan: the
# unit test links the pure code alone; the others drive the real plugin
# under nbdkit through libnbd (tests/helper.c), and the write log's test
# reads the log (wlog.c: its hash) and runs flipbed-replay (FB_REPLAY) on
# it. The plugin and flipbed-replay follow the sources: built first, not
# linked. The sanitized tests load the sanitized plugin into nbdkit with
# libasan preloaded (FB_LIBASAN).
FB_UNIT_SRCS := $(addprefix $(FB)/,$(FB_PURE)) $(FB)/tests/unit.c
FB_TEST_SRCS = $(FB)/tests/test-$(1).c $(FB)/tests/helper.c $(FB)/wlog.c
FB_TEST_CFLAGS := -pthread -I$(FB) -I$(FB)/tests
FB_LIBASAN := $(shell $(CC) -print-file-name=libasan.so)

$(eval $(call UNIT_TEST,plugin-unit,$(FB_UNIT_SRCS),nbdkit,-pthread -I$(FB)))
$(eval $(call UNIT_TEST,plugin-unit-asan,$(FB_UNIT_SRCS),nbdkit, \
	-pthread -I$(FB) $(FB_SAN)))
$(foreach t,$(FB_TESTS),$(eval $(call UNIT_TEST,plugin-$(t), \
	$(call FB_TEST_SRCS,$(t)) $(FB_PLUGIN),libnbd jansson, \
	$(FB_TEST_CFLAGS) -DFB_PLUGIN='"$(abspath $(FB_PLUGIN))"' \
	-DFB_REPLAY='"$(abspath $(FB_REPLAY))"')))
$(foreach t,$(FB_TESTS),$(eval $(call UNIT_TEST,plugin-$(t)-asan, \
	$(call FB_TEST_SRCS,$(t)) $(FB_ASAN_PLUGIN) $(FB_PLUGIN),libnbd jansson, \
	$(FB_TEST_CFLAGS) $(FB_SAN) \
	-DFB_PLUGIN='"$(abspath $(FB_ASAN_PLUGIN))"' \
	-DFB_REPLAY='"$(abspath $(FB_REPLAY_ASAN))"' \
	-DFB_LIBASAN='"$(FB_LIBASAN)"')))

$(B)/tests/bin/plugin-writelog: $(FB_REPLAY)
$(B)/tests/bin/plugin-writelog-asan: $(FB_REPLAY_ASAN)

# The fuzzer: rule and control-line parsers, and fb_mutate on what they
# accept. tests/plugin-fuzz.sh runs it; it needs the binary built first.
$(FB_FUZZER): $(addprefix $(FB)/,$(FB_PURE)) $(FB)/tests/fuzz.c $(FB_HDRS)
	@mkdir -p $(@D)
	$(FB_CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE -I$(FB) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ $(addprefix $(FB)/,$(FB_PURE)) $(FB)/tests/fuzz.c

$(FB)/tests/plugin-fuzz.sh: $(FB_FUZZER)

# A long run keeps what it finds: the corpus under build/fuzz/ grows from
# run to run (make clean leaves it), crashes are kept beside it.
FUZZ_SECONDS ?= 600
# libFuzzer's -timeout for one input (wall seconds; raise it on a busy machine)
FUZZ_TIMEOUT ?= 10
FB_FUZZ_DIR := $(B)/fuzz

.PHONY: fuzz-long fuzz-long-plugin bench-plugin bench-plugin-witness \
	bench-plugin-writelog
fuzz-long: fuzz-long-plugin
fuzz-long-plugin: $(FB_FUZZER)
	@mkdir -p $(FB_FUZZ_DIR)/plugin-corpus
	FLIPBED_FUZZ_SECONDS=$(FUZZ_SECONDS) FLIPBED_FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) \
	FLIPBED_FUZZ_CORPUS=$(FB_FUZZ_DIR)/plugin-corpus \
	FLIPBED_FUZZ_CRASHES=$(FB_FUZZ_DIR)/plugin-crashes \
		$(FB)/tests/plugin-fuzz.sh

bench-plugin: $(FB_PLUGIN)
	$(FB)/bench.sh $(FB_PLUGIN)

# The witness's check alone, outside nbdkit, with the plugin's objects.
FB_WITNESS_BENCH := $(B)/tests/bin/plugin-witness-bench
$(FB_WITNESS_BENCH): $(FB)/tests/witness-bench.c $(addprefix $(B)/obj/flipbed/, \
		witness.o grace.o faultlog.o stats.o ruleset.o rule.o)
	@mkdir -p $(@D)
	$(CC) $(FB_CFLAGS) -o $@ $^

bench-plugin-witness: $(FB_PLUGIN) $(FB_WITNESS_BENCH)
	$(FB)/bench.sh $(FB_PLUGIN) witness $(FB_WITNESS_BENCH)

# Writes with and without writelog= (bench-writelog.sh).
bench-plugin-writelog: $(FB_PLUGIN) $(FB_REPLAY)
	$(FB)/bench-writelog.sh $(FB_PLUGIN) $(FB_REPLAY)

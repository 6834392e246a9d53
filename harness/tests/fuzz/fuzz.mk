# SPDX-License-Identifier: MIT
# harness/tests/fuzz/: libFuzzer targets for every parser of the harness,
# each build/tests/bin/fuzz-NAME compiled from the harness sources it
# needs with clang-14 -fsanitize=fuzzer,address,undefined:
#   scenario   a scenario file and --set overrides (fb_scenario_load)
#   matrix     a matrix file, expanded over a few real scenarios
#   classify   a console transcript (fb_classify, dmesg, excerpt, titles,
#              csum-error attribution)
#   runload    a run directory's cases.jsonl and run.json (fb_run_load and
#              the reports, diff on what loads)
#   steps      a guest step line (step_parse)
# Seeds and regression inputs are committed in corpus/NAME/ (read, never
# written).
#
#   make check       run.sh: about 15 s of each target
#   make fuzz-long   FUZZ_SECONDS (default 600) of each, growing the corpora
#                    in build/fuzz/harness-NAME; prints executions, corpus
#                    size, coverage and crashes per target

HF := harness/tests/fuzz
HF_TARGETS := scenario matrix classify runload steps
HF_BINS := $(addprefix $(B)/tests/bin/fuzz-,$(HF_TARGETS))
HF_CC := clang-14
HF_FLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Wno-unused-parameter \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

HF_SCENARIO_SRCS := $(addprefix harness/,scenario/scenario.c scenario/expr.c scenario/matrix.c \
	scenario/vocab.c scenario/computed.c scenario/csum_first.c util.c outcome.c kernels.c \
	kernel_modules.c paths.c \
	kernel_image.c) guest/steps.c $(HF)/fuzz.c
HF_SRCS_scenario := $(HF_SCENARIO_SRCS) $(HF)/fuzz-scenario.c
HF_SRCS_matrix := $(HF_SCENARIO_SRCS) $(HF)/fuzz-matrix.c
HF_SRCS_classify := $(addprefix harness/,classify/classify.c classify/klog.c \
	classify/attrib.c outcome.c util.c report/report_dmesg.c) $(HF)/fuzz-classify.c
HF_SRCS_runload := $(REPORT_SRCS) $(addprefix harness/,util.c outcome.c \
	kernels.c kernel_image.c kernel_modules.c paths.c html.c classify/klog.c classify/order.c witness/fserror_report.c \
	witness/bioread_report.c) $(HF)/fuzz.c $(HF)/fuzz-runload.c
HF_SRCS_steps := guest/steps.c $(HF)/fuzz-steps.c
# The object types a scenario names come from the corruptor library, linked
# as built (not instrumented: it is not the parser under test).
HF_LIBS_scenario := $(FBX_LIB)
HF_LIBS_matrix := $(FBX_LIB)

TESTS += $(call SHELL_TESTS,$(HF))
PACKAGES += clang-14 libfuzzer-14-dev libclang-rt-14-dev

# Each target is one clang run over its sources; any header of the harness
# or the corruptor rebuilds all five (kernels_ini.h: harness/harness.mk).
HF_HDRS := $(wildcard harness/*.h harness/*/*.h guest/*.h guest/steps.def \
	corruptor/*.h $(HF)/*.h) $(B)/obj/harness/kernels_ini.h

$(B)/tests/bin/fuzz-%: $(HF_HDRS)
	@mkdir -p $(@D)
	$(HF_CC) $(HF_FLAGS) -Iharness -I. -I$(B)/obj/harness -I$(HF) $(FBX_CFLAGS) \
		$(call PKG_CFLAGS,inih jansson) -o $@ $(HF_SRCS_$*) \
		$(HF_LIBS_$*) $(call PKG_LIBS,inih jansson ext2fs com_err)

$(foreach t,$(HF_TARGETS),$(eval $(B)/tests/bin/fuzz-$(t): $(HF_SRCS_$(t)) $(HF_LIBS_$(t))))

$(HF)/run.sh: $(HF_BINS)

.PHONY: fuzz-long fuzz-long-harness
fuzz-long: fuzz-long-harness
fuzz-long-harness: $(HF_BINS)
	@FLIPBED_FUZZ_SECONDS=$(FUZZ_SECONDS) FLIPBED_FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) FLIPBED_FUZZ_KEEP=$(B)/fuzz \
		$(HF)/run.sh

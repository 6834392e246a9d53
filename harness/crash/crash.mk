# SPDX-License-Identifier: MIT
# harness/crash/: `flipbed crash SCENARIO`, power cuts at every flush point
# of a fault-free workload (harness/crash/README.md). Its objects join the
# flipbed binary; wlogscan.c reads the plugin's write log with the plugin's
# own format code (nbd-plugins/flipbed/wlog.c), built here for flipbed.

HARNESS_OBJS += $(addprefix $(B)/obj/harness/crash/,crash.o wlogscan.o wlog.o)
$(B)/obj/harness/crash/wlogscan.o: HARNESS_CFLAGS += -Inbd-plugins/flipbed

$(B)/obj/harness/crash/wlog.o: nbd-plugins/flipbed/wlog.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Inbd-plugins/flipbed -c $< -o $@

TESTS += $(call SHELL_TESTS,harness/crash/tests)

# The write log's cost to a booted workload (harness/crash/bench-writelog.sh).
BENCHES += bench-crash-writelog
.PHONY: bench-crash-writelog
bench-crash-writelog: $(ALL)
	@harness/crash/bench-writelog.sh

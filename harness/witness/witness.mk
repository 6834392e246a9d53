# SPDX-License-Identifier: MIT
# harness/witness/: the host side of the guest agent's witnesses, one name
# per witness, each with the part of the reports that shows it:
#   fserror   ext4's error reports as fanotify FAN_FS_ERROR events
#             (fserror.c: the agent's lines and the agreement with the
#             kernel log; fserror_report.c: the case page, show, summary.md)
#   bioread   the block layer's reads of the target, read-ahead included
#             (bioread.c: the agent's lines; bioread_report.c)
# The agent's halves are guest/fserror.c and guest/bioread.c. Its objects
# join the flipbed binary; the report library links the report halves
# (REPORT_DEPS, report/report.mk).

HARNESS_OBJS += $(addprefix $(B)/obj/harness/witness/,fserror.o fserror_report.o \
	bioread.o bioread_report.o)

# fserror: the host's parsing of the agent's fserror lines and the
# agreement with the classifier (fserror.c), the agent's decoding of
# fanotify events and its bound (guest/fserror.c, with a stand-in channel),
# and how the reports show them (fserror_report.c).
# harness/tests/fserror-boot.sh boots it.
$(eval $(call UNIT_TEST,test-fserror,harness/tests/test-fserror.c \
	$(B)/obj/harness/witness/fserror.o $(B)/obj/guest/steps.o $(B)/obj/guest/fserror.o \
	$(REPORT_LIB) $(REPORT_DEPS),jansson inih,$(HARNESS_TEST_CFLAGS) -pthread))

# bioread: the agent's "watch" argument and its reading of block_bio_queue
# trace lines (guest/bioread.c, with a stand-in channel), the host's
# parsing of its bioread lines and the case record (bioread.c); the cause
# it decides is test-undetected's.
$(eval $(call UNIT_TEST,test-bioread,harness/tests/test-bioread.c \
	$(B)/obj/harness/witness/bioread.o $(B)/obj/harness/util.o $(B)/obj/guest/steps.o \
	$(B)/obj/guest/bioread.o,jansson,$(HARNESS_TEST_CFLAGS)))

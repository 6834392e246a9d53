# SPDX-License-Identifier: MIT
# flipbed — top-level build.
#
#   make         build everything (kernels, guest, plugin, corruptor, harness)
#   make run     the main job: install packages, build, run the default matrix
#   make check   the test suite (what .ci/run calls)
#   make check-quick  the tests of group quick (tests/lib.sh), a short loop
#   make check-baselines  the figures of results/baseline/ and README.md
#                recomputed from the committed records, the records checked;
#                part of make check
#   make check-slurm  shards and a real job engine (docs/SHARDS.md); .ci/run
#                after make check
#   make deps    install every Debian package flipbed needs (as root)
#
# Each component lives in its own folder with a make fragment that adds to
# ALL (what `make` builds), TESTS (programs tests/run executes: unit tests
# through UNIT_TEST, scripts through SHELL_TESTS, mk/unit-test.mk), PACKAGES
# (Debian packages) and BENCHES. Everything built lands under build/.

B := build
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE
PKG_CONFIG ?= pkg-config

# Packages every component needs to build or test; fragments add their own.
PACKAGES := build-essential pkg-config bc

ALL :=
TESTS :=
BENCHES :=

.PHONY: all run check check-quick check-baselines check-slurm check-failed deps clean bench
all: _all

# Before the components' fragments: SANITIZE=1 changes B for all of them.
# After `all`: `make` alone must still mean `make all`.
include mk/sanitize.mk
include mk/unit-test.mk

include kernel/kernel.mk
include guest/guest.mk
include nbd-plugins/flipbed/plugin.mk
include corruptor/corruptor.mk
include harness/harness.mk
include bench/ext4-features.mk

# Which folder may include which (no include cycle between folders).
TESTS += tests/layout.sh
# The figures of results/baseline/*.md and README.md against the committed
# records (results/baseline/figures.tsv), the record rules, and the
# self-test that proves both checks fire (tests/baselines/).
TESTS += tests/baselines-selftest.sh tests/baselines.sh
# the verdict campaigns' records are committed xz-compressed
PACKAGES += xz-utils jq

_all: $(ALL)

deps:
	@mk/deps.sh $(sort $(PACKAGES))

# Packages are installed in a make of their own, so that pkg-config lookups
# in the fragments are evaluated after the libraries exist.
check: deps
	@$(MAKE) --no-print-directory _check

# CHECK_NEEDS: what the whole suite needs beyond `all` (a kernel variant that
# only its tests boot); the quick group does without.
_check: $(ALL) $(CHECK_NEEDS) $(TESTS)
	@tests/run $(TESTS)

check-quick: deps
	@$(MAKE) --no-print-directory _check-quick

_check-quick: $(ALL) $(TESTS)
	@tests/run -g quick $(TESTS)

# Shards without a job engine (tests/shard.sh) and on a single-node Slurm
# cluster (tests/slurm.sh, which installs slurm-wlm and munge as root, or is
# reported not run). The kernels are not prerequisites: make check builds
# them, and the tests name a missing one. They run under tests/no-reaper,
# an ancestor that never reaps the orphans it adopts, as CI's container
# init does not: what they count as left behind is then what CI sees.
check-slurm: $(B)/bin/flipbed $(B)/guest/initramfs.cpio.gz $(FB_PLUGIN)
	@tests/no-reaper tests/run tests/shard.sh tests/slurm.sh

check-baselines: $(B)/bin/flipbed
	@tests/run tests/baselines-selftest.sh tests/baselines.sh

check-failed: $(ALL) $(TESTS)
	@tests/run --failed $(TESTS)

run: deps
	@$(MAKE) --no-print-directory _run

bench: $(BENCHES)

clean:
	rm -rf $(B)/bin $(B)/lib $(B)/obj $(B)/tests $(B)/guest

.PHONY: _all _check _check-quick _run

# SPDX-License-Identifier: MIT
# How a component declares its tests, so that no folder keeps a hand-made
# list or a compile recipe of its own.
#
#   $(eval $(call UNIT_TEST,NAME,SOURCES,MODULES[,CFLAGS]))
#       build/tests/bin/NAME, a cmocka test compiled from SOURCES (.c files,
#       objects and libraries, in link order) with the pkg-config MODULES'
#       flags (cmocka is always one of them) and the extra CFLAGS, and added
#       to TESTS. tests/run puts a compiled test in group quick.
#   $(call SHELL_TESTS,DIR)
#       the test scripts of DIR that make check runs: every DIR/*.sh whose
#       first 30 lines name its groups ("Groups:", the line tests/run
#       reads), so that a helper script (lib.sh, a generator) is never
#       taken for a test, except those of group own-target, which a make
#       target of their own runs (make check-bisect).
#
# pkg-config is asked once per module list: PKG_CFLAGS and PKG_LIBS keep
# each answer in a simply expanded variable.

space := $(subst ,, )
pkg_key = $(subst $(space),_,$(strip $(1)))
pkg_ask = $(if $(filter undefined,$(origin _pkg_$(2)_$(call pkg_key,$(1)))),$(eval \
	_pkg_$(2)_$(call pkg_key,$(1)) := $(shell $(PKG_CONFIG) --$(2) $(1))))$(_pkg_$(2)_$(call pkg_key,$(1)))
PKG_CFLAGS = $(call pkg_ask,$(1),cflags)
PKG_LIBS = $(call pkg_ask,$(1),libs)

# The headers each source read go to NAME.d in a pass of their own: -MMD
# in the one command that compiles and links several sources writes
# NAME.d once per source, each over the last.
define UNIT_TEST
TESTS += $$(B)/tests/bin/$(1)
$$(B)/tests/bin/$(1): $(2)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $(4) $$(call PKG_CFLAGS,cmocka $(3)) -o $$@ \
		$$(filter %.c %.o %.a,$$^) $$(call PKG_LIBS,cmocka $(3))
	$$(CC) $$(CFLAGS) $(4) $$(call PKG_CFLAGS,cmocka $(3)) -MM -MP \
		-MT $$@ $$(filter %.c,$$^) > $$@.d
-include $$(B)/tests/bin/$(1).d
endef

SHELL_TESTS = $(shell for f in $(1)/*.sh; do \
	g=$$(head -n 30 "$$f" | grep 'Groups:'); \
	[ -n "$$g" ] && ! echo "$$g" | grep -qw own-target && echo "$$f"; done)

PACKAGES += libcmocka-dev

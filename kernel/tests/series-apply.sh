#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel/build.sh and a series that no longer applies: exit 2, naming the
# patch, and the shared source tree left in a state the next build of any
# kernel of it can start from (.flipbed-applied/series lists exactly the
# patches that are in the tree). A series naming a patch file that does
# not exist: exit 2 too. A kernel whose `patches` names two series
# directories gets the second's patches applied after the first's (a
# patch of the second that needs the first's change applies), and one of
# the second that does not apply is named with its directory. The source is a small git tree (`git:` source),
# so no kernel is extracted or built; the test's tree under
# build/kernel/src/ is removed at exit. Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"
require_tools git patch
build=$top/kernel/build.sh
name=series-test-$$
trap 'rm -rf "$T" "$B/kernel/src/$name" "$B/kernel/src/.tmp-$name" "$B/kernel/src/.lock-$name"' EXIT

git init -q "$T/tree"
printf 'one\ntwo\nthree\n' > "$T/tree/a"
printf 'four\n' > "$T/tree/b"
git -C "$T/tree" add a b
git -C "$T/tree" -c user.name=t -c user.email=t@t commit -q -m base
mkdir "$T/series"
# 0001 applies; 0002's context is not in the tree
cat > "$T/series/0001-a.patch" <<'EOF'
--- a/a
+++ b/a
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
EOF
cat > "$T/series/0002-b.patch" <<'EOF'
--- a/b
+++ b/b
@@ -1 +1 @@
-five
+FIVE
EOF
printf '0001-a.patch\n0002-b.patch\n' > "$T/series/series"
echo unknown > "$T/series/BASE"
cat > "$T/kernels.ini" <<EOF
[$name]
source = git:$T/tree
patches = $T/series
config = flipbed.config
image = vmlinux
memory = 256
csum-lines = no
EOF

FLIPBED_KERNELS_INI=$T/kernels.ini "$build" "$name" > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 2 ] && grep -q "0002-b.patch does not apply" "$T/err" &&
	ok "a patch that does not apply: exit 2, $(cat "$T/err")" ||
	check_fail "a patch that does not apply: exit $rc, $(cat "$T/err")"
applied=$(cat "$B/kernel/src/$name/.flipbed-applied/series" 2>/dev/null | paste -sd' ')
[ "$applied" = 0001-a.patch ] && grep -qx TWO "$B/kernel/src/$name/a" &&
	ok "the tree holds 0001 and says so" ||
	check_fail "the tree says '$applied' is applied; a is: $(cat "$B/kernel/src/$name/a" | paste -sd' ')"

printf '0001-a.patch\n0003-gone.patch\n' > "$T/series/series"
FLIPBED_KERNELS_INI=$T/kernels.ini "$build" "$name" > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 2 ] && grep -q "names 0003-gone.patch, which does not exist" "$T/err" &&
	ok "a series naming a missing patch: exit 2" ||
	check_fail "a series naming a missing patch: exit $rc, $(cat "$T/err")"

# Two series directories: the second's patches apply after the first's.
printf '0001-a.patch\n' > "$T/series/series"
mkdir "$T/fixes"
cat > "$T/fixes/0001-two.patch" <<'EOF2'
--- a/a
+++ b/a
@@ -1,3 +1,3 @@
 one
-TWO
+2
 three
EOF2
printf '# fixes applied after the series\n0001-two.patch\n' > "$T/fixes/series"
sed "s|^patches = .*|patches = $T/series $T/fixes|" "$T/kernels.ini" > "$T/two.ini"
# the tree is no kernel: the build stops after the patches, at the configuration
FLIPBED_KERNELS_INI=$T/two.ini "$build" "$name" > "$T/out" 2> "$T/err" || true
applied=$(cat "$B/kernel/src/$name/.flipbed-applied/series" 2>/dev/null | paste -sd' ')
[ "$applied" = "0001-a.patch 0001-two.patch" ] && grep -qx 2 "$B/kernel/src/$name/a" &&
	ok "two series directories: applied in order ($applied)" ||
	check_fail "two series directories: the tree says '$applied' is applied; a is: $(cat "$B/kernel/src/$name/a" | paste -sd' '); $(cat "$T/err")"
FLIPBED_KERNELS_INI=$T/two.ini "$build" --inputs "$name" | grep -qx "$T/fixes/0001-two.patch" &&
	ok "two series directories: the second's patches are build inputs" ||
	check_fail "two series directories: --inputs does not list $T/fixes/0001-two.patch"
printf '0001-two.patch\n0002-b.patch\n' > "$T/fixes/series"
cp "$T/series/0002-b.patch" "$T/fixes/"
FLIPBED_KERNELS_INI=$T/two.ini "$build" "$name" > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 2 ] && grep -q "$T/fixes/0002-b.patch does not apply" "$T/err" &&
	ok "a patch of the second directory that does not apply: exit 2, named with its directory" ||
	check_fail "a patch of the second directory that does not apply: exit $rc, $(cat "$T/err")"
finish

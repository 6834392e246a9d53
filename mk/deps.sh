#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages flipbed needs (as root), or print the command.
# Usage: mk/deps.sh PACKAGE...
#
# A package that Debian 12 ships only from a suite a source list may lack
# (linux-source-6.12: bookworm-security, with the kernel's stable updates)
# gets that suite added, in /etc/apt/sources.list.d/flipbed-SUITE.list,
# when no configured suite has it.
set -u

# The suite that carries PACKAGE, as "URI SUITE", when it needs one.
suite_of() {
	case $1 in
	linux-source-6.12) echo "http://deb.debian.org/debian-security bookworm-security" ;;
	esac
}

# Has apt a version of PACKAGE to install?
available() {
	c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

missing=
for p in "$@"; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	case "$s" in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "flipbed: missing Debian packages; as root run:" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	for p in $missing; do
		[ -n "$(suite_of "$p")" ] &&
			echo "  ($p is in Debian's $(suite_of "$p" | cut -d' ' -f2) suite: add it to the sources if apt cannot find it)" >&2
	done
	exit 1
fi
echo "flipbed: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || exit 1
added=
for p in $missing; do
	set -- $(suite_of "$p")
	[ $# -eq 2 ] || continue
	available "$p" && continue
	list=/etc/apt/sources.list.d/flipbed-$2.list
	if [ -e "$list" ] || grep -rqsw -- "$2" /etc/apt/sources.list /etc/apt/sources.list.d; then
		echo "flipbed: $p: the $2 suite is configured but apt has no version of it" >&2
		continue
	fi
	echo "flipbed: $p needs Debian's $2 suite; adding it ($list)"
	echo "deb $1 $2 main" > "$list" || exit 1
	added=1
done
if [ -n "$added" ]; then
	apt-get update -q || exit 1
fi
apt-get install -y -q --no-install-recommends $missing || exit 1

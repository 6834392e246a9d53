#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages flipbed needs (as root), or print the command.
# Usage: mk/deps.sh PACKAGE...
set -u
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
	exit 1
fi
echo "flipbed: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || exit 1
apt-get install -y -q --no-install-recommends $missing || exit 1

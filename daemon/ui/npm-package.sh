#!/bin/sh
# npm-package.sh NAME VERSION INTEGRITY
#
# Prints the path of NAME@VERSION's tarball from the npm registry, kept in
# $TAPD_CACHE/npm (default ~/.cache/tapd/npm) under its name and version,
# after checking it against INTEGRITY, the registry's "sha512-<base64>"
# of the tarball pinned in the Makefile.  Only a missing tarball is
# fetched (npm pack, the registry's own client), so a build with the
# cache filled needs no network; a tarball that does not match is
# removed and the build stops.  The check uses coreutils only.
set -eu

name=$1
version=$2
integrity=$3
cache=${TAPD_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/tapd}/npm
tgz=$cache/$name-$version.tgz

case $integrity in
sha512-*) ;;
*)
	echo "error: cannot check '$name@$version': the integrity must be sha512-<base64>" >&2
	exit 1
	;;
esac
want=$(printf '%s' "${integrity#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')

# sum FILE: whether FILE's SHA-512 is the pinned one.
sum() {
	[ "$(sha512sum <"$1" | cut -d' ' -f1)" = "$want" ]
}

if [ ! -f "$tgz" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "error: cannot fetch '$name@$version': npm is missing (make deps installs it)" >&2
		exit 1
	fi
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "fetching $name@$version into $cache" >&2
	(cd "$tmp" && npm pack --silent "$name@$version" >/dev/null) || {
		echo "error: cannot fetch '$name@$version' with npm pack" >&2
		exit 1
	}
	if ! sum "$tmp/$name-$version.tgz"; then
		echo "error: '$name@$version' from the registry does not match its pinned integrity" >&2
		exit 1
	fi
	mv "$tmp/$name-$version.tgz" "$tgz"
fi
if ! sum "$tgz"; then
	rm -f "$tgz"
	echo "error: the cached '$tgz' does not match its pinned integrity: removed, run the build again" >&2
	exit 1
fi
echo "$tgz"

#!/usr/bin/env bash
# make verify: shellcheck on the repository's shell scripts, that is every
# file git knows outside vendor/ (tracked, or new and not ignored) that ends
# in .sh or has no extension and starts with a shell #! line: .ci/run,
# hack/*.sh, release-tools/*.sh.
#
# The linter is a Haskell program and no Go module does its work (mvdan.cc/sh
# parses and formats shell but does not lint it), so shellcheck is used when
# it is on PATH (Debian: apt-get install shellcheck; .ci/run installs it). Without it
# the scripts get only a syntax check (bash -n) and a message says the lint
# was skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

# Fails here, not silently later, outside a git work tree.
files="$(git ls-files --cached --others --exclude-standard -- ':!:vendor/')"
scripts=()
while IFS= read -r f; do
	[[ -f "$f" ]] || continue # deleted in the work tree, not yet in the index
	case "$f" in
	*.sh) scripts+=("$f") ;;
	*/*.* | *.*) ;;
	*)
		first=
		IFS= read -r first <"$f" || true
		if [[ "$first" =~ ^#!.*[/[:space:]](ba|da|k)?sh([[:space:]]|$) ]]; then
			scripts+=("$f")
		fi
		;;
	esac
done <<<"$files"

if [[ ${#scripts[@]} -eq 0 ]]; then
	echo "shellcheck: no shell scripts found"
	exit 0
fi

if ! command -v shellcheck >/dev/null; then
	status=0
	for f in "${scripts[@]}"; do
		bash -n "$f" || status=1
	done
	echo "shellcheck: SKIPPED, not on PATH (on Debian: apt-get install shellcheck);"
	echo "only bash -n checked the syntax of ${#scripts[@]} scripts"
	exit $status
fi

if ! shellcheck "${scripts[@]}"; then
	echo "shellcheck: fix the findings above (or, for a deliberate case, add a"
	echo "'# shellcheck disable=SCxxxx' line with the reason above the line)"
	exit 1
fi
echo "shellcheck: ok (${#scripts[@]} scripts, $(shellcheck --version | sed -n 's/^version: //p'))"

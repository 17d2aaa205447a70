#!/usr/bin/env bash
# Fails when a package directory under pkg/ or internal/ is not named, in
# backquotes, in docs/architecture.md: a newcomer reads the architecture
# there, and a package it does not mention is one they cannot place. The
# generated packages are named as one, pkg/generated.
set -euo pipefail
cd "$(dirname "$0")/.."

doc=docs/architecture.md
missing=()
while IFS= read -r dir; do
	case "$dir" in
	pkg/generated/*) dir=pkg/generated ;;
	esac
	if ! grep -qF "\`$dir\`" "$doc"; then
		missing+=("$dir")
	fi
done < <(find pkg internal -name '*.go' ! -name '*_test.go' -printf '%h\n' | sort -u)

if ((${#missing[@]} > 0)); then
	echo "verify-architecture: $doc does not name these packages (add them to its \"Every package\" table):" >&2
	printf '  %s\n' "${missing[@]}" | sort -u >&2
	exit 1
fi
echo "verify-architecture: ok"

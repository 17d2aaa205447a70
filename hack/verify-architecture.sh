#!/usr/bin/env bash
# Fails when a package directory under pkg/ or internal/ is not named in
# docs/architecture.md twice: in its diagram (the first fenced block) and,
# in backquotes, in the rest of the page (its boxes and its "Every package"
# table). A newcomer reads the architecture there, and a package it does not
# mention is one they cannot place. The generated packages are named as
# one, pkg/generated.
set -euo pipefail
cd "$(dirname "$0")/.."

doc=docs/architecture.md
diagram="$(awk '/^```/ { n++; next } n == 1' "$doc")"
text="$(awk '/^```/ && n < 2 { n++; next } n != 1' "$doc")"
if [[ -z "$diagram" ]]; then
	echo "verify-architecture: $doc has no diagram (a fenced block)" >&2
	exit 1
fi

# in_diagram: the name stands alone, not as the start of a longer path
# (pkg/controller must not count for pkg/controller/parameters).
in_diagram() {
	grep -qE "(^|[^A-Za-z0-9_./-])${1//./\\.}([^A-Za-z0-9_/-]|$)" <<<"$diagram"
}

missing=()
while IFS= read -r dir; do
	case "$dir" in
	pkg/generated/*) dir=pkg/generated ;;
	esac
	if ! grep -qF "\`$dir\`" <<<"$text"; then
		missing+=("$dir (the boxes and the package table)")
	fi
	if ! in_diagram "$dir"; then
		missing+=("$dir (the diagram)")
	fi
done < <(find pkg internal -name '*.go' ! -name '*_test.go' -printf '%h\n' | sort -u)

if ((${#missing[@]} > 0)); then
	echo "verify-architecture: $doc does not name these packages where it should:" >&2
	printf '  %s\n' "${missing[@]}" | sort -u >&2
	exit 1
fi
echo "verify-architecture: ok"

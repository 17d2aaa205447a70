#!/usr/bin/env bash
# make verify: every relative link of README.md and of the pages under docs/
# points at a file that exists, and a link with an anchor (#section) at a
# heading of that page, as GitHub names the heading; and the README stays a
# front door of at most README_MAX_LINES lines, the reference living in
# docs/. Links to other sites are not followed.
set -euo pipefail
cd "$(dirname "$0")/.."

readme_max_lines="${README_MAX_LINES:-450}"

pages=(README.md)
while IFS= read -r page; do
	pages+=("$page")
done < <(find docs -name '*.md' | sort)

# anchors prints the anchors GitHub gives the headings of a markdown page:
# lower case, punctuation but hyphens and underscores dropped, spaces as
# hyphens, and -1, -2, ... after a repeated one.
anchors() {
	awk '
		/^```/ { code = !code; next }
		code || !/^#+ / { next }
		{
			t = $0
			sub(/^#+ +/, "", t)
			sub(/ +#* *$/, "", t)
			t = tolower(t)
			gsub(/[^a-z0-9 _-]/, "", t)
			gsub(/ /, "-", t)
			if (seen[t]++) print t "-" (seen[t] - 1); else print t
		}' "$1"
}

# links prints "line<TAB>target" for each link or image of a markdown page,
# outside fenced code blocks and inline code.
links() {
	awk '
		/^```/ { code = !code; next }
		code { next }
		{
			line = $0
			gsub(/`[^`]*`/, "", line)
			while (match(line, /\]\([^) ]+\)/)) {
				print NR "\t" substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			}
		}' "$1"
}

errors=0
fail() {
	echo "$1" >&2
	errors=$((errors + 1))
}

for page in "${pages[@]}"; do
	dir="$(dirname "$page")"
	while IFS=$'\t' read -r line target; do
		case "$target" in
		http://* | https://* | mailto:*) continue ;;
		esac
		path="${target%%#*}"
		anchor=
		if [[ "$target" == *"#"* ]]; then
			anchor="${target#*#}"
		fi
		file="$page"
		if [[ -n "$path" ]]; then
			file="$dir/$path"
		fi
		if [[ ! -e "$file" ]]; then
			fail "$page:$line: $target: no file $file"
			continue
		fi
		if [[ -n "$anchor" ]]; then
			if [[ "$file" != *.md ]]; then
				fail "$page:$line: $target: an anchor into $file, which is not a markdown page"
			elif ! anchors "$file" | grep -qxF -- "$anchor"; then
				fail "$page:$line: $target: $file has no heading with the anchor #$anchor"
			fi
		fi
	done < <(links "$page")
done

readme_lines="$(wc -l <README.md)"
if ((readme_lines > readme_max_lines)); then
	fail "README.md: $readme_lines lines, more than $readme_max_lines: move the reference to a page under docs/"
fi

if ((errors > 0)); then
	echo "verify-docs-links: $errors problems" >&2
	exit 1
fi
echo "verify-docs-links: ok (${#pages[@]} pages)"

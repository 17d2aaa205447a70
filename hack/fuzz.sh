#!/usr/bin/env bash
# make fuzz: runs every Go fuzz target (func FuzzXxx in a _test.go file of
# the sidecar's module) for FUZZTIME each, one after another (the machine's
# cores go to the fuzz workers). A failing input is written by Go to the
# target's testdata/fuzz/<target>/ directory: commit it with the fix, and
# `make test` replays it from then on.
#
# Go before 1.27 can fail a target at the end of its -fuzztime with a bare
# "context deadline exceeded" and no failing input (go.dev/issue/75804, a
# race in the fuzzing coordinator). Such a run is repeated, up to twice;
# a run that writes a failing input, or fails any other way, fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME="${FUZZTIME:-30s}"
FUZZ_RUN="${FUZZ_RUN:-.}" # a regexp of target names to run, e.g. FuzzParse

inputs_of() { find "$1/testdata/fuzz/$2" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort || true; }

failed=()
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' cmd pkg internal | xargs -n1 dirname | sort -u); do
  mapfile -t targets < <(grep -h '^func Fuzz' "$dir"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort)
  for target in "${targets[@]}"; do
    [[ "$target" =~ $FUZZ_RUN ]] || continue
    for attempt in 1 2 3; do
      before="$(inputs_of "$dir" "$target")"
      echo "--- $target (./$dir, $FUZZTIME, attempt $attempt)"
      status=0
      out="$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "./$dir" 2>&1)" || status=$?
      echo "$out" | grep -v '^fuzz: elapsed' || true
      [[ $status -eq 0 ]] && break
      after="$(inputs_of "$dir" "$target")"
      if [[ "$before" == "$after" ]] && grep -q '^    context deadline exceeded$' <<<"$out" && [[ $attempt -lt 3 ]]; then
        echo "    (the fuzzing coordinator's deadline race, go.dev/issue/75804: running it again)"
        continue
      fi
      failed+=("$target")
      break
    done
  done
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ok"

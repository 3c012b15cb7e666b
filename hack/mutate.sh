#!/usr/bin/env bash
# make mutate: mutation testing of the pure packages with gremlins (installed
# into bin/ by hack/tools.sh). For each package it measures statement
# coverage (go test -cover) and lets gremlins change the code one operator at
# a time (< to <=, + to -, ...) and run the package's tests against each
# change; a change the tests do not notice is a surviving mutant. It then
# prints efficacy and coverage per package (hack/mutation) and fails when an
# enforced package is below MUTATE_MIN_EFFICACY or MUTATE_MIN_COVERAGE after
# discounting the equivalent mutants listed in hack/mutation/equivalent.txt,
# or when an entry there is stale. An enforced package that meets the targets
# is recorded in hack/mutation/verified.txt with the fingerprint of what its
# verdict depended on (hack/mutation fingerprint); with MUTATE_CHANGED_ONLY=1
# a package whose fingerprint matches its line there is not run again.
# See docs/development.md, "Mutation testing".
#   hack/mutate.sh [internal/<pkg> ...]     (default: $MUTATE_PKGS)
# Env: MUTATE_PKGS, MUTATE_REPORT_ONLY (printed, not enforced),
#      MUTATE_ENFORCED_ONLY=1 (skip the MUTATE_REPORT_ONLY packages: CI),
#      MUTATE_CHANGED_ONLY=1 (skip packages unchanged since verified: CI),
#      MUTATE_MIN_EFFICACY (90), MUTATE_MIN_COVERAGE (90).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
  read -r -a pkgs <<<"${MUTATE_PKGS:?set MUTATE_PKGS or name the packages (make mutate sets it)}"
fi
gremlins="$(./hack/tools.sh gremlins)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# gremlins copies the whole module into a scratch folder before mutating it;
# a copy without bin/ (hundreds of MB of cached tools) and .git keeps that
# cheap, and the mutants never touch the working tree.
mkdir -p "$work/src" "$work/results"
tar --exclude=./bin --exclude=./.git -cf - . | tar -xf - -C "$work/src"

read -r -a report_only <<<"${MUTATE_REPORT_ONLY:-}"
# The tests are built with the integration tag: gremlins must run every test
# of a package, including those the fast tier leaves out (internal/runner's
# drive the stand-in CWAC with python3). The coverage run, gremlins and the
# fingerprint (what the tests import) all see the same files.
tags=integration
min_efficacy="${MUTATE_MIN_EFFICACY:-90}"
min_coverage="${MUTATE_MIN_COVERAGE:-90}"
verified=hack/mutation/verified.txt
# hack/mutation is in the tools' own module (hack/go.mod): built from hack/.
go -C hack build -o "$work/mutation" ./mutation
# Fingerprints are taken from the copy, so a file edited while the mutants
# run is not recorded as verified.
fingerprint() {
  (cd "$work/src" && "$work/mutation" fingerprint -equivalents hack/mutation/equivalent.txt \
    -min-efficacy "$min_efficacy" -min-coverage "$min_coverage" -tool "$(basename "$gremlins")" -tags "$tags" "$1")
}
for pkg in "${pkgs[@]}"; do
  pkg="${pkg#./}"; pkg="${pkg%/}"
  if [[ "${MUTATE_ENFORCED_ONLY:-0}" == 1 && " ${report_only[*]} " == *" $pkg "* ]]; then
    echo "mutate: $pkg is reported, not enforced: skipped (MUTATE_ENFORCED_ONLY=1)"
    continue
  fi
  out="$work/results/${pkg//\//_}"
  mkdir -p "$out"
  echo "$pkg" >"$out/pkg.txt"
  if [[ ! -d "$work/src/$pkg" ]] || ! compgen -G "$work/src/$pkg/*.go" >/dev/null; then
    echo "mutate: $pkg has no Go files yet: skipped"
    rm -rf "$out"
    continue
  fi
  line="$(fingerprint "$pkg")"
  if [[ "${MUTATE_CHANGED_ONLY:-0}" == 1 && -f "$verified" ]] && grep -qxF "$line" "$verified"; then
    echo "mutate: $pkg is unchanged since verified ($verified): skipped (MUTATE_CHANGED_ONLY=1)"
    rm -rf "$out"
    continue
  fi
  echo "${line#* }" >"$out/fingerprint.txt"
  start=$SECONDS
  (cd "$work/src" && go test -tags "$tags" -count=1 -cover "./$pkg") >"$out/coverage.txt" 2>&1 || cat "$out/coverage.txt"
  # One worker: the machine is shared. Not --test-cpu: gremlins v0.6.0 passes
  # it to go test as one malformed argument, and every mutant then "dies".
  # The test timeout is 20 times the coverage run's (the default 3 times is
  # shorter than relinking a test binary on a busy machine).
  (cd "$work/src" && "$gremlins" unleash --tags "$tags" --workers 1 --timeout-coefficient 20 \
    -o "$out/gremlins.json" "./$pkg") >"$out/gremlins.log" 2>&1 || { tail -20 "$out/gremlins.log"; rm -f "$out/gremlins.json"; }
  echo $((SECONDS - start)) >"$out/seconds.txt"
  echo "mutate: $pkg: $(grep -h -e '^Killed' "$out/gremlins.log" | tr -s ' ') ($((SECONDS - start)) s)"
done

if [[ -z "$(ls -A "$work/results")" ]]; then
  if [[ "${MUTATE_CHANGED_ONLY:-0}" == 1 ]]; then
    echo "mutate: every package is unchanged since verified: nothing to run"
    exit 0
  fi
  echo "mutate: no package to test" >&2
  exit 1
fi
"$work/mutation" -results "$work/results" -src "$work/src" -equivalents hack/mutation/equivalent.txt \
  -report-only "${MUTATE_REPORT_ONLY:-}" -min-efficacy "$min_efficacy" -min-coverage "$min_coverage" \
  -verified "$verified"

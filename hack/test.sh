#!/usr/bin/env bash
# The README's test command (make test). Provisions what the tests need
# (idempotent, cached under bin/), then runs every tier: lint,
# generated files (CRD, RBAC, deepcopy, docs/api.md) up to date, vet, unit +
# golden + runner + envtest integration, chart and MCP end to end (the tests
# behind the integration build tag, with the others), make release against a
# registry started here, the fast tier alone
# from a fresh copy with no bin/ and no network, short fuzz runs, and (as
# root) the real-cluster end-to-end tests.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

command -v python3 >/dev/null || { echo "test: python3 is required (the runner tests drive a stand-in CWAC)" >&2; exit 1; }
# LINT=0 skips lint (for a quick local run); CI always lints.
if [[ "${LINT:-1}" == 1 ]]; then
  echo "== lint"
  make --no-print-directory lint
fi
# Headless Chromium from Debian for the HTML report's browser test (axe-core,
# reflow at 320 px), installed once when missing and we may (root, apt).
if ! command -v chromium >/dev/null && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "== installing chromium (Debian) for the report's browser test"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
# xmllint (Debian's libxml2-utils) validates the JUnit reports against
# Jenkins' JUnit schema (internal/cireport's integration tier).
if ! command -v xmllint >/dev/null && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "== installing xmllint (Debian) for the JUnit schema test"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libxml2-utils >/dev/null
fi
export KUBEBUILDER_ASSETS="$(./hack/envtest-assets.sh)"
./hack/npm-deps.sh
export HELM="$(./hack/tools.sh helm)"
export MAILPIT="$(./hack/tools.sh mailpit)"
export SEAWEEDFS="$(./hack/tools.sh seaweedfs)"
echo "== operator image (no container engine)"
make --no-print-directory image-tar
export IMAGE_TAR="$ROOT/bin/images/cwac-operator.tar"

echo "== verify generated files"
make --no-print-directory verify
echo "== go vet"
# The upgrade and release checks' own tags too (they run in their own tiers).
go vet -tags integration,upgrade ./...
# The tools under hack/ are a module of their own (hack/go.mod).
go -C hack vet -tags integration,release ./...
# PostgreSQL for the issue history's tests on its second engine (Debian's
# server, installed when missing, under bin/postgres): started here,
# stopped however the script ends. Tests tagged integration fail, not
# skip, without it.
echo "== PostgreSQL for the issue history (hack/postgres.sh)"
trap './hack/postgres.sh stop || true' EXIT
CWAC_TEST_POSTGRES_DSN="$(./hack/postgres.sh start)"
export CWAC_TEST_POSTGRES_DSN
echo "== go test"
go test -tags integration -race -count=1 ./...
go -C hack test -tags integration -race -count=1 ./...
# The race detector multiplies memory, so the tests that bound memory skip
# under it and run here without it; -v shows each ran (a renamed test would
# otherwise match nothing and pass).
echo "== memory bounds (without the race detector)"
memory_tests='^(TestOperatorPeakRSS|TestPlantedResultFiles)$'
memlog="$(mktemp)"
go test -tags integration -count=1 -v -run "$memory_tests" ./internal/controller ./internal/mcpserver >"$memlog" 2>&1 || { cat "$memlog"; exit 1; }
for name in TestOperatorPeakRSS TestPlantedResultFiles; do
  grep -q -- "--- PASS: $name " "$memlog" || { cat "$memlog"; echo "memory bounds: $name did not run and pass" >&2; exit 1; }
done
grep -E -- '--- (PASS|FAIL)|MiB' "$memlog" | head -40
rm -f "$memlog"
# make release, whole, against a registry started here: the signatures,
# attestations, SBOMs and chart it publishes (docs/releasing.md). Its own
# build tag keeps it out of the run above: it builds both platforms' binaries.
echo "== release to a local registry (hack/releasecheck)"
go -C hack test -tags 'integration release' -count=1 -timeout 45m ./releasecheck/
# The fast tier (make test-unit: go test without the integration tag) must
# pass on a fresh clone with nothing but Go: run it in a copy of the tree as
# a clone has it (tracked and new files; no bin/, no node_modules), with the
# go command kept off the network (the module cache is warm by now) and the
# tools the other tiers need out of reach, so a test that needs them and
# lacks the tag fails here.
echo "== fast tier from a fresh copy (no bin/, no network)"
fresh="$(mktemp -d)"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [[ -e "$f" ]] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$fresh/"
mkdir -p "$fresh/.no-tools"
for tool in python3 python node npm npx helm kubectl chromium chromium-browser google-chrome etcd kube-apiserver psql postgres xmllint mailpit weed; do
  printf '#!/bin/sh\necho "%s is not available to the fast tier: give the test the integration build tag" >&2\nexit 127\n' "$tool" >"$fresh/.no-tools/$tool"
  chmod +x "$fresh/.no-tools/$tool"
done
if ! env -u KUBEBUILDER_ASSETS -u HELM -u MAILPIT -u SEAWEEDFS -u IMAGE_TAR -u CHROMIUM -u CWAC_TEST_POSTGRES_DSN PATH="$fresh/.no-tools:$PATH" \
  GOFLAGS=-mod=mod GOPROXY=off make --no-print-directory -C "$fresh" test-unit; then
  rm -rf "$fresh"
  echo "the fast tier failed from a fresh copy: a test without the integration build tag needs bin/, the network or a tool beyond Go" >&2
  exit 1
fi
rm -rf "$fresh"
# Each target runs a fixed number of inputs (FUZZTIME, go test's
# -fuzztime: 2000x), never for a time: a time limit is a deadline for the
# fuzzing engine, which on a loaded 2-core machine failed with "context
# deadline exceeded" before its workers had started. A failure is a
# failure: one that found something writes a reproducer under
# testdata/fuzz/<target>.
echo "== fuzz (${FUZZTIME:=2000x} each)"
fuzz() {
  local pkg=$1 target=$2 log; log="$(mktemp)"
  if go test -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" "$pkg" >"$log" 2>&1; then
    # A target that is gone, or behind a build tag, fuzzes nothing and passes.
    if grep -q 'no fuzz tests to fuzz' "$log"; then
      echo "fuzz $target: no such fuzz test in $pkg (built without tags)"; exit 1
    fi
    echo "fuzz $target ok"; rm -f "$log"; return 0
  fi
  if compgen -G "$pkg/testdata/fuzz/$target/*" >/dev/null && [[ -n "$(git status --porcelain -- "$pkg/testdata/fuzz/$target")" ]]; then
    echo "fuzz $target FOUND A FAILURE (reproducer in $pkg/testdata/fuzz/$target):"
  else
    echo "fuzz $target FAILED:"
  fi
  grep -v '^fuzz: elapsed' "$log"; exit 1
}
fuzz ./internal/results FuzzReader
fuzz ./internal/results FuzzParsePyLiteral
fuzz ./internal/cwacconfig FuzzBaseURLCSV
fuzz ./internal/scanpod FuzzEncode
fuzz ./internal/urlpolicy FuzzCheckURL
fuzz ./internal/urlpolicy FuzzResolveLocation
fuzz ./internal/urlpolicy FuzzDestination
fuzz ./internal/schedule FuzzParse
fuzz ./internal/results FuzzRowIndex
fuzz ./internal/results FuzzRecordReader
fuzz ./internal/diff FuzzCompare
fuzz ./internal/diff FuzzReadDocument
fuzz ./internal/diff FuzzReadIssueIDs
fuzz ./internal/report FuzzReportInert
fuzz ./internal/wcag FuzzForTag
fuzz ./internal/cli FuzzParseURLsList
fuzz ./internal/cli FuzzParseSite
fuzz ./internal/shard FuzzSplit
fuzz ./internal/shard FuzzParseIndexes
fuzz ./internal/results FuzzMergeShards
fuzz ./internal/results FuzzCompleteness
fuzz ./internal/textcap FuzzCut
fuzz ./internal/jsonlimit FuzzCounter
fuzz ./internal/results FuzzReadSummary
fuzz ./internal/results FuzzShiftIDs
fuzz ./internal/results FuzzSignals
fuzz ./internal/websession FuzzOpen
fuzz ./internal/websession FuzzClaimMapping
fuzz ./internal/websession FuzzSafeReturn
# Mutation testing of the enforced pure packages that changed since their
# line in hack/mutation/verified.txt (docs/development.md, "Mutation
# testing"): every enforced package would take 25-40 minutes; one that still
# matches its recorded fingerprint is skipped. MUTATE=0 skips the step for a
# quick local run; CI always runs it.
if [[ "${MUTATE:-1}" == 1 || "${CI:-}" == true ]]; then
  echo "== mutation testing"
  MUTATE_ENFORCED_ONLY=1 MUTATE_CHANGED_ONLY=1 make --no-print-directory mutate
fi
echo "== end to end on a real single-node cluster"
if [[ $(id -u) -ne 0 ]]; then
  echo "cluster e2e NOT RUN: it needs root (kubelet and containerd); run hack/cluster/e2e.sh as root"
elif ! getent hosts "$(hostname)" | grep -q '^127\.'; then
  echo "cluster e2e NOT RUN: the host name $(hostname) does not resolve to a 127.x address"
else
  ./hack/cluster/e2e.sh
fi
echo "== all tests passed"

#!/usr/bin/env bash
# The README's test command (make test). Provisions what the tests need
# (idempotent, cached under bin/), then runs every tier: generated files up to
# date, vet, unit + golden + runner + envtest integration, and short fuzz runs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

command -v python3 >/dev/null || { echo "test: python3 is required (the runner tests drive a stand-in CWAC)" >&2; exit 1; }
export KUBEBUILDER_ASSETS="$(./hack/envtest-assets.sh)"
./hack/npm-deps.sh
export HELM="$(./hack/tools.sh helm)"
echo "== operator image (no container engine)"
make --no-print-directory image-tar
export IMAGE_TAR="$ROOT/bin/images/cwac-operator.tar"

echo "== verify generated files"
make --no-print-directory verify
echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 ./...
echo "== fuzz (${FUZZTIME:=5s} each)"
fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" "$1" >/dev/null || { echo "fuzz $2 failed"; go test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" "$1"; exit 1; }; echo "fuzz $2 ok"; }
fuzz ./internal/results FuzzReader
fuzz ./internal/results FuzzParsePyLiteral
fuzz ./internal/cwacconfig FuzzBaseURLCSV
fuzz ./internal/podreport FuzzEncode
echo "== all tests passed"

#!/usr/bin/env bash
# A CI gate on a CwacScan: creates the scan from a manifest, waits until it
# has finished (Complete or Failed), prints its outcome, and exits
#   0  the scan completed within its spec.thresholds (or set none),
#   1  the scan failed, or its results crossed a threshold,
#   2  the scan could not be created or did not finish in time.
# Usage: hack/scan-gate.sh <manifest.yaml> [namespace]
#   KUBECTL  the kubectl to use (default: kubectl)
#   TIMEOUT  how long to wait for the scan (default: 2h)
set -uo pipefail
manifest=${1:?usage: scan-gate.sh <manifest.yaml> [namespace]}
ns=${2:-default}
kubectl=${KUBECTL:-kubectl}

# create, not apply: a scan is never re-run, so every run is a new object
# (manifests may use metadata.generateName).
name=$("$kubectl" create -n "$ns" -f "$manifest" -o jsonpath='{.metadata.name}') || exit 2
echo "scan-gate: created cwacscan/$name in $ns; waiting for it to finish"
if ! "$kubectl" wait -n "$ns" --for=condition=Finished --timeout="${TIMEOUT:-2h}" "cwacscan/$name" >/dev/null; then
  echo "scan-gate: cwacscan/$name did not finish within ${TIMEOUT:-2h}" >&2
  exit 2
fi
field() { "$kubectl" get -n "$ns" "cwacscan/$name" -o jsonpath="$1"; }
phase=$(field '{.status.phase}')
met=$(field '{.status.conditions[?(@.type=="ThresholdsMet")].status}')
verdict=$(field '{.status.conditions[?(@.type=="ThresholdsMet")].message}')
echo "scan-gate: cwacscan/$name $phase: $(field '{.status.message}')"
echo "scan-gate: $verdict"
[[ "$phase" == Complete && "$met" == True ]] || exit 1

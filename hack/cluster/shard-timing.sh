#!/usr/bin/env bash
# Times sharded scans on the local cluster (hack/cluster/up.sh, then
# deploy.sh, which runs the stand-in scanner): SITES test-site pods, one
# organisation each, scanned as 1, 2 and 4 shards with the stand-in sleeping
# PACE seconds per site, one scan at a time. Prints each scan's seconds from
# creation to Complete, the shard pods' own seconds, the ratios to one pod,
# and whether every summary equals the one-pod scan's (duration aside).
# Not a test: timings depend on the machine. Usage:
#   SITES=8 PACE=10 SHARDS="1 2 4" hack/cluster/shard-timing.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export KUBECONFIG="${KUBECONFIG:-$ROOT/bin/cluster/admin.kubeconfig}"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl -n cwac-system"
SITES=${SITES:-8} PACE=${PACE:-10} SHARDS=${SHARDS:-"1 2 4"}
RUN=st$(date +%s)

cleanup() {
  $K delete cwacscan -l cwac.a11y.dev/shard-timing="$RUN" --wait=false >/dev/null 2>&1 || true
  $K delete pod -l cwac.a11y.dev/shard-timing="$RUN" --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT

for i in $(seq 1 "$SITES"); do
  $K apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $RUN-site-$i, labels: {cwac.a11y.dev/shard-timing: $RUN}}
spec:
  automountServiceAccountToken: false
  securityContext: {runAsNonRoot: true, runAsUser: 1000, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: site
    image: cwac-standin:dev
    imagePullPolicy: IfNotPresent
    command: ["/usr/bin/python3", "-m", "http.server", "8765", "--directory", "/site", "--bind", "0.0.0.0"]
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
    resources: {requests: {cpu: 10m, memory: 32Mi}}
    readinessProbe: {tcpSocket: {port: 8765}, periodSeconds: 1}
YAML
done
$K wait --for=condition=Ready pod -l cwac.a11y.dev/shard-timing="$RUN" --timeout=120s >/dev/null
sites=$($K get pods -l cwac.a11y.dev/shard-timing="$RUN" -o jsonpath='{range .items[*]}{.metadata.name} {.status.podIP}{"\n"}{end}' | sort -V |
  awk '{printf "  - {url: \"http://%s:8765/\", organisation: \"Organisation %d\", sector: \"Test\"}\n", $2, NR}')

printf '%-7s %-9s %-12s %-14s %s\n' shards seconds "pods' secs" "ratio to 1" summary
base="" base_secs="" base_pods=""
for n in $SHARDS; do
  name=$RUN-n$n
  $K apply -f - >/dev/null <<YAML
apiVersion: cwac.a11y.dev/v1alpha1
kind: CwacScan
metadata: {name: $name, labels: {cwac.a11y.dev/shard-timing: $RUN}}
spec:
  auditName: $name-standin-pace-$PACE
  image: cwac-standin:dev  # whatever the chart's cwac.image is
  shards: $n
  timeout: 30m
  # The stand-in needs little; small requests let every shard pod fit on the node.
  resources: {requests: {cpu: 250m, memory: 256Mi}, limits: {memory: 512Mi}}
  configOverrides: {only_allow_https: false}
  sites:
$sites
YAML
  $K wait "cwacscan/$name" --for=condition=Finished --timeout=30m >/dev/null
  line=$({ $K get cwacscan "$name" -o json; echo; $K get pods -l "batch.kubernetes.io/job-name=$($K get cwacscan "$name" -o jsonpath='{.status.jobName}')" -o json; } |
    python3 -c '
import datetime, json, sys
dec = json.JSONDecoder(); text = sys.stdin.read().strip()
scan, end = dec.raw_decode(text); pods = json.loads(text[end:])
t = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
st = scan["status"]
secs = (t(st["completionTime"]) - t(scan["metadata"]["creationTimestamp"])).total_seconds()
runs = [c["state"]["terminated"] for p in pods["items"] for c in p["status"].get("containerStatuses", []) if "terminated" in c["state"]]
pod_secs = (max(t(r["finishedAt"]) for r in runs) - min(t(r["startedAt"]) for r in runs)).total_seconds() if runs else 0
summary = dict(st.get("summary") or {}); summary.pop("durationSeconds", None)
print(st["phase"], secs, pod_secs, json.dumps(summary, sort_keys=True))')
  read -r phase secs pods summary <<<"$line"
  [[ "$phase" == Complete ]] || { echo "scan $name ended $phase"; exit 1; }
  if [[ -z "$base" ]]; then base=$summary base_secs=$secs base_pods=$pods; fi
  same=$([[ "$summary" == "$base" ]] && echo "equal to 1 shard's" || echo "DIFFERS")
  ratio=$(python3 -c "print(f'{$secs/$base_secs:.2f} (pods {$pods/$base_pods:.2f})')")
  printf '%-7s %-9s %-12s %-14s %s\n' "$n" "$secs" "$pods" "$ratio" "$same"
done

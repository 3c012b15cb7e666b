# Sourced by the checks with real sites on the local cluster (egress-check,
# notify-check, blocking-check), after they set K (kubectl) and NS.
#
# test_pod NAME PORT PROGRAM starts pod NAME in $NS running the Python
# PROGRAM on the stand-in image (hardened as scan pods are: non-root, no
# capabilities, read-only root, no service account token), waits until it
# accepts connections on PORT, and prints its IP. A pod of that name from
# an earlier run is replaced.
test_pod() {
  $K -n "$NS" delete pod "$1" --ignore-not-found --wait >/dev/null
  $K -n "$NS" apply -f - >/dev/null <<POD
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $1}}
spec:
  automountServiceAccountToken: false
  securityContext: {runAsNonRoot: true, runAsUser: 1000, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: main
    image: cwac-standin:dev
    imagePullPolicy: IfNotPresent
    command: ["/usr/bin/python3", "-u", "-c", $(printf '%s' "$3" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')]
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
    readinessProbe: {tcpSocket: {port: $2}, periodSeconds: 1}
POD
  $K -n "$NS" wait --for=condition=Ready "pod/$1" --timeout=60s >/dev/null
  $K -n "$NS" get pod "$1" -o jsonpath='{.status.podIP}'
}

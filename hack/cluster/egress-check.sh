#!/usr/bin/env bash
# Checks, on the local cluster (hack/cluster/up.sh and deploy.sh first), that
# a scan's browser and CWAC's own requests reach nothing the target policy
# refuses, whatever way a hostile site leads them there. Two pods: a canary
# that counts every request it gets, and a hostile site whose pages lead to
# the canary by a Location redirect (plain, and in the forms Go's parser
# refuses), a redirect shown only to browsers, a late redirect, a Refresh
# header, a meta refresh, a script, an image, a frame and a fetch. The
# canary's address is added to the policy's denied CIDRs; a scan of the
# hostile site must then leave the canary's count at zero and say "blocked
# by policy" in its status.
#
# Usage: hack/cluster/egress-check.sh [image]   (default: the chart's
# cwac.image; give a real CWAC image to check real CWAC, e.g. cwac-real:dcd3043,
# after importing it and setting the chart's cwac.defaultConfig to CWAC's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
export KUBECONFIG="$STATE/admin.kubeconfig"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl"
HELM="$("$ROOT/hack/tools.sh" helm)"
NS=cwac-system
IMAGE="${1:-}"
log() { echo "egress-check: $*" >&2; }

# shellcheck source=hack/cluster/testpod.sh
source "$ROOT/hack/cluster/testpod.sh"

log "starting the canary"
CANARY="$(test_pod egress-canary 8080 '
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        print("CANARY-HIT", self.command, self.path, self.headers.get("User-Agent", ""), flush=True)
        self.send_response(200); self.send_header("Content-Type", "text/html"); self.end_headers()
        self.wfile.write(b"<!doctype html><html lang=en><head><title>canary</title></head><body><p>canary</p></body></html>")
    do_HEAD = do_POST = do_GET
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("0.0.0.0", 8080), H).serve_forever()
')"
log "canary at $CANARY; denying $CANARY/32 to scans"
"$HELM" upgrade cwac "$ROOT/charts/cwac-operator" -n $NS --reset-then-reuse-values \
  --set "scanPolicy.denyCIDRs={$CANARY/32}" --wait --timeout 3m >/dev/null
$K -n $NS rollout status deploy/cwac-cwac-operator --timeout 2m >/dev/null

log "starting the hostile site"
HOSTILE="$(test_pod egress-hostile 8080 "
import http.server, time
C = 'http://$CANARY:8080'
PAGES = {
  '/location': None, '/backslash': None, '/tab': None, '/percent': None, '/browser-only': None, '/late': None,
  '/refresh-header': None, '/meta': '<meta http-equiv=\"refresh\" content=\"0; url=' + C + '/meta\">',
  '/script': '<script>location.href = \"' + C + '/script\";</script>',
  '/img': '<img alt=\"x\" src=\"' + C + '/img\">',
  '/frame': '<iframe title=\"x\" src=\"' + C + '/frame\"></iframe>',
  '/fetch': '<script>fetch(\"' + C + '/fetch\", {mode: \"no-cors\"}).catch(() => {});</script>',
}
LOCATIONS = {
  '/location': C + '/location',
  '/backslash': 'http://$CANARY:8080\\\\@127.0.0.2/backslash',
  '/tab': '/\t/$CANARY:8080/tab',
  '/percent': 'http://' + ''.join('%%%02x' % ord(c) for c in '$CANARY') + ':8080/percent',
}
def page(body):
    links = ''.join('<li><a href=\"%s\">%s</a></li>' % (p, p[1:]) for p in PAGES)
    return ('<!doctype html><html lang=en><head><title>hostile</title></head><body><main><h1>hostile</h1>%s<ul>%s</ul></main></body></html>' % (body or '', links)).encode()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ua = self.headers.get('User-Agent', '')
        print('SITE', self.command, self.path, ua[:60], flush=True)
        p = self.path.split('?')[0]
        if p in LOCATIONS or (p == '/browser-only' and 'Chrome' in ua) or p == '/late':
            if p == '/late':
                time.sleep(6)
            self.send_response(302); self.send_header('Location', LOCATIONS.get(p, C + p)); self.end_headers(); return
        self.send_response(200); self.send_header('Content-Type', 'text/html')
        if p == '/refresh-header':
            self.send_header('Refresh', '0; url=' + C + '/refresh-header')
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(page(PAGES.get(p)))
    do_HEAD = do_GET
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(('0.0.0.0', 8080), H).serve_forever()
")"
log "hostile site at http://$HOSTILE:8080/"

$K -n $NS delete cwacscan egress-check --ignore-not-found --wait >/dev/null
$K -n $NS apply -f - >/dev/null <<YAML
apiVersion: cwac.a11y.dev/v1alpha1
kind: CwacScan
metadata: {name: egress-check}
spec:
  ${IMAGE:+image: $IMAGE}
  sites: [{url: "http://$HOSTILE:8080/", organisation: "Hostile Org", sector: "Test Sector"}]
  plugins: {axe_core_audit: true, language_audit: false}
  configOverrides: {only_allow_https: false}
YAML
log "scanning; waiting for the scan to finish"
for _ in $(seq 1 600); do
  phase="$($K -n $NS get cwacscan egress-check -o jsonpath='{.status.phase}')"
  [[ "$phase" == Complete || "$phase" == Failed ]] && break; sleep 2
done
log "phase: $phase"
$K -n $NS get cwacscan egress-check -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}'
echo "--- the hostile site was asked for:"
$K -n $NS logs egress-hostile | sort | uniq -c
hits="$($K -n $NS logs egress-canary | grep -c CANARY-HIT || true)"
echo "--- the canary was reached $hits times"
$K -n $NS logs egress-canary | head -20
"$HELM" upgrade cwac "$ROOT/charts/cwac-operator" -n $NS --reset-then-reuse-values --set "scanPolicy.denyCIDRs=null" --wait --timeout 3m >/dev/null
[[ "$hits" == 0 ]] || { log "FAILED: the canary was reached"; exit 1; }
[[ "$phase" == Complete ]] || { log "FAILED: the scan did not complete, so it checked nothing"; exit 1; }
log "nothing reached the canary"

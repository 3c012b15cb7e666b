#!/usr/bin/env bash
# Checks, on the local cluster (hack/cluster/up.sh and deploy.sh first), that
# notifications reach their receivers exactly once, signed, in each
# receiver's format, across operator restarts, and never reach a refused
# address. Two pods: a site whose pages can be made accessible or not
# (a control port the scan never sees), and receivers that log every
# delivery: a signed webhook, Slack- and Teams-shaped endpoints, and a
# webhook that answers 503 to each delivery's first two attempts.
#
# Five scans of two organisations (one site each; only Notify Org's
# changes), each compared with the one before (spec.baseline):
#   A  the site is accessible                  -> nothing to send
#   B  the site lost its accessibility         -> NewIssues, ThresholdsCrossed,
#      (the operator is restarted right as       ScoreDropped naming Notify Org
#      B finishes)                               alone
#   C  the site is accessible again            -> ThresholdsRecovered
#   D  the sites do not answer: no page        -> ScanFailed (and a receiver
#      (the operator is restarted again)         at the metadata address is
#                                                refused, nothing sent to it)
#   E  the sites answer again                  -> ScanRecovered
#   F  Notify Org's site does not answer,       -> ScanIncomplete (its base URL
#      Steady Org's does                          unscanned, Notify Org
#                                                 unreachable)
# The check fails when a delivery is missing, repeated, badly signed or in
# the wrong format, or when a scan's status does not record what was sent.
#
# Usage: hack/cluster/notify-check.sh [image]   (default: the chart's
# cwac.image; e.g. cwac-real:dcd3043 for real CWAC).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
export KUBECONFIG="$STATE/admin.kubeconfig"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl"
HELM="$("$ROOT/hack/tools.sh" helm)"
NS=cwac-system
IMAGE="${1:-}"
HMAC_KEY="notify-check-$(date +%s)-key"
log() { echo "notify-check: $*" >&2; }

# shellcheck source=hack/cluster/testpod.sh
source "$ROOT/hack/cluster/testpod.sh"

log "starting the site"
SITE="$(test_pod notify-site 9090 '
import http.server, threading
state = {"accessible": True, "up": True, "changing_up": True}
def page(title, accessible):
    if accessible:
        body = "<p>Welcome.</p><img src=\"/logo.png\" alt=\"Logo\"><button>Search</button>"
    else:
        body = "<p>Welcome.</p><img src=\"/logo.png\"><button></button><input type=\"text\">"
    links = "<ul><li><a href=\"/about\">About</a></li><li><a href=\"/contact\">Contact</a></li></ul>"
    return ("<!doctype html><html lang=en><head><title>%s</title></head><body><main><h1>%s</h1>%s%s</main></body></html>"
            % (title, title, body, links)).encode()
class Site(http.server.BaseHTTPRequestHandler):
    org, changes = "Notify Org", True
    def do_GET(self):
        if not state["up"] or (self.changes and not state["changing_up"]):
            self.close_connection = True
            return
        p = self.path.split("?")[0]
        if p == "/logo.png":
            self.send_response(404); self.end_headers(); return
        self.send_response(200); self.send_header("Content-Type", "text/html; charset=utf-8"); self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(page(self.org + " " + p, state["accessible"] or not self.changes))
    do_HEAD = do_GET
    def log_message(self, *a): pass
class Control(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        what = self.path.strip("/")
        state["accessible"] = what != "inaccessible"
        state["up"] = what != "down"
        state["changing_up"] = what != "notify-down"
        print("STATE", what, flush=True)
        self.send_response(204); self.end_headers()
    def log_message(self, *a): pass
class Steady(Site):
    org, changes = "Steady Org", False
for port, handler in ((8080, Site), (8081, Steady)):
    threading.Thread(target=http.server.ThreadingHTTPServer(("0.0.0.0", port), handler).serve_forever, daemon=True).start()
http.server.ThreadingHTTPServer(("0.0.0.0", 9090), Control).serve_forever()
')"
site_state() { $K -n $NS exec notify-site -- /usr/bin/python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9090/$1')"; }

log "starting the receivers"
RECEIVER="$(test_pod notify-receiver 8080 "
import hashlib, hmac, http.server, json, sys, threading, time
KEY = b'$HMAC_KEY'
LOCK = threading.Lock()
attempts = {}
def say(*words):
    # Receivers are sent to at the same time: one whole line per delivery.
    with LOCK:
        sys.stdout.write(' '.join(str(w) for w in words) + chr(10))
        sys.stdout.flush()
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
        path = self.path
        delivery = self.headers.get('X-Cwac-Delivery', '')
        event = self.headers.get('X-Cwac-Event', '')
        with LOCK:
            attempts[(path, delivery)] = attempts.get((path, delivery), 0) + 1
            n = attempts[(path, delivery)]
        if path == '/flaky' and n <= 2:
            say('REFUSED', path, event, delivery, n)
            self.send_response(503); self.end_headers(); return
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if path in ('/hook', '/flaky'):
            ts = self.headers.get('X-Cwac-Timestamp', '')
            want = 'sha256=' + hmac.new(KEY, ts.encode() + b'.' + body, hashlib.sha256).hexdigest()
            signed = hmac.compare_digest(want, self.headers.get('X-Cwac-Signature', '')) and abs(time.time() - int(ts or 0)) < 300
            shape = isinstance(doc, dict) and doc.get('schemaVersion') == 'cwac.a11y.dev/notification/v1' and doc.get('event') == event and doc.get('id') == delivery
            scan = doc['scan']['name'] if shape else '?'
            orgs = ','.join(o['organisation'] for o in ((doc.get('score') or {}).get('organisations') or [])) if shape else ''
            # NewIssues: each organisation with its new issues and their impacts.
            news = [[o['organisation'], o['new'], o.get('byImpact', {})] for o in ((doc.get('newIssues') or {}).get('byOrganisation') or [])] if shape else []
            say('DELIVERY', path, scan, event, 'signed' if signed else 'UNSIGNED', 'v1' if shape else 'BADSHAPE', 'orgs=' + orgs.replace(' ', '_'),
                'new=' + json.dumps(news, separators=(',', ':'), sort_keys=True).replace(' ', '_'))
        elif path == '/slack':
            shape = isinstance(doc, dict) and isinstance(doc.get('text'), str) and isinstance(doc.get('blocks'), list)
            say('DELIVERY', path, '-', doc.get('text', '')[:60].replace(' ', '_') if shape else '?', 'slack' if shape else 'BADSHAPE')
        elif path == '/teams':
            att = (doc or {}).get('attachments') or [{}]
            shape = att[0].get('contentType') == 'application/vnd.microsoft.card.adaptive'
            say('DELIVERY', path, '-', 'card' if shape else 'BADSHAPE')
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(('0.0.0.0', 8080), H).serve_forever()
")"
log "site at $SITE, receivers at $RECEIVER; opening the pod network and http to receivers"
"$HELM" upgrade cwac "$ROOT/charts/cwac-operator" -n $NS --reset-then-reuse-values \
  --set "notifications.allowCIDRs={10.244.0.0/16}" --set notifications.allowHTTP=true --wait --timeout 3m >/dev/null
$K -n $NS rollout status deploy/cwac-cwac-operator --timeout 3m >/dev/null

$K -n $NS delete secret notify-hooks --ignore-not-found >/dev/null
$K -n $NS create secret generic notify-hooks \
  --from-literal=hook="http://$RECEIVER:8080/hook" --from-literal=hmac="$HMAC_KEY" \
  --from-literal=flaky="http://$RECEIVER:8080/flaky" \
  --from-literal=slack="http://$RECEIVER:8080/slack" --from-literal=teams="http://$RECEIVER:8080/teams" \
  --from-literal=metadata="http://169.254.169.254/latest/meta-data/" >/dev/null

scan() { # name, baseline ("" for none), port, extra receivers (YAML list items)
  $K -n $NS delete cwacscan "$1" --ignore-not-found --wait >/dev/null
  $K -n $NS apply -f - >/dev/null <<YAML
apiVersion: cwac.a11y.dev/v1alpha1
kind: CwacScan
metadata: {name: $1}
spec:
  ${IMAGE:+image: $IMAGE}
  sites: [{url: "http://$SITE:$3/", organisation: "Notify Org", sector: "Test Sector"},
          {url: "http://$SITE:8081/", organisation: "Steady Org", sector: "Test Sector"}]
  ${2:+baseline: $2}
  maxLinksPerDomain: 5
  plugins: {axe_core_audit: true, language_audit: false}
  configOverrides: {only_allow_https: false}
  thresholds: {maxIssuesByImpact: {critical: 0}}
  notifications:
    receivers:
    - {name: ops, type: webhook, urlSecretRef: {name: notify-hooks, key: hook}, hmacSecretRef: {name: notify-hooks, key: hmac},
       events: [ScanFailed, ScanRecovered, ThresholdsCrossed, ThresholdsRecovered, NewIssues, ScoreDropped, ScanIncomplete], scoreDrop: 1}
    - {name: flaky, type: webhook, urlSecretRef: {name: notify-hooks, key: flaky}, hmacSecretRef: {name: notify-hooks, key: hmac},
       events: [ThresholdsCrossed, ScanFailed]}
    - {name: chat, type: slack, urlSecretRef: {name: notify-hooks, key: slack}, events: [ThresholdsCrossed, ScanFailed]}
    - {name: channel, type: teams, urlSecretRef: {name: notify-hooks, key: teams}, events: [NewIssues, ScanRecovered]}
$4
YAML
  local phase=""
  for _ in $(seq 1 600); do
    phase="$($K -n $NS get cwacscan "$1" -o jsonpath='{.status.phase}')"
    [[ "$phase" == Complete || "$phase" == Failed ]] && break; sleep 2
  done
  log "scan $1: $phase ($($K -n $NS get cwacscan "$1" -o jsonpath='{.status.message}'))"
}
restart_operator() { # scan whose deliveries the restart may catch
  log "restarting the operator; $1's deliveries now: $($K -n $NS get cwacscan "$1" -o jsonpath='{range .status.notifications.deliveries[*]}{.receiver}/{.event}={.state} {end}')"
  $K -n $NS rollout restart deploy/cwac-cwac-operator >/dev/null
  $K -n $NS rollout status deploy/cwac-cwac-operator --timeout 3m >/dev/null
}
wait_delivered() { # scan: wait until no delivery is Pending
  for _ in $(seq 1 120); do
    pending="$($K -n $NS get cwacscan "$1" -o jsonpath='{range .status.notifications.deliveries[*]}{.state}{"\n"}{end}' | grep -c Pending || true)"
    [[ "$pending" == 0 ]] && return 0; sleep 2
  done
  log "scan $1: deliveries still pending after 4 minutes"
}

site_state accessible
scan notify-a "" 8080 ""
site_state inaccessible
scan notify-b notify-a 8080 ""
restart_operator notify-b
wait_delivered notify-b
site_state accessible
scan notify-c notify-b 8080 ""
wait_delivered notify-c
site_state down
scan notify-d notify-c 8080 "    - {name: metadata, type: webhook, urlSecretRef: {name: notify-hooks, key: metadata}, events: [ScanFailed]}"
restart_operator notify-d
wait_delivered notify-d
site_state accessible
scan notify-e notify-d 8080 ""
wait_delivered notify-e
site_state notify-down
scan notify-f notify-e 8080 ""
wait_delivered notify-f
sleep 5 # a repeat after the last record would show up here

echo "--- what the receivers got:"
$K -n $NS logs notify-receiver | tee /tmp/notify-check-receiver.log
echo "--- what each scan recorded:"
for s in a b c d e f; do
  echo "notify-$s: $($K -n $NS get cwacscan notify-$s -o jsonpath='{.status.phase} events={.status.notifications.events} {range .status.conditions[?(@.type=="NotificationsDelivered")]}{.status}/{.reason}: {.message}{end}')"
  echo "    scoreDrops=$($K -n $NS get cwacscan notify-$s -o jsonpath='{range .status.summary.diff.scoreDrops[*]}{.organisation}:{.previousScore}->{.score};{end}' | tr ' ' '_')"
  $K -n $NS get cwacscan notify-$s -o jsonpath='{range .status.notifications.deliveries[*]}    {.receiver} {.event} {.state} attempts={.attempts}{"\n"}{end}'
done | tee /tmp/notify-check-status.log

"$HELM" upgrade cwac "$ROOT/charts/cwac-operator" -n $NS --reset-then-reuse-values \
  --set "notifications.allowCIDRs=null" --set notifications.allowHTTP=false --wait --timeout 3m >/dev/null

$K -n $NS get cwacscan notify-b -o json >/tmp/notify-check-b.json

python3 - /tmp/notify-check-receiver.log /tmp/notify-check-status.log /tmp/notify-check-b.json <<'PY'
import collections, json, sys
receiver, status = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read()
b_scan = json.load(open(sys.argv[3]))
got = collections.Counter(tuple(l.split()[1:4]) for l in receiver if l.startswith("DELIVERY /hook") or l.startswith("DELIVERY /flaky"))
want = {("/hook", "notify-b", "NewIssues"), ("/hook", "notify-b", "ThresholdsCrossed"), ("/hook", "notify-b", "ScoreDropped"),
        ("/flaky", "notify-b", "ThresholdsCrossed"), ("/hook", "notify-c", "ThresholdsRecovered"),
        ("/hook", "notify-d", "ScanFailed"), ("/flaky", "notify-d", "ScanFailed"), ("/hook", "notify-e", "ScanRecovered"),
        ("/hook", "notify-f", "ScanIncomplete")}
failed = []
for w in sorted(want):
    if got[w] != 1:
        failed.append("%s %s %s delivered %d times, want once" % (w + (got[w],)))
for g in sorted(set(got) - want):
    failed.append("%s %s %s delivered %d times, want never" % (g + (got[g],)))
bad = [l for l in receiver if l.startswith("DELIVERY") and ("UNSIGNED" in l or "BADSHAPE" in l)]
failed += ["bad delivery: " + l for l in bad]
slack = sum(1 for l in receiver if l.startswith("DELIVERY /slack"))
teams = sum(1 for l in receiver if l.startswith("DELIVERY /teams"))
if slack != 2: failed.append("Slack got %d messages, want 2 (B crossed, D failed)" % slack)
if teams != 2: failed.append("Teams got %d messages, want 2 (B new issues, E recovered)" % teams)
refused = sum(1 for l in receiver if l.startswith("REFUSED /flaky"))
if refused != 4: failed.append("the flaky receiver refused %d attempts, want 4 (two per delivery)" % refused)
if "metadata ScanFailed Failed" not in status or "ReceiverRefused" not in status:
    failed.append("notify-d: the receiver at the metadata address is not recorded as refused")
# Only the organisation whose site lost its accessibility fell; the steady one did not.
drops = [l.split()[6] for l in receiver if l.startswith("DELIVERY /hook notify-b ScoreDropped")]
if drops != ["orgs=Notify_Org"]:
    failed.append("notify-b's ScoreDropped named organisations %s, want Notify Org alone" % drops)
b_drops = [l for l in status.splitlines() if "scoreDrops=" in l]
if len(b_drops) < 2 or not b_drops[1].strip().startswith("scoreDrops=Notify_Org:") or "Steady" in b_drops[1]:
    failed.append("notify-b's status.summary.diff.scoreDrops is not Notify Org's alone: %s" % b_drops[1:2])
# NewIssues names Notify Org alone, with its new issues by axe impact, as
# the scan's status counted them.
news = [json.loads(l.split()[7][len("new="):]) for l in receiver if l.startswith("DELIVERY /hook notify-b NewIssues")]
by_org = {o["organisation"].replace(" ", "_"): o for o in b_scan["status"]["summary"]["diff"].get("byOrganisation", []) if o["new"] > 0}
print("notify-b NewIssues by organisation: %s; status: %s" % (news, json.dumps(list(by_org.values()))))
if len(news) != 1 or [o[0] for o in news[0]] != ["Notify_Org"]:
    failed.append("notify-b's NewIssues named organisations %s, want Notify Org alone" % news)
else:
    org, new, impacts = news[0][0]
    if not set(impacts) <= {"critical", "serious", "moderate", "minor"} or impacts.get("critical", 0) < 1 or sum(impacts.values()) > new:
        failed.append("notify-b's NewIssues counts Notify Org's %d new issues by impact as %s" % (new, impacts))
    if by_org.get(org, {}).get("newByImpact") != impacts or by_org[org]["new"] != new:
        failed.append("notify-b's NewIssues (%s: %d, %s) is not what its status counted (%s)" % (org, new, impacts, by_org.get(org)))
if " Pending " in status:
    failed.append("a delivery is still pending")
print("\n".join(failed) or "every delivery arrived exactly once, signed and in its receiver's format")
sys.exit(1 if failed else 0)
PY

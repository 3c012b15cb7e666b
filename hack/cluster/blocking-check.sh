#!/usr/bin/env bash
# Checks, on the local cluster (hack/cluster/up.sh and deploy.sh first), that
# a scan says plainly which organisations were not scanned completely, and
# why, when their sites refuse or fail the crawler the way real sites do. One
# pod serves ten sites, one per organisation:
#   Open Org         8080  four pages, every one answers 200    -> complete
#   Forbidden Org    8081  every request answers 403            -> blocked
#   Challenge Org    8082  Cloudflare's managed challenge: 403,
#                          "Just a moment...", cf-mitigated     -> blocked
#   Rate Limited Org 8083  the home page answers, the pages it
#                          links to answer 429                  -> partial
#   Failing Org      8084  the home page answers, the pages it
#                          links to answer 500                  -> partial
#   Interruption Org 8085  every page answers 200 with a bot
#                          manager's "Pardon Our Interruption"  -> blocked
#   Human Check Org  8086  every page answers 200 with Cloudflare's
#                          "Verifying you are human" and a Ray ID
#                          (CWAC's own anti-bot check)          -> blocked
#   Down Org         8087  every request answers 503            -> unreachable
#   Titles Org       8088  two pages share a title, one has none,
#                          one link is broken (404)             -> complete
#   Closed Org       8089  nothing listens                      -> unreachable
# A challenge served with 503 (Cloudflare's older "under attack" mode) is
# judged unreachable, not blocked: CWAC records only the base URL's status
# code, which cannot tell it from an outage (docs/completeness.md); either
# way the organisation is not ranked.
# The scan runs through the product (a CwacScan, the operator, the scan pod's
# runner, CWAC) and the verdicts are read back from the scan's status
# (status.summary.completeness) and its AllSitesComplete condition; the scan
# asks for complete results (thresholds.requireComplete), so its gate must
# fail; the report's leaderboard.csv (on the results volume) must rank Open
# Org and Titles Org alone, first, and show no score for a blocked or
# unreachable organisation; Titles Org's titles and broken link are read back
# with `kubectl cwac signals` (through the MCP server, with a reader's
# token). Exits non-zero when any of it differs from the above.
#
# Usage: hack/cluster/blocking-check.sh [image]   (default: the chart's
# cwac.image; give a real CWAC image to check real CWAC, e.g. cwac-real:dcd3043,
# after importing it and setting the chart's cwac.defaultConfig to CWAC's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${CLUSTER_DIR:-$ROOT/bin/cluster}"
export KUBECONFIG="$STATE/admin.kubeconfig"
K="$ROOT/bin/k8s/1.37.1-linux-amd64/kubectl"
NS=cwac-system
SCAN=blocking-check
IMAGE="${1:-}"
# shellcheck source=hack/cluster/testpod.sh
source "$ROOT/hack/cluster/testpod.sh"
log() { echo "blocking-check: $*" >&2; }

SITES_PROGRAM='
import http.server, threading
LOG = threading.Lock()  # one line per request, whichever thread answers
def doc(title, body):
    return ("<!doctype html><html lang=en><head><title>%s</title></head><body><main><h1>%s</h1>%s</main></body></html>"
            % (title, title, body)).encode()
LINKS = "<ul>" + "".join("<li><a href=\"/page%d\">Page %d</a></li>" % (i, i) for i in range(1, 4)) + "</ul>"
CHALLENGE = doc("Just a moment...", "<p>Verifying you are human. This may take a few seconds.</p>"
                "<p>Performance &amp; security by Cloudflare. Ray ID: 8f2b1c3d4e5f6a7b</p>")
def behaviour(port, path):
    """The status, extra headers and page a site answers a path with."""
    home = path in ("/", "/index.html")
    if port == 8080:
        return 200, {}, doc("Open Org " + path, "<p>Open content.</p>" + LINKS)
    if port == 8081:
        return 403, {}, doc("403 Forbidden", "<p>You do not have access.</p>")
    if port == 8082:
        return 403, {"Server": "cloudflare", "cf-ray": "8f2b1c3d4e5f6a7b-AKL", "cf-mitigated": "challenge"}, CHALLENGE
    if port == 8085:
        return 200, {}, doc("Pardon Our Interruption", "<p>Something about your browser made us think you were a bot.</p>")
    if port == 8086:
        return 200, {"Server": "cloudflare", "cf-ray": "8f2b1c3d4e5f6a7b-AKL"}, CHALLENGE
    if port == 8087:
        return 503, {"Retry-After": "600"}, doc("Service Unavailable", "<p>Down for maintenance.</p>")
    if port == 8088:
        # Paths are words: the CWAC crawler skips links it finds too like
        # the page they are on (/a beside /).
        if path == "/missing-page":
            return 404, {}, doc("Not Found", "<p>No such page.</p>")
        nav = "<ul>" + "".join("<li><a href=\"/%s\">%s</a></li>" % (p, p) for p in
                               ("welcome-first", "welcome-second", "untitled-page", "missing-page")) + "</ul>"
        if path == "/untitled-page":
            return 200, {}, b"<!doctype html><html lang=en><head></head><body><main><h1>Untitled</h1>" + nav.encode() + b"</main></body></html>"
        return 200, {}, doc("Welcome" if path.startswith("/welcome-") else "Titles Org", "<p>Content about %s.</p>" % path + nav)
    if port == 8083:
        if home:
            return 200, {}, doc("Rate Limited Org", "<p>Home.</p>" + LINKS)
        return 429, {"Retry-After": "3600"}, doc("429 Too Many Requests", "<p>Slow down.</p>")
    if home:
        return 200, {}, doc("Failing Org", "<p>Home.</p>" + LINKS)
    return 500, {}, doc("500 Internal Server Error", "<p>Something broke.</p>")
def handler(port):
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            status, headers, body = behaviour(port, self.path.split("?")[0])
            with LOG:
                print("SITE", port, self.command, self.path, status, flush=True)
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        do_HEAD = do_GET
        def log_message(self, *a): pass
    return H
servers = [http.server.ThreadingHTTPServer(("0.0.0.0", p), handler(p)) for p in (8080, 8081, 8082, 8083, 8084, 8085, 8086, 8087, 8088)]
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
servers[0].serve_forever()
'

log "starting the sites"
IP="$(test_pod blocking-sites 8080 "$SITES_PROGRAM")"
log "sites at $IP"

$K -n $NS delete cwacscan $SCAN --ignore-not-found --wait >/dev/null
$K -n $NS apply -f - >/dev/null <<YAML
apiVersion: cwac.a11y.dev/v1alpha1
kind: CwacScan
metadata: {name: $SCAN}
spec:
  ${IMAGE:+image: $IMAGE}
  sites:
  - {url: "http://$IP:8080/", organisation: "Open Org", sector: "Test Sector"}
  - {url: "http://$IP:8081/", organisation: "Forbidden Org", sector: "Test Sector"}
  - {url: "http://$IP:8082/", organisation: "Challenge Org", sector: "Test Sector"}
  - {url: "http://$IP:8083/", organisation: "Rate Limited Org", sector: "Test Sector"}
  - {url: "http://$IP:8084/", organisation: "Failing Org", sector: "Test Sector"}
  - {url: "http://$IP:8085/", organisation: "Interruption Org", sector: "Test Sector"}
  - {url: "http://$IP:8086/", organisation: "Human Check Org", sector: "Test Sector"}
  - {url: "http://$IP:8087/", organisation: "Down Org", sector: "Test Sector"}
  - {url: "http://$IP:8088/", organisation: "Titles Org", sector: "Test Sector"}
  - {url: "http://$IP:8089/", organisation: "Closed Org", sector: "Test Sector"}
  maxLinksPerDomain: 10
  plugins: {axe_core_audit: true, language_audit: false}
  configOverrides: {only_allow_https: false}
  thresholds: {requireComplete: true}
YAML
log "scanning; waiting for the scan to finish"
phase=""
for _ in $(seq 1 900); do
  phase="$($K -n $NS get cwacscan $SCAN -o jsonpath='{.status.phase}')"
  [[ "$phase" == Complete || "$phase" == Failed ]] && break; sleep 2
done
log "phase: $phase"
$K -n $NS get cwacscan $SCAN -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}'
echo "--- requests the sites answered (port, method, path, status):"
$K -n $NS logs blocking-sites | sort | uniq -c
echo "--- completeness in the scan's status:"
completeness="$($K -n $NS get cwacscan $SCAN -o jsonpath='{.status.summary.completeness}')"
printf '%s\n' "$completeness" | python3 -m json.tool

[[ "$phase" == Complete ]] || { log "FAILED: the scan did not complete"; exit 1; }
printf '%s' "$completeness" | python3 -c '
import json, sys
c = json.load(sys.stdin)
want = {"Forbidden Org": ("blocked", "403"), "Challenge Org": ("blocked", "403"),
        "Rate Limited Org": ("partial", "429"), "Failing Org": ("partial", "5xx"),
        "Interruption Org": ("blocked", "challenge page"), "Human Check Org": ("blocked", "anti-bot check"),
        "Down Org": ("unreachable", "503"), "Closed Org": ("unreachable", "did not answer")}
# Titles Org must be complete: a broken link is not incompleteness.
got = {o["organisation"]: (o["verdict"], o.get("reason", "")) for o in c.get("incomplete", [])}
failed = False
for org, (verdict, words) in sorted(want.items()):
    v, reason = got.get(org, ("(complete)", ""))
    ok = v == verdict and words in reason
    failed |= not ok
    print("%-17s want %-11s got %-11s %-5s %s" % (org, verdict, v, "ok" if ok else "WRONG", reason or "(no reason)"))
extra = sorted(set(got) - set(want))
if extra:
    failed = True
    print("not complete, but should be:", ", ".join("%s (%s)" % (o, got[o]) for o in extra))
sys.exit(1 if failed else 0)
' || { log "FAILED: a verdict differs from what the site did"; exit 1; }

condition() { $K -n $NS get cwacscan $SCAN -o jsonpath="{.status.conditions[?(@.type==\"$1\")].status}/{.status.conditions[?(@.type==\"$1\")].reason}"; }
[[ "$(condition AllSitesComplete)" == False/OrganisationsIncomplete ]] ||
  { log "FAILED: AllSitesComplete is $(condition AllSitesComplete), not False/OrganisationsIncomplete"; exit 1; }
[[ "$(condition ThresholdsMet)" == False/* ]] ||
  { log "FAILED: requireComplete did not fail the gate: ThresholdsMet is $(condition ThresholdsMet)"; exit 1; }
log "AllSitesComplete=$(condition AllSitesComplete), ThresholdsMet=$(condition ThresholdsMet): as asked"

board="$STATE/results/$($K -n $NS get cwacscan $SCAN -o jsonpath='{.status.resultsPath}')/leaderboard.csv"
echo "--- $board:"
cat "$board"
python3 - "$board" <<'PY' || { log "FAILED: the leaderboard ranks or scores an organisation that was not scanned completely"; exit 1; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
ranked = [r["organisation"] for r in rows if r["rank"]]
failed = []
if sorted(ranked) != ["Open Org", "Titles Org"] or [r["organisation"] for r in rows[:2]] != ranked:
    failed.append("ranked, in order: %s; want Open Org and Titles Org alone, first" % ranked)
for r in rows:
    if r["completeness"] in ("blocked", "unreachable") and r["score"]:
        failed.append("%s (%s) shows a score: %s" % (r["organisation"], r["completeness"], r["score"]))
    if not r["rank"] and not r["completeness_reason"]:
        failed.append("%s is not ranked and says no reason" % r["organisation"])
print("\n".join(failed) or "leaderboard: Open Org and Titles Org ranked first; the rest not ranked, each with its reason; no blocked or unreachable score")
sys.exit(1 if failed else 0)
PY

log "reading Titles Org's signals with kubectl cwac (a reader's token, through the MCP server)"
PLUGIN="$(mktemp -d)/kubectl-cwac"
(cd "$ROOT" && go build -o "$PLUGIN" ./cmd/kubectl-cwac)
$K -n $NS create serviceaccount blocking-check-reader --dry-run=client -o yaml | $K apply -f - >/dev/null
$K -n $NS create role blocking-check-reader --verb=get,list,watch --resource=cwacscans.cwac.a11y.dev --dry-run=client -o yaml | $K apply -f - >/dev/null
$K -n $NS create rolebinding blocking-check-reader --role=blocking-check-reader --serviceaccount=$NS:blocking-check-reader \
  --dry-run=client -o yaml | $K apply -f - >/dev/null
TOKEN="$($K -n $NS create token blocking-check-reader --duration=10m)"
signals() { "$PLUGIN" -n $NS signals $SCAN --token "$TOKEN" --mcp-url "${MCP_URL:-http://127.0.0.1:8090}" --organisation "Titles Org" --kind "$1" -o json; }
titles="$(signals titles)"; responses="$(signals responses)"
"$PLUGIN" -n $NS signals $SCAN --token "$TOKEN" --mcp-url "${MCP_URL:-http://127.0.0.1:8090}" --organisation "Titles Org" --kind titles
"$PLUGIN" -n $NS signals $SCAN --token "$TOKEN" --mcp-url "${MCP_URL:-http://127.0.0.1:8090}" --organisation "Titles Org" --kind responses
python3 - "$titles" "$responses" <<'PY' || { log "FAILED: Titles Org's signals are not what its site has"; exit 1; }
import json, sys
titles, responses = json.loads(sys.argv[1]), json.loads(sys.argv[2])
found = {(f["problem"], f.get("title", ""), f["pages"]) for f in titles["findings"]}
failed = []
if ("duplicate", "Welcome", 2) not in found:
    failed.append("the title Welcome shared by two pages is not reported: %s" % sorted(found))
if not any(f["problem"] == "missing_or_empty" and any(u.endswith("/untitled-page") for u in f["urls"]) for f in titles["findings"]):
    failed.append("/untitled-page without a title is not reported: %s" % sorted(found))
broken = [(r["status"], r["url"]) for r in responses["list"]]
if not any(s == "404" and u.endswith("/missing-page") for s, u in broken):
    failed.append("the broken link to /missing-page is not reported: %s" % broken)
print("\n".join(failed) or "Titles Org: Welcome shared by 2 pages, /untitled-page without a title, /missing-page 404: as its site has them")
sys.exit(1 if failed else 0)
PY
log "every organisation has the verdict its site earned, and Titles Org's signals match its site"

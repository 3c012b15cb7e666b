#!/usr/bin/env python3
"""A stand-in for CWAC used by cwac-operator's tests. It is NOT CWAC.

It behaves like real CWAC where the operator can see it: it is run as
`python -u cwac.py <config>.json` from its working directory, reads
./config/<config>.json (the name must match ^[a-zA-Z0-9_.-]+$), reads the base
URL CSVs in base_urls_visit_path, requires base_urls_nohead_path to exist,
creates ./results/<YYYY-MM-DD_HH-MM-SS>_<audit_name>/ and writes CSVs in real
CWAC's format (UTF-8 BOM, CRLF rows, Python-repr cells) there. The rows come
from templates recorded from a real CWAC run of the project's test site
(templates/), re-labelled for each base URL that answers an HTTP GET.

Like real CWAC it exits 0 when nothing could be scanned: an unreachable base
URL gets number_of_pages 0; an http:// URL with only_allow_https skips the site
and writes no CSV at all.

Like real CWAC it needs what CWAC's image has beside its sources: with
chrome_binary_location / chrome_driver_location "auto" it finds Chrome and
chromedriver under ./chrome/ and ./chromedriver/ by package.json's
config.chromeVersion (as CWAC's config.py does), and with language_audit
enabled it needs ./nltk_data to be a directory it can write (CWAC's language
audit downloads nltk's data there; this stand-in writes a marker instead and
never touches the network), else it fails as nltk does, with a LookupError.

Test knobs (environment, or a marker in audit_name):
  STANDIN_EXIT=N / audit_name containing 'standin-exit-N'  exit N after a traceback
  STANDIN_SLEEP=S / 'standin-sleep-S'                      sleep S seconds first
  STANDIN_SITE_SECONDS=S / 'standin-pace-S'                sleep S seconds per base URL scanned
                                                           (reachable or not), so a scan's time
                                                           grows with its sites as CWAC's does
                                                           (S may have decimals in the environment)
  STANDIN_EXIT_IF_URL=W / 'standin-exitif-W'              exit 3 after a traceback when a base URL
                                                           contains W (letters and digits): one
                                                           shard of a sharded scan fails
  STANDIN_MEMORY_MB=M / 'standin-memory-M'                 allocate M MiB and hold it
  STANDIN_AXE_ROWS=N / 'standin-axerows-N'                 write N axe_core_audit.csv rows: the
                                                           template's rows in turn, each turn on a
                                                           page of its own (a scan of any size)
  STANDIN_OFFLINE=1                                        treat every site as reachable
"""
import csv
import datetime
import io
import json
import os
import re
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.realpath(__file__))
TEMPLATES = os.environ.get("STANDIN_TEMPLATES", os.path.join(HERE, "templates"))
TEMPLATE_BASE = "http://127.0.0.1:8765/"
TEMPLATE_ORG = "CWAC Test Org"
TEMPLATE_SECTOR = "Test Sector"
TEMPLATE_PAGES = 4
BOOKKEEPING = {"pages_scanned.csv", "progress.csv", "unexpected_response_codes.csv"}


def knob(name, marker):
    value = os.environ.get(name)
    if value:
        return value
    m = re.search(marker + r"-(\d+)", AUDIT_NAME or "")
    return m.group(1) if m else None


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def write_csv(path, header, rows, lineterminator="\r\n"):
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        w = csv.writer(f, lineterminator=lineterminator)
        w.writerow(header)
        w.writerows(rows)


def reachable(url):
    if os.environ.get("STANDIN_OFFLINE") == "1":
        return True
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return 200 <= resp.status < 400
    except Exception:
        return False


def resolve_auto(config):
    """CWAC's config.py: "auto" means Chrome for Testing as its npm install put it."""
    if "auto" not in (config.get("chrome_binary_location"), config.get("chrome_driver_location")):
        return
    with open("package.json", encoding="utf-8-sig") as f:
        version = str(json.load(f)["config"]["chromeVersion"])
    paths = {
        "chrome_binary_location": "./chrome/linux-%s/chrome-linux64/chrome" % version,
        "chrome_driver_location": "./chromedriver/linux-%s/chromedriver-linux64/chromedriver" % version,
    }
    for key, path in paths.items():
        if config.get(key) == "auto":
            if not os.path.isfile(path):
                raise FileNotFoundError("[Errno 2] No such file or directory: '%s'" % path)
            config[key] = path


def nltk_data(config):
    """CWAC's language audit downloads nltk's data into ./nltk_data at import."""
    if not config.get("audit_plugins", {}).get("language_audit", {}).get("enabled"):
        return
    try:
        os.makedirs("nltk_data", exist_ok=True)
        with open(os.path.join("nltk_data", "standin-download-marker"), "w") as f:
            f.write("the stand-in's nltk download would land here\n")
    except OSError as e:
        print("[nltk_data] Error downloading 'cmudict': %s" % e, file=sys.stderr)
        banner = "*" * 70
        raise LookupError("\n%s\n  Resource \x1b[93mcmudict\x1b[0m not found.\n  Please use the NLTK Downloader to obtain the resource:\n%s\n" % (banner, banner))


def relabel(value, site):
    if value.startswith(TEMPLATE_BASE):
        return site["url"] + value[len(TEMPLATE_BASE):] if site["url"].endswith("/") else site["url"] + "/" + value[len(TEMPLATE_BASE):]
    return {TEMPLATE_ORG: site["organisation"], TEMPLATE_SECTOR: site["sector"]}.get(value, value)


def grow(out, n):
    """Grows an axe audit's rows to n: the rows in turn, each turn on a page
    of its own (its url, page_id and audit_id), every row its own issue_id."""
    header, body = out
    if not body:
        return
    col = {name: i for i, name in enumerate(header)}
    grown = []
    for i in range(n):
        row = list(body[i % len(body)])
        turn = i // len(body)
        if turn:
            row[col["url"]] = row[col["url"]].rstrip("/") + "/page-%d" % turn
            row[col["page_id"]] = str(1000 + turn)
            row[col["audit_id"]] = "%d_%s" % (1000 + turn, row[col["audit_id"]].split("_", 1)[-1])
        row[col["issue_id"]] = "%010x" % i
        grown.append(row)
    out[1] = grown


AUDIT_NAME = None


def main():
    global AUDIT_NAME
    if len(sys.argv) != 2:
        raise ValueError("usage: cwac.py <config>.json")
    config_name = sys.argv[1]
    if not re.match(r"^[a-zA-Z0-9_.-]+$", config_name):
        raise ValueError("config_filename must be alphanumeric, underscores, and hyphens")
    with open(os.path.join("config", config_name), encoding="utf-8-sig") as f:
        config = json.load(f)
    AUDIT_NAME = config["audit_name"]

    sleep = knob("STANDIN_SLEEP", "standin-sleep")
    if sleep:
        time.sleep(int(sleep))
    memory = knob("STANDIN_MEMORY_MB", "standin-memory")
    hoard = None
    if memory:
        hoard = bytearray(int(memory) * 1024 * 1024)
        for i in range(0, len(hoard), 4096):
            hoard[i] = 1

    started = datetime.datetime.now()
    results = os.path.join("results", started.strftime("%Y-%m-%d_%H-%M-%S") + "_" + AUDIT_NAME)
    os.makedirs(results)
    with open(os.path.join(results, "config.json"), "w", encoding="utf-8-sig") as f:
        json.dump(config, f, indent=4)
    open(os.path.join(results, started.strftime("%Y-%m-%d_%H-%M-%S") + "_" + AUDIT_NAME + ".log"), "w").close()

    print("*" * 80)
    print("Centralised Web Accessibility Checker (CWAC) - test stand-in")
    print("Run time: " + started.strftime("%Y-%m-%d %H:%M:%S"))
    print("*" * 80)
    print("Audit name: " + os.path.basename(results))

    resolve_auto(config)
    nltk_data(config)

    visit = config["base_urls_visit_path"]
    if not os.path.isdir(config["base_urls_nohead_path"]):
        raise FileNotFoundError("[Errno 2] No such file or directory: '%s'" % config["base_urls_nohead_path"])
    sites = []
    for name in sorted(os.listdir(visit)):
        if not name.endswith(".csv"):
            continue
        with open(os.path.join(visit, name), encoding="utf-8-sig", newline="") as f:
            for row in csv.DictReader(f):
                if config.get("only_allow_https", True) and not row["url"].startswith("https://"):
                    continue
                sites.append(row)
    print("Number of websites to be scanned: %d" % len(sites))

    code = knob("STANDIN_EXIT", "standin-exit")
    word = os.environ.get("STANDIN_EXIT_IF_URL") or (re.findall(r"standin-exitif-([A-Za-z0-9]+)", AUDIT_NAME or "") or [None])[0]
    if word and any(word in site["url"] for site in sites):
        code = "3"
    if code and int(code) != 0:
        print("Traceback (most recent call last):", file=sys.stderr)
        print('  File "cwac.py", line 1, in <module>', file=sys.stderr)
        print("RuntimeError: stand-in asked to fail with exit code %s" % code, file=sys.stderr)
        sys.exit(int(code))

    if not sites:
        print("CWAC complete! Data can be found in the ./results folder.")
        return

    plugins = {name for name, p in config.get("audit_plugins", {}).items() if p.get("enabled")}
    pages, unexpected, outputs = [], [], {}
    total = max(1, len(sites) * TEMPLATE_PAGES)
    progress = [["time", "iteration", "total", "speed", "percent", "elapsed", "remaining"]]
    done = 0
    pace = knob("STANDIN_SITE_SECONDS", "standin-pace")
    for site in sites:
        if pace:
            time.sleep(float(pace))
        if not reachable(site["url"]):
            pages.append([site["organisation"], site["url"], 0, site["sector"]])
            unexpected.append([site["url"], site["url"], site["url"], -1])
            continue
        pages.append([site["organisation"], site["url"], TEMPLATE_PAGES, site["sector"]])
        for tpl in sorted(os.listdir(TEMPLATES)):
            if not tpl.endswith(".csv") or tpl in BOOKKEEPING:
                continue
            stem = tpl[:-4]
            base_plugin = stem.replace("_template_aware", "")
            if base_plugin.endswith("_audit") and base_plugin not in plugins:
                continue
            rows = read_csv(os.path.join(TEMPLATES, tpl))
            header, body = rows[0], rows[1:]
            out = outputs.setdefault(tpl, [header, []])
            out[1].extend([relabel(v, site) for v in row] for row in body)
        done += TEMPLATE_PAGES
        progress.append([repr(time.time()), done, total, "1.00", "%.1f" % (100.0 * done / total), "0h 0m", "0h 0m"])
        # CWAC writes its progress as it goes, not only at the end.
        write_csv(os.path.join(results, "progress.csv"), progress[0], progress[1:])
        print("|%s| %.1f%% p:%d/%d" % ("#" * 20, 100.0 * done / total, done, total))

    axe_rows = knob("STANDIN_AXE_ROWS", "standin-axerows")
    if axe_rows and "axe_core_audit.csv" in outputs:
        grow(outputs["axe_core_audit.csv"], int(axe_rows))
    for tpl, (header, body) in outputs.items():
        write_csv(os.path.join(results, tpl), header, body, "\n" if tpl.endswith("_template_aware.csv") else "\r\n")
    write_csv(os.path.join(results, "pages_scanned.csv"), ["organisation", "base_url", "number_of_pages", "sector"], pages)
    write_csv(os.path.join(results, "progress.csv"), progress[0], progress[1:])
    write_csv(os.path.join(results, "unexpected_response_codes.csv"), ["base_url", "parent_url", "url", "status_code"], unexpected)
    print("CWAC complete! Data can be found in the ./results folder.")
    del hoard


if __name__ == "__main__":
    main()

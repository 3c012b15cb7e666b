-- The issue history: one schema for SQLite and PostgreSQL (portable types
-- and statements only; see docs/history.md). Times are seconds since the
-- Unix epoch (UTC) in BIGINT columns: both engines sort and compare them
-- alike, with no driver-specific time handling. Ids are assigned by the
-- writer under writer_lock (one writer at a time), so no engine-specific
-- auto-increment is needed.

-- writer_lock serialises writers: every ingest locks its one row first
-- (PostgreSQL: a row lock held to commit; SQLite: the write transaction).
CREATE TABLE writer_lock (
    id INTEGER PRIMARY KEY,
    holder TEXT NOT NULL,
    since BIGINT NOT NULL
);
INSERT INTO writer_lock (id, holder, since) VALUES (1, '', 0);

-- scans: one row per ingested CwacScan (or imported results directory).
-- A pruned scan keeps its row (names and times for the issues it saw,
-- and so that it is never ingested again) without its per-scan data.
CREATE TABLE scans (
    id BIGINT PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    schedule TEXT NOT NULL,
    finished_at BIGINT NOT NULL,
    phase TEXT NOT NULL,
    results_path TEXT NOT NULL,
    cwac_image_digest TEXT NOT NULL,
    axe_core_version TEXT NOT NULL,
    chrome_version TEXT NOT NULL,
    ingested_at BIGINT NOT NULL,
    pruned_at BIGINT
);
CREATE INDEX scans_by_schedule ON scans (namespace, schedule, finished_at);
CREATE INDEX scans_by_time ON scans (finished_at);

-- organisations: CWAC's organisation column, with its sector, in the
-- namespace of the scans that showed it. The namespace is the tenant: one
-- organisation scanned from two namespaces has two histories, each read
-- by whoever may get the CwacScans of its namespace.
CREATE TABLE organisations (
    id BIGINT PRIMARY KEY,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    sector TEXT NOT NULL,
    UNIQUE (namespace, name)
);

-- pages: an organisation's page URLs, normalised as the baseline
-- comparison does (internal/diff PageKey).
CREATE TABLE pages (
    id BIGINT PRIMARY KEY,
    organisation_id BIGINT NOT NULL REFERENCES organisations (id),
    url TEXT NOT NULL,
    UNIQUE (organisation_id, url)
);

-- issues: one row per issue identity, followed from first seen to fixed
-- (and reopened). element_hash and target_hash are hashes of the whole
-- cells (matching), element_html and target the capped text (people).
-- The *_scan_id columns name scans without a foreign key: a pruned scan's
-- row stays, and the times beside them say when.
CREATE TABLE issues (
    id BIGINT PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    organisation_id BIGINT NOT NULL REFERENCES organisations (id),
    page_id BIGINT NOT NULL REFERENCES pages (id),
    viewport_width INTEGER NOT NULL,
    audit TEXT NOT NULL,
    rule TEXT NOT NULL,
    impact TEXT NOT NULL,
    element_html TEXT NOT NULL,
    element_hash BIGINT NOT NULL,
    target TEXT NOT NULL,
    target_hash BIGINT NOT NULL,
    help_url TEXT NOT NULL,
    wcag TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'fixed')),
    first_seen_scan_id BIGINT NOT NULL,
    first_seen_at BIGINT NOT NULL,
    last_seen_scan_id BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    fixed_in_scan_id BIGINT,
    fixed_at BIGINT,
    fixed_reason TEXT CHECK (fixed_reason IN ('fixed', 'page not scanned')),
    reopened INTEGER NOT NULL,
    scans_present INTEGER NOT NULL,
    CHECK ((state = 'open') = (fixed_in_scan_id IS NULL)),
    CHECK ((fixed_in_scan_id IS NULL) = (fixed_reason IS NULL))
);
-- The issue history's filters, each ending in id, the order of a page.
CREATE INDEX issues_by_organisation ON issues (organisation_id, state, id);
CREATE INDEX issues_by_page ON issues (page_id, state, id);
CREATE INDEX issues_by_rule ON issues (rule, state, id);
CREATE INDEX issues_reopened ON issues (organisation_id, id) WHERE reopened > 0;
-- Retention's sweep of long-fixed issues.
CREATE INDEX issues_fixed_by_time ON issues (last_seen_at) WHERE state = 'fixed';

-- presences: which issues each scan saw (one row per issue per scan).
CREATE TABLE presences (
    scan_id BIGINT NOT NULL,
    issue_id BIGINT NOT NULL,
    PRIMARY KEY (scan_id, issue_id)
);

-- organisation_scans: one organisation's figures in one scan, the trend's
-- points. issues is CWAC's count (num_issues summed, one per viewport: as
-- summary.json's total_issues); elements counts an element found at
-- several viewports once; the five impact columns are the leaderboard's
-- classes, score and weighted_per_page its formula (internal/report Score).
-- new_issues .. unstable count tracked issue rows (one per viewport).
CREATE TABLE organisation_scans (
    organisation_id BIGINT NOT NULL REFERENCES organisations (id),
    scan_id BIGINT NOT NULL REFERENCES scans (id),
    schedule TEXT NOT NULL,
    finished_at BIGINT NOT NULL,
    base_urls INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    issues BIGINT NOT NULL,
    elements BIGINT NOT NULL,
    critical BIGINT NOT NULL,
    serious BIGINT NOT NULL,
    moderate BIGINT NOT NULL,
    minor BIGINT NOT NULL,
    other BIGINT NOT NULL,
    by_audit TEXT NOT NULL,
    weighted_per_page DOUBLE PRECISION NOT NULL,
    score DOUBLE PRECISION,
    new_issues BIGINT NOT NULL,
    fixed_issues BIGINT NOT NULL,
    fixed_page_not_scanned BIGINT NOT NULL,
    reopened_issues BIGINT NOT NULL,
    unstable_issues BIGINT NOT NULL,
    open_issues BIGINT NOT NULL,
    PRIMARY KEY (organisation_id, scan_id)
);
CREATE INDEX organisation_scans_trend ON organisation_scans (organisation_id, schedule, finished_at);
CREATE INDEX organisation_scans_by_scan ON organisation_scans (scan_id);

-- templates: one rule failing on the same element HTML across pages of one
-- organisation (CWAC's template-aware grouping): fix it once.
CREATE TABLE templates (
    id BIGINT PRIMARY KEY,
    organisation_id BIGINT NOT NULL REFERENCES organisations (id),
    audit TEXT NOT NULL,
    rule TEXT NOT NULL,
    element_hash BIGINT NOT NULL,
    element_html TEXT NOT NULL,
    UNIQUE (organisation_id, audit, rule, element_hash)
);

-- template_scans: a template's pages and instances (issue rows) in a scan;
-- only templates found on two pages or more.
CREATE TABLE template_scans (
    scan_id BIGINT NOT NULL REFERENCES scans (id),
    template_id BIGINT NOT NULL REFERENCES templates (id),
    pages INTEGER NOT NULL,
    instances BIGINT NOT NULL,
    PRIMARY KEY (scan_id, template_id)
);

-- When each issue was last seen and how many scans showed it move to a
-- table of their own, a narrow row per issue with one index (its key):
-- every scan updates them on every issue it shows. In the issues table
-- each such update was a new version of a wide row, written again into
-- all six of its indexes (a table loaded full leaves no room on a page to
-- keep the new version beside the old, as PostgreSQL's heap-only updates
-- need). On PostgreSQL the update of 857,149 issues took 19.5 s there,
-- 3.3 s here. The issues table is made again without the three columns,
-- with its rows and indexes: set aside under another name, made new as
-- 0014 made it but for them, filled, the old one dropped (so its key and
-- indexes keep their names: PostgreSQL names the key after the table it
-- was made in).
CREATE TABLE issue_sightings (
    issue_id BIGINT PRIMARY KEY,
    last_seen_scan_id BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    scans_present INTEGER NOT NULL
);
INSERT INTO issue_sightings (issue_id, last_seen_scan_id, last_seen_at, scans_present)
    SELECT id, last_seen_scan_id, last_seen_at, scans_present FROM issues ORDER BY id;
ALTER TABLE issues RENAME TO issues_before;
CREATE TABLE issues (
    id BIGINT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    organisation_id BIGINT NOT NULL,
    page_id BIGINT NOT NULL,
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
    fixed_in_scan_id BIGINT,
    fixed_at BIGINT,
    fixed_reason TEXT CHECK (fixed_reason IN ('fixed', 'page not scanned')),
    reopened INTEGER NOT NULL,
    CHECK ((state = 'open') = (fixed_in_scan_id IS NULL)),
    CHECK ((fixed_in_scan_id IS NULL) = (fixed_reason IS NULL))
);
INSERT INTO issues (id, fingerprint, organisation_id, page_id, viewport_width, audit, rule, impact, element_html, element_hash,
        target, target_hash, help_url, wcag, state, first_seen_scan_id, first_seen_at, fixed_in_scan_id, fixed_at, fixed_reason, reopened)
    SELECT id, fingerprint, organisation_id, page_id, viewport_width, audit, rule, impact, element_html, element_hash,
        target, target_hash, help_url, wcag, state, first_seen_scan_id, first_seen_at, fixed_in_scan_id, fixed_at, fixed_reason, reopened
    FROM issues_before ORDER BY id;
DROP TABLE issues_before;
CREATE UNIQUE INDEX issues_by_fingerprint ON issues (fingerprint);
CREATE INDEX issues_by_organisation ON issues (organisation_id, state, id);
CREATE INDEX issues_by_page ON issues (page_id, state, id);
CREATE INDEX issues_by_rule ON issues (rule, state, id);
CREATE INDEX issues_reopened ON issues (organisation_id, id) WHERE reopened > 0;
CREATE INDEX issues_fixed_by_time ON issues (fixed_at) WHERE state = 'fixed';

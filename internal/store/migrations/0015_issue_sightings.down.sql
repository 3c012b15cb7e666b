-- The issues table as 0014 left it: last seen and the count of scans
-- present back in each issue's row (an issue without a sighting, which
-- the writer never leaves, is given its first sighting: seen once).
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
INSERT INTO issues SELECT i.id, i.fingerprint, i.organisation_id, i.page_id, i.viewport_width, i.audit, i.rule, i.impact,
        i.element_html, i.element_hash, i.target, i.target_hash, i.help_url, i.wcag, i.state, i.first_seen_scan_id, i.first_seen_at,
        COALESCE(s.last_seen_scan_id, i.first_seen_scan_id), COALESCE(s.last_seen_at, i.first_seen_at),
        i.fixed_in_scan_id, i.fixed_at, i.fixed_reason, i.reopened, COALESCE(s.scans_present, 1)
    FROM issues_before i LEFT JOIN issue_sightings s ON s.issue_id = i.id ORDER BY i.id;
DROP TABLE issues_before;
DROP TABLE issue_sightings;
CREATE UNIQUE INDEX issues_by_fingerprint ON issues (fingerprint);
CREATE INDEX issues_by_organisation ON issues (organisation_id, state, id);
CREATE INDEX issues_by_page ON issues (page_id, state, id);
CREATE INDEX issues_by_rule ON issues (rule, state, id);
CREATE INDEX issues_reopened ON issues (organisation_id, id) WHERE reopened > 0;
CREATE INDEX issues_fixed_by_time ON issues (fixed_at) WHERE state = 'fixed';

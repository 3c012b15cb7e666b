-- The issues' foreign keys back: the table made again with them.
CREATE TABLE issues_prev (
    id BIGINT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
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
INSERT INTO issues_prev SELECT * FROM issues;
DROP TABLE issues;
ALTER TABLE issues_prev RENAME TO issues;
CREATE UNIQUE INDEX issues_by_fingerprint ON issues (fingerprint);
CREATE INDEX issues_by_organisation ON issues (organisation_id, state, id);
CREATE INDEX issues_by_page ON issues (page_id, state, id);
CREATE INDEX issues_by_rule ON issues (rule, state, id);
CREATE INDEX issues_reopened ON issues (organisation_id, id) WHERE reopened > 0;
CREATE INDEX issues_fixed_by_time ON issues (fixed_at) WHERE state = 'fixed';

-- An issue's fingerprint is unique through an index of its own, named,
-- instead of the column's UNIQUE constraint, whose index SQLite cannot
-- drop: a scan that adds many issues at once (a first scan of a large
-- site) drops this index and builds it again, sorted, before it commits
-- (internal/store, ScanWriter), where inserting each random fingerprint
-- into the index took half of the ingest's time. SQLite cannot change a
-- column's constraint in place, so the table is made again, the same but
-- for that, with its rows and indexes.
CREATE TABLE issues_new (
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
INSERT INTO issues_new SELECT * FROM issues;
DROP TABLE issues;
ALTER TABLE issues_new RENAME TO issues;
CREATE UNIQUE INDEX issues_by_fingerprint ON issues (fingerprint);
CREATE INDEX issues_by_organisation ON issues (organisation_id, state, id);
CREATE INDEX issues_by_page ON issues (page_id, state, id);
CREATE INDEX issues_by_rule ON issues (rule, state, id);
CREATE INDEX issues_reopened ON issues (organisation_id, id) WHERE reopened > 0;
CREATE INDEX issues_fixed_by_time ON issues (fixed_at) WHERE state = 'fixed';

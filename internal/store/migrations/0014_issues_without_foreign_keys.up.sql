-- Issues hold no foreign keys, like the other tables of a row per issue
-- (presences, issue_changes): the scan's writer is their only writer,
-- under its lock, and names only the organisations and pages it wrote or
-- read in the same transaction, which are never deleted. Checking each
-- new issue's two references cost PostgreSQL a lookup and a row lock
-- each, a fifth to a quarter of its time writing a first scan of 857,149
-- issues (its CPU 26.6-27.1 s with them, 20.1-22.4 s without). The
-- store's tests check after every test that each issue's organisation
-- and page exist, and that the page is the organisation's. SQLite cannot
-- drop a constraint, so the table is made again, the same but for that,
-- with its rows and indexes.
CREATE TABLE issues_next (
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
INSERT INTO issues_next SELECT * FROM issues;
DROP TABLE issues;
ALTER TABLE issues_next RENAME TO issues;
CREATE UNIQUE INDEX issues_by_fingerprint ON issues (fingerprint);
CREATE INDEX issues_by_organisation ON issues (organisation_id, state, id);
CREATE INDEX issues_by_page ON issues (page_id, state, id);
CREATE INDEX issues_by_rule ON issues (rule, state, id);
CREATE INDEX issues_reopened ON issues (organisation_id, id) WHERE reopened > 0;
CREATE INDEX issues_fixed_by_time ON issues (fixed_at) WHERE state = 'fixed';

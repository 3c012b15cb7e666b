-- What each scan changed of each issue: opened (first seen), fixed, found
-- on no page the scan visited ('page not scanned') or reopened. The issues
-- table keeps only an issue's latest state, so what a scan changed is kept
-- here, one row an issue a scan changed, for the issue lifecycle events
-- sent after the scan is recorded (a sender behind by several scans still
-- sends each scan's changes). Pruned with the scan's presences.
CREATE TABLE issue_changes (
    scan_id BIGINT NOT NULL,
    issue_id BIGINT NOT NULL,
    change TEXT NOT NULL CHECK (change IN ('opened', 'fixed', 'page not scanned', 'reopened')),
    PRIMARY KEY (scan_id, issue_id)
);

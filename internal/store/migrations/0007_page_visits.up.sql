-- Which of an organisation's pages each scan visited: an issue's page
-- shows, scan by scan, whether it was there (presences), not there, or
-- not looked at (its page not visited). Written with the observations
-- (0006) by every scan recorded since; a scan recorded before has none,
-- and what it visited is not known. Pruned with the scan's presences.
CREATE TABLE page_visits (
    scan_id BIGINT NOT NULL REFERENCES scans (id),
    page_id BIGINT NOT NULL REFERENCES pages (id),
    PRIMARY KEY (scan_id, page_id)
);

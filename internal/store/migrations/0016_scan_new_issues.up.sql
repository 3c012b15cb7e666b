-- A scan no longer writes a row of issue_changes for each issue it opened
-- (a third of a first scan's rows: 2.7 s of PostgreSQL's first ingest of
-- 857,149 issues). The issues a scan added have the ids that follow the
-- last one stored before it, one after another, so the scan keeps that
-- range: after the last id before it, up to its own last. The openings
-- are read through the issues' key (ScanChanges), and each issue's
-- first_seen_scan_id says again which scan opened it. A scan recorded
-- before keeps its rows of openings and NULL here.
ALTER TABLE scans ADD COLUMN new_issues_after BIGINT;
ALTER TABLE scans ADD COLUMN new_issues_last BIGINT;

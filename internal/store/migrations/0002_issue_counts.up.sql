-- The issue history's first page counts its matching issues. Filtered by
-- organisation or namespace alone (and state, or reopened issues), that
-- total is read from organisation_issue_counts, kept by the writer for
-- each organisation a scan changes (and by retention), instead of counting
-- every issue row on each call: on PostgreSQL the issues table carries a
-- dead version of each row every scan updated, and a count reads them all.
CREATE TABLE organisation_issue_counts (
    organisation_id BIGINT PRIMARY KEY REFERENCES organisations (id),
    open_issues BIGINT NOT NULL,
    fixed_issues BIGINT NOT NULL,
    -- issues that were reopened at least once, by their state now
    reopened_open BIGINT NOT NULL,
    reopened_fixed BIGINT NOT NULL
);
INSERT INTO organisation_issue_counts (organisation_id, open_issues, fixed_issues, reopened_open, reopened_fixed)
SELECT organisation_id,
       SUM(CASE WHEN state = 'open' THEN 1 ELSE 0 END),
       SUM(CASE WHEN state = 'fixed' THEN 1 ELSE 0 END),
       SUM(CASE WHEN state = 'open' AND reopened > 0 THEN 1 ELSE 0 END),
       SUM(CASE WHEN state = 'fixed' AND reopened > 0 THEN 1 ELSE 0 END)
FROM issues GROUP BY organisation_id;

-- Retention finds long-fixed issues by when they were fixed, a column a
-- fixed issue keeps, instead of last_seen_at, which every scan updates on
-- every open issue: with no index on the columns a scan updates, those
-- updates can stay in place (PostgreSQL's heap-only updates) rather than
-- adding an entry to every index of the table for each issue each scan.
DROP INDEX issues_fixed_by_time;
CREATE INDEX issues_fixed_by_time ON issues (fixed_at) WHERE state = 'fixed';

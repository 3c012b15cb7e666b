ALTER TABLE organisation_scans DROP COLUMN decided_issues;

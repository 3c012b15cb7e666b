ALTER TABLE organisation_scans DROP COLUMN set_aside_issues;

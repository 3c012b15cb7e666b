ALTER TABLE organisation_scans DROP COLUMN completeness_reason;
ALTER TABLE organisation_scans DROP COLUMN completeness;

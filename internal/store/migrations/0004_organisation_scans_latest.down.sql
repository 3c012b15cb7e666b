DROP INDEX organisation_scans_latest;

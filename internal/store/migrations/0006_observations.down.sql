DROP TABLE observations;
ALTER TABLE pages DROP COLUMN last_scan_id;

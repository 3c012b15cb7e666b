-- An organisation's completeness in a scan (docs/completeness.md): complete,
-- partial, blocked or unreachable, and why, recorded with its figures so
-- that the leaderboard and the trend can show an organisation a firewall
-- refused apart from one scanned cleanly. '' for scans recorded before
-- (not known).
ALTER TABLE organisation_scans ADD COLUMN completeness TEXT NOT NULL DEFAULT '';
ALTER TABLE organisation_scans ADD COLUMN completeness_reason TEXT NOT NULL DEFAULT '';

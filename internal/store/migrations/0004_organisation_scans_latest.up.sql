-- The dashboard's reads at scale (1,000 organisations × 156 scans): each
-- organisation's latest figures and its newest points for a sparkline are
-- read newest first by organisation, time and scan. Without this index
-- every organisation's points were sorted to find its latest (the trend
-- index starts with the schedule): the organisations page took 1.4-2.3 s.
-- organisation_scans gains one row per organisation per scan and none of
-- these columns is ever updated.
CREATE INDEX organisation_scans_latest ON organisation_scans (organisation_id, finished_at, scan_id);

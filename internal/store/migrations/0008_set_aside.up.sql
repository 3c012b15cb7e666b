-- CWAC's count of an organisation's timing-dependent rows in a scan (a
-- focus-indicator row on a page's <body>, which CWAC writes on some runs
-- only): left out of issues, the impact classes and the score, as the
-- report leaves them out, and recorded here so that pages can say how many
-- were set aside. 0 for scans recorded before (they counted them).
ALTER TABLE organisation_scans ADD COLUMN set_aside_issues BIGINT NOT NULL DEFAULT 0;

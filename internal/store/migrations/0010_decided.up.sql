-- CWAC's count of an organisation's issues in a scan that a decision
-- covered (the decisions the scan kept beside its results): left out of
-- issues, the impact classes and the score, as the scan's report leaves
-- them out, and recorded here so that pages can say how many. 0 for scans
-- recorded before, or made without decisions.
ALTER TABLE organisation_scans ADD COLUMN decided_issues BIGINT NOT NULL DEFAULT 0;

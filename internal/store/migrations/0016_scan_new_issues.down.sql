-- The openings of the scans recorded at 0016, written back as rows of
-- issue_changes (a pruned scan has none left), before the range goes.
INSERT INTO issue_changes (scan_id, issue_id, change)
    SELECT s.id, i.id, 'opened' FROM scans s
    JOIN issues i ON i.id > s.new_issues_after AND i.id <= s.new_issues_last AND i.first_seen_scan_id = s.id
    WHERE s.pruned_at IS NULL AND s.new_issues_last IS NOT NULL
    ORDER BY s.id, i.id;
ALTER TABLE scans DROP COLUMN new_issues_last;
ALTER TABLE scans DROP COLUMN new_issues_after;

DROP INDEX issues_fixed_by_time;
CREATE INDEX issues_fixed_by_time ON issues (last_seen_at) WHERE state = 'fixed';
DROP TABLE organisation_issue_counts;

DROP TABLE issue_changes;

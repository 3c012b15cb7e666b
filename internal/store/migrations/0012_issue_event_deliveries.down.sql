DROP TABLE issue_event_decisions;
DROP TABLE issue_event_deliveries;
DROP TABLE issue_event_receivers;

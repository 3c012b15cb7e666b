DROP TABLE decision_events;

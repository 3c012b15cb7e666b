-- Issue lifecycle events pushed to the release's receivers (the history's
-- writer sends each recorded scan's changes, a batch at a time, and each
-- decision's start and end). issue_event_receivers remembers when a
-- receiver was first seen: only scans recorded and decision events seen
-- after it are sent, so that adding a receiver never sends it years of
-- history. issue_event_deliveries is where one scan's changes
-- stand for one receiver: after_issue_id is the last issue sent (batches
-- follow the issues' ids, so a restart goes on with the next batch, and
-- a batch's id stays the same on every retry); state is 'pending', 'sent'
-- or 'failed' (given up; last_error says why).
CREATE TABLE issue_event_receivers (
    name TEXT PRIMARY KEY,
    since_scan_id BIGINT NOT NULL,
    since_at BIGINT NOT NULL
);
CREATE TABLE issue_event_deliveries (
    scan_id BIGINT NOT NULL,
    receiver TEXT NOT NULL,
    after_issue_id BIGINT NOT NULL,
    batches BIGINT NOT NULL,
    changes BIGINT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
    attempts BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_error TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (scan_id, receiver)
);
CREATE INDEX issue_event_deliveries_due ON issue_event_deliveries (receiver, state, scan_id);
-- One decision event (decision_events) for one receiver.
CREATE TABLE issue_event_decisions (
    receiver TEXT NOT NULL,
    namespace TEXT NOT NULL,
    uid TEXT NOT NULL,
    seq BIGINT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
    attempts BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_error TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (receiver, namespace, uid, seq)
);
CREATE INDEX issue_event_decisions_due ON issue_event_decisions (receiver, state);

-- What happened to each CwacIssueDecision, as the history's writer saw it:
-- Kubernetes keeps only a decision's current state, so its history (made,
-- changed, applied or not, expired, withdrawn) is kept here, one row a
-- change, numbered per decision (seq) by the one writer. Each row holds
-- the decision as it stood then, so a withdrawn decision's history still
-- says what it covered. Kept until the store is dropped: a decision is a
-- record of a judgement, read long after it ended.
CREATE TABLE decision_events (
    namespace TEXT NOT NULL,
    uid TEXT NOT NULL,
    seq BIGINT NOT NULL,
    name TEXT NOT NULL,
    event TEXT NOT NULL,
    at BIGINT NOT NULL,
    generation BIGINT NOT NULL,
    organisation TEXT NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    review_by BIGINT,
    decided_by TEXT NOT NULL,
    issue_id TEXT NOT NULL,
    element TEXT NOT NULL,
    rule TEXT NOT NULL,
    pages TEXT NOT NULL,
    applied TEXT NOT NULL,
    PRIMARY KEY (namespace, uid, seq)
);
-- An issue page reads the events of the decisions about its issue: by id,
-- or by its organisation's rule.
CREATE INDEX decision_events_by_issue ON decision_events (namespace, issue_id);
CREATE INDEX decision_events_by_rule ON decision_events (namespace, organisation, rule);

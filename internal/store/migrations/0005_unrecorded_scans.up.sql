-- unrecorded_scans: finished scans the history's writer could not record,
-- with why, so that the scan's page says so (an Event says it too, but
-- Events expire). A row is removed when its scan is recorded; the writer
-- replaces it at each failed attempt. state is 'retrying' (another attempt
-- is due) or 'left_out' (for good: given up, out of order, no results).
CREATE TABLE unrecorded_scans (
    uid TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,
    reason TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX unrecorded_scans_by_time ON unrecorded_scans (updated_at);

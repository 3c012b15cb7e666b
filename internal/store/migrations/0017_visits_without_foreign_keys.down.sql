-- The visits' and observations' foreign keys back: each table made again
-- with them, with its rows, as 0017 made it (a row naming a scan or a
-- page the store does not hold refuses the migration).
CREATE TABLE page_visits_rows AS SELECT scan_id, page_id FROM page_visits;
DROP TABLE page_visits;
CREATE TABLE page_visits (
    scan_id BIGINT NOT NULL REFERENCES scans (id),
    page_id BIGINT NOT NULL REFERENCES pages (id),
    PRIMARY KEY (scan_id, page_id)
);
INSERT INTO page_visits (scan_id, page_id) SELECT scan_id, page_id FROM page_visits_rows ORDER BY scan_id, page_id;
DROP TABLE page_visits_rows;
CREATE TABLE observations_rows AS SELECT page_id, viewport_width, audit, animating, replaced FROM observations;
DROP TABLE observations;
CREATE TABLE observations (
    page_id BIGINT NOT NULL REFERENCES pages (id),
    viewport_width INTEGER NOT NULL,
    audit TEXT NOT NULL,
    animating SMALLINT NOT NULL,
    replaced SMALLINT NOT NULL,
    PRIMARY KEY (page_id, viewport_width, audit)
);
INSERT INTO observations (page_id, viewport_width, audit, animating, replaced)
    SELECT page_id, viewport_width, audit, animating, replaced FROM observations_rows ORDER BY page_id, viewport_width, audit;
DROP TABLE observations_rows;

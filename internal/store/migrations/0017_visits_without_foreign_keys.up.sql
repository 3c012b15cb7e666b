-- Page visits and observations hold no foreign keys, as the tables of a
-- row per issue do not (0014): the scan's writer is their only writer,
-- under its lock, and names only its own scan and the pages it wrote or
-- read in the same transaction, and no scan or page is ever deleted
-- (retention marks a scan pruned and deletes its visits). Every scan
-- writes a visit for each page it visited and replaces those pages'
-- observations, so PostgreSQL checked each new row's references again,
-- week after week: 71,433 visits took 0.9 s, where 857,149 presences
-- without them took 1.1 s. The store's tests check after every test that
-- each visit's scan and page and each observation's page exist. SQLite
-- cannot drop a constraint, so each table is made again, the same but for
-- that: its rows set aside, the table dropped and made new under its own
-- name (so that PostgreSQL names its key as before, page_visits_pkey), the
-- rows put back.
CREATE TABLE page_visits_rows AS SELECT scan_id, page_id FROM page_visits;
DROP TABLE page_visits;
CREATE TABLE page_visits (
    scan_id BIGINT NOT NULL,
    page_id BIGINT NOT NULL,
    PRIMARY KEY (scan_id, page_id)
);
INSERT INTO page_visits (scan_id, page_id) SELECT scan_id, page_id FROM page_visits_rows ORDER BY scan_id, page_id;
DROP TABLE page_visits_rows;
CREATE TABLE observations_rows AS SELECT page_id, viewport_width, audit, animating, replaced FROM observations;
DROP TABLE observations;
CREATE TABLE observations (
    page_id BIGINT NOT NULL,
    viewport_width INTEGER NOT NULL,
    audit TEXT NOT NULL,
    animating SMALLINT NOT NULL,
    replaced SMALLINT NOT NULL,
    PRIMARY KEY (page_id, viewport_width, audit)
);
INSERT INTO observations (page_id, viewport_width, audit, animating, replaced)
    SELECT page_id, viewport_width, audit, animating, replaced FROM observations_rows ORDER BY page_id, viewport_width, audit;
DROP TABLE observations_rows;

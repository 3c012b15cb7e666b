-- What the last scan that visited a page saw there, audit by audit and
-- width by width: the baseline the issue history compares a page's next
-- rows with, by the baseline comparison's rules of rows it does not
-- compare (internal/diff, Compared). A scan that visits a page sets
-- pages.last_scan_id and replaces the page's observations with its own:
-- one row per audit that wrote rows there at a width, animating when the
-- focus audit could not tab through the page, replaced when the page's
-- rows carried more than one title. A page whose last_scan_id is NULL was
-- last visited before observations were kept.
ALTER TABLE pages ADD COLUMN last_scan_id BIGINT;
CREATE TABLE observations (
    page_id BIGINT NOT NULL REFERENCES pages (id),
    viewport_width INTEGER NOT NULL,
    audit TEXT NOT NULL,
    animating SMALLINT NOT NULL,
    replaced SMALLINT NOT NULL,
    PRIMARY KEY (page_id, viewport_width, audit)
);

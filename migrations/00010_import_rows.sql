-- +goose Up
-- Where `tributary import` stages a file's shares (by COPY) inside its one transaction before
-- storing them with a few set-based statements: no statement or lock per line, so a file of
-- 100,000 lines imports in seconds on a stock PostgreSQL. The rows are never committed
-- (deleted before the import commits), so no other session ever sees them.
CREATE UNLOGGED TABLE import_rows (
    line          integer     NOT NULL,
    handle        text        NOT NULL,
    url           text        NOT NULL,
    title         text        NOT NULL,
    body          text        NOT NULL,
    canonical_url text        NOT NULL,
    anchor_url    text        NOT NULL,
    kind          text        NOT NULL,
    anchor_kind   text        NOT NULL,
    host          text        NOT NULL,
    link_hosts    text[]      NOT NULL,
    linked_urls   json        NOT NULL,
    image_count   integer     NOT NULL,
    url_count     integer     NOT NULL,
    sci_score     smallint    NOT NULL,
    tags          text[]      NOT NULL,
    created_at    timestamptz NOT NULL
);

-- +goose Down
DROP TABLE import_rows;

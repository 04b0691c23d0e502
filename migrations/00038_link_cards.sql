-- +goose Up
-- What a shared link is, fetched once per item by a durable job (link cards): its page's
-- title, description, site, image (ours, in images), and a paper's authors and abstract.
-- A row is made pending with the item's first share, in the share's own statement; the
-- dispatcher hands due rows to River, one job per item across every instance.
CREATE TABLE link_cards (
    anchor_id   bigint      PRIMARY KEY REFERENCES anchors (id) ON DELETE CASCADE,
    url         text        NOT NULL,
    -- pending: never fetched; ok: fetched (refetched on demand after 14 days); failed: the
    -- last try failed (reason), tried again at next_at with back-off.
    state       text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'ok', 'failed')),
    kind        text        NOT NULL DEFAULT '',
    title       text        NOT NULL DEFAULT '',
    description text        NOT NULL DEFAULT '',
    site        text        NOT NULL DEFAULT '',
    canonical   text        NOT NULL DEFAULT '',
    image       text        NOT NULL DEFAULT '', -- our own path (/img/...), never a third party's
    image_alt   text        NOT NULL DEFAULT '',
    authors     text[]      NOT NULL DEFAULT '{}',
    abstract    text        NOT NULL DEFAULT '',
    published   date,
    lang        text        NOT NULL DEFAULT '',
    -- due: the dispatcher hands the row to a job once next_at has come.
    due         boolean     NOT NULL DEFAULT true,
    failures    integer     NOT NULL DEFAULT 0,
    reason      text        NOT NULL DEFAULT '',
    fetched_at  timestamptz,
    next_at     timestamptz NOT NULL DEFAULT now()
);
-- The dispatcher's scan: rows due for a fetch.
CREATE INDEX link_cards_due_idx ON link_cards (next_at) WHERE due;

-- Per-host politeness shared by every instance: the earliest time the next request to the
-- host may start.
CREATE TABLE fetch_hosts (
    host    text        PRIMARY KEY,
    next_at timestamptz NOT NULL DEFAULT now()
);

-- +goose StatementBegin
-- A share's item gets its pending card, and an old card is refetched when the item is shared
-- again (on demand: a card nobody shares any more is not fetched again).
CREATE FUNCTION link_cards_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO link_cards AS c (anchor_id, url)
    SELECT DISTINCT n.anchor_id, n.anchor_url FROM new_posts n
     WHERE n.anchor_url ~ '^https?://' -- a message (a direct with no link) has no page
    ON CONFLICT (anchor_id) DO UPDATE SET due = true, next_at = now()
     WHERE NOT c.due AND c.fetched_at < now() - interval '14 days';
    -- A share with no title of its own takes its item's card's, when the card is there already
    -- (fetched for an earlier share, or for this one's preview).
    UPDATE posts p SET title = c.title
      FROM new_posts n JOIN link_cards c ON c.anchor_id = n.anchor_id AND c.state = 'ok' AND c.title <> ''
     WHERE p.id = n.id AND n.title IN ('', n.url, n.canonical_url);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER link_cards_new_posts AFTER INSERT ON posts
    REFERENCING NEW TABLE AS new_posts FOR EACH STATEMENT EXECUTE FUNCTION link_cards_new_posts();

-- +goose Down
DROP TRIGGER link_cards_new_posts ON posts;
DROP FUNCTION link_cards_new_posts;
DROP TABLE fetch_hosts;
DROP TABLE link_cards;

-- +goose Up
-- Changes to posts and their talk name the posts' items too: each instance keeps what an
-- item's card shows of its conversation that is the same for every reader (feed/cards.go)
-- and drops an item's when a change names it. The subjects stay post ids (open pages ask by
-- post); anchors is empty when ids is (too many to list: every item may have changed).
ALTER TABLE site_changes ADD COLUMN anchors bigint[] NOT NULL DEFAULT '{}';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[] := ARRAY(SELECT n.id FROM new_rows n);
    items    bigint[] := ARRAY(SELECT DISTINCT n.anchor_id FROM new_rows n);
BEGIN
    INSERT INTO site_changes (kind, ids, anchors)
    VALUES ('new_posts', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END,
            CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE items END);
    -- Posted more than a search's settling time (feed.searchSettle) before this
    -- transaction began: no longer new to what was read since.
    IF EXISTS (SELECT 1 FROM new_rows n WHERE n.created_at < now() - interval '5 seconds') THEN
        INSERT INTO site_changes (kind, ids) VALUES ('past_posts', '{}');
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION record_talk() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
    items    bigint[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        subjects := ARRAY(SELECT DISTINCT o.post_id FROM old_rows o);
        items := ARRAY(SELECT DISTINCT o.anchor_id FROM old_rows o);
    ELSE
        subjects := ARRAY(SELECT DISTINCT n.post_id FROM new_rows n);
        items := ARRAY(SELECT DISTINCT n.anchor_id FROM new_rows n);
    END IF;
    IF subjects <> '{}' THEN
        INSERT INTO site_changes (kind, ids, anchors)
        VALUES ('talk', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END,
                CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE items END);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION record_post_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
    items    bigint[];
    n        bigint;
BEGIN
    SELECT count(*), array_agg(nw.id), array_agg(DISTINCT nw.anchor_id) INTO n, subjects, items
      FROM old_posts o JOIN new_posts nw ON nw.id = o.id
     WHERE (o.deleted_at IS NULL AND nw.deleted_at IS NOT NULL)
        OR ((o.is_public OR o.protected_owner_ids <> '{}' OR o.private_feed_ids <> '{}')
            AND (o.is_public, o.protected_owner_ids, o.private_feed_ids)
                IS DISTINCT FROM (nw.is_public, nw.protected_owner_ids, nw.private_feed_ids));
    IF n > 0 THEN
        INSERT INTO site_changes (kind, ids, anchors)
        VALUES ('posts', CASE WHEN n > 1000 THEN '{}' ELSE subjects END, CASE WHEN n > 1000 THEN '{}' ELSE items END);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_post_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
    n        bigint;
BEGIN
    SELECT count(*), array_agg(nw.id) INTO n, subjects
      FROM old_posts o JOIN new_posts nw ON nw.id = o.id
     WHERE (o.deleted_at IS NULL AND nw.deleted_at IS NOT NULL)
        OR ((o.is_public OR o.protected_owner_ids <> '{}' OR o.private_feed_ids <> '{}')
            AND (o.is_public, o.protected_owner_ids, o.private_feed_ids)
                IS DISTINCT FROM (nw.is_public, nw.protected_owner_ids, nw.private_feed_ids));
    IF n > 0 THEN
        INSERT INTO site_changes (kind, ids) VALUES ('posts', CASE WHEN n > 1000 THEN '{}' ELSE subjects END);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION record_talk() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        subjects := ARRAY(SELECT DISTINCT o.post_id FROM old_rows o);
    ELSE
        subjects := ARRAY(SELECT DISTINCT n.post_id FROM new_rows n);
    END IF;
    IF subjects <> '{}' THEN
        INSERT INTO site_changes (kind, ids)
        VALUES ('talk', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION record_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[] := ARRAY(SELECT n.id FROM new_rows n);
BEGIN
    INSERT INTO site_changes (kind, ids)
    VALUES ('new_posts', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END);
    IF EXISTS (SELECT 1 FROM new_rows n WHERE n.created_at < now() - interval '5 seconds') THEN
        INSERT INTO site_changes (kind, ids) VALUES ('past_posts', '{}');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
ALTER TABLE site_changes DROP COLUMN anchors;

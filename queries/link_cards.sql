-- name: DueLinkCards :many
-- Rows due for a fetch, taken by one dispatcher at a time (the others skip them), and leased:
-- a row handed to a job is not handed again before lease_secs, unless its job reschedules it.
-- Hosts take turns: each host's first due row, then each one's second, ...; an import's links,
-- made in URL order, would otherwise hand one host's links together, to wait for its turns
-- (one a second) while the other hosts' jobs sat behind them.
WITH ranked AS (
    SELECT c.anchor_id, c.next_at,
           row_number() OVER (PARTITION BY substring(c.url FROM '^[a-z]+://([^/:?#]+)') ORDER BY c.next_at, c.anchor_id) AS turn
      FROM link_cards c
     WHERE c.due AND c.next_at <= now()),
due AS (
    SELECT c.anchor_id FROM link_cards c
      JOIN (SELECT r.anchor_id FROM ranked r ORDER BY r.turn, r.next_at LIMIT @max_rows::integer) r ON r.anchor_id = c.anchor_id
     WHERE c.due AND c.next_at <= now()
       FOR UPDATE OF c SKIP LOCKED)
UPDATE link_cards c SET next_at = now() + make_interval(0, 0, 0, 0, 0, 0, @lease_secs::float8)
  FROM due WHERE c.anchor_id = due.anchor_id
RETURNING c.anchor_id, c.url;

-- name: LinkCardState :one
SELECT due, fetched_at, failures FROM link_cards WHERE anchor_id = @anchor_id;

-- name: SaveLinkCard :exec
-- A fetched card (by a job, or by a share form's preview, before any share made the row); it
-- is not due again until the item is shared after 14 days.
INSERT INTO link_cards AS c (anchor_id, url, state, due, fetched_at, kind, title, description, site, canonical,
                             image, image_alt, authors, abstract, published, lang)
SELECT a.id, a.url, 'ok', false, now(), @kind, @title, @description, @site, @canonical,
       @image, @image_alt, @authors, @abstract, sqlc.narg(published)::date, @lang
  FROM anchors a WHERE a.id = @anchor_id
ON CONFLICT (anchor_id) DO UPDATE SET state = 'ok', due = false, fetched_at = now(), failures = 0, reason = '',
       kind = EXCLUDED.kind, title = EXCLUDED.title, description = EXCLUDED.description, site = EXCLUDED.site,
       canonical = EXCLUDED.canonical, image = EXCLUDED.image, image_alt = EXCLUDED.image_alt,
       authors = EXCLUDED.authors, abstract = EXCLUDED.abstract, published = EXCLUDED.published, lang = EXCLUDED.lang;

-- name: FailLinkCard :exec
-- A failed fetch: tried again after a back-off that doubles with each failure (1 h to 7 days),
-- or never for a permanent failure (a refused address, not a page).
UPDATE link_cards SET state = CASE WHEN state = 'ok' THEN 'ok' ELSE 'failed' END,
       failures = failures + 1, reason = @reason, due = NOT @permanent::boolean,
       next_at = now() + least(interval '7 days', interval '1 hour' * power(2, least(failures, 10)))
 WHERE anchor_id = @anchor_id;

-- name: AdoptCardTitle :exec
-- Shares of the item whose sharer gave no title (theirs is its URL) take the card's: what
-- the sharer typed wins over what was fetched.
UPDATE posts SET title = @title
 WHERE anchor_id = @anchor_id AND deleted_at IS NULL AND title IN ('', url, canonical_url) AND title <> @title;

-- name: AdoptCardImage :exec
-- Shares of the item take the card's image as the preview of the item's URL where they have
-- none (the score's preview term and the representative's choice read image_count).
-- linked_urls is json (kept as written), edited as jsonb.
UPDATE posts p SET linked_urls = l.links::json, image_count = l.images
  FROM (SELECT q.id, x.links,
               (SELECT count(*) FROM jsonb_array_elements(x.links) e WHERE coalesce(e->>'image', '') <> '')::integer AS images
          FROM posts q,
               LATERAL (SELECT CASE
                   WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(q.linked_urls::jsonb) e WHERE e->>'url' = q.anchor_url)
                   THEN (SELECT jsonb_agg(CASE WHEN e->>'url' = q.anchor_url AND coalesce(e->>'image', '') = ''
                                               THEN e || jsonb_build_object('image', @image::text) ELSE e END ORDER BY o)
                           FROM jsonb_array_elements(q.linked_urls::jsonb) WITH ORDINALITY AS y(e, o))
                   ELSE q.linked_urls::jsonb || jsonb_build_array(jsonb_build_object('url', q.anchor_url, 'image', @image::text))
                   END AS links) x
         WHERE q.anchor_id = @anchor_id AND q.deleted_at IS NULL) l
 WHERE p.id = l.id AND (p.linked_urls::jsonb <> l.links OR p.image_count <> l.images);

-- name: AnchorPostIDs :many
SELECT id FROM posts WHERE anchor_id = @anchor_id AND deleted_at IS NULL ORDER BY id LIMIT 1000;

-- name: ReserveHostSlot :one
-- The earliest start a request to host may have, by the database's clock (every instance
-- shares it); the row is locked until the caller's transaction ends.
INSERT INTO fetch_hosts AS h (host) VALUES (@host)
ON CONFLICT (host) DO UPDATE SET host = EXCLUDED.host
RETURNING greatest(h.next_at, now())::timestamptz AS slot, now()::timestamptz AS now;

-- name: TakeHostSlot :exec
UPDATE fetch_hosts SET next_at = sqlc.arg(slot)::timestamptz + make_interval(0, 0, 0, 0, 0, 0, @interval_secs::float8) WHERE host = @host;

-- name: LinkCardsOf :many
-- The cards of some items, for pages that show them.
SELECT sqlc.embed(c) FROM link_cards c WHERE c.anchor_id = ANY(@anchor_ids::bigint[]) AND c.state = 'ok';

-- name: RecordCardChange :exec
-- Every instance drops the card it kept ("cards"), and open pages showing these posts bring
-- their cards up to date ("talk", as after a like).
-- (An empty list would mean every post: no talk change is made for none.)
INSERT INTO site_changes (kind, ids)
SELECT 'cards', ARRAY[@anchor_id::bigint]
UNION ALL
SELECT 'talk', @post_ids::bigint[] WHERE cardinality(@post_ids::bigint[]) > 0;

-- name: LinkCardByURL :one
-- An item's card by its URL, when fetched in the last 14 days, for a viewer: a card whose item
-- has live shares is known only to those who may read one (no private share shows through it,
-- not even by being known); one made by a preview, before any share, to every viewer.
SELECT sqlc.embed(c)
  FROM anchors a JOIN link_cards c ON c.anchor_id = a.id
 WHERE a.url = @url AND c.state = 'ok' AND c.fetched_at > now() - interval '14 days'
   AND (NOT EXISTS (SELECT 1 FROM posts p WHERE p.anchor_id = a.id AND p.deleted_at IS NULL)
        OR EXISTS (SELECT 1 FROM posts p WHERE p.anchor_id = a.id AND p.deleted_at IS NULL
                      AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids,
                                   @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])));

-- name: AnchorOfURL :one
-- The item at a URL, made if new, as a share would make it (a share form's preview keeps its
-- card for the share to come).
INSERT INTO anchors (url, kind) VALUES (@url, @anchor_kind)
ON CONFLICT (url) DO UPDATE SET url = EXCLUDED.url
RETURNING id;

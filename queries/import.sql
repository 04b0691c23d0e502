-- Bulk import (tributary import): a file's shares are staged in import_rows by COPY and
-- stored by the statements below, all in the import's one transaction, taking no lock per
-- line (a stock PostgreSQL has 64 lock slots per connection).

-- name: StageImport :copyfrom
INSERT INTO import_rows (line, handle, url, title, body, canonical_url, anchor_url, kind, anchor_kind, host,
                         link_hosts, linked_urls, image_count, url_count, sci_score, tags, mentions, created_at)
VALUES (@line, @handle, @url, @title, @body, @canonical_url, @anchor_url, @kind, @anchor_kind, @host,
        @link_hosts, @linked_urls, @image_count, @url_count, @sci_score, @tags, @mentions, @created_at);

-- name: ImportMissingAuthors :one
-- How many of the staged handles have no user yet (case-insensitively).
SELECT count(DISTINCT lower(r.handle)) FROM import_rows r
 WHERE NOT EXISTS (SELECT 1 FROM users u WHERE lower(u.handle) = lower(r.handle));

-- name: ImportAuthors :one
-- Creates the missing authors, each with the spelling of its first line, joined at its
-- earliest share, and its posts feed; a handle taken meanwhile is not created (the caller
-- compares the count with ImportMissingAuthors).
WITH n AS (
    SELECT DISTINCT ON (lower(r.handle)) r.handle,
           min(r.created_at) OVER (PARTITION BY lower(r.handle)) AS since
      FROM import_rows r
     WHERE NOT EXISTS (SELECT 1 FROM users u WHERE lower(u.handle) = lower(r.handle))
     ORDER BY lower(r.handle), r.line),
u AS (
    INSERT INTO users (handle, display_name, password_hash, created_at)
    SELECT n.handle, n.handle, '', n.since FROM n
    ON CONFLICT DO NOTHING
    RETURNING id),
f AS (INSERT INTO feeds (kind, owner_id, access) SELECT 'posts', u.id, 'public' FROM u RETURNING id)
SELECT count(*) FROM f;

-- name: ImportAnchors :exec
INSERT INTO anchors (url, kind)
SELECT DISTINCT ON (r.anchor_url) r.anchor_url, r.anchor_kind FROM import_rows r ORDER BY r.anchor_url, r.line
ON CONFLICT (url) DO NOTHING;

-- name: ImportPosts :one
-- Stores the staged shares in their authors' posts feeds with the access of those feeds
-- folded in (the one feed of an imported share); a share stored before is left alone.
-- Returns how many were new and their anchors.
WITH ins AS (
    INSERT INTO posts (author_id, anchor_id, url, title, body, canonical_url, anchor_url, kind, anchor_kind, host,
                       link_hosts, linked_urls, image_count, url_count, sci_score, tags, mentions, created_at, bumped_at,
                       is_public, protected_owner_ids, private_feed_ids)
    SELECT u.id, a.id, r.url, r.title, r.body, r.canonical_url, r.anchor_url, r.kind, r.anchor_kind, r.host,
           r.link_hosts, r.linked_urls, r.image_count, r.url_count, r.sci_score, r.tags, r.mentions, r.created_at, r.created_at,
           f.access = 'public',
           CASE WHEN f.access = 'protected' THEN ARRAY[f.owner_id] ELSE '{}' END::bigint[],
           CASE WHEN f.access = 'private' THEN ARRAY[f.id] ELSE '{}' END::bigint[]
      FROM import_rows r
      JOIN users u ON lower(u.handle) = lower(r.handle)
      JOIN anchors a ON a.url = r.anchor_url
      JOIN feeds f ON f.owner_id = u.id AND f.kind = 'posts' AND f.name = ''
     ORDER BY r.line
    ON CONFLICT (author_id, canonical_url, created_at) DO NOTHING
    RETURNING id, author_id, anchor_id, created_at),
fp AS (
    INSERT INTO feed_posts (feed_id, post_id, time_ord)
    SELECT f.id, ins.id, ins.created_at FROM ins JOIN feeds f ON f.owner_id = ins.author_id AND f.kind = 'posts' AND f.name = ''
    RETURNING post_id)
SELECT (SELECT count(*) FROM fp)::bigint AS imported,
       ARRAY(SELECT DISTINCT ins.anchor_id FROM ins ORDER BY 1)::bigint[] AS anchor_ids;

-- name: ClearImport :exec
DELETE FROM import_rows;

-- name: AnalyzeImport :exec
-- The staged rows' statistics, so the statements above are planned for their real number:
-- of the columns they join and group on (all eighteen took as long again).
ANALYZE import_rows (line, handle, anchor_url);

-- name: ImportPlanning :exec
-- Set-based plans for the import's statements: the authors and feeds it has just made are
-- not in the planner's statistics yet, and a nested loop planned for one row of them runs
-- for every pair (measured: 74 million join tests, 10 s, for 20,000 lines of 3,700 authors).
SET LOCAL enable_nestloop = off;

-- name: ImportMemory :exec
-- Room to sort and hash a file's rows in memory rather than on disk (4 MB by default).
SET LOCAL work_mem = '64MB';

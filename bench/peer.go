package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The peer (issue 17): FreeFeed's home-feed query on the same data, as ../shared/PRODUCT.md
// describes it. Its posts carry the ids of every feed holding them (the author's posts feed,
// the groups and directs they went to, and the likes and comments feeds of everyone who
// liked or commented on them) in an integer array under a GIN index (intarray's
// gin__int_ops); a home page is the posts in any of the reader's friends' posts, likes and
// comments feeds (and their own posts feed) that the reader may see, by bump, LIMIT 30
// OFFSET n. The copy is made once per dataset (untimed) in peer_posts, beside posts: the
// app's own tables stay as they are.

// Feed ids of the likes and comments feeds of user u in peer_posts.feed_ids (FreeFeed
// gives every user a Likes and a Comments feed; this schema keeps those as filter feeds).
const (
	peerLikesFeed    = 100_000_000
	peerCommentsFeed = 200_000_000
)

// peerBuildSQL makes peer_posts from the dataset's posts, likes and comments.
var peerBuildSQL = fmt.Sprintf(`CREATE EXTENSION IF NOT EXISTS intarray;
DROP TABLE IF EXISTS peer_posts;
CREATE TABLE peer_posts AS
SELECT p.id, p.author_id, p.url, p.title, p.body, p.created_at, p.bumped_at, p.is_public,
       p.protected_owner_ids, p.private_feed_ids, p.like_count, p.comment_count,
       (ARRAY(SELECT fp.feed_id::int FROM feed_posts fp WHERE fp.post_id = p.id)
        | ARRAY(SELECT (%d + l.user_id)::int FROM likes l WHERE l.post_id = p.id)
        | ARRAY(SELECT DISTINCT (%d + c.author_id)::int FROM comments c WHERE c.post_id = p.id)) AS feed_ids
  FROM posts p
 WHERE p.deleted_at IS NULL;
CREATE INDEX peer_posts_feed_ids_idx ON peer_posts USING gin (feed_ids gin__int_ops);
CREATE INDEX peer_posts_bumped_idx ON peer_posts (bumped_at DESC);
ANALYZE peer_posts`, peerLikesFeed, peerCommentsFeed)

// peerSQL is the home page: $1 the reader, $2 the offset. The reader's feeds (their friends'
// posts, likes and comments feeds, their own posts feed) come from a materialized CTE, as
// FreeFeed does for small sets; the visibility predicate is the same access rule the app
// applies (public, protected and not in a ban, or a private feed the reader reads), with the
// posts of people in a ban with the reader left out.
var peerSQL = fmt.Sprintf(`WITH friends AS MATERIALIZED (
    SELECT array_agg(x.id)::int[] AS ids FROM (
        SELECT fe.id FROM feeds fe WHERE fe.kind = 'posts'
           AND (fe.owner_id = $1 OR fe.owner_id IN (SELECT f.followed_id FROM follows f WHERE f.follower_id = $1 AND f.state = 'active'))
        UNION ALL
        SELECT (%d + f.followed_id)::int FROM follows f WHERE f.follower_id = $1 AND f.state = 'active'
        UNION ALL
        SELECT (%d + f.followed_id)::int FROM follows f WHERE f.follower_id = $1 AND f.state = 'active') x),
     viewer AS MATERIALIZED (
    SELECT ARRAY(SELECT b.banned_id FROM bans b WHERE b.user_id = $1
                 UNION SELECT b.user_id FROM bans b WHERE b.banned_id = $1) AS blocked,
           ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = $1) AS private_feeds)
SELECT p.id, p.author_id, p.url, p.title, p.body, p.created_at, p.bumped_at, p.like_count, p.comment_count
  FROM peer_posts p, friends, viewer
 WHERE p.feed_ids && friends.ids
   AND NOT p.author_id = ANY(viewer.blocked)
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, $1, viewer.blocked, viewer.private_feeds)
 ORDER BY p.bumped_at DESC
 LIMIT 30 OFFSET $2`, peerLikesFeed, peerCommentsFeed)

// preparePeer makes peer_posts once per dataset (the bench database is made again when the
// dataset changes).
func preparePeer(ctx context.Context, pool *pgxpool.Pool) error {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('peer_posts') IS NOT NULL`).Scan(&exists); err != nil || exists {
		return err
	}
	if _, err := pool.Exec(ctx, peerBuildSQL); err != nil {
		return fmt.Errorf("bench: peer: build peer_posts: %w", err)
	}
	return nil
}

// peerScenarios are FreeFeed's home page at pages 1 and 10, for each follower class.
func (w *world) peerScenarios(pool *pgxpool.Pool, conc int) []scenario {
	var out []scenario
	for _, page := range []int{1, 10} {
		for _, c := range w.classes {
			offset := 30 * (page - 1)
			out = append(out, scenario{Name: fmt.Sprintf("peer_freefeed_p%d_%s", page, c.Name),
				Group: "peer: FreeFeed's home feed query (SQL only)", Class: c.Name, Kind: "sql", Concurrency: conc,
				Note:  fmt.Sprintf("posts in the friends' posts, likes and comments feeds (feed_ids && …, intarray GIN), visible to the reader, by bump, LIMIT 30 OFFSET %d", offset),
				setup: func(ctx context.Context) error { return preparePeer(ctx, pool) },
				worker: sqlReads(pool, c, conc, peerSQL, func(v *viewer) []any { return []any{v.ID, offset} },
					func(v *viewer, n int) error {
						if n == 0 {
							return fmt.Errorf("peer: page %d of %d's home is empty", page, v.ID)
						}
						return nil
					})})
		}
	}
	return out
}

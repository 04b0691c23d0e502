-- +goose Up
-- What a post's card shows of its conversation as a viewer sees it, defined once for every
-- query that shows it: likes and comments less those of people in a ban with the viewer,
-- whether the viewer liked it, and the newest few likers but the viewer ([[id, handle,
-- name], ...]). Each part is a probe on the post's likes or comments: no ban, no counting (a
-- popular post's 500 likes were read to find none of the banned); the viewer's like by the
-- post's key (OFFSET 0: as a hashed semi-join a generic plan read all of the viewer's likes).
-- A single-SELECT SQL function that is neither strict nor volatile: PostgreSQL inlines it
-- into the query that calls it (FROM ..., post_talk(p.id, ...) t), which plans it as if it
-- were written there. The counts are the post's like_count and comment_count.
-- +goose StatementBegin
CREATE FUNCTION post_talk(talk_post bigint, talk_likes integer, talk_comments integer,
                          talk_viewer bigint, talk_blocked bigint[])
RETURNS TABLE (likes integer, comments integer, liked boolean, likers json) LANGUAGE sql STABLE AS $$
SELECT (talk_likes - CASE WHEN cardinality(talk_blocked) = 0 THEN 0 ELSE
          (SELECT count(*) FROM likes l WHERE l.post_id = talk_post AND l.user_id = ANY(talk_blocked)) END)::integer,
       (talk_comments - CASE WHEN cardinality(talk_blocked) = 0 THEN 0 ELSE
          (SELECT count(*) FROM comments c WHERE c.post_id = talk_post AND c.author_id = ANY(talk_blocked)) END)::integer,
       (talk_likes > 0 AND EXISTS (SELECT 1 FROM likes l WHERE l.post_id = talk_post AND l.user_id = talk_viewer OFFSET 0)),
       coalesce((SELECT json_agg(json_build_array(u.id, u.handle, u.display_name) ORDER BY k.created_at DESC)
                   FROM (SELECT l.user_id, l.created_at FROM likes l
                          WHERE l.post_id = talk_post AND NOT l.user_id = ANY(talk_blocked) AND l.user_id <> talk_viewer
                          ORDER BY l.created_at DESC LIMIT 3) k
                   JOIN users u ON u.id = k.user_id), '[]'::json)
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION post_talk;

-- +goose Up
-- Notifications (issue 46): what happened to a user, one row per event, written in the
-- transaction of the like, comment, follow or membership that caused it (by the triggers
-- below), or after commit by a job for fan-out (replies in threads, mentions). Nothing is
-- stored from someone in a ban with the recipient, nor against their policies; what is
-- shown is decided again at read time (notification_unread says how).

-- How a user wants to hear of a kind of event (like, comment, mention, follow): from
-- everyone (no row), from people they follow, or from nobody.
CREATE TABLE notification_policies (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind    text   NOT NULL CHECK (kind IN ('like', 'comment', 'mention', 'follow')),
    policy  text   NOT NULL CHECK (policy IN ('following', 'nobody')),
    PRIMARY KEY (user_id, kind)
);

-- Whether likes and follows group into one line per post and time window.
ALTER TABLE users ADD COLUMN notify_grouping boolean NOT NULL DEFAULT true;

-- Threads a user muted: no more replies from them.
CREATE TABLE thread_mutes (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, post_id)
);

CREATE TABLE notifications (
    id           bigserial   PRIMARY KEY,
    recipient_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type         text        NOT NULL CHECK (type IN ('like', 'comment', 'reply', 'mention', 'follow',
                                                      'follow_request', 'follow_approved', 'join_request', 'join_approved')),
    actor_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    post_id      bigint      REFERENCES posts (id) ON DELETE CASCADE,
    comment_id   bigint      REFERENCES comments (id) ON DELETE CASCADE,
    group_id     bigint      REFERENCES feeds (id) ON DELETE CASCADE,
    -- Rows with the same key show as one line; NULL never groups (comments, mentions, or
    -- the recipient turned grouping off). Computed on write (notification_group_key).
    group_key    text,
    -- Opened (the read-up-to marker in notification_reads covers the rest).
    read         boolean     NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now()
);
-- A recipient's list newest first, and a group's rows; the cascades' and the prune's ways in.
CREATE INDEX notifications_recipient_idx ON notifications (recipient_id, created_at DESC, id DESC);
CREATE INDEX notifications_group_idx ON notifications (recipient_id, group_key, created_at DESC, id DESC) WHERE group_key IS NOT NULL;
CREATE INDEX notifications_post_idx ON notifications (post_id) WHERE post_id IS NOT NULL;
CREATE INDEX notifications_comment_idx ON notifications (comment_id) WHERE comment_id IS NOT NULL;
CREATE INDEX notifications_created_idx ON notifications (created_at);
-- A fan-out job that runs twice stores each row once.
CREATE UNIQUE INDEX notifications_comment_once ON notifications (recipient_id, type, comment_id) WHERE comment_id IS NOT NULL;
CREATE UNIQUE INDEX notifications_post_mention_once ON notifications (recipient_id, post_id) WHERE type = 'mention' AND comment_id IS NULL;

-- The read-up-to marker: everything created before it is read, on every device.
CREATE TABLE notification_reads (
    user_id   bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    read_upto timestamptz NOT NULL
);

-- Comments and posts whose fan-out (replies, mentions) is still to be handed to a job: written
-- in the comment's or post's own statement, taken by the dispatcher.
CREATE TABLE notification_fanouts (
    id         bigserial   PRIMARY KEY,
    post_id    bigint      NOT NULL,
    comment_id bigint,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose StatementBegin
-- notify_allowed says whether recipient hears of actor's event of a kind: not themselves,
-- nobody in a ban with them either way, and as their policy for the kind says.
CREATE FUNCTION notify_allowed(recipient bigint, actor bigint, kind text) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT recipient <> actor AND NOT in_ban(recipient, actor)
       AND coalesce((SELECT p.policy = 'following'
                            AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = recipient AND f.followed_id = actor AND f.state = 'active')
                       FROM notification_policies p WHERE p.user_id = recipient AND p.kind = notify_allowed.kind), true)
$$;

-- notification_group_key is the key of a like (per post) or follow, per hour; NULL for the
-- other types and for a recipient who turned grouping off.
CREATE FUNCTION notification_group_key(recipient bigint, type text, post bigint, at timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN type NOT IN ('like', 'follow') OR NOT (SELECT u.notify_grouping FROM users u WHERE u.id = recipient) THEN NULL
                ELSE type || ':' || coalesce(post, 0) || ':' || floor(extract(epoch FROM at) / 3600)::bigint END
$$;

-- notification_unread is how many lines of the viewer's list are unread (at most 100): a
-- line is its group's newest shown row (or a row that never groups). A row is shown while
-- the access rule holds at read time: the actor is in no ban with the viewer, the subject
-- post (if any) is not deleted and the viewer may read it, the comment (if any) still
-- exists. The list (queries/notifications.sql) spells out the same rule. PL/pgSQL keeps its
-- plan per connection: every signed-in request's session read calls it.
CREATE FUNCTION notification_unread(viewer bigint, blocked bigint[], private_feeds bigint[]) RETURNS integer LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT count(*)::int FROM (
        SELECT 1 FROM notifications n
         WHERE n.recipient_id = viewer AND NOT n.read
           AND n.created_at > coalesce((SELECT r.read_upto FROM notification_reads r WHERE r.user_id = viewer), '-infinity')
           AND n.actor_id <> ALL (blocked)
       AND (n.post_id IS NULL OR coalesce((SELECT sp.deleted_at IS NULL
            AND can_read(sp.is_public, sp.protected_owner_ids, sp.private_feed_ids, viewer, blocked, private_feeds)
            FROM posts sp WHERE sp.id = n.post_id), false))
       AND (n.comment_id IS NULL OR coalesce((SELECT true FROM comments sc WHERE sc.id = n.comment_id), false))
           AND (n.group_key IS NULL OR NOT EXISTS (
                SELECT 1 FROM notifications m
                 WHERE m.recipient_id = viewer AND m.group_key = n.group_key AND (m.created_at, m.id) > (n.created_at, n.id)
                   AND m.actor_id <> ALL (blocked)
       AND (m.post_id IS NULL OR coalesce((SELECT sp.deleted_at IS NULL
            AND can_read(sp.is_public, sp.protected_owner_ids, sp.private_feed_ids, viewer, blocked, private_feeds)
            FROM posts sp WHERE sp.id = m.post_id), false))
       AND (m.comment_id IS NULL OR coalesce((SELECT true FROM comments sc WHERE sc.id = m.comment_id), false))))
         LIMIT 100) x);
END
$$;

-- A like tells the post's author.
CREATE FUNCTION notify_new_likes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO notifications (recipient_id, type, actor_id, post_id, group_key, created_at)
    SELECT p.author_id, 'like', n.user_id, n.post_id, notification_group_key(p.author_id, 'like', n.post_id, n.created_at), n.created_at
      FROM new_likes n JOIN posts p ON p.id = n.post_id
     WHERE notify_allowed(p.author_id, n.user_id, 'like');
    RETURN NULL;
END
$$;

-- A like taken back takes its notification along.
CREATE FUNCTION notify_old_likes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM notifications x USING old_likes o
     WHERE x.post_id = o.post_id AND x.actor_id = o.user_id AND x.type = 'like';
    RETURN NULL;
END
$$;

-- A comment tells the post's author; the thread's other people and the mentioned are told
-- by the fan-out job, handed the comment here.
CREATE FUNCTION notify_new_comments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO notifications (recipient_id, type, actor_id, post_id, comment_id, created_at)
    SELECT p.author_id, 'comment', n.author_id, n.post_id, n.id, n.created_at
      FROM new_comments n JOIN posts p ON p.id = n.post_id
     WHERE notify_allowed(p.author_id, n.author_id, 'comment');
    INSERT INTO notification_fanouts (post_id, comment_id)
    SELECT n.post_id, n.id FROM new_comments n JOIN posts p ON p.id = n.post_id
     WHERE cardinality(n.mentions) > 0
        OR EXISTS (SELECT 1 FROM comments x WHERE x.post_id = n.post_id AND x.author_id <> n.author_id AND x.author_id <> p.author_id);
    RETURN NULL;
END
$$;

-- A post that mentions people is handed to the fan-out job.
CREATE FUNCTION notify_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO notification_fanouts (post_id) SELECT n.id FROM new_posts n WHERE cardinality(n.mentions) > 0;
    RETURN NULL;
END
$$;

-- A follow tells the followed (a request when pending); an approval tells the follower.
CREATE FUNCTION notify_new_follows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO notifications (recipient_id, type, actor_id, group_key, created_at)
    SELECT n.followed_id, CASE n.state WHEN 'active' THEN 'follow' ELSE 'follow_request' END, n.follower_id,
           CASE n.state WHEN 'active' THEN notification_group_key(n.followed_id, 'follow', NULL, n.created_at) END, n.created_at
      FROM new_follows n
     WHERE notify_allowed(n.followed_id, n.follower_id, 'follow');
    RETURN NULL;
END
$$;

CREATE FUNCTION notify_approved_follows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO notifications (recipient_id, type, actor_id)
    SELECT n.follower_id, 'follow_approved', n.followed_id
      FROM new_follows n JOIN old_follows o ON o.follower_id = n.follower_id AND o.followed_id = n.followed_id
     WHERE o.state = 'pending' AND n.state = 'active' AND notify_allowed(n.follower_id, n.followed_id, 'follow_approved');
    RETURN NULL;
END
$$;

-- A request to join a group tells its admins; an approval tells the member (from the
-- group's owner).
CREATE FUNCTION notify_new_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO notifications (recipient_id, type, actor_id, group_id)
    SELECT a.user_id, 'join_request', n.user_id, n.feed_id
      FROM new_members n JOIN group_members a ON a.feed_id = n.feed_id AND a.role = 'admin' AND a.state = 'active'
     WHERE n.state = 'pending' AND notify_allowed(a.user_id, n.user_id, 'join_request');
    RETURN NULL;
END
$$;

CREATE FUNCTION notify_approved_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO notifications (recipient_id, type, actor_id, group_id)
    SELECT n.user_id, 'join_approved', f.owner_id, n.feed_id
      FROM new_members n JOIN old_members o ON o.feed_id = n.feed_id AND o.user_id = n.user_id
      JOIN feeds f ON f.id = n.feed_id
     WHERE o.state = 'pending' AND n.state = 'active' AND notify_allowed(n.user_id, f.owner_id, 'join_approved');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER likes_notify_added AFTER INSERT ON likes
    REFERENCING NEW TABLE AS new_likes FOR EACH STATEMENT EXECUTE FUNCTION notify_new_likes();
CREATE TRIGGER likes_notify_removed AFTER DELETE ON likes
    REFERENCING OLD TABLE AS old_likes FOR EACH STATEMENT EXECUTE FUNCTION notify_old_likes();
CREATE TRIGGER comments_notify_added AFTER INSERT ON comments
    REFERENCING NEW TABLE AS new_comments FOR EACH STATEMENT EXECUTE FUNCTION notify_new_comments();
CREATE TRIGGER posts_notify_added AFTER INSERT ON posts
    REFERENCING NEW TABLE AS new_posts FOR EACH STATEMENT EXECUTE FUNCTION notify_new_posts();
CREATE TRIGGER follows_notify_added AFTER INSERT ON follows
    REFERENCING NEW TABLE AS new_follows FOR EACH STATEMENT EXECUTE FUNCTION notify_new_follows();
CREATE TRIGGER follows_notify_approved AFTER UPDATE ON follows
    REFERENCING OLD TABLE AS old_follows NEW TABLE AS new_follows FOR EACH STATEMENT EXECUTE FUNCTION notify_approved_follows();
CREATE TRIGGER group_members_notify_added AFTER INSERT ON group_members
    REFERENCING NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION notify_new_members();
CREATE TRIGGER group_members_notify_approved AFTER UPDATE ON group_members
    REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION notify_approved_members();

-- Open pages of the recipient hear of their new notifications and of reads (their badges),
-- through the site's change record: readers are the recipients.
CREATE TRIGGER notifications_site_added AFTER INSERT ON notifications
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('recipient_id', 'recipient_id', 'recipient_id');
CREATE TRIGGER notifications_site_updated AFTER UPDATE ON notifications
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('recipient_id', 'recipient_id', 'recipient_id');
CREATE TRIGGER notification_reads_site_added AFTER INSERT ON notification_reads
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('user_id', 'user_id', 'user_id');
CREATE TRIGGER notification_reads_site_updated AFTER UPDATE ON notification_reads
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('user_id', 'user_id', 'user_id');

-- +goose Down
DROP TABLE notification_fanouts, notification_reads, notifications, thread_mutes, notification_policies;
DROP FUNCTION notify_new_likes, notify_old_likes, notify_new_comments, notify_new_posts, notify_new_follows,
              notify_approved_follows, notify_new_members, notify_approved_members,
              notification_unread, notification_group_key, notify_allowed;
ALTER TABLE users DROP COLUMN notify_grouping;

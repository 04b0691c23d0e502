-- +goose Up
-- The whole domain of DESIGN.md, so later work extends rather than rewrites it.

CREATE TABLE users (
    id            bigserial PRIMARY KEY,
    handle        text        NOT NULL,
    display_name  text        NOT NULL,
    password_hash text        NOT NULL DEFAULT '',
    vip           boolean     NOT NULL DEFAULT false,
    -- External follower count; feeds the notability term of the score.
    notability    bigint      NOT NULL DEFAULT 0,
    is_private    boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- Handles are case-insensitive: "Ada" and "ada" are the same person.
CREATE UNIQUE INDEX users_handle_key ON users (lower(handle));
-- Anonymous front page: the followed set is the VIP users.
CREATE INDEX users_vip_idx ON users (id) WHERE vip;

-- follower follows followed. A follow of a private account is 'pending' until approved.
CREATE TABLE follows (
    follower_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    followed_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    state       text        NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'pending')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (follower_id, followed_id),
    CHECK (follower_id <> followed_id)
);
CREATE INDEX follows_followed_idx ON follows (followed_id, follower_id);

-- A banned user no longer reads the banner's protected feeds (seed 003).
CREATE TABLE bans (
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    banned_id  bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, banned_id)
);
CREATE INDEX bans_banned_idx ON bans (banned_id, user_id);

-- Feeds (seed 003): base feeds hold posts and carry read access; filter and aggregator
-- feeds are derived per user.
CREATE TABLE feeds (
    id         bigserial PRIMARY KEY,
    kind       text        NOT NULL CHECK (kind IN ('posts', 'group', 'directs',
                               'comments', 'likes', 'tag', 'mention', 'home')),
    owner_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text        NOT NULL DEFAULT '',
    access     text        NOT NULL DEFAULT 'public' CHECK (access IN ('public', 'protected', 'private')),
    -- Groups: a title to show and whether joining needs an admin's approval.
    title      text        NOT NULL DEFAULT '',
    moderated  boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- One posts feed per user; groups and filter feeds are told apart by name.
CREATE UNIQUE INDEX feeds_owner_kind_name_key ON feeds (owner_id, kind, name) WHERE kind <> 'directs';
-- Group names are global: /g/{name}.
CREATE UNIQUE INDEX feeds_group_name_key ON feeds (lower(name)) WHERE kind = 'group';

-- Group membership: admins manage it; a moderated group's joins wait as 'pending'.
CREATE TABLE group_members (
    feed_id    bigint      NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text        NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'admin')),
    state      text        NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'pending')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (feed_id, user_id)
);
CREATE INDEX group_members_user_idx ON group_members (user_id, feed_id);

-- The explicit reader set of a private feed.
CREATE TABLE feed_readers (
    feed_id bigint NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (feed_id, user_id)
);
CREATE INDEX feed_readers_user_idx ON feed_readers (user_id, feed_id);

-- Anchors: the resource posts are about. Feed items are anchors; their ids are the
-- stable item ids of every feed.
CREATE TABLE anchors (
    id   bigserial PRIMARY KEY,
    url  text NOT NULL UNIQUE,
    -- What the resource is (arxiv, github, ...): the feed's source/category filter.
    kind text NOT NULL DEFAULT 'web'
);

CREATE TABLE posts (
    id            bigserial PRIMARY KEY,
    author_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    anchor_id     bigint      NOT NULL REFERENCES anchors (id),
    url           text        NOT NULL,
    title         text        NOT NULL DEFAULT '',
    body          text        NOT NULL DEFAULT '',
    canonical_url text        NOT NULL,
    anchor_url    text        NOT NULL,
    kind          text        NOT NULL,
    host          text        NOT NULL,
    link_hosts    text[]      NOT NULL DEFAULT '{}',
    -- [{"url": "...", "image": "..."}]: URLs the post links, with preview images.
    linked_urls   jsonb       NOT NULL DEFAULT '[]',
    image_count   integer     NOT NULL DEFAULT 0,
    url_count     integer     NOT NULL DEFAULT 1,
    sci_score     smallint    NOT NULL DEFAULT 0,
    tags          text[]      NOT NULL DEFAULT '{}',
    -- Denormalized from the post's feeds (seed 003) so readers filter with array operators:
    -- readable by V iff is_public, or V is logged in and some protected owner is not in a
    -- ban with V, or V reads one of the private feeds.
    is_public           boolean  NOT NULL DEFAULT true,
    protected_owner_ids bigint[] NOT NULL DEFAULT '{}',
    private_feed_ids    bigint[] NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz
);
-- The access rule (seed 003) over a post's folded access, for one viewer: the one place SQL
-- states it. A single SQL expression, so the planner inlines it.
-- +goose StatementBegin
CREATE FUNCTION can_read(is_public boolean, protected_owner_ids bigint[], private_feed_ids bigint[],
                         viewer_id bigint, blocked bigint[], readable_private bigint[])
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT is_public
        OR (viewer_id > 0 AND NOT (protected_owner_ids <@ blocked))
        OR private_feed_ids && readable_private
$$;
-- +goose StatementEnd

CREATE INDEX posts_author_created_idx ON posts (author_id, created_at DESC, id DESC);
CREATE INDEX posts_anchor_idx ON posts (anchor_id, created_at DESC);
CREATE INDEX posts_created_idx ON posts (created_at DESC, id DESC);
CREATE INDEX posts_tags_idx ON posts USING gin (tags);
-- Re-importing the same share is a no-op.
CREATE UNIQUE INDEX posts_share_key ON posts (author_id, canonical_url, created_at);

-- A post with what its card shows of the author; every post list reads through it.
CREATE VIEW post_cards AS
SELECT p.*, u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM posts p
  JOIN users u ON u.id = p.author_id;

-- Every post's destination feeds; ord comes from one global sequence (bumping, seed 003).
CREATE SEQUENCE feed_posts_ord_seq;
CREATE TABLE feed_posts (
    feed_id  bigint      NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    post_id  bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    ord      bigint      NOT NULL DEFAULT nextval('feed_posts_ord_seq'),
    time_ord timestamptz NOT NULL,
    PRIMARY KEY (feed_id, post_id)
);
CREATE INDEX feed_posts_feed_ord_idx ON feed_posts (feed_id, ord DESC);
CREATE INDEX feed_posts_post_idx ON feed_posts (post_id);

-- What a viewer did with an item. type 7 = card_seen (seed 000).
CREATE TABLE events (
    id         bigserial PRIMARY KEY,
    viewer_id  bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type       smallint    NOT NULL,
    anchor_id  bigint      NOT NULL REFERENCES anchors (id),
    dwell_ms   integer     NOT NULL DEFAULT 0 CHECK (dwell_ms >= 0),
    created_at timestamptz NOT NULL DEFAULT now()
);
-- Hide-seen sums one viewer's dwell per item over a time window.
CREATE INDEX events_viewer_seen_idx ON events (viewer_id, type, anchor_id, created_at) INCLUDE (dwell_ms);

-- One row per anchor over the last 180 days, rebuilt hourly (seed 000); rows are rolled up
-- in Go (tributary.RollupOf), the one definition every path shares.
CREATE TABLE feed_snapshot (
    anchor_id          bigint      PRIMARY KEY,
    anchor_url         text        NOT NULL,
    kind               text        NOT NULL,
    date               timestamptz NOT NULL,
    public_date        timestamptz,
    score              double precision NOT NULL,
    sci_score          smallint    NOT NULL,
    total_share        integer     NOT NULL,
    -- Every sharer; GIN-indexed for the followed-set overlap (logged-in path).
    sharer_user_ids    bigint[]    NOT NULL,
    public_sharer_ids  bigint[]    NOT NULL,
    -- A VIP shared it publicly: the anonymous front page (partial index).
    any_vip_sharer     boolean     NOT NULL,
    -- Access of the anchor, the union over its posts (see posts); all_public rows render
    -- the same for everyone, the others are rolled up again from what the viewer may read.
    all_public         boolean     NOT NULL,
    any_public         boolean     NOT NULL,
    protected_owner_ids bigint[]   NOT NULL,
    private_feed_ids   bigint[]    NOT NULL,
    -- The representative (visually richest) post.
    rep_post_id        bigint      NOT NULL,
    url                text        NOT NULL,
    canonical_url      text        NOT NULL,
    title              text        NOT NULL,
    excerpt            text        NOT NULL,
    host               text        NOT NULL,
    links              jsonb       NOT NULL,
    image_count        integer     NOT NULL,
    url_count          integer     NOT NULL,
    primary_user_id    bigint      NOT NULL,
    primary_vip        boolean     NOT NULL,
    primary_notability bigint      NOT NULL,
    tags               text[]      NOT NULL,
    -- Pre-rendered sharer stack: [{id, handle, name, vip, public, at}], primary first.
    sharers            jsonb       NOT NULL,
    refreshed_at       timestamptz NOT NULL
);
CREATE INDEX feed_snapshot_sharers_idx ON feed_snapshot USING gin (sharer_user_ids);
CREATE INDEX feed_snapshot_vip_score_idx ON feed_snapshot (score DESC) WHERE any_vip_sharer;

-- Freshness and swap bookkeeping of the snapshot.
CREATE TABLE snapshot_meta (
    id           boolean PRIMARY KEY DEFAULT true CHECK (id),
    refreshed_at timestamptz NOT NULL,
    rows         integer     NOT NULL,
    duration_ms  integer     NOT NULL
);

-- Anchors whose snapshot rows were redone while a full refresh was being built: the refresh
-- redoes them again after its swap, so no share, deletion or access change is lost.
CREATE UNLOGGED TABLE snapshot_dirty (
    anchor_id bigint      NOT NULL,
    at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX snapshot_dirty_at_idx ON snapshot_dirty (at);

-- scs sessions (pgxstore).
CREATE TABLE sessions (
    token  text        PRIMARY KEY,
    data   bytea       NOT NULL,
    expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- Fence state is transient (seed 001): losing it resets feeds, never breaks them.
CREATE UNLOGGED TABLE fences (
    viewer_id  bigint      NOT NULL,
    template   text        NOT NULL,
    latest     timestamptz NOT NULL,
    used_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (viewer_id, template)
);
CREATE INDEX fences_used_idx ON fences (used_at);

CREATE UNLOGGED TABLE fenceposts (
    viewer_id  bigint      NOT NULL,
    template   text        NOT NULL,
    at         timestamptz NOT NULL,
    prev_at    timestamptz,
    head       bigint[]    NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (viewer_id, template, at)
);

-- +goose Down
DROP VIEW post_cards;
DROP TABLE snapshot_meta, snapshot_dirty;
DROP TABLE fenceposts, fences, sessions, feed_snapshot, events, feed_posts, posts, anchors,
    group_members, feed_readers, feeds, bans, follows, users;
DROP SEQUENCE IF EXISTS feed_posts_ord_seq;
DROP FUNCTION can_read;

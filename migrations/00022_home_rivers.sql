-- +goose Up
-- Rivers (seed 002): for each active reader, the home feed's arrivals materialized as an
-- inbox of post ids, pushed on write (fanout after commit, to active readers only) and read
-- with the access rule and the reader's follows checked again in the one query. Transient
-- (UNLOGGED) and never needed for correctness: a reader without a usable river is served by
-- fanout on read, and losing every river costs speed, not items.

-- A reader's river: its inbox holds every post by the reader or by someone they follow with
-- created_at after since (a superset: unfollowed authors' posts may linger until the read
-- leaves them out), as of followed_version of the reader's follows. A follow moves the
-- version; the river serves again once a reconstruction job has brought the new followees'
-- posts in and stamped it (rebuild_to: how far back, newest first, the job has come, for
-- the followed set rebuild_version).
CREATE UNLOGGED TABLE home_rivers (
    reader_id        bigint      PRIMARY KEY,
    since            timestamptz NOT NULL,
    followed_version bigint      NOT NULL,
    used_at          timestamptz NOT NULL DEFAULT now(),
    created_at       timestamptz NOT NULL DEFAULT now(),
    rebuild_to       timestamptz,
    rebuild_version  bigint -- the followed set the blocks down to rebuild_to were read for
); -- no index on used_at: reads move it, and HOT updates need it unindexed

CREATE UNLOGGED TABLE home_river_items (
    reader_id bigint      NOT NULL,
    arrival   timestamptz NOT NULL, -- the post's created_at: the home feed's arrival order
    post_id   bigint      NOT NULL,
    PRIMARY KEY (reader_id, arrival, post_id)
);

-- The fanout's watermark: every new_posts change (site_changes) of a transaction older than
-- xid is in the rivers that existed when it was fanned out. A river's read adds the posts of
-- the changes from xid on, so a share is in its readers' rivers from its commit, fanned out
-- or not.
CREATE UNLOGGED TABLE home_river_fanout (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    xid bigint  NOT NULL
);
INSERT INTO home_river_fanout (xid) VALUES (pg_snapshot_xmin(pg_current_snapshot())::text::bigint);

-- +goose Down
DROP TABLE home_river_fanout;
DROP TABLE home_river_items;
DROP TABLE home_rivers;

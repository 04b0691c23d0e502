-- +goose Up
-- Rate limits shared by every instance: hits per key (an address, a handle, a user and an
-- action) in fixed windows. Transient: losing it forgets some hits, never a user's data.
CREATE UNLOGGED TABLE rate_limits (
    key          text        NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer     NOT NULL,
    PRIMARY KEY (key, window_start)
);

-- +goose Down
DROP TABLE rate_limits;

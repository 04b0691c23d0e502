-- +goose Up
-- Every signed-in request's session read counts the unread notifications. PL/pgSQL planned
-- the count afresh on each call (its generic plan's estimate was never below the custom
-- plans'), about 1 ms even for a reader with none; its one generic plan (an index range of
-- the reader's rows) costs 0.13 ms for such a reader.
ALTER FUNCTION notification_unread(bigint, bigint[], bigint[]) SET plan_cache_mode = force_generic_plan;

-- +goose Down
ALTER FUNCTION notification_unread(bigint, bigint[], bigint[]) RESET plan_cache_mode;

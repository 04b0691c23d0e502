-- +goose Up
-- The incremental refresh reads the users whose VIP flag or notability changed by transaction
-- id, as every other reader of the change log does: from the oldest transaction still running
-- when the last refresh began (changes_xid), whose changes the last refresh may not have seen.
-- By time, a change made in a transaction begun before the last refresh and committed after
-- its read was never redone. 0: none recorded yet (every change kept is read).
ALTER TABLE snapshot_meta ADD COLUMN changes_xid bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE snapshot_meta DROP COLUMN changes_xid;

-- +goose Up
-- A user's own data: when they last downloaded an export (at most one a day, on every
-- instance), and when they deleted their account (from then on nothing they made is read;
-- a job removes the rows, the row of the user stays and keeps the handle taken).
ALTER TABLE users ADD COLUMN exported_at timestamptz,
                  ADD COLUMN deleted_at  timestamptz;

-- +goose Down
ALTER TABLE users DROP COLUMN deleted_at, DROP COLUMN exported_at;

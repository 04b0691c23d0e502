-- name: HitRateLimit :one
-- Counts n hits of key in the current window of window_secs seconds (the database's clock,
-- so every instance agrees) and says how many there were and how long the window lasts yet.
INSERT INTO rate_limits AS l (key, window_start, hits)
VALUES (@key, date_bin(make_interval(0, 0, 0, 0, 0, 0, @window_secs::float8), now(), 'epoch'), @n::int)
ON CONFLICT (key, window_start) DO UPDATE SET hits = l.hits + excluded.hits
RETURNING l.hits, ceil(extract(epoch FROM l.window_start + make_interval(0, 0, 0, 0, 0, 0, @window_secs::float8) - now()))::int AS retry_secs;

-- name: PruneRateLimits :execrows
DELETE FROM rate_limits WHERE window_start < @before::timestamptz;

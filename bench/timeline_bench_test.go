package bench

import (
	"context"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// BenchmarkTimeline runs the feed service in-process on the bench database, one request
// kind per sub-benchmark, so that a CPU profile shows where the Go side of the hot path
// spends its time:
//
//	BENCH_DATABASE_URL="$(tributary bench --print-dsn)" go test ./bench -run '^$' \
//	    -bench Timeline/live_median -benchtime 20x -cpuprofile cpu.out
//	go tool pprof -top bench.test cpu.out
//
// It writes fence state of the viewers it uses (it drops it before cold requests).
func BenchmarkTimeline(b *testing.B) {
	dsn := os.Getenv("BENCH_DATABASE_URL")
	if dsn == "" {
		b.Skip("BENCH_DATABASE_URL is not set: this benchmark runs on the bench dataset (see `tributary bench --print-dsn`)")
	}
	ctx := context.Background()
	pool, err := openPool(ctx, dsn, 8)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	store := db.NewStore(pool)
	svc := feed.New(store, feed.DefaultConfig(), time.Now)
	if err := svc.Warm(ctx); err != nil { // as the server does after each refresh
		b.Fatal(err)
	}
	cls, err := pickViewers(ctx, pool, 1)
	if err != nil {
		b.Fatal(err)
	}
	w := &world{pool: pool}
	var maxAnchor int64
	if err := pool.QueryRow(ctx, "SELECT max(id) FROM anchors").Scan(&maxAnchor); err != nil {
		b.Fatal(err)
	}
	urls, err := shareURLs(ctx, pool, maxAnchor)
	if err != nil {
		b.Fatal(err)
	}
	w.shareURLs, w.store = urls, store
	for _, c := range cls {
		v := c.Viewers[0]
		u, err := store.UserByID(ctx, v.ID)
		if err != nil {
			b.Fatal(err)
		}
		timeline := func(b *testing.B, params url.Values) tributary.Timeline {
			q, err := tributary.ParseFeedQuery(params)
			if err != nil {
				b.Fatal(err)
			}
			t, err := svc.Timeline(ctx, &u, q)
			if err != nil {
				b.Fatal(err)
			}
			return t
		}
		cold := func(params url.Values) func(b *testing.B) {
			return func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					if err := w.resetFence(ctx, u.ID); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					timeline(b, params)
				}
			}
		}
		b.Run("first_cold_"+c.Name, cold(url.Values{}))
		b.Run("live_"+c.Name, cold(url.Values{"source": {string(liveSource)}}))
		// A return after a followee's share, as first_returning_* in `make bench`: the share
		// is not timed; every returnCycle returns the fence is rebuilt (untimed).
		b.Run("returning_"+c.Name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			n := 0
			for b.Loop() {
				b.StopTimer()
				if n%returnCycle == 0 {
					if err := w.resetFence(ctx, u.ID); err != nil {
						b.Fatal(err)
					}
					timeline(b, url.Values{})
				}
				n++
				if err := w.shareByFollowee(ctx, v, r); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				timeline(b, url.Values{})
			}
		})
		// The share itself: a post by a followee and its item's snapshot row redone.
		b.Run("share_by_followee_"+c.Name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(2, 1))
			for b.Loop() {
				if err := w.shareByFollowee(ctx, v, r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("next_page_"+c.Name, func(b *testing.B) {
			if err := w.resetFence(ctx, u.ID); err != nil {
				b.Fatal(err)
			}
			cursor := ""
			for b.Loop() {
				if cursor == "" {
					b.StopTimer()
					cursor = timeline(b, url.Values{}).NextCursor
					b.StartTimer()
				}
				cursor = timeline(b, url.Values{"cursor": {cursor}}).NextCursor
			}
		})
	}
	b.Run("anon_miss", func(b *testing.B) {
		base := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(time.Now().UnixNano() % int64(24*time.Hour)))
		i := 0
		for b.Loop() {
			i++
			q, err := tributary.ParseFeedQuery(url.Values{"since": {base.Add(time.Duration(i) * time.Second).Format(time.RFC3339)}})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := svc.Timeline(ctx, nil, q); err != nil {
				b.Fatal(err)
			}
		}
	})
}

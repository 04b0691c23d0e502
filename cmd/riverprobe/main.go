package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"tributary"
	"tributary/db"
)

func main() {
	ctx := context.Background()
	pool, err := db.Open(ctx, os.Getenv("DSN"))
	if err != nil {
		panic(err)
	}
	store := db.NewStore(pool)
	var author int64
	var followers int
	if err := pool.QueryRow(ctx, `SELECT followed_id, count(*) FROM follows WHERE state = 'active' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`).Scan(&author, &followers); err != nil {
		panic(err)
	}
	pool.Exec(ctx, "TRUNCATE home_rivers, home_river_items")
	rows, _ := pool.Query(ctx, `SELECT follower_id FROM follows WHERE followed_id = $1 AND state = 'active' ORDER BY follower_id LIMIT 2000`, author)
	var readers []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		readers = append(readers, id)
	}
	rows.Close()
	now := time.Now()
	start := time.Now()
	for _, r := range readers {
		if _, err := store.OpenRiver(ctx, r, now.Add(-24*time.Hour)); err != nil {
			panic(err)
		}
	}
	open := time.Since(start)
	st, _ := store.RiverStats(ctx)
	fmt.Printf("author %d with %d followers; opened %d rivers in %s (%.2f ms each); %d items, %d bytes: %.0f bytes and %.0f items per reader\n",
		author, followers, len(readers), open.Round(time.Millisecond), float64(open.Microseconds())/1000/float64(len(readers)), st.Items, st.Bytes,
		float64(st.Bytes)/float64(st.Rivers), float64(st.Items)/float64(st.Rivers))
	store.FanOutRivers(ctx)
	var acks, fans []time.Duration
	for i := range 30 {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: author, URL: fmt.Sprintf("https://example.com/riverprobe/%d/%d", now.UnixNano(), i), CreatedAt: time.Now()})
		if err != nil {
			panic(err)
		}
		t0 := time.Now()
		id, err := store.CreatePost(ctx, p)
		if err != nil {
			panic(err)
		}
		defer store.DeletePost(ctx, author, id, time.Now())
		acks = append(acks, time.Since(t0))
		t1 := time.Now()
		n, rows, err := store.FanOutRivers(ctx)
		if err != nil {
			panic(err)
		}
		fans = append(fans, time.Since(t1))
		if i == 0 {
			fmt.Printf("fanout of %d post: %d river items\n", n, rows)
		}
	}
	p50 := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	fmt.Printf("share (store, no HTTP) p50 %s; fanout after commit p50 %s, max %s\n", p50(acks), p50(fans), fans[len(fans)-1])
}

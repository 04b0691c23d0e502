package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The unread count on open pages (issue 46: a like reaches its post's author's badge within
// 500 ms p99, 2 instances): unreadTargets authors have their home pages open, half on each
// instance, with their live streams; each shares a new link (untimed), then one liker likes
// every such post through the first instance, unreadEvery apart. A like's latency runs from
// sending it to the author's stream telling a higher unread count.
const (
	unreadTargets = 50
	unreadEvery   = 50 * time.Millisecond
)

func unreadLive(ctx context.Context, cfg Config, a *server, dsn string, pool *pgxpool.Pool, fix *cardFixture) (Result, error) {
	res := Result{Name: "notifications_live_2_instances", Group: "a like to its author's open page's unread count, 2 instances", Kind: "http"}
	// The liker: the first user; the authors: others in no ban with them.
	var liker int64
	var authors []int64
	err := pool.QueryRow(ctx, `SELECT min(id) FROM users`).Scan(&liker)
	if err == nil {
		err = pool.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM (SELECT id FROM users
			WHERE id <> $1 AND NOT in_ban(id, $1) ORDER BY id DESC LIMIT $2) u`, liker, unreadTargets).Scan(&authors)
	}
	if err != nil {
		return res, fmt.Errorf("bench: %s: %w", res.Name, err)
	}
	tokens, err := mintSessions(ctx, pool, append([]int64{liker}, authors...))
	if err != nil {
		return res, err
	}
	b, err := secondInstance(ctx, cfg, res.Name, dsn, fix.args()...)
	if err != nil {
		return res, err
	}
	defer b.stop()
	servers := []*server{a, b}
	tr := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()

	// Each author's new post, then their page and its stream, which records every count told.
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	posts := make([]int64, len(authors))
	for i, id := range authors {
		c := newClient(a.URL, tr)
		c.setSession(tokens[i+1])
		link := fmt.Sprintf("http://%s/unread/%s/%d", cardHost(i), run, i)
		if _, err := shareForm(ctx, c, link, "A post to like"); err != nil {
			return res, fmt.Errorf("bench: %s: %w", res.Name, err)
		}
		if err := pool.QueryRow(ctx, `SELECT id FROM posts WHERE author_id = $1 AND url = $2`, id, link).Scan(&posts[i]); err != nil {
			return res, fmt.Errorf("bench: %s: the author's post: %w", res.Name, err)
		}
	}
	type told struct {
		n  int
		at time.Time
	}
	var mu sync.Mutex
	counts := make([][]told, len(authors))
	closeStreams, err := openStreams(ctx, servers, tr, tokens[1:], func(i int, event, data string) {
		if n, err := strconv.Atoi(data); event == "unread" && err == nil {
			mu.Lock()
			counts[i] = append(counts[i], told{n, time.Now()})
			mu.Unlock()
		}
	})
	if err != nil {
		return res, fmt.Errorf("bench: %s: %w", res.Name, err)
	}
	defer closeStreams()
	// Every stream tells its first count before the likes (each like's baseline).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		all := !slices.ContainsFunc(counts, func(c []told) bool { return len(c) == 0 })
		mu.Unlock()
		if all {
			break
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("bench: %s: a stream told no first count within 10 s", res.Name)
		}
	}

	fmt.Fprintf(cfg.Log, "bench: %s: %d pages open on %d instances; %d likes, %s apart\n",
		res.Name, len(authors), len(servers), len(posts), unreadEvery)
	likerClient := newClient(a.URL, tr)
	likerClient.setSession(tokens[0])
	sent := make([]time.Time, len(posts))
	before := make([]int, len(posts))
	var errs []error
	start := time.Now()
	for i, p := range posts {
		mu.Lock()
		if n := len(counts[i]); n > 0 {
			before[i] = counts[i][n-1].n
		}
		mu.Unlock()
		sent[i] = time.Now()
		if _, _, err := likerClient.postForm(ctx, "/p/"+strconv.FormatInt(p, 10)+"/like", url.Values{}, http.StatusOK); err != nil {
			errs = append(errs, err)
		}
		time.Sleep(unreadEvery)
	}
	// Until every page has told its new count, or 10 s after the last like.
	var lat []time.Duration
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		lat = lat[:0]
		mu.Lock()
		for i := range posts {
			for _, t := range counts[i] {
				if t.at.After(sent[i]) && t.n > before[i] {
					lat = append(lat, t.at.Sub(sent[i]))
					break
				}
			}
		}
		mu.Unlock()
		if len(lat) == len(posts) || time.Now().After(deadline) {
			break
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if n := len(posts) - len(lat); n > 0 {
		errs = append(errs, fmt.Errorf("%d of %d pages did not tell a higher unread count within 10 s of the last like", n, len(posts)))
	}
	if len(lat) == 0 {
		errs = append(errs, errors.New("no page told a new count"))
	}
	summarizeInto(&res, lat, lat, errs)
	res.Requests, res.Done, res.Due, res.Concurrency = len(posts), len(lat), len(posts), len(authors)
	res.Note = fmt.Sprintf("the home pages of %d authors open, their live streams (/live) on 2 instances; each has shared a new link (untimed); one liker likes each such post through the first instance, %s apart; latency: from sending the like to the author's stream telling a higher unread count; the concurrency column is the number of pages",
		len(authors), unreadEvery)
	return res, nil
}

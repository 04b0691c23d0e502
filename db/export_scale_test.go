package db_test

import (
	"os"
	"runtime"
	"testing"
	"time"

	"tributary/db/dbtest"
)

// peakWriter counts bytes and samples the Go heap every MiB written.
type peakWriter struct {
	n, next  int64
	peakHeap uint64
}

func (w *peakWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.n >= w.next {
		w.next += 1 << 20
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.peakHeap = max(w.peakHeap, m.HeapAlloc)
	}
	return len(p), nil
}

// The export of a 100,000-post account, timed and with the heap it needed: rows are read in
// batches and written as they come, so the heap stays flat while the file grows. Run with
// TRIBUTARY_EXPORT_100K=1 go test -count=1 -run TestExport100kPosts -v ./db
func TestExport100kPosts(t *testing.T) {
	if os.Getenv("TRIBUTARY_EXPORT_100K") == "" {
		t.Skip("set TRIBUTARY_EXPORT_100K=1 to export a 100,000-post account")
	}
	st := dbtest.Store(t)
	ctx := t.Context()
	var user int64
	if err := st.Pool.QueryRow(ctx, `INSERT INTO users (handle, display_name) VALUES ('big', 'Big') RETURNING id`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	const n = 100_000
	if _, err := st.Pool.Exec(ctx, `INSERT INTO anchors (url, kind) SELECT 'https://example.com/papers/' || g, 'web' FROM generate_series(1, $1::int) g`, n); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool.Exec(ctx, `
		INSERT INTO posts (author_id, anchor_id, url, title, body, canonical_url, anchor_url, kind, anchor_kind, host, tags, created_at, bumped_at)
		SELECT $1, a.id, a.url, 'Paper ' || a.id || ', "worth it"', 'A line about it, with a #ml tag and some more words to read.', a.url, a.url,
		       'web', 'web', 'example.com', '{ml,nlp}', now() - a.id * interval '1 minute', now() - a.id * interval '1 minute'
		  FROM anchors a`, user); err != nil {
		t.Fatal(err)
	}
	// A real account's posts are analyzed by autovacuum long before they number 100,000.
	if _, err := st.Pool.Exec(ctx, `ANALYZE posts`); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	w := &peakWriter{}
	start := time.Now()
	if err := st.Export(ctx, user, "big", w); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("exported %d posts: %.1f MB of zip in %s; Go heap before %.1f MB, peak while writing %.1f MB",
		n, float64(w.n)/1e6, took.Round(time.Millisecond), float64(before.HeapAlloc)/1e6, float64(w.peakHeap)/1e6)
	if w.peakHeap > before.HeapAlloc+16<<20 {
		t.Errorf("the heap grew by %.1f MB: the export is built in memory", float64(w.peakHeap-before.HeapAlloc)/1e6)
	}
}

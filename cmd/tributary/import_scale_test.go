package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"tributary/db/dbtest"
)

// scaleCSV makes a file of n shares as people post them: 5,000 authors (a few very active),
// papers, repositories, models and blog posts over half a year, popular items shared by many,
// titles with commas and quotes, tags.
func scaleCSV(n int) string {
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("url,title,handle,shared_at,text,tags\n")
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	tags := []string{"ml", "nlp", "vision", "rl", "systems", "databases", "go", "rust", "theory"}
	for i := range n {
		var url string
		item := int(r.ExpFloat64() * 20000) // popular items come back often
		switch item % 5 {
		case 0, 1:
			url = fmt.Sprintf("https://arxiv.org/abs/%02d%02d.%05d", 23+item%3, 1+item%12, item%99999)
		case 2:
			url = fmt.Sprintf("https://github.com/org%d/repo%d", item%700, item)
		case 3:
			url = fmt.Sprintf("https://huggingface.co/org%d/model-%d", item%300, item)
		default:
			url = fmt.Sprintf("https://blog%d.example.com/posts/%d?utm_source=feed", item%900, item)
		}
		author := int(r.ExpFloat64() * 800)
		if author >= 5000 {
			author = r.IntN(5000)
		}
		at := start.Add(time.Duration(r.Int64N(int64(180 * 24 * time.Hour)))).Truncate(time.Second)
		fmt.Fprintf(&b, "%s,\"Item %d, \"\"read it\"\"\",user%d,%s,Worth a look #%d,%s %s\n", url, item, author,
			at.Format(time.RFC3339), i, tags[r.IntN(len(tags))], tags[r.IntN(len(tags))])
	}
	return b.String()
}

// A real-size import on a PostgreSQL with default settings (max_locks_per_transaction 64,
// max_connections 100): all of it in one transaction, no lock per line.
func TestImport100kLinesOnStockPostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 100,000 lines")
	}
	_, dsn := dbtest.StockCluster(t)
	const n = 100_000
	file := scaleCSV(n)
	start := time.Now()
	out, errOut, err := importRun(t, dsn, "shares.csv", file)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, errOut)
	}
	t.Logf("%d lines in %s: %.0f lines/s (%s)", n, took.Round(time.Millisecond), n/took.Seconds(), strings.TrimSpace(out))
	if !strings.Contains(out, "5000 users created") && !strings.Contains(out, "users created") {
		t.Fatalf("output %q", out)
	}
	got := rowCounts(t, dsn)
	// Again: nothing new, nothing doubled.
	out2, _, err := importRun(t, dsn, "shares.csv", file)
	if err != nil || !strings.HasPrefix(out2, "0 imported") || rowCounts(t, dsn) != got {
		t.Fatalf("re-import: %q, %v; rows %s then %s", out2, err, got, rowCounts(t, dsn))
	}
	t.Logf("rows: %s", got)
}

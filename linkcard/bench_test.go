package linkcard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkFetch100Hosts fetches pages from 100 hosts, all one loopback
// server through ConnectTo rules: "polite" with the in-memory politeness at
// its real intervals (one request per host per second, so at most 100
// pages/s once each host's first slot is spent), "unpaced" without it, to
// show the fetcher's own cost. It reports pages/s and the least gap the
// server saw between two requests to one host (slots are 1 s apart; a late
// waker narrows the gap on a loaded machine).
func BenchmarkFetch100Hosts(b *testing.B) {
	b.Run("polite", func(b *testing.B) { benchFetchHosts(b, nil) })
	b.Run("unpaced", func(b *testing.B) { benchFetchHosts(b, noWait{}) })
}

func benchFetchHosts(b *testing.B, pol Politeness) {
	const hosts = 100
	page, _ := os.ReadFile("testdata/blog_og.html")
	var mu sync.Mutex
	last := map[string]time.Time{}
	minGap := time.Hour
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		mu.Lock()
		if t, ok := last[r.Host]; ok && now.Sub(t) < minGap {
			minGap = now.Sub(t)
		}
		last[r.Host] = now
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	var rules []ConnectTo
	for i := range hosts {
		rules = append(rules, ConnectTo{Host: fmt.Sprintf("h%d.bench.example", i), Port: "80", Addr: "127.0.0.1", Port2: port(b, srv.URL)})
	}
	f, err := New(Config{ConnectTo: rules, Politeness: pol})
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	b.SetParallelism(64)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			u := fmt.Sprintf("http://h%d.bench.example/post/%d", i%hosts, i)
			if _, err := f.Fetch(context.Background(), u); err != nil {
				b.Error(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pages/s")
	if minGap < time.Hour {
		b.ReportMetric(float64(minGap.Milliseconds()), "min-host-gap-ms")
	}
}

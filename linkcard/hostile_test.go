package linkcard

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hostileFixture serves pages that try to hurt the fetcher. written
// receives the bytes the 50 MB handler managed to write before the fetcher
// hung up.
func hostileFixture(t testing.TB) (*fixture, chan int64) {
	fx := newFixture(t)
	written := make(chan int64, 1)
	const fifty = 50 << 20
	fx.handle("hostile.example", "/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := bytes.Repeat([]byte("A"), 32<<10)
		var n int64
		for n < fifty {
			m, err := w.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		written <- n
	})
	fx.handle("hostile.example", "/huge-titled", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>A title before the flood</title></head><body>")
		chunk := bytes.Repeat([]byte("<p>flood</p>"), 4096)
		for n := 0; n < fifty; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	fx.handle("hostile.example", "/huge.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", fmt.Sprint(fifty))
		w.Write([]byte("\x89PNG")) // declares 50 MB; the fetcher must not wait for them
	})
	fx.handle("hostile.example", "/drip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := w.Write([]byte("<")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
		}
	})
	fx.handle("hostile.example", "/loop/a", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop/b", http.StatusFound)
	})
	fx.handle("hostile.example", "/loop/b", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop/a", http.StatusMovedPermanently)
	})
	// /hops/N redirects N more times, then answers a page.
	fx.handle("hostile.example", "/hops/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/hops/"), &n)
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>Arrived</title>")
	})
	fx.handle("hostile.example", "/to", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 {
		zw.Write(zeros)
	}
	zw.Close()
	fx.handle("hostile.example", "/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb.Bytes())
	})
	fx.handle("hostile.example", "/brotli", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "br")
		w.Write([]byte("\x0b\x02\x80<title>x</title>\x03"))
	})
	fx.handle("hostile.example", "/500", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "oops", http.StatusInternalServerError)
	})
	fx.handle("hostile.example", "/paper.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.7"))
	})
	fx.handle("hostile.example", "/bad-oembed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>Own title</title><link rel="alternate" type="application/json+oembed" href="http://127.0.0.1/oembed">`)
	})
	return fx, written
}

func TestFetchHostile(t *testing.T) {
	fx, _ := hostileFixture(t)
	f := fx.fetcher(t, Config{Timeout: 500 * time.Millisecond})
	cases := []struct {
		name, url string
		want      Reason
	}{
		{"a gzip bomb is capped after decompression", "http://hostile.example/bomb", ReasonTooLarge},
		{"an unasked-for encoding", "http://hostile.example/brotli", ReasonBadBody},
		{"a slow drip", "https://hostile.example/drip", ReasonTimeout},
		{"a redirect loop", "https://hostile.example/loop/a", ReasonLoop},
		{"four redirects", "https://hostile.example/hops/4", ReasonRedirects},
		{"redirect to loopback on a database port", "https://hostile.example/to?u=http://127.0.0.1:5432/", ReasonRefused},
		{"redirect to loopback", "https://hostile.example/to?u=http://127.0.0.1/", ReasonRefused},
		{"redirect to localhost", "https://hostile.example/to?u=http://localhost/", ReasonRefused},
		{"redirect to IPv6 loopback", "https://hostile.example/to?u=http://[::1]/", ReasonRefused},
		{"redirect to 0.0.0.0", "https://hostile.example/to?u=http://0.0.0.0/", ReasonRefused},
		{"redirect to IPv4-mapped 0.0.0.0", "https://hostile.example/to?u=http://[::ffff:0.0.0.0]/", ReasonRefused},
		{"redirect to IPv4-mapped loopback", "https://hostile.example/to?u=http://[::ffff:127.0.0.1]/", ReasonRefused},
		{"redirect to the cloud metadata address", "https://hostile.example/to?u=http://169.254.169.254/latest/", ReasonRefused},
		{"redirect to a private address", "https://hostile.example/to?u=https://10.1.2.3/", ReasonRefused},
		{"redirect to another scheme", "https://hostile.example/to?u=file:///etc/passwd", ReasonBadURL},
		{"a bad status", "https://hostile.example/500", ReasonStatus},
		{"not html", "https://hostile.example/paper.pdf", ReasonNotHTML},
		{"loopback directly", "http://127.0.0.1/", ReasonRefused},
		{"a private address directly", "http://192.168.1.1/", ReasonRefused},
		{"a port outside the policy", "http://hostile.example:8080/", ReasonRefused},
		{"another scheme", "ftp://hostile.example/", ReasonBadURL},
		{"credentials in the URL", "https://user:pw@hostile.example/", ReasonBadURL},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tc.url)
			if got := ReasonOf(err); got != tc.want {
				t.Errorf("Fetch(%s) reason %q (%v), want %q", tc.url, got, err, tc.want)
			}
		})
	}
}

// The 50 MB page is read to the cap and no further: the fetcher hangs up and
// the server's writes fail long before its 50 MB are out.
func TestFetchStopsReadingAtTheCap(t *testing.T) {
	fx, written := hostileFixture(t)
	f := fx.fetcher(t, Config{})
	_, err := f.Fetch(context.Background(), "https://hostile.example/huge")
	if got := ReasonOf(err); got != ReasonTooLarge {
		t.Fatalf("reason %q (%v), want %q", got, err, ReasonTooLarge)
	}
	if n := <-written; n >= 50<<20 {
		t.Errorf("server wrote %d bytes: the fetcher read the whole body", n)
	}
	c, err := f.Fetch(context.Background(), "https://hostile.example/huge-titled")
	if err != nil {
		t.Fatalf("a long page with a title first: %v", err)
	}
	if c.Title != "A title before the flood" || !c.Truncated {
		t.Errorf("got title %q truncated %v, want the title from the first MiB, truncated", c.Title, c.Truncated)
	}
}

func TestFetchRedirectsUpToThree(t *testing.T) {
	fx, _ := hostileFixture(t)
	c, err := fx.fetcher(t, Config{}).Fetch(context.Background(), "https://hostile.example/hops/3")
	if err != nil || c.Title != "Arrived" {
		t.Fatalf("three redirects: card %q, err %v; want the page", c.Title, err)
	}
}

// An oEmbed endpoint on a refused address is skipped; the page's own tags stay.
func TestFetchRefusedOEmbedKeepsPage(t *testing.T) {
	fx, _ := hostileFixture(t)
	c, err := fx.fetcher(t, Config{}).Fetch(context.Background(), "https://hostile.example/bad-oembed")
	if err != nil || c.Title != "Own title" {
		t.Fatalf("card %q, err %v; want the page's own title", c.Title, err)
	}
}

func TestFetchImage(t *testing.T) {
	fx, _ := hostileFixture(t)
	fx.handle("blog.example", "/img/ending.jpg", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain") // never trusted: the image package sniffs
		w.Write([]byte("\xff\xd8\xff\xe0 a jpeg"))
	})
	f := fx.fetcher(t, Config{})
	b, err := f.FetchImage(context.Background(), "https://blog.example/img/ending.jpg", 5<<20)
	if err != nil || string(b) != "\xff\xd8\xff\xe0 a jpeg" {
		t.Fatalf("FetchImage = %q, %v", b, err)
	}
	for _, tc := range []struct {
		url  string
		max  int64
		want Reason
	}{
		{"https://hostile.example/huge.png", 5 << 20, ReasonTooLarge},
		{"https://blog.example/img/ending.jpg", 4, ReasonTooLarge},
		{"https://hostile.example/to?u=http://127.0.0.1/x.png", 5 << 20, ReasonRefused},
		{"http://[fd00::1]/x.png", 5 << 20, ReasonRefused},
	} {
		_, err := f.FetchImage(context.Background(), tc.url, tc.max)
		if got := ReasonOf(err); got != tc.want {
			t.Errorf("FetchImage(%s, %d) reason %q (%v), want %q", tc.url, tc.max, got, err, tc.want)
		}
	}
}

func TestFetchStatusKeepsRetryAfter(t *testing.T) {
	fx := newFixture(t)
	fx.handle("hostile.example", "/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	_, err := fx.fetcher(t, Config{}).Fetch(context.Background(), "https://hostile.example/busy")
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonStatus || e.Status != 429 || e.RetryAfter != 2*time.Minute {
		t.Fatalf("Fetch = %v, want bad status 429 asking for 2m", err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0}, {"30", 30 * time.Second}, {"-5", 0}, {"soon", 0},
		{"Thu, 01 Jan 2026 00:01:00 GMT", time.Minute}, {"Wed, 31 Dec 2025 23:00:00 GMT", 0},
	} {
		if got := retryAfter(tc.v, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

package web

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func TestRenderAnswersWholePagesOrAnInternalError(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	page := strings.Repeat("<p>A card of the page.</p>", 400)
	whole := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, page)
		return err
	})
	broken := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		io.WriteString(w, "<p>half a page</p>")
		return errors.New("a card failed")
	})
	serve := func(c templ.Component, gz bool, ctx context.Context) *httptest.ResponseRecorder {
		h := compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.render(w, r, http.StatusOK, c) }))
		req := httptest.NewRequestWithContext(ctx, "GET", "/", nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	rec := serve(whole, false, context.Background())
	if rec.Code != http.StatusOK || rec.Body.String() != page || rec.Header().Get("Content-Length") != strconv.Itoa(len(page)) {
		t.Errorf("whole page: status %d, %d bytes, Content-Length %q; want 200, %d bytes and their length", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"), len(page))
	}
	rec = serve(whole, true, context.Background())
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	if b, _ := io.ReadAll(zr); string(b) != page || rec.Header().Get("Content-Length") == strconv.Itoa(len(page)) {
		t.Errorf("gzip: %d bytes unzipped, Content-Length %q: the page's length must not stand for its compressed bytes", len(b), rec.Header().Get("Content-Length"))
	}

	rec = serve(broken, false, context.Background())
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "half a page") || !strings.Contains(rec.Body.String(), "Internal error") {
		t.Errorf("failed render: status %d, body %q; want 500 \"Internal error\" and none of the page", rec.Code, rec.Body.String())
	}

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	rec = serve(templ.ComponentFunc(func(ctx context.Context, w io.Writer) error { return ctx.Err() }), false, gone)
	if rec.Body.Len() != 0 {
		t.Errorf("client gone: wrote %q", rec.Body.String())
	}
}

func TestWriteJSONGivesTheLengthAndReusesNothingWritten(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	page := func(title string) func([]byte) ([]byte, error) {
		return func(b []byte) ([]byte, error) {
			return append(b, strings.Repeat(`{"title":"`+title+`"}`, 300)...), nil
		}
	}
	var answers []*httptest.ResponseRecorder
	for _, title := range []string{"first", "second", "third"} {
		rec := httptest.NewRecorder()
		s.writeJSON(rec, httptest.NewRequest("GET", "/api/timeline", nil), page(title))
		answers = append(answers, rec)
	}
	for i, title := range []string{"first", "second", "third"} {
		want, _ := page(title)(nil)
		want = append(want, '\n')
		rec := answers[i]
		if rec.Body.String() != string(want) || rec.Header().Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Errorf("answer %d: %d bytes, Content-Length %q; want the %s page, %d bytes", i, rec.Body.Len(), rec.Header().Get("Content-Length"), title, len(want))
		}
	}
	rec := httptest.NewRecorder()
	s.writeJSON(rec, httptest.NewRequest("GET", "/api/timeline", nil), func(b []byte) ([]byte, error) { return append(b, "{"...), errors.New("a card failed") })
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "Internal error") {
		t.Errorf("failed encoding: status %d, body %q", rec.Code, rec.Body.String())
	}
}

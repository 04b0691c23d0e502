package web_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// unzip reads an export's files by name.
func unzip(t *testing.T, body string) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader([]byte(body)), int64(len(body)))
	if err != nil {
		t.Fatalf("export is not a zip: %v", err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(b)
	}
	return files
}

// exportedPost is what a round trip must keep of a post.
type exportedPost struct {
	URL, Title, Body string
	Tags             []string
	CreatedAt        time.Time
}

func TestExportRoundTrip(t *testing.T) {
	a := newApp(t)
	ann, bob := a.client(), a.client()
	ann.signup("ann")
	bob.signup("bob")
	bob.filterAct("/u/ann/follow", url.Values{})
	if r := ann.post("/groups", url.Values{"name": {"club"}, "access": {"public"}}); r.status != http.StatusSeeOther {
		t.Fatalf("group: %d", r.status)
	}
	own := ann.filterShare("https://example.com/paper?id=1", "Read this #ml, with \"quotes\", commas\nand a new line", "ml nlp")
	a.filterTick()
	if r := ann.post("/share", url.Values{"url": {"https://example.org/group-only"}, "title": {"For the club"}, "body": {"Club text"},
		"tags": {"club"}, "group": {"club"}, "dest": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("group share: %d %.300s", r.status, r.body)
	}
	a.filterTick()
	if r := ann.post("/share", url.Values{"body": {"A private word"}, "direct": {"bob"}}); r.status != http.StatusSeeOther {
		t.Fatalf("direct: %d %s", r.status, r.body[strings.Index(r.body, "<main"):])
	}
	theirs := bob.filterShare("https://example.net/bob", "Bob's", "")
	ann.filterLike(theirs)
	ann.filterLike(own)
	ann.filterComment(theirs, "Nice one")

	if r := ann.get("/settings/export"); r.status != http.StatusOK || !strings.Contains(r.body, `action="/settings/export"`) {
		t.Fatalf("export page: %d", r.status)
	}
	r := ann.post("/settings/export", url.Values{})
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("export: status %d, type %q: %.300s", r.status, r.header.Get("Content-Type"), r.body)
	}
	files := unzip(t, r.body)
	for _, name := range []string{"posts.csv", "messages.json", "comments.json", "likes.json", "follows.json", "followers.json",
		"lists.json", "groups.json", "mutes.json", "hides.json"} {
		if _, ok := files[name]; !ok {
			t.Errorf("export lacks %s", name)
		} else if name != "posts.csv" && !json.Valid([]byte(files[name])) {
			t.Errorf("%s is not JSON: %s", name, files[name])
		}
	}
	for name, want := range map[string]string{"likes.json": "https://example.net/bob", "comments.json": "Nice one",
		"followers.json": `"bob"`, "groups.json": `"club"`, "messages.json": "A private word"} {
		if !strings.Contains(files[name], want) {
			t.Errorf("%s lacks %s: %s", name, want, files[name])
		}
	}

	// The CSV imports into a fresh database and makes the same posts.
	recs, bad, err := tributary.ParseImport(strings.NewReader(files["posts.csv"]), tributary.FormatCSV, a.now)
	if err != nil || len(bad) > 0 {
		t.Fatalf("import parse: %v, bad lines %v\n%s", err, bad, files["posts.csv"])
	}
	fresh := dbtest.Store(t)
	if res, err := fresh.Import(t.Context(), recs); err != nil || res.Imported != 2 {
		t.Fatalf("import: %+v, %v; want 2 imported", res, err)
	}
	posts := func(st *db.Store) []exportedPost {
		rows, err := st.Pool.Query(t.Context(), `SELECT p.url, p.title, p.body, p.tags, p.created_at FROM posts p
			JOIN users u ON u.id = p.author_id WHERE u.handle = 'ann' AND p.url <> '' ORDER BY p.created_at`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ps []exportedPost
		for rows.Next() {
			var p exportedPost
			if err := rows.Scan(&p.URL, &p.Title, &p.Body, &p.Tags, &p.CreatedAt); err != nil {
				t.Fatal(err)
			}
			slices.Sort(p.Tags)
			ps = append(ps, p)
		}
		return ps
	}
	got, want := posts(fresh), posts(a.store)
	if len(want) != 2 || !slices.EqualFunc(got, want, func(x, y exportedPost) bool {
		return x.URL == y.URL && x.Title == y.Title && x.Body == y.Body && slices.Equal(x.Tags, y.Tags) && x.CreatedAt.Equal(y.CreatedAt)
	}) {
		t.Errorf("imported posts\n%+v\nwant\n%+v", got, want)
	}

	// One export a day, on every instance: the database counts.
	a.now = a.now.Add(23 * time.Hour)
	if r := ann.post("/settings/export", url.Values{}); r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "one export a day") {
		t.Errorf("second export within a day: status %d, want 429 saying why: %.300s", r.status, r.body)
	}
	a.now = a.now.Add(time.Hour)
	if r := ann.post("/settings/export", url.Values{}); r.status != http.StatusOK {
		t.Errorf("export a day later: status %d, want 200", r.status)
	}
	if r := a.client().post("/settings/export", url.Values{}); r.status == http.StatusOK {
		t.Errorf("anonymous export: status %d, want refused", r.status)
	}
}

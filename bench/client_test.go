package bench

import (
	"strings"
	"testing"
	"time"

	"tributary"
)

// decodeTimeline and decodePosts read the envelope of what the server writes, whatever its
// list holds (a title spelling the envelope's own field included), and refuse what is not a
// page of the kind.
func TestDecodePage(t *testing.T) {
	sly := `","next_cursor":"forged","path":"live"}` + "\\"
	items := []tributary.Item{
		{ID: 1, Title: sly, URL: "https://example.com/?a=<1>&b=2", Date: time.Date(2026, 11, 27, 1, 2, 3, 4e6, time.UTC)},
		{ID: 2, Excerpt: `,"next_cursor":`, Sharers: []tributary.Sharer{{UserRef: tributary.UserRef{ID: 3, Handle: "x"}}}},
	}
	for _, tc := range []struct {
		tl    tributary.Timeline
		empty bool
	}{
		{tributary.Timeline{Items: items, NextCursor: "c1", Path: tributary.PathSnapshot, Fencepost: "f1", Refreshed: true}, false},
		{tributary.Timeline{Items: []tributary.Item{}, Path: tributary.PathSnapshot, Fencepost: "f2"}, true},
		{tributary.Timeline{Path: tributary.PathSnapshot}, true},
	} {
		body, err := tc.tl.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeTimeline(body, tributary.PathSnapshot)
		want := timeline{Empty: tc.empty, NextCursor: tc.tl.NextCursor, Path: tc.tl.Path, Fencepost: tc.tl.Fencepost, Refreshed: tc.tl.Refreshed}
		if err != nil || got != want {
			t.Errorf("decodeTimeline(%s) = %+v, %v; want %+v", body, got, err, want)
		}
		if _, err := decodeTimeline(body, tributary.PathLive); err == nil {
			t.Errorf("decodeTimeline accepts a %q page as %q", tc.tl.Path, tributary.PathLive)
		}
	}
	posts := tributary.PostList{Posts: []tributary.Post{{ID: 1, Title: sly, Body: `,"next_cursor":"x"`}}, NextCursor: "c2", Path: "chrono", Fencepost: "f3"}
	body, err := posts.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := decodePosts(body); err != nil || got != (page{NextCursor: "c2", Path: "chrono", Fencepost: "f3"}) {
		t.Errorf("decodePosts(%s) = %+v, %v", body, got, err)
	}
	if got, err := decodeTimeline(body, ""); err == nil {
		t.Errorf("decodeTimeline reads a list of posts: %+v", got)
	}
	if got, err := decodePosts([]byte(`{"posts":null,"next_cursor":"","path":"chrono","fencepost":"","refreshed":true}`)); err != nil || !got.Empty || !got.Refreshed {
		t.Errorf("decodePosts of an empty refreshed page = %+v, %v", got, err)
	}
	for _, bad := range []string{"", "Internal error", `{"posts":[],"next_cursor":"","path":"snapshot","fencepost":""}`,
		`{"items":[{"id":1}],"next_cursor":"","path":"snapshot","fencepost":""`, // cut short
		`{"items":{"id":1},"next_cursor":"","path":"snapshot","fencepost":""}`,
		`{"items":[1,2],"next_cursor":"","path":"snapshot","fencepost":""}`} {
		if got, err := decodeTimeline([]byte(bad), ""); err == nil {
			t.Errorf("decodeTimeline(%q) = %+v, want an error", bad, got)
		} else if !strings.HasPrefix(err.Error(), "timeline: ") {
			t.Errorf("decodeTimeline(%q): error %q does not say it is the timeline", bad, err)
		}
	}
}

package feed

import (
	"strings"
	"testing"
	"time"

	"tributary"
)

func TestCursorRoundTrip(t *testing.T) {
	cc := newCodec(1, []byte("test key"))
	k := FenceKey{Viewer: 42, Template: "home"}
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []Cursor{
		{At: now.Add(-time.Hour), Seg: segHead, Off: 20},
		{At: now.Add(-time.Hour), Seg: segTail, Pos: Pos{Arrival: now.Add(-2 * time.Hour), ID: 99}},
		{At: now, Seg: segTail},
	} {
		s := cc.encode(k, c, now)
		got, err := cc.decode(s, k, now.Add(time.Minute))
		if err != nil {
			t.Fatalf("decode(%q): %v", s, err)
		}
		if !got.At.Equal(c.At) || got.Seg != c.Seg || got.Off != c.Off || got.Pos.ID != c.Pos.ID || !got.Pos.Arrival.Equal(c.Pos.Arrival) {
			t.Fatalf("round trip: got %+v, want %+v", got, c)
		}
	}
}

func TestCursorRejections(t *testing.T) {
	cc := newCodec(1, []byte("test key"))
	k := FenceKey{Viewer: 42, Template: "home"}
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	good := cc.encode(k, Cursor{At: now, Seg: segHead, Off: 20}, now)
	flip := []byte(good)
	flip[10] ^= 1
	for _, tc := range []struct {
		name   string
		cursor string
		key    FenceKey
		at     time.Time
	}{
		{"garbage", "hello", k, now},
		{"empty parts", "v1..", k, now},
		{"other version", "v1" + good[2:], k, now},
		{"unknown key", newCodec(2, []byte("test key")).encode(k, Cursor{At: now, Seg: segHead}, now), k, now},
		{"edited payload", string(flip), k, now},
		{"other server key", newCodec(1, []byte("other")).encode(k, Cursor{At: now, Seg: segHead}, now), k, now},
		{"other viewer", good, FenceKey{Viewer: 43, Template: "home"}, now},
		{"other template", good, FenceKey{Viewer: 42, Template: "source=arxiv"}, now},
		{"expired", good, k, now.Add(CursorMaxAge + time.Hour)},
		{"too long", good + strings.Repeat("A", 300), k, now},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cc.decode(tc.cursor, tc.key, tc.at)
			if tributary.ErrorCode(err) != tributary.EInvalid || tributary.ErrorField(err) != "cursor" {
				t.Fatalf("decode: %v, want an invalid 'cursor' error", err)
			}
		})
	}
}

func FuzzCursor(f *testing.F) {
	cc := newCodec(1, []byte("fuzz key"))
	k := FenceKey{Viewer: 1, Template: "home"}
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	f.Add(cc.encode(k, Cursor{At: now, Seg: segHead, Off: 3}, now))
	f.Add(cc.encode(k, Cursor{At: now, Seg: segTail, Pos: Pos{Arrival: now, ID: 5}}, now))
	f.Add("v2.AAAA.BBBB")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := cc.decode(s, k, now)
		if err != nil {
			if tributary.ErrorCode(err) != tributary.EInvalid {
				t.Fatalf("decode(%q) failed with a non-400 error: %v", s, err)
			}
			return
		}
		// Whatever decodes re-encodes to a cursor that decodes to the same position.
		again, err := cc.decode(cc.encode(k, c, now), k, now)
		if err != nil || again != c {
			t.Fatalf("re-encoding %+v: %+v, %v", c, again, err)
		}
	})
}

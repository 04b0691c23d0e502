package web

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"tributary"
)

// Every parser of outside input answers bad input with a plain invalid-input error, never a
// panic or an internal error.

func FuzzSeenReport(f *testing.F) {
	f.Add([]byte(`{"events": [{"item": 1, "dwell_ms": 1800}]}`))
	f.Add([]byte(`{"events": []}`))
	f.Add([]byte(`{"events": [{"item": -1, "dwell_ms": 99999999999}]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rep, err := parseSeenReport(body)
		if err != nil {
			if tributary.ErrorCode(err) != tributary.EInvalid {
				t.Fatalf("parseSeenReport(%q): %v, want an invalid-input error", body, err)
			}
			return
		}
		if len(rep.Events) == 0 || len(rep.Events) > maxEventBatch {
			t.Fatalf("accepted a batch of %d events", len(rep.Events))
		}
	})
}

func FuzzRequestQuery(f *testing.F) {
	f.Add("limit=20&source=arxiv&include_seen=1")
	f.Add("fencepost=2026-11-20T12:00:00Z&since=2026-01-01T00:00:00Z")
	f.Add("tag=ml&cursor=v2.AAAA.BBBB")
	f.Add("limit=-1&until=yesterday&tag=%00")
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return // net/http answers such a query itself
		}
		if _, err := tributary.ParseFeedQuery(q); err != nil && tributary.ErrorCode(err) != tributary.EInvalid {
			t.Fatalf("ParseFeedQuery(%q): %v", raw, err)
		}
		r := httptest.NewRequest("GET", "/feed/new?"+q.Encode(), nil)
		if _, _, err := parseNewQuery(r); err != nil && tributary.ErrorCode(err) != tributary.EInvalid {
			t.Fatalf("parseNewQuery(%q): %v", raw, err)
		}
	})
}

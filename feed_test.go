package tributary

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseFeedQueryErrors(t *testing.T) {
	tests := []struct{ query, param string }{
		{"limit=abc", "limit"},
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"limit=-5", "limit"},
		{"source=myspace", "source"},
		{"since=yesterday", "since"},
		{"until=2026-13-01", "until"},
		{"since=2026-02-01&until=2026-01-01", "since"},
		{"since=2026-01-01&until=2026-01-01", "since"},
		{"include_seen=maybe", "include_seen"},
		{"tag=" + url.QueryEscape("no spaces!"), "tag"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			v, _ := url.ParseQuery(tc.query)
			_, err := ParseFeedQuery(v)
			if err == nil {
				t.Fatal("no error")
			}
			if ErrorCode(err) != EInvalid || ErrorField(err) != tc.param || !strings.Contains(ErrorMessage(err), "'"+tc.param+"'") {
				t.Fatalf("error %v: want an invalid-input error naming %q", err, tc.param)
			}
		})
	}
}

func TestFeedQuerySignatureIsCanonical(t *testing.T) {
	parse := func(s string) FeedQuery {
		v, _ := url.ParseQuery(s)
		q, err := ParseFeedQuery(v)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	a := parse("source=ArXiv&tag=%23ML&limit=20&since=2026-01-01")
	b := parse("since=2026-01-01T00:00:00Z&tag=ml&source=arxiv")
	if a.Signature() != b.Signature() {
		t.Fatalf("signatures differ: %q vs %q", a.Signature(), b.Signature())
	}
	if parse("").Signature() == parse("include_seen=1").Signature() {
		t.Fatal("include_seen does not change the signature")
	}
}

// Values reads back as the same query and carries nothing but the known parameters.
func TestFeedQueryValuesRoundTrip(t *testing.T) {
	for _, raw := range []string{"", "limit=7&source=arxiv&tag=ML&since=2026-01-02&until=2026-02-01T10:00:00Z&include_seen=1&list=3&cursor=abc",
		"tag=ml&utm_source=x&junk=" + strings.Repeat("j", 1000), "limit=20"} {
		v, _ := url.ParseQuery(raw)
		q, err := ParseFeedQuery(v)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		back, err := ParseFeedQuery(q.Values())
		if err != nil || back != q {
			t.Errorf("%q: Values %q reads back as %+v (%v), want %+v", raw, q.Values().Encode(), back, err, q)
		}
		for k := range q.Values() {
			if !strings.Contains("limit cursor source tag since until include_seen list", k) {
				t.Errorf("%q: Values carries %q", raw, k)
			}
		}
		if raw == "limit=20" && len(q.Values()) != 0 {
			t.Errorf("the default limit is spelled out: %q", q.Values().Encode())
		}
	}
}

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

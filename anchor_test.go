package tributary

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var testLongPath = strings.Repeat("a", MaxURLLen)

func TestCanonicalize(t *testing.T) {
	for _, tc := range canonCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize(tc.in)
			if err != nil {
				t.Fatalf("Canonicalize(%q): unexpected error %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("Canonicalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			// Canonical URLs are stored and compared: they must be fixed points.
			if again, err := Canonicalize(got); err != nil || again != got {
				t.Errorf("Canonicalize(%q) = %q, %v; want it unchanged", got, again, err)
			}
		})
	}
}

func TestCanonicalizeInvalid(t *testing.T) {
	for _, tc := range invalidCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize(tc.in)
			if err == nil {
				t.Fatalf("Canonicalize(%q) = %q, want error %q", tc.in, got, tc.reason)
			}
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("Canonicalize(%q) error %T, want *URLError", tc.in, err)
			}
			if !strings.Contains(ue.Reason, tc.reason) {
				t.Errorf("Canonicalize(%q) reason\n got %q\nwant %q", tc.in, ue.Reason, tc.reason)
			}
			if _, err := Derive(tc.in, []string{"https://arxiv.org/abs/2401.12345"}); err == nil {
				t.Errorf("Derive(%q): got no error", tc.in)
			}
		})
	}
}

func TestCanonicalizeLengthLimit(t *testing.T) {
	ok := "https://example.com/" + strings.Repeat("a", MaxURLLen-len("https://example.com/"))
	if got, err := Canonicalize(ok); err != nil || got != ok {
		t.Errorf("Canonicalize(<%d bytes>) = %.40q, %v; want it unchanged", len(ok), got, err)
	}
	// Escaping can grow a URL past the limit; that must be an error, not a
	// canonical URL that fails to canonicalize again.
	grows := "https://example.com/" + strings.Repeat("é", 700)
	if _, err := Canonicalize(grows); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("Canonicalize(<escapes to %d bytes>) error = %v, want too long", 3*len(grows), err)
	}
}

func TestDerive(t *testing.T) {
	for _, tc := range deriveCases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Derive(tc.url, tc.linked)
			if err != nil {
				t.Fatalf("Derive(%q, %q): unexpected error %v", tc.url, tc.linked, err)
			}
			if d.AnchorURL != tc.anchor {
				t.Errorf("AnchorURL\n got %q\nwant %q", d.AnchorURL, tc.anchor)
			}
			if d.Kind != tc.kind {
				t.Errorf("Kind: got %q, want %q", d.Kind, tc.kind)
			}
			if d.SciScore != tc.sci {
				t.Errorf("SciScore: got %d, want %d", d.SciScore, tc.sci)
			}
			if !slices.Equal(d.LinkHosts, tc.hosts) {
				t.Errorf("LinkHosts: got %q, want %q", d.LinkHosts, tc.hosts)
			}
			if d.URLCount != tc.count {
				t.Errorf("URLCount: got %d, want %d", d.URLCount, tc.count)
			}
			if want := strings.TrimSpace(tc.url); d.URL != want {
				t.Errorf("URL: got %q, want %q", d.URL, want)
			}
			if want, _ := Canonicalize(tc.url); d.CanonicalURL != want {
				t.Errorf("CanonicalURL: got %q, want %q", d.CanonicalURL, want)
			}
			if want := strings.SplitN(strings.TrimPrefix(d.CanonicalURL, "https://"), "/", 2)[0]; d.Host != strings.SplitN(want, "?", 2)[0] {
				t.Errorf("Host: got %q, want the host of %q", d.Host, d.CanonicalURL)
			}
			if again, err := Canonicalize(d.AnchorURL); err != nil || again != d.AnchorURL {
				t.Errorf("Canonicalize(AnchorURL %q) = %q, %v; want it unchanged", d.AnchorURL, again, err)
			}
		})
	}
}

func TestDeriveTrimsURL(t *testing.T) {
	d, err := Derive("  https://arxiv.org/abs/2401.12345v2 \n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.URL, "https://arxiv.org/abs/2401.12345v2"; got != want {
		t.Errorf("URL: got %q, want %q", got, want)
	}
}

func TestParseKind(t *testing.T) {
	want := []Kind{KindArxiv, KindHuggingFace, KindGitHub, KindOpenReview, KindDOI, KindTweet, KindWeb}
	if !slices.Equal(Kinds, want) {
		t.Errorf("Kinds: got %q, want %q", Kinds, want)
	}
	for _, k := range Kinds {
		if got, ok := ParseKind(string(k)); !ok || got != k {
			t.Errorf("ParseKind(%q) = %q, %v; want %q, true", k, got, ok, k)
		}
	}
	for in, want := range map[string]Kind{" ArXiv ": KindArxiv, "GITHUB": KindGitHub} {
		if got, ok := ParseKind(in); !ok || got != want {
			t.Errorf("ParseKind(%q) = %q, %v; want %q, true", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "x", "twitter", "arxiv.org", "all"} {
		if got, ok := ParseKind(in); ok || got != "" {
			t.Errorf("ParseKind(%q) = %q, %v; want \"\", false", in, got, ok)
		}
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, tc := range canonCases {
		f.Add(tc.in)
	}
	for _, tc := range invalidCases {
		f.Add(tc.in)
	}
	for _, tc := range deriveCases {
		f.Add(tc.url)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := Canonicalize(raw)
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) || ue.Reason == "" {
				t.Fatalf("Canonicalize(%q) error %#v, want *URLError with a reason", raw, err)
			}
			return
		}
		if again, err := Canonicalize(c); err != nil || again != c {
			t.Fatalf("not idempotent: Canonicalize(%q) = %q, then %q, %v", raw, c, again, err)
		}
		d, err := Derive("https://x.com/someone/status/1", []string{raw})
		if err != nil {
			t.Fatal(err)
		}
		if again, err := Canonicalize(d.AnchorURL); err != nil || again != d.AnchorURL {
			t.Fatalf("anchor of %q is %q, which canonicalizes to %q, %v", raw, d.AnchorURL, again, err)
		}
		if d, err = Derive(raw, nil); err != nil || d.CanonicalURL != c {
			t.Fatalf("Derive(%q) = %+v, %v; want CanonicalURL %q", raw, d, err, c)
		}
		if again, err := Canonicalize(d.AnchorURL); err != nil || again != d.AnchorURL {
			t.Fatalf("anchor of %q is %q, which canonicalizes to %q, %v", raw, d.AnchorURL, again, err)
		}
	})
}

package linkcard

import (
	"testing"
)

func TestParseConnectTo(t *testing.T) {
	cases := []struct {
		in   string
		want ConnectTo
		ok   bool
	}{
		{"arxiv.org:443:127.0.0.1:8443", ConnectTo{"arxiv.org", "443", "127.0.0.1", "8443"}, true},
		{"ArXiv.org:443:127.0.0.1:8443", ConnectTo{"arxiv.org", "443", "127.0.0.1", "8443"}, true},
		{"example.com:443:[::1]:8443", ConnectTo{"example.com", "443", "::1", "8443"}, true},
		{"[2001:db8::1]:80:[::1]:", ConnectTo{"2001:db8::1", "80", "::1", ""}, true},
		{"::mirror.internal:", ConnectTo{"", "", "mirror.internal", ""}, true},
		{":443:127.0.0.1:9443", ConnectTo{"", "443", "127.0.0.1", "9443"}, true},
		{"a:80::", ConnectTo{"a", "80", "", ""}, true},
		{"a:80:b", ConnectTo{}, false},
		{"a:80:b:1:2", ConnectTo{}, false},
		{"a:http:b:80", ConnectTo{}, false},
		{"a:80:b:70000", ConnectTo{}, false},
		{"a:80:[::1:80", ConnectTo{}, false},
		{"", ConnectTo{}, false},
	}
	for _, tc := range cases {
		got, err := ParseConnectTo(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseConnectTo(%q) = %+v, %v; want %+v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok {
			if back, err := ParseConnectTo(got.String()); err != nil || back != got {
				t.Errorf("ParseConnectTo(%q.String() = %q) = %+v, %v", tc.in, got.String(), back, err)
			}
		}
	}
}

func TestParseConnectToList(t *testing.T) {
	got, err := ParseConnectToList(" arxiv.org:443:127.0.0.1:8443, ,doi.org:443:[::1]:8444,")
	want := []ConnectTo{{"arxiv.org", "443", "127.0.0.1", "8443"}, {"doi.org", "443", "::1", "8444"}}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ParseConnectToList = %+v, %v; want %+v", got, err, want)
	}
	if _, err := ParseConnectToList("arxiv.org:443:127.0.0.1:8443,bad"); err == nil {
		t.Error("ParseConnectToList with a bad rule: no error")
	}
}

func TestMapAddr(t *testing.T) {
	rules := []ConnectTo{
		{"arxiv.org", "443", "127.0.0.1", "8443"},
		{"arxiv.org", "", "127.0.0.2", ""},
		{"", "80", "", "8080"},
	}
	cases := []struct{ in, want string }{
		{"arxiv.org:443", "127.0.0.1:8443"},
		{"ARXIV.org:443", "127.0.0.1:8443"},
		{"arxiv.org:8000", "127.0.0.2:8000"},
		{"blog.example:80", "blog.example:8080"},
		{"[::1]:80", "[::1]:8080"},
		{"blog.example:443", ""},
	}
	for _, tc := range cases {
		got, ok := mapAddr(rules, tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("mapAddr(%s) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

package linkcard

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// httptest.NewTLSServer's own certificate, trusted through ExtraCA, serves
// https://example.com/ through a ConnectTo rule.
func TestExtraCAWithHTTPTestCertificate(t *testing.T) {
	var ua string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua = r.Header.Get("User-Agent")
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>Example Domain</title>"))
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	rule := ConnectTo{Host: "example.com", Port: "443", Addr: "127.0.0.1", Port2: port(t, srv.URL)}

	without, err := New(Config{ConnectTo: []ConnectTo{rule}, Politeness: noWait{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := without.Fetch(context.Background(), "https://example.com/"); err == nil {
		t.Fatal("fetched through an untrusted certificate")
	}
	f, err := New(Config{ConnectTo: []ConnectTo{rule}, ExtraCA: ca, Politeness: noWait{}, Contact: "https://tributary.example/about"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.Fetch(context.Background(), "https://example.com/")
	if err != nil || c.Title != "Example Domain" {
		t.Fatalf("Fetch = %q, %v", c.Title, err)
	}
	if !strings.Contains(ua, "Tributary") || !strings.Contains(ua, "https://tributary.example/about") {
		t.Errorf("User-Agent %q names neither Tributary nor the contact URL", ua)
	}
}

func TestNewRefusesBadExtraCA(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o600)
	for _, path := range []string{bad, filepath.Join(t.TempDir(), "missing.pem")} {
		if _, err := New(Config{ExtraCA: path}); err == nil {
			t.Errorf("New with ExtraCA %s: no error", path)
		}
	}
}

func TestCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://www.arxiv.org/pdf/2401.00001v2", "https://arxiv.org/abs/2401.00001"},
		{"  not a url  ", "not a url"},
	}
	for _, tc := range cases {
		if got := Canonical(tc.in); got != tc.want {
			t.Errorf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package linkcard

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixture serves made-up copies of real sites on loopback, over http and
// https, under their real names: ConnectTo rules send each name to it and
// ExtraCA trusts its certificate. Handlers are chosen by Host.
type fixture struct {
	http, https *httptest.Server
	sites       map[string]http.Handler // host -> handler
	rules       []ConnectTo
	caFile      string
}

// fixtureHosts are the names the fixture answers for, on ports 80 and 443.
var fixtureHosts = []string{
	"arxiv.org", "doi.org", "api.crossref.org", "github.com", "api.github.com",
	"huggingface.co", "openreview.net", "blog.example", "journal.example",
	"video.example", "hostile.example", "ru.example", "jp.example",
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	fx := &fixture{sites: map[string]http.Handler{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if s, ok := fx.sites[host]; ok {
			s.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
	fx.http = httptest.NewServer(h)
	t.Cleanup(fx.http.Close)
	cert, caPEM := fixtureCert(t, fixtureHosts)
	fx.https = httptest.NewUnstartedServer(h)
	fx.https.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	fx.https.StartTLS()
	t.Cleanup(fx.https.Close)
	fx.caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(fx.caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, host := range fixtureHosts {
		fx.rules = append(fx.rules,
			ConnectTo{Host: host, Port: "80", Addr: "127.0.0.1", Port2: port(t, fx.http.URL)},
			ConnectTo{Host: host, Port: "443", Addr: "127.0.0.1", Port2: port(t, fx.https.URL)})
	}
	return fx
}

func port(t testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// fetcher returns a Fetcher that reaches the fixture, with no politeness
// delay unless cfg sets one.
func (fx *fixture) fetcher(t testing.TB, cfg Config) *Fetcher {
	t.Helper()
	cfg.ConnectTo = append(cfg.ConnectTo, fx.rules...)
	cfg.ExtraCA = fx.caFile
	if cfg.Politeness == nil {
		cfg.Politeness = noWait{}
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// serve answers path on host with the file testdata/name and content type ct.
func (fx *fixture) serve(t testing.TB, host, path, name, ct string) {
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	fx.handle(host, path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	})
}

func (fx *fixture) handle(host, path string, h http.HandlerFunc) {
	mux, ok := fx.sites[host].(*http.ServeMux)
	if !ok {
		mux = http.NewServeMux()
		fx.sites[host] = mux
	}
	mux.HandleFunc(path, h)
}

type noWait struct{}

func (noWait) Wait(ctx context.Context, host string) error { return ctx.Err() }

// fixtureCert makes a throwaway CA and a certificate signed by it for hosts.
func fixtureCert(t testing.TB, hosts []string) (tls.Certificate, []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "linkcard test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

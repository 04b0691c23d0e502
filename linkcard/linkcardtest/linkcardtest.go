// Package linkcardtest serves made-up copies of real sites on loopback, over http and https
// under their real names, for tests of link cards that must never leave the machine: the
// fetcher reaches it through connect-to rules and trusts its certificate through a CA file.
package linkcardtest

import (
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
	"sync"
	"testing"
	"time"
)

// Fixture answers for its hosts on ports 80 and 443; handlers are chosen by Host.
type Fixture struct {
	HTTP, HTTPS *httptest.Server
	// Rules are the connect-to rules (curl's HOST:PORT:ADDR:PORT2) sending each host here.
	Rules []string
	// CAFile is a PEM file of the CA that signed the fixture's certificate.
	CAFile string

	mu    sync.Mutex
	sites map[string]*http.ServeMux
}

// New starts a fixture answering for hosts; it stops when the test ends.
func New(t testing.TB, hosts ...string) *Fixture {
	t.Helper()
	fx := &Fixture{sites: map[string]*http.ServeMux{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		fx.mu.Lock()
		mux := fx.sites[host]
		fx.mu.Unlock()
		if mux == nil {
			http.NotFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	fx.HTTP = httptest.NewServer(h)
	t.Cleanup(fx.HTTP.Close)
	cert, caPEM := Cert(t, hosts)
	fx.HTTPS = httptest.NewUnstartedServer(h)
	fx.HTTPS.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	fx.HTTPS.StartTLS()
	t.Cleanup(fx.HTTPS.Close)
	fx.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(fx.CAFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, host := range hosts {
		fx.Rules = append(fx.Rules,
			host+":80:127.0.0.1:"+port(t, fx.HTTP.URL),
			host+":443:127.0.0.1:"+port(t, fx.HTTPS.URL))
	}
	return fx
}

// Handle answers path on host with h.
func (fx *Fixture) Handle(host, path string, h http.HandlerFunc) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	mux := fx.sites[host]
	if mux == nil {
		mux = http.NewServeMux()
		fx.sites[host] = mux
	}
	mux.HandleFunc(path, h)
}

// Serve answers path on host with body as content type ct.
func (fx *Fixture) Serve(host, path string, body []byte, ct string) {
	fx.Handle(host, path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	})
}

func port(t testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// Cert makes a throwaway CA and a certificate signed by it for hosts; it returns the
// certificate and the CA's PEM.
func Cert(t testing.TB, hosts []string) (tls.Certificate, []byte) {
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

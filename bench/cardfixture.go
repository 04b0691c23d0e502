package bench

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// cardFixture is the site the server's fetcher reaches in the card-flow rows: loopback
// listeners (http and https, as links are fetched over https) answering for fetchHosts hosts
// (cardHost), which the server is told of by --fetch-connect-to rules and whose certificate
// it trusts by --fetch-ca (its fetcher still dials nothing but this fixture). It keeps when
// it answered each page, so a card's delivery is timed from the page having been served.
type cardFixture struct {
	http, https *httptest.Server
	caDir       string // holds ca.pem, the CA that signed the https listener's certificate

	mu     sync.Mutex
	served map[string]time.Time // host+path -> when its page was answered (the first time)
	pages  map[string]int       // path prefix (its first two segments) -> pages answered
}

// cardFixtureTitle is the title of every fixture page: a preview that shows it has the card.
const cardFixtureTitle = "Why cards arrive"

// cardFixturePage is what every fixture host answers: a blog post with OpenGraph, no image
// (an image is a second request to the host, a politeness interval later).
const cardFixturePage = `<!doctype html><html lang="en"><head><title>A post</title>
<meta property="og:title" content="` + cardFixtureTitle + `"><meta property="og:site_name" content="A notebook">
<meta property="og:description" content="A card comes to the page that shows its link."></head><body><p>Text.</p></body></html>`

func newCardFixture() (*cardFixture, error) {
	f := &cardFixture{served: map[string]time.Time{}, pages: map[string]int{}}
	h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(rw, cardFixturePage)
		at := time.Now()
		key := strings.ToLower(r.Host) + r.URL.Path
		f.mu.Lock()
		if _, ok := f.served[key]; !ok {
			f.served[key] = at
		}
		f.pages[pathPrefix(r.URL.Path)]++
		f.mu.Unlock()
	})
	cert, caPEM, err := fixtureCert("*.cardbench.example.com")
	if err != nil {
		return nil, err
	}
	if f.caDir, err = os.MkdirTemp("", "cardbench-"); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(f.caDir, "ca.pem"), caPEM, 0o600); err != nil {
		os.RemoveAll(f.caDir)
		return nil, err
	}
	f.http = httptest.NewServer(h)
	f.https = httptest.NewUnstartedServer(h)
	f.https.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	f.https.StartTLS()
	return f, nil
}

func (f *cardFixture) close() {
	f.http.Close()
	f.https.Close()
	os.RemoveAll(f.caDir)
}

// cardHost is the fixture's i-th host (of fetchHosts).
func cardHost(i int) string { return fmt.Sprintf("h%d.cardbench.example.com", i%fetchHosts) }

// args are the server's flags that map every fixture host to the fixture and trust its CA.
func (f *cardFixture) args() []string {
	_, port, _ := net.SplitHostPort(f.http.Listener.Addr().String())
	_, tlsPort, _ := net.SplitHostPort(f.https.Listener.Addr().String())
	out := []string{"--fetch-ca", filepath.Join(f.caDir, "ca.pem")}
	for i := range fetchHosts {
		out = append(out, "--fetch-connect-to", fmt.Sprintf("%s:80:127.0.0.1:%s", cardHost(i), port),
			"--fetch-connect-to", fmt.Sprintf("%s:443:127.0.0.1:%s", cardHost(i), tlsPort))
	}
	return out
}

// servedAt is when the fixture answered a URL's page.
func (f *cardFixture) servedAt(rawURL string) (time.Time, bool) {
	_, rest, _ := strings.Cut(rawURL, "://")
	key := strings.ToLower(rest)
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.served[key]
	return t, ok
}

// answered is how many pages the fixture answered under a path prefix ("/import/<run>").
func (f *cardFixture) answered(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pages[prefix]
}

// pathPrefix is a path's first two segments: "/import/17/3" -> "/import/17".
func pathPrefix(p string) string {
	parts := strings.SplitN(p, "/", 4)
	if len(parts) < 3 {
		return p
	}
	return "/" + parts[1] + "/" + parts[2]
}

// fixtureCert makes a throwaway CA and a certificate it signs for host (as linkcardtest.Cert
// does for tests): the CA's PEM is what the server is told to trust.
func fixtureCert(host string) (tls.Certificate, []byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bench card fixture CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(7 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return tls.Certificate{}, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(7 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}

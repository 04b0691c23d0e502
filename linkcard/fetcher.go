package linkcard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"code.dny.dev/ssrf"
)

// Fetcher fetches what links say about themselves, within the address policy
// and the limits of its Config. It is safe for concurrent use.
type Fetcher struct {
	cfg    Config
	policy *addressPolicy
	client *http.Client
}

// New returns a Fetcher for cfg. It fails when the ExtraCA file cannot be read
// or holds no certificate.
func New(cfg Config) (*Fetcher, error) {
	cfg = cfg.withDefaults()
	f := &Fetcher{cfg: cfg, policy: newAddressPolicy(cfg.Ports, cfg.AllowNAT64)}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.ExtraCA != "" {
		pem, err := os.ReadFile(cfg.ExtraCA)
		if err != nil {
			return nil, fmt.Errorf("linkcard: extra CA: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("linkcard: extra CA %s: no PEM certificate", cfg.ExtraCA)
		}
		tlsConf.RootCAs = pool
	}
	rt := &http.Transport{
		Proxy:                  nil, // a proxy would be dialed instead of the checked address
		DialContext:            f.dial,
		TLSClientConfig:        tlsConf,
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	f.client = &http.Client{Transport: rt, CheckRedirect: f.checkRedirect}
	return f, nil
}

// dial connects to addr (the URL's host:port), whose port must be the
// policy's. A ConnectTo rule redirects it and skips the address policy: the
// operator named that address. Any other connection has every address it
// tries checked by the dialer's Control hook, after DNS.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: f.cfg.ConnectTimeout}
	_, port, err := net.SplitHostPort(addr)
	n, perr := strconv.ParseUint(port, 10, 16)
	if err != nil || perr != nil {
		return nil, fmt.Errorf("%w: %s", ssrf.ErrInvalidHostPort, addr)
	}
	if err := f.policy.allowPort(uint16(n)); err != nil {
		return nil, err
	}
	if to, ok := mapAddr(f.cfg.ConnectTo, addr); ok {
		return d.DialContext(ctx, network, to)
	}
	d.Control = f.policy.control
	return d.DialContext(ctx, network, addr)
}

// checkURL refuses what the fetcher never fetches: other schemes, userinfo,
// and ports outside the policy (checked again at dial time).
func (f *Fetcher) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fail(ReasonBadURL, u.String(), errors.New("scheme must be http or https"))
	}
	if u.Host == "" || u.User != nil {
		return fail(ReasonBadURL, u.String(), errors.New("no host, or credentials in the URL"))
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return fail(ReasonBadURL, u.String(), err)
	}
	// Mapped or not, the URL's port is the policy's: a rule with an empty
	// port must not open loopback's other services.
	if err := f.policy.allowPort(uint16(n)); err != nil {
		return fail(ReasonRefused, u.String(), err)
	}
	return nil
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	for _, v := range via {
		if v.URL.String() == req.URL.String() {
			return fail(ReasonLoop, req.URL.String(), nil)
		}
	}
	if len(via) > f.cfg.MaxRedirects {
		return fail(ReasonRedirects, req.URL.String(), nil)
	}
	return f.checkURL(req.URL)
}

// response is one fetched body, read within its cap.
type response struct {
	url         *url.URL // after redirects
	contentType string
	body        []byte
	capped      bool // the body went on past the cap; body holds the first cap bytes
}

// get fetches rawURL, following at most MaxRedirects redirects, and reads the
// body up to limit bytes after decompression. Politeness is waited for first;
// the Timeout covers the request, the redirects and the body. With allowCap,
// a body past the cap is returned cut, marked capped; otherwise it is an error.
func (f *Fetcher) get(ctx context.Context, rawURL, accept string, limit int64, allowCap bool) (*response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fail(ReasonBadURL, rawURL, err)
	}
	if err := f.checkURL(u); err != nil {
		return nil, err
	}
	if err := f.cfg.Politeness.Wait(ctx, u.Hostname()); err != nil {
		return nil, fail(ReasonCanceled, rawURL, err)
	}
	tctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fail(ReasonBadURL, rawURL, err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", accept)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, classify(ctx, rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &Error{Reason: ReasonStatus, URL: rawURL, Status: resp.StatusCode,
			RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		// The transport decodes the gzip it asked for; anything else is unasked for.
		return nil, fail(ReasonBadBody, rawURL, fmt.Errorf("content encoding %q", enc))
	}
	if !allowCap && resp.ContentLength > limit {
		return nil, fail(ReasonTooLarge, rawURL, fmt.Errorf("declared %d bytes, cap %d", resp.ContentLength, limit))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err == nil && tctx.Err() != nil {
		err = tctx.Err() // a body cut by the deadline can read as a clean EOF
	}
	if err != nil {
		return nil, classify(ctx, rawURL, err)
	}
	r := &response{url: resp.Request.URL, contentType: resp.Header.Get("Content-Type"), body: body}
	if int64(len(body)) > limit {
		if !allowCap {
			return nil, fail(ReasonTooLarge, rawURL, fmt.Errorf("more than %d bytes", limit))
		}
		r.body, r.capped = body[:limit], true
	}
	return r, nil
}

// FetchImage returns the raw bytes at rawURL, under the same policy, refusing
// bodies over maxBytes (ReasonTooLarge). It sniffs nothing: the caller does.
func (f *Fetcher) FetchImage(ctx context.Context, rawURL string, maxBytes int64) ([]byte, error) {
	r, err := f.get(ctx, rawURL, "image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8", maxBytes, false)
	if err != nil {
		return nil, err
	}
	return r.body, nil
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

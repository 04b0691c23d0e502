package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// rawGetter is a minimal HTTP/1.1 keep-alive client for one connection: it sends a fixed GET
// and reads the whole answer (Content-Length or chunked). The cached anonymous pages cost
// the server well under 0.1 ms of CPU each, less than net/http's client spends per request,
// and the load driver shares the machine's cores with the server: this client leaves them
// to the server, as wrk would. One rawGetter serves one worker.
type rawGetter struct {
	addr string
	req  []byte
	conn net.Conn
	r    *bufio.Reader
	body bytes.Buffer
}

// newRawGetter makes a getter of path; headers are extra request header lines ("Name: value").
func newRawGetter(base, path string, headers ...string) (*rawGetter, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	return &rawGetter{addr: u.Host, req: rawRequest(u.Host, path, headers...)}, nil
}

// rawRequest is a GET of path from host, with extra header lines ("Name: value").
func rawRequest(host, path string, headers ...string) []byte {
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: tributary-bench\r\nAccept: */*\r\n"
	for _, h := range headers {
		req += h + "\r\n"
	}
	return []byte(req + "\r\n")
}

// get sends the getter's request and returns the body (valid until the next call) and the
// latency. A status other than 200 is an error.
func (g *rawGetter) get(ctx context.Context) ([]byte, latency, error) {
	body, code, d, err := g.send(ctx, g.req)
	if err == nil && code != "200" {
		err = fmt.Errorf("GET: status %s", code)
	}
	return body, d, err
}

// send sends req on the getter's connection and returns the answer's body (valid until the
// next call), its status code and the latency.
func (g *rawGetter) send(ctx context.Context, req []byte) ([]byte, string, latency, error) {
	start := time.Now()
	reused := g.conn != nil
	body, code, server, err := g.roundTrip(ctx, req)
	if err != nil && g.conn != nil { // a broken connection is not reused
		g.conn.Close()
		g.conn = nil
	}
	if err != nil && reused && body == nil && ctx.Err() == nil {
		// The server may close an idle keep-alive connection: one retry on a new one.
		body, code, server, err = g.roundTrip(ctx, req)
	}
	return body, code, latency{client: time.Since(start), server: server}, err
}

func (g *rawGetter) roundTrip(ctx context.Context, req []byte) ([]byte, string, time.Duration, error) {
	if g.conn == nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", g.addr)
		if err != nil {
			return nil, "", 0, err
		}
		g.conn, g.r = c, bufio.NewReaderSize(c, 64<<10)
	}
	if dl, ok := ctx.Deadline(); ok {
		g.conn.SetDeadline(dl)
	}
	if _, err := g.conn.Write(req); err != nil {
		return nil, "", 0, err
	}
	status, err := g.r.ReadSlice('\n')
	if err != nil {
		return nil, "", 0, err
	}
	if len(status) < 12 || !bytes.HasPrefix(status, []byte("HTTP/1.1 ")) {
		return nil, "", 0, fmt.Errorf("raw GET: bad status line %q", status)
	}
	code := string(status[9:12])
	length, chunked, closing, server := -1, false, false, time.Duration(0)
	for {
		line, err := g.r.ReadSlice('\n')
		if err != nil {
			return nil, "", 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil {
				return nil, "", 0, fmt.Errorf("raw GET: Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			closing = bytes.EqualFold(v, []byte("close"))
		case bytes.EqualFold(k, []byte("Server-Timing")):
			server = serverTiming(string(v))
		}
	}
	g.body.Reset()
	switch {
	case chunked:
		for {
			line, err := g.r.ReadSlice('\n')
			if err != nil {
				return nil, "", 0, err
			}
			size, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.SplitN(line, []byte(";"), 2)[0])), 16, 64)
			if err != nil {
				return nil, "", 0, fmt.Errorf("raw GET: chunk size %q", line)
			}
			if size == 0 {
				for { // trailers, then the blank line
					l, err := g.r.ReadSlice('\n')
					if err != nil {
						return nil, "", 0, err
					}
					if len(bytes.TrimRight(l, "\r\n")) == 0 {
						break
					}
				}
				break
			}
			if _, err := io.CopyN(&g.body, g.r, size); err != nil {
				return nil, "", 0, err
			}
			if _, err := g.r.Discard(2); err != nil { // CRLF after the chunk
				return nil, "", 0, err
			}
		}
	case length >= 0:
		if _, err := io.CopyN(&g.body, g.r, int64(length)); err != nil {
			return nil, "", 0, err
		}
	default:
		return nil, "", 0, fmt.Errorf("raw GET: answer without a length")
	}
	if closing {
		g.conn.Close()
		g.conn = nil
	}
	return g.body.Bytes(), code, server, nil
}

// close closes the connection.
func (g *rawGetter) close() {
	if g.conn != nil {
		g.conn.Close()
		g.conn = nil
	}
}

package linkcard

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ConnectTo is one --fetch-connect-to rule, with curl's --connect-to meaning:
// a request for Host:Port connects to Addr:Port2 instead, keeping the URL,
// the Host header and the TLS server name. An empty Host or Port matches any;
// an empty Addr or Port2 keeps the original.
type ConnectTo struct {
	Host, Port, Addr, Port2 string
}

// ParseConnectTo parses one rule in curl's syntax HOST:PORT:ADDR:PORT2, where
// HOST and ADDR may be bracketed IPv6 addresses ("[::1]").
func ParseConnectTo(s string) (ConnectTo, error) {
	var fields []string
	rest := strings.TrimSpace(s)
	for i := 0; i < 4; i++ {
		var f string
		if strings.HasPrefix(rest, "[") && i%2 == 0 {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return ConnectTo{}, fmt.Errorf("linkcard: connect-to %q: unclosed [", s)
			}
			f, rest = rest[1:end], rest[end+1:]
		} else {
			end := strings.IndexByte(rest, ':')
			if end < 0 {
				end = len(rest)
			}
			f, rest = rest[:end], rest[end:]
		}
		fields = append(fields, f)
		if i < 3 {
			if !strings.HasPrefix(rest, ":") {
				return ConnectTo{}, fmt.Errorf("linkcard: connect-to %q: want HOST:PORT:ADDR:PORT2", s)
			}
			rest = rest[1:]
		}
	}
	if rest != "" {
		return ConnectTo{}, fmt.Errorf("linkcard: connect-to %q: want HOST:PORT:ADDR:PORT2", s)
	}
	for _, p := range []string{fields[1], fields[3]} {
		if n, err := strconv.Atoi(p); p != "" && (err != nil || n < 1 || n > 65535) {
			return ConnectTo{}, fmt.Errorf("linkcard: connect-to %q: bad port %q", s, p)
		}
	}
	return ConnectTo{Host: strings.ToLower(fields[0]), Port: fields[1], Addr: fields[2], Port2: fields[3]}, nil
}

// ParseConnectToList parses the env form TRIBUTARY_FETCH_CONNECT_TO: rules
// separated by commas; blank entries are ignored.
func ParseConnectToList(s string) ([]ConnectTo, error) {
	var rules []ConnectTo
	var errs []error
	for part := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		r, err := ParseConnectTo(part)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rules = append(rules, r)
	}
	return rules, errors.Join(errs...)
}

// String gives the rule back in curl's syntax.
func (c ConnectTo) String() string {
	br := func(h string) string {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return br(c.Host) + ":" + c.Port + ":" + br(c.Addr) + ":" + c.Port2
}

// mapAddr applies the first rule matching host:port (as http.Transport dials
// it) and reports whether one did.
func mapAddr(rules []ConnectTo, hostport string) (string, bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", false
	}
	for _, r := range rules {
		if r.matches(host, port) {
			h, p := host, port
			if r.Addr != "" {
				h = r.Addr
			}
			if r.Port2 != "" {
				p = r.Port2
			}
			return net.JoinHostPort(h, p), true
		}
	}
	return "", false
}

// Matches reports whether the rule applies to host:port (a request's, as it is dialed).
func (c ConnectTo) Matches(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	return err == nil && c.matches(host, port)
}

func (c ConnectTo) matches(host, port string) bool {
	return (c.Host == "" || strings.EqualFold(c.Host, host)) && (c.Port == "" || c.Port == port)
}

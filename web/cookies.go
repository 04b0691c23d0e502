package web

import (
	"net/http"
	"strings"
)

// sessionCookie is the session cookie's name over plain HTTP; over HTTPS it is
// hostPrefix+sessionCookie, Secure: a browser keeps such a cookie only from this very host
// over HTTPS, so neither a sibling subdomain nor a plain-HTTP answer can plant or replace it.
const (
	sessionCookie = "tributary_session"
	hostPrefix    = "__Host-"
)

// sessionToken is the session token a request carries ("": none): over HTTPS only under
// the cookie's __Host- name, as hostCookies shows it to the session manager.
func sessionToken(r *http.Request, https bool) string {
	name := sessionCookie
	if https {
		name = hostPrefix + sessionCookie
	}
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// hostCookies serves an HTTPS request with the session cookie under its __Host- name: the
// request's cookie of that name is shown to the session manager under the plain name (and a
// plain one the request carries is dropped), and the cookie the manager sets goes out
// renamed and Secure.
func hostCookies(w http.ResponseWriter, r *http.Request, next http.Handler) {
	var kept []string
	for _, c := range r.Cookies() {
		switch c.Name {
		case sessionCookie:
			continue
		case hostPrefix + sessionCookie:
			c.Name = sessionCookie
		}
		kept = append(kept, c.String())
	}
	r.Header.Del("Cookie")
	if len(kept) > 0 {
		r.Header.Set("Cookie", strings.Join(kept, "; "))
	}
	hw := &hostCookieWriter{ResponseWriter: w}
	next.ServeHTTP(hw, r)
	hw.rename() // the session manager sets its cookie after the handler when it wrote nothing
}

// hostCookieWriter renames the session cookie in the answer's head before it goes out.
type hostCookieWriter struct {
	http.ResponseWriter
	done bool
}

func (w *hostCookieWriter) rename() {
	if w.done {
		return
	}
	w.done = true
	cs := w.Header()["Set-Cookie"]
	for i, c := range cs {
		if strings.HasPrefix(c, sessionCookie+"=") {
			c = hostPrefix + c
			if !strings.Contains(c, "; Secure") {
				c += "; Secure"
			}
			cs[i] = c
		}
	}
}

func (w *hostCookieWriter) WriteHeader(code int) {
	w.rename()
	w.ResponseWriter.WriteHeader(code)
}

func (w *hostCookieWriter) Write(b []byte) (int, error) {
	w.rename()
	return w.ResponseWriter.Write(b)
}

func (w *hostCookieWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

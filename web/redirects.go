package web

import (
	"net/url"
	"strings"
)

// localPath is s when it is a place on this site to send a browser back to (a log-in's
// next=, a form's return=), else fallback. Browsers forgive much in a Location ("/\t/host"
// and "/\host" both mean "//host", another site), so anything with a control character or a
// backslash is refused, and what is left must parse as a path with no scheme and no host.
func localPath(s, fallback string) string {
	if len(s) > 2000 || !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || unsafeInPath(s) {
		return fallback
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") || unsafeInPath(u.Path) {
		return fallback
	}
	return s
}

// unsafeInPath: a control character or a backslash.
func unsafeInPath(s string) bool {
	for _, c := range []byte(s) {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return true
		}
	}
	return false
}

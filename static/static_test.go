package static

import (
	"maps"
	"strings"
	"testing"
)

// A binary without the vendored files (a plain `go build`) refuses to serve, naming the
// missing files and the make target that builds it whole; the test binary has them.
func TestCheckNamesMissingFilesAndMakeBuild(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatalf("Check() = %v on a binary built with its files", err)
	}
	lacking := maps.Clone(byName)
	delete(lacking, "js/vendor/htmx.min.js")
	err := check(lacking)
	if err == nil {
		t.Fatal("check() = nil without htmx.min.js")
	}
	for _, want := range []string{"static/js/vendor/htmx.min.js", "make build"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("check() = %q, want it to name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("check() = %q, want one line", err)
	}
}

package bench

import "testing"

// A notice counts a share when its count includes it: a stream told of two shares at once
// skips a count; "99+" includes every share up to 99 and past.
func TestNoticeCountsShare(t *testing.T) {
	for _, c := range []struct {
		count string
		share int
		want  bool
	}{
		{"3", 3, true}, {"4", 3, true}, {"2", 3, false}, {"99+", 120, true}, {"", 1, false}, {"x", 1, false},
	} {
		if got := counts(c.count, c.share); got != c.want {
			t.Errorf("counts(%q, %d) = %v, want %v", c.count, c.share, got, c.want)
		}
	}
}

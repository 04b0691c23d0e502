package bench

import (
	"strings"
	"testing"
)

// The strategies' table has a row per strategy that ran, its three reads, its write and its
// storage (from the read's note), and none when no strategy ran.
func TestStrategiesMarkdown(t *testing.T) {
	if md := strategiesMarkdown([]Result{{Name: "first_cold_light"}}); md != "" {
		t.Fatalf("a run without strategies has their table:\n%s", md)
	}
	md := strategiesMarkdown([]Result{
		{Name: "strategy_read_fanout_read_light", P50: 40, P99: 90},
		{Name: "strategy_read_inbox_light", P50: 0.5, P99: 3},
		{Name: "strategy_read_inbox_median", P50: 0.4, P99: 2, Note: "fanout on write; 85.9 KB per reader (2013 readers, 172.9 MB)"},
		{Name: "strategy_read_inbox_heavy", P50: 0.45, P99: 2.5},
		{Name: "strategy_write_inbox", P50: 7.2},
	})
	for _, want := range []string{
		"| `fanout_read` | 40.0 ms / 90.0 ms |", "none (the share's own row) | none beyond the posts |",
		"| `inbox` | 0.50 ms / 3.00 ms | 0.40 ms / 2.00 ms | 0.45 ms / 2.50 ms | 7.20 ms | 85.9 KB per reader (2013 readers, 172.9 MB) |",
		"**Default**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "time_buckets") {
		t.Errorf("a strategy that did not run has a row:\n%s", md)
	}
}

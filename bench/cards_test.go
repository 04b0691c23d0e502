package bench

import "testing"

// The card targets compare each card row with the same page without cards, and judge the
// fetch row by its throughput.
func TestCardTargets(t *testing.T) {
	res := func(name string, p50, rps float64, errs int) Result {
		return Result{Name: name, Requests: 100, Errors: errs, ServerP50: p50, RPS: rps}
	}
	r := Report{Results: []Result{res("first_cold_median", 1.00, 0, 0), res("cards_first_cold_median", 1.08, 0, 0),
		res("next_page_median", 0.50, 0, 0), res("cards_next_page_median", 0.75, 0, 0),
		res("cards_fetch_100_hosts", 0, 98, 0)}}
	want := map[string]bool{"cards_first_cold_median": true, "cards_next_page_median": false, "cards_fetch_100_hosts": true}
	got := cardTargets(r)
	if len(got) != len(want) {
		t.Fatalf("targets %+v, want %d", got, len(want))
	}
	for _, x := range got {
		if x.Met != want[x.Scenario] {
			t.Errorf("%s: met %v (%s), want %v", x.Scenario, x.Met, x.Measured, want[x.Scenario])
		}
	}
	r.Results[4] = res("cards_fetch_100_hosts", 0, 60, 3) // errors: a refused turn is not throughput
	if x := cardTargets(r)[2]; x.Met {
		t.Errorf("a fetch row with errors meets its target: %s", x.Measured)
	}
}

// The share's acknowledgement with fetching on may be 5 % slower than with it off, no more.
func TestShareAckTarget(t *testing.T) {
	for _, c := range []struct {
		on, off float64
		want    bool
	}{{3.1, 3.0, true}, {3.2, 3.0, false}} {
		r := Report{Results: []Result{{Name: "cards_share_fetch_on", Requests: 200, ServerP50: c.on},
			{Name: "cards_share_fetch_off", Requests: 200, ServerP50: c.off}}}
		got := shareAckTarget(r)
		if len(got) != 1 || got[0].Met != c.want {
			t.Errorf("on %.1f ms, off %.1f ms: %+v, want met %v", c.on, c.off, got, c.want)
		}
	}
}

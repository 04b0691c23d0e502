package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The card-flow rows are judged on their p99 and on what they count: a preview without its
// card, or a card that never reached a page, misses the target however fast the rest were.
func TestCardFlowTargets(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  Result
		met  bool
	}{
		{"preview fast", Result{Name: "cards_preview_under_import", Requests: 150, P99: 120, Done: 3000, Due: 10000}, true},
		{"preview slow", Result{Name: "cards_preview_under_import", Requests: 150, P99: 301, Done: 3000, Due: 10000}, false},
		{"preview without its card", Result{Name: "cards_preview_under_import", Requests: 150, Errors: 1, P99: 120}, false},
		{"no previews", Result{Name: "cards_preview_under_import"}, false},
		{"delivery fast", Result{Name: "cards_delivery_2_instances", P99: 800, Done: 2000, Due: 2000}, true},
		{"delivery slow", Result{Name: "cards_delivery_2_instances", P99: 1001, Done: 2000, Due: 2000}, false},
		{"delivery lost one", Result{Name: "cards_delivery_2_instances", P99: 800, Done: 1999, Due: 2000}, false},
		{"delivery of nothing", Result{Name: "cards_delivery_2_instances"}, false},
	} {
		got := cardTargets(Report{Results: []Result{tc.row}})
		if len(got) != 1 || got[0].Scenario != tc.row.Name {
			t.Fatalf("%s: targets %+v, want one of %s", tc.name, got, tc.row.Name)
		}
		if got[0].Met != tc.met {
			t.Errorf("%s: met %v (%s), want %v", tc.name, got[0].Met, got[0].Measured, tc.met)
		}
	}
}

// A card counts on a page from the fixture having served its page to the page first hearing
// of the share's post, or being told to recheck every card, after that; a page that heard
// of it only before the fetch has not had the card, and a link whose page was never served
// has no arrival.
func TestCardArrivals(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	links := []string{"http://h1.cardbench.example.com/deliver/r/1", "http://h2.cardbench.example.com/deliver/r/2", "http://h3.cardbench.example.com/deliver/r/3"}
	ids := map[string]int64{links[0]: 11, links[1]: 12, links[2]: 13}
	served := map[string]time.Time{"h1.cardbench.example.com/deliver/r/1": t0, "h2.cardbench.example.com/deliver/r/2": t0.Add(time.Second)}
	f := &cardFixture{served: served}
	heard := []map[string]time.Time{
		{"p11": t0.Add(200 * time.Millisecond), "i5": t0, "p12": t0.Add(1500 * time.Millisecond), "p13": t0},
		{"p11": t0.Add(-time.Millisecond)}, // before the page was served: not this card
		{},
	}
	rechecks := [][]time.Time{{t0.Add(1200 * time.Millisecond)}, nil, {t0.Add(-time.Second), t0.Add(300 * time.Millisecond)}}
	got := cardArrivals(links, ids, f.servedAt, heard, rechecks)
	want := []cardArrival{{links[0], 0, 200 * time.Millisecond}, {links[0], 2, 300 * time.Millisecond},
		{links[1], 0, 200 * time.Millisecond}}
	if !slices.Equal(got, want) {
		t.Errorf("arrivals %+v, want %+v", got, want)
	}
}

// A talk event names cards and a recheck event all of them; other events name none.
func TestReadTalk(t *testing.T) {
	stream := "retry: 2000\n\nid: 1\nevent: pill\ndata: <a>3 new</a>\n\nid: 2\nevent: talk\ndata: p11 i5\n\n: still here\n\nid: 3\nevent: talk\ndata: p12 i6\n\nid: 4\nevent: recheck\ndata: \n\n"
	var got []string
	readEvents(strings.NewReader(stream), func(event, data string) { got = append(got, talkKeys(event, data)...) })
	if want := []string{"p11", "i5", "p12", "i6", "recheck"}; !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
}

func TestPathPrefix(t *testing.T) {
	for in, want := range map[string]string{"/import/r1/3": "/import/r1", "/import/r1": "/import/r1", "/x": "/x", "/": "/"} {
		if got := pathPrefix(in); got != want {
			t.Errorf("pathPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

package tributary

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestScoreTerms(t *testing.T) {
	w := DefaultWeights
	day := 24 * time.Hour
	tests := []struct {
		name string
		in   ScoreInputs
		term func(ScoreParts) float64
		want float64
	}{
		{"sci 3", ScoreInputs{SciScore: 3, Date: t0}, func(p ScoreParts) float64 { return p.Sci }, 18},
		{"sci 1 (github)", ScoreInputs{SciScore: 1, Date: t0}, func(p ScoreParts) float64 { return p.Sci }, 6},
		{"sci 0", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.Sci }, 0},

		{"recency now", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.Recency }, 5},
		{"recency 6d23h", ScoreInputs{Date: t0.Add(-7*day + time.Hour)}, func(p ScoreParts) float64 { return p.Recency }, 5},
		{"recency exactly 7d", ScoreInputs{Date: t0.Add(-7 * day)}, func(p ScoreParts) float64 { return p.Recency }, 4},
		{"recency 13d", ScoreInputs{Date: t0.Add(-13 * day)}, func(p ScoreParts) float64 { return p.Recency }, 4},
		{"recency 14d", ScoreInputs{Date: t0.Add(-14 * day)}, func(p ScoreParts) float64 { return p.Recency }, 3},
		{"recency 34d", ScoreInputs{Date: t0.Add(-34 * day)}, func(p ScoreParts) float64 { return p.Recency }, 1},
		{"recency 35d", ScoreInputs{Date: t0.Add(-35 * day)}, func(p ScoreParts) float64 { return p.Recency }, 0},
		{"recency 170d", ScoreInputs{Date: t0.Add(-170 * day)}, func(p ScoreParts) float64 { return p.Recency }, 0},
		{"recency future date", ScoreInputs{Date: t0.Add(day)}, func(p ScoreParts) float64 { return p.Recency }, 5},

		{"followee share 0", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.FolloweeShare }, 0},
		{"followee share 1", ScoreInputs{Date: t0, FolloweeShare: 1}, func(p ScoreParts) float64 { return p.FolloweeShare }, 0},
		{"followee share 2", ScoreInputs{Date: t0, FolloweeShare: 2}, func(p ScoreParts) float64 { return p.FolloweeShare }, 1.5},
		{"followee share 4 (cap)", ScoreInputs{Date: t0, FolloweeShare: 4}, func(p ScoreParts) float64 { return p.FolloweeShare }, 4.5},
		{"followee share 50 (capped)", ScoreInputs{Date: t0, FolloweeShare: 50}, func(p ScoreParts) float64 { return p.FolloweeShare }, 4.5},

		{"total share 0", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.TotalShare }, 0},
		{"total share 1: ln 1 = 0", ScoreInputs{Date: t0, TotalShare: 1}, func(p ScoreParts) float64 { return p.TotalShare }, 0},
		{"total share 2", ScoreInputs{Date: t0, TotalShare: 2}, func(p ScoreParts) float64 { return p.TotalShare }, math.Log(2) * 0.7},
		{"total share 1000 (cap 2)", ScoreInputs{Date: t0, TotalShare: 1000}, func(p ScoreParts) float64 { return p.TotalShare }, 1.4},

		{"vip", ScoreInputs{Date: t0, PrimaryVIP: true}, func(p ScoreParts) float64 { return p.VIP }, 0.8},
		{"not vip", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.VIP }, 0},

		{"notability 0", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.Notability }, 0},
		{"notability 9999", ScoreInputs{Date: t0, PrimaryNotability: 9_999}, func(p ScoreParts) float64 { return p.Notability }, 0},
		{"notability 10k", ScoreInputs{Date: t0, PrimaryNotability: 10_000}, func(p ScoreParts) float64 { return p.Notability }, 0},
		{"notability 27183", ScoreInputs{Date: t0, PrimaryNotability: 27_183}, func(p ScoreParts) float64 { return p.Notability }, math.Log(2.7183)},
		{"notability 1M (cap 1.5)", ScoreInputs{Date: t0, PrimaryNotability: 1_000_000}, func(p ScoreParts) float64 { return p.Notability }, 1.5},

		{"rich post", ScoreInputs{Date: t0, HasImage: true}, func(p ScoreParts) float64 { return p.RichPost }, 1.5},
		{"plain post", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.RichPost }, 0},

		{"fresh self 59m", ScoreInputs{Date: t0, ViewerShareAt: t0.Add(-59 * time.Minute)}, func(p ScoreParts) float64 { return p.FreshSelf }, 50},
		{"fresh self 61m", ScoreInputs{Date: t0, ViewerShareAt: t0.Add(-61 * time.Minute)}, func(p ScoreParts) float64 { return p.FreshSelf }, 0},
		{"not shared by viewer", ScoreInputs{Date: t0}, func(p ScoreParts) float64 { return p.FreshSelf }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := w.Score(tc.in, t0)
			if got := tc.term(p); !near(got, tc.want) {
				t.Errorf("term = %v, want %v (parts %+v)", got, tc.want, p)
			}
			sum := p.Sci + p.Recency + p.FolloweeShare + p.TotalShare + p.VIP + p.Notability + p.RichPost + p.FreshSelf
			if !near(p.Total, sum) {
				t.Errorf("total %v is not the sum of its parts %v", p.Total, sum)
			}
		})
	}
}

func TestScoreWeightsConfigurable(t *testing.T) {
	w := DefaultWeights
	w.Sci, w.RecencyWeeks, w.FreshSelf = 10, 2, 7
	p := w.Score(ScoreInputs{SciScore: 3, Date: t0.Add(-8 * 24 * time.Hour), ViewerShareAt: t0}, t0)
	if got, want := p.Total, 30.0+1+7; !near(got, want) {
		t.Fatalf("total %v, want %v (%+v)", got, want, p)
	}
}

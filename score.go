package tributary

import (
	"math"
	"time"
)

// Weights are the score formula's constants (seed 000's defaults), configurable as a whole.
type Weights struct {
	Sci            float64 // per point of sci_score
	RecencyWeeks   int     // buckets: RecencyWeeks for this week, down to 0
	FolloweeShare  float64 // per extra followee sharer
	FolloweeCap    float64 // at most this many extra followee sharers count
	TotalShare     float64 // × min(TotalShareCap, ln(total_share))
	TotalShareCap  float64
	VIP            float64 // primary sharer is VIP
	NotabilityBase float64 // followers below this add nothing
	NotabilityCap  float64 // min(cap, ln(followers/base))
	RichPost       float64 // the representative post has a preview image
	FreshSelf      float64 // the viewer shared it less than FreshSelfFor ago
	FreshSelfFor   time.Duration
}

// DefaultWeights are seed 000's tuned constants.
var DefaultWeights = Weights{
	Sci: 6, RecencyWeeks: 5, FolloweeShare: 1.5, FolloweeCap: 3, TotalShare: 0.7, TotalShareCap: 2,
	VIP: 0.8, NotabilityBase: 10_000, NotabilityCap: 1.5, RichPost: 1.5, FreshSelf: 50, FreshSelfFor: time.Hour,
}

// ScoreInputs are the facts about an item the score reads.
type ScoreInputs struct {
	SciScore          int
	Date              time.Time // newest share
	TotalShare        int       // distinct sharers overall
	PrimaryVIP        bool
	PrimaryNotability int64
	HasImage          bool
	// Viewer-specific: 0 / zero time for anonymous viewers.
	FolloweeShare int       // distinct sharers the viewer follows (or is)
	ViewerShareAt time.Time // when the viewer last shared it, if they did
}

// ScoreParts is a score explained term by term; Total is their sum.
type ScoreParts struct {
	Sci           float64 `json:"sci"`
	Recency       float64 `json:"recency"`
	FolloweeShare float64 `json:"followee_share"`
	TotalShare    float64 `json:"total_share"`
	VIP           float64 `json:"vip"`
	Notability    float64 `json:"notability"`
	RichPost      float64 `json:"rich_post"`
	FreshSelf     float64 `json:"fresh_self"`
	Total         float64 `json:"total"`
}

// Base is the viewer-agnostic part of the score, the one the snapshot stores.
func (p ScoreParts) Base() float64 {
	return p.Sci + p.Recency + p.TotalShare + p.VIP + p.Notability + p.RichPost
}

// RecencyBucket is the weekly recency term: weeks-many points this week, one less each
// week after, 0 from then on. Two items shared in the same week tie.
func (w Weights) RecencyBucket(date, now time.Time) float64 {
	age := now.Sub(date)
	if age < 0 {
		age = 0
	}
	weeks := int(age / (7 * 24 * time.Hour))
	return float64(max(0, w.RecencyWeeks-weeks))
}

// Score computes an item's score term by term.
func (w Weights) Score(in ScoreInputs, now time.Time) ScoreParts {
	p := ScoreParts{
		Sci:           float64(in.SciScore) * w.Sci,
		Recency:       w.RecencyBucket(in.Date, now),
		FolloweeShare: math.Min(w.FolloweeCap, math.Max(0, float64(in.FolloweeShare-1))) * w.FolloweeShare,
	}
	if in.TotalShare > 0 {
		p.TotalShare = math.Min(w.TotalShareCap, math.Log(float64(in.TotalShare))) * w.TotalShare
	}
	if in.PrimaryVIP {
		p.VIP = w.VIP
	}
	if f := float64(in.PrimaryNotability); f >= w.NotabilityBase && w.NotabilityBase > 0 {
		p.Notability = math.Min(w.NotabilityCap, math.Log(f/w.NotabilityBase))
	}
	if in.HasImage {
		p.RichPost = w.RichPost
	}
	if !in.ViewerShareAt.IsZero() && now.Sub(in.ViewerShareAt) < w.FreshSelfFor {
		p.FreshSelf = w.FreshSelf
	}
	p.Total = p.Base() + p.FolloweeShare + p.FreshSelf
	return p
}

package tributary

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// AppendJSON writes what encoding/json writes, on timelines whose every field (found by
// reflection, so a field added later is filled too) takes awkward values: strings with
// quotes, control characters, HTML, U+2028 and invalid UTF-8; floats tiny, huge and
// negative zero; nil and empty slices; times in other zones.
func TestTimelineAppendJSON(t *testing.T) {
	checkAppendJSON(t, rand.New(rand.NewPCG(1, 2)), Timeline.AppendJSON)
	// What encoding/json refuses, AppendJSON refuses.
	bad := []Timeline{
		{Items: []Item{{Score: math.NaN()}}},
		{Items: []Item{{ScoreParts: ScoreParts{Recency: math.Inf(-1)}}}},
		{Items: []Item{{Date: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{Items: []Item{{Sharers: []Sharer{{At: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}}}},
		// An instant of year 10000 in a zone east of UTC is of year 9999 in UTC.
		{Items: []Item{{Date: time.Date(10000, 1, 1, 5, 0, 0, 0, time.FixedZone("", 14*3600))}}},
		{Items: []Item{{Date: time.Date(-1, 12, 31, 20, 0, 0, 0, time.FixedZone("", -12*3600))}}},
	}
	// ... and the last and first instants of the range, in and out of UTC, are written.
	for _, d := range []time.Time{time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("", -12*3600)),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 1, 0, 0, 0, time.FixedZone("", 14*3600))} {
		tl := Timeline{Items: []Item{{Date: d}}}
		want, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := tl.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendJSON of %v: %s, %v; want %s", d, got, err, want)
		}
	}
	// Cards leave their empty fields out (an empty list of authors, a zero date), each in turn.
	full := LinkCard{Kind: "paper", Title: "t", Description: "d", Site: "s", Canonical: "c", Image: "/img/x",
		ImageAlt: "a", Authors: []string{"Ada"}, Abstract: "ab", Published: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), Lang: "en"}
	cards := []LinkCard{{}, full, {Authors: []string{}}, {Published: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}}
	for i := range reflect.TypeFor[LinkCard]().NumField() {
		c := full
		reflect.ValueOf(&c).Elem().Field(i).SetZero()
		cards = append(cards, c)
	}
	for _, c := range cards {
		tl := Timeline{Items: []Item{{Card: &c}}}
		want, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := tl.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendJSON of card %+v:\n%s, %v\nwant %s", c, got, err, want)
		}
	}
	// A newcomer's page ends with the front page's items.
	for _, tl := range []Timeline{{Items: []Item{{ID: 1}}, Popular: []Item{{ID: 2, Title: "p"}, {ID: 3}}},
		{Items: []Item{}, Refreshed: true, Popular: []Item{{ID: 2}}}} {
		want, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := tl.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendJSON of a page with popular items:\n%s, %v\nwant %s", got, err, want)
		}
	}
	for _, tl := range bad {
		if _, err := json.Marshal(tl); err == nil {
			t.Fatalf("json.Marshal accepts %+v", tl)
		}
		if _, err := tl.AppendJSON(nil); err == nil {
			t.Errorf("AppendJSON accepts %+v", tl)
		}
	}
}

// A page of notifications' AppendJSON writes what encoding/json writes of its lines and
// cursor, [] for no lines.
func TestNotificationPageAppendJSON(t *testing.T) {
	type schema struct {
		Notifications []Notification `json:"notifications"`
		NextCursor    string         `json:"next_cursor"`
	}
	r := rand.New(rand.NewPCG(3, 4))
	pages := []NotificationPage{{}, {Lines: []Notification{}}, {Lines: []Notification{{}}}}
	for range 3000 {
		var p NotificationPage
		fill(r, reflect.ValueOf(&p).Elem(), 0)
		pages = append(pages, p)
	}
	for i, p := range pages {
		want, err := json.Marshal(schema{Notifications: append([]Notification{}, p.Lines...), NextCursor: p.Next.String()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.AppendJSON([]byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[len("prefix"):], want) {
			t.Fatalf("page %d:\nAppendJSON %s\njson       %s", i, got[len("prefix"):], want)
		}
	}
	bad := NotificationPage{Lines: []Notification{{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if _, err := bad.AppendJSON(nil); err == nil {
		t.Error("AppendJSON accepts a time past year 9999")
	}
}

// PostList's AppendJSON writes what encoding/json writes, as Timeline's does.
func TestPostListAppendJSON(t *testing.T) {
	checkAppendJSON(t, rand.New(rand.NewPCG(3, 4)), PostList.AppendJSON)
	bad := PostList{Posts: []Post{{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if _, err := json.Marshal(bad); err == nil {
		t.Fatal("json.Marshal accepts a post of the year 10000")
	}
	if _, err := bad.AppendJSON(nil); err == nil {
		t.Error("AppendJSON accepts a post of the year 10000")
	}
}

// checkAppendJSON holds appendJSON equal to encoding/json on 3,000 random values of T.
func checkAppendJSON[T any](t *testing.T, r *rand.Rand, appendJSON func(T, []byte) ([]byte, error)) {
	t.Helper()
	for i := range 3000 {
		var v T
		fill(r, reflect.ValueOf(&v).Elem(), 0)
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendJSON(v, []byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[len("prefix"):], want) {
			t.Fatalf("%T %d:\nAppendJSON %s\njson       %s", v, i, got[len("prefix"):], want)
		}
	}
}

var awkwardStrings = []string{"", "plain", `say "hi"`, `back\slash`, "tab\there", "line\nbreak\r\n", "\b\f\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "ünïcødé ✓ 🚀", "sep\u2028para\u2029", "bad \xff\xfe utf-8", "\xe2\x82", "https://example.com/a?b=1&c=<2>"}

var awkwardFloats = []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-7, 1.234e-9, 9.99e20, 1e21, 3.4e38, 1e-300, 123456.789, math.MaxFloat64, -2.5e-5}

var zones = []*time.Location{time.UTC, time.FixedZone("x", 5*3600+30*60), time.FixedZone("y", -8*3600)}

// fill sets v (and everything in it) to random awkward values.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		tm := time.Date(1970+r.IntN(100), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(3)*r.IntN(1e9), zones[r.IntN(len(zones))])
		v.Set(reflect.ValueOf(tm))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth)
			}
		}
	case reflect.Slice:
		if r.IntN(5) == 0 {
			return // nil
		}
		n := r.IntN(4)
		if depth > 1 {
			n = min(n, 1)
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.String:
		v.SetString(awkwardStrings[r.IntN(len(awkwardStrings))])
	case reflect.Float64:
		v.SetFloat(awkwardFloats[r.IntN(len(awkwardFloats))])
	case reflect.Int, reflect.Int64:
		v.SetInt(r.Int64N(1<<40) - 1<<39)
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(2) == 0 {
			return // nil
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	default:
		panic("fill: no values for " + v.Type().String())
	}
}

package tributary

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestBumpRule(t *testing.T) {
	made := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	rule := DefaultBumpRule
	for _, c := range []struct {
		name   string
		age    time.Duration // of the post when the comment comes
		recent int           // comments in the last day, the new one included
		want   bool
	}{
		{"first comment on a new post", time.Minute, 1, true},
		{"just under a day old", 24*time.Hour - time.Nanosecond, 1, true},
		{"exactly a day old", 24 * time.Hour, 1, false},
		{"a week old, first comment in a day", 7 * 24 * time.Hour, 1, false},
		{"a week old, second comment in a day", 7 * 24 * time.Hour, 2, false},
		{"a week old, third comment in a day", 7 * 24 * time.Hour, 3, true},
		{"a year old, busy thread", 365 * 24 * time.Hour, 40, true},
	} {
		if got := rule.Bumps(made, made.Add(c.age), c.recent); got != c.want {
			t.Errorf("%s: Bumps = %v, want %v", c.name, got, c.want)
		}
	}
	// The constants are configurable.
	strict := BumpRule{MaxAge: time.Hour, Window: time.Hour, Comments: 5}
	if strict.Bumps(made, made.Add(2*time.Hour), 5) || !strict.Bumps(made, made.Add(2*time.Hour), 6) || !strict.Bumps(made, made.Add(time.Minute), 1) {
		t.Error("a configured rule is not applied")
	}
}

func TestCleanComment(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"  Nice paper! \r\n", "Nice paper!", ""},
		{"", "", "Write something"},
		{" \n\t ", "", "Write something"},
		{strings.Repeat("é", CommentMaxLen), strings.Repeat("é", CommentMaxLen), ""},
		{strings.Repeat("é", CommentMaxLen+1), "", "at most 3000 characters long (this one has 3001)"},
	} {
		got, err := CleanComment(c.in)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("CleanComment(%.20q) = %.20q, %v; want %.20q", c.in, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(ErrorMessage(err), c.err) || ErrorField(err) != "body") {
			t.Errorf("CleanComment(%.20q) error %v, want one about the body saying %q", c.in, err, c.err)
		}
	}
}

func TestLinkify(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Segment
	}{
		{"plain", []Segment{{Text: "plain"}}},
		{"@ada look", []Segment{{Text: "@ada", Href: "/u/ada"}, {Text: " look"}}},
		{"thanks @Ada_Lovelace, see #ML and #rl-agents.", []Segment{{Text: "thanks "}, {Text: "@Ada_Lovelace", Href: "/u/Ada_Lovelace"},
			{Text: ", see "}, {Text: "#ML", Href: "/t/ml"}, {Text: " and "}, {Text: "#rl-agents", Href: "/t/rl-agents"}, {Text: "."}}},
		{"mail ada@example.com or x#1", []Segment{{Text: "mail ada@example.com or x#1"}}},
		{"(@bob)", []Segment{{Text: "("}, {Text: "@bob", Href: "/u/bob"}, {Text: ")"}}},
		{"@ada_ said", []Segment{{Text: "@ada", Href: "/u/ada"}, {Text: "_ said"}}},
		{"lone @ and # signs", []Segment{{Text: "lone @ and # signs"}}},
		{"@x is too short", []Segment{{Text: "@x is too short"}}},
		{"#日本語 tag", []Segment{{Text: "#日本語", Href: "/t/日本語"}, {Text: " tag"}}},
		{"see https://arxiv.org/abs/2401.1#sec-2, by @ada.", []Segment{{Text: "see "},
			{Text: "https://arxiv.org/abs/2401.1#sec-2", Href: "https://arxiv.org/abs/2401.1#sec-2", External: true},
			{Text: ", by "}, {Text: "@ada", Href: "/u/ada"}, {Text: "."}}},
		{"(HTTP://x.org/a_(b)) and http://y.org/q?a=1&b=2!", []Segment{{Text: "("},
			{Text: "HTTP://x.org/a_(b)", Href: "HTTP://x.org/a_(b)", External: true}, {Text: ") and "},
			{Text: "http://y.org/q?a=1&b=2", Href: "http://y.org/q?a=1&b=2", External: true}, {Text: "!"}}},
		{"not links: http:// javascript:alert(1) xhttps://a.org https://user@evil.org", []Segment{
			{Text: "not links: http:// javascript:alert(1) xhttps://a.org https://user@evil.org"}}},
	} {
		if got := Linkify(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Linkify(%q) =\n %+v\nwant\n %+v", c.in, got, c.want)
		}
		var joined strings.Builder
		for _, s := range Linkify(c.in) {
			joined.WriteString(s.Text)
		}
		if joined.String() != c.in {
			t.Errorf("Linkify(%q) loses text: %q", c.in, joined.String())
		}
	}
	if got := Tags("#ml https://x.org/#frag"); !reflect.DeepEqual(got, []string{"ml"}) {
		t.Errorf("Tags = %v: an address's fragment is not a tag", got)
	}
	if got := Mentions("@ada and @Ada and @bob"); !reflect.DeepEqual(got, []string{"ada", "bob"}) {
		t.Errorf("Mentions = %v", got)
	}
}

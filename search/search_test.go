package search

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A parseCase is a query and what Parse makes of it: want (its text ignored), or an
// error with its message and position.
type parseCase struct {
	in    string
	want  Query
	canon string // when set, the Canonical spelling
	err   string
	pos   int
}

// handles returns n distinct valid handles ("uaa", "uab", ...) as a comma list.
func handles(n int) string {
	hs := make([]string, n)
	for i := range hs {
		hs[i] = "u" + string(rune('a'+i/26)) + string(rune('a'+i%26))
	}
	return strings.Join(hs, ",")
}

// nWords returns "word" n times.
func nWords(n int) string {
	return strings.TrimSpace(strings.Repeat("word ", n))
}

var parseCases = []parseCase{
	// Words, prefixes, punctuation.
	{in: "transformer", want: Query{TSQuery: "'transformer'", Words: []string{"transformer"}}, canon: "transformer"},
	{in: "  Attention\tIS   all ", want: Query{TSQuery: "'attention' & 'is' & 'all'", Words: []string{"attention", "is", "all"}}, canon: "attention is all"},
	{in: "attention. hello, world; why? yes! note:", want: Query{TSQuery: "'attention' & 'hello' & 'world' & 'why' & 'yes' & 'note'",
		Words: []string{"attention", "hello", "world", "why", "yes", "note"}}},
	{in: "transf*", want: Query{TSQuery: "'transf':*", Words: []string{"transf"}}, canon: "transf*"},
	{in: "transf**.", want: Query{TSQuery: "'transf':*", Words: []string{"transf"}}, canon: "transf*"},
	{in: "gpt-4 don't arxiv.org snake_case 1.5 e.g.", want: Query{TSQuery: "'gpt-4' & 'don''t' & 'arxiv.org' & 'snake_case' & '1.5' & 'e.g'",
		Words: []string{"gpt-4", "don't", "arxiv.org", "snake_case", "1.5", "e.g"}}},
	{in: "'quoted' -dash- (paren)", want: Query{TSQuery: "'quoted' & !'dash' & 'paren'", Words: []string{"quoted", "paren"}}},
	{in: "!!! ok ... * - #", want: Query{TSQuery: "'ok'", Words: []string{"ok"}}, canon: "ok"},
	{in: "c++ c# model model", want: Query{TSQuery: "'c' & 'c' & 'model' & 'model'", Words: []string{"c", "model"}}},
	{in: "foo/bar 10:30 a\\b", want: Query{TSQuery: "'foo' <-> 'bar' & '10' <-> '30' & 'a' <-> 'b'", Words: []string{"foo", "bar", "10", "30", "a", "b"}},
		canon: "foo/bar 10/30 a/b"},
	{in: "a*b", want: Query{TSQuery: "'a':* <-> 'b'", Words: []string{"a", "b"}}, canon: "a*b"},
	{in: "Über CAFÉ 日本語 naïve", want: Query{TSQuery: "'über' & 'café' & '日本語' & 'naïve'", Words: []string{"über", "café", "日本語", "naïve"}}},
	{in: "cafe\u0301 a\x00b\x7fc", want: Query{TSQuery: "'cafe\u0301' & 'a' & 'b' & 'c'", Words: []string{"cafe\u0301", "a", "b", "c"}}},
	{in: "note: x", want: Query{TSQuery: "'note' & 'x'", Words: []string{"note", "x"}}},

	// Phrases.
	{in: `"Exact  phrase"`, want: Query{TSQuery: "'exact' <-> 'phrase'", Words: []string{"exact", "phrase"}}, canon: "exact/phrase"},
	{in: `"single"`, want: Query{TSQuery: "'single'", Words: []string{"single"}}, canon: "single"},
	{in: `"from:ada #ml https://x.org"`, want: Query{TSQuery: "'from' <-> 'ada' <-> 'ml' <-> 'https' <-> 'x.org'",
		Words: []string{"from", "ada", "ml", "https", "x.org"}}},
	{in: `"large lang*"`, want: Query{TSQuery: "'large' <-> 'lang':*", Words: []string{"large", "lang"}}, canon: "large/lang*"},
	{in: `a"b c"d`, want: Query{TSQuery: "'a' & 'b' <-> 'c' & 'd'", Words: []string{"a", "b", "c", "d"}}, canon: "a b/c d"},
	{in: `"a""b"`, want: Query{TSQuery: "'a' & 'b'", Words: []string{"a", "b"}}},
	{in: `""`, err: "Put words between the quotes at position 1.", pos: 1},
	{in: `ok "!?"`, err: "Put words between the quotes at position 4.", pos: 4},
	{in: `ok "  "`, err: "Put words between the quotes at position 4.", pos: 4},
	{in: `ok -""`, err: "Put words between the quotes at position 5.", pos: 5},
	{in: `attention "is all`, err: "Unterminated quote starting at position 11.", pos: 11},
	{in: `"a" "b" "`, err: "Unterminated quote starting at position 9.", pos: 9},

	// Exclusions.
	{in: "ham -spam", want: Query{TSQuery: "'ham' & !'spam'", Words: []string{"ham"}}, canon: "ham -spam"},
	{in: `ham -"bad phrase" -pre*`, want: Query{TSQuery: "'ham' & !('bad' <-> 'phrase') & !'pre':*", Words: []string{"ham"}}, canon: "ham -bad/phrase -pre*"},
	{in: `ham -"single"`, want: Query{TSQuery: "'ham' & !'single'", Words: []string{"ham"}}},
	{in: "ham --x", want: Query{TSQuery: "'ham' & !'x'", Words: []string{"ham"}}},
	{in: "-spam from:ada", want: Query{TSQuery: "!'spam'", From: []string{"ada"}}, canon: "-spam from:ada"},
	{in: "-spam", err: "Add a word to search for, not only words to leave out.", pos: 1},
	{in: `-spam -"a b" -c*`, err: "Add a word to search for, not only words to leave out.", pos: 1},
	{in: "  -a | -b", err: "Add a word to search for, not only words to leave out.", pos: 3},
	{in: "x -from:ada", err: "Operators cannot be excluded: '-from:' at position 3.", pos: 3},
	{in: "-Liked-By:ada x", err: "Operators cannot be excluded: '-liked-by:' at position 1.", pos: 1},
	{in: "x -#ml", err: "Operators cannot be excluded: '-#' at position 3.", pos: 3},

	// '|'.
	{in: "a b | c", want: Query{TSQuery: "'a' & ('b' | 'c')", Words: []string{"a", "b", "c"}}, canon: "a b|c"},
	{in: "a|b|c", want: Query{TSQuery: "('a' | 'b' | 'c')", Words: []string{"a", "b", "c"}}, canon: "a|b|c"},
	{in: "a | b c | d", want: Query{TSQuery: "('a' | 'b') & ('c' | 'd')", Words: []string{"a", "b", "c", "d"}}, canon: "a|b c|d"},
	{in: "a | -b", want: Query{TSQuery: "('a' | !'b')", Words: []string{"a"}}, canon: "a|-b"},
	{in: `"a b" | c* | -"d e"`, want: Query{TSQuery: "('a' <-> 'b' | 'c':* | !('d' <-> 'e'))", Words: []string{"a", "b", "c"}}, canon: "a/b|c*|-d/e"},
	{in: `a|"b"`, want: Query{TSQuery: "('a' | 'b')", Words: []string{"a", "b"}}},
	{in: "| a", err: "'|' at position 1 needs a word or phrase on each side.", pos: 1},
	{in: "a |", err: "'|' at position 3 needs a word or phrase on each side.", pos: 3},
	{in: "a | | b", err: "'|' at position 3 needs a word or phrase on each side.", pos: 3},
	{in: "a || b", err: "'|' at position 3 needs a word or phrase on each side.", pos: 3},
	{in: "a | !!! | b", err: "'|' at position 3 needs a word or phrase on each side.", pos: 3},
	{in: "from:ada | b", err: "'|' at position 10 can join words and phrases, not operators.", pos: 10},
	{in: "b |#ml", err: "'|' at position 3 can join words and phrases, not operators.", pos: 3},
	{in: "|", err: "'|' at position 1 needs a word or phrase on each side.", pos: 1},

	// URLs.
	{in: "https://arxiv.org/abs/1706.03762.", want: Query{TSQuery: "'https://arxiv.org/abs/1706.03762'", Words: []string{"arxiv.org", "abs", "1706.03762"}},
		canon: "https://arxiv.org/abs/1706.03762"},
	{in: `x -HTTP://Spam.example/a\b'c*`, want: Query{TSQuery: `'x' & !'http://spam.example/a\\b''c'`, Words: []string{"x"}}, canon: `x -http://spam.example/a\b'c`},
	{in: "https://x.org/?q=a:*&b=(1)|y", want: Query{TSQuery: "('https://x.org/?q=a:*&b=(1)' | 'y')", Words: []string{"x.org", "q", "a", "b", "1", "y"}}},
	{in: "https:// ok", want: Query{TSQuery: "'ok'", Words: []string{"ok"}}},

	// Operators.
	{in: "from:Ada", want: Query{From: []string{"ada"}}, canon: "from:ada"},
	{in: "FROM:bob,ada from:carol from:ada", want: Query{From: []string{"ada", "bob", "carol"}}, canon: "from:ada,bob,carol"},
	{in: "from:me liked-by:me commented-by:Ada_1 in:ML-papers", want: Query{From: []string{"me"}, LikedBy: []string{"me"},
		CommentedBy: []string{"ada_1"}, In: []string{"ml-papers"}}, canon: "from:me in:ml-papers commented-by:ada_1 liked-by:me"},
	{in: "from:ada, in:group.", want: Query{From: []string{"ada"}, In: []string{"group"}}},
	{in: "#NLP #ml #nlp #ml.", want: Query{Tags: []string{"ml", "nlp"}}, canon: "#ml #nlp"},
	{in: "#über ##x", want: Query{Tags: []string{"x", "über"}}},
	{in: "site:www.arXiv.org site:blog.example.com,arxiv.org.", want: Query{Sites: []string{"arxiv.org", "blog.example.com"}}, canon: "site:arxiv.org,blog.example.com"},
	{in: "site:www.com site:a-b.c0", want: Query{Sites: []string{"a-b.c0", "www.com"}}},
	{in: `#ml Transformers -hype from:ada "self attention" site:arxiv.org`, want: Query{TSQuery: "'transformers' & !'hype' & 'self' <-> 'attention'",
		Words: []string{"transformers", "self", "attention"}, From: []string{"ada"}, Tags: []string{"ml"}, Sites: []string{"arxiv.org"}},
		canon: "transformers -hype self/attention from:ada site:arxiv.org #ml"},
	{in: "from:", err: "Add a value after 'from:' at position 1.", pos: 1},
	{in: "x in:,", err: "Add a value after 'in:' at position 3.", pos: 3},
	{in: "from:ada,,bob", err: "Empty value in the 'from:' list at position 10.", pos: 10},
	{in: "from:,ada", err: "Empty value in the 'from:' list at position 6.", pos: 6},
	{in: "from:a", err: "'a' at position 6: Handle must be 2 to 30 characters long.", pos: 6},
	{in: "x liked-by:ada,b!b", err: "'b!b' at position 16: Handle may use only letters, digits, '_' and '-', and must start with a letter or digit.", pos: 16},
	{in: "from:admin", err: `'admin' at position 6: Handle "admin" is reserved.`, pos: 6},
	{in: "in:x", err: "'x' at position 4: Group name must be 2 to 30 characters long.", pos: 4},
	{in: "in:_x", err: "'_x' at position 4: Group name may use only letters, digits, '_' and '-', and must start with a letter or digit.", pos: 4},
	{in: "ok #a+b", err: `At position 4: Tag "a+b" may use only letters, digits, '-', '_' and '.'.`, pos: 4},
	{in: "#" + strings.Repeat("t", 41), err: `At position 1: Tag "` + strings.Repeat("t", 41) + `" is longer than 40 characters.`, pos: 1},
	{in: "site:localhost", err: "'localhost' at position 6: Site must be a host name like arxiv.org.", pos: 6},
	{in: "site:ok.org,a..b", err: "'a..b' at position 13: Site must be a host name like arxiv.org.", pos: 13},
	{in: "site:-a.com", err: "'-a.com' at position 6: Site must be a host name like arxiv.org.", pos: 6},
	{in: "site:münchen.de", err: "'münchen.de' at position 6: Site must be a host name like arxiv.org.", pos: 6},
	{in: "site:https://arxiv.org", err: "'https://arxiv.org' at position 6: Site must be a host name like arxiv.org.", pos: 6},
	{in: "site:" + strings.Repeat("a.", 127) + "org", err: "'" + strings.Repeat("a.", 127) + "org' at position 6: Site must be a host name like arxiv.org.", pos: 6},
	{in: "foo:bar", err: "Unknown operator 'foo:' at position 1. Known: from:, in:, commented-by:, liked-by:, site:, #tag.", pos: 1},
	{in: "x -Re-Post:y", err: "Unknown operator 're-post:' at position 4. Known: from:, in:, commented-by:, liked-by:, site:, #tag.", pos: 4},
	{in: "tag:ml", err: "Unknown operator 'tag:' at position 1. Known: from:, in:, commented-by:, liked-by:, site:, #tag.", pos: 1},

	// Limits and emptiness.
	{in: nWords(20), want: Query{TSQuery: strings.TrimSuffix(strings.Repeat("'word' & ", 20), " & "), Words: []string{"word"}}},
	{in: nWords(16) + " a|b from:ada #ml", want: Query{TSQuery: strings.Repeat("'word' & ", 16) + "('a' | 'b')", Words: []string{"word", "a", "b"},
		From: []string{"ada"}, Tags: []string{"ml"}}},
	{in: nWords(20) + " x", err: "Too many terms: at most 20, and one more starts at position 101.", pos: 101},
	{in: nWords(19) + " from:ada #x", err: "Too many terms: at most 20, and one more starts at position 105.", pos: 105},
	{in: "from:" + handles(10) + " from:ua" + "a", want: Query{From: strings.Split(handles(10), ",")}},
	{in: "from:" + handles(11), err: "Too many values for 'from:': at most 10, and one more is at position 46.", pos: 46},
	{in: "#a1 #a2 #a3 #a4 #a5 #a6 #a7 #a8 #a9 #a10 #a1 #a11", err: "Too many tags: at most 10, and one more is at position 46.", pos: 46},
	{in: strings.Repeat("a", 500), want: Query{TSQuery: "'" + strings.Repeat("a", 500) + "'", Words: []string{strings.Repeat("a", 500)}}},
	{in: strings.Repeat("a", 501), err: "The search is too long: at most 500 bytes, and it goes past them at position 501.", pos: 501},
	{in: strings.Repeat("é", 251), err: "The search is too long: at most 500 bytes, and it goes past them at position 251.", pos: 251},
	{in: strings.Repeat("Ⱥ", 250), err: "The search is too long: at most 500 bytes, and it goes past them at position 167.", pos: 167}, // ⱥ is longer
	{in: "ab\xffcd", err: "Unreadable character at position 3.", pos: 3},
	{in: "a\uFFFDb", want: Query{TSQuery: "'a' <-> 'b'", Words: []string{"a", "b"}}},
	{in: "", err: "empty"},
	{in: " \t\n\u00a0", err: "empty"},
	{in: "\x00\x01", err: "empty"},
	{in: "!!! ... , * # -", err: "empty"},
	{in: "https://", err: "empty"},
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in)
			switch {
			case c.err == "empty":
				if !errors.Is(err, ErrEmpty) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrEmpty", c.in, got, err)
				}
			case c.err != "":
				var e *Error
				if !errors.As(err, &e) || e.Msg != c.err || e.Pos != c.pos || e.Error() != c.err {
					t.Fatalf("Parse(%q) = %+v, %#v;\nwant error %q at %d", c.in, got, err, c.err, c.pos)
				}
			case err != nil:
				t.Fatalf("Parse(%q): %v", c.in, err)
			default:
				canon := got.Canonical()
				got.text = ""
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("Parse(%q) =\n%#v, want\n%#v", c.in, got, c.want)
				}
				if c.canon != "" && canon != c.canon {
					t.Errorf("Canonical() = %q, want %q", canon, c.canon)
				}
			}
		})
	}
}

// Canonical reads back as the same query, for every valid query of the table.
func TestCanonicalParsesBack(t *testing.T) {
	for _, c := range parseCases {
		q, err := Parse(c.in)
		if err != nil {
			continue
		}
		canon := q.Canonical()
		back, err := Parse(canon)
		if err != nil || !reflect.DeepEqual(back, q) {
			t.Errorf("Parse(%q).Canonical() = %q, which parses as %#v, %v; want %#v", c.in, canon, back, err, q)
		}
	}
}

// Canonical is the same however a query is spaced, cased or ordered.
func TestCanonicalSame(t *testing.T) {
	for _, same := range [][]string{
		{"Attention  is", " attention IS\t"},
		{"x from:bob from:ada #b #a site:a.org", "#A X FROM:ada,bob site:www.a.org #B", "from:ada,bob,ada #a,  x #b site:a.org."},
		{`"a b"|c`, "a/b | c", `"A  B" |C`},
		{"in:g1 liked-by:me commented-by:ada", "commented-by:ada liked-by:me in:g1"},
	} {
		want := mustParse(t, same[0]).Canonical()
		for _, s := range same[1:] {
			if got := mustParse(t, s).Canonical(); got != want {
				t.Errorf("Canonical of %q = %q, want %q (as for %q)", s, got, want, same[0])
			}
		}
	}
}

func mustParse(t *testing.T, s string) Query {
	t.Helper()
	q, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return q
}

// tooLong names the character that crosses the limit, counting a bad byte as one.
func TestTooLong(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{strings.Repeat("a", 501), 501},
		{strings.Repeat("a", 499) + "é", 500},
		{strings.Repeat("\xff", 600), 501},
		{strings.Repeat("a", 498) + "\xff\xff\xff", 501},
	} {
		if got := tooLong(c.s).Pos; got != c.want {
			t.Errorf("tooLong(%q...).Pos = %d, want %d", c.s[:10], got, c.want)
		}
	}
}

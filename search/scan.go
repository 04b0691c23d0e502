package search

import (
	"slices"
	"strings"
	"unicode"
)

// An item is what the scanner finds: a '|', a term to match in the text, or an operator
// with its values.
type item struct {
	pos     int // 1-based rune position where it starts
	bar     bool
	term    *term
	filters []filter
}

// isOperator reports whether it is an operator such as from:ada.
func (it item) isOperator() bool { return it.filters != nil }

// A term is something to match in the text: a word, a phrase or a URL, perhaps excluded.
type term struct {
	pos     int
	neg     bool
	lexemes []lexeme // for a URL, its host and path words, which only feed Words
	// url is a URL, searched as one lexeme: PostgreSQL's parser then splits it the way it
	// split the URLs of posts (host, path), which separate words would not match.
	url string
}

// A lexeme is one word of a term, perhaps a prefix ("transf*").
type lexeme struct {
	text   string
	prefix bool
}

// A filter is one value of an operator: from:ada,bob makes two.
type filter struct {
	pos   int
	kind  string // the operator's name, or "#" for a tag
	value string // normalized
}

// scan splits rs, the lowercased query, into items. Terms of only punctuation are left
// out; unterminated quotes, bad operators and too many terms are errors.
func scan(rs []rune) ([]item, error) {
	var items []item
	terms := 0
	for i := 0; i < len(rs); {
		if isSpace(rs[i]) {
			i++
			continue
		}
		it, next, err := scanItem(rs, i)
		switch {
		case err != nil:
			return nil, err
		case it == nil: // punctuation
		case !it.bar && terms == MaxTerms:
			return nil, errorf(it.pos, "Too many terms: at most %d, and one more starts at position %d.", MaxTerms, it.pos)
		default:
			if !it.bar {
				terms++
			}
			items = append(items, *it)
		}
		i = next
	}
	return items, nil
}

// scanItem scans the item starting at rs[i], returning it (nil for punctuation) and
// where the next one may start.
func scanItem(rs []rune, i int) (*item, int, error) {
	switch {
	case rs[i] == '|':
		return &item{pos: i + 1, bar: true}, i + 1, nil
	case rs[i] == '"':
		return scanPhrase(rs, i, i)
	case rs[i] == '-' && i+1 < len(rs) && rs[i+1] == '"':
		return scanPhrase(rs, i, i+1)
	}
	j := i
	for j < len(rs) && !isSpace(rs[j]) && rs[j] != '|' && rs[j] != '"' {
		j++
	}
	it, err := token(rs[i:j], i+1)
	return it, j, err
}

// scanPhrase scans a phrase starting at rs[start] ('-' or the quote) whose opening
// quote is rs[quote].
func scanPhrase(rs []rune, start, quote int) (*item, int, error) {
	end := slices.Index(rs[quote+1:], '"')
	if end < 0 {
		return nil, 0, errorf(quote+1, "Unterminated quote starting at position %d.", quote+1)
	}
	end += quote + 1
	lx := split(rs[quote+1 : end])
	if len(lx) == 0 {
		return nil, 0, errorf(quote+1, "Put words between the quotes at position %d.", quote+1)
	}
	t := &term{pos: start + 1, neg: start != quote, lexemes: lx}
	return &item{pos: t.pos, term: t}, end + 1, nil
}

// token classifies a run of characters between spaces, bars and quotes, starting at
// position pos: a tag, a URL, an operator or a word. It returns nil for punctuation.
func token(raw []rune, pos int) (*item, error) {
	neg := len(raw) > 1 && raw[0] == '-'
	body, bodyPos := raw, pos
	if neg {
		body, bodyPos = raw[1:], pos+1
	}
	switch s := string(body); {
	case body[0] == '#':
		return tagItem(body, bodyPos, neg)
	case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
		return urlItem(body, pos, neg), nil
	}
	if n := operatorName(body); n > 0 {
		it, err := operatorItem(string(body[:n]), body[n+1:], bodyPos, neg)
		if it != nil || err != nil {
			return it, err
		}
	}
	return termItem(&term{pos: pos, neg: neg, lexemes: split(body)}), nil
}

// termItem returns t as an item, or nil when it has no words.
func termItem(t *term) *item {
	if len(t.lexemes) == 0 {
		return nil
	}
	return &item{pos: t.pos, term: t}
}

// urlItem returns a URL term; a URL without words is punctuation.
func urlItem(body []rune, pos int, neg bool) *item {
	u := strings.TrimRight(string(body), trailingPunct+"*")
	_, rest, _ := strings.Cut(u, "://")
	lx := split([]rune(rest))
	for i := range lx {
		lx[i].prefix = false
	}
	return termItem(&term{pos: pos, neg: neg, lexemes: lx, url: u})
}

// operatorName returns the length of the name of the operator body starts with (letters,
// then letters and hyphens, then ':'), or 0.
func operatorName(body []rune) int {
	n := 0
	for n < len(body) && (unicode.IsLetter(body[n]) || n > 0 && body[n] == '-') {
		n++
	}
	if n == 0 || n == len(body) || body[n] != ':' {
		return 0
	}
	return n
}

// trailingPunct ends sentences: dropped from the end of words and values, so that
// "attention." and "from:ada," work.
const trailingPunct = ".,;:!?"

// split returns the words of rs: runs of letters, digits and marks, joined by single
// hyphens, dots, underscores or apostrophes ("gpt-4", "arxiv.org", "don't"). A word
// directly followed by '*' is a prefix. Everything else separates words.
func split(rs []rune) []lexeme {
	var out []lexeme
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			i++
			continue
		}
		j := i
		for {
			for j < len(rs) && isWordRune(rs[j]) {
				j++
			}
			if j+1 < len(rs) && strings.ContainsRune("-._'", rs[j]) && isWordRune(rs[j+1]) {
				j++
				continue
			}
			break
		}
		out = append(out, lexeme{text: string(rs[i:j]), prefix: j < len(rs) && rs[j] == '*'})
		i = j
	}
	return out
}

// isWordRune reports whether r may make up a word. Marks count so that words in
// scripts with combining vowel signs, or decomposed accents, stay whole.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isSpace reports whether r separates terms; control characters do too, so none
// reaches a lexeme.
func isSpace(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// Package search parses the search box's query language, FreeFeed's search syntax in
// miniature, into a PostgreSQL full-text query and structured filters:
//
//	attention transf*  "exact phrase"  -excluded  a | b  from:ada,bob  in:ml-group
//	commented-by:me  liked-by:ada  #nlp  site:arxiv.org  https://arxiv.org/abs/1706.03762
//
// Terms are ANDed; '|' binds tighter, so "a b | c" is a & (b | c).
package search

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a query.
const (
	MaxBytes  = 500 // of the query as typed, and of it lowercased
	MaxTerms  = 20  // words, phrases, URLs and operators; a comma list is one term
	MaxValues = 10  // distinct values of one operator kind (all from:s, all #tags, ...)
)

// ErrEmpty is returned for a query with nothing to search for: empty, all spaces or all
// punctuation. Callers show "Type something to search for."
var ErrEmpty = errors.New("search: empty query")

// Error is a syntax error in a query, at a position (1-based, in characters).
type Error struct {
	Pos int
	Msg string
}

// Error returns the whole message, already naming the position.
func (e *Error) Error() string { return e.Msg }

// errorf returns an *Error at pos with a formatted message (which names pos too).
func errorf(pos int, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// Query is a parsed search.
type Query struct {
	// TSQuery is the input of to_tsquery('english', ...): every lexeme quoted, so it is
	// well-formed whatever was typed. It is "" when there are no words.
	TSQuery string
	// Words are the positive words, phrase words and prefix stems, lowercased,
	// deduplicated, in order: what results highlight.
	Words []string
	// From, In, CommentedBy and LikedBy are handles and group names, sorted and
	// deduplicated; a post matches any of each. "me" is kept as is: the caller reads
	// it as the viewer.
	From, In, CommentedBy, LikedBy []string
	// Tags are normalized (tributary.NormalizeTags) and sorted; db.Search asks for
	// posts with every one.
	Tags []string
	// Sites are host names, sorted and deduplicated; a post matches any of them.
	Sites []string

	text string // the canonical spelling of the words, phrases and URLs
}

// Parse parses a query typed into the search box. It returns ErrEmpty when there is
// nothing to search for, or an *Error naming the problem and its position.
func Parse(s string) (Query, error) {
	if strings.TrimFunc(s, isSpace) == "" {
		return Query{}, ErrEmpty
	}
	rs, err := lowerRunes(s)
	if err != nil {
		return Query{}, err
	}
	items, err := scan(rs)
	if err != nil {
		return Query{}, err
	}
	groups, fs, err := join(items)
	if err != nil {
		return Query{}, err
	}
	if len(groups) == 0 && len(fs) == 0 {
		return Query{}, ErrEmpty
	}
	if len(fs) == 0 && onlyExclusions(groups) {
		return Query{}, &Error{Pos: groups[0][0].pos, Msg: "Add a word to search for, not only words to leave out."}
	}
	q := Query{TSQuery: tsquery(groups), Words: words(groups), text: spell(groups)}
	if err := q.setFilters(fs); err != nil {
		return Query{}, err
	}
	return q, nil
}

// lowerRunes checks the size and encoding of s and returns it lowercased, rune by rune:
// every operator, word and value is case-insensitive, and positions stay those of s.
func lowerRunes(s string) ([]rune, error) {
	if len(s) > MaxBytes {
		return nil, tooLong(s)
	}
	rs := make([]rune, 0, len(s))
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], string(utf8.RuneError)) {
			pos := len(rs) + 1
			return nil, errorf(pos, "Unreadable character at position %d.", pos)
		}
		rs = append(rs, unicode.ToLower(r))
	}
	// A few letters grow when lowercased; the limit holds for the canonical spelling too.
	if lower := string(rs); len(lower) > MaxBytes {
		return nil, tooLong(lower)
	}
	return rs, nil
}

// tooLong reports the position of the character of s that goes past MaxBytes.
func tooLong(s string) *Error {
	pos := 1
	for i := 0; i < len(s); pos++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		if i += size; i > MaxBytes {
			break
		}
	}
	return errorf(pos, "The search is too long: at most %d bytes, and it goes past them at position %d.", MaxBytes, pos)
}

// onlyExclusions reports whether every term of groups is excluded.
func onlyExclusions(groups [][]term) bool {
	for _, g := range groups {
		for _, t := range g {
			if !t.neg {
				return false
			}
		}
	}
	return true
}

// Canonical spells the whole query (as Parse made it) the same however it was spaced,
// cased or ordered: a cache key and a fence name. It parses back to an equal Query, and
// is never longer than the query it was parsed from (lowercased), so it stays within
// the limits. Phrases are spelled with '/' between their words: "a b" as a/b.
func (q Query) Canonical() string {
	var parts []string
	if q.text != "" {
		parts = append(parts, q.text)
	}
	for _, op := range operators {
		if vs := *q.values(op); len(vs) > 0 {
			parts = append(parts, op+":"+strings.Join(vs, ","))
		}
	}
	for _, t := range q.Tags {
		parts = append(parts, "#"+t)
	}
	return strings.Join(parts, " ")
}

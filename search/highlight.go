package search

import (
	"strings"
	"unicode/utf8"
)

// Piece is a piece of a highlighted text.
type Piece struct {
	Text string
	Hit  bool
}

// Highlight splits text into pieces, marking those that match one of words: a token
// (maximal run of letters, digits and marks) matches a word when, lowercased, it starts with the
// word, or the word starts with it and it has at least 4 characters (so "models" marks
// "model" and "model" marks "models"). Used to highlight matches in results.
//
// Words are compared by their own letter/digit runs, so "gpt-4" marks "GPT" and "4".
// Adjacent pieces with the same Hit are merged; their texts concatenate to text.
func Highlight(text string, words []string) []Piece {
	var parts []string
	for _, w := range words {
		parts = append(parts, strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return !isWordRune(r) })...)
	}
	var pieces []Piece
	start, hit := 0, false
	for i := 0; i < len(text); {
		j, word := i, false
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if j > i && isWordRune(r) != word {
				break
			}
			word = isWordRune(r)
			j += size
		}
		h := word && matches(strings.ToLower(text[i:j]), parts)
		if i > 0 && h != hit {
			pieces = append(pieces, Piece{Text: text[start:i], Hit: hit})
			start = i
		}
		hit, i = h, j
	}
	if len(text) > 0 {
		pieces = append(pieces, Piece{Text: text[start:], Hit: hit})
	}
	return pieces
}

// matches reports whether token matches one of words (see Highlight). A word ending in
// "e" also marks the tokens that go on from the rest, when that has 4 characters or more,
// as the english stemmer finds them ("scale" marks "scaling", "compute" "computation"; "note"
// does not mark "nothing").
func matches(token string, words []string) bool {
	for _, w := range words {
		if strings.HasPrefix(token, w) || strings.HasPrefix(w, token) && utf8.RuneCountInString(token) >= 4 {
			return true
		}
		if root, ok := strings.CutSuffix(w, "e"); ok && utf8.RuneCountInString(root) >= 4 && strings.HasPrefix(token, root) {
			return true
		}
	}
	return false
}

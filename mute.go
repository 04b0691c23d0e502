package tributary

import (
	"slices"
	"strings"

	"unicode/utf8"
)

// Hide and mute: a reader's own choices of what leaves their feeds (every read path applies
// them: ranked and chronological feeds, filter feeds, their JSON).

// Mute is a word or phrase a reader muted: cards containing it leave their feeds, or show
// collapsed behind "show anyway" (Collapse).
type Mute struct {
	Word     string `json:"word"` // lower-cased
	Collapse bool   `json:"collapse"`
}

// Limits of muting.
const (
	MuteMaxLen = 60
	MaxMutes   = 100
)

// CleanMute checks a word or phrase to mute and lower-cases it; errors are user-safe.
func CleanMute(word string) (string, error) {
	w := strings.ToLower(strings.Join(strings.Fields(word), " "))
	w = strings.TrimPrefix(w, "#")
	switch {
	case w == "":
		return "", FieldErrorf("word", "Type a word or phrase to mute.")
	case utf8.RuneCountInString(w) > MuteMaxLen:
		return "", FieldErrorf("word", "A muted word or phrase must be at most %d characters long.", MuteMaxLen)
	case !strings.ContainsFunc(w, wordRune):
		return "", FieldErrorf("word", "A muted word must have a letter or a digit in it.")
	}
	return w, nil
}

// HidesItem reports whether the viewer hid the item (anchor).
func (v Viewer) HidesItem(anchor int64) bool {
	_, ok := slices.BinarySearch(v.Hidden, anchor)
	return ok
}

// Muted finds the first of the viewer's muted words in the texts (as a whole word or
// phrase, ignoring case; a tag counts as its word), and whether it hides or collapses.
func (v Viewer) Muted(texts ...string) (Mute, bool) {
	if len(v.Mutes) == 0 {
		return Mute{}, false
	}
	for _, t := range texts {
		lt := strings.ToLower(t)
		for _, m := range v.Mutes {
			if containsWord(lt, m.Word) {
				return m, true
			}
		}
	}
	return Mute{}, false
}

// containsWord reports whether word occurs in text between non-word runes.
func containsWord(text, word string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !wordRune(before) || !wordRune(firstRune(word))) &&
			(end == len(text) || !wordRune(after) || !wordRune(lastRune(word))) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		i = start + size
	}
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

package search

import "strings"

// join groups items into terms joined by '|' (each group ANDed with the others) and
// collects the operators' values. A '|' needs a term, not an operator, on each side.
func join(items []item) ([][]term, []filter, error) {
	var groups [][]term
	var fs []filter
	for i, it := range items {
		switch {
		case it.bar:
			if err := checkBar(items, i); err != nil {
				return nil, nil, err
			}
		case it.isOperator():
			fs = append(fs, it.filters...)
		case i > 0 && items[i-1].bar:
			groups[len(groups)-1] = append(groups[len(groups)-1], *it.term)
		default:
			groups = append(groups, []term{*it.term})
		}
	}
	return groups, fs, nil
}

// checkBar reports a '|' at items[i] that does not join two terms.
func checkBar(items []item, i int) error {
	pos := items[i].pos
	before, after := i > 0 && !items[i-1].bar, i+1 < len(items) && !items[i+1].bar
	if before && items[i-1].isOperator() || after && items[i+1].isOperator() {
		return errorf(pos, "'|' at position %d can join words and phrases, not operators.", pos)
	}
	if !before || !after {
		return errorf(pos, "'|' at position %d needs a word or phrase on each side.", pos)
	}
	return nil
}

// tsquery spells groups for to_tsquery: groups joined by '&', each a parenthesized
// '|' of its terms when it has more than one.
func tsquery(groups [][]term) string {
	ands := make([]string, len(groups))
	for i, g := range groups {
		ors := make([]string, len(g))
		for j, t := range g {
			ors[j] = t.tsquery()
		}
		ands[i] = strings.Join(ors, " | ")
		if len(g) > 1 {
			ands[i] = "(" + ands[i] + ")"
		}
	}
	return strings.Join(ands, " & ")
}

// tsquery spells t for to_tsquery: a phrase's words joined by '<->', parenthesized when
// excluded since '!' binds tighter.
func (t term) tsquery() string {
	s := quote(t.url)
	if t.url == "" {
		ls := make([]string, len(t.lexemes))
		for i, l := range t.lexemes {
			ls[i] = quote(l.text)
			if l.prefix {
				ls[i] += ":*"
			}
		}
		s = strings.Join(ls, " <-> ")
		if t.neg && len(ls) > 1 {
			s = "(" + s + ")"
		}
	}
	if t.neg {
		s = "!" + s
	}
	return s
}

// quote quotes a lexeme for to_tsquery, which inside quotes reads a doubled quote as
// one and a backslash as escaping the next character.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// spell spells groups in the query language, as compactly as it reads back: terms
// separated by spaces, '|' without them.
func spell(groups [][]term) string {
	ands := make([]string, len(groups))
	for i, g := range groups {
		ors := make([]string, len(g))
		for j, t := range g {
			ors[j] = t.spell()
		}
		ands[i] = strings.Join(ors, "|")
	}
	return strings.Join(ands, " ")
}

// spell spells t in the query language. A phrase's words are joined by '/' rather
// than quoted, which reads back the same and is never longer than what was typed
// ("a/b" may have been typed so), keeping Canonical within MaxBytes.
func (t term) spell() string {
	var b strings.Builder
	if t.neg {
		b.WriteByte('-')
	}
	if t.url != "" {
		b.WriteString(t.url)
		return b.String()
	}
	for i, l := range t.lexemes {
		b.WriteString(l.text)
		switch {
		case l.prefix:
			b.WriteByte('*') // separates words too
		case i < len(t.lexemes)-1:
			b.WriteByte('/')
		}
	}
	return b.String()
}

// words returns the words of the terms that are not excluded, once each, in order.
func words(groups [][]term) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range groups {
		for _, t := range g {
			for _, l := range t.lexemes {
				if !t.neg && !seen[l.text] {
					seen[l.text] = true
					out = append(out, l.text)
				}
			}
		}
	}
	return out
}

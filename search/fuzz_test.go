package search

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Parse answers any input with a query whose TSQuery PostgreSQL accepts and whose
// Canonical reads back the same, or with an *Error at a position inside the input (or
// just after it), or ErrEmpty; never a panic.
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			var e *Error
			switch {
			case errors.Is(err, ErrEmpty):
			case !errors.As(err, &e):
				t.Fatalf("Parse(%q): %T %v, want an *Error or ErrEmpty", s, err, err)
			case e.Pos < 1 || e.Pos > utf8.RuneCountInString(s)+1:
				t.Fatalf("Parse(%q): %q at position %d, outside the input", s, e.Msg, e.Pos)
			case !strings.Contains(e.Msg, fmt.Sprint(e.Pos)) && !strings.HasPrefix(e.Msg, "Add a word"):
				t.Fatalf("Parse(%q): %q does not name position %d", s, e.Msg, e.Pos)
			}
			return
		}
		if err := checkTSQuery(q.TSQuery); err != nil {
			t.Fatalf("Parse(%q).TSQuery = %q: %v", s, q.TSQuery, err)
		}
		if q.TSQuery == "" && len(q.From)+len(q.In)+len(q.CommentedBy)+len(q.LikedBy)+len(q.Tags)+len(q.Sites) == 0 {
			t.Fatalf("Parse(%q) = %+v: nothing to search for, not ErrEmpty", s, q)
		}
		canon := q.Canonical()
		if len(canon) > len(strings.ToLower(s)) {
			t.Fatalf("Parse(%q).Canonical() = %q, longer than the query", s, canon)
		}
		if back, err := Parse(canon); err != nil || !reflect.DeepEqual(back, q) {
			t.Fatalf("Parse(%q).Canonical() = %q, which parses as %#v, %v; want %#v", s, canon, back, err, q)
		}
		var b strings.Builder
		for _, p := range Highlight(s, q.Words) {
			b.WriteString(p.Text)
		}
		if b.String() != s {
			t.Fatalf("Highlight(%q) pieces make %q", s, b.String())
		}
	})
}

// checkTSQuery reports why s is not a well-formed input of to_tsquery: operands are
// quoted, non-empty lexemes without spaces (perhaps followed by ":*"), '!' precedes an
// operand, '&', '|' and '<->' join two, parentheses balance, and nothing else appears.
// "" is well-formed (no words).
func checkTSQuery(s string) error {
	if s == "" {
		return nil
	}
	toks, err := tsTokens(s)
	if err != nil {
		return err
	}
	c := &tsChecker{toks: toks}
	if err := c.expr(); err != nil {
		return err
	}
	if c.i < len(toks) {
		return fmt.Errorf("stray %q", toks[c.i])
	}
	return nil
}

// tsTokens splits a tsquery into "'lexeme'" (with any ":*"), "&", "|", "!", "<->", "(",
// and ")".
func tsTokens(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ':
			i++
		case strings.HasPrefix(s[i:], "<->"):
			toks = append(toks, "<->")
			i += 3
		case strings.ContainsRune("&|!()", rune(s[i])):
			toks = append(toks, s[i:i+1])
			i++
		case s[i] == '\'':
			n, err := lexemeLen(s[i:])
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(s[i+n:], ":*") {
				n += 2
			}
			toks = append(toks, s[i:i+n])
			i += n
		default:
			return nil, fmt.Errorf("stray %q at byte %d", s[i], i)
		}
	}
	return toks, nil
}

// lexemeLen returns the length of the quoted lexeme s starts with, checking its text.
func lexemeLen(s string) (int, error) {
	var text strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			text.WriteByte(s[i])
		case s[i] == '\\':
			return 0, fmt.Errorf("a backslash ends %q", s)
		case s[i] == '\'' && strings.HasPrefix(s[i+1:], "'"):
			i++
			text.WriteByte('\'')
		case s[i] == '\'':
			if t := text.String(); t == "" || strings.ContainsFunc(t, unicode.IsSpace) || !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
				return 0, fmt.Errorf("bad lexeme %q", t)
			}
			return i + 1, nil
		default:
			text.WriteByte(s[i])
		}
	}
	return 0, fmt.Errorf("unterminated lexeme in %q", s)
}

// A tsChecker parses tsquery tokens: expr = unary {("&" | "|" | "<->") unary};
// unary = "!" unary | "(" expr ")" | lexeme.
type tsChecker struct {
	toks []string
	i    int
}

func (c *tsChecker) expr() error {
	if err := c.unary(); err != nil {
		return err
	}
	for c.i < len(c.toks) && (c.toks[c.i] == "&" || c.toks[c.i] == "|" || c.toks[c.i] == "<->") {
		c.i++
		if err := c.unary(); err != nil {
			return err
		}
	}
	return nil
}

func (c *tsChecker) unary() error {
	if c.i == len(c.toks) {
		return errors.New("missing operand at the end")
	}
	switch tok := c.toks[c.i]; {
	case tok == "!":
		c.i++
		return c.unary()
	case tok == "(":
		c.i++
		if err := c.expr(); err != nil {
			return err
		}
		if c.i == len(c.toks) || c.toks[c.i] != ")" {
			return errors.New("unbalanced '('")
		}
		c.i++
		return nil
	case tok[0] == '\'':
		c.i++
		return nil
	default:
		return fmt.Errorf("%q where an operand belongs", tok)
	}
}

func TestCheckTSQuery(t *testing.T) {
	for s, ok := range map[string]bool{
		"": true, "'a'": true, "'a':* & !('b' <-> 'c') | ('d')": true, `'it''s' & 'a\\b'`: true,
		"a": false, "''": false, "'a' &": false, "& 'a'": false, "('a'": false, "'a')": false, "'a' 'b'": false,
		"'a": false, "'a b'": false, "'a':": false, "!": false, "'a' <- 'b'": false, `'a\'`: false,
	} {
		if err := checkTSQuery(s); (err == nil) != ok {
			t.Errorf("checkTSQuery(%q) = %v, want ok %v", s, err, ok)
		}
	}
}

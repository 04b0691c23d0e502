package tributary

import (
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Conversations (seed 003): likes and comments attach to a post, so a viewer sees them
// exactly when they may read the post, less those by people in a ban with the viewer.

// Comment is one comment of a thread.
type Comment struct {
	ID        int64      `json:"id"`
	PostID    int64      `json:"post_id"`
	Body      string     `json:"body"`
	Author    UserRef    `json:"author"`
	CreatedAt time.Time  `json:"created_at"`
	EditedAt  *time.Time `json:"edited_at,omitempty"`
}

// Talk is what a card shows of a conversation, as one viewer sees it: the counts, whether
// the viewer liked it, and the newest few other likers.
type Talk struct {
	Likes    int       `json:"like_count"`
	Comments int       `json:"comment_count"`
	Liked    bool      `json:"liked"`
	Likers   []UserRef `json:"likers"`
	// LikedPost is the share of an item the viewer liked (0: none), what "Unlike" takes back.
	LikedPost int64 `json:"-"`
}

// OtherLikers is how many likers a card counts without naming them.
func (t Talk) OtherLikers() int {
	n := t.Likes - len(t.Likers)
	if t.Liked {
		n--
	}
	return max(n, 0)
}

// CommentMaxLen is the longest comment, in characters.
const CommentMaxLen = 3000

// CleanComment trims a comment and checks it: not empty, not too long.
func CleanComment(body string) (string, error) {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	switch n := utf8.RuneCountInString(body); {
	case n == 0:
		return "", FieldErrorf("body", "Write something to comment.")
	case n > CommentMaxLen:
		return "", FieldErrorf("body", "A comment can be at most %d characters long (this one has %d).", CommentMaxLen, n)
	}
	return body, nil
}

// BumpRule says when a new comment bumps its post to the top of every feed holding it (seed
// 003): while the post is younger than MaxAge, or when it got more than Comments comments in
// the last Window (the new one included). A like never bumps.
type BumpRule struct {
	MaxAge   time.Duration
	Window   time.Duration
	Comments int
}

// DefaultBumpRule is seed 003's: a day, or more than 2 comments in the last day.
var DefaultBumpRule = BumpRule{MaxAge: 24 * time.Hour, Window: 24 * time.Hour, Comments: 2}

// Bumps reports whether a comment made at now bumps a post made at created that has recent
// comments in the window ending at now, that comment included.
func (r BumpRule) Bumps(created, now time.Time, recent int) bool {
	return now.Sub(created) < r.MaxAge || recent > r.Comments
}

// Segment is a run of text, a link when Href is set: a post's, comment's or bio's text with
// its @mentions, #tags and web addresses made links (External: a web address).
type Segment struct {
	Text     string
	Href     string
	External bool
}

// Linkify splits text into plain runs, @handle mentions (linking the user's page), #tag
// tags (linking the tag's feed) and http(s) addresses (linking themselves). A mention, tag or
// address starts a word; "a@b.c" and "x#1" stay text, and an address's '#' or '@' is its own.
func Linkify(text string) []Segment {
	var out []Segment
	plain := 0
	for i := 0; i < len(text); {
		c := text[i]
		if (c == 'h' || c == 'H') && (i == 0 || !wordRune(lastRune(text[:i]))) {
			if n := webAddress(text[i:]); n > 0 {
				if plain < i {
					out = append(out, Segment{Text: text[plain:i]})
				}
				out = append(out, Segment{Text: text[i : i+n], Href: text[i : i+n], External: true})
				plain, i = i+n, i+n
				continue
			}
		}
		if (c == '@' || c == '#') && (i == 0 || !wordRune(lastRune(text[:i]))) {
			word := i + 1
			for word < len(text) {
				r, size := utf8.DecodeRuneInString(text[word:])
				if !tokenRune(r, c) {
					break
				}
				word += size
			}
			// A trailing '-' or '_' is punctuation ("see @ada_"): not part of the token.
			for word > i+1 && (text[word-1] == '-' || text[word-1] == '_') {
				word--
			}
			if tok := text[i+1 : word]; tok != "" {
				href := ""
				if c == '@' && ValidateHandle(tok) == nil {
					href = "/u/" + tok
				} else if c == '#' {
					if tags, err := NormalizeTags([]string{tok}); err == nil && len(tags) == 1 {
						href = "/t/" + tags[0]
					}
				}
				if href != "" {
					if plain < i {
						out = append(out, Segment{Text: text[plain:i]})
					}
					out = append(out, Segment{Text: text[i:word], Href: href})
					plain, i = word, word
					continue
				}
			}
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	if plain < len(text) {
		out = append(out, Segment{Text: text[plain:]})
	}
	return out
}

// webAddress is the length of the http(s) address s starts with (0: none): up to a space or
// a character no address holds unescaped, less trailing punctuation ("see https://x.org/a.")
// and a closing parenthesis the address did not open.
func webAddress(s string) int {
	lower := strings.ToLower(s[:min(len(s), 8)])
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
		return 0
	}
	n := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(`<>"`+"`", r) })
	if n < 0 {
		n = len(s)
	}
	for n > 0 {
		last := s[n-1]
		if strings.IndexByte(".,;:!?'*", last) >= 0 || last == ')' && strings.Count(s[:n], "(") < strings.Count(s[:n], ")") {
			n--
			continue
		}
		break
	}
	u, err := url.Parse(s[:n])
	if err != nil || u.Host == "" || u.User != nil {
		return 0
	}
	return n
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// tokenRune: handles are ASCII letters, digits, '_' and '-'; tags any letters and digits.
func tokenRune(r rune, kind byte) bool {
	if kind == '@' {
		return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-'
}

// Mentions lists the handles a text mentions, in order, once each (lower-cased): the users
// its @mentions link, whose mentions feeds it goes to.
func Mentions(text string) []string { return linked(text, "/u/") }

// Tags lists the tags a text's #tags name, in order, once each (normalized): the tag feeds
// it goes to.
func Tags(text string) []string { return linked(text, "/t/") }

func linked(text, prefix string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range Linkify(text) {
		if v, ok := strings.CutPrefix(s.Href, prefix); ok && !seen[strings.ToLower(v)] {
			seen[strings.ToLower(v)] = true
			out = append(out, strings.ToLower(v))
		}
	}
	return out
}

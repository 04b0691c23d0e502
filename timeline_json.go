package tributary

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the timeline as encoding/json would marshal it, byte for byte (the
// struct tags above are the schema; TestTimelineAppendJSON holds the two equal on random
// timelines), without reflection: encoding/json took a quarter of the server's CPU on a next
// page of the JSON API.
func (t Timeline) AppendJSON(b []byte) ([]byte, error) {
	b, err := appendJSONArray(append(b, `{"items":`...), t.Items, (*Item).appendJSON)
	if err != nil {
		return nil, err
	}
	b = appendPageFields(b, t.NextCursor, t.Path, t.Fencepost, t.Refreshed)
	if len(t.Popular) > 0 {
		if b, err = appendJSONArray(appendField(b, "popular"), t.Popular, (*Item).appendJSON); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// AppendJSON appends the page as encoding/json would marshal it, byte for byte, as
// Timeline.AppendJSON does (TestPostListAppendJSON holds the two equal).
func (l PostList) AppendJSON(b []byte) ([]byte, error) {
	b, err := appendJSONArray(append(b, `{"posts":`...), l.Posts, (*Post).appendJSON)
	if err != nil {
		return nil, err
	}
	return append(appendPageFields(b, l.NextCursor, l.Path, l.Fencepost, l.Refreshed), '}'), nil
}

// appendJSONArray writes xs as a JSON array (null when nil), each element by each.
func appendJSONArray[E any](b []byte, xs []E, each func(*E, []byte) ([]byte, error)) ([]byte, error) {
	if xs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = each(&xs[i], b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendPageFields writes the fields every page's envelope has after its list.
func appendPageFields(b []byte, next, path, fencepost string, refreshed bool) []byte {
	b = appendField(b, "next_cursor")
	b = appendJSONString(b, next)
	b = appendField(b, "path")
	b = appendJSONString(b, path)
	b = appendField(b, "fencepost")
	b = appendJSONString(b, fencepost)
	if refreshed {
		b = append(b, `,"refreshed":true`...)
	}
	return b
}

func (p *Post) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	b = appendField(b, "item_id")
	b = strconv.AppendInt(b, p.AnchorID, 10)
	for _, f := range [...]struct{ name, value string }{{"url", p.URL}, {"title", p.Title}, {"body", p.Body},
		{"canonical_url", p.CanonicalURL}, {"anchor_url", p.AnchorURL}, {"kind", string(p.Kind)}, {"host", p.Host}} {
		b = appendField(b, f.name)
		b = appendJSONString(b, f.value)
	}
	b = appendField(b, "links")
	if p.Links == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, l := range p.Links {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"url":`...)
			b = appendJSONString(b, l.URL)
			if l.Image != "" {
				b = appendField(b, "image")
				b = appendJSONString(b, l.Image)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	var err error
	if b, err = appendCard(b, p.Card); err != nil {
		return nil, err
	}
	b = appendField(b, "image_count")
	b = strconv.AppendInt(b, int64(p.ImageCount), 10)
	b = appendField(b, "tags")
	b = appendJSONStrings(b, p.Tags)
	b = appendField(b, "created_at")
	if b, err = appendJSONTime(b, p.CreatedAt); err != nil {
		return nil, err
	}
	b = appendField(b, "author")
	b = p.Author.appendJSON(b)
	b = appendField(b, "talk")
	b = p.Talk.appendJSON(b)
	if p.Audience != nil { // rare: encoding/json writes it
		a, err := json.Marshal(p.Audience)
		if err != nil {
			return nil, err
		}
		b = append(appendField(b, "audience"), a...)
	}
	if p.Muted != "" {
		b = appendField(b, "muted")
		b = appendJSONString(b, p.Muted)
	}
	if p.EditedAt != nil {
		b = appendField(b, "edited_at")
		if b, err = appendJSONTime(b, *p.EditedAt); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (it *Item) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, it.ID, 10)
	for _, f := range [...]struct{ name, value string }{{"url", it.URL}, {"canonical_url", it.CanonicalURL},
		{"anchor_url", it.AnchorURL}, {"title", it.Title}, {"excerpt", it.Excerpt}, {"kind", string(it.Kind)}, {"host", it.Host}} {
		b = appendField(b, f.name)
		b = appendJSONString(b, f.value)
	}
	var err error
	b = appendField(b, "date")
	if b, err = appendJSONTime(b, it.Date); err != nil {
		return nil, err
	}
	b = appendField(b, "score")
	if b, err = appendJSONFloat(b, it.Score); err != nil {
		return nil, err
	}
	b = appendField(b, "score_parts")
	p := it.ScoreParts
	for i, f := range [...]struct {
		name  string
		value float64
	}{{"sci", p.Sci}, {"recency", p.Recency}, {"followee_share", p.FolloweeShare}, {"total_share", p.TotalShare},
		{"vip", p.VIP}, {"notability", p.Notability}, {"rich_post", p.RichPost}, {"fresh_self", p.FreshSelf}, {"total", p.Total}} {
		if i == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.name)
		b = append(b, ':')
		if b, err = appendJSONFloat(b, f.value); err != nil {
			return nil, err
		}
	}
	b = append(b, '}')
	b = appendField(b, "primary_user")
	b = it.PrimaryUser.appendJSON(b)
	b = appendField(b, "sharers")
	if it.Sharers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range it.Sharers {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.UserRef.appendFields(append(b, '{'))
			b = appendField(b, "at")
			if b, err = appendJSONTime(b, s.At); err != nil {
				return nil, err
			}
			if s.Followed {
				b = append(b, `,"followed":true`...)
			}
			if s.Self {
				b = append(b, `,"self":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendField(b, "share_count")
	b = strconv.AppendInt(b, int64(it.ShareCount), 10)
	b = appendField(b, "already_seen")
	b = strconv.AppendBool(b, it.AlreadySeen)
	b = appendField(b, "images")
	b = appendJSONStrings(b, it.Images)
	b = appendField(b, "tags")
	b = appendJSONStrings(b, it.Tags)
	b = appendField(b, "rep_post_id")
	b = strconv.AppendInt(b, it.RepPostID, 10)
	b = appendField(b, "talk")
	b = it.Talk.appendJSON(b)
	if it.Muted != "" {
		b = appendField(b, "muted")
		b = appendJSONString(b, it.Muted)
	}
	if a := it.Activity; a != nil {
		b = append(b, `,"activity":{"user":`...)
		b = a.User.appendJSON(b)
		b = appendField(b, "commented")
		b = strconv.AppendBool(b, a.Commented)
		b = appendField(b, "at")
		if b, err = appendJSONTime(b, a.At); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	if it.Group != "" {
		b = appendField(b, "group")
		b = appendJSONString(b, it.Group)
	}
	if b, err = appendCard(b, it.Card); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func (t Talk) appendJSON(b []byte) []byte {
	b = append(b, `{"like_count":`...)
	b = strconv.AppendInt(b, int64(t.Likes), 10)
	b = appendField(b, "comment_count")
	b = strconv.AppendInt(b, int64(t.Comments), 10)
	b = appendField(b, "liked")
	b = strconv.AppendBool(b, t.Liked)
	b = appendField(b, "likers")
	if t.Likers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, u := range t.Likers {
			if i > 0 {
				b = append(b, ',')
			}
			b = u.appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (u UserRef) appendJSON(b []byte) []byte { return append(u.appendFields(append(b, '{')), '}') }

// appendFields writes the user's fields, without braces: a Sharer's object goes on after them.
func (u UserRef) appendFields(b []byte) []byte {
	b = append(b, `"id":`...)
	b = strconv.AppendInt(b, u.ID, 10)
	b = appendField(b, "handle")
	b = appendJSONString(b, u.Handle)
	b = appendField(b, "name")
	b = appendJSONString(b, u.Name)
	b = appendField(b, "vip")
	b = strconv.AppendBool(b, u.VIP)
	if u.Avatar != "" {
		b = appendField(b, "avatar")
		b = appendJSONString(b, u.Avatar)
	}
	return b
}

// appendField starts a field after an earlier one: `,"name":`.
func appendField(b []byte, name string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// jsonSafe marks the ASCII bytes a JSON string holds as they are: not a control character, a
// quote, a backslash, or one of HTML's <, > and &.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

// appendJSONString quotes s as encoding/json does by default: safe to embed in HTML (<, >
// and & escaped), U+2028 and U+2029 escaped for JavaScript, invalid UTF-8 replaced by
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat writes f as encoding/json does: the shortest form that reads back the
// same, in exponent form only for very small or large magnitudes.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("json: unsupported value: %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 -> e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// The Unix times a day after the first instant of year 0 and a day before the last of year
// 9999 (UTC).
const (
	minJSONUnix = -62167219200 + 86400
	maxJSONUnix = 253402300799 - 86400
)

// appendJSONTime writes t as time.Time's MarshalJSON does (RFC 3339 with the nanoseconds
// it has), refusing the years RFC 3339 cannot spell.
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	// A day inside the range is inside it in every zone: the year need not be computed.
	if u := t.Unix(); u < minJSONUnix || u > maxJSONUnix {
		if y := t.Year(); y < 0 || y > 9999 {
			return nil, fmt.Errorf("json: time %v: year outside of range [0,9999]", t)
		}
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// appendCard appends a link card's field, when there is a card, as encoding/json would write
// it (empty fields left out): a page of cards pays no reflection.
func appendCard(b []byte, c *LinkCard) ([]byte, error) {
	if c == nil {
		return b, nil
	}
	b = append(appendField(b, "card"), '{')
	start := len(b)
	field := func(name string) {
		if len(b) > start {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), name...), '"', ':')
	}
	for _, f := range [...]struct{ name, value string }{{"kind", c.Kind}, {"title", c.Title},
		{"description", c.Description}, {"site", c.Site}, {"canonical_url", c.Canonical}, {"image", c.Image},
		{"image_alt", c.ImageAlt}} {
		if f.value != "" {
			field(f.name)
			b = appendJSONString(b, f.value)
		}
	}
	if len(c.Authors) > 0 {
		field("authors")
		b = appendJSONStrings(b, c.Authors)
	}
	if c.Abstract != "" {
		field("abstract")
		b = appendJSONString(b, c.Abstract)
	}
	if !c.Published.IsZero() {
		field("published")
		var err error
		if b, err = appendJSONTime(b, c.Published); err != nil {
			return nil, err
		}
	}
	if c.Lang != "" {
		field("lang")
		b = appendJSONString(b, c.Lang)
	}
	return append(b, '}'), nil
}

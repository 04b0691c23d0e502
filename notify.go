package tributary

import (
	"strconv"
	"strings"
	"time"
)

// Notifications (issue 46): what happened to a user. The rules of who is told and how rows
// group live in SQL beside the rows (migrations 00039); these are the types pages show.

// NotificationPageSize is how many lines /notifications shows at once.
const NotificationPageSize = 30

// NotificationPolicies are who a user hears of a kind of event from.
var NotificationPolicies = []string{"everyone", "following", "nobody"}

// NotificationKinds are the kinds of event a policy covers: likes, comments (and replies in
// threads), mentions, follows (and follow requests).
var NotificationKinds = []string{"like", "comment", "mention", "follow"}

// Notification is one line of a user's list: a group of rows (likes of a post in one hour,
// follows in one hour) or one row that never groups.
type Notification struct {
	ID        int64     `json:"id"`                   // the line's newest row: opening it opens the line
	Type      string    `json:"type"`                 // like, comment, reply, mention, follow, follow_request, follow_approved, join_request, join_approved
	Actors    []string  `json:"actors"`               // handles, newest first, at most three
	Count     int       `json:"count"`                // rows in the line: Count-len(Actors) are "others"
	PostID    int64     `json:"post_id,omitempty"`    // 0: none
	PostTitle string    `json:"post_title,omitempty"` // the post's title, or its first words ("": no post)
	Comment   string    `json:"comment,omitempty"`    // the first lines of the comment the line is about ("": none)
	Group     string    `json:"group,omitempty"`      // a group's name for join requests and approvals
	CreatedAt time.Time `json:"created_at"`
	Unread    bool      `json:"unread"`
}

// NotificationCursor is where a page of the list starts: before the line at (At, ID).
type NotificationCursor struct {
	At time.Time
	ID int64
}

// IsZero says the cursor is the list's start.
func (c NotificationCursor) IsZero() bool { return c.ID == 0 }

// String spells the cursor for a URL: "<unix microseconds>.<id>" ("" for the start).
func (c NotificationCursor) String() string {
	if c.IsZero() {
		return ""
	}
	return strconv.FormatInt(c.At.UnixMicro(), 10) + "." + strconv.FormatInt(c.ID, 10)
}

// ParseNotificationCursor reads String's spelling; "" is the start.
func ParseNotificationCursor(s string) (NotificationCursor, error) {
	if s == "" {
		return NotificationCursor{}, nil
	}
	at, id, ok := strings.Cut(s, ".")
	us, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n <= 0 {
		return NotificationCursor{}, Errorf(EInvalid, "Parameter 'cursor' must be a notifications cursor.")
	}
	return NotificationCursor{At: time.UnixMicro(us).UTC(), ID: n}, nil
}

// NotificationPage is a page of lines and where the next starts (zero: this is the last).
type NotificationPage struct {
	Lines []Notification
	Next  NotificationCursor
}

// AppendJSON appends the page as GET /api/notifications answers it, {"notifications": [...],
// "next_cursor": "..."}, byte for byte as encoding/json would marshal the lines (their struct
// tags are the schema; TestNotificationPageAppendJSON holds the two equal), without
// reflection, as Timeline.AppendJSON does. No lines are [].
func (p NotificationPage) AppendJSON(b []byte) ([]byte, error) {
	lines := p.Lines
	if lines == nil {
		lines = []Notification{}
	}
	b, err := appendJSONArray(append(b, `{"notifications":`...), lines, (*Notification).appendJSON)
	if err != nil {
		return nil, err
	}
	b = appendJSONString(appendField(b, "next_cursor"), p.Next.String())
	return append(b, '}'), nil
}

func (n *Notification) appendJSON(b []byte) ([]byte, error) {
	b = strconv.AppendInt(append(b, `{"id":`...), n.ID, 10)
	b = appendJSONString(appendField(b, "type"), n.Type)
	b = appendJSONStrings(appendField(b, "actors"), n.Actors)
	b = strconv.AppendInt(appendField(b, "count"), int64(n.Count), 10)
	if n.PostID != 0 {
		b = strconv.AppendInt(appendField(b, "post_id"), n.PostID, 10)
	}
	if n.PostTitle != "" {
		b = appendJSONString(appendField(b, "post_title"), n.PostTitle)
	}
	if n.Comment != "" {
		b = appendJSONString(appendField(b, "comment"), n.Comment)
	}
	if n.Group != "" {
		b = appendJSONString(appendField(b, "group"), n.Group)
	}
	b, err := appendJSONTime(appendField(b, "created_at"), n.CreatedAt)
	if err != nil {
		return nil, err
	}
	b = strconv.AppendBool(appendField(b, "unread"), n.Unread)
	return append(b, '}'), nil
}

// NotificationSettings are a user's choices: grouping, and a policy per kind.
type NotificationSettings struct {
	Grouping bool
	Policy   map[string]string // kind -> everyone, following or nobody
}

// Summary says a line in words, without its subject: "ada, bob and 3 others liked your post".
func (n Notification) Summary() string {
	who := strings.Join(prefixed(n.Actors), ", ")
	if len(n.Actors) > 1 {
		last := len(n.Actors) - 1
		who = strings.Join(prefixed(n.Actors[:last]), ", ") + " and @" + n.Actors[last]
	}
	if others := n.Count - len(n.Actors); others > 0 {
		who = strings.Join(prefixed(n.Actors), ", ") + " and " + strconv.Itoa(others) + " other"
		if others > 1 {
			who += "s"
		}
	}
	what := map[string]string{
		"like": "liked your post", "comment": "commented on your post", "reply": "replied in a thread you commented on",
		"mention": "mentioned you", "follow": "followed you", "follow_request": "asked to follow you",
		"follow_approved": "approved your follow request", "join_request": "asked to join " + n.Group,
		"join_approved": "approved your joining " + n.Group,
	}[n.Type]
	return who + " " + what
}

func prefixed(handles []string) []string {
	out := make([]string, len(handles))
	for i, h := range handles {
		out[i] = "@" + h
	}
	return out
}

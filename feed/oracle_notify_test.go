package feed_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// The notifications' oracle: over random worlds (bans both ways, private and protected
// feeds, groups, deletions), what was stored follows the write rules (nothing from someone
// in a ban), and every recipient's list is exactly the stored rows they may see now, grouped,
// with counts that agree with it.

// storedNotification is a notifications row as the test reads it raw.
type storedNotification struct {
	id, recipient, actor, post, comment int64
	typ, key                            string
	at                                  time.Time
}

func storedNotifications(t *testing.T, ctx context.Context, store *db.Store) []storedNotification {
	t.Helper()
	rows, err := store.Pool.Query(ctx, `SELECT id, recipient_id, actor_id, coalesce(post_id, 0), coalesce(comment_id, 0), type,
		coalesce(group_key, ''), created_at FROM notifications ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storedNotification
	for rows.Next() {
		var n storedNotification
		if err := rows.Scan(&n.id, &n.recipient, &n.actor, &n.post, &n.comment, &n.typ, &n.key, &n.at); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// expectedLines is the model's list of a recipient: the stored rows they may see, grouped by
// key, newest first, each line as "type post count actors".
func (m *model) expectedLines(recipient int64, stored []storedNotification, handle map[int64]string) []string {
	var shown []storedNotification
	for _, n := range stored {
		if n.recipient != recipient || m.banned(recipient, n.actor) {
			continue
		}
		if n.post != 0 && !m.readable(recipient, m.post(n.post)) {
			continue
		}
		if n.comment != 0 && !slices.ContainsFunc(m.comments, func(c modelComment) bool { return c.id == n.comment }) {
			continue
		}
		shown = append(shown, n)
	}
	newer := func(a, b storedNotification) bool { return a.at.After(b.at) || a.at.Equal(b.at) && a.id > b.id }
	slices.SortFunc(shown, func(a, b storedNotification) int {
		if newer(a, b) {
			return -1
		}
		return 1
	})
	var out []string
	done := map[string]bool{}
	for _, head := range shown {
		if head.key != "" && done[head.key] {
			continue
		}
		done[head.key] = head.key != ""
		var actors []string
		count := 0
		for _, n := range shown {
			if n.id == head.id || head.key != "" && n.key == head.key {
				count++
				if len(actors) < 3 {
					actors = append(actors, handle[n.actor])
				}
			}
		}
		out = append(out, fmt.Sprintf("%s %d %d %v", head.typ, head.post, count, actors))
	}
	return out
}

func TestNotificationOracle(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	worlds := 30
	if testing.Short() {
		worlds = 6
	}
	cases := tally{}
	for w := range worlds {
		r := rand.New(rand.NewPCG(uint64(w), 46))
		if _, err := store.Pool.Exec(ctx, `TRUNCATE users, anchors, feed_snapshot, snapshot_meta, fences, fenceposts, filter_posts, notification_fanouts RESTART IDENTITY CASCADE`); err != nil {
			t.Fatal(err)
		}
		label := fmt.Sprintf("world %d", w)
		m := build(t, ctx, store, r, now)
		handle := map[int64]string{}
		for _, u := range m.users {
			handle[u.ID] = u.Handle
		}
		// Some people turn grouping off, or hear only from people they follow.
		for _, u := range m.users {
			set := tributary.NotificationSettings{Grouping: r.IntN(4) != 0, Policy: map[string]string{}}
			if r.IntN(4) == 0 {
				set.Policy["like"] = "following"
			}
			if err := store.SetNotificationSettings(ctx, u.ID, set); err != nil {
				t.Fatal(err)
			}
		}
		policies := map[int64]bool{} // recipients who hear likes only from people they follow
		settings := map[int64]bool{} // recipients who group
		for _, u := range m.users {
			s, err := store.NotificationSettings(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			policies[u.ID], settings[u.ID] = s.Policy["like"] == "following", s.Grouping
		}
		converse(t, ctx, store, r, m, now, label, cases)
		// Comments that mention people, on posts their authors may read.
		for range 4 {
			actor := m.users[r.IntN(len(m.users))]
			p := m.posts[r.IntN(len(m.posts))]
			if !m.readable(actor.ID, p) {
				continue
			}
			access, err := store.ViewerAccess(ctx, actor.ID)
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf("@%s and @%s, look", m.users[r.IntN(len(m.users))].Handle, m.users[r.IntN(len(m.users))].Handle)
			c, _, err := store.AddComment(ctx, access, p.id, body, now.Add(-30*time.Second), tributary.DefaultBumpRule)
			if err != nil {
				t.Fatal(err)
			}
			m.comments = append(m.comments, modelComment{id: c.ID, post: p.id, author: actor.ID, body: body, at: now.Add(-30 * time.Second)})
		}
		// The fan-out jobs' work.
		var due [][2]int64
		rows, err := store.Pool.Query(ctx, "SELECT post_id, coalesce(comment_id, 0) FROM notification_fanouts")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var d [2]int64
			if err := rows.Scan(&d[0], &d[1]); err != nil {
				t.Fatal(err)
			}
			due = append(due, d)
		}
		rows.Close()
		for _, d := range due {
			for range 2 { // a job run twice stores each row once
				if _, err := store.FanOut(ctx, db.FanOutArgs{PostID: d[0], CommentID: d[1]}); err != nil {
					t.Fatal(err)
				}
			}
		}

		// What was stored follows the write rules: a like tells the post's author, unless
		// they are in a ban or the author hears only from people they follow.
		stored := storedNotifications(t, ctx, store)
		for _, n := range stored {
			cases["stored notification"]++
			// The world's bans were made before its likes and comments (its follows came first).
			conversed := n.typ == "like" || n.typ == "comment" || n.typ == "reply" || n.typ == "mention"
			if conversed && m.banned(n.recipient, n.actor) || n.recipient == n.actor {
				t.Errorf("%s: stored %+v between people in a ban (or to oneself)", label, n)
			}
			if n.typ == "like" && (n.key != "") != settings[n.recipient] {
				t.Errorf("%s: like %+v grouped %v, want %v", label, n, n.key != "", settings[n.recipient])
			}
		}
		for k := range m.likes {
			p := m.post(k[0])
			want := p.author != k[1] && !m.banned(p.author, k[1]) && (!policies[p.author] || m.follows[[2]int64{p.author, k[1]}] == "active")
			got := slices.ContainsFunc(stored, func(n storedNotification) bool {
				return n.typ == "like" && n.post == k[0] && n.actor == k[1] && n.recipient == p.author
			})
			if got != want {
				t.Errorf("%s: like of post %d by %d stored %v, want %v", label, k[0], k[1], got, want)
			}
		}

		// Access changes after the fact: the lists follow at once.
		for range 3 {
			change(t, ctx, store, r, m, now)
		}
		if len(m.comments) > 0 {
			c := m.comments[r.IntN(len(m.comments))]
			access, err := store.ViewerAccess(ctx, c.author)
			if err != nil {
				t.Fatal(err)
			}
			_, err = store.DeleteComment(ctx, access, c.id)
			if err != nil && codeOf(err) != tributary.ENotFound {
				t.Fatal(err)
			}
			if err == nil { // refused (the author may no longer read the post): it stays
				m.comments = slices.DeleteFunc(m.comments, func(x modelComment) bool { return x.id == c.id })
			}
		}
		stored = storedNotifications(t, ctx, store)
		for _, u := range m.users {
			access, err := store.ViewerAccess(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var from tributary.NotificationCursor
			for pages := 0; ; pages++ {
				page, err := store.Notifications(ctx, access, from, 2)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range page.Lines {
					got = append(got, fmt.Sprintf("%s %d %d %v", l.Type, l.PostID, l.Count, l.Actors))
					if !l.Unread {
						t.Errorf("%s: user %d's line %+v read before anything was read", label, u.ID, l)
					}
				}
				if page.Next.IsZero() || pages > 100 {
					break
				}
				from = page.Next
			}
			want := m.expectedLines(u.ID, stored, handle)
			cases["notification list"]++
			if !slices.Equal(got, want) {
				t.Errorf("%s: user %d's notifications\n got  %q\n want %q", label, u.ID, got, want)
			}
			unread, err := store.UnreadNotifications(ctx, access)
			if err != nil {
				t.Fatal(err)
			}
			if unread != min(len(want), 100) {
				t.Errorf("%s: user %d's unread count %d, list has %d lines", label, u.ID, unread, len(want))
			}
			// Read up to now (follows are stored at the database's time): the count is 0.
			if err := store.MarkNotificationsRead(ctx, u.ID, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if unread, err := store.UnreadNotifications(ctx, access); err != nil || unread != 0 {
				t.Errorf("%s: user %d's unread count after reading all: %d, %v", label, u.ID, unread, err)
			}
		}
	}
	t.Logf("checked %s", cases)
}

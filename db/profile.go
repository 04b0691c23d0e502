package db

import (
	"context"
	"fmt"

	"tributary"
	"tributary/db/internal/dbq"
)

// Profile is what a user page shows to one viewer.
type Profile struct {
	User       tributary.User
	Stats      UserStats
	Visibility string // public, protected or private
	// The viewer's relation to the user (zero for anonymous viewers and for oneself).
	FollowState string // "", "active" or "pending"
	Banned      bool   // the viewer banned the user
	Requests    int    // pending follow requests (oneself only)
	Lists       []List // the viewer's lists, each saying whether the user is in it
}

// Profile loads a user page's head as the viewer may see it, in one round trip: the user
// (by id; not found when deleted), their counts and visibility, how the viewer stands with
// them, and for a signed-in viewer other than the user, the viewer's lists.
func (s *Store) Profile(ctx context.Context, userID int64, v tributary.Viewer) (Profile, error) {
	var row dbq.ProfileOfRow
	var lists []dbq.ListsOfRow
	steps := []func(*dbq.Queries) error{func(q *dbq.Queries) (err error) {
		row, err = q.ProfileOf(ctx, dbq.ProfileOfParams{ID: userID, ViewerID: v.ID,
			Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
		return err
	}}
	if v.ID != 0 && v.ID != userID {
		steps = append(steps, func(q *dbq.Queries) (err error) {
			lists, err = q.ListsOf(ctx, dbq.ListsOfParams{OwnerID: v.ID, MemberID: userID})
			return err
		})
	}
	errs := s.pipeline(ctx, steps...)
	if err := notFound(errs[0], "No such user."); err != nil {
		return Profile{}, err
	}
	if len(errs) > 1 && errs[1] != nil {
		return Profile{}, fmt.Errorf("db: lists: %w", errs[1])
	}
	return Profile{User: userOf(row.User), Stats: UserStats{Following: row.Following, Followers: row.Followers, Posts: row.Posts},
		Visibility: row.Visibility, FollowState: row.FollowState, Banned: row.Banned, Requests: int(row.Requests),
		Lists: listsOf(lists)}, nil
}

// Settings is what the settings page shows.
type Settings struct {
	Visibility   string
	HomeActivity bool // the home feed brings in what followees liked or commented on
	Requests     []tributary.User
	Followers    []tributary.User
}

// Settings loads a user's settings page.
func (s *Store) Settings(ctx context.Context, userID int64) (Settings, error) {
	var st Settings
	var err error
	if st.Visibility, err = s.Visibility(ctx, userID); err != nil {
		return st, err
	}
	if st.Requests, err = s.FollowRequests(ctx, userID); err != nil {
		return st, err
	}
	u, err := s.q.UserByID(ctx, userID)
	if err != nil {
		return st, fmt.Errorf("db: settings: %w", err)
	}
	st.HomeActivity = u.HomeActivity
	st.Followers, err = s.Followers(ctx, userID)
	return st, err
}

// GroupPage is what a group page shows to one viewer.
type GroupPage struct {
	Group   Group
	Members []Member
	Role    string
	State   string
}

// GroupPage loads a group page as the viewer may see it.
func (s *Store) GroupPage(ctx context.Context, name string, viewerID int64) (GroupPage, error) {
	g, err := s.GroupByName(ctx, name)
	if err != nil {
		return GroupPage{}, err
	}
	gp := GroupPage{Group: g}
	if viewerID != 0 {
		if gp.Role, gp.State, err = s.Membership(ctx, g.ID, viewerID); err != nil {
			return gp, err
		}
	}
	if gp.Role == "admin" {
		gp.Members, err = s.Members(ctx, g.ID)
	}
	return gp, err
}

// FollowList asks for a page of a user's followers (Followers) or of the people they follow.
type FollowList struct {
	Owner     int64
	Followers bool
	After     string // the handle the page starts after ("" from the first)
	Limit     int
}

// FollowPage lists people of a follow list as the viewer may see it (see FollowersPage):
// a user whose own feed the viewer may not read shows nobody.
func (s *Store) FollowPage(ctx context.Context, l FollowList, v tributary.Viewer) ([]tributary.User, error) {
	var rows []dbq.User
	var err error
	p := dbq.FollowersPageParams{OwnerID: l.Owner, After: l.After, Blocked: nonNilIDs(v.Blocked), ViewerID: v.ID,
		PrivateFeeds: nonNilIDs(v.PrivateFeeds), Lim: int32(l.Limit)}
	if l.Followers {
		rows, err = s.q.FollowersPage(ctx, p)
	} else {
		rows, err = s.q.FollowingPage(ctx, dbq.FollowingPageParams(p))
	}
	if err != nil {
		return nil, fmt.Errorf("db: follow list: %w", err)
	}
	out := make([]tributary.User, len(rows))
	for i, r := range rows {
		out[i] = userOf(r)
	}
	return out, nil
}

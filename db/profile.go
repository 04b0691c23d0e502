package db

import (
	"context"
	"fmt"

	"tributary"
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
}

// Profile loads a user page as the viewer may see it.
func (s *Store) Profile(ctx context.Context, handle string, v tributary.Viewer) (Profile, error) {
	viewerID := v.ID
	u, err := s.UserByHandle(ctx, handle)
	if err != nil {
		return Profile{}, err
	}
	p := Profile{User: u}
	if p.Stats, err = s.Stats(ctx, u.ID, v); err != nil {
		return p, err
	}
	if p.Visibility, err = s.Visibility(ctx, u.ID); err != nil {
		return p, err
	}
	switch {
	case viewerID == u.ID:
		reqs, err := s.FollowRequests(ctx, u.ID)
		if err != nil {
			return p, err
		}
		p.Requests = len(reqs)
	case viewerID != 0:
		if p.FollowState, err = s.FollowState(ctx, viewerID, u.ID); err != nil {
			return p, err
		}
		if p.Banned, err = s.HasBanned(ctx, viewerID, u.ID); err != nil {
			return p, err
		}
	}
	return p, nil
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

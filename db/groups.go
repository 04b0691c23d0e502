package db

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db/internal/dbq"
)

// Group is a group feed and how joining works.
type Group struct {
	ID        int64
	Name      string
	Title     string
	Access    string
	Moderated bool
	OwnerID   int64
}

func groupOf(f dbq.Feed) Group {
	return Group{ID: f.ID, Name: f.Name, Title: f.Title, Access: f.Access, Moderated: f.Moderated, OwnerID: f.OwnerID}
}

// Member is a person in a group.
type Member struct {
	User  tributary.UserRef
	Role  string // member or admin
	State string // active or pending
}

// CreateGroup creates a group with its creator as its first admin.
func (s *Store) CreateGroup(ctx context.Context, owner int64, name, title, access string, moderated bool) (Group, error) {
	name = strings.TrimSpace(name)
	if err := tributary.ValidateHandle(name); err != nil {
		return Group{}, tributary.FieldErrorf("name", "Group name: %s", strings.TrimPrefix(tributary.ErrorMessage(err), "Handle "))
	}
	if !tributary.ValidAccess(access) {
		return Group{}, tributary.FieldErrorf("access", "Access must be public, protected or private.")
	}
	title = strings.TrimSpace(title)
	if title == "" {
		title = name
	}
	var g Group
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		f, err := q.CreateGroupFeed(ctx, dbq.CreateGroupFeedParams{OwnerID: owner, Name: name, Title: title, Access: access,
			Moderated: Group{Moderated: moderated, Access: access}.JoinsModerated()})
		if isUniqueViolation(err) {
			return tributary.FieldErrorf("name", "Group name %q is taken.", name)
		} else if err != nil {
			return fmt.Errorf("db: create group: %w", err)
		}
		g = groupOf(f)
		if err := q.UpsertMember(ctx, dbq.UpsertMemberParams{FeedID: f.ID, UserID: owner, Role: "admin", State: "active"}); err != nil {
			return fmt.Errorf("db: group admin: %w", err)
		}
		return q.AddMembersAsReaders(ctx, f.ID)
	})
	return g, err
}

// GroupByName finds a group.
func (s *Store) GroupByName(ctx context.Context, name string) (Group, error) {
	f, err := s.q.GroupByName(ctx, name)
	return groupOf(f), notFound(err, "No group %q.", name)
}

// Groups lists groups, and GroupsOf the groups a user may post to.
func (s *Store) Groups(ctx context.Context) ([]Group, error) {
	rows, err := s.q.ListGroups(ctx)
	return groupsOf(rows, err)
}

// GroupsOf lists the groups where user is an active member.
func (s *Store) GroupsOf(ctx context.Context, user int64) ([]Group, error) {
	rows, err := s.q.GroupsOf(ctx, user)
	return groupsOf(rows, err)
}

// ShareOptions is what the share form offers its user: the groups they may post to, and
// the people who may receive their directs (their active followers).
type ShareOptions struct {
	Groups     []Group
	Recipients []tributary.User
}

// ShareOptionsOf reads a user's ShareOptions.
func (s *Store) ShareOptionsOf(ctx context.Context, user int64) (ShareOptions, error) {
	groups, err := s.GroupsOf(ctx, user)
	if err != nil {
		return ShareOptions{}, err
	}
	followers, err := s.Followers(ctx, user)
	if err != nil {
		return ShareOptions{}, err
	}
	return ShareOptions{Groups: groups, Recipients: followers}, nil
}

func groupsOf(rows []dbq.Feed, err error) ([]Group, error) {
	if err != nil {
		return nil, fmt.Errorf("db: groups: %w", err)
	}
	out := make([]Group, len(rows))
	for i, r := range rows {
		out[i] = groupOf(r)
	}
	return out, nil
}

// Membership returns a user's role and state in a group ("" when not a member).
func (s *Store) Membership(ctx context.Context, group, user int64) (role, state string, err error) {
	m, err := s.q.Membership(ctx, dbq.MembershipParams{FeedID: group, UserID: user})
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("db: membership: %w", err)
	}
	return m.Role, m.State, nil
}

// Members lists a group's members, admins first.
func (s *Store) Members(ctx context.Context, group int64) ([]Member, error) {
	rows, err := s.q.GroupMembers(ctx, group)
	if err != nil {
		return nil, fmt.Errorf("db: members: %w", err)
	}
	out := make([]Member, len(rows))
	for i, r := range rows {
		out[i] = Member{User: tributary.UserRef{ID: r.ID, Handle: r.Handle, Name: r.DisplayName, VIP: r.Vip}, Role: r.Role, State: r.State}
	}
	return out, nil
}

// JoinsModerated says whether joining waits for an admin: a private group always does.
func (g Group) JoinsModerated() bool { return g.Moderated || g.Access == "private" }

// Join adds a user to a group, at once or (moderated groups) pending an admin's approval.
func (s *Store) Join(ctx context.Context, g Group, user int64) (pending bool, err error) {
	role, state, err := s.Membership(ctx, g.ID, user)
	if err != nil || state == "active" {
		return false, err
	}
	state = "active"
	if g.JoinsModerated() {
		state, pending = "pending", true
	}
	if role == "" {
		role = "member"
	}
	return pending, s.setMember(ctx, g.ID, user, role, state)
}

// ApproveMember lets in a user who asked to join; it needs an admin. Returns EInvalid when
// the user has no pending request (an active member or admin stays as they are).
func (s *Store) ApproveMember(ctx context.Context, g Group, admin, user int64) error {
	return s.memberChange(ctx, g, admin, user, func(q *dbq.Queries) error {
		n, err := q.ApprovePending(ctx, dbq.ApprovePendingParams{FeedID: g.ID, UserID: user})
		if err != nil {
			return fmt.Errorf("db: approve member: %w", err)
		}
		if n == 0 {
			return tributary.Errorf(tributary.EInvalid, "That person has not asked to join %s.", g.Name)
		}
		return nil
	})
}

// MakeAdmin promotes an active member to admin; it needs an admin. Returns EInvalid when the
// user is not an active member.
func (s *Store) MakeAdmin(ctx context.Context, g Group, admin, user int64) error {
	return s.memberChange(ctx, g, admin, user, func(q *dbq.Queries) error {
		n, err := q.PromoteMember(ctx, dbq.PromoteMemberParams{FeedID: g.ID, UserID: user})
		if err != nil {
			return fmt.Errorf("db: make admin: %w", err)
		}
		if n == 0 {
			return tributary.Errorf(tributary.EInvalid, "Only a member of %s can be made an admin.", g.Name)
		}
		return nil
	})
}

// memberChange runs an admin's change of a member with the group locked, then lets the
// member read the group when it is private and redoes their feeds.
func (s *Store) memberChange(ctx context.Context, g Group, admin, user int64, change func(q *dbq.Queries) error) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if err := lockedAdmin(ctx, q, g, admin); err != nil {
			return err
		}
		if err := change(q); err != nil {
			return err
		}
		if err := q.AddMembersAsReaders(ctx, g.ID); err != nil {
			return fmt.Errorf("db: group readers: %w", err)
		}
		return resetFences(ctx, q, user)
	})
}

// RemoveMember takes a member out: an admin removing someone (never the group's creator),
// or a member leaving (never its last admin: EInvalid).
func (s *Store) RemoveMember(ctx context.Context, g Group, by, user int64) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if by != user {
			if err := lockedAdmin(ctx, q, g, by); err != nil {
				return err
			}
			if user == g.OwnerID {
				return tributary.Errorf(tributary.EForbidden, "The creator of %s cannot be removed.", g.Name)
			}
		} else if err := q.LockGroup(ctx, g.ID); err != nil {
			return fmt.Errorf("db: lock group: %w", err)
		}
		m, err := q.Membership(ctx, dbq.MembershipParams{FeedID: g.ID, UserID: user})
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return fmt.Errorf("db: membership: %w", err)
		}
		if m.Role == "admin" && m.State == "active" {
			others, err := q.OtherAdmins(ctx, dbq.OtherAdminsParams{FeedID: g.ID, UserID: user})
			if err != nil {
				return fmt.Errorf("db: admins: %w", err)
			}
			if others == 0 {
				return tributary.Errorf(tributary.EInvalid, "You are the last admin of %s: make someone else an admin before leaving.", g.Name)
			}
		}
		if err := q.RemoveMember(ctx, dbq.RemoveMemberParams{FeedID: g.ID, UserID: user}); err != nil {
			return fmt.Errorf("db: remove member: %w", err)
		}
		if err := q.RemoveReader(ctx, dbq.RemoveReaderParams{FeedID: g.ID, UserID: user}); err != nil {
			return fmt.Errorf("db: remove reader: %w", err)
		}
		return nil
	})
}

// SetGroupAccess changes who may read a group.
func (s *Store) SetGroupAccess(ctx context.Context, g Group, admin int64, access string, now time.Time) error {
	if !tributary.ValidAccess(access) {
		return tributary.FieldErrorf("access", "Access must be public, protected or private.")
	}
	if err := s.requireAdmin(ctx, g, admin); err != nil {
		return err
	}
	var anchors []int64
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		if err := q.SetFeedAccess(ctx, dbq.SetFeedAccessParams{ID: g.ID, Access: access}); err != nil {
			return fmt.Errorf("db: group access: %w", err)
		}
		if (Group{Access: access}).JoinsModerated() {
			if err := q.ModerateGroup(ctx, g.ID); err != nil {
				return fmt.Errorf("db: group access: %w", err)
			}
		}
		var err error
		anchors, err = s.accessChanged(ctx, q, []int64{g.ID}, nil)
		return err
	})
	if err != nil {
		return err
	}
	return s.RefreshAnchors(ctx, anchors, now)
}

func (s *Store) setMember(ctx context.Context, group, user int64, role, state string) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if err := q.UpsertMember(ctx, dbq.UpsertMemberParams{FeedID: group, UserID: user, Role: role, State: state}); err != nil {
			return fmt.Errorf("db: member: %w", err)
		}
		// Active members read the group when it is private.
		if err := q.AddMembersAsReaders(ctx, group); err != nil {
			return fmt.Errorf("db: group readers: %w", err)
		}
		return resetFences(ctx, q, user)
	})
}

func (s *Store) requireAdmin(ctx context.Context, g Group, user int64) error {
	role, state, err := s.Membership(ctx, g.ID, user)
	if err != nil {
		return err
	}
	if role != "admin" || state != "active" {
		return tributary.Errorf(tributary.EForbidden, "Only an admin of %s can do that.", g.Name)
	}
	return nil
}

// lockedAdmin locks the group's members for the rest of q's transaction and checks that
// user is an active admin of it.
func lockedAdmin(ctx context.Context, q *dbq.Queries, g Group, user int64) error {
	if err := q.LockGroup(ctx, g.ID); err != nil {
		return fmt.Errorf("db: lock group: %w", err)
	}
	m, err := q.Membership(ctx, dbq.MembershipParams{FeedID: g.ID, UserID: user})
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("db: membership: %w", err)
	}
	if m.Role != "admin" || m.State != "active" {
		return tributary.Errorf(tributary.EForbidden, "Only an admin of %s can do that.", g.Name)
	}
	return nil
}

// ResolveDestination turns a share form's choices (own feed, group names, recipient
// handles) into a Destination; unknown names are errors naming them.
func (s *Store) ResolveDestination(ctx context.Context, own bool, groups, handles []string) (Destination, error) {
	d := Destination{OwnFeed: own}
	for _, name := range groups {
		g, err := s.GroupByName(ctx, name)
		if err != nil {
			return d, tributary.FieldErrorf("groups", "No group %q.", name)
		}
		d.Groups = append(d.Groups, g.ID)
	}
	for _, h := range handles {
		h = strings.TrimPrefix(strings.TrimSpace(h), "@")
		if h == "" {
			continue
		}
		u, err := s.UserByHandle(ctx, h)
		if err != nil {
			return d, tributary.FieldErrorf("to", "No user @%s.", h)
		}
		d.DirectTo = append(d.DirectTo, u.ID)
	}
	if len(d.DirectTo) > 0 && (own || len(d.Groups) > 0) {
		return d, tributary.FieldErrorf("to", "A direct goes only to the people you name: uncheck your feed and groups.")
	}
	return d, nil
}

package db

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db/internal/dbq"
)

// List is one of a user's lists: a feed of chosen members, private to its owner. A change to
// who is in a list, or to whether it is exclusive, changes what the owner's feeds hold: their
// fences start afresh (as after a follow), in the change's transaction.
type List struct {
	ID        int64
	Name      string
	Exclusive bool // its members' shares leave the owner's home feed
	Members   int  // how many (ListsOf)
	HasMember bool // the user asked about is a member (ListsOf)
}

// List limits: a user's lists, a list's members, a list name's length.
const (
	MaxLists       = 100
	MaxListMembers = 2000
	ListNameMaxLen = 60
)

var errNoList = tributary.Errorf(tributary.ENotFound, "No such list.")

// ownList checks, in a transaction, that list id is owner's.
func ownList(ctx context.Context, q *dbq.Queries, owner, id int64) error {
	if _, err := q.ListOf(ctx, dbq.ListOfParams{ID: id, OwnerID: owner}); errors.Is(err, pgx.ErrNoRows) {
		return errNoList
	} else if err != nil {
		return fmt.Errorf("db: list: %w", err)
	}
	return nil
}

// listName trims a list's name and checks it.
func listName(name string) (string, error) {
	name = strings.Join(strings.Fields(name), " ")
	switch {
	case name == "":
		return "", tributary.FieldErrorf("name", "Give the list a name.")
	case utf8.RuneCountInString(name) > ListNameMaxLen:
		return "", tributary.FieldErrorf("name", "A list's name may be at most %d characters.", ListNameMaxLen)
	}
	return name, nil
}

// CreateList makes a list of owner's and returns its id.
func (s *Store) CreateList(ctx context.Context, owner int64, name string, exclusive bool) (int64, error) {
	name, err := listName(name)
	if err != nil {
		return 0, err
	}
	id, err := s.q.CreateList(ctx, dbq.CreateListParams{OwnerID: owner, Name: name, Exclusive: exclusive, MaxLists: MaxLists})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, tributary.FieldErrorf("name", "You have %d lists, the most there may be. Delete one to make another.", MaxLists)
	case isUniqueViolation(err):
		return 0, tributary.FieldErrorf("name", "You have a list named %q already.", name)
	case err != nil:
		return 0, fmt.Errorf("db: create list: %w", err)
	}
	return id, nil
}

// ListsOf lists a user's lists by name, each saying whether member (0: nobody) is in it.
func (s *Store) ListsOf(ctx context.Context, owner, member int64) ([]List, error) {
	rows, err := s.q.ListsOf(ctx, dbq.ListsOfParams{OwnerID: owner, MemberID: member})
	if err != nil {
		return nil, fmt.Errorf("db: lists: %w", err)
	}
	return listsOf(rows), nil
}

func listsOf(rows []dbq.ListsOfRow) []List {
	out := make([]List, len(rows))
	for i, r := range rows {
		out[i] = List{ID: r.ID, Name: r.Name, Exclusive: r.Exclusive, Members: int(r.Members), HasMember: r.HasMember}
	}
	return out
}

// ListOf returns a list of owner's with its members; a list that is not theirs is not found.
func (s *Store) ListOf(ctx context.Context, owner, id int64) (List, []tributary.UserRef, error) {
	r, err := s.q.ListOf(ctx, dbq.ListOfParams{ID: id, OwnerID: owner})
	if errors.Is(err, pgx.ErrNoRows) {
		return List{}, nil, errNoList
	} else if err != nil {
		return List{}, nil, fmt.Errorf("db: list: %w", err)
	}
	rows, err := s.q.ListMembers(ctx, id)
	if err != nil {
		return List{}, nil, fmt.Errorf("db: list members: %w", err)
	}
	members := make([]tributary.UserRef, len(rows))
	for i, m := range rows {
		members[i] = tributary.UserRef{ID: m.ID, Handle: m.Handle, Name: m.DisplayName, VIP: m.Vip}
	}
	return List{ID: r.ID, Name: r.Name, Exclusive: r.Exclusive, Members: len(members)}, members, nil
}

// RenameList renames a list of owner's.
func (s *Store) RenameList(ctx context.Context, owner, id int64, name string) error {
	name, err := listName(name)
	if err != nil {
		return err
	}
	n, err := s.q.RenameList(ctx, dbq.RenameListParams{ID: id, OwnerID: owner, Name: name})
	switch {
	case isUniqueViolation(err):
		return tributary.FieldErrorf("name", "You have a list named %q already.", name)
	case err != nil:
		return fmt.Errorf("db: rename list: %w", err)
	case n == 0:
		return errNoList
	}
	return nil
}

// SetListExclusive says whether a list's members leave its owner's home feed.
func (s *Store) SetListExclusive(ctx context.Context, owner, id int64, exclusive bool) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if err := ownList(ctx, q, owner, id); err != nil {
			return err
		}
		if _, err := q.SetListExclusive(ctx, dbq.SetListExclusiveParams{ID: id, OwnerID: owner, Exclusive: exclusive}); err != nil {
			return fmt.Errorf("db: list exclusive: %w", err)
		}
		return resetFences(ctx, q, owner)
	})
}

// DeleteList deletes a list of owner's (its members stay followed as they were).
func (s *Store) DeleteList(ctx context.Context, owner, id int64) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		n, err := q.DeleteList(ctx, dbq.DeleteListParams{ID: id, OwnerID: owner})
		if err != nil {
			return fmt.Errorf("db: delete list: %w", err)
		} else if n == 0 {
			return errNoList
		}
		return resetFences(ctx, q, owner)
	})
}

// AddListMember puts a user in a list of owner's; a member already there is no error.
func (s *Store) AddListMember(ctx context.Context, owner, id, member int64) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if err := ownList(ctx, q, owner, id); err != nil {
			return err
		}
		n, err := q.AddListMember(ctx, dbq.AddListMemberParams{ListID: id, OwnerID: owner, MemberID: member, MaxMembers: MaxListMembers})
		if err != nil {
			return fmt.Errorf("db: add list member: %w", err)
		}
		if n == 0 {
			if in, err := q.ListsOf(ctx, dbq.ListsOfParams{OwnerID: owner, MemberID: member}); err == nil && hasMember(in, id) {
				return nil
			}
			return tributary.Errorf(tributary.EInvalid, "This list has %d members, the most there may be.", MaxListMembers)
		}
		return resetFences(ctx, q, owner)
	})
}

func hasMember(lists []dbq.ListsOfRow, id int64) bool {
	for _, l := range lists {
		if l.ID == id {
			return l.HasMember
		}
	}
	return false
}

// RemoveListMember takes a user out of a list of owner's; one who is not in it is no error.
func (s *Store) RemoveListMember(ctx context.Context, owner, id, member int64) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if err := ownList(ctx, q, owner, id); err != nil {
			return err
		}
		if n, err := q.RemoveListMember(ctx, dbq.RemoveListMemberParams{ListID: id, OwnerID: owner, MemberID: member}); err != nil {
			return fmt.Errorf("db: remove list member: %w", err)
		} else if n == 0 {
			return nil
		}
		return resetFences(ctx, q, owner)
	})
}

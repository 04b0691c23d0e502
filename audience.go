package tributary

import "slices"

// AudienceFeed is one of a post's group or directs feeds, as its card's audience line reads
// it (the same for every reader: AudienceOf keeps what a reader may know of).
type AudienceFeed struct {
	ID     int64    `json:"id"`
	Kind   string   `json:"kind"` // "group" or "directs"
	Access string   `json:"access"`
	Name   string   `json:"name"`
	Title  string   `json:"title"`
	To     []string `json:"to"` // a direct's recipients' handles, the author left out
}

// GroupRef names a group on a card.
type GroupRef struct {
	Name  string `json:"name"`
	Title string `json:"title"`
}

// Audience is who a card's post or item can be seen by, as its card says: the groups it went
// to, the people a direct went to, and whether it is restricted (private or protected).
type Audience struct {
	Groups     []GroupRef `json:"groups,omitempty"`
	To         []string   `json:"to,omitempty"`
	Restricted bool       `json:"restricted,omitempty"`
}

// AudienceOf is what a reader's card says of who can see a post or item in feeds (public:
// some share of it is public): the groups the reader may know of (not private, or private
// and read by them) and a direct's recipients when the reader is among its readers. Nil when
// there is nothing to say: a public share outside groups.
func AudienceOf(feeds []AudienceFeed, public bool, v Viewer) *Audience {
	a := Audience{Restricted: !public}
	reads := func(id int64) bool { _, ok := slices.BinarySearch(v.PrivateFeeds, id); return ok }
	for _, f := range feeds {
		switch {
		case f.Kind == "group" && (f.Access != "private" || reads(f.ID)):
			if !slices.ContainsFunc(a.Groups, func(g GroupRef) bool { return g.Name == f.Name }) {
				a.Groups = append(a.Groups, GroupRef{Name: f.Name, Title: f.Title})
			}
		case f.Kind == "directs" && reads(f.ID):
			for _, h := range f.To {
				if !slices.Contains(a.To, h) {
					a.To = append(a.To, h)
				}
			}
		}
	}
	if !a.Restricted && len(a.Groups) == 0 && len(a.To) == 0 {
		return nil
	}
	slices.Sort(a.To)
	return &a
}

package db

import (
	"encoding/json"
	"fmt"

	"tributary"
	"tributary/db/internal/dbq"
)

// PageSize is how many posts a chronological page holds.
const PageSize = 20

func postOf(r dbq.PostCard) (tributary.Post, error) {
	var links []tributary.Link
	if err := json.Unmarshal(r.LinkedUrls, &links); err != nil {
		return tributary.Post{}, fmt.Errorf("db: post %d links: %w", r.ID, err)
	}
	return tributary.Post{
		ID: r.ID, AnchorID: r.AnchorID, URL: r.Url, Title: r.Title, Body: r.Body,
		CanonicalURL: r.CanonicalUrl, AnchorURL: r.AnchorUrl, Kind: tributary.Kind(r.Kind), Host: r.Host,
		Links: links, ImageCount: int(r.ImageCount), Tags: r.Tags, CreatedAt: r.CreatedAt,
		Author: tributary.UserRef{ID: r.AuthorID, Handle: r.AuthorHandle, Name: r.AuthorName, VIP: r.AuthorVip},
	}, nil
}

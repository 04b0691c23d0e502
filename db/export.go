package db

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// exportBatch is how many rows an export reads at a time: an account's posts are read in
// batches by id, never all at once, and written out as they come.
const exportBatch = 1000

// ExportEvery is how often a user may download an export.
const ExportEvery = 24 * time.Hour

// ClaimExport records that userID starts an export now, or refuses (ETooMany) when they
// started one within the last day, on any instance.
func (s *Store) ClaimExport(ctx context.Context, userID int64, now time.Time) error {
	last, err := s.q.ClaimExport(ctx, dbq.ClaimExportParams{UserID: userID, Now: now, Since: now.Add(-ExportEvery)})
	if err != nil {
		return notFound(err, "No such user.")
	}
	if !last.Equal(now.Truncate(time.Microsecond)) {
		next := last.Add(ExportEvery).Sub(now)
		return tributary.Errorf(tributary.ETooMany, "You can download one export a day; your last began %s ago. Try again in %s.",
			roughly(now.Sub(last)), roughly(next))
	}
	return nil
}

// roughly says a duration in whole hours, or minutes under an hour.
func roughly(d time.Duration) string {
	if h := int(d.Round(time.Hour) / time.Hour); h > 1 {
		return fmt.Sprintf("%d hours", h)
	} else if d >= 45*time.Minute {
		return "an hour"
	}
	return fmt.Sprintf("%d minutes", max(1, int(d.Round(time.Minute)/time.Minute)))
}

// Export writes a zip of everything userID made to w as it reads it: posts.csv in the
// importer's format (their shares with a link), messages.json (their directs), and JSON of
// their comments, likes, follows, followers, lists, groups owned, muted words and hidden items.
func (s *Store) Export(ctx context.Context, userID int64, handle string, w io.Writer) error {
	zw := zip.NewWriter(w)
	if err := s.exportPosts(ctx, zw, userID, handle); err != nil {
		return err
	}
	for _, part := range []struct {
		name string
		read func(before exportKey) ([]exportDoc, error)
	}{
		{"comments.json", func(before exportKey) ([]exportDoc, error) {
			rows, err := s.q.ExportComments(ctx, dbq.ExportCommentsParams{AuthorID: userID, BeforeAt: before.at, BeforeID: before.id, Batch: exportBatch})
			docs := make([]exportDoc, len(rows))
			for i, r := range rows {
				docs[i] = exportDoc{exportKey{r.CreatedAt, r.ID}, r.Doc}
			}
			return docs, err
		}},
		{"likes.json", func(before exportKey) ([]exportDoc, error) {
			rows, err := s.q.ExportLikes(ctx, dbq.ExportLikesParams{UserID: userID, BeforeAt: before.at, BeforeID: before.id, Batch: exportBatch})
			docs := make([]exportDoc, len(rows))
			for i, r := range rows {
				docs[i] = exportDoc{exportKey{r.CreatedAt, r.ID}, r.Doc}
			}
			return docs, err
		}},
	} {
		if err := exportArray(zw, part.name, part.read); err != nil {
			return err
		}
	}
	social, err := s.q.ExportSocial(ctx, userID)
	if err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	for _, f := range []struct{ name, doc string }{{"follows.json", social.Follows}, {"followers.json", social.Followers},
		{"lists.json", social.Lists}, {"groups.json", social.Groups}, {"mutes.json", social.Mutes}, {"hides.json", social.Hides}} {
		fw, err := zw.Create(f.name)
		if err != nil {
			return fmt.Errorf("db: export: %w", err)
		}
		if _, err := io.WriteString(fw, f.doc+"\n"); err != nil {
			return fmt.Errorf("db: export: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	return nil
}

// exportPosts writes posts.csv and messages.json, reading the posts once, a batch at a time.
func (s *Store) exportPosts(ctx context.Context, zw *zip.Writer, userID int64, handle string) error {
	// zip writes one file at a time: the directs are few, so they wait in memory.
	var messages []exportMessage
	fw, err := zw.Create("posts.csv")
	if err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	out, err := tributary.NewSharesCSV(fw)
	if err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	for before := exportStart; ; {
		rows, err := s.q.ExportPosts(ctx, dbq.ExportPostsParams{AuthorID: userID, BeforeAt: before.at, BeforeID: before.id, Batch: exportBatch})
		if err != nil {
			return fmt.Errorf("db: export posts: %w", err)
		}
		for _, r := range rows {
			if r.IsDirect || r.Url == "" {
				messages = append(messages, exportMessage{URL: r.Url, Title: r.Title, Text: r.Body, Tags: r.Tags, CreatedAt: r.CreatedAt})
				continue
			}
			if err := out.Write(handle, tributary.ExportedShare{URL: r.Url, Title: r.Title, Text: r.Body, Tags: r.Tags, SharedAt: r.CreatedAt}); err != nil {
				return fmt.Errorf("db: export: %w", err)
			}
		}
		if len(rows) < exportBatch {
			break
		}
		last := rows[len(rows)-1]
		before = exportKey{last.CreatedAt, last.ID}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	if messages == nil {
		messages = []exportMessage{}
	}
	mw, err := zw.Create("messages.json")
	if err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	if err := json.NewEncoder(mw).Encode(messages); err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	return nil
}

// exportMessage is a direct message in messages.json.
type exportMessage struct {
	URL       string    `json:"url,omitempty"`
	Title     string    `json:"title,omitempty"`
	Text      string    `json:"text"`
	Tags      []string  `json:"tags"`
	CreatedAt time.Time `json:"created_at"`
}

// exportKey is where a batch of an export stops: rows are read newest first, by time then id.
type exportKey struct {
	at time.Time
	id int64
}

// exportStart is before every row.
var exportStart = exportKey{time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 0}

// exportDoc is one JSON document of an export and the key the next batch reads before.
type exportDoc struct {
	key exportKey
	doc string
}

// exportArray writes a JSON array of documents read a batch at a time.
func exportArray(zw *zip.Writer, name string, read func(before exportKey) ([]exportDoc, error)) error {
	fw, err := zw.Create(name)
	if err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	if _, err := io.WriteString(fw, "["); err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	sep := "\n"
	for before := exportStart; ; {
		docs, err := read(before)
		if err != nil {
			return fmt.Errorf("db: export %s: %w", name, err)
		}
		for _, d := range docs {
			if _, err := io.WriteString(fw, sep+d.doc); err != nil {
				return fmt.Errorf("db: export: %w", err)
			}
			sep = ",\n"
		}
		if len(docs) < exportBatch {
			break
		}
		before = docs[len(docs)-1].key
	}
	if _, err := io.WriteString(fw, "\n]\n"); err != nil {
		return fmt.Errorf("db: export: %w", err)
	}
	return nil
}

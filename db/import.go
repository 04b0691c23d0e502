package db

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"tributary"
	"tributary/db/internal/dbq"
)

// ImportResult counts what an import did.
type ImportResult struct {
	Imported       int // new posts
	AlreadyPresent int // shares stored before (same author, canonical URL and time)
	UsersCreated   int
}

// Import stores parsed shares in one transaction: all of them or, on any error, none.
// Authors are found by handle, case-insensitively; missing ones are created with their
// posts feed, display name = handle and no password, so they cannot log in until one is
// set. A share stored before counts as already present, so re-importing a file is a no-op.
//
// The shares are staged by COPY and stored by a few set-based statements (see
// queries/import.sql): no statement and no lock per line, so a file of 100,000 lines fits a
// stock PostgreSQL (64 lock slots per connection). Their items' snapshot rows are redone
// after the commit, importChunk anchors per transaction.
func (s *Store) Import(ctx context.Context, recs []tributary.ImportRecord) (ImportResult, error) {
	var res ImportResult
	var anchors []int64
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		rows := make([]dbq.StageImportParams, len(recs))
		for i, r := range recs {
			p := r.Post
			if err := storable(r.Handle, p.NewPost.URL, p.Title, p.Body); err != nil {
				return fmt.Errorf("db: import line %d: %w", r.Line, err)
			}
			links, err := json.Marshal(nonNil(p.Links))
			if err != nil {
				return fmt.Errorf("db: import line %d: links: %w", r.Line, err)
			}
			rows[i] = dbq.StageImportParams{Line: int32(r.Line), Handle: r.Handle, Url: p.NewPost.URL, Title: p.Title,
				Body: p.Body, CanonicalUrl: p.CanonicalURL, AnchorUrl: p.AnchorURL, Kind: string(p.Kind),
				AnchorKind: string(p.AnchorKind), Host: p.Host, LinkHosts: nonNilStrings(p.LinkHosts), LinkedUrls: links,
				ImageCount: int32(p.ImageCount), UrlCount: int32(p.URLCount), SciScore: int16(p.SciScore),
				Tags: nonNilStrings(p.Tags), Mentions: nonNilStrings(p.Mentions), CreatedAt: p.CreatedAt}
		}
		if _, err := q.StageImport(ctx, rows); err != nil {
			return fmt.Errorf("db: import: stage: %w", err)
		}
		if err := q.AnalyzeImport(ctx); err != nil {
			return fmt.Errorf("db: import: analyze: %w", err)
		}
		if err := q.ImportPlanning(ctx); err != nil {
			return fmt.Errorf("db: import: plan: %w", err)
		}
		if err := q.ImportMemory(ctx); err != nil {
			return fmt.Errorf("db: import: memory: %w", err)
		}
		missing, err := q.ImportMissingAuthors(ctx)
		if err != nil {
			return fmt.Errorf("db: import: authors: %w", err)
		}
		created, err := q.ImportAuthors(ctx)
		if err != nil {
			return fmt.Errorf("db: import: authors: %w", err)
		}
		if created != missing { // a handle was taken by a sign-up since: its shares are not theirs
			return tributary.Errorf(tributary.EConflict, "A handle of the file was taken during the import; run it again.")
		}
		if err := q.ImportAnchors(ctx); err != nil {
			return fmt.Errorf("db: import: anchors: %w", err)
		}
		stored, err := q.ImportPosts(ctx)
		if err != nil {
			return fmt.Errorf("db: import: posts: %w", err)
		}
		if err := q.ClearImport(ctx); err != nil {
			return fmt.Errorf("db: import: clear: %w", err)
		}
		res = ImportResult{Imported: int(stored.Imported), AlreadyPresent: len(recs) - int(stored.Imported), UsersCreated: int(created)}
		anchors = stored.AnchorIds
		return nil
	})
	if err != nil {
		return ImportResult{}, err
	}
	// Imported shares show in ranked feeds at once, not at the next snapshot refresh. The
	// chunks go on importWorkers connections, so that rolling one chunk up in Go overlaps
	// PostgreSQL reading and writing another.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(importWorkers)
	for chunk := range slices.Chunk(anchors, importChunk) {
		g.Go(func() error { return s.RefreshAnchors(gctx, chunk, time.Now()) })
	}
	return res, g.Wait()
}

// importWorkers is how many connections redo an import's snapshot rows at once.
const importWorkers = 3

// importChunk is how many items' snapshot rows an import redoes per transaction: each takes
// an advisory lock, and a stock PostgreSQL has room for 64 per connection on average
// (max_locks_per_transaction × max_connections, shared).
const importChunk = 500

// storable checks that PostgreSQL can store some text (UTF-8 without NUL); the parser
// refuses such lines first, this keeps a caller that did not parse from failing mid-COPY
// without saying where.
func storable(texts ...string) error {
	for _, t := range texts {
		if !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
			return tributary.Errorf(tributary.EInvalid, "text must be UTF-8 without NUL characters")
		}
	}
	return nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

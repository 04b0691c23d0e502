package bench

import (
	"bytes"
	"context"
	"fmt"
)

// userPages are a member's page (its head and the first page of their posts) as others read
// it and as its owner does, for the most prolific public author: the page the soak found a
// writer reading slowest (SOAK.md, own_page).
func (w *world) userPages(conc int) []scenario {
	var handle string
	var posts int
	var readers []*client
	var owner *client
	setup := func(ctx context.Context) error {
		if owner != nil {
			return nil
		}
		var id int64
		err := w.pool.QueryRow(ctx, `SELECT u.id, u.handle, count(*) FROM posts p JOIN users u ON u.id = p.author_id
			JOIN feeds f ON f.owner_id = u.id AND f.kind = 'posts' AND f.access = 'public'
			WHERE p.deleted_at IS NULL GROUP BY u.id, u.handle ORDER BY count(*) DESC, u.id LIMIT 1`).Scan(&id, &handle, &posts)
		if err != nil {
			return fmt.Errorf("bench: user pages: %w", err)
		}
		tokens, err := mintSessions(ctx, w.pool, []int64{id})
		if err != nil {
			return err
		}
		owner = newClient(w.base, w.tr)
		owner.setSession(tokens[0])
		readers = w.talkers()
		return nil
	}
	page := func(name, note string, as func(n int) *client) scenario {
		return scenario{Name: name, Group: "user page", Kind: "http", Concurrency: conc, setup: setup,
			note: func() string { return fmt.Sprintf(note, handle, posts) },
			worker: func(i int) step {
				n := i
				return func(ctx context.Context) (latency, error) {
					c := as(n)
					n += conc
					body, d, err := c.get(ctx, "/u/"+handle)
					if err == nil && bytes.Count(body, []byte(`data-testid="card"`)) == 0 {
						err = fmt.Errorf("user page: no posts: %.200s", body)
					}
					return d, err
				}
			}}
	}
	return []scenario{
		page("user_page", "GET /u/%s (%d posts), HTML, each request another signed-in reader's", func(n int) *client { return readers[n%len(readers)] }),
		page("own_page", "GET /u/%s (%d posts), HTML, by its owner", func(int) *client { return owner }),
	}
}

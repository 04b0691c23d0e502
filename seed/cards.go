package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// copyLinkCards writes every item's link card as the link-card job would have fetched it:
// generated from the item's resource, so the demo shows authors, abstracts and preview
// images without reaching the internet. Cards the share trigger made pending (when the
// seeder cannot skip triggers) are replaced.
func (w *seedWorld) copyLinkCards(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "DELETE FROM link_cards"); err != nil {
		return fmt.Errorf("seed: clear link cards: %w", err)
	}
	fetched := time.UnixMilli(w.last).UTC()
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"link_cards"},
		[]string{"anchor_id", "url", "state", "due", "kind", "title", "description", "site", "canonical",
			"image", "image_alt", "authors", "abstract", "published", "lang", "fetched_at"},
		pgx.CopyFromSlice(len(w.anchors), func(i int) ([]any, error) {
			a := &w.anchors[i]
			c := w.linkCard(i, a)
			return []any{int64(i + 1), a.url, "ok", false, c.kind, c.title, c.description, c.site, a.url,
				c.image, c.imageAlt, c.authors, c.abstract, c.published, "en", fetched}, nil
		}))
	if err != nil {
		return fmt.Errorf("seed: copy link cards: %w", err)
	}
	return nil
}

type seedCard struct {
	kind, title, description, site, image, imageAlt, abstract string
	authors                                                   []string
	published                                                 time.Time
}

// linkCard draws anchor i's card from its resource.
func (w *seedWorld) linkCard(i int, a *seedAnchor) seedCard {
	r := seedRNG(w.cfg.Seed, seedStageCards, i)
	res := &w.resources[a.res]
	topic := seedTopics[res.topic]
	c := seedCard{title: res.title, image: res.preview, authors: []string{}, published: time.UnixMilli(res.t0).UTC().Truncate(24 * time.Hour)}
	if c.image != "" {
		c.imageAlt = "Preview of " + res.title
	}
	task := seedPick(r, topic.tasks)
	switch res.kind {
	case seedArxiv, seedOpenReview, seedDOI:
		c.kind, c.authors, c.abstract = "paper", seedAuthors(r), seedAbstract(r, task)
		c.site = map[seedKind]string{seedArxiv: "arXiv", seedOpenReview: "OpenReview", seedDOI: "doi.org"}[res.kind]
		c.description = c.abstract
	case seedHFModel:
		c.kind, c.site = "model", "Hugging Face"
		c.description = fmt.Sprintf("We're on a journey to advance open models: %s, tuned for %s.", res.key, strings.ToLower(task))
	case seedHFDataset:
		c.kind, c.site = "dataset", "Hugging Face"
		c.description = fmt.Sprintf("A dataset of %s for %s.", strings.ReplaceAll(seedPick(r, seedDatasetNouns), "-", " "), strings.ToLower(task))
	case seedGitHub:
		c.kind, c.site = "repository", "GitHub"
		c.description = fmt.Sprintf("%s %s for %s · %s", seedPick(r, seedAdjectives), strings.ToLower(seedPick(r, seedNouns)),
			strings.ToLower(task), seedPick(r, []string{"Python", "Python", "Jupyter Notebook", "C++", "Rust", "CUDA", "Go"}))
	case seedTweet:
		c.kind, c.site = "post", "X"
		c.description = seedPick(r, seedTweetTexts)
	default:
		c.kind, c.site = "article", hostOf(a.url)
		c.description = fmt.Sprintf("Notes on %s: what worked, what did not, and what we would try next.", strings.ToLower(task))
	}
	return c
}

// seedAuthors draws a paper's authors: most papers have three to eight.
func seedAuthors(r *rand.Rand) []string {
	n := 1 + r.IntN(3) + r.IntN(6)
	out := make([]string, n)
	for k := range out {
		out[k] = seedPick(r, seedFirstNames) + " " + seedPick(r, seedLastNames)
	}
	return out
}

// seedAbstract draws a paper's abstract about task.
func seedAbstract(r *rand.Rand, task string) string {
	t := strings.ToLower(task)
	lines := []string{
		fmt.Sprintf("%s remains a central challenge: existing methods trade accuracy for cost and degrade out of distribution.", task),
		fmt.Sprintf("We introduce a %s %s that scales to %s without task-specific tuning.", strings.ToLower(seedPick(r, seedAdjectives)), strings.ToLower(seedPick(r, seedNouns)), t),
		fmt.Sprintf("Across %d benchmarks it improves on the strongest baselines by %d.%d points on average while using %d%% less compute.", 3+r.IntN(9), 1+r.IntN(9), r.IntN(10), 10+r.IntN(60)),
		"Ablations show that both components matter, and that the gains grow with scale.",
		"We release code, checkpoints and evaluation data.",
	}
	return strings.Join(lines, " ")
}

func hostOf(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	if i := strings.IndexByte(u, '/'); i >= 0 {
		u = u[:i]
	}
	return strings.TrimPrefix(u, "www.")
}

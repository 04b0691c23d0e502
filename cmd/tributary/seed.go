package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary/db"
	"tributary/seed"
)

// seedDemoPassword is every seeded user's password.
const seedDemoPassword = "tributary"

const seedHelp = `Usage: tributary seed [flags]

Fills an empty (freshly migrated) database with a world for demos and benchmarks, in
one go. The same flags give byte-identical data; --seed picks another, equally plausible
world; --end moves it in time.

  users    notability (external followers) is lognormal: median ~500, a tail into the
           100k-1M range. 2.5 %% are VIP, mostly the notable ones. The demo logins come
           first: ada (VIP), grace (follows ~650 people), alan and vera. Every seeded
           user's password is %q, so any handle can log in.
  follows  power law: most people follow 5-200, a few ~2,000; VIPs and notable, active
           people collect most followers.
  posts    the 180 days before --end, denser recently and in the UTC afternoon and
           evening, quieter at night and on weekends. arXiv (abs, pdf, versions), Hugging
           Face models, datasets and spaces, GitHub repositories (also /tree/main/...),
           OpenReview, DOIs and publisher pages, blogs, and tweets
           (https://x.com/<handle>/status/<id>) linking a paper with a preview image.
           Resources have Zipf-like popularity: most are shared once, popular papers by
           dozens to hundreds of people. Titles, comments and tags come from word lists;
           some posts carry a /preview/<key>.svg image. Every post is in its author's
           public posts feed, derived exactly as the app derives shares.
  events   card_seen (type 7): followers seeing what their followees shared, minutes to
           days after the share, with lognormal dwell (median 1.4 s); 12 per post unless
           --events says otherwise.

The benchmark dataset: tributary seed --users 50000 --posts 400000

Flags:
`

func cmdSeed(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "seed", "seed [flags]")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, seedHelp, seedDemoPassword)
		fs.PrintDefaults()
	}
	var dbf dbFlags
	dbf.register(fs, e)
	users := fs.Int("users", 3000, "number of users (at least 10)")
	posts := fs.Int("posts", 20000, "number of posts")
	events := fs.Int("events", 0, "number of card_seen events (0: 12 per post)")
	likes := fs.Int("likes", 0, "number of likes (0: 5 per post)")
	comments := fs.Int("comments", 0, "number of comments (0: 1 per post)")
	worldSeed := fs.Int64("seed", 1, "random seed")
	endFlag := fs.String("end", "", "end of the seeded period, RFC 3339 or YYYY-MM-DD (default: start of the current UTC day)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("seed: unexpected argument %q", fs.Arg(0))
	}
	end, err := parseSeedEnd(*endFlag, time.Now())
	if err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(seedDemoPassword), bcrypt.DefaultCost)
	if err != nil {
		return fmt.Errorf("seed: hash demo password: %w", err)
	}
	pool, err := dbf.open(ctx, e)
	if err != nil {
		return err
	}
	defer pool.Close()

	started := time.Now()
	p := newSeedProgress(e.stderr)
	res, err := seed.Fill(ctx, db.NewStore(pool), seed.Config{
		Users: *users, Posts: *posts, Events: *events, Likes: *likes, Comments: *comments, Seed: *worldSeed, End: end,
		Progress: p.report, DemoPasswordHash: string(hash), DemoPassword: seedDemoPassword,
	})
	p.stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Seeded in %.1fs (data up to %s): %d users, %d follows, %d posts, %d anchors, %d events, %d likes, %d comments.\n",
		time.Since(started).Seconds(), end.Format(time.RFC3339), res.Users, res.Follows, res.Posts, res.Anchors, res.Events, res.Likes, res.Comments)
	fmt.Fprintf(e.stdout, "Demo logins (password %q):\n", seedDemoPassword)
	for _, l := range res.Logins {
		fmt.Fprintf(e.stdout, "  %-6s %s\n", l.Handle, l.Note)
	}
	fmt.Fprintln(e.stdout, res.Note)
	return nil
}

// parseSeedEnd reads --end; empty means the start of now's UTC day.
func parseSeedEnd(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return now.UTC().Truncate(24 * time.Hour), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("seed: --end %q is neither RFC 3339 (2025-06-01T00:00:00Z) nor a date (2025-06-01)", s)
}

// seedProgress shows seed.Fill's stages on stderr: bars redrawn in place on a terminal,
// otherwise one line per finished stage, so logs stay readable. Some stages run at the
// same time (follows and posts alongside events), so a terminal line shows every
// running stage.
type seedProgress struct {
	w        io.Writer
	tty      bool
	running  []*seedStage
	finished map[string]bool
	drawn    time.Time
}

type seedStage struct {
	name        string
	done, total int
	started     time.Time
}

func newSeedProgress(w io.Writer) *seedProgress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &seedProgress{w: w, tty: tty, finished: map[string]bool{}}
}

func (p *seedProgress) report(stage string, done, total int) {
	if p.finished[stage] {
		return
	}
	now := time.Now()
	i := slices.IndexFunc(p.running, func(s *seedStage) bool { return s.name == stage })
	if i < 0 {
		p.running = append(p.running, &seedStage{name: stage, started: now})
		i = len(p.running) - 1
	}
	st := p.running[i]
	st.done, st.total = done, total
	if done < total {
		if p.tty && now.Sub(p.drawn) >= 100*time.Millisecond {
			p.redraw(now)
		}
		return
	}
	p.running = slices.Delete(p.running, i, i+1)
	p.finished[stage] = true
	line := fmt.Sprintf("%-10s %10d in %5.1fs", stage, total, now.Sub(st.started).Seconds())
	if !p.tty {
		fmt.Fprintln(p.w, "seed:", line)
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s\n", line)
	p.redraw(now)
}

// redraw rewrites the terminal's last line with a bar per running stage.
func (p *seedProgress) redraw(now time.Time) {
	p.drawn = now
	parts := make([]string, 0, len(p.running))
	for _, st := range p.running {
		const width = 20
		filled := 0
		if st.total > 0 {
			filled = min(width, width*st.done/st.total)
		}
		parts = append(parts, fmt.Sprintf("%s [%s%s] %3d%%", st.name, strings.Repeat("#", filled),
			strings.Repeat(".", width-filled), 100*st.done/max(1, st.total)))
	}
	fmt.Fprintf(p.w, "\r\033[K%s", strings.Join(parts, "   "))
}

// stop ends an unfinished bar's line, so what follows starts on a fresh line.
func (p *seedProgress) stop() {
	if p.tty && len(p.running) > 0 {
		fmt.Fprintln(p.w)
	}
}

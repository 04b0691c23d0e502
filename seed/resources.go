package seed

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// seedKind is the kind of resource people share.
type seedKind uint8

const (
	seedArxiv seedKind = iota
	seedHFModel
	seedHFDataset
	seedHFSpace
	seedGitHub
	seedOpenReview
	seedDOI
	seedBlog
	seedTweet
	seedKinds
)

// seedKindShare is how common each kind of resource is.
var seedKindShare = [seedKinds]float64{0.36, 0.09, 0.03, 0.02, 0.16, 0.06, 0.08, 0.16, 0.04}

// seedKindNames name the kinds in preview image keys.
var seedKindNames = [seedKinds]string{"arxiv", "model", "dataset", "space", "github", "openreview", "doi", "blog", "tweet"}

// seedResource is a paper, model, repository, page or tweet that people share.
type seedResource struct {
	kind    seedKind
	topic   int
	classic bool   // released before the window and still shared throughout it
	t0      int64  // when it came out (ms)
	shares  int    // how many posts share it
	key     string // arxiv id, org/name, owner/repo, forum id, DOI, page URL or x.com handle/status
	title   string
	repo    string // a paper's code on GitHub (owner/repo), or ""
	preview string // /preview/<key>.svg, the same image for every share
}

// genResources draws resources until their shares add up to the number of posts. Share
// counts are Pareto-distributed (Zipf-like, exponent 1.3, capped at a quarter of the
// users): most things are shared once, popular papers by dozens or hundreds of people.
func (w *seedWorld) genResources() {
	capShares := max(3, min(1500, w.cfg.Users/4))
	kinds := newSeedPicker(seedKindShare[:])
	keys := map[uint64]bool{} // seedKeyHash of the names taken
	total := 0
	for idx := 0; total < w.cfg.Posts; idx++ {
		r := seedRNG(w.cfg.Seed, seedStageResources, idx)
		res := seedResource{kind: seedKind(kinds.pick(r)), topic: r.IntN(len(seedTopics))}
		shares := math.Inf(1)
		for shares >= float64(capShares+1) { // truncated, so no pile of resources sits at the cap
			shares = math.Pow(1-r.Float64(), -1/1.3)
		}
		res.shares = min(int(shares), w.cfg.Posts-total)
		res.classic = res.kind != seedTweet && r.Float64() < 0.08
		res.t0 = w.skewedTime(r)
		if res.classic {
			res.t0 = w.start - seedDay - int64(r.Float64()*float64(5*365*seedDay))
		}
		for tries := 0; ; tries++ {
			w.describe(r, &res)
			if tries >= seedKeyTries {
				spill(r, &res, tries-seedKeyTries)
			}
			if k := seedKeyHash(res.kind, res.key); !keys[k] {
				keys[k] = true
				break
			}
		}
		h := fnv.New32a()
		h.Write([]byte(res.key))
		res.preview = fmt.Sprintf("/preview/%s-%08x.svg", seedKindNames[res.kind], h.Sum32())
		w.resources = append(w.resources, res)
		total += res.shares
	}
}

// seedKeyHash identifies a resource's name (its kind and key, ASCII letters in any case
// alike) by 64 bits: at a few million names a collision, which would only cost one more
// draw, is unlikely, and a lookup far cheaper than of the name's text.
func seedKeyHash(kind seedKind, key string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037) ^ uint64(kind)
	h *= prime
	for i := 0; i < len(key); i++ {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * prime
	}
	return h
}

// seedKeyTries is how many resources of a kind genResources draws for a new one before it
// spills out of the kind's usual names (spill): model, repository and space names are made
// of a few hundred words each, and arXiv numbers of 24,000 a month, which a world of millions
// of posts uses up (at 400,000 posts no resource took more than 18 draws, so those worlds
// are the same as before).
const seedKeyTries = 32

// spill makes a drawn resource's name rarer, the more so the more draws it took (n from 0):
// an arXiv number from the whole five-digit range, any other name with a suffix, as people
// name the second repository or model of a name.
func spill(r *rand.Rand, res *seedResource, n int) {
	old := res.key
	switch res.kind {
	case seedArxiv:
		res.key = res.key[:strings.IndexByte(res.key, '.')+1] + fmt.Sprintf("%05d", 1+r.IntN(99_999))
	default:
		res.key += fmt.Sprintf("-%d", 2+n/4+r.IntN(8+n))
	}
	res.title = strings.ReplaceAll(res.title, old, res.key)
}

// skewedTime draws a time in the window, denser towards its end and in busy hours.
func (w *seedWorld) skewedTime(r *rand.Rand) int64 {
	const a = 1.0 // the last day is 1+a times as busy as the first
	for {
		u := r.Float64()
		x := (math.Sqrt(1+2*a*u*(1+a/2)) - 1) / a // inverse CDF of density 1+a·x
		t := w.start + int64(x*float64(w.last-w.start))
		if seedInRhythm(r, t) {
			return t
		}
	}
}

// describe names a resource: its identifier, title and code repository.
func (w *seedWorld) describe(r *rand.Rand, res *seedResource) {
	topic := seedTopics[res.topic]
	paper := seedPaperTitle(r, topic)
	method := seedPick(r, seedMethodHeads) + seedPick(r, seedMethodTails)
	res.repo = ""
	switch res.kind {
	case seedArxiv:
		y, m := seedYearMonth(res.t0)
		res.key = fmt.Sprintf("%02d%02d.%05d", y%100, m, 1+r.IntN(24_000))
		res.title = paper
		if r.Float64() < 0.35 {
			res.repo = seedRepoOwner(r, w) + "/" + strings.ToLower(method)
		}
	case seedOpenReview:
		res.key = seedRandString(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 10)
		res.title = paper
	case seedDOI:
		y, m := seedYearMonth(res.t0)
		switch r.IntN(5) {
		case 0:
			res.key = fmt.Sprintf("10.1038/s41586-%03d-%05d-%d", y%1000, r.IntN(100_000), r.IntN(10))
		case 1:
			res.key = fmt.Sprintf("10.1145/%07d.%07d", 3_500_000+r.IntN(200_000), 3_500_000+r.IntN(200_000))
		case 2:
			res.key = fmt.Sprintf("10.1126/science.ad%c%04d", 'a'+rune(r.IntN(26)), r.IntN(10_000))
		case 3:
			res.key = fmt.Sprintf("10.1101/%d.%02d.%02d.%06d", y, m, 1+r.IntN(28), r.IntN(1_000_000))
		default:
			res.key = fmt.Sprintf("10.1073/pnas.%d%07d", y%100, r.IntN(10_000_000))
		}
		res.title = paper
	case seedHFModel:
		name := seedPick(r, seedMethodHeads) + "-" + seedPick(r, seedModelSizes) + seedPick(r, seedModelSuffixes)
		res.key = seedPick(r, seedOrgs) + "/" + name
		res.title = res.key + " · Hugging Face"
	case seedHFDataset:
		res.key = seedPick(r, seedOrgs) + "/" + topic.tag + "-" + seedPick(r, seedDatasetNouns) + fmt.Sprintf("-v%d", 1+r.IntN(3))
		res.title = res.key + " · Datasets at Hugging Face"
	case seedHFSpace:
		org := seedPick(r, seedOrgs)
		res.key = org + "/" + strings.ToLower(method) + "-demo"
		res.title = method + " Demo - a Hugging Face Space by " + org
	case seedGitHub:
		res.key = seedRepoOwner(r, w) + "/" + seedRepoName(r, method, topic)
		res.title = fmt.Sprintf("GitHub - %s: %s %s for %s", res.key, seedPick(r, seedAdjectives),
			strings.ToLower(seedPick(r, seedNouns)), seedPick(r, topic.tasks))
	case seedBlog:
		res.title = seedBlogTitle(r, topic)
		slug := seedSlug(res.title)
		switch host := seedPick(r, seedBlogHosts); {
		case r.IntN(6) == 0:
			res.key = "https://huggingface.co/blog/" + slug
		case r.IntN(5) == 0:
			res.key = fmt.Sprintf("https://medium.com/@%s/%s-%012x", seedRepoOwner(r, w), slug, r.Uint64()>>16)
		case strings.HasSuffix(host, ".substack.com"):
			res.key = "https://" + host + "/p/" + slug
		default:
			y, m := seedYearMonth(res.t0)
			res.key = fmt.Sprintf("https://%s/%d/%02d/%s", host, y, m, slug)
		}
	case seedTweet:
		handle := seedPick(r, seedNickWords) + seedPick(r, seedNickSuffixes)
		res.key = fmt.Sprintf("%s/status/%d", handle, seedSnowflake(r, res.t0))
		res.title = fmt.Sprintf("%s on X: \"%s\"", handle, seedPick(r, seedComments))
	}
}

func seedPaperTitle(r *rand.Rand, t seedTopic) string {
	task := seedPick(r, t.tasks)
	noun := seedPick(r, seedNouns)
	switch r.IntN(8) {
	case 0:
		return fmt.Sprintf("%s%s: %s %s for %s", seedPick(r, seedMethodHeads), seedPick(r, seedMethodTails), seedPick(r, seedAdjectives), noun, task)
	case 1:
		return fmt.Sprintf("%s%s: %s Is All You Need for %s", seedPick(r, seedMethodHeads), seedPick(r, seedMethodTails), noun, task)
	case 2:
		return fmt.Sprintf("On the %s of %s in %s", seedPick(r, []string{"Robustness", "Limits", "Emergence", "Geometry", "Role", "Brittleness"}), noun, task)
	case 3:
		return fmt.Sprintf("Scaling Laws for %s %s in %s", seedPick(r, seedAdjectives), noun, task)
	case 4:
		return fmt.Sprintf("Towards %s %s via %s", seedPick(r, seedAdjectives), task, noun)
	case 5:
		return fmt.Sprintf("%s %s with %s for %s", seedPick(r, seedGerunds), noun, seedPick(r, seedNouns), task)
	case 6:
		return fmt.Sprintf("When Do %s Help %s? Evidence from %s", noun, task, seedPick(r, seedTopics).tasks[0])
	default:
		return fmt.Sprintf("%s: A %s Benchmark for %s", strings.ToUpper(seedPick(r, seedMethodHeads)), seedPick(r, seedAdjectives), task)
	}
}

func seedBlogTitle(r *rand.Rand, t seedTopic) string {
	f := seedPick(r, seedBlogTitles)
	noun, task := strings.ToLower(seedPick(r, seedNouns)), strings.ToLower(seedPick(r, t.tasks))
	switch strings.Count(f, "%s") {
	case 1:
		return fmt.Sprintf(f, noun)
	default:
		if strings.HasPrefix(f, "What I learned") {
			return fmt.Sprintf(f, strings.ToLower(seedPick(r, seedGerunds)), noun)
		}
		return fmt.Sprintf(f, noun, task)
	}
}

func seedRepoOwner(r *rand.Rand, w *seedWorld) string {
	if r.IntN(3) == 0 {
		return seedPick(r, seedOrgs)
	}
	return strings.ReplaceAll(w.users[r.IntN(len(w.users))].handle, "_", "-") // GitHub allows no '_'
}

// subject is how a tweet names res.
func (res *seedResource) subject() string {
	switch res.kind {
	case seedHFModel, seedHFDataset, seedHFSpace, seedGitHub:
		return res.key
	}
	return res.title
}

func seedRepoName(r *rand.Rand, method string, t seedTopic) string {
	switch r.IntN(4) {
	case 0:
		return "awesome-" + t.tag
	case 1:
		return strings.ToLower(method) + "-rs"
	case 2:
		return "tiny-" + strings.ToLower(strings.Fields(seedPick(r, seedNouns))[0])
	default:
		return strings.ToLower(method)
	}
}

// seedSlug turns a title into a URL path segment.
func seedSlug(title string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(title) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func seedRandString(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// seedSnowflake makes an X status id for a tweet posted at ms, as X does.
func seedSnowflake(r *rand.Rand, ms int64) uint64 {
	return uint64(ms-1288834974657)<<22 | uint64(r.IntN(1<<22))
}

func seedYearMonth(ms int64) (int, int) {
	t := time.UnixMilli(ms).UTC()
	return t.Year(), int(t.Month())
}

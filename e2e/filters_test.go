package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
)

// Filter feeds (/t/{tag}, /u/{handle}/likes) and sharer stacks that name
// first who explains the card.

// filterPost stores a post by handle made ago, with its text and tags, and returns its id.
func filterPost(f *fixture, handle, url, title, body string, tags []string, ago time.Duration) int64 {
	f.t.Helper()
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: f.users[handle].ID, URL: url, Title: title, Body: body,
		Tags: tags, CreatedAt: time.Now().Add(-ago)})
	if err != nil {
		f.t.Fatal(err)
	}
	id, err := f.store.CreatePost(context.Background(), p)
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

// viewerOf is handle's access, as the server reads it.
func viewerOf(f *fixture, handle string) tributary.Viewer {
	f.t.Helper()
	v, err := f.store.ViewerAccess(context.Background(), f.users[handle].ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// likeAs stores handle's like of a post at at.
func likeAs(f *fixture, handle string, postID int64, at time.Time) {
	f.t.Helper()
	if err := f.store.Like(context.Background(), viewerOf(f, handle), postID, at); err != nil {
		f.t.Fatal(err)
	}
}

// postIDs are the data-post-id of the page's (chronological) cards, in order.
func postIDs(t *testing.T, page playwright.Page) []int64 {
	t.Helper()
	ids, err := page.Locator(`[data-testid="card"]`).EvaluateAll(`els => els.map(e => e.dataset.postId)`)
	must(t, err)
	var out []int64
	for _, id := range ids.([]any) {
		n, err := strconv.ParseInt(id.(string), 10, 64)
		must(t, err)
		out = append(out, n)
	}
	return out
}

// getJSON fetches path with the page's session and decodes the answer into v.
func getJSON(t *testing.T, page playwright.Page, url string, v any) {
	t.Helper()
	res, err := page.Request().Get(url)
	must(t, err)
	if res.Status() != 200 {
		t.Fatalf("GET %s: %d", url, res.Status())
	}
	body, err := res.Body()
	must(t, err)
	must(t, json.Unmarshal(body, v))
}

// timelineTitles are the titles of the first page of the viewer's ranked feed as JSON.
func timelineTitles(t *testing.T, page playwright.Page, base string) []string {
	t.Helper()
	var tl struct {
		Items []struct {
			Title string `json:"title"`
		} `json:"items"`
	}
	getJSON(t, page, base+"/api/timeline", &tl)
	var out []string
	for _, it := range tl.Items {
		out = append(out, it.Title)
	}
	return out
}

// chronoTitles are the titles of the first page of a chronological feed as JSON.
func chronoTitles(t *testing.T, page playwright.Page, url string) []string {
	t.Helper()
	var p struct {
		Posts []struct {
			Title string `json:"title"`
		} `json:"posts"`
	}
	getJSON(t, page, url+"?format=json", &p)
	var out []string
	for _, it := range p.Posts {
		out = append(out, it.Title)
	}
	return out
}

// cardTitles are the titles of the page's cards, in order.
func cardTitles(t *testing.T, page playwright.Page) []string {
	t.Helper()
	titles, err := page.Locator(`[data-testid="card"] .card-title`).AllTextContents()
	must(t, err)
	for i := range titles {
		titles[i] = strings.TrimSpace(titles[i])
	}
	return titles
}

// cardWithTitle is the card whose title is exactly title.
func cardWithTitle(page playwright.Page, title string) playwright.Locator {
	return page.GetByTestId("card").Filter(playwright.LocatorFilterOptions{
		Has: page.Locator(".card-title", playwright.PageLocatorOptions{HasText: regexp.MustCompile(`^\s*` + regexp.QuoteMeta(title) + `\s*$`)})})
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// A #tag link on a home feed card opens the tag's feed: every post tagged, with the tag in
// its text or in a comment, newest first, scrolled page by page to the end, each post once.
func TestFilterTagFeedScrollsToTheEnd(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.follow("reader", "ada")
	ctx := context.Background()

	// 29 posts with #diffusion an hour apart, tagged (ada) or with the tag in their text (bob),
	// and one more below: two pages.
	var tagged []int64 // newest first
	for i := range 29 {
		h, body, tags := "ada", "", []string{"diffusion", "ml"}
		if i%2 == 1 {
			h, body, tags = "bob", fmt.Sprintf("Notes on #Diffusion, part %d.", i), nil
		}
		tagged = append(tagged, filterPost(f, h, fmt.Sprintf("https://blog.example.com/%s/diffusion-%d", h, i),
			fmt.Sprintf("Diffusion note %d", i), body, tags, time.Duration(i+2)*time.Hour))
	}
	// Near misses stay out: other tags, a longer tag in the text, the word without '#'.
	filterPost(f, "ada", "https://blog.example.com/ada/other-1", "Other tag", "", []string{"ml"}, 90*time.Minute)
	filterPost(f, "bob", "https://blog.example.com/bob/other-2", "Longer tag", "All about #diffusionmodels.", nil, 90*time.Minute)
	filterPost(f, "bob", "https://blog.example.com/bob/other-3", "Plain word", "Diffusion, but not as a tag.", nil, 90*time.Minute)
	// An old untagged post joins the feed, on top, when a comment tags it.
	old := filterPost(f, "ada", "https://blog.example.com/ada/old", "An old post tagged by a comment", "", nil, 300*time.Hour)
	if _, _, err := f.store.AddComment(ctx, viewerOf(f, "bob"), old, "This is #diffusion before its time.", time.Now(), tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	want := append([]int64{old}, tagged...)
	f.refresh()

	page := pageAs(t, srv, "reader")
	tagLink := page.Locator(`[data-testid="card"] ul.tags a[href="/t/diffusion"]`).First()
	must(t, expect.Locator(tagLink).ToHaveText("#diffusion"))
	must(t, tagLink.Click())
	must(t, expect.Page(page).ToHaveURL(srv.URL+"/t/diffusion"))
	must(t, expect.Locator(page.GetByTestId("feed-heading")).ToHaveText("#diffusion"))

	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(20))
	for n := 20; n < len(want); n += 20 {
		scrollForMore(t, page, min(n+20, len(want)))
	}
	end := page.GetByTestId("end")
	must(t, end.ScrollIntoViewIfNeeded())
	must(t, expect.Locator(end).ToHaveText("No older posts."))
	must(t, expect.Locator(page.GetByTestId("sentinel")).ToHaveCount(0))
	got := postIDs(t, page)
	if !slices.Equal(got, want) {
		t.Fatalf("the tag feed scrolled to other posts (want each tagged post once, newest arrival first):\ngot  %v\nwant %v", got, want)
	}
	// The tag in a post's text is a link to the same feed.
	inText := cardWithTitle(page, "Diffusion note 1").Locator(".excerpt").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "#Diffusion"})
	must(t, expect.Locator(inText).ToHaveAttribute("href", regexp.MustCompile(`^/t/(?i:diffusion)$`)))
}

// Anonymous visitors see a VIP named first on every card a VIP shared, even where a
// non-VIP is the primary sharer; a logged-in reader sees the sharer they follow first.
func TestSharerStacksNameWhoExplainsTheCard(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	vips := map[string]string{"vera": "Vera Vip", "victor": "Victor Vip"}
	for h, name := range vips {
		f.user(h, name, true)
	}
	for _, h := range []string{"nina", "otto", "pia", "reader"} {
		f.user(h, strings.ToUpper(h[:1])+h[1:]+" Plain", false)
	}
	f.follow("reader", "pia")
	type shape struct {
		vip    bool // a VIP shared it
		others int  // sharers besides the one named first
	}
	world := map[string]shape{}
	// The most recent share is the item's representative, its author the primary sharer:
	// here a non-VIP, the VIP sharing earlier.
	for i := range 36 {
		url, title := fmt.Sprintf("https://blog.example.com/item-%d", i), fmt.Sprintf("Shared item %d", i)
		ago := time.Duration(i+1) * time.Hour
		switch i % 3 {
		case 0:
			f.share("vera", url, title+" (vera)", ago+30*time.Minute)
			f.share("nina", url, title, ago)
			world[title] = shape{true, 1}
		case 1:
			f.share("victor", url, title+" (victor)", ago+40*time.Minute)
			f.share("pia", url, title+" (pia)", ago+20*time.Minute)
			f.share("otto", url, title, ago)
			world[title] = shape{true, 2}
		default:
			f.share("vera", url, title, ago)
			world[title] = shape{true, 0}
		}
	}
	for i := range 4 {
		f.share("otto", fmt.Sprintf("https://blog.example.com/plain-%d", i), fmt.Sprintf("Plain item %d", i), time.Duration(i+1)*time.Hour)
	}
	f.refresh()

	anon := newPage(t)
	_, err := anon.Goto(srv.URL + "/")
	must(t, err)
	cards := anon.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(20))
	scrollForMore(t, anon, 36)
	type shown struct{ Title, Href, Name, Text string }
	raw, err := cards.EvaluateAll(`els => els.slice(0, 30).map(e => {
		const s = e.querySelector('.sharers-text a.sharer');
		return {Title: e.querySelector('.card-title').textContent.trim(), Href: s ? s.getAttribute('href') : '',
			Name: s ? s.textContent.trim() : '', Text: (e.querySelector('.sharers-text') || {textContent: ''}).textContent.replace(/\s+/g, ' ').trim()};
	})`)
	must(t, err)
	b, err := json.Marshal(raw)
	must(t, err)
	var got []shown
	must(t, json.Unmarshal(b, &got))
	if len(got) != 30 {
		t.Fatalf("read %d of the first 30 cards", len(got))
	}
	withNonVIPPrimary := 0
	for _, c := range got {
		w, ok := world[c.Title]
		if !ok {
			t.Errorf("the anonymous front page shows %q, which no VIP shared", c.Title)
			continue
		}
		if !w.vip {
			continue
		}
		if w.others > 0 {
			withNonVIPPrimary++
		}
		handle := strings.TrimPrefix(c.Href, "/u/")
		name, isVIP := vips[handle]
		if !isVIP {
			t.Errorf("%q names %s (%s) first, not a VIP: %q", c.Title, c.Name, c.Href, c.Text)
			continue
		}
		want := "Shared by " + name + " (VIP)"
		switch w.others {
		case 1:
			want += " and 1 other"
		case 2:
			want += " and 2 others"
		}
		if c.Name != name || c.Text != want {
			t.Errorf("%q says %q (first %q), want %q", c.Title, c.Text, c.Name, want)
		}
	}
	if withNonVIPPrimary < 15 {
		t.Fatalf("only %d of the first 30 cards have a non-VIP primary sharer: the check proves little", withNonVIPPrimary)
	}

	// Logged in, the followed sharer comes first, though neither primary nor VIP.
	page := pageAs(t, srv, "reader")
	must(t, expect.Locator(page.GetByTestId("feed").GetByTestId("card")).ToHaveCount(12)) // below it: the front page's
	for _, n := range []int{1, 4, 7} {
		card := cardWithTitle(page, fmt.Sprintf("Shared item %d", n))
		must(t, expect.Locator(card).ToHaveCount(1))
		must(t, expect.Locator(card.Locator(".sharers-text a.sharer")).ToHaveAttribute("href", "/u/pia"))
		must(t, expect.Locator(card.Locator(".sharers-text")).ToHaveText("Shared by Pia Plain, whom you follow, and 2 others"))
	}
}

// A user's likes feed offers the posts they like after it was opened ("N new"); the pill
// puts them on top of what is shown.
func TestFilterLikesFeedNewPill(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	var posts []int64
	for i := range 6 {
		posts = append(posts, filterPost(f, "bob", fmt.Sprintf("https://blog.example.com/bob/%d", i), fmt.Sprintf("Bob's post %d", i), "", nil, time.Duration(i+2)*time.Hour))
	}
	// Ada liked posts 5, 3 and 1, in that order; most recently liked first.
	now := time.Now()
	likeAs(f, "ada", posts[5], now.Add(-3*time.Minute))
	likeAs(f, "ada", posts[3], now.Add(-2*time.Minute))
	likeAs(f, "ada", posts[1], now.Add(-time.Minute))

	page := pageAs(t, srv, "reader")
	_, err := page.Goto(srv.URL + "/u/ada")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("tab-Posts")).ToHaveAttribute("aria-current", "page"))
	must(t, page.GetByTestId("tab-Likes").Click())
	must(t, expect.Page(page).ToHaveURL(srv.URL+"/u/ada/likes"))
	must(t, expect.Locator(page.GetByTestId("tab-Likes")).ToHaveAttribute("aria-current", "page"))
	must(t, expect.Locator(page.GetByTestId("feed-heading")).ToHaveText("Liked by Ada Lovelace"))
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(3))
	before := postIDs(t, page)
	if want := []int64{posts[1], posts[3], posts[5]}; !slices.Equal(before, want) {
		t.Fatalf("likes feed shows %v, want %v (most recently liked first)", before, want)
	}
	pill := page.GetByTestId("new-pill")
	must(t, expect.Locator(pill).ToHaveCount(0))
	markDocument(t, page)

	// Ada likes another (older) post while the page is open.
	likeAs(f, "ada", posts[4], time.Now())
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
	must(t, pill.Click())
	must(t, expect.Locator(cards).ToHaveCount(4))
	must(t, expect.Locator(cards.First()).ToContainText("Bob's post 4"))
	if after := postIDs(t, page); !slices.Equal(after, append([]int64{posts[4]}, before...)) {
		t.Fatalf("after the pill the feed shows %v, want %v above %v", after, posts[4], before)
	}
	must(t, expect.Locator(pill).ToHaveCount(0))
	sameDocument(t, page)
	// The notice counts from the new fencepost: nothing new until the next like.
	pollNow(t, page, chronoPoll)
	must(t, expect.Locator(pill).ToHaveCount(0))
	likeAs(f, "ada", posts[0], time.Now())
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
}

package db

import (
	"fmt"
	"testing"
)

func TestCardCacheDecodesByContent(t *testing.T) {
	c := newCardCache(3)
	sharers := func(name string) []byte {
		return []byte(fmt.Sprintf(`[{"id":1,"handle":"%s","name":"%s","vip":false,"public":true,"at":"2026-11-20T12:00:00Z"}]`, name, name))
	}
	links := []byte(`[{"url":"https://example.com/a"}]`)
	for round := range 2 { // the second round hits, the same as the first
		for _, name := range []string{"ada", "grace", "alan", "vera"} { // one more than the cache holds
			l, s, err := c.decode(links, sharers(name))
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != 1 || s[0].Handle != name || len(l) != 1 || l[0].URL != "https://example.com/a" {
				t.Fatalf("round %d: %s decoded as %+v, %+v", round, name, s, l)
			}
		}
	}
	if n := c.cards.Len(); n > 3 {
		t.Fatalf("cache holds %d entries, want at most 3", n)
	}
	if _, _, err := c.decode(links, []byte(`[{"id":`)); err == nil {
		t.Fatal("broken JSON decoded")
	}
}

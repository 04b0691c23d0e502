package linkcard

import (
	"encoding/json"
	"slices"
	"strings"
)

// ldThing is the one JSON-LD object a page is about, read loosely: sites
// put strings, objects or arrays in any property.
type ldThing struct {
	types       []string
	name        string
	description string
	abstract    string
	authors     []string
	published   string
	image       string
	imageAlt    string
	language    string
	publisher   string
	url         string
	progLang    string
}

// ldRank orders the JSON-LD types a card cares about, best first.
var ldRank = []string{
	"ScholarlyArticle", "SoftwareSourceCode", "Dataset", "Article", "NewsArticle",
	"BlogPosting", "TechArticle", "Report", "SoftwareApplication", "CreativeWork", "WebPage",
}

// ldKind maps a JSON-LD type to the card's kind.
var ldKind = map[string]Kind{
	"ScholarlyArticle": KindPaper, "Report": KindPaper, "SoftwareSourceCode": KindRepo,
	"Dataset": KindDataset, "Article": KindArticle, "NewsArticle": KindArticle,
	"BlogPosting": KindArticle, "TechArticle": KindArticle,
}

// parseJSONLD returns the best-ranked object among the page's JSON-LD
// blocks (their top level, arrays and @graph), or nil.
func parseJSONLD(blocks []string) *ldThing {
	var best *ldThing
	bestRank := len(ldRank)
	for _, b := range blocks {
		var v any
		if json.Unmarshal([]byte(b), &v) != nil {
			continue
		}
		for _, obj := range ldObjects(v, 0) {
			t := ldFrom(obj)
			for _, ty := range t.types {
				if r := slices.Index(ldRank, ty); r >= 0 && r < bestRank {
					best, bestRank = t, r
				}
			}
		}
	}
	return best
}

// ldObjects flattens the candidate objects of a JSON-LD value.
func ldObjects(v any, depth int) []map[string]any {
	if depth > 3 {
		return nil
	}
	var out []map[string]any
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			out = append(out, ldObjects(e, depth+1)...)
		}
	case map[string]any:
		out = append(out, x)
		if g, ok := x["@graph"]; ok {
			out = append(out, ldObjects(g, depth+1)...)
		}
	}
	return out
}

func ldFrom(o map[string]any) *ldThing {
	t := &ldThing{
		types:       ldStrings(o["@type"]),
		name:        firstOf(ldString(o["headline"]), ldString(o["name"])),
		description: ldString(o["description"]),
		abstract:    ldString(o["abstract"]),
		published:   firstOf(ldString(o["datePublished"]), ldString(o["dateCreated"])),
		language:    ldString(o["inLanguage"]),
		publisher:   ldString(o["publisher"]),
		url:         ldString(o["url"]),
		progLang:    ldString(o["programmingLanguage"]),
	}
	for _, a := range ldList(o["author"]) {
		if n := ldString(a); n != "" {
			t.authors = append(t.authors, n)
		}
	}
	if imgs := ldList(o["image"]); len(imgs) > 0 {
		s, _ := imgs[0].(string)
		t.image = firstOf(s, ldField(imgs[0], "url"), ldField(imgs[0], "contentUrl"))
		t.imageAlt = firstOf(ldField(imgs[0], "caption"), ldField(imgs[0], "description"))
	}
	return t
}

func ldList(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	if v == nil {
		return nil
	}
	return []any{v}
}

// ldString reads a text value: a string, the first of an array, or an
// object's name, url or @value.
func ldString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if len(x) > 0 {
			return ldString(x[0])
		}
	case map[string]any:
		return firstOf(ldField(x, "name"), ldField(x, "url"), ldField(x, "@value"))
	}
	return ""
}

func ldField(v any, key string) string {
	if m, ok := v.(map[string]any); ok {
		if s, ok := m[key].(string); ok {
			return s
		}
	}
	return ""
}

func ldStrings(v any) []string {
	var out []string
	for _, e := range ldList(v) {
		if s, ok := e.(string); ok {
			out = append(out, strings.TrimPrefix(s, "schema:"))
		}
	}
	return out
}

package linkcard

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// page is what an HTML document says about itself, before trust is weighed.
type page struct {
	title     string              // <title>
	h1        string              // the first <h1>, for pages with no title at all
	lang      string              // <html lang>
	canonical string              // <link rel=canonical href>
	oembed    string              // <link rel=alternate type=application/json+oembed href>
	meta      map[string][]string // lower-cased name, property or itemprop -> contents, in order
	jsonLD    []string            // bodies of <script type=application/ld+json>
}

// Bounds on what one page may contribute, whatever it holds.
const (
	maxMetaTags   = 2000
	maxJSONLD     = 16
	maxTextTokens = 64 // text tokens joined into a title or h1
)

// decodeHTML converts body to UTF-8, from the charset named by the
// Content-Type header, a BOM or a <meta charset> in the first 1024 bytes.
func decodeHTML(body []byte, contentType string) []byte {
	enc, _, _ := charset.DetermineEncoding(body, contentType)
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

// parsePage reads an HTML document with the tokenizer, which accepts any
// input: malformed markup yields fewer fields, never an error.
func parsePage(doc []byte) *page {
	p := &page{meta: map[string][]string{}}
	z := html.NewTokenizer(bytes.NewReader(doc))
	z.SetMaxBuf(len(doc) + 1)
	nmeta := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return p
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		attrs := map[string]string{}
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			if _, seen := attrs[string(k)]; !seen {
				attrs[string(k)] = string(v)
			}
		}
		switch string(name) {
		case "html":
			if p.lang == "" {
				p.lang = strings.TrimSpace(attrs["lang"])
			}
		case "meta":
			key := firstOf(attrs["property"], attrs["name"], attrs["itemprop"])
			if key != "" && nmeta < maxMetaTags {
				key = strings.ToLower(strings.TrimSpace(key))
				p.meta[key] = append(p.meta[key], attrs["content"])
				nmeta++
			}
		case "link":
			rel := " " + strings.ToLower(attrs["rel"]) + " "
			switch {
			case strings.Contains(rel, " canonical ") && p.canonical == "":
				p.canonical = attrs["href"]
			case strings.Contains(rel, " alternate ") && p.oembed == "" &&
				strings.EqualFold(strings.TrimSpace(attrs["type"]), "application/json+oembed"):
				p.oembed = attrs["href"]
			}
		case "title":
			if p.title == "" && tt == html.StartTagToken {
				p.title = textUntil(z, "title")
			}
		case "h1":
			if p.h1 == "" && tt == html.StartTagToken {
				p.h1 = textUntil(z, "h1")
			}
		case "script":
			if strings.EqualFold(strings.TrimSpace(attrs["type"]), "application/ld+json") && len(p.jsonLD) < maxJSONLD {
				if z.Next() == html.TextToken {
					p.jsonLD = append(p.jsonLD, string(z.Text()))
				}
			}
		}
	}
}

// textUntil joins the text inside an element up to its end tag.
func textUntil(z *html.Tokenizer, tag string) string {
	var b strings.Builder
	for range maxTextTokens {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text())
			b.WriteByte(' ')
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == tag {
				return b.String()
			}
		}
	}
	return b.String()
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// first returns the first non-blank content of a meta key.
func (p *page) first(keys ...string) string {
	for _, k := range keys {
		if v := firstOf(p.meta[k]...); v != "" {
			return v
		}
	}
	return ""
}

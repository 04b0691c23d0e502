package search

import (
	"slices"
	"strings"

	"tributary"
)

// operators are the names of the operators with values, in canonical order.
var operators = []string{"from", "in", "commented-by", "liked-by", "site"}

// values returns the field of q that holds the values of an operator, or of tags ("#").
func (q *Query) values(kind string) *[]string {
	switch kind {
	case "from":
		return &q.From
	case "in":
		return &q.In
	case "commented-by":
		return &q.CommentedBy
	case "liked-by":
		return &q.LikedBy
	case "site":
		return &q.Sites
	}
	return &q.Tags
}

// tagItem returns the tag that body ("#nlp") at pos names; a bare '#' is punctuation.
func tagItem(body []rune, pos int, neg bool) (*item, error) {
	v := strings.TrimRight(string(body[1:]), trailingPunct)
	if v == "" {
		return nil, nil
	}
	if neg {
		return nil, errorf(pos-1, "Operators cannot be excluded: '-#' at position %d.", pos-1)
	}
	tags, err := tributary.NormalizeTags([]string{v})
	if err != nil {
		return nil, errorf(pos, "At position %d: %s", pos, tributary.ErrorMessage(err))
	}
	if len(tags) == 0 { // "##"
		return nil, nil
	}
	return &item{pos: pos, filters: []filter{{pos: pos, kind: "#", value: tags[0]}}}, nil
}

// operatorItem returns the operator name (lowercased, without its ':') at pos with its
// value, a comma list. It returns nil, nil for an unknown name without a value: "note:"
// is the word "note".
func operatorItem(name string, value []rune, pos int, neg bool) (*item, error) {
	v := strings.TrimRight(string(value), trailingPunct)
	if !slices.Contains(operators, name) {
		if v == "" {
			return nil, nil
		}
		return nil, errorf(pos, "Unknown operator '%s:' at position %d. Known: from:, in:, commented-by:, liked-by:, site:, #tag.", name, pos)
	}
	if neg {
		return nil, errorf(pos-1, "Operators cannot be excluded: '-%s:' at position %d.", name, pos-1)
	}
	if v == "" {
		return nil, errorf(pos, "Add a value after '%s:' at position %d.", name, pos)
	}
	it := &item{pos: pos}
	at := pos + len([]rune(name)) + 1
	for _, part := range strings.Split(v, ",") {
		if part == "" {
			return nil, errorf(at, "Empty value in the '%s:' list at position %d.", name, at)
		}
		norm, problem := normalize(name, part)
		if problem != "" {
			return nil, errorf(at, "'%s' at position %d: %s", part, at, problem)
		}
		it.filters = append(it.filters, filter{pos: at, kind: name, value: norm})
		at += len([]rune(part)) + 1
	}
	return it, nil
}

// normalize returns the value of an operator as stored, or why it is unacceptable.
func normalize(name, v string) (string, string) {
	switch name {
	case "site":
		return normalizeSite(v)
	case "in":
		if err := tributary.ValidateHandle(v); err != nil {
			return "", "Group name " + strings.TrimPrefix(tributary.ErrorMessage(err), "Handle ")
		}
	default:
		if err := tributary.ValidateHandle(v); err != nil && v != "me" {
			return "", tributary.ErrorMessage(err)
		}
	}
	return v, ""
}

// normalizeSite returns the host name v without its leading "www."s (all of them, so that
// the name it returns normalizes to itself), or why it is not one: labels of letters, digits
// and inner hyphens, joined by dots.
func normalizeSite(v string) (string, string) {
	for rest, ok := strings.CutPrefix(v, "www."); ok && strings.Contains(rest, "."); rest, ok = strings.CutPrefix(v, "www.") {
		v = rest
	}
	const problem = "Site must be a host name like arxiv.org."
	if len(v) > 253 || !strings.Contains(v, ".") {
		return "", problem
	}
	for _, label := range strings.Split(v, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", problem
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", problem
			}
		}
	}
	return v, ""
}

// setFilters sets q's operator values from fs: deduplicated, at most MaxValues of a
// kind, sorted.
func (q *Query) setFilters(fs []filter) error {
	seen := map[filter]bool{}
	count := map[string]int{}
	for _, f := range fs {
		key := filter{kind: f.kind, value: f.value}
		if seen[key] {
			continue
		}
		seen[key] = true
		if count[f.kind]++; count[f.kind] > MaxValues {
			what := "values for '" + f.kind + ":'"
			if f.kind == "#" {
				what = "tags"
			}
			return errorf(f.pos, "Too many %s: at most %d, and one more is at position %d.", what, MaxValues, f.pos)
		}
		vs := q.values(f.kind)
		*vs = append(*vs, f.value)
	}
	for _, kind := range operators {
		slices.Sort(*q.values(kind))
	}
	slices.Sort(q.Tags)
	return nil
}

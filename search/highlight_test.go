package search

import (
	"reflect"
	"testing"
)

func TestHighlight(t *testing.T) {
	type P = Piece
	for _, c := range []struct {
		text  string
		words []string
		want  []Piece
	}{
		{"Large language models.", []string{"model"}, []P{{"Large language ", false}, {"models", true}, {".", false}}},
		{"A model of models", []string{"models"}, []P{{"A ", false}, {"model", true}, {" of ", false}, {"models", true}}},
		{"mod MODE", []string{"model"}, []P{{"mod ", false}, {"MODE", true}}}, // a token of 3 characters is too short
		{"Transformers!", []string{"transf"}, []P{{"Transformers", true}, {"!", false}}},
		{"Scaling, scales", []string{"scale"}, []P{{"Scaling", true}, {", ", false}, {"scales", true}}},
		{"nothing notable", []string{"note"}, []P{{"nothing notable", false}}}, // the rest, "not", is too short
		{"use GPT-4 now", []string{"gpt-4"}, []P{{"use ", false}, {"GPT", true}, {"-", false}, {"4", true}, {" now", false}}},
		{"Über alles", []string{"über"}, []P{{"Über", true}, {" alles", false}}},
		{"no match here", []string{"zebra"}, []P{{"no match here", false}}},
		{"no words", nil, []P{{"no words", false}}},
		{"a\xffb", []string{"a", "b"}, []P{{"a", true}, {"\xff", false}, {"b", true}}},
		{"ab", []string{"a", "b"}, []P{{"ab", true}}},
		{"", []string{"a"}, nil},
	} {
		if got := Highlight(c.text, c.words); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Highlight(%q, %q) = %+v, want %+v", c.text, c.words, got, c.want)
		}
	}
}

package tributary

import "testing"

func TestMuted(t *testing.T) {
	v := Viewer{Mutes: []Mute{{Word: "crypto"}, {Word: "large language", Collapse: true}, {Word: "c++"}}}
	for _, c := range []struct {
		texts []string
		want  string
	}{
		{[]string{"All about Crypto markets"}, "crypto"},
		{[]string{"cryptography is fine"}, ""},
		{[]string{"no", "tags", "crypto"}, "crypto"},
		{[]string{"Large   language models"}, ""}, // the phrase as muted, one space
		{[]string{"large language models"}, "large language"},
		{[]string{"I like C++ a lot"}, "c++"},
		{[]string{"I like C++17"}, "c++"}, // "+" ends the word itself
		{[]string{"unrelated"}, ""},
		{[]string{"über-crypto!"}, "crypto"},
		{[]string{"ßcrypto"}, ""},
	} {
		m, ok := v.Muted(c.texts...)
		if got := map[bool]string{true: m.Word}[ok]; got != c.want {
			t.Errorf("Muted(%q) = %q, want %q", c.texts, got, c.want)
		}
	}
	if _, ok := (Viewer{}).Muted("crypto"); ok {
		t.Error("a viewer without mutes mutes something")
	}
}

func TestCleanMute(t *testing.T) {
	for in, want := range map[string]string{"  Crypto ": "crypto", "#ML": "ml", "Large\tLanguage  Models": "large language models"} {
		if got, err := CleanMute(in); err != nil || got != want {
			t.Errorf("CleanMute(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", "!!!", string(make([]byte, 61))} {
		if _, err := CleanMute(bad); ErrorCode(err) != EInvalid {
			t.Errorf("CleanMute(%q): err %v, want invalid", bad, err)
		}
	}
}

func TestHidesItem(t *testing.T) {
	v := Viewer{Hidden: []int64{3, 8, 21}}
	for id, want := range map[int64]bool{3: true, 8: true, 21: true, 4: false, 0: false, 22: false} {
		if got := v.HidesItem(id); got != want {
			t.Errorf("HidesItem(%d) = %v", id, got)
		}
	}
}

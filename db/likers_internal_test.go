package db

import (
	"encoding/json"
	"reflect"
	"testing"

	"tributary"
)

// likersJSON decodes likers as encoding/json does, the reference scanLikers must agree with.
func likersJSON(b []byte) ([]tributary.UserRef, bool) {
	var raw [][3]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		return nil, false
	}
	out := make([]tributary.UserRef, 0, len(raw))
	for _, r := range raw {
		var u tributary.UserRef
		if json.Unmarshal(r[0], &u.ID) != nil || json.Unmarshal(r[1], &u.Handle) != nil || json.Unmarshal(r[2], &u.Name) != nil {
			return nil, false
		}
		out = append(out, u)
	}
	return out, true
}

func TestScanLikersAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`[]`, ` [ ] `, `[[8, "dalia-bauer", "Dalia Bauer"], [54, "kenji-abebe", "Kenji Abebe"], [59, "jana34", "Jana Costa"]]`,
		"[[1, \"a\", \"b\"], \n [2, \"c\", \"d\"]]", `[[1,"a\"b\\c\né \u00e9 \ud83d\ude00","x"]]`, `[[-3, "", ""]]`,
		`[[1, "Zoë Ünal", "名前"]]`, "[[1, \"\xff\", \"x\"]]",
	} {
		got, ok := scanLikers([]byte(in))
		want, wantOK := likersJSON([]byte(in))
		if !ok || !wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: scanned %v (%v), encoding/json %v (%v)", in, got, ok, want, wantOK)
		}
	}
	for _, in := range []string{``, `[`, `[[1, "a"]]`, `[[1, "a", "b"],]`, `[[1, "a", "b"]] x`, `[[1.5, "a", "b"]]`,
		`[[1, null, "b"]]`, `[[1, "a", "b", 4]]`, `{"a": 1}`, "[[1, \"a\nb\", \"c\"]]", `[[99999999999999999999, "a", "b"]]`} {
		if got, ok := scanLikers([]byte(in)); ok {
			t.Errorf("%s: scanned %v", in, got)
		}
	}
}

func FuzzScanLikers(f *testing.F) {
	f.Add([]byte(`[[8, "dalia-bauer", "Dalia Bauer"], [54, "k\"e", "K\u00e9"]]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := scanLikers(b)
		if !ok {
			return // likersOf then asks encoding/json
		}
		want, wantOK := likersJSON(b)
		if !wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: scanned %v, encoding/json %v (%v)", b, got, want, wantOK)
		}
	})
}

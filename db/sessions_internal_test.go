package db

import (
	"reflect"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
)

func TestSessionCodecRoundTrips(t *testing.T) {
	deadline := time.Date(2026, 12, 25, 10, 30, 0, 123456789, time.UTC)
	for _, values := range []map[string]any{
		{},
		{"user_id": int64(42)},
		{"user_id": int64(-7), "wrote_at": int64(1795000000), "flash": "Saved — «ok»\x00", "seen": true},
		{"flash": ""},
	} {
		b, err := SessionCodec{}.Encode(deadline, values)
		if err != nil {
			t.Fatal(err)
		}
		if b[0] != 0 {
			t.Errorf("%v: not the compact encoding (%x)", values, b[:1])
		}
		d, got, err := SessionCodec{}.Decode(b)
		if err != nil || !d.Equal(deadline) || !reflect.DeepEqual(got, values) {
			t.Errorf("%v: decoded %v %v, %v", values, d, got, err)
		}
	}
}

// Sessions written by scs's gob codec (every session before this codec) are still read, and
// a value only gob can hold is written with gob.
func TestSessionCodecReadsAndWritesGob(t *testing.T) {
	deadline := time.Now().Add(time.Hour).Round(0)
	values := map[string]any{"user_id": int64(9), "flash": "hi"}
	b, err := scs.GobCodec{}.Encode(deadline, values)
	if err != nil {
		t.Fatal(err)
	}
	d, got, err := SessionCodec{}.Decode(b)
	if err != nil || !d.Equal(deadline) || !reflect.DeepEqual(got, values) {
		t.Errorf("gob session decoded %v %v, %v", d, got, err)
	}
	odd := map[string]any{"names": []string{"a", "b"}}
	b, err = SessionCodec{}.Encode(deadline, odd)
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := (SessionCodec{}).Decode(b); err != nil || !reflect.DeepEqual(got, odd) {
		t.Errorf("a []string value: %v, %v", got, err)
	}
}

func TestSessionCodecRefusesBrokenBytes(t *testing.T) {
	good, err := SessionCodec{}.Encode(time.Now(), map[string]any{"user_id": int64(5), "flash": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	for n := 2; n < len(good); n++ {
		if _, _, err := (SessionCodec{}).Decode(good[:n]); err == nil {
			t.Errorf("%x (cut at %d): no error", good[:n], n)
		}
	}
	for _, b := range [][]byte{{0, 2, 0}, {0, 1, 0, 1, 'k', 'z'}, {0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}} {
		if _, _, err := (SessionCodec{}).Decode(b); err == nil {
			t.Errorf("%x: no error", b)
		}
	}
}

func FuzzSessionCodec(f *testing.F) {
	b, _ := SessionCodec{}.Encode(time.Now(), map[string]any{"user_id": int64(5), "flash": "hello", "x": true})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 0 && b[0] != 0 {
			return // gob's
		}
		d, values, err := SessionCodec{}.Decode(b)
		if err != nil {
			return
		}
		again, err := SessionCodec{}.Encode(d, values)
		if err != nil {
			t.Fatal(err)
		}
		d2, values2, err := SessionCodec{}.Decode(again)
		if err != nil || !d2.Equal(d) || !reflect.DeepEqual(values, values2) {
			t.Fatalf("%x: %v %v then %v %v, %v", b, d, values, d2, values2, err)
		}
	})
}

package db_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"

	"tributary"
	"tributary/db/dbtest"
	"tributary/images"
)

// TestImagesRoundTrip stores the pipeline's output and reads it back by hash: the same
// bytes, type and size; a second store of the same image is one row; unknown and malformed
// hashes and mislabelled images are refused.
func TestImagesRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	src := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	for i := range src.Pix {
		src.Pix[i] = byte(i % 251)
	}
	var in bytes.Buffer
	if err := png.Encode(&in, src); err != nil {
		t.Fatal(err)
	}
	small, large, err := images.Avatar(in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	card, err := images.Card(in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second time finds them stored
		if err := s.PutImages(ctx, small, large, card); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []tributary.Image{small, large, card} {
		got, err := s.Image(ctx, want.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if got.Hash != want.Hash || got.ContentType != want.ContentType || got.Width != want.Width ||
			got.Height != want.Height || !bytes.Equal(got.Bytes, want.Bytes) {
			t.Errorf("read %s %s %d×%d (%d bytes), stored %s %s %d×%d (%d bytes)", got.Hash, got.ContentType, got.Width,
				got.Height, len(got.Bytes), want.Hash, want.ContentType, want.Width, want.Height, len(want.Bytes))
		}
	}
	var rows int
	if err := s.Pool.QueryRow(ctx, "SELECT count(*) FROM images").Scan(&rows); err != nil || rows != 3 {
		t.Errorf("%d rows (err %v), want 3", rows, err)
	}

	tests := []struct {
		hash string
		want string
	}{
		{strings.Repeat("ab", 32), tributary.ENotFound},
		{strings.Repeat("AB", 32), tributary.EInvalid},
		{"abc", tributary.EInvalid},
		{strings.Repeat("zz", 32), tributary.EInvalid},
		{"", tributary.EInvalid},
	}
	for _, tt := range tests {
		if _, err := s.Image(ctx, tt.hash); tributary.ErrorCode(err) != tt.want {
			t.Errorf("Image(%q): %v, want %s", tt.hash, err, tt.want)
		}
	}
	forged := card
	forged.Bytes = append([]byte{}, small.Bytes...)
	if err := s.PutImages(ctx, forged); err == nil {
		t.Error("an image whose hash is not of its bytes was stored")
	}
	svg := card
	svg.ContentType = "image/svg+xml"
	if err := s.PutImages(ctx, svg); err == nil {
		t.Error("an image of a type Tributary does not serve was stored")
	}
}

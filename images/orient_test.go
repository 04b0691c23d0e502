package images_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"tributary/images"
)

// exifOrientation is a big-endian TIFF structure whose one tag is the orientation o.
func exifOrientation(o uint16) string {
	t := []byte("MM\x00\x2a\x00\x00\x00\x08\x00\x01") // header, first directory at 8, one entry
	t = append(t, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1) // orientation, SHORT, one value
	t = binary.BigEndian.AppendUint16(t, o)
	return string(append(t, 0, 0, 0, 0, 0, 0)) // padding, no next directory
}

// TestExifOrientation checks a photo is turned as its camera recorded, since the Exif
// saying so is dropped: a 40×20 photo, red on the left and blue on the right.
func TestExifOrientation(t *testing.T) {
	src := solid(40, 20, color.NRGBA{255, 0, 0, 255})
	for y := range 20 {
		for x := 20; x < 40; x++ {
			src.Set(x, y, color.NRGBA{0, 0, 255, 255})
		}
	}
	photo := encodeJPEG(t, src)
	tests := []struct {
		o          uint16
		size       image.Point
		first, end string // the colour at the first pixel and the last
	}{
		{0, image.Pt(40, 20), "red", "blue"}, // none recorded
		{1, image.Pt(40, 20), "red", "blue"},
		{2, image.Pt(40, 20), "blue", "red"},
		{3, image.Pt(40, 20), "blue", "red"},
		{4, image.Pt(40, 20), "red", "blue"},
		{5, image.Pt(20, 40), "red", "blue"},
		{6, image.Pt(20, 40), "red", "blue"}, // turned clockwise: the left comes on top
		{7, image.Pt(20, 40), "blue", "red"},
		{8, image.Pt(20, 40), "blue", "red"},
		{9, image.Pt(40, 20), "red", "blue"}, // not an orientation
	}
	colour := func(img image.Image, x, y int) string {
		r, _, b, _ := img.At(x, y).RGBA()
		switch {
		case r>>8 > 200 && b>>8 < 60:
			return "red"
		case b>>8 > 200 && r>>8 < 60:
			return "blue"
		}
		return "mixed"
	}
	for _, tt := range tests {
		in := photo
		if tt.o > 0 {
			in = withJPEGExif(photo, exifOrientation(tt.o))
		}
		card, err := images.Card(in)
		if err != nil {
			t.Fatalf("orientation %d: %v", tt.o, err)
		}
		got, _ := jpeg.Decode(bytes.NewReader(card.Bytes))
		size := got.Bounds().Size()
		if size != tt.size || colour(got, 1, 1) != tt.first || colour(got, size.X-2, size.Y-2) != tt.end {
			t.Errorf("orientation %d: %v, %s then %s; want %v, %s then %s", tt.o, size, colour(got, 1, 1),
				colour(got, size.X-2, size.Y-2), tt.size, tt.first, tt.end)
		}
	}
	// A tall photo turned to lie down fits the card as it is shown: 1000×400 shown as 400×1000.
	tall := withJPEGExif(encodeJPEG(t, solid(1000, 400, color.NRGBA{9, 9, 9, 255})), exifOrientation(6))
	if card, err := images.Card(tall); err != nil || card.Width != 144 || card.Height != 360 {
		t.Errorf("a turned photo: %d×%d (err %v), want 144×360", card.Width, card.Height, err)
	}
}

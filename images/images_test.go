package images_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"testing"

	"tributary"
	"tributary/images"
)

// solid is a w×h image of one colour.
func solid(w, h int, c color.Color) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// animatedGIF has a red first frame and a blue second one.
func animatedGIF(t testing.TB) []byte {
	t.Helper()
	pal := color.Palette{color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}}
	frame := func(i uint8) *image.Paletted {
		p := image.NewPaletted(image.Rect(0, 0, 120, 80), pal)
		for j := range p.Pix {
			p.Pix[j] = i
		}
		return p
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{frame(0), frame(1)}, Delay: []int{10, 10}}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngChunk is one PNG chunk with its CRC.
func pngChunk(kind string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, kind...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(kind), data...)))
}

// pngBomb is a PNG whose header says w×h (8-bit grey) followed by a few bytes of pixels:
// a few hundred bytes that would ask a decoder for w×h bytes of memory.
func pngBomb(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 0, 0, 0, 0) // depth 8, greyscale, deflate, no filter, no interlace
	b := []byte("\x89PNG\r\n\x1a\n")
	b = append(b, pngChunk("IHDR", ihdr)...)
	b = append(b, pngChunk("IDAT", []byte{0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01})...)
	return append(b, pngChunk("IEND", nil)...)
}

// withPNGText inserts a tEXt chunk (metadata) after a PNG's header chunk.
func withPNGText(b []byte, text string) []byte {
	at := 8 + 12 + 13 // signature, then IHDR (length, type, 13 bytes, CRC)
	out := append([]byte{}, b[:at]...)
	out = append(out, pngChunk("tEXt", []byte("Comment\x00"+text))...)
	return append(out, b[at:]...)
}

// withJPEGExif inserts an APP1 Exif segment carrying text after a JPEG's start marker.
func withJPEGExif(b []byte, text string) []byte {
	payload := append([]byte("Exif\x00\x00"), text...)
	seg := append([]byte{0xff, 0xe1}, byte((len(payload)+2)>>8), byte(len(payload)+2))
	out := append([]byte{}, b[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, b[2:]...)
}

// gifBomb is a GIF whose logical screen is 65535×65535 (4.3 billion pixels).
func gifBomb() []byte {
	return []byte("GIF89a\xff\xff\xff\xff\x00\x00\x00;")
}

type fixture struct {
	name  string
	in    []byte
	want  images.Reason // "" when accepted
	card  image.Point   // the accepted thumbnail's size
	ctype string
}

func fixtures(t testing.TB) []fixture {
	opaque := encodePNG(t, solid(800, 600, color.NRGBA{200, 30, 30, 255}))
	photo := encodeJPEG(t, solid(1000, 1000, color.NRGBA{30, 120, 200, 255}))
	big := append(append([]byte{}, opaque...), make([]byte, 6<<20)...)
	return []fixture{
		{name: "opaque PNG", in: opaque, card: image.Pt(480, 360), ctype: tributary.ImageJPEG},
		{name: "transparent PNG", in: encodePNG(t, solid(100, 50, color.NRGBA{0, 200, 0, 100})), card: image.Pt(100, 50), ctype: tributary.ImagePNG},
		{name: "JPEG", in: photo, card: image.Pt(360, 360), ctype: tributary.ImageJPEG},
		// Nothing takes a name or a Content-Type: a JPEG saved as photo.png is read as the JPEG it is.
		{name: "JPEG named .png", in: photo, card: image.Pt(360, 360), ctype: tributary.ImageJPEG},
		{name: "animated GIF", in: animatedGIF(t), card: image.Pt(120, 80), ctype: tributary.ImageJPEG},
		{name: "opaque WebP", in: solidWebP(150, 100, color.NRGBA{200, 30, 40, 255}), card: image.Pt(150, 100), ctype: tributary.ImageJPEG},
		{name: "transparent WebP", in: solidWebP(75, 100, color.NRGBA{200, 30, 40, 100}), card: image.Pt(75, 100), ctype: tributary.ImagePNG},
		{name: "a line", in: encodePNG(t, solid(30000, 1, color.NRGBA{1, 2, 3, 255})), card: image.Pt(640, 1), ctype: tributary.ImageJPEG},
		{name: "SVG", in: []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>`), want: images.Unsupported},
		{name: "HTML", in: []byte("<!doctype html><title>not an image</title>"), want: images.Unsupported},
		{name: "BMP", in: []byte("BM\x3e\x00\x00\x00\x00\x00\x00\x00\x3e\x00\x00\x00\x28\x00"), want: images.Unsupported},
		{name: "empty", in: nil, want: images.Unsupported},
		{name: "20000x20000 PNG bomb", in: pngBomb(20000, 20000), want: images.TooManyPixels},
		{name: "GIF bomb", in: gifBomb(), want: images.TooManyPixels},
		{name: "6 MiB", in: big, want: images.TooLarge},
		{name: "truncated PNG", in: opaque[:len(opaque)/2], want: images.Corrupt},
		{name: "truncated JPEG", in: photo[:len(photo)/2], want: images.Corrupt},
		{name: "truncated WebP", in: solidWebP(150, 100, color.NRGBA{200, 30, 40, 255})[:24], want: images.Corrupt},
		{name: "PNG signature, then junk", in: append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0xa5}, 64)...), want: images.Corrupt},
		{name: "JPEG marker alone", in: []byte{0xff, 0xd8, 0xff}, want: images.Corrupt},
		{name: "zero-size PNG", in: pngBomb(0, 0), want: images.Corrupt},
	}
}

// TestCard checks every fixture is either made into a bounded thumbnail of its own hash or
// refused for the reason expected, with an application error the web layer can map.
func TestCard(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			img, err := images.Card(f.in)
			if got := images.ReasonOf(err); got != f.want {
				t.Fatalf("reason %q (err %v), want %q", got, err, f.want)
			}
			if f.want != "" {
				var appErr *tributary.Error
				if !errors.As(err, &appErr) || appErr.Code == tributary.EInternal {
					t.Fatalf("a refusal %v carries no application error", err)
				}
				return
			}
			checkServed(t, img)
			if got := image.Pt(img.Width, img.Height); got != f.card || img.ContentType != f.ctype {
				t.Errorf("got %v %s, want %v %s", got, img.ContentType, f.card, f.ctype)
			}
			if img.Width > images.CardWidth || img.Height > images.CardHeight {
				t.Errorf("%d×%d exceeds the card's bounds", img.Width, img.Height)
			}
		})
	}
}

// checkServed checks img is what it says: its hash, type and size match its bytes.
func checkServed(t *testing.T, img tributary.Image) {
	t.Helper()
	sum := sha256.Sum256(img.Bytes)
	if img.Hash != hex.EncodeToString(sum[:]) || !tributary.ValidImageHash(img.Hash) {
		t.Errorf("hash %q is not the SHA-256 of its bytes", img.Hash)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Bytes))
	if err != nil {
		t.Fatalf("the output does not decode: %v", err)
	}
	if "image/"+format != img.ContentType || cfg.Width != img.Width || cfg.Height != img.Height {
		t.Errorf("bytes are %s %d×%d, the image says %s %d×%d", format, cfg.Width, cfg.Height, img.ContentType, img.Width, img.Height)
	}
	if len(img.Bytes) > 512<<10 {
		t.Errorf("%d bytes: a thumbnail should be far smaller", len(img.Bytes))
	}
}

// TestBombRefusedBeforeDecoding checks a 20000×20000 header is refused without the
// 400 MB its pixels would take.
func TestBombRefusedBeforeDecoding(t *testing.T) {
	bomb := pngBomb(20000, 20000)
	if len(bomb) > 100 {
		t.Fatalf("the bomb is %d bytes: meant to be tiny", len(bomb))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := images.Card(bomb)
	runtime.ReadMemStats(&after)
	if images.ReasonOf(err) != images.TooManyPixels {
		t.Fatalf("err %v, want too many pixels", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the bomb allocated %d bytes", n)
	}
}

// TestAnimatedGIFFirstFrame checks an animation gives its first frame.
func TestAnimatedGIFFirstFrame(t *testing.T) {
	img, err := images.Card(animatedGIF(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := jpeg.Decode(bytes.NewReader(img.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := got.At(60, 40).RGBA()
	if r>>8 < 200 || g>>8 > 50 || b>>8 > 50 {
		t.Errorf("middle pixel %d,%d,%d: want the first frame's red", r>>8, g>>8, b>>8)
	}
}

// TestMetadataStripped checks text hidden in a PNG chunk or a JPEG's Exif is not served.
func TestMetadataStripped(t *testing.T) {
	const secret = "GPS 48.8584N 2.2945E"
	for name, in := range map[string][]byte{
		"PNG tEXt":  withPNGText(encodePNG(t, solid(40, 30, color.NRGBA{9, 9, 9, 255})), secret),
		"JPEG Exif": withJPEGExif(encodeJPEG(t, solid(40, 30, color.NRGBA{9, 9, 9, 255})), secret),
	} {
		if !bytes.Contains(in, []byte(secret)) {
			t.Fatalf("%s: the fixture lacks its metadata", name)
		}
		card, err := images.Card(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		small, large, err := images.Avatar(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, img := range []tributary.Image{card, small, large} {
			if bytes.Contains(img.Bytes, []byte(secret)) {
				t.Errorf("%s: the metadata survived", name)
			}
		}
	}
}

// TestAvatar checks avatars are the middle square, at most 64 and 256 pixels on a side.
func TestAvatar(t *testing.T) {
	tests := []struct {
		name         string
		in           []byte
		small, large int
		ctype        string
	}{
		{"landscape photo", encodeJPEG(t, solid(1000, 500, color.NRGBA{10, 200, 10, 255})), 64, 256, tributary.ImageJPEG},
		{"portrait PNG", encodePNG(t, solid(300, 900, color.NRGBA{10, 20, 200, 255})), 64, 256, tributary.ImageJPEG},
		{"small PNG, never enlarged", encodePNG(t, solid(200, 120, color.NRGBA{10, 20, 200, 255})), 64, 120, tributary.ImageJPEG},
		{"transparent", encodePNG(t, solid(400, 400, color.NRGBA{200, 20, 20, 0})), 64, 256, tributary.ImagePNG},
		{"WebP", solidWebP(150, 100, color.NRGBA{200, 30, 40, 255}), 64, 100, tributary.ImageJPEG},
		{"animated GIF", animatedGIF(t), 64, 80, tributary.ImageJPEG},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			small, large, err := images.Avatar(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				img  tributary.Image
				side int
			}{{small, tt.small}, {large, tt.large}} {
				checkServed(t, c.img)
				if c.img.Width != c.side || c.img.Height != c.side || c.img.ContentType != tt.ctype {
					t.Errorf("got %d×%d %s, want %d×%d %s", c.img.Width, c.img.Height, c.img.ContentType, c.side, c.side, tt.ctype)
				}
			}
		})
	}
	// The middle square: a picture whose left and right thirds are black keeps only white.
	wide := solid(900, 300, color.NRGBA{255, 255, 255, 255})
	for y := range 300 {
		for x := range 300 {
			wide.Set(x, y, color.Black)
			wide.Set(600+x, y, color.Black)
		}
	}
	_, large, err := images.Avatar(encodePNG(t, wide))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := jpeg.Decode(bytes.NewReader(large.Bytes))
	for _, x := range []int{2, 128, 253} {
		if r, _, _, _ := got.At(x, 128).RGBA(); r>>8 < 230 {
			t.Errorf("pixel %d of the avatar is %d: want the white middle", x, r>>8)
		}
	}
	if _, _, err := images.Avatar(pngBomb(20000, 20000)); images.ReasonOf(err) != images.TooManyPixels {
		t.Errorf("an avatar bomb: err %v, want too many pixels", err)
	}
}

// TestReadAll checks reading stops, and refuses, past the input cap.
func TestReadAll(t *testing.T) {
	if _, err := images.ReadAll(bytes.NewReader(make([]byte, images.MaxBytes+1))); images.ReasonOf(err) != images.TooLarge {
		t.Errorf("one byte over: err %v, want too large", err)
	}
	if b, err := images.ReadAll(bytes.NewReader(make([]byte, images.MaxBytes))); err != nil || len(b) != images.MaxBytes {
		t.Errorf("at the cap: %d bytes, err %v", len(b), err)
	}
	if tributary.ErrorCode(&images.RefusedError{Reason: images.TooLarge}) != tributary.ETooLarge {
		t.Error("too large does not map to ETooLarge")
	}
}

// FuzzImage feeds the pipeline arbitrary bytes: it must never panic, and what it accepts
// is bounded and named by its hash.
func FuzzImage(f *testing.F) {
	// Small seeds keep the fuzzer fast: every refused fixture but the 6 MiB one, and small
	// images of each accepted format.
	for _, fx := range fixtures(f) {
		if fx.want != "" && fx.want != images.TooLarge {
			f.Add(fx.in)
		}
	}
	f.Add(encodePNG(f, solid(16, 8, color.NRGBA{1, 2, 3, 128})))
	f.Add(encodeJPEG(f, solid(8, 16, color.NRGBA{1, 2, 3, 255})))
	f.Add(animatedGIF(f))
	f.Add(solidWebP(8, 16, color.NRGBA{1, 2, 3, 255}))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := images.Card(b)
		if err != nil {
			if images.ReasonOf(err) == "" {
				t.Fatalf("an error with no reason: %v", err)
			}
			return
		}
		if img.Width < 1 || img.Width > images.CardWidth || img.Height < 1 || img.Height > images.CardHeight {
			t.Fatalf("thumbnail %d×%d out of bounds", img.Width, img.Height)
		}
		sum := sha256.Sum256(img.Bytes)
		if img.Hash != hex.EncodeToString(sum[:]) {
			t.Fatal("hash does not match bytes")
		}
		small, large, err := images.Avatar(b)
		if err != nil {
			t.Fatalf("the card was made but the avatar refused: %v", err)
		}
		if small.Width > images.AvatarSmall || large.Width > images.AvatarLarge || small.Width != small.Height {
			t.Fatalf("avatar %d, %d out of bounds", small.Width, large.Width)
		}
	})
}

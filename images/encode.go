package images

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"

	"tributary"
)

// Sizes of the images Tributary serves. Images are never enlarged: a smaller source keeps
// its size.
const (
	CardWidth   = 640 // a link card's thumbnail fits within CardWidth × CardHeight
	CardHeight  = 360
	AvatarSmall = 64 // an avatar's squares
	AvatarLarge = 256
	JPEGQuality = 82
)

// Card returns a link card's thumbnail of the image in b, fit within CardWidth × CardHeight
// and turned as its Exif orientation asks. An image it refuses gives a *RefusedError.
func Card(b []byte) (tributary.Image, error) {
	defer hold()()
	img, err := decode(b)
	if err != nil {
		return tributary.Image{}, err
	}
	r, o := img.Bounds(), exifOrientation(b)
	if !turns(o) {
		return encode(orient(scale(img, r, fit(r.Size(), CardWidth, CardHeight)), o))
	}
	// Fit the picture as it is shown, sides swapped, then turn it.
	size := fit(image.Pt(r.Dy(), r.Dx()), CardWidth, CardHeight)
	return encode(orient(scale(img, r, image.Pt(size.Y, size.X)), o))
}

// Avatar returns an avatar's two squares, AvatarSmall and AvatarLarge pixels on a side, of
// the middle of the image in b, turned as its Exif orientation asks. An image it refuses
// gives a *RefusedError.
func Avatar(b []byte) (small, large tributary.Image, err error) {
	defer hold()()
	img, err := decode(b)
	if err != nil {
		return tributary.Image{}, tributary.Image{}, err
	}
	sq := centerSquare(img.Bounds())
	big := orient(scale(img, sq, fit(sq.Size(), AvatarLarge, AvatarLarge)), exifOrientation(b))
	if large, err = encode(big); err != nil {
		return tributary.Image{}, tributary.Image{}, err
	}
	// The small one from the large: the same picture, for a fraction of the work.
	small, err = encode(scale(big, big.Bounds(), fit(big.Bounds().Size(), AvatarSmall, AvatarSmall)))
	return small, large, err
}

// working bounds how many images one process works on at once: a 25-megapixel image takes
// a few hundred MB and a few seconds of CPU while it is decoded and scaled.
var working = make(chan struct{}, 2)

// hold waits for a place to work and returns its release.
func hold() func() {
	working <- struct{}{}
	return func() { <-working }
}

// fit is the size of s scaled down, keeping its proportions, to fit within w × h.
func fit(s image.Point, w, h int) image.Point {
	if s.X <= w && s.Y <= h {
		return s
	}
	f := min(float64(w)/float64(s.X), float64(h)/float64(s.Y))
	return image.Pt(max(1, int(float64(s.X)*f+0.5)), max(1, int(float64(s.Y)*f+0.5)))
}

// centerSquare is the largest square in the middle of r.
func centerSquare(r image.Rectangle) image.Rectangle {
	side := min(r.Dx(), r.Dy())
	x, y := r.Min.X+(r.Dx()-side)/2, r.Min.Y+(r.Dy()-side)/2
	return image.Rect(x, y, x+side, y+side)
}

// scale draws the part sr of src into a new image of the given size.
func scale(src image.Image, sr image.Rectangle, size image.Point) *image.RGBA {
	dst := image.NewRGBA(image.Rectangle{Max: size})
	if sr.Size() == size {
		draw.Draw(dst, dst.Bounds(), src, sr.Min, draw.Src)
		return dst
	}
	// Catmull-Rom widens its kernel with the reduction, so every source pixel counts and fine
	// patterns do not alias (the approximate scalers skip pixels).
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, sr, draw.Src, nil)
	return dst
}

// encode writes img as a JPEG when it is opaque, else as a PNG (which keeps transparency),
// and names it by its hash. Re-encoding keeps the pixels only: no metadata survives.
func encode(img *image.RGBA) (tributary.Image, error) {
	var buf bytes.Buffer
	ctype := tributary.ImageJPEG
	var err error
	if img.Opaque() {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: JPEGQuality})
	} else {
		ctype = tributary.ImagePNG
		err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img)
	}
	if err != nil {
		return tributary.Image{}, fmt.Errorf("images: encode %s: %w", ctype, err)
	}
	sum := sha256.Sum256(buf.Bytes())
	s := img.Bounds().Size()
	return tributary.Image{Hash: hex.EncodeToString(sum[:]), ContentType: ctype, Width: s.X, Height: s.Y, Bytes: buf.Bytes()}, nil
}

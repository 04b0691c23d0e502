package images

import (
	"bytes"
	"encoding/binary"
	"image"
)

// exifOrientation is the Exif orientation (1–8) a JPEG's camera recorded, 1 when there is
// none. Re-encoding drops the Exif, so the turn it asks for is made in the pixels: else a
// phone's photo would show on its side.
func exifOrientation(b []byte) int {
	if !bytes.HasPrefix(b, []byte{0xff, 0xd8}) {
		return 1
	}
	for i := 2; i+4 <= len(b) && b[i] == 0xff; {
		marker, n := b[i+1], int(binary.BigEndian.Uint16(b[i+2:]))
		if marker == 0xda || n < 2 || i+2+n > len(b) { // the pixels start: no more headers
			return 1
		}
		if seg := b[i+4 : i+2+n]; marker == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 1
}

// tiffOrientation reads the orientation tag (0x0112) of a TIFF structure's first directory.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder = binary.BigEndian
	if string(t[:2]) == "II" {
		bo = binary.LittleEndian
	} else if string(t[:2]) != "MM" {
		return 1
	}
	off := int64(bo.Uint32(t[4:]))
	if off < 8 || off+2 > int64(len(t)) {
		return 1
	}
	for k, n := 0, int(bo.Uint16(t[off:])); k < n; k++ {
		e := int(off) + 2 + 12*k
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}

// turns reports whether orientation o turns the picture a quarter, swapping its sides.
func turns(o int) bool { return o >= 5 }

// orient returns img as orientation o asks it to be shown (Exif's eight: flips and turns).
func orient(img *image.RGBA, o int) *image.RGBA {
	if o <= 1 || o > 8 {
		return img
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	dw, dh := w, h
	if turns(o) {
		dw, dh = h, w
	}
	// from maps a pixel of the result to the pixel of img it shows.
	from := map[int]func(x, y int) (int, int){
		2: func(x, y int) (int, int) { return w - 1 - x, y },
		3: func(x, y int) (int, int) { return w - 1 - x, h - 1 - y },
		4: func(x, y int) (int, int) { return x, h - 1 - y },
		5: func(x, y int) (int, int) { return y, x },
		6: func(x, y int) (int, int) { return y, h - 1 - x },
		7: func(x, y int) (int, int) { return w - 1 - y, h - 1 - x },
		8: func(x, y int) (int, int) { return w - 1 - y, x },
	}[o]
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		for x := range dw {
			sx, sy := from(x, y)
			copy(dst.Pix[dst.PixOffset(x, y):][:4], img.Pix[img.PixOffset(sx+img.Rect.Min.X, sy+img.Rect.Min.Y):][:4])
		}
	}
	return dst
}

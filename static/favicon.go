package static

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// faviconICO draws the icon of img/favicon.svg (a white T over a wave on a blue rounded
// square) at 32×32 and wraps the PNG in an ICO container.
func faviconICO() []byte {
	const n = 32
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	blue := color.NRGBA{0x1f, 0x5f, 0xbf, 0xff}
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	for y := range n {
		for x := range n {
			if corner(x, y, n, 7) {
				continue
			}
			c := blue
			if (y >= 9 && y < 14 && x >= 7 && x < 25) || (y >= 14 && y < 26 && x >= 13 && x < 19) {
				c = white
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var p bytes.Buffer
	png.Encode(&p, img)
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, [3]uint16{0, 1, 1})                         // reserved, type icon, one image
	b.Write([]byte{n, n, 0, 0})                                                       // width, height, no palette, reserved
	binary.Write(&b, binary.LittleEndian, [2]uint16{1, 32})                           // planes, bits per pixel
	binary.Write(&b, binary.LittleEndian, [2]uint32{uint32(p.Len()), uint32(6 + 16)}) // size, offset
	b.Write(p.Bytes())
	return b.Bytes()
}

// corner reports whether (x, y) lies outside a square of side n with corners rounded at r.
func corner(x, y, n, r int) bool {
	cx, cy := -1, -1
	switch {
	case x < r && y < r:
		cx, cy = r, r
	case x >= n-r && y < r:
		cx, cy = n-r-1, r
	case x < r && y >= n-r:
		cx, cy = r, n-r-1
	case x >= n-r && y >= n-r:
		cx, cy = n-r-1, n-r-1
	}
	if cx < 0 {
		return false
	}
	dx, dy := x-cx, y-cy
	return dx*dx+dy*dy > r*r
}

package images_test

import (
	"bytes"
	"encoding/binary"
	"image/color"
)

// solidWebP encodes a lossless WebP (VP8L) of one colour (Go has no WebP encoder): every
// prefix code is a simple code of one symbol, so the pixels take no bits at all.
func solidWebP(w, h int, c color.NRGBA) []byte {
	var bits []bool
	put := func(v uint32, n int) {
		for i := range n {
			bits = append(bits, v>>i&1 == 1)
		}
	}
	put(0x2f, 8) // signature
	put(uint32(w-1), 14)
	put(uint32(h-1), 14)
	put(1, 1) // alpha is used
	put(0, 3) // version
	put(0, 1) // no transform
	put(0, 1) // no colour cache
	put(0, 1) // no meta prefix codes
	for _, sym := range []uint8{c.G, c.R, c.B, c.A} {
		put(1, 1) // a simple code
		put(0, 1) // of one symbol
		put(1, 1) // of 8 bits
		put(uint32(sym), 8)
	}
	put(1, 1) // distances: a simple code of one 1-bit symbol, 0
	put(0, 1)
	put(0, 1)
	put(0, 1)
	data := make([]byte, (len(bits)+7)/8)
	for i, bit := range bits {
		if bit {
			data[i/8] |= 1 << (i % 8)
		}
	}
	if len(data)%2 == 1 {
		data = append(data, 0)
	}
	var out bytes.Buffer
	out.WriteString("RIFF")
	binary.Write(&out, binary.LittleEndian, uint32(4+8+len(data)))
	out.WriteString("WEBPVP8L")
	binary.Write(&out, binary.LittleEndian, uint32(len(data)))
	out.Write(data)
	return out.Bytes()
}

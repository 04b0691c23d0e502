// Package images turns untrusted image bytes (a link card's preview fetched from another
// site, an uploaded avatar) into images Tributary can serve from its own origin: the type
// sniffed from the bytes, input and pixel counts bounded before anything is decoded, then
// re-encoded to bounded sizes with no metadata left.
package images

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"

	"tributary"
)

// Limits on what is decoded at all.
const (
	MaxBytes  = 5 << 20    // input bytes
	MaxPixels = 25_000_000 // width × height, read from the header before decoding
)

// Reason says why an image was refused.
type Reason string

// Reasons an image is refused.
const (
	TooLarge      Reason = "too_large"       // more than MaxBytes of input
	TooManyPixels Reason = "too_many_pixels" // more than MaxPixels, or no pixels at all
	Unsupported   Reason = "unsupported"     // not PNG, JPEG, GIF or WebP (SVG included)
	Corrupt       Reason = "corrupt"         // truncated or malformed
)

// RefusedError is the error of an image refused. It unwraps to a tributary.Error (EInvalid,
// or ETooLarge for input over MaxBytes) whose message is safe to show the uploader.
type RefusedError struct {
	Reason Reason
	Detail string // what was found: a type, dimensions, the decoder's complaint
}

func (e *RefusedError) Error() string {
	return "images: refused (" + string(e.Reason) + "): " + e.Detail
}

// Unwrap gives the application error the web layer maps to a status.
func (e *RefusedError) Unwrap() error {
	switch e.Reason {
	case TooLarge:
		return tributary.Errorf(tributary.ETooLarge, "The image is too large (at most %d MiB).", MaxBytes>>20)
	case TooManyPixels:
		return tributary.Errorf(tributary.EInvalid, "The image has too many pixels (at most %d million).", MaxPixels/1_000_000)
	case Unsupported:
		return tributary.Errorf(tributary.EInvalid, "The image must be a PNG, JPEG, GIF or WebP file.")
	}
	return tributary.Errorf(tributary.EInvalid, "The image could not be read.")
}

// ReasonOf returns why err refused an image, or "" when err is nil or not a refusal.
func ReasonOf(err error) Reason {
	var r *RefusedError
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}

func refuse(reason Reason, format string, args ...any) error {
	return &RefusedError{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// ReadAll reads an image's bytes from r, stopping (and refusing) past MaxBytes.
func ReadAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("images: read: %w", err)
	}
	if len(b) > MaxBytes {
		return nil, refuse(TooLarge, "more than %d bytes", MaxBytes)
	}
	return b, nil
}

// format is an accepted input format: how to recognize it from its first bytes and decode it.
type format struct {
	name         string
	match        func(b []byte) bool
	decodeConfig func(io.Reader) (image.Config, error)
	decode       func(io.Reader) (image.Image, error) // a GIF's first frame
}

var formats = []format{
	{"png", prefix("\x89PNG\r\n\x1a\n"), png.DecodeConfig, png.Decode},
	{"jpeg", prefix("\xff\xd8\xff"), jpeg.DecodeConfig, jpeg.Decode},
	{"gif", func(b []byte) bool { return prefix("GIF87a")(b) || prefix("GIF89a")(b) }, gif.DecodeConfig, gif.Decode},
	{"webp", func(b []byte) bool { return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" },
		webp.DecodeConfig, webp.Decode},
}

func prefix(p string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(p)) }
}

// sniff names the format of b from its first bytes, never from a name or a header.
func sniff(b []byte) (format, bool) {
	for _, f := range formats {
		if f.match(b) {
			return f, true
		}
	}
	return format{}, false
}

// decode returns the image in b (a GIF's first frame) when b is an accepted format within
// the limits: its dimensions are checked from the header before its pixels are decoded.
func decode(b []byte) (image.Image, error) {
	if len(b) > MaxBytes {
		return nil, refuse(TooLarge, "%d bytes, more than %d", len(b), MaxBytes)
	}
	f, ok := sniff(b)
	if !ok {
		return nil, refuse(Unsupported, "%s", describe(b))
	}
	cfg, err := f.decodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, refuse(Corrupt, "%s header: %v", f.name, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, refuse(TooManyPixels, "%s of %d×%d", f.name, cfg.Width, cfg.Height)
	}
	img, err := decodeSafely(f, b)
	if err != nil {
		return nil, refuse(Corrupt, "%s: %v", f.name, err)
	}
	if img.Bounds().Empty() {
		return nil, refuse(Corrupt, "%s: no pixels decoded", f.name)
	}
	return img, nil
}

// decodeSafely decodes b as f, turning a decoder's panic on hostile bytes into an error:
// the decoders are third-party code reading bytes from anywhere.
func decodeSafely(f format, b []byte) (img image.Image, err error) {
	defer func() {
		if v := recover(); v != nil {
			img, err = nil, fmt.Errorf("decoder panicked: %v", v)
		}
	}()
	return f.decode(bytes.NewReader(b))
}

// describe says what a refused input looks like, for the refusal's detail.
func describe(b []byte) string {
	head := bytes.ToLower(b[:min(len(b), 512)])
	if bytes.Contains(head, []byte("<svg")) {
		return "SVG"
	}
	if len(b) == 0 {
		return "no bytes"
	}
	return fmt.Sprintf("not PNG, JPEG, GIF or WebP (starts %q)", b[:min(len(b), 8)])
}

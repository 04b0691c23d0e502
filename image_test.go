package tributary

import (
	"strings"
	"testing"
)

func TestParseImageName(t *testing.T) {
	h := strings.Repeat("0a", 32)
	tests := []struct {
		name, hash, ext string
		ok              bool
	}{
		{h + ".jpg", h, "jpg", true},
		{h + ".png", h, "png", true},
		{h, h, "", true},
		{h + ".", "", "", false},
		{h + ".svg", "", "", false},
		{h + ".jpg.png", "", "", false},
		{strings.ToUpper(h) + ".jpg", "", "", false},
		{h[:62] + ".jpg", "", "", false},
		{h + "00", "", "", false},
		{strings.Repeat("x", 64), "", "", false},
		{"", "", "", false},
		{"../" + h, "", "", false},
	}
	for _, tt := range tests {
		hash, ext, err := ParseImageName(tt.name)
		if (err == nil) != tt.ok || hash != tt.hash || ext != tt.ext {
			t.Errorf("ParseImageName(%q) = %q, %q, %v; want %q, %q, ok %v", tt.name, hash, ext, err, tt.hash, tt.ext, tt.ok)
		}
		if err != nil && ErrorCode(err) != EInvalid {
			t.Errorf("ParseImageName(%q): code %s, want %s", tt.name, ErrorCode(err), EInvalid)
		}
	}
	img := Image{Hash: h, ContentType: ImagePNG}
	if img.Path() != "/img/"+h+".png" || img.Ext() != "png" {
		t.Errorf("Path %q, Ext %q", img.Path(), img.Ext())
	}
}

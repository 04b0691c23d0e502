package feed

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"time"

	"tributary"
)

// Cursors are opaque to clients: "v2." + base64url(payload) + "." + base64url(MAC). The MAC
// (HMAC-SHA256, truncated) binds the payload to one of the site's keys, named by the
// payload's first four bytes, so a forged or edited cursor is refused while a cursor made by
// any instance, before or after a restart or a key rotation, is good on every instance; the
// payload binds it to one viewer and feed template.

const cursorVersion = "v2"

// CursorMaxAge is how long a cursor stays valid.
const CursorMaxAge = 30 * 24 * time.Hour

var errBadCursor = tributary.FieldErrorf("cursor", "Parameter 'cursor' is not a valid cursor for this feed; reload the feed from the top.")
var errUnknownKey = tributary.FieldErrorf("cursor", "Parameter 'cursor' is not a valid cursor for this feed; reload the feed from the top.")
var errExpiredCursor = tributary.FieldErrorf("cursor", "Parameter 'cursor' has expired; reload the feed from the top.")

// cursorCodec signs with the key sign and checks with any of keys.
type cursorCodec struct {
	sign uint32
	keys map[uint32][]byte
}

// newCodec returns a codec that signs and checks with one key.
func newCodec(id uint32, key []byte) cursorCodec {
	return cursorCodec{sign: id, keys: map[uint32][]byte{id: key}}
}

const payloadLen = 4 + 8 + 8 + 8 + 8 + 8 + 1 + 4 + 8 + 8 // key, viewer, template, issued, at, head sum, seg, off, pos arrival, pos id

func templateHash(template string) uint64 {
	h := sha256.Sum256([]byte(template))
	return binary.BigEndian.Uint64(h[:8])
}

func (cc cursorCodec) encode(k FenceKey, c Cursor, issued time.Time) string {
	b := make([]byte, 0, payloadLen)
	b = binary.BigEndian.AppendUint32(b, cc.sign)
	b = binary.BigEndian.AppendUint64(b, uint64(k.Viewer))
	b = binary.BigEndian.AppendUint64(b, templateHash(k.Template))
	b = binary.BigEndian.AppendUint64(b, uint64(issued.Unix()))
	b = binary.BigEndian.AppendUint64(b, uint64(c.At.UnixNano()))
	b = binary.BigEndian.AppendUint64(b, c.Sum)
	b = append(b, byte(c.Seg))
	b = binary.BigEndian.AppendUint32(b, uint32(c.Off))
	b = binary.BigEndian.AppendUint64(b, uint64(c.Pos.Arrival.UnixNano()))
	b = binary.BigEndian.AppendUint64(b, uint64(c.Pos.ID))
	return cursorVersion + "." + base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac(cc.keys[cc.sign], b))
}

func mac(key, b []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(cursorVersion))
	m.Write(b)
	return m.Sum(nil)[:16]
}

// decode validates a cursor for fence k; every failure is a plain invalid-input error, and
// errUnknownKey when the cursor names a key the codec does not have (the site's keys may
// have been rotated since the codec was made).
func (cc cursorCodec) decode(s string, k FenceKey, now time.Time) (Cursor, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || parts[0] != cursorVersion || len(s) > 200 {
		return Cursor{}, errBadCursor
	}
	b, err1 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err2 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || len(b) != payloadLen {
		return Cursor{}, errBadCursor
	}
	key, ok := cc.keys[binary.BigEndian.Uint32(b)]
	if !ok {
		return Cursor{}, errUnknownKey
	}
	if !hmac.Equal(sig, mac(key, b)) {
		return Cursor{}, errBadCursor
	}
	b = b[4:]
	viewer := int64(binary.BigEndian.Uint64(b[0:]))
	if viewer != k.Viewer || binary.BigEndian.Uint64(b[8:]) != templateHash(k.Template) {
		return Cursor{}, errBadCursor
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[16:])), 0)
	if now.Sub(issued) > CursorMaxAge {
		return Cursor{}, errExpiredCursor
	}
	c := Cursor{
		At:  time.Unix(0, int64(binary.BigEndian.Uint64(b[24:]))).UTC(),
		Sum: binary.BigEndian.Uint64(b[32:]),
		Seg: int(b[40]),
		Off: int(binary.BigEndian.Uint32(b[41:])),
		Pos: Pos{Arrival: time.Unix(0, int64(binary.BigEndian.Uint64(b[45:]))).UTC(), ID: int64(binary.BigEndian.Uint64(b[53:]))},
	}
	if (c.Seg != segHead && c.Seg != segTail) || c.Off < 0 || c.Off > 10_000 || c.Pos.ID < 0 {
		return Cursor{}, errBadCursor
	}
	if c.Pos.ID == 0 {
		c.Pos.Arrival = time.Time{}
	}
	return c, nil
}

package db

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/alexedwards/scs/v2"
)

// SessionData is the data of a new session of a user, as the app writes it (the bench mints
// its viewers' sessions with it).
func SessionData(userID int64, deadline time.Time) ([]byte, error) {
	return SessionCodec{}.Encode(deadline, map[string]any{SessionUserKey: userID})
}

// SessionCodec stores a session's values in a few bytes: what Tributary keeps there is an
// id, a time and a flash message. scs's gob codec compiled a decoder for every request's
// session (5 % of a next page's CPU); this one reads the bytes in place. Sessions written by
// the gob codec (before this one, or holding a value of another type) are still read.
//
// The encoding: a zero byte (no gob stream starts with one: it begins with its message's
// length), the version, the deadline in Unix nanoseconds (varint), then per value its key
// (length-prefixed), a type byte and the value: 'i' an int64 (varint), 's' a string
// (length-prefixed), 'b' a bool (one byte).
type SessionCodec struct{}

const sessionCodecVersion = 1

var errSessionBytes = errors.New("db: session: malformed")

func (SessionCodec) Encode(deadline time.Time, values map[string]any) ([]byte, error) {
	b := make([]byte, 0, 32+16*len(values))
	b = append(b, 0, sessionCodecVersion)
	b = binary.AppendVarint(b, deadline.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(values)))
	for k, v := range values {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		switch v := v.(type) {
		case int64:
			b = binary.AppendVarint(append(b, 'i'), v)
		case string:
			b = binary.AppendUvarint(append(b, 's'), uint64(len(v)))
			b = append(b, v...)
		case bool:
			c := byte(0)
			if v {
				c = 1
			}
			b = append(b, 'b', c)
		default: // a type only gob knows
			return scs.GobCodec{}.Encode(deadline, values)
		}
	}
	return b, nil
}

func (SessionCodec) Decode(b []byte) (time.Time, map[string]any, error) {
	if len(b) < 2 || b[0] != 0 {
		return scs.GobCodec{}.Decode(b)
	}
	if b[1] != sessionCodecVersion {
		return time.Time{}, nil, errSessionBytes
	}
	r := sessionReader{b: b[2:]}
	deadline := time.Unix(0, r.varint()).UTC()
	n := r.uvarint()
	if n > uint64(len(r.b)) { // each value takes at least two bytes
		r.err = errSessionBytes
	}
	values := make(map[string]any, min(n, 8))
	for ; r.err == nil && n > 0; n-- {
		k := string(r.bytes())
		switch r.byte() {
		case 'i':
			values[k] = r.varint()
		case 's':
			values[k] = string(r.bytes())
		case 'b':
			values[k] = r.byte() == 1
		default:
			r.err = errSessionBytes
		}
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errSessionBytes
	}
	if r.err != nil {
		return time.Time{}, nil, r.err
	}
	return deadline, values, nil
}

// sessionReader reads a session's bytes; the first short read sets err (and reads zeros).
type sessionReader struct {
	b   []byte
	err error
}

func (r *sessionReader) next(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errSessionBytes
		return make([]byte, max(n, 0))
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *sessionReader) byte() byte { return r.next(1)[0] }

func (r *sessionReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 || r.err != nil {
		r.err = errSessionBytes
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sessionReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errSessionBytes
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sessionReader) bytes() []byte {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)-k) {
		r.err = errSessionBytes
		return nil
	}
	r.b = r.b[k:]
	return r.next(int(n))
}

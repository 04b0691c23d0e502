package db

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"tributary"
)

// likersOf decodes [[id, handle, name], ...]. The arrays PostgreSQL writes are read in
// place (encoding/json's generic decoding was 6 % of a filter feed page's CPU); anything
// else goes through encoding/json.
func likersOf(b []byte) ([]tributary.UserRef, error) {
	if out, ok := scanLikers(b); ok {
		return out, nil
	}
	var raw [][3]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("db: likers: %w", err)
	}
	out := make([]tributary.UserRef, 0, len(raw))
	for _, r := range raw {
		var u tributary.UserRef
		if err := errors.Join(json.Unmarshal(r[0], &u.ID), json.Unmarshal(r[1], &u.Handle), json.Unmarshal(r[2], &u.Name)); err != nil {
			return nil, fmt.Errorf("db: likers: %w", err)
		}
		out = append(out, u)
	}
	return out, nil
}

// scanLikers reads [[id, "handle", "name"], ...] as json_agg(json_build_array(...)) writes
// it; ok is false for anything else.
func scanLikers(b []byte) (out []tributary.UserRef, ok bool) {
	j := jsonScan{b: b}
	if !j.take('[') {
		return nil, false
	}
	out = make([]tributary.UserRef, 0, 3)
	if j.take(']') {
		return out, j.end()
	}
	for {
		var u tributary.UserRef
		if !j.take('[') || !j.int(&u.ID) || !j.take(',') || !j.str(&u.Handle) || !j.take(',') || !j.str(&u.Name) || !j.take(']') {
			return nil, false
		}
		out = append(out, u)
		if j.take(']') {
			return out, j.end()
		}
		if !j.take(',') {
			return nil, false
		}
	}
}

// jsonScan reads the few JSON shapes scanLikers knows, skipping white space before each.
type jsonScan struct {
	b []byte
	i int
}

func (j *jsonScan) space() {
	for j.i < len(j.b) && (j.b[j.i] == ' ' || j.b[j.i] == '\n' || j.b[j.i] == '\t' || j.b[j.i] == '\r') {
		j.i++
	}
}

func (j *jsonScan) take(c byte) bool {
	j.space()
	if j.i < len(j.b) && j.b[j.i] == c {
		j.i++
		return true
	}
	return false
}

func (j *jsonScan) end() bool {
	j.space()
	return j.i == len(j.b)
}

func (j *jsonScan) int(v *int64) bool {
	j.space()
	start := j.i
	for j.i < len(j.b) && (j.b[j.i] >= '0' && j.b[j.i] <= '9' || j.i == start && j.b[j.i] == '-') {
		j.i++
	}
	digits := j.b[start:j.i]
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 1 && digits[0] == '0' { // JSON has no leading zeros
		return false
	}
	n, err := strconv.ParseInt(string(j.b[start:j.i]), 10, 64)
	*v = n
	return err == nil
}

// str reads a string; one with escapes is decoded by encoding/json.
func (j *jsonScan) str(v *string) bool {
	j.space()
	if j.i >= len(j.b) || j.b[j.i] != '"' {
		return false
	}
	start, escaped := j.i, false
	for j.i++; j.i < len(j.b); j.i++ {
		switch c := j.b[j.i]; {
		case c == '\\':
			escaped = true
			j.i++
		case c == '"':
			j.i++
			if escaped || !utf8.Valid(j.b[start:j.i]) {
				return json.Unmarshal(j.b[start:j.i], v) == nil
			}
			*v = string(j.b[start+1 : j.i-1])
			return true
		case c < 0x20:
			return false
		}
	}
	return false
}

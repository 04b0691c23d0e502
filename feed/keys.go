package feed

import (
	"context"
	"errors"
	"sync"
	"time"
)

// keyring holds the site's cursor keys as this instance knows them: read from the database
// on first use (where the first instance to start made them), read again when the site's
// keys change (the site event path) or a cursor names a key this instance has not seen yet
// (a rotation that has not reached it), at most once a second for the latter. A configured
// key replaces the database's.
type keyring struct {
	load func(context.Context) ([]storedKey, error)

	mu       sync.Mutex
	codec    *cursorCodec // nil: to be read
	loadedAt time.Time
}

// storedKey is a key as the database keeps it.
type storedKey struct {
	id     uint32
	secret []byte
}

func configuredKeyring(key []byte) *keyring {
	c := newCodec(0, key)
	return &keyring{codec: &c, load: func(context.Context) ([]storedKey, error) { return []storedKey{{0, key}}, nil }}
}

// get returns the codec of the keys known now.
func (k *keyring) get(ctx context.Context) (cursorCodec, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.codec != nil {
		return *k.codec, nil
	}
	return k.reloadLocked(ctx)
}

// decode decodes a cursor, reading the keys again when it names one not known yet.
func (k *keyring) decode(ctx context.Context, s string, fk FenceKey, now time.Time) (Cursor, error) {
	cc, err := k.get(ctx)
	if err != nil {
		return Cursor{}, err
	}
	c, err := cc.decode(s, fk, now)
	if !errors.Is(err, errUnknownKey) {
		return c, err
	}
	k.mu.Lock()
	if k.codec != nil && time.Since(k.loadedAt) < time.Second {
		k.mu.Unlock()
		return Cursor{}, err
	}
	cc, lerr := k.reloadLocked(ctx)
	k.mu.Unlock()
	if lerr != nil {
		return Cursor{}, lerr
	}
	return cc.decode(s, fk, now)
}

// decodeKnown decodes a cursor with the keys known now, never reading them.
func (k *keyring) decodeKnown(s string, fk FenceKey, now time.Time) (Cursor, error) {
	k.mu.Lock()
	cc := k.codec
	k.mu.Unlock()
	if cc == nil {
		return Cursor{}, errUnknownKey
	}
	return cc.decode(s, fk, now)
}

// forget makes the next use read the keys again (they changed somewhere on the site).
func (k *keyring) forget() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.codec = nil
}

func (k *keyring) reloadLocked(ctx context.Context) (cursorCodec, error) {
	keys, err := k.load(ctx)
	if err != nil {
		return cursorCodec{}, err
	}
	c := cursorCodec{sign: keys[0].id, keys: make(map[uint32][]byte, len(keys))}
	for _, key := range keys {
		c.keys[key.id] = key.secret
	}
	k.codec, k.loadedAt = &c, time.Now()
	return c, nil
}

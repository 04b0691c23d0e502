package db

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"tributary"
	"tributary/db/internal/dbq"
)

// PutImages stores images (made by the images package) that are not stored yet: an image's
// hash names its bytes, so one already there is the same image. An image whose hash is not
// the SHA-256 of its bytes is refused (an internal error): a URL of one is cached for good.
func (s *Store) PutImages(ctx context.Context, imgs ...tributary.Image) error {
	for _, img := range imgs {
		sum := sha256.Sum256(img.Bytes)
		if img.Hash != hex.EncodeToString(sum[:]) || img.Ext() == "" {
			return fmt.Errorf("db: put image: hash %q or type %q does not match its bytes", img.Hash, img.ContentType)
		}
		err := s.q.PutImage(ctx, dbq.PutImageParams{Hash: sum[:], ContentType: img.ContentType,
			Width: int32(img.Width), Height: int32(img.Height), Bytes: img.Bytes})
		if err != nil {
			return fmt.Errorf("db: put image: %w", err)
		}
	}
	return nil
}

// Image returns the image of a hash (lowercase hex SHA-256). Returns EInvalid for a hash
// that is not one, ENotFound when no image has it.
func (s *Store) Image(ctx context.Context, hash string) (tributary.Image, error) {
	if !tributary.ValidImageHash(hash) {
		return tributary.Image{}, tributary.Errorf(tributary.EInvalid, "Not an image hash.")
	}
	h, _ := hex.DecodeString(hash)
	row, err := s.q.ImageByHash(ctx, h)
	if err != nil {
		return tributary.Image{}, notFound(err, "No such image.")
	}
	return tributary.Image{Hash: hash, ContentType: row.ContentType, Width: int(row.Width), Height: int(row.Height),
		Bytes: row.Bytes}, nil
}

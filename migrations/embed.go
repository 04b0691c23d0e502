// Package migrations embeds the goose SQL migrations; sqlc reads the same files as schema.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS

package main

import (
	"context"
	"fmt"
	"time"

	"tributary/db"
	"tributary/feed"
)

// cmdKeys rotates the site's cursor keys: the new key signs from the next request on, on
// every instance; the previous ones keep checking cursors for as long as a cursor lives.
func cmdKeys(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys", "keys rotate [flags]")
	var dbf dbFlags
	dbf.register(fs, e)
	if len(args) == 0 || args[0] != "rotate" {
		fs.Usage()
		return fmt.Errorf("keys: say rotate")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	pool, err := dbf.open(ctx, e)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := db.NewStore(pool)
	k, dropped, err := store.RotateCursorKey(ctx, time.Now(), feed.CursorMaxAge)
	if err != nil {
		return err
	}
	if _, err := store.Wake(ctx); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "cursor key %d now signs; %d keys retired more than %s ago dropped\n", k.ID, dropped, feed.CursorMaxAge)
	return nil
}

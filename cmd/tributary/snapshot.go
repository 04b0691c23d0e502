package main

import (
	"context"
	"fmt"
	"time"
)

func cmdSnapshot(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "snapshot", "snapshot refresh [flags]")
	full := fs.Bool("full", false, "rebuild in full (the default: what changed since the last refresh, or in full when the last full rebuild is a day old)")
	var dbf dbFlags
	dbf.register(fs, e)
	if len(args) == 0 || args[0] != "refresh" {
		fs.Usage()
		return fmt.Errorf("snapshot: say refresh")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	store, done, err := dbf.openStore(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	refresh := store.Refresh
	if *full {
		refresh = store.RefreshSnapshot
	}
	res, err := refresh(ctx, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "snapshot: %s\n", res)
	return nil
}

package main

import (
	"context"
	"fmt"
	"time"

	"tributary/db"
)

func cmdSnapshot(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "snapshot", "snapshot refresh [flags]")
	var dbf dbFlags
	dbf.register(fs, e)
	if len(args) == 0 || args[0] != "refresh" {
		fs.Usage()
		return fmt.Errorf("snapshot: say refresh")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	pool, err := dbf.open(ctx, e)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := db.NewStore(pool).RefreshSnapshot(ctx, time.Now())
	if err != nil {
		return err
	}
	if res.Skipped {
		fmt.Fprintln(e.stdout, "another instance is refreshing the snapshot; skipped")
		return nil
	}
	fmt.Fprintf(e.stdout, "snapshot refreshed: %d rows in %s\n", res.Rows, res.Duration.Round(time.Millisecond))
	return nil
}

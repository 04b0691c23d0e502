package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"tributary"
	"tributary/db"
)

// maxReported caps the bad lines an import prints; the rest are counted.
const maxReported = 50

func cmdImport(ctx context.Context, e *env, args []string) error {
	return importShares(ctx, e, os.Stdin, args)
}

// importShares is cmdImport with stdin passed in, since env has none.
func importShares(ctx context.Context, e *env, stdin io.Reader, args []string) error {
	fs := newFlags(e, "import", `import [flags] FILE

Imports shares from FILE (or - for stdin): CSV with a header row, or JSON Lines, one object per line.
Columns (keys): url, title, handle, shared_at (RFC 3339, YYYY-MM-DD or "YYYY-MM-DD HH:MM:SS" in UTC),
and optionally text (the comment) and tags (separated by spaces, commas or semicolons; in JSONL also
an array). Missing users are created without a password. Shares imported before are left alone.
By default a file with any bad line imports nothing.`)
	var dbf dbFlags
	dbf.register(fs, e)
	format := fs.String("format", "", "file format: csv or jsonl (default: from FILE's extension; .ndjson is jsonl)")
	skipInvalid := fs.Bool("skip-invalid", false, "import the valid lines and report the bad ones, instead of importing nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("import: say which FILE to import (- for stdin)")
	}
	// Flags may follow FILE too; the flag package stops at the first argument.
	path := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("import: one FILE at a time (got %q too)", fs.Arg(0))
	}
	f, err := importFormat(path, *format)
	if err != nil {
		return fmt.Errorf("import: %s", tributary.ErrorMessage(err))
	}

	start := time.Now()
	in := stdin
	if path != "-" {
		file, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer file.Close()
		in = file
	}
	recs, bad, err := tributary.ParseImport(in, f, start)
	if err != nil {
		if tributary.ErrorCode(err) == tributary.EInvalid {
			return fmt.Errorf("import: %s: %s", path, tributary.ErrorMessage(err))
		}
		return fmt.Errorf("import: %s: %w", path, err)
	}
	reportBad(e.stderr, path, bad)
	if len(bad) > 0 && !*skipInvalid {
		return fmt.Errorf("import: %s has %d bad %s; nothing imported (--skip-invalid imports the valid ones)",
			path, len(bad), plural(len(bad), "line"))
	}

	pool, err := dbf.open(ctx, e)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := db.NewStore(pool).Import(ctx, recs)
	if err != nil {
		if tributary.ErrorCode(err) != tributary.EInternal {
			return fmt.Errorf("import: %s", tributary.ErrorMessage(err))
		}
		return fmt.Errorf("import: nothing imported: %w", err)
	}
	fmt.Fprintf(e.stdout, "%d imported, %d already present, %d %s created", res.Imported, res.AlreadyPresent,
		res.UsersCreated, plural(res.UsersCreated, "user"))
	if *skipInvalid {
		fmt.Fprintf(e.stdout, ", %d skipped", len(bad))
	}
	fmt.Fprintf(e.stdout, " in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func importFormat(path, flagValue string) (tributary.ImportFormat, error) {
	switch {
	case flagValue != "":
		return tributary.ParseImportFormat(flagValue)
	case path == "-":
		return "", tributary.Errorf(tributary.EInvalid, "Reading stdin needs --format csv or --format jsonl.")
	}
	return tributary.ImportFormatOf(path)
}

// reportBad prints the bad lines of an import, at most maxReported of them.
func reportBad(w io.Writer, path string, bad []tributary.LineError) {
	for i, le := range bad {
		if i == maxReported {
			fmt.Fprintf(w, "%s: and %d more bad %s\n", path, len(bad)-i, plural(len(bad)-i, "line"))
			break
		}
		fmt.Fprintf(w, "%s: %v\n", path, le)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tributary/db"
	"tributary/db/dbtest"
)

const goodCSV = `url,title,handle,shared_at,tags
https://arxiv.org/abs/2401.00001,A paper,Ada,2026-01-02,ml
"https://github.com/a/b","A repo, with a comma",ADA,2026-01-03T10:00:00Z,go;db
https://a.com/post,"Two
lines",bob,2026-01-04 09:00:00,
`

const badCSV = `url,title,handle,shared_at
https://arxiv.org/abs/2401.00001,A paper,ada,2026-01-02
ftp://a.com/x,,ada,2026-01-02
https://a.com/1,,x y,2026-01-02
https://github.com/a/b,"Two
lines",Ada,2026-01-03
https://a.com/2,,bob,yesterday
`

// importRun runs "tributary import" on a file holding content, against the database at dsn.
func importRun(t *testing.T, dsn, name, content string, flags ...string) (stdout, stderr string, err error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := append([]string{"import", "--database-url", dsn}, flags...)
	err = run(context.Background(), append(args, path), func(string) string { return "" }, &out, &errOut)
	return out.String(), errOut.String(), err
}

// rowCounts reads how many users and posts the database at dsn holds.
func rowCounts(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var users, posts int
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM posts)").Scan(&users, &posts); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d users, %d posts", users, posts)
}

func TestImportCommand(t *testing.T) {
	tests := []struct {
		name       string
		file       string
		content    string
		flags      []string
		wantErr    string   // "" for success
		wantOut    string   // the summary, before its elapsed time
		wantStderr []string // lines stderr must hold
		wantRows   string
	}{
		{
			name:     "csv",
			file:     "shares.csv",
			content:  goodCSV,
			wantOut:  "3 imported, 0 already present, 2 users created in ",
			wantRows: "2 users, 3 posts",
		},
		{
			name: "jsonl",
			file: "shares.ndjson",
			content: `{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02","tags":["x","y"]}` + "\n" +
				`{"url":"https://a.com/2","handle":"Ada","shared_at":"2026-01-02"}` + "\n",
			wantOut:  "2 imported, 0 already present, 1 user created in ",
			wantRows: "1 users, 2 posts",
		},
		{
			name:       "a bad line imports nothing",
			file:       "shares.csv",
			content:    badCSV,
			wantErr:    "has 3 bad lines; nothing imported",
			wantStderr: []string{"line 3: URL is not valid", `line 4: handle "x y" may use only`, `line 7: shared_at "yesterday" is not a date`},
			wantRows:   "0 users, 0 posts",
		},
		{
			name:       "skip invalid imports the valid lines",
			file:       "shares.csv",
			content:    badCSV,
			flags:      []string{"--skip-invalid"},
			wantOut:    "2 imported, 0 already present, 1 user created, 3 skipped in ",
			wantStderr: []string{"line 3: URL is not valid", `line 4: handle "x y" may use only`, `line 7: shared_at "yesterday" is not a date`},
			wantRows:   "1 users, 2 posts",
		},
		{
			name:     "format flag overrides the extension",
			file:     "shares.txt",
			content:  goodCSV,
			flags:    []string{"--format", "csv"},
			wantOut:  "3 imported, 0 already present, 2 users created in ",
			wantRows: "2 users, 3 posts",
		},
		{
			name:     "unknown extension",
			file:     "shares.txt",
			content:  goodCSV,
			wantErr:  "say --format",
			wantRows: "0 users, 0 posts",
		},
		{
			name:     "bad header",
			file:     "shares.csv",
			content:  "url,title,handle,when\n",
			wantErr:  `unknown column "when"; missing column shared_at`,
			wantRows: "0 users, 0 posts",
		},
		{
			name:       "invalid JSON",
			file:       "shares.jsonl",
			content:    `{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02"}` + "\n\n" + `{"url":` + "\n",
			wantErr:    "has 1 bad line; nothing imported",
			wantStderr: []string{"line 3: invalid JSON: unexpected end of JSON input"},
			wantRows:   "0 users, 0 posts",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dsn := dbtest.DSN(t)
			stdout, stderr, err := importRun(t, dsn, tc.file, tc.content, tc.flags...)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("got error %v, want none; stderr:\n%s", err, stderr)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
			}
			if !strings.HasPrefix(stdout, tc.wantOut) {
				t.Errorf("got stdout %q, want it to start with %q", stdout, tc.wantOut)
			}
			for _, want := range tc.wantStderr {
				if !strings.Contains(stderr, ": "+want) {
					t.Errorf("got stderr\n%s\nwant a line containing %q", stderr, want)
				}
			}
			if got := rowCounts(t, dsn); got != tc.wantRows {
				t.Errorf("got %s, want %s", got, tc.wantRows)
			}
		})
	}
}

func TestImportCommandTwice(t *testing.T) {
	dsn := dbtest.DSN(t)
	if _, stderr, err := importRun(t, dsn, "shares.csv", goodCSV); err != nil {
		t.Fatalf("first import: %v\n%s", err, stderr)
	}
	stdout, stderr, err := importRun(t, dsn, "again.csv", goodCSV)
	if err != nil {
		t.Fatalf("second import: %v\n%s", err, stderr)
	}
	if want := "0 imported, 3 already present, 0 users created in "; !strings.HasPrefix(stdout, want) {
		t.Errorf("got stdout %q, want it to start with %q", stdout, want)
	}
	if got, want := rowCounts(t, dsn), "2 users, 3 posts"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestImportCommandReportCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("url,title,handle,shared_at\n")
	for range maxReported + 7 {
		b.WriteString("https://a.com/1,,ada,someday\n")
	}
	_, stderr, err := importRun(t, "postgres://unused.invalid/none", "many.csv", b.String())
	if err == nil || !strings.Contains(err.Error(), "has 57 bad lines") {
		t.Fatalf("got error %v, want 57 bad lines", err)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if got, want := len(lines), maxReported+1; got != want {
		t.Fatalf("got %d lines of report, want %d", got, want)
	}
	if got, want := lines[0], "line 2: shared_at"; !strings.Contains(got, want) {
		t.Errorf("got first line %q, want it to contain %q", got, want)
	}
	if got, want := lines[maxReported], "and 7 more bad lines"; !strings.HasSuffix(got, want) {
		t.Errorf("got last line %q, want it to end with %q", got, want)
	}
}

func TestImportCommandStdin(t *testing.T) {
	dsn := dbtest.DSN(t)
	var out, errOut bytes.Buffer
	e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errOut}
	jsonl := `{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02"}` + "\n"
	if err := importShares(context.Background(), e, strings.NewReader(jsonl), []string{"-", "--format", "jsonl", "--database-url", dsn}); err != nil {
		t.Fatalf("import from stdin: %v\n%s", err, errOut.String())
	}
	if got, want := rowCounts(t, dsn), "1 users, 1 posts"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	err := importShares(context.Background(), e, strings.NewReader(jsonl), []string{"--database-url", dsn, "-"})
	if err == nil || !strings.Contains(err.Error(), "needs --format") {
		t.Errorf("got error %v without --format, want one asking for it", err)
	}
}

func TestImportCommandArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"import"}, "say which FILE"},
		{"two files", []string{"import", "a.csv", "b.csv"}, `one FILE at a time (got "b.csv" too)`},
		{"missing file", []string{"import", filepath.Join(t.TempDir(), "none.csv")}, "no such file"},
		{"bad format", []string{"import", "--format", "xml", "a.csv"}, `Unknown import format "xml"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tc.args, func(string) string { return "" }, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

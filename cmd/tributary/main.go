// Command tributary runs the Tributary knowledge feed: the web server and its tools.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp): // --help: the usage was printed
	case err != nil:
		fmt.Fprintln(os.Stderr, "tributary:", err)
		os.Exit(1)
	}
}

const usage = `Tributary: a knowledge feed.

Usage: tributary <command> [flags]

Commands:
  serve      run the web server (starts a private PostgreSQL unless DATABASE_URL is set)
  migrate    apply database migrations
  seed       fill the database with deterministic demo or benchmark data
  import     import shares from a CSV or JSONL file
  snapshot   refresh the ranked feed's snapshot now (serve refreshes it hourly)
  keys       rotate the site's cursor keys (every instance follows)
  cluster    start, stop or locate this checkout's private PostgreSQL cluster
  bench      benchmark the feed on the bench dataset; writes BENCHMARKS.md
  backup     write the database to a file (pg_dump's custom format)
  restore    load a backup into an empty database
  topology   start, stop or roll a production-shaped site here: haproxy, 3 instances, PgBouncer, a replica
  soak       two instances under mixed traffic, PostgreSQL restarted midway; writes SOAK.md

Run 'tributary <command> --help' for a command's flags.
`

// command is one subcommand; run gets the arguments after the command's name.
type command func(ctx context.Context, env *env, args []string) error

// env is what every command gets from the process: no globals.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

var commands = map[string]command{
	"serve":    cmdServe,
	"migrate":  cmdMigrate,
	"seed":     cmdSeed,
	"import":   cmdImport,
	"cluster":  cmdCluster,
	"snapshot": cmdSnapshot,
	"bench":    cmdBench,
	"keys":     cmdKeys,
	"soak":     cmdSoak,
	"topology": cmdTopology,
	"backup":   cmdBackup,
	"restore":  cmdRestore,
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
	return cmd(ctx, &env{getenv: getenv, stdout: stdout, stderr: stderr}, args[1:])
}

// newFlags makes a flag set that prints its usage to stderr and returns errors instead of exiting.
func newFlags(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: tributary %s\n\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// envOr returns the environment value of key, or def.
func (e *env) envOr(key, def string) string {
	if v := e.getenv(key); v != "" {
		return v
	}
	return def
}

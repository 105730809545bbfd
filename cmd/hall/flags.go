package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hall-dev/hall/internal/cli"
)

// parseFlags parses a command's flags and their HALL_* variables
// (cli.ParseWithEnv). Asked for help (-h, -help, --help), it prints the
// command's usage (about, then its flags) on stdout and ends the command
// with status 0. A flag it cannot read ends the command with status 2: the
// usage on stderr, then the error.
func parseFlags(fs *flag.FlagSet, about string, args []string, stdout, stderr io.Writer) error {
	return parseWith(cli.ParseWithEnv, fs, about, args, stdout, stderr)
}

// parseWith is parseFlags with its own parse (a command whose flags take
// no HALL_* variables passes (*flag.FlagSet).Parse).
func parseWith(parse func(*flag.FlagSet, []string) error, fs *flag.FlagSet, about string, args []string, stdout, stderr io.Writer) error {
	fs.SetOutput(io.Discard) // the flag package's own messages: ours follow
	fs.Usage = func() {}
	err := parse(fs, args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout, fs, about)
		return &exitError{code: 0}
	default:
		printUsage(stderr, fs, about)
		return &exitError{code: 2, err: err}
	}
}

// isHelp reports whether arg asks for help as the flag package reads it.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--h", "--help":
		return true
	}
	return false
}

// printUsage writes a command's usage: about, then its flags.
func printUsage(w io.Writer, fs *flag.FlagSet, about string) {
	fmt.Fprint(w, about)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if !hasFlags {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// defaultRegistryRoot is m1nd's own default, so a Hall started beside m1nd
// sees its sessions with no setup: M1ND_REGISTRY_DIR, else
// $HOME/.m1nd/registry.
func defaultRegistryRoot() string {
	if d := os.Getenv("M1ND_REGISTRY_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".m1nd", "registry")
	}
	return filepath.Join(home, ".m1nd", "registry")
}

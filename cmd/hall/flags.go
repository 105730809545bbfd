package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// parseFlags parses a command's flags and their HALL_* variables
// (parseWithEnv). Asked for help (-h, -help, --help), it prints the
// command's usage (about, then its flags) on stdout and ends the command
// with status 0. A flag it cannot read ends the command with status 2: the
// usage on stderr, then the error.
func parseFlags(fs *flag.FlagSet, about string, args []string, stdout, stderr io.Writer) error {
	fs.SetOutput(io.Discard) // the flag package's own messages: ours follow
	fs.Usage = func() {}
	err := parseWithEnv(fs, args)
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

// envName is the environment variable that backs a flag: HALL_ and the
// flag's name in upper snake case.
func envName(flagName string) string {
	return "HALL_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseWithEnv parses args, then fills every flag not given on the command
// line from its HALL_* environment variable. List flags take several values
// from one variable, separated by the OS path-list separator (":").
func parseWithEnv(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := os.LookupEnv(envName(f.Name))
		if given[f.Name] || !ok || err != nil {
			return
		}
		if _, isList := f.Value.(*stringList); isList {
			for _, part := range filepath.SplitList(v) {
				if part != "" {
					err = fs.Set(f.Name, part)
				}
			}
			return
		}
		err = fs.Set(f.Name, v)
	})
	return err
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

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

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// parseFlags parses a command's flags and their HALL_* variables
// (parseWithEnv). Asked for help (-h, -help, --help), it prints the
// command's usage (about, then its flags) on stdout and ends the command
// with status 0. A flag it cannot read ends the command with status 2: the
// usage on stderr, then the error.
func parseFlags(fs *flag.FlagSet, about string, args []string, stdout, stderr io.Writer) error {
	return parseWith(parseWithEnv, fs, about, args, stdout, stderr)
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

// envName is the environment variable that backs a flag: HALL_ and the
// flag's name in upper snake case.
func envName(flagName string) string {
	return "HALL_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseWithEnv parses args, then fills every flag not given on the command
// line from its HALL_* environment variable. List flags take several values
// from one variable, separated by the OS path-list separator (":"). A flag
// and its -file form (--token and --token-file) are one setting: when
// either is given on the command line, the environment fills neither.
func parseWithEnv(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		if base, ok := strings.CutSuffix(f.Name, "-file"); ok && fs.Lookup(base) != nil {
			given[base] = true
		}
		if fs.Lookup(f.Name+"-file") != nil {
			given[f.Name+"-file"] = true
		}
	})
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := os.LookupEnv(envName(f.Name))
		if given[f.Name] || !ok || err != nil {
			return
		}
		if l, isList := f.Value.(listValue); isList {
			for _, part := range l.split(v) {
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

// secret is a secret a command takes either inline (--token, which any
// user of the machine sees in ps) or from a file (--token-file), read
// once, when the command starts.
type secret struct {
	name         string // the inline flag's name; the file flag adds -file
	inline, file string
}

// register declares --NAME and --NAME-file.
func (s *secret) register(fs *flag.FlagSet, name, usage string) {
	s.name = name
	fs.StringVar(&s.inline, name, "", usage+" (visible in ps: prefer --"+name+"-file or "+envName(name)+")")
	fs.StringVar(&s.file, name+"-file", "", "a file holding --"+name+", read once at start, surrounding white space trimmed")
}

// value is the secret: the file's content trimmed, or the inline value.
// Both given, an unreadable file or an empty one are errors naming the
// flag.
func (s *secret) value() (string, error) {
	if s.file == "" {
		return s.inline, nil
	}
	if s.inline != "" {
		return "", fmt.Errorf("--%s and --%s-file are both set (one may come from %s): give one", s.name, s.name, envName(s.name))
	}
	b, err := os.ReadFile(s.file)
	if err != nil {
		return "", fmt.Errorf("--%s-file: %w", s.name, err)
	}
	v := strings.TrimSpace(string(b))
	switch {
	case v == "":
		return "", fmt.Errorf("--%s-file %s is empty", s.name, s.file)
	case strings.ContainsFunc(v, unicode.IsControl):
		return "", fmt.Errorf("--%s-file %s holds more than one line", s.name, s.file)
	}
	return v, nil
}

// listValue is a repeatable flag: its HALL_* variable holds several
// values, split.
type listValue interface {
	flag.Value
	split(env string) []string
}

// stringList is a repeatable string flag; its variable separates values
// with the OS path-list separator (":").
type stringList []string

func (l *stringList) String() string            { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error        { *l = append(*l, v); return nil }
func (l *stringList) split(env string) []string { return filepath.SplitList(env) }

// hostList is a repeatable flag of host names, whose values may hold a
// port ("name:port"): its variable separates them with commas.
type hostList struct{ stringList }

func (l *hostList) split(env string) []string { return strings.Split(env, ",") }

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

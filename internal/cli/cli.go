// Package cli holds the command-line conventions the Hall's commands share
// (hall and the lean hall-hook): where a Hall listens by default, the
// HALL_* variable behind each flag, secrets given inline or in a file, and
// repeatable flags. It imports nothing heavier than the flag package, so
// hall-hook, which starts once per tool call, stays small.
package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// DefaultAddr is where a Hall listens unless told otherwise: loopback.
const DefaultAddr = "127.0.0.1:7433"

// DefaultURL is where the commands that call a Hall find it by default.
const DefaultURL = "http://" + DefaultAddr

// EnvName is the environment variable that backs a flag: HALL_ and the
// flag's name in upper snake case.
func EnvName(flagName string) string {
	return "HALL_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// ParseWithEnv parses args, then fills every flag not given on the command
// line from its HALL_* environment variable. List flags take several values
// from one variable (ListValue). A flag and its -file form (--token and
// --token-file) are one setting: when either is given on the command line,
// the environment fills neither.
func ParseWithEnv(fs *flag.FlagSet, args []string) error {
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
		v, ok := os.LookupEnv(EnvName(f.Name))
		if given[f.Name] || !ok || err != nil {
			return
		}
		if l, isList := f.Value.(ListValue); isList {
			for _, part := range l.Split(v) {
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

// Secret is a secret a command takes either inline (--token, which any
// user of the machine sees in ps) or from a file (--token-file), read
// once, when the command starts.
type Secret struct {
	name         string // the inline flag's name; the file flag adds -file
	inline, file string
}

// Register declares --NAME and --NAME-file.
func (s *Secret) Register(fs *flag.FlagSet, name, usage string) {
	s.name = name
	fs.StringVar(&s.inline, name, "", usage+" (visible in ps: prefer --"+name+"-file or "+EnvName(name)+")")
	fs.StringVar(&s.file, name+"-file", "", "a file holding --"+name+", read once at start, surrounding white space trimmed")
}

// Value is the secret: the file's content trimmed, or the inline value.
// Both given, an unreadable file or an empty one are errors naming the
// flag.
func (s *Secret) Value() (string, error) {
	if s.file == "" {
		return s.inline, nil
	}
	if s.inline != "" {
		return "", fmt.Errorf("--%s and --%s-file are both set (one may come from %s): give one", s.name, s.name, EnvName(s.name))
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

// ListValue is a repeatable flag: its HALL_* variable holds several
// values, which Split separates.
type ListValue interface {
	flag.Value
	Split(env string) []string
}

// StringList is a repeatable string flag; its variable separates values
// with the OS path-list separator (":").
type StringList []string

func (l *StringList) String() string            { return strings.Join(*l, ",") }
func (l *StringList) Set(v string) error        { *l = append(*l, v); return nil }
func (l *StringList) Split(env string) []string { return filepath.SplitList(env) }

// HostList is a repeatable flag of host names, whose values may hold a
// port ("name:port"): its variable separates them with commas.
type HostList struct{ StringList }

func (l *HostList) Split(env string) []string { return strings.Split(env, ",") }

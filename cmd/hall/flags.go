package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
)

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

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is hall's version when the build sets it:
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/hall
//
// Otherwise it comes from the build info: the module version that
// `go install …@v1.2.3` records, else the commit a build from a clone
// records.
var version string

const versionAbout = `usage: hall version

Print hall's version and the Go version that built it.
`

// runVersion is `hall version`.
func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hall version", flag.ContinueOnError)
	if err := parseFlags(fs, versionAbout, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &exitError{code: 2, err: fmt.Errorf("version takes no arguments, got %q", fs.Args())}
	}
	fmt.Fprintf(stdout, "hall %s\n%s %s/%s\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// buildVersion is this binary's version, as `hall version` prints it:
// what the MCP server reports as its serverInfo.version.
func buildVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(version, info)
}

// versionOf names a build: the version set at link time, else the module's
// version, else the commit it was built from ("(devel) 0123456789ab",
// "-dirty" when the tree had changes), else "(devel)".
func versionOf(linked string, info *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if info == nil {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	return "(devel) " + rev[:min(len(rev), 12)] + dirty
}

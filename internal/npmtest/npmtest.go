// Package npmtest installs the Hall as a person without Go does: it
// builds the release's npm packages for this machine's platform
// (scripts/release), packs them, and installs the packs into an empty
// prefix with npm, offline. npm/package_test.go runs what that puts on
// PATH; internal/realagents runs real agents with only that on PATH.
package npmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Version is the release version the packages are built as.
const Version = "0.0.0-test.1"

// Install is one install into a fresh prefix.
type Install struct {
	// Dist is what scripts/release wrote: archives, packs, checksums.txt,
	// hall.rb.
	Dist string
	// Prefix is npm's --prefix; its bin/ holds hall and hall-hook.
	Prefix string
}

// Package is the folder of the installed @hall-dev/hall: its bin/, the
// Claude Code plugin (claude-code-plugin/) and the Gemini CLI extension
// (gemini-extension/).
func (i Install) Package() string {
	return filepath.Join(i.Prefix, "lib", "node_modules", "@hall-dev", "hall")
}

// Bin is the path of a program the install put on PATH.
func (i Install) Bin(name string) string { return filepath.Join(i.Prefix, "bin", name) }

// New builds the packages under dir and installs them into dir/prefix,
// failing tb when node, npm, the build or the install fail.
func New(tb testing.TB, dir string) Install {
	tb.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Fatalf("%s: %v (.ci/run installs it)", tool, err)
		}
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	in := Install{Dist: filepath.Join(dir, "dist"), Prefix: filepath.Join(dir, "prefix")}
	release := exec.Command(filepath.Join(root, "scripts", "release"), "--version", Version, "--out", in.Dist, "--targets", runtime.GOOS+"/"+runtime.GOARCH)
	release.Dir = root
	if out, err := release.CombinedOutput(); err != nil {
		tb.Fatalf("scripts/release: %v\n%s", err, out)
	}
	cpu := map[string]string{"amd64": "x64"}[runtime.GOARCH]
	if cpu == "" {
		cpu = runtime.GOARCH
	}
	packs := []string{
		"./hall-dev-hall-" + runtime.GOOS + "-" + cpu + "-" + Version + ".tgz",
		"./hall-dev-hall-" + Version + ".tgz",
	}
	// --offline: the packs are all there is (the other platforms'
	// optional dependencies are skipped, as npm skips any that does not
	// fit os and cpu).
	install := exec.Command("npm", append([]string{"install", "--global", "--prefix", in.Prefix, "--offline", "--no-audit", "--no-fund"}, packs...)...)
	install.Dir = in.Dist
	if out, err := install.CombinedOutput(); err != nil {
		tb.Fatalf("npm install: %v\n%s", err, out)
	}
	return in
}

// NoGoPath is a PATH holding the install's bin/, then the folders of
// the programs named (node, to run npm's entries and the agent CLIs),
// then /usr/bin and /bin; it fails tb if go is on it.
func (i Install) NoGoPath(tb testing.TB, programs ...string) string {
	tb.Helper()
	dirs := []string{filepath.Join(i.Prefix, "bin")}
	for _, p := range programs {
		found, err := exec.LookPath(p)
		if err != nil {
			tb.Fatal(err)
		}
		dirs = append(dirs, filepath.Dir(found))
	}
	dirs = append(dirs, "/usr/bin", "/bin")
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			tb.Fatalf("%s/go: the PATH must hold no Go", d)
		}
	}
	return strings.Join(dirs, string(filepath.ListSeparator))
}

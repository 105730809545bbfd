package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServiceInstallWritesAUserUnit: hall service install writes a
// systemd user unit under $XDG_CONFIG_HOME that runs this program's serve
// with the address, the registry and the flags after --, readable by the
// user alone; systemd-analyze verify (where installed) accepts it; a
// second install replaces it; uninstall removes it, and a second
// uninstall says there is none.
func TestServiceInstallWritesAUserUnit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	root := filepath.Join(home, "a registry with 100% $pace")
	unit := filepath.Join(home, "config", "systemd", "user", "hall.service")

	for range 2 {
		code, stdout, stderr := runCLI(t, "", "service", "install", "--start=false", "--addr", "127.0.0.1:7444", "--registry-root", root, "--", "--token-file", filepath.Join(home, "token"))
		if code != 0 || stderr != "" || !strings.Contains(stdout, unit) {
			t.Fatalf("install: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	body, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	want := "ExecStart=" + systemdQuote(self) + ` "serve" "--addr" "127.0.0.1:7444" "--registry-root" "` +
		strings.NewReplacer("%", "%%", "$", "$$").Replace(root) + `" "--token-file" "` + filepath.Join(home, "token") + `"` + "\n"
	if !strings.Contains(string(body), want) {
		t.Errorf("unit:\n%s\nwant the line\n%s", body, want)
	}
	for _, line := range []string{"[Service]\n", "Restart=on-failure\n", "[Install]\nWantedBy=default.target\n"} {
		if !strings.Contains(string(body), line) {
			t.Errorf("unit lacks %q:\n%s", line, body)
		}
	}
	if fi, err := os.Stat(unit); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("unit mode: %v, %v; want 0600", fi.Mode(), err)
	}
	if analyze, err := exec.LookPath("systemd-analyze"); err == nil {
		out, err := exec.Command(analyze, "verify", unit).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}

	if code, stdout, stderr := runCLI(t, "", "service", "uninstall", "--start=false"); code != 0 || stderr != "" || !strings.Contains(stdout, "removed "+unit) {
		t.Fatalf("uninstall: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Errorf("unit after uninstall: %v", err)
	}
	if code, stdout, _ := runCLI(t, "", "service", "uninstall", "--start=false"); code != 0 || !strings.Contains(stdout, "no service installed") {
		t.Errorf("second uninstall: exit %d, %q", code, stdout)
	}
	if code, _, _ := runCLI(t, "", "service", "enable"); code != 2 {
		t.Errorf("hall service enable: exit %d, want 2", code)
	}
}

// TestServiceLaunchdAgent: the macOS agent is a well-formed plist whose
// program and arguments read back as written, special characters and all.
func TestServiceLaunchdAgent(t *testing.T) {
	spec := serviceSpec{Program: "/Users/a b/hall", Args: []string{"serve", "--registry-root", "/Users/a b/<reg>&'\""}, LogFile: "/Users/a b/<reg>&'\"/hall.log"}
	body, err := serviceFile("darwin", spec)
	if err != nil {
		t.Fatal(err)
	}
	var plist struct {
		Dict struct {
			Keys    []string `xml:"key"`
			Strings []string `xml:"string"`
			Array   struct {
				Strings []string `xml:"string"`
			} `xml:"array"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(body, &plist); err != nil {
		t.Fatalf("plist: %v\n%s", err, body)
	}
	if got, want := strings.Join(plist.Dict.Array.Strings, "|"), strings.Join(append([]string{spec.Program}, spec.Args...), "|"); got != want {
		t.Errorf("ProgramArguments %q, want %q", got, want)
	}
	if got := strings.Join(plist.Dict.Keys, ","); got != "Label,ProgramArguments,RunAtLoad,KeepAlive,StandardOutPath,StandardErrorPath" {
		t.Errorf("keys %s", got)
	}
	if plist.Dict.Strings[0] != launchdLabel || plist.Dict.Strings[1] != spec.LogFile {
		t.Errorf("label and log %q", plist.Dict.Strings)
	}
	if p, _ := servicePath("darwin", "/Users/a", ""); p != "/Users/a/Library/LaunchAgents/dev.hall.hall.plist" {
		t.Errorf("servicePath darwin: %s", p)
	}
}

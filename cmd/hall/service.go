package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/cli"
)

const serviceUsage = `usage: hall service install|uninstall [--addr A] [--registry-root DIR] [--start=false] [--dry-run] [-- serve flags…]

Keeps a Hall always on as your own user's service, never system-wide and
never with sudo: on Linux a systemd user unit,
~/.config/systemd/user/hall.service ($XDG_CONFIG_HOME), enabled and
started with systemctl --user; on macOS a launchd agent,
~/Library/LaunchAgents/dev.hall.hall.plist, loaded with launchctl. It
runs this hall program's serve with --addr and --registry-root (and the
serve flags after --; give a token as --token-file, never inline: the
file is readable by you alone, but a token has no place in it). The hooks
then find it and start none. uninstall stops it and removes the file.
--start=false writes or removes the file only.
`

// serviceName is the unit's and the agent's name.
const (
	systemdUnit  = "hall.service"
	launchdLabel = "dev.hall.hall"
)

// serviceSpec is what a service runs.
type serviceSpec struct {
	Program string   // hall, resolved
	Args    []string // serve's arguments
	LogFile string   // launchd only: where stdout and stderr go
}

// runService is `hall service install|uninstall`.
func runService(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, serviceUsage)
		if len(args) == 0 {
			return &exitError{code: 2, err: errors.New("want install or uninstall")}
		}
		return nil
	}
	verb := args[0]
	if verb != "install" && verb != "uninstall" {
		return &exitError{code: 2, err: fmt.Errorf("hall service %s: want install or uninstall", verb)}
	}
	fs := flag.NewFlagSet("hall service", flag.ContinueOnError)
	addr := fs.String("addr", cli.DefaultAddr, "the address the Hall listens on")
	root := fs.String("registry-root", defaultRegistryRoot(), "the registry the Hall serves")
	start := fs.Bool("start", true, "enable and start (install) or stop and disable (uninstall) with systemctl --user or launchctl; false: the file only")
	dryRun := fs.Bool("dry-run", false, "print the file and what would run; write and run nothing")
	if err := parseWith(func(fs *flag.FlagSet, a []string) error { return fs.Parse(a) }, fs, serviceUsage, args[1:], stdout, stderr); err != nil {
		return err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("home folder: %w", err)
	}
	path, err := servicePath(runtime.GOOS, home, os.Getenv("XDG_CONFIG_HOME"))
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if verb == "uninstall" {
		return uninstallService(ctx, runtime.GOOS, path, *start, *dryRun, stdout, stderr)
	}
	prog, err := os.Executable()
	if err != nil {
		return fmt.Errorf("this program's path: %w", err)
	}
	if real, err := filepath.EvalSymlinks(prog); err == nil {
		prog = real
	}
	rootAbs, err := filepath.Abs(*root)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--registry-root: %w", err)}
	}
	spec := serviceSpec{Program: prog, Args: append([]string{"serve", "--addr", *addr, "--registry-root", rootAbs}, fs.Args()...),
		LogFile: filepath.Join(rootAbs, "hall.log")}
	body, err := serviceFile(runtime.GOOS, spec)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if *dryRun {
		fmt.Fprintf(stdout, "would write %s:\n%s", path, body)
		for _, c := range serviceCommands(runtime.GOOS, "install", path) {
			fmt.Fprintf(stdout, "would run: %s\n", strings.Join(c, " "))
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("service folder: %w", err)
	}
	if err := atomicfile.WriteFile(path, body, atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	if *start {
		return runServiceCommands(ctx, serviceCommands(runtime.GOOS, "install", path), stdout, stderr)
	}
	return nil
}

// uninstallService stops the service (start) and removes its file; one
// not installed is no error.
func uninstallService(ctx context.Context, goos, path string, start, dryRun bool, stdout, stderr io.Writer) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stdout, "no service installed (%s)\n", path)
		return nil
	}
	cmds := serviceCommands(goos, "uninstall", path)
	if dryRun {
		for _, c := range cmds {
			fmt.Fprintf(stdout, "would run: %s\n", strings.Join(c, " "))
		}
		fmt.Fprintf(stdout, "would remove %s\n", path)
		return nil
	}
	if start {
		// Stopping fails when it never started: the file goes anyway.
		_ = runServiceCommands(ctx, cmds, stdout, stderr)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "removed %s\n", path)
	return nil
}

// servicePath is where the service file lives for the user.
func servicePath(goos, home, xdgConfig string) (string, error) {
	switch goos {
	case "linux":
		if xdgConfig == "" || !filepath.IsAbs(xdgConfig) {
			xdgConfig = filepath.Join(home, ".config")
		}
		return filepath.Join(xdgConfig, "systemd", "user", systemdUnit), nil
	case "darwin":
		return filepath.Join(home, "Library", "LaunchAgents", launchdLabel+".plist"), nil
	}
	return "", fmt.Errorf("hall service knows systemd (linux) and launchd (darwin), not %s", goos)
}

// serviceFile is the unit or the agent's plist.
func serviceFile(goos string, s serviceSpec) ([]byte, error) {
	switch goos {
	case "linux":
		var b bytes.Buffer
		b.WriteString("# Written by hall service install; hall service uninstall removes it.\n")
		b.WriteString("[Unit]\nDescription=The Hall: coding-agent presences and collisions\nDocumentation=https://github.com/hall-dev/hall\n\n")
		b.WriteString("[Service]\nType=simple\nExecStart=")
		for i, a := range append([]string{s.Program}, s.Args...) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(systemdQuote(a))
		}
		b.WriteString("\nRestart=on-failure\nRestartSec=5\n\n[Install]\nWantedBy=default.target\n")
		return b.Bytes(), nil
	case "darwin":
		var b bytes.Buffer
		b.WriteString(xml.Header)
		b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
		b.WriteString("<plist version=\"1.0\">\n<dict>\n")
		key := func(k string) { fmt.Fprintf(&b, "  <key>%s</key>\n", k) }
		str := func(indent, v string) {
			b.WriteString(indent + "<string>")
			_ = xml.EscapeText(&b, []byte(v))
			b.WriteString("</string>\n")
		}
		key("Label")
		str("  ", launchdLabel)
		key("ProgramArguments")
		b.WriteString("  <array>\n")
		for _, a := range append([]string{s.Program}, s.Args...) {
			str("    ", a)
		}
		b.WriteString("  </array>\n")
		key("RunAtLoad")
		b.WriteString("  <true/>\n")
		key("KeepAlive")
		b.WriteString("  <true/>\n")
		key("StandardOutPath")
		str("  ", s.LogFile)
		key("StandardErrorPath")
		str("  ", s.LogFile)
		b.WriteString("</dict>\n</plist>\n")
		return b.Bytes(), nil
	}
	return nil, fmt.Errorf("hall service knows systemd (linux) and launchd (darwin), not %s", goos)
}

// systemdQuote quotes one ExecStart word: in double quotes, with
// backslash, quote, "%" (a specifier) and "$" (a variable) escaped.
func systemdQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$", "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// serviceCommands are what starts (install) or stops (uninstall) the
// service.
func serviceCommands(goos, verb, path string) [][]string {
	switch {
	case goos == "linux" && verb == "install":
		return [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", systemdUnit}}
	case goos == "linux":
		return [][]string{{"systemctl", "--user", "disable", "--now", systemdUnit}, {"systemctl", "--user", "daemon-reload"}}
	case goos == "darwin" && verb == "install":
		return [][]string{{"launchctl", "bootstrap", fmt.Sprintf("gui/%d", os.Getuid()), path}}
	case goos == "darwin":
		return [][]string{{"launchctl", "bootout", fmt.Sprintf("gui/%d/%s", os.Getuid(), launchdLabel)}}
	}
	return nil
}

// runServiceCommands runs each command, their output passed through; the
// first that fails ends it, saying how to run them by hand.
func runServiceCommands(ctx context.Context, cmds [][]string, stdout, stderr io.Writer) error {
	for _, c := range cmds {
		cmd := exec.CommandContext(ctx, c[0], c[1:]...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Run(); err != nil {
			return &exitError{code: 1, err: fmt.Errorf("%s: %w (the file is in place: run it yourself once the service manager answers)", strings.Join(c, " "), err)}
		}
		fmt.Fprintf(stdout, "ran: %s\n", strings.Join(c, " "))
	}
	return nil
}

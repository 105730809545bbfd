package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// proc is a child process whose first stdout lines announce it.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
	url   string
}

// startProc starts a child and waits for the stdout line that matches
// announce, returning what follows the announce prefix.
func startProc(ctx context.Context, name string, args []string, env []string, announce string) (*proc, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	if announce == "" {
		return p, nil
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("%s exited before announcing itself", name)
			}
			if i := strings.Index(l, announce); i >= 0 {
				p.url = strings.TrimSpace(l[i+len(announce):])
				return p, nil
			}
		case <-timeout:
			p.stop()
			return nil, fmt.Errorf("%s did not announce itself in 60 s", name)
		}
	}
}

// waitLine waits for a stdout line equal to want.
func (p *proc) waitLine(want string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return fmt.Errorf("exited before %q", want)
			}
			if l == want {
				return nil
			}
		case <-deadline:
			return fmt.Errorf("no %q within %s", want, timeout)
		}
	}
}

// result waits for the child to print its JSON result line and exit.
func (p *proc) result(v any) error {
	var last string
	for l := range p.lines {
		last = l
	}
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %w", p.cmd.Path, err)
	}
	if err := json.Unmarshal([]byte(last), v); err != nil {
		return fmt.Errorf("read result %q: %w", last, err)
	}
	return nil
}

func (p *proc) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// rssKiB reads a process's resident set from /proc.
func rssKiB(pid int) (int64, error) {
	r, err := residentOf(pid)
	return r.totalKiB, err
}

// resident is a process's resident set in KiB and its two parts: anonymous
// (heap, stacks, the runtime's own: private to the process) and file-backed
// (the pages of the binary and its libraries that it mapped: shared with
// the page cache and with every other process running the same binary,
// and given back under memory pressure). The parts are zero on a kernel
// that does not report them (before Linux 4.5).
type resident struct {
	totalKiB, anonKiB, fileKiB int64
}

// mib is KiB in MiB, as the figures print memory ("MB").
func mib(kib int64) float64 { return float64(kib) / 1024 }

// residentOf reads a process's resident set from /proc/PID/status.
func residentOf(pid int) (resident, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return resident{}, err
	}
	defer f.Close()
	return parseResident(f)
}

// parseResident reads VmRSS, RssAnon and RssFile from a /proc/PID/status.
func parseResident(status io.Reader) (resident, error) {
	var r resident
	seenTotal := false
	fields := map[string]*int64{"VmRSS:": &r.totalKiB, "RssAnon:": &r.anonKiB, "RssFile:": &r.fileKiB}
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		line := strings.Fields(sc.Text()) // "VmRSS:", "2472", "kB"
		if len(line) != 3 || line[2] != "kB" || fields[line[0]] == nil {
			continue
		}
		name, dst := line[0], fields[line[0]]
		v, err := strconv.ParseInt(line[1], 10, 64)
		if err != nil {
			return r, fmt.Errorf("%s %w", name, err)
		}
		*dst = v
		seenTotal = seenTotal || name == "VmRSS:"
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if !seenTotal {
		return r, errors.New("no VmRSS")
	}
	return r, nil
}

// buildHall compiles the hall binary once into dir.
func buildHall(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "hall")
	// The package by its import path: a test runs in tools/hallbench.
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/hall-dev/hall/cmd/hall")
	cmd.Stderr = os.Stderr
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build hall (run from the repository root): %w", err)
	}
	return bin, nil
}

// writeRegistry fills a registry with n live presences over brains brains:
// worktrees shared by pairs now and then, nested working sets, most of them
// mutating — a realistic roster with some collisions.
func writeRegistry(root string, n, brains int, beatMs int64) error {
	dir := filepath.Join(root, "presences")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := writeRecord(dir, benchRecord(i, brains, beatMs)); err != nil {
			return err
		}
	}
	return nil
}

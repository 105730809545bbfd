// Package autostart starts a Hall for a client that found none: hall-hook,
// `hall beat` (--hook or not) and `hall mcp`, told "connection refused" by
// a Hall at a loopback address, start `hall serve --autostarted` there,
// detached (its own session; it logs under its registry root), and wait
// for it within their own deadline. The Hall itself keeps "one per user
// and registry": an autostarted Hall that finds its registry's lock held
// (dirstore.Lock) stops at once, so ten hooks at once leave one Hall.
//
// It never starts a Hall for an address beyond loopback, nor when the
// caller's --autostart is off (HALL_AUTOSTART=0). What it does not do:
// decide when a Hall stops (cmd/hall's --idle-stop) or install a service
// (hall service install).
//
// hall-hook links it, so it imports the standard library only, and costs
// nothing on the path where the Hall answers: only a refused connection
// reaches it.
package autostart

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Flag is the name of the flag (and, as HALL_AUTOSTART, the variable)
// that turns autostart off in every command that has it.
const Flag = "autostart"

// FlagUsage is the flag's usage line, one for every command.
const FlagUsage = "start a Hall (hall serve --autostarted, detached) when none answers at a loopback --hall; HALL_AUTOSTART=0 turns it off"

// Program is the name of the program started: hall, found beside the
// caller's own executable first (the npm package and a release archive
// put hall and hall-hook side by side), then on PATH.
const Program = "hall"

// failedFor is how long a start that failed (the Hall stopped before it
// answered) holds off the next: a hook runs at every tool call, and a
// Hall that cannot start must not be started again at each.
const failedFor = time.Minute

// ErrNoProgram is returned when no hall program can be found to start.
var ErrNoProgram = errors.New("no hall program beside this one or on PATH to start a Hall with")

// Config is one start.
type Config struct {
	// Hall is the Hall's base URL, as the caller was given it.
	Hall string
	// Program is the hall to start; "" finds it (Find).
	Program string
	// Self is the caller's executable, beside which Find looks first; ""
	// takes os.Executable.
	Self string
}

// Refused reports whether err is a refused connection: nothing listens at
// the address, the one case a Hall is started for. A timeout, a reset or
// an answer that cannot be read means something is there.
func Refused(err error) bool {
	return errors.Is(err, connRefused)
}

// LoopbackAddr is the host:port of a plain http base URL whose host is a
// loopback IP address or "localhost"; ok is false for any other (a Hall
// elsewhere is never started from here).
func LoopbackAddr(hallURL string) (addr string, ok bool) {
	u, err := url.Parse(hallURL)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return "", false
	}
	host := u.Hostname()
	if !strings.EqualFold(host, "localhost") {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return "", false
		}
	}
	return u.Host, true
}

// Find is the hall program to start: beside self (its links resolved),
// else on PATH.
func Find(self string) (string, error) {
	if self == "" {
		self, _ = os.Executable()
	}
	if self != "" {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), Program+exeSuffix)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && runnable(fi.Mode()) {
			return p, nil
		}
	}
	p, err := exec.LookPath(Program)
	if err != nil {
		return "", ErrNoProgram
	}
	return p, nil
}

// Start starts a Hall at cfg.Hall's loopback address and waits, until ctx
// ends, for it to take connections. One caller at a time starts (a lock
// file under the user's cache folder, per address); the others wait for
// the address to answer. It returns nil once a connection is taken, and
// an error when the Hall could not be started, stopped before it
// answered (it logs why in hall.log under its registry root), or did not
// answer before ctx ended.
func Start(ctx context.Context, cfg Config) error {
	addr, ok := LoopbackAddr(cfg.Hall)
	if !ok {
		return fmt.Errorf("no Hall started for %s: only a plain http loopback address is started here", cfg.Hall)
	}
	dir, err := stateDir()
	if err != nil {
		return err
	}
	name := filepath.Join(dir, "autostart-"+hashOf(addr))
	unlock, held, err := tryLock(name + ".lock")
	if err != nil {
		return err
	}
	if held {
		// Another caller is starting it: wait for the address.
		return waitFor(ctx, addr, nil)
	}
	defer unlock()
	// A Hall may have come up between the refusal and the lock.
	if dialOnce(ctx, addr) {
		return nil
	}
	if fi, err := os.Stat(name + ".failed"); err == nil && time.Since(fi.ModTime()) < failedFor {
		return fmt.Errorf("a Hall started for %s less than %s ago stopped before it answered: see hall.log under its registry root", addr, failedFor)
	}
	prog := cfg.Program
	if prog == "" {
		if prog, err = Find(cfg.Self); err != nil {
			return err
		}
	}
	exited, err := spawn(prog, addr)
	if err != nil {
		return fmt.Errorf("start %s serve: %w", prog, err)
	}
	err = waitFor(ctx, addr, exited)
	if errors.Is(err, errExited) {
		if f, ferr := os.Create(name + ".failed"); ferr == nil {
			f.Close()
		}
	}
	return err
}

// errExited is a started Hall that stopped before it answered.
var errExited = errors.New("the Hall started here stopped before it answered: see hall.log under its registry root")

// spawn starts prog serve --addr addr --autostarted in a session of its
// own, its standard files on the null device (it opens its log itself),
// its working directory the root: it must not hold a worktree's
// directory. exited is closed when it ends.
func spawn(prog, addr string) (exited <-chan struct{}, err error) {
	cmd := exec.Command(prog, "serve", "--addr", addr, "--autostarted")
	cmd.Dir = string(filepath.Separator)
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return done, nil
}

// waitFor dials addr until a connection is taken (nil), exited is closed
// (errExited), or ctx ends.
func waitFor(ctx context.Context, addr string, exited <-chan struct{}) error {
	pause := 5 * time.Millisecond
	for {
		if dialOnce(ctx, addr) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the Hall started for %s did not answer in time: %w", addr, ctx.Err())
		case <-exited:
			if dialOnce(ctx, addr) { // another Hall won the registry and listens
				return nil
			}
			return errExited
		case <-time.After(pause):
			pause = min(pause*2, 50*time.Millisecond)
		}
	}
}

// dialOnce reports whether addr takes a connection now.
func dialOnce(ctx context.Context, addr string) bool {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// stateDir is <the user's cache folder>/hall, made private if new.
func stateDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("the user's cache folder: %w", err)
	}
	d = filepath.Join(d, "hall")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return d, nil
}

// hashOf names an address's files.
func hashOf(addr string) string {
	h := fnv.New64a()
	h.Write([]byte(addr))
	return fmt.Sprintf("%016x", h.Sum64())
}

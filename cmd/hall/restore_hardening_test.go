package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/fifotest"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// restoreRig is a repository with one commit, a store under a registry
// root, and hall restore run against them (issue 40's restore tests).
type restoreRig struct {
	t     *testing.T
	root  string // the registry root
	wt    string // the worktree
	store *recovery.Store
}

func newRestoreRig(t *testing.T) *restoreRig {
	t.Helper()
	r := &restoreRig{t: t, root: t.TempDir(), wt: filepath.Join(t.TempDir(), "repo")}
	if out, err := exec.Command("git", "init", "-q", r.wt).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r.write("committed.txt", "committed\n")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "init")
	ctx := context.Background()
	runner, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if r.store, err = recovery.Open(ctx, filepath.Join(r.root, recoveryDir), runner, recovery.Limits{}, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *restoreRig) git(args ...string) {
	r.t.Helper()
	full := append([]string{"-C", r.wt, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgSign=false"}, args...)
	if out, err := exec.Command("git", full...).CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// write writes a file under the worktree, its directories made.
func (r *restoreRig) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.wt, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *restoreRig) save() recovery.Snapshot {
	r.t.Helper()
	snap, err := r.store.Save(context.Background(), recovery.SaveRequest{Worktree: r.wt, Agent: "codex",
		Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Tool: "Bash", Command: "git clean -fd"}})
	if err != nil {
		r.t.Fatal(err)
	}
	return snap
}

// hall runs hall restore and answers its output (stdout, then stderr).
func (r *restoreRig) hall(wantCode int, args ...string) string {
	r.t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"restore", "--registry-root", r.root}, args...), nil, &out, &errb); code != wantCode {
		r.t.Fatalf("hall restore %q: exit %d, want %d\n%s%s", args, code, wantCode, out.String(), errb.String())
	}
	return out.String() + errb.String()
}

// treeState lists every file under dir: path, and content or link target.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, rel+" -> "+target)
		case info.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			lines = append(lines, rel+": "+string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestRestoreNeverWritesThroughALink: src/ replaced by a link to a
// directory outside the worktree after the snapshot; a restore, with
// --force too, and --to DIR with such a link inside DIR, write nothing
// outside, nothing at all (all or nothing), and name the path and the
// link (issue 40, item 2).
func TestRestoreNeverWritesThroughALink(t *testing.T) {
	r := newRestoreRig(t)
	r.write("src/app.go", "package app\n")
	r.write("a.txt", "mine\n")
	snap := r.save()
	r.git("clean", "-q", "-fd")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "app.go"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.wt, "src")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{snap.ID}, {snap.ID, "--force"}, {snap.ID, "src/app.go", "--force"}} {
		out := r.hall(1, args...)
		if !strings.Contains(out, "src/app.go") || !strings.Contains(out, "symbolic link") {
			t.Errorf("hall restore %q: %q, want a refusal naming src/app.go and the link", args, out)
		}
		if got := treeState(t, outside); got != "app.go: theirs\n" {
			t.Errorf("hall restore %q wrote outside the worktree: %q", args, got)
		}
		if _, err := os.Lstat(filepath.Join(r.wt, "a.txt")); !os.IsNotExist(err) {
			t.Errorf("hall restore %q wrote a.txt though it refused src/app.go: not all or nothing", args)
		}
	}
	to := t.TempDir()
	outside2 := t.TempDir()
	if err := os.Symlink(outside2, filepath.Join(to, "src")); err != nil {
		t.Fatal(err)
	}
	out := r.hall(1, snap.ID, "--to", to)
	if !strings.Contains(out, "src/app.go") || !strings.Contains(out, "symbolic link") {
		t.Errorf("--to: %q, want a refusal naming src/app.go", out)
	}
	if got := treeState(t, outside2); got != "" {
		t.Errorf("--to wrote through its link: %q", got)
	}
}

// TestRestoreStreamsLargeFiles: a 9 MiB untracked file (past git's
// output bound) comes back through git clean -fd, into the worktree and
// with --to (issue 40, item 3).
func TestRestoreStreamsLargeFiles(t *testing.T) {
	r := newRestoreRig(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 9<<20/16)
	big = append(big, "tail"...)
	if err := os.WriteFile(filepath.Join(r.wt, "big.bin"), big, 0o600); err != nil {
		t.Fatal(err)
	}
	r.write("small.txt", "small\n")
	snap := r.save()
	r.git("clean", "-q", "-fd")
	r.hall(0, snap.ID)
	if b, _ := os.ReadFile(filepath.Join(r.wt, "big.bin")); !bytes.Equal(b, big) {
		t.Errorf("big.bin restored: %d bytes, want %d", len(b), len(big))
	}
	if info, err := os.Stat(filepath.Join(r.wt, "big.bin")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("big.bin: %v %v, want mode 0600", info, err)
	}
	to := t.TempDir()
	r.hall(0, snap.ID, "--to", to)
	if b, _ := os.ReadFile(filepath.Join(to, "big.bin")); !bytes.Equal(b, big) {
		t.Errorf("--to big.bin: %d bytes, want %d", len(b), len(big))
	}
	if b, _ := os.ReadFile(filepath.Join(to, "small.txt")); string(b) != "small\n" {
		t.Errorf("--to small.txt: %q", b)
	}
}

// TestRestoreNamesAsBytes: a name with a leading ':' (pathspec magic to
// git) and a name that is not UTF-8 are listed, diffed and restored
// (issue 40, item 4).
func TestRestoreNamesAsBytes(t *testing.T) {
	r := newRestoreRig(t)
	colon, latin1 := ":(top)colon.txt", "caf\xe9.txt"
	r.write(colon, "colon\n")
	r.write(latin1, "latin1\n")
	snap := r.save()
	var listed struct {
		Snapshots []recovery.Snapshot `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(r.hall(0, "--list", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range listed.Snapshots[0].Files {
		names = append(names, f.Path)
	}
	if !strings.Contains(strings.Join(names, "\n"), latin1) {
		t.Errorf("the record's names %q lost %q", names, latin1)
	}
	r.git("clean", "-q", "-fd")
	out := r.hall(0, snap.ID, "--diff")
	for _, want := range []string{"missing  :(top)colon.txt", `missing  "caf\xe9.txt"`} {
		if !strings.Contains(out, want) {
			t.Errorf("--diff: %q, want a line %q", out, want)
		}
	}
	r.hall(0, snap.ID)
	for name, want := range map[string]string{colon: "colon\n", latin1: "latin1\n"} {
		if b, err := os.ReadFile(filepath.Join(r.wt, name)); string(b) != want {
			t.Errorf("%q restored: %q %v, want %q", name, b, err, want)
		}
	}
	if out := r.hall(0, snap.ID, "--diff", latin1, colon); strings.Count(out, "same") != 2 {
		t.Errorf("--diff after the restore: %q, want both same", out)
	}
}

// TestRestoreEscapesControlCharacters: a name holding an OSC title
// sequence and a clear-screen reaches the terminal escaped in --list,
// --diff, a restore's lines and its refusal (issue 40, item 13).
func TestRestoreEscapesControlCharacters(t *testing.T) {
	r := newRestoreRig(t)
	name := "x\x1b]0;pwned\x07\x1b[2J\u009b.txt"
	r.write(name, "evil\n")
	snap := r.save()
	r.git("clean", "-q", "-fd")
	check := func(what, out string) {
		t.Helper()
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Errorf("%s printed a control character: %q", what, out)
		}
		if !strings.Contains(out, `\x1b]0;pwned`) {
			t.Errorf("%s: %q, want the name escaped", what, out)
		}
	}
	check("--list", r.hall(0, "--list"))
	check("--diff", r.hall(0, snap.ID, "--diff"))
	check("restore", r.hall(0, snap.ID))
	r.write(name, "newer\n")
	check("refusal", r.hall(1, snap.ID))
}

// TestRestoreKeepsAFIFO: a FIFO where the snapshot had a file is
// changed, not missing; a restore refuses it without --force and
// replaces it with (issue 40, item 14).
func TestRestoreKeepsAFIFO(t *testing.T) {
	r := newRestoreRig(t)
	r.write("pipe.txt", "was a file\n")
	snap := r.save()
	p := filepath.Join(r.wt, "pipe.txt")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	fifotest.Make(t, p)
	if out := r.hall(0, snap.ID, "--diff"); !strings.Contains(out, "changed  pipe.txt") {
		t.Errorf("--diff: %q, want pipe.txt changed", out)
	}
	if out := r.hall(1, snap.ID); !strings.Contains(out, "pipe.txt") {
		t.Errorf("restore over a FIFO: %q, want a refusal naming it", out)
	}
	if info, err := os.Lstat(p); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced without --force: %v %v", info, err)
	}
	r.hall(0, snap.ID, "--force")
	if b, err := os.ReadFile(p); string(b) != "was a file\n" {
		t.Errorf("--force: %q %v", b, err)
	}
}

// TestRestoreListFinishesADeadHallsSnapshot: a Hall killed after a hook
// answered "saved" leaves <id>.tmp (its first record, its objects) and
// its lock file, free; hall restore --list finishes and lists it at
// once, and hall restore ID brings its file back (issue 40, item 10).
func TestRestoreListFinishesADeadHallsSnapshot(t *testing.T) {
	r := newRestoreRig(t)
	r.write("work.txt", "lost at the crash\n")
	snap := r.save()
	// Back to what Take leaves before its record is finished.
	dir := filepath.Join(r.root, recoveryDir)
	tmp := filepath.Join(dir, snap.ID+".tmp")
	if err := os.Rename(filepath.Join(dir, snap.ID), tmp); err != nil {
		t.Fatal(err)
	}
	half := snap
	half.Commit, half.Files, half.Bytes = "", nil, 0
	b, _ := json.Marshal(half)
	if err := os.WriteFile(filepath.Join(tmp, "snapshot.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, snap.ID+".taking"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r.git("clean", "-q", "-fd")
	if out := r.hall(0, "--list"); !strings.Contains(out, snap.ID) || !strings.Contains(out, "work.txt") {
		t.Fatalf("--list: %q, want the dead Hall's snapshot %s and its file", out, snap.ID)
	}
	r.hall(0, snap.ID)
	if b, err := os.ReadFile(filepath.Join(r.wt, "work.txt")); string(b) != "lost at the crash\n" {
		t.Errorf("work.txt: %q %v", b, err)
	}
}

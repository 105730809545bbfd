package gitscan_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// TestHostileRepositoryRunsNothing drives every git the package runs
// (a whole scan and a scoped one, the three snapshots, a merge
// prediction that conflicts and one that does not) in a repository whose
// configuration and attributes name commands (gittest.Hostile): none of
// them runs, and the answers are the ones an unarmed repository gives
// (the snapshot holds the working file's bytes, not a filter's form; the
// merge that git's own text merge makes cleanly is clean).
func TestHostileRepositoryRunsNothing(t *testing.T) {
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	sc := newScratch(t)
	r := newRepo(t)
	a, b, c := r.worktree("a"), r.worktree("b"), r.worktree("c")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{1: "a's line"}))
	gittest.WriteFile(t, filepath.Join(a, "new.txt"), "new in a\n")
	gittest.WriteFile(t, filepath.Join(a, "data.bin"), "bytes\n")
	gittest.WriteFile(t, filepath.Join(b, "f.txt"), lines(20, map[int]string{1: "b's line"}))
	gittest.WriteFile(t, filepath.Join(c, "f.txt"), lines(20, map[int]string{20: "c's line"}))
	s := gittest.Hostile(t, r.main)
	before := r.fingerprint(a, b, c)

	ch, err := g.Changes(ctx, a, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"data.bin", "f.txt", "new.txt"}; !slices.Equal(ch.Files, want) {
		t.Errorf("changes %v, want %v", ch.Files, want)
	}
	gittest.NoneRan(t, s, "Changes")
	scoped, err := g.ChangesOf(ctx, ch, []string{"f.txt"}, gitscan.ChangesOptions{})
	if err != nil || !slices.Equal(scoped.Files, ch.Files) {
		t.Errorf("ChangesOf: %v, %v; want %v", scoped.Files, err, ch.Files)
	}
	gittest.NoneRan(t, s, "ChangesOf")

	snap := map[string]gitscan.Snapshot{}
	for _, wt := range []string{a, b, c} {
		if snap[wt], err = g.Snapshot(ctx, wt, sc); err != nil {
			t.Fatal(err)
		}
	}
	gittest.NoneRan(t, s, "Snapshot")
	listed, err := g.SnapshotListed(ctx, ch, sc)
	if err != nil || listed.Commit != snap[a].Commit {
		t.Errorf("SnapshotListed: %s, %v; want Snapshot's commit %s", listed.Commit, err, snap[a].Commit)
	}
	gittest.NoneRan(t, s, "SnapshotListed")
	objects := t.TempDir()
	half, err := g.SnapshotTreeInto(ctx, a, objects)
	if err == nil {
		half, err = g.CommitSnapshot(ctx, half, objects)
	}
	if err != nil || half.Commit != snap[a].Commit {
		t.Errorf("SnapshotTreeInto, CommitSnapshot: %s, %v; want %s", half.Commit, err, snap[a].Commit)
	}
	gittest.NoneRan(t, s, "SnapshotTreeInto, CommitSnapshot")
	env, err := sc.Env(snap[a].GitDir)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"new.txt": "new in a\n", "data.bin": "bytes\n"} {
		out, err := g.Run(ctx, gitscan.Cmd{Dir: a, Env: env, Args: []string{"cat-file", "blob", snap[a].Tree + ":" + file}})
		if err != nil || string(out.Stdout) != want {
			t.Errorf("snapshot's %s: %q, %v; want the working file's %q", file, out.Stdout, err, want)
		}
	}

	m, err := g.PredictMerge(ctx, sc, snap[a], snap[b])
	if err != nil || !m.Conflict || !slices.Equal(m.Conflicts, []string{"f.txt"}) {
		t.Errorf("a with b: %+v, %v; want a conflict in f.txt", m, err)
	}
	m, err = g.PredictMerge(ctx, sc, snap[a], snap[c])
	if err != nil || m.Conflict {
		t.Errorf("a with c: %+v, %v; want a clean merge", m, err)
	}
	gittest.NoneRan(t, s, "PredictMerge")
	if after := r.fingerprint(a, b, c); after != before {
		t.Error("the scans changed the repository or a worktree")
	}
}

// TestDriversReadAgainWhenConfigChanges: the drivers to turn off are
// kept per directory while the configuration stays as it was (a steady
// scan runs no git config); a configuration armed after the first scan,
// or a file an include names that appears later, is read again before
// the next git that could run a driver.
func TestDriversReadAgainWhenConfigChanges(t *testing.T) {
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	sc := newScratch(t)
	r := newRepo(t)
	a := r.worktree("a")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{1: "a's line"}))
	gittest.Git(t, r.main, "config", "include.path", "extra.cfg") // relative to .git, not there yet
	if _, err := g.Snapshot(ctx, a, sc); err != nil {
		t.Fatal(err)
	}

	s := gittest.Hostile(t, r.main)
	if _, err := g.Changes(ctx, a, gitscan.ChangesOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Snapshot(ctx, a, sc); err != nil {
		t.Fatal(err)
	}
	gittest.NoneRan(t, s, "a scan and a snapshot after the configuration was armed")

	// The included file appears with a filter of its own.
	gittest.WriteFile(t, filepath.Join(r.main, ".git", "extra.cfg"), "[filter \"y\"]\n\tclean = touch '"+filepath.Join(s, "included.clean")+"'; cat\n")
	gittest.WriteFile(t, filepath.Join(r.main, ".git", "info", "attributes"), "* filter=y\n")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{2: "a's second line"}))
	if _, err := g.Snapshot(ctx, a, sc); err != nil {
		t.Fatal(err)
	}
	gittest.NoneRan(t, s, "a snapshot after an included file appeared")
}

// TestHostileSubmoduleScanned: a scan and a snapshot of a repository
// with a checked-out submodule whose own configuration names a filter run
// no git inside the submodule (git status --ignore-submodules=dirty; a
// snapshot stages the paths its own git status lists where git add -A
// would run git status in the submodule), so not the submodule's filter
// either. The snapshot holds the submodule at its commit.
func TestHostileSubmoduleScanned(t *testing.T) {
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	lib := gittest.TempDir(t)
	gittest.Init(t, lib)
	gittest.WriteFile(t, filepath.Join(lib, "l.txt"), "l\n")
	gittest.CommitAll(t, lib, "lib")
	top := gittest.TempDir(t)
	gittest.Init(t, top)
	gittest.Git(t, top, "submodule", "add", "-q", lib, "sub")
	gittest.CommitAll(t, top, "top")
	sub := filepath.Join(top, "sub")
	subHead := gittest.Git(t, sub, "rev-parse", "HEAD")
	s := gittest.Hostile(t, sub)
	gittest.WriteFile(t, filepath.Join(sub, "l.txt"), "m\n") // same size: only its content tells
	gittest.WriteFile(t, filepath.Join(top, "top.txt"), "top\n")
	c, err := g.Changes(ctx, top, gitscan.ChangesOptions{})
	if err != nil || !slices.Equal(c.Files, []string{"top.txt"}) {
		t.Errorf("changes %v, %v; want [top.txt]", c.Files, err)
	}
	gittest.NoneRan(t, s, "a scan over a submodule")

	for _, name := range []string{"Snapshot", "SnapshotTreeInto"} {
		var snap gitscan.Snapshot
		var env []string
		if name == "Snapshot" {
			sc := newScratch(t)
			if snap, err = g.Snapshot(ctx, top, sc); err == nil {
				env, err = sc.Env(snap.GitDir)
			}
		} else {
			objects := t.TempDir()
			snap, err = g.SnapshotTreeInto(ctx, top, objects)
			env = gitscan.ObjectsEnv(objects, snap.GitDir)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gittest.NoneRan(t, s, name+" over a submodule")
		out, err := g.Run(ctx, gitscan.Cmd{Dir: top, Env: env, Args: []string{"ls-tree", snap.Tree}})
		if err != nil || !strings.Contains(string(out.Stdout), "top.txt") || !strings.Contains(string(out.Stdout), "160000 commit "+subHead+"\tsub") {
			t.Errorf("%s: tree %s, %v; want top.txt and sub at %s", name, out.Stdout, err, subHead)
		}
	}
}

// TestHostileRemote: a git that talks to a remote (the Hall runs none
// today; anything later that fetches) uses only the transports the Hall
// chose and none of the repository's helpers: ext:: (which runs a
// command, and which the repository allowed) is refused; the remote's
// ssh command and upload-pack are not the repository's.
func TestHostileRemote(t *testing.T) {
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{Timeout: 20 * time.Second})
	r := newRepo(t)
	s := gittest.Hostile(t, r.main)
	ext := "ext::sh -c touch% " + filepath.Join(s, "ext")
	if _, err := g.Run(ctx, gitscan.Cmd{Dir: r.main, Args: []string{"ls-remote", ext}}); err == nil {
		t.Error("ls-remote over ext:: answered")
	}
	if _, err := g.Run(ctx, gitscan.Cmd{Dir: r.main, Args: []string{"ls-remote", "origin"}}); err == nil {
		t.Error("ls-remote origin (example.invalid) answered")
	}
	gittest.NoneRan(t, s, "ls-remote")
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPushedMeasures runs the pushed scenario small (60 files, looks a
// second or two apart, 5 active branches) against the real hall binary
// and git, and checks that each figure measures what it says: every
// round's branch is named in a hook answer; the idle window's looks are
// counted by the counting git as by the Hall's own counters, with no
// fetch; the store and the full clone are measured. No time is asserted:
// a round waits the interval and 30 s more.
func TestPushedMeasures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hall binary and runs three Halls for a minute")
	}
	ctx := t.Context()
	b := &bench{tmp: t.TempDir()}
	var err error
	if b.hall, err = buildHall(ctx, b.tmp); err != nil {
		t.Fatal(err)
	}
	z := pushedSizes{files: 60, interval: time.Second, rounds: 2, defaultInterval: 2 * time.Second, defaultRounds: 1, idle: 7 * time.Second, branches: 5}
	res, err := b.pushedFigures(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.short) != 2 || res.shortMissed != 0 || len(res.long) != 1 || res.longMissed != 0 {
		t.Errorf("heard %v (%d missed) and %v (%d missed); want every round heard", res.short, res.shortMissed, res.long, res.longMissed)
	}
	if res.shortGit["fetch"] == 0 || res.shortGit["ls-remote --heads"] == 0 {
		t.Errorf("git over the rounds %v; want looks and fetches counted", res.shortGit)
	}
	looks := res.idleGit["ls-remote --heads"]
	if looks == 0 || float64(looks) != res.idleLooks || res.idleGit["fetch"] != 0 || res.idleFetch != 0 {
		t.Errorf("idle: git %v, the Hall's counters %v looks %v fetches; want the same looks counted by both, no fetch", res.idleGit, res.idleLooks, res.idleFetch)
	}
	if res.store == 0 || res.storeObj.inPack+res.storeObj.loose == 0 || res.mirror == 0 || res.mirrorObj.inPack == 0 || res.remotesDir < res.store {
		t.Errorf("store %d bytes %+v, remotes %d, mirror %d bytes %+v; want all measured", res.store, res.storeObj, res.remotesDir, res.mirror, res.mirrorObj)
	}
	if res.firstLook <= 0 || res.firstLookGit["fetch"] == 0 {
		t.Errorf("first look %s, git %v; want it timed, its fetch counted", res.firstLook, res.firstLookGit)
	}
	b.pushedRows(z, res)
	if len(b.rows) != 5 {
		t.Errorf("%d rows, want 5: %+v", len(b.rows), b.rows)
	}
}

// TestGitKind names a logged git process by its subcommand past git's
// own options, and an ls-remote by what it asks.
func TestGitKind(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-C", "/r/x.git", "ls-remote", "--heads", "origin"}, "ls-remote --heads"},
		{[]string{"-C", "/r/x.git", "ls-remote", "--symref", "origin", "HEAD"}, "ls-remote --symref"},
		{[]string{"-C", "/w", "ls-remote", "--get-url", "origin"}, "ls-remote --get-url"},
		{[]string{"-c", "core.fsmonitor=false", "--no-pager", "-C", "/w", "status", "-z"}, "status"},
		{[]string{"-C", "/r/x.git", "fetch", "--prune"}, "fetch"},
		{[]string{"version"}, "version"},
		{nil, "(none)"},
	}
	for _, tt := range tests {
		if got := gitKind(tt.args); got != tt.want {
			t.Errorf("gitKind(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestGitWrapperLogs: the counting git logs each process's argv, an
// argument with spaces whole, and runs the real git with it.
func TestGitWrapperLogs(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "git log")
	wrapper, err := writeGitWrapper(filepath.Join(dir, "bin"), log)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	repo := filepath.Join(dir, "a repo")
	if out, err := exec.Command(wrapper, "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Fatalf("the real git did not run: %v", err)
	}
	runs, err := readGitLog(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || !reflect.DeepEqual(runs[0].args, []string{"init", "-q", repo}) || runs[0].at.Before(before.Add(-time.Second)) {
		t.Fatalf("logged %+v, want one run of init -q %q", runs, repo)
	}
	if got := fmtCounts(gitCounts(runs, before.Add(-time.Second), time.Now().Add(time.Second))); got != "init 1" {
		t.Errorf("counts %q, want init 1", got)
	}
	if got := fmtCounts(nil); !strings.Contains(got, "none") {
		t.Errorf("no counts: %q, want none", got)
	}
}

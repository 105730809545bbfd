package gitscan_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// clones makes a bare repository (the shared remote) holding f.txt and
// two clones of it, ana and bob, each with its own objects: two machines'
// checkouts of one repository.
func clones(t *testing.T) (remote, ana, bob string) {
	t.Helper()
	r := newRepo(t)
	remote = filepath.Join(r.dir, "remote.git")
	gittest.Git(t, r.dir, "clone", "-q", "--bare", r.main, remote)
	ana, bob = filepath.Join(r.dir, "ana"), filepath.Join(r.dir, "bob")
	gittest.Git(t, r.dir, "clone", "-q", "--no-local", remote, ana)
	gittest.Git(t, r.dir, "clone", "-q", "--no-local", remote, bob)
	return remote, ana, bob
}

// TestMergePeer: bob's side, shipped as PeerFiles reads it (its HEAD and
// f.txt from its snapshot), is merged with ana's snapshot by ana's
// scanner in its own scratch: a conflict when both changed line 5, clean
// when bob changed line 15; a HEAD bob committed and never pushed is not
// among ana's objects (base_not_here). Neither clone changes.
func TestMergePeer(t *testing.T) {
	ctx := context.Background()
	_, ana, bob := clones(t)
	gittest.WriteFile(t, filepath.Join(ana, "f.txt"), lines(20, map[int]string{5: "ana's line five"}))
	scan := func(wt string) (*gitscan.Scanner, gitscan.Snapshot) {
		s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Scratch: newScratch(t)})
		s.Track([]string{wt})
		eventually.True(t, within, "scanned "+wt, func() bool { _, ok := s.Result(wt); return ok })
		snap, ok := s.Snapshot(ctx, wt)
		if !ok {
			t.Fatalf("no snapshot of %s", wt)
		}
		return s, snap
	}
	fp := func(wt string) string { return (&repo{tb: t, main: wt}).fingerprint() }
	anaBefore := fp(ana)
	sa, snapA := scan(ana)

	cases := []struct {
		name     string
		line     int
		conflict bool
	}{{"same line", 5, true}, {"another line", 15, false}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gittest.WriteFile(t, filepath.Join(bob, "f.txt"), lines(20, map[int]string{c.line: "bob's line"}))
			bobBefore := fp(bob)
			sb, snapB := scan(bob)
			files, omitted, err := sb.PeerFiles(ctx, snapB, []string{"f.txt"}, 1<<20)
			if err != nil || omitted != 0 || len(files) != 1 || files[0].Mode != "100644" || string(files[0].Data) != lines(20, map[int]string{c.line: "bob's line"}) {
				t.Fatalf("PeerFiles: %+v omitted %d err %v", files, omitted, err)
			}
			m, err := sa.MergePeer(ctx, snapA, gitscan.PeerContent{Head: snapB.Head, Files: files}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if m.Conflict != c.conflict || (c.conflict && !slices.Equal(m.Conflicts, []string{"f.txt"})) {
				t.Errorf("got %+v, want conflict %v", m, c.conflict)
			}
			if fp(bob) != bobBefore {
				t.Error("bob's clone changed")
			}
		})
	}

	// A commit of bob's, not pushed: ana's objects lack it.
	gittest.Git(t, bob, "commit", "-q", "-am", "bob's local commit")
	gittest.WriteFile(t, filepath.Join(bob, "f.txt"), lines(20, map[int]string{5: "bob again"}))
	sb, snapB := scan(bob)
	files, _, err := sb.PeerFiles(ctx, snapB, []string{"f.txt"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sa.MergePeer(ctx, snapA, gitscan.PeerContent{Head: snapB.Head, Files: files}, nil); gitscan.CodeOf(err) != gitscan.BaseNotHere {
		t.Errorf("a base not pushed: got %v, want %s", err, gitscan.BaseNotHere)
	}
	// Shipped names git must never see.
	for _, bad := range []gitscan.PeerFile{{Path: "../x", Mode: "100644"}, {Path: ".git/config", Mode: "100644"}, {Path: "a", Mode: "160000"}, {Path: "/etc/passwd", Mode: "100644"}} {
		if _, err := sa.MergePeer(ctx, snapA, gitscan.PeerContent{Head: snapA.Head, Files: []gitscan.PeerFile{bad}}, nil); gitscan.CodeOf(err) != gitscan.Failed {
			t.Errorf("%+v: got %v, want refused", bad, err)
		}
	}
	if _, err := sa.MergePeer(ctx, snapA, gitscan.PeerContent{Head: "--upload-pack=x"}, nil); err == nil {
		t.Error("a head that is no object id was taken")
	}
	if fp(ana) != anaBefore {
		t.Error("ana's clone changed")
	}
}

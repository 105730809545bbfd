package peershare_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/peershare"
)

const within = 30 * time.Second

// side is one host's clone, its scanner and its sharer.
type side struct {
	clone  string
	scan   *gitscan.Scanner
	sharer *peershare.Sharer
}

// twoHosts makes two clones of one bare remote, both with a.txt changed
// (a line each) and big.txt (1 KiB) changed, and for each a scanner and
// a sharer on one NATS server: alpha and bravo, bravo's bounds given.
func twoHosts(t *testing.T, bravo peershare.Bounds) (a, b side) {
	t.Helper()
	return twoHostsWith(t, bravo, nil)
}

// twoHostsWith is twoHosts with setup run for each host once its clone
// is edited, before its scanner and sharer start: it may commit there,
// push to the remote (a bare repository at remote) and change the
// sharer's configuration.
func twoHostsWith(t *testing.T, bravo peershare.Bounds, setup func(host, clone, remote string, cfg *peershare.Config)) (a, b side) {
	t.Helper()
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed")
	gittest.Init(t, seed)
	gittest.WriteFile(t, filepath.Join(seed, "a.txt"), "one\ntwo\nthree\n")
	gittest.WriteFile(t, filepath.Join(seed, "big.txt"), "x\n")
	gittest.CommitAll(t, seed, "init")
	remote := filepath.Join(dir, "shop.git")
	gittest.Git(t, dir, "clone", "-q", "--bare", seed, remote)
	srv := natstest.RunServer(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mk := func(host, line string, bounds peershare.Bounds) side {
		clone := filepath.Join(dir, host)
		gittest.Git(t, dir, "clone", "-q", "--no-local", remote, clone)
		gittest.WriteFile(t, filepath.Join(clone, "a.txt"), "one\n"+line+"\nthree\n")
		big := make([]byte, 1024)
		for i := range big {
			big[i] = 'a' + byte(i%26)
		}
		gittest.WriteFile(t, filepath.Join(clone, "big.txt"), string(big)+line)
		cfg := peershare.Config{Host: host, Mode: peershare.Content, Bounds: bounds, Interval: 50 * time.Millisecond}
		if setup != nil {
			setup(host, clone, remote, &cfg)
		}
		runner, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		scratch, err := gitscan.NewScratch(filepath.Join(t.TempDir(), "scratch"), 0)
		if err != nil {
			t.Fatal(err)
		}
		scan := gitscan.NewScanner(gitscan.ScannerConfig{Runner: runner, Scratch: scratch, Slow: time.Hour})
		done := make(chan struct{})
		go func() { defer close(done); _ = scan.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		scan.Track([]string{clone})
		eventually.True(t, within, "scanned "+clone, func() bool { _, ok := scan.Result(clone); return ok })
		store, err := natsstore.Open(natsstore.Options{URLs: srv.URL(), Bucket: "presences-" + host})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		cfg.Board, cfg.Git = store.Board("", 0, 0), scan
		sh := peershare.New(cfg)
		go sh.Run(ctx)
		return side{clone: clone, scan: scan, sharer: sh}
	}
	return mk("alpha", "alpha's two", peershare.Bounds{}), mk("bravo", "bravo's two", bravo)
}

// want hands each sharer its pair over both files.
func want(a, b side) (aa, bb hall.PeerSide) {
	aa, bb = hall.PeerSide{Host: "alpha", Worktree: a.clone}, hall.PeerSide{Host: "bravo", Worktree: b.clone}
	files := []string{"a.txt", "big.txt"}
	a.sharer.Want([]hall.PeerPair{{Repository: "repo", Local: aa, Peer: bb, Files: files}})
	b.sharer.Want([]hall.PeerPair{{Repository: "repo", Local: bb, Peer: aa, Files: files}})
	return aa, bb
}

// TestSharerPredictsOnce: within bounds, alpha (first by name) predicts
// the conflict and publishes it; bravo reads it, labelled alpha's, and
// predicts nothing itself; only bravo ships blobs.
func TestSharerPredictsOnce(t *testing.T) {
	a, b := twoHosts(t, peershare.Bounds{})
	aa, bb := want(a, b)
	for _, c := range []struct {
		s           *peershare.Sharer
		local, peer hall.PeerSide
	}{{a.sharer, aa, bb}, {b.sharer, bb, aa}} {
		eventually.True(t, within, "a conflict at "+c.local.Host, func() bool {
			v, ok := c.s.Verdict(c.local, c.peer)
			return ok && v.Merge == contract.MergeConflict && v.By == "alpha" && v.ConflictsTotal == 2
		})
	}
	sa, sb := a.sharer.Stats(), b.sharer.Stats()
	if sa.Predictions < 1 || sb.Predictions != 0 || sa.VerdictsShared < 1 || sb.VerdictsRead < 1 {
		t.Errorf("alpha %+v, bravo %+v: want alpha predicting and sharing, bravo only reading", sa, sb)
	}
	if sa.BlobsShipped != 0 || sb.BlobsShipped != 2 || sb.BytesShipped < 1024 {
		t.Errorf("blobs: alpha %d, bravo %d (%d bytes); want bravo's two files only", sa.BlobsShipped, sb.BlobsShipped, sb.BytesShipped)
	}
}

// TestSharerChangedStartsARound: with an interval of an hour, the
// rounds that come are the ones Want and Changed start: the scanner's
// news of a side here (Changed) publishes its new state at once, and
// the pair's conflict is reached on both hosts without any interval
// passing. A worktree of no wanted pair starts nothing.
func TestSharerChangedStartsARound(t *testing.T) {
	a, b := twoHostsWith(t, peershare.Bounds{}, func(_, _, _ string, cfg *peershare.Config) { cfg.Interval = time.Hour })
	aa, bb := want(a, b)
	eventually.True(t, within, "a conflict on both, rounds started by Changed", func() bool {
		a.sharer.Changed(a.clone)
		b.sharer.Changed(b.clone)
		va, oka := a.sharer.Verdict(aa, bb)
		vb, okb := b.sharer.Verdict(bb, aa)
		return oka && okb && va.Merge == contract.MergeConflict && vb.Merge == contract.MergeConflict
	})
	// Each of bravo's rounds reads alpha's verdict again.
	time.Sleep(200 * time.Millisecond)
	before := b.sharer.Stats().VerdictsRead
	b.sharer.Changed(filepath.Join(b.clone, "elsewhere"))
	time.Sleep(200 * time.Millisecond)
	if after := b.sharer.Stats().VerdictsRead; after != before {
		t.Errorf("a worktree of no pair started a round: verdicts read %d, then %d", before, after)
	}
	b.sharer.Changed(b.clone)
	eventually.True(t, within, "bravo's round on its own side's news", func() bool { return b.sharer.Stats().VerdictsRead > before })
}

// TestSharerHoldsTheLastVerdict: alpha, which predicts, rounds only
// when told; bravo rounds every 50 ms. Both agree on a conflict; then
// bob edits a.txt again (still a conflict): bravo ships his new state,
// and alpha has not predicted it. Within Hold, bravo keeps saying the
// conflict it last knew rather than flipping to peer_verdict_pending
// and back (it flipped at every edit, up to two seconds each); past
// Hold, it says it waits. When alpha predicts the new states, bravo
// reads the new verdict.
func TestSharerHoldsTheLastVerdict(t *testing.T) {
	for _, tc := range []struct {
		name string
		hold time.Duration
		want func(hall.PeerVerdict) bool
	}{
		{"within hold", time.Hour, func(v hall.PeerVerdict) bool { return v.Merge == contract.MergeConflict }},
		{"past hold", 250 * time.Millisecond, func(v hall.PeerVerdict) bool {
			return v.Merge == contract.MergeUnknown && v.Reason == contract.MergeReasonPeerWaiting
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := twoHostsWith(t, peershare.Bounds{}, func(host, _, _ string, cfg *peershare.Config) {
				if host == "alpha" {
					cfg.Interval = time.Hour
				}
				cfg.Hold = tc.hold
			})
			aa, bb := want(a, b)
			eventually.True(t, within, "a conflict on both", func() bool {
				a.sharer.Changed(a.clone)
				va, oka := a.sharer.Verdict(aa, bb)
				vb, okb := b.sharer.Verdict(bb, aa)
				return oka && okb && va.Merge == contract.MergeConflict && vb.Merge == contract.MergeConflict
			})
			shipped := b.sharer.Stats().BytesShipped
			// As the Hall's overlap finder does: the files another host's
			// change meets, so an edit of one is scanned at once.
			b.scan.AcrossHosts(map[string][]string{b.clone: {"a.txt", "big.txt"}})
			gittest.WriteFile(t, filepath.Join(b.clone, "a.txt"), "one\nbravo's two, again\nthree\n")
			b.scan.Mutated(b.clone, filepath.Join(b.clone, "a.txt"))
			eventually.True(t, within, "bravo ships its new state", func() bool { return b.sharer.Stats().BytesShipped > shipped })
			time.Sleep(300 * time.Millisecond) // bravo's rounds go on; alpha's do not
			eventually.True(t, within, tc.name, func() bool {
				v, ok := b.sharer.Verdict(bb, aa)
				return ok && tc.want(v)
			})
			if tc.hold == time.Hour {
				if v, _ := b.sharer.Verdict(bb, aa); v.By != "alpha" || v.ConflictsTotal != 2 {
					t.Errorf("the verdict held: %+v, want alpha's conflict in both files", v)
				}
			}
			read := b.sharer.Stats().VerdictsRead
			a.sharer.Changed(a.clone)
			eventually.True(t, within, "alpha's verdict on the new states read by bravo", func() bool {
				v, ok := b.sharer.Verdict(bb, aa)
				return ok && v.Merge == contract.MergeConflict && b.sharer.Stats().VerdictsRead > read
			})
		})
	}
}

// TestSharerBoundsSayWhatTheyLeftOut: bravo may ship 100 bytes for an
// overlap: big.txt is left out and counted, and alpha, seeing the side
// cut, predicts nothing (content_cut) rather than merge half a side.
func TestSharerBoundsSayWhatTheyLeftOut(t *testing.T) {
	a, b := twoHosts(t, peershare.Bounds{MaxOverlapBytes: 100})
	aa, bb := want(a, b)
	for _, c := range []struct {
		s           *peershare.Sharer
		local, peer hall.PeerSide
	}{{a.sharer, aa, bb}, {b.sharer, bb, aa}} {
		eventually.True(t, within, "content_cut at "+c.local.Host, func() bool {
			v, ok := c.s.Verdict(c.local, c.peer)
			return ok && v.Merge == contract.MergeUnknown && v.Reason == contract.MergeReasonContentCut
		})
	}
	if sb := b.sharer.Stats(); sb.FilesLeftOut < 1 || sb.BlobsShipped != 1 || sb.BytesShipped > 100 {
		t.Errorf("bravo %+v: want big.txt left out and counted, a.txt shipped, at most 100 bytes", sb)
	}
}

// TestSharerPathsShipsNothing: in paths mode Verdict says paths_only and
// Run returns at once, nothing published.
func TestSharerPathsShipsNothing(t *testing.T) {
	s := peershare.New(peershare.Config{Host: "alpha", Mode: peershare.Paths})
	s.Run(context.Background()) // returns: nothing to run
	v, ok := s.Verdict(hall.PeerSide{Host: "alpha", Worktree: "/a"}, hall.PeerSide{Host: "bravo", Worktree: "/b"})
	if !ok || v.Merge != contract.MergeUnknown || v.Reason != contract.MergeReasonPathsOnly {
		t.Errorf("got %+v %v, want unknown, paths_only", v, ok)
	}
	if st := s.Stats(); st != (peershare.Stats{}) {
		t.Errorf("stats %+v, want none", st)
	}
	nogit := peershare.New(peershare.Config{Host: "alpha", Mode: peershare.Content})
	if v, ok := nogit.Verdict(hall.PeerSide{Host: "alpha", Worktree: "/a"}, hall.PeerSide{Host: "bravo", Worktree: "/b"}); !ok || v.Reason != contract.MergeReasonNotShared {
		t.Errorf("content with no board: %+v %v, want not_shared", v, ok)
	}
	for _, bad := range []string{"all", "Content", " paths"} {
		if _, err := peershare.ParseMode(bad); err == nil {
			t.Errorf("--share-changes %q taken", bad)
		}
	}
}

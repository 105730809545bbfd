package gitscan

import (
	"slices"
	"testing"
)

// TestMeetLocked: which mutations skip the interval (the file is new to
// the worktree and another worktree of the repository changed it) and
// which other worktrees are scanned with it (those whose hooks reported
// it, git not listing it yet).
func TestMeetLocked(t *testing.T) {
	const repo = "/r/.git"
	done := func(root, common string, files ...string) *tracked {
		return &tracked{seq: 1, res: Result{Changes: Changes{Root: root, CommonDir: common, Files: files}}}
	}
	tests := []struct {
		name      string
		trees     map[string]*tracked
		touched   []string
		meets     bool
		stale     []string
		remembers string // a path /w/a remembers as touched afterwards
	}{
		{"a file another worktree's git lists",
			map[string]*tracked{"/w/a": done("/w/a", repo), "/w/b": done("/w/b", repo, "f.go")},
			[]string{"/w/a/f.go"}, true, nil, "f.go"},
		{"a file another worktree's hooks reported since its scan",
			map[string]*tracked{"/w/a": done("/w/a", repo), "/w/b": {seq: 1, res: Result{Changes: Changes{Root: "/w/b", CommonDir: repo}}, touched: map[string]struct{}{"f.go": {}}}},
			[]string{"/w/a/f.go"}, true, []string{"/w/b"}, "f.go"},
		{"a file nobody else changed",
			map[string]*tracked{"/w/a": done("/w/a", repo), "/w/b": done("/w/b", repo, "g.go")},
			[]string{"/w/a/f.go"}, false, nil, "f.go"},
		{"a file git lists here already: the interval's scan",
			map[string]*tracked{"/w/a": done("/w/a", repo, "f.go"), "/w/b": done("/w/b", repo, "f.go")},
			[]string{"/w/a/f.go"}, false, nil, "f.go"},
		{"another repository's worktree",
			map[string]*tracked{"/w/a": done("/w/a", repo), "/x/b": done("/x/b", "/x/.git", "f.go")},
			[]string{"/w/a/f.go"}, false, nil, "f.go"},
		{"the same worktree under another name",
			map[string]*tracked{"/w/a": done("/w/a", repo), "/w/a/": done("/w/a", repo, "f.go")},
			[]string{"/w/a/f.go"}, false, nil, "f.go"},
		{"a file outside the worktree, and a relative one",
			map[string]*tracked{"/w/a": done("/w/a", repo), "/w/b": done("/w/b", repo, "f.go")},
			[]string{"/w/b/f.go", "f.go", "/w/a/../b/f.go"}, false, nil, ""},
		{"before the worktree's first scan",
			map[string]*tracked{"/w/a": {}, "/w/b": done("/w/b", repo, "f.go")},
			[]string{"/w/a/f.go"}, false, nil, ""},
		{"another worktree whose git failed",
			map[string]*tracked{"/w/a": done("/w/a", repo), "/w/b": {seq: 1, res: Result{Err: &Error{Code: Timeout}, Changes: Changes{Root: "/w/b", CommonDir: repo, Files: []string{"f.go"}}}}},
			[]string{"/w/a/f.go"}, false, nil, "f.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScanner(ScannerConfig{})
			s.trees = tt.trees
			meets, stale := s.meetLocked("/w/a", tt.touched)
			if meets != tt.meets || !slices.Equal(stale, tt.stale) {
				t.Errorf("got meets %v, stale %v; want %v, %v", meets, stale, tt.meets, tt.stale)
			}
			_, kept := s.trees["/w/a"].touched[tt.remembers]
			if tt.remembers != "" && !kept {
				t.Errorf("touched %v, want %q remembered", s.trees["/w/a"].touched, tt.remembers)
			}
			if tt.remembers == "" && len(s.trees["/w/a"].touched) != 0 {
				t.Errorf("touched %v, want nothing remembered", s.trees["/w/a"].touched)
			}
		})
	}
}

// TestMeetLockedBounded: one call looks at maxTouchedChecked files, and a
// worktree remembers at most maxTouchedKept between scans.
func TestMeetLockedBounded(t *testing.T) {
	s := NewScanner(ScannerConfig{})
	a := &tracked{seq: 1, res: Result{Changes: Changes{Root: "/w/a", CommonDir: "/r/.git"}}}
	s.trees = map[string]*tracked{"/w/a": a}
	for call := range 100 {
		var touched []string
		for i := range 2 * maxTouchedChecked {
			touched = append(touched, "/w/a/"+string(rune('a'+call%26))+string(rune('a'+call/26))+"/"+string(rune('a'+i)))
		}
		s.meetLocked("/w/a", touched)
		if call == 0 && len(a.touched) != maxTouchedChecked {
			t.Fatalf("one call of %d files remembered %d, want %d looked at", len(touched), len(a.touched), maxTouchedChecked)
		}
	}
	if len(a.touched) != maxTouchedKept {
		t.Errorf("remembered %d after 100 calls, want the bound %d", len(a.touched), maxTouchedKept)
	}
}

// TestMutatedDefers: a mutation of files git lists already, none of them
// changed in a worktree the merge is predicted with, is left to the slow
// rescan; any other asks for a scan (here, the scanner not running, it
// waits for Run).
func TestMutatedDefers(t *testing.T) {
	const repo = "/r/.git"
	tests := []struct {
		name      string
		files     []string // git's list for /w/a
		cut       bool
		pair      bool     // a merge is predicted for /w/a and /w/b
		peer      []string // git's list for /w/b
		peerTouch string   // a file /w/b's hooks reported since its scan
		touched   []string
		deferred  bool
	}{
		{"files git lists", []string{"f.go", "g.go"}, false, false, nil, "", []string{"/w/a/f.go", "/w/a/g.go"}, true},
		{"a file git does not list", []string{"f.go"}, false, false, nil, "", []string{"/w/a/f.go", "/w/a/new.go"}, false},
		{"no file named (a shell command)", []string{"f.go"}, false, false, nil, "", nil, false},
		{"a merge to renew: the other side changed the file", []string{"f.go"}, false, true, []string{"f.go"}, "", []string{"/w/a/f.go"}, false},
		{"a merge to renew: the other side changed a file under it", []string{"d"}, false, true, []string{"d/x.go"}, "", []string{"/w/a/d"}, false},
		{"a merge to renew: the other side's hooks reported the file", []string{"f.go"}, false, true, nil, "f.go", []string{"/w/a/f.go"}, false},
		{"a merge predicted, the file changed here only", []string{"f.go", "own.go"}, false, true, []string{"f.go"}, "", []string{"/w/a/own.go"}, true},
		{"git's list was cut", []string{"f.go"}, true, false, nil, "", []string{"/w/a/f.go"}, false},
		{"a file outside the worktree", []string{"f.go"}, false, false, nil, "", []string{"/elsewhere/f.go"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScanner(ScannerConfig{})
			a := &tracked{seq: 1, res: Result{Changes: Changes{Root: "/w/a", CommonDir: repo, Files: tt.files, Cut: tt.cut}}}
			b := &tracked{seq: 1, res: Result{Changes: Changes{Root: "/w/b", CommonDir: repo, Files: tt.peer}}}
			if tt.peerTouch != "" {
				b.touched = map[string]struct{}{tt.peerTouch: {}}
			}
			s.trees = map[string]*tracked{"/w/a": a, "/w/b": b}
			if tt.pair {
				s.preds[mergeKey("/w/a", "/w/b")] = Prediction{}
			}
			s.Mutated("/w/a", tt.touched...)
			if asked := a.state.phase == waitsRun; a.deferred != tt.deferred || asked == tt.deferred {
				t.Errorf("deferred %v, scan asked %v; want deferred %v", a.deferred, asked, tt.deferred)
			}
		})
	}
}

// TestMeetsSorted: a path meets a sorted list (itself, a directory of it
// listed as a file, files under it), and FilesOverlap answers the same
// the other way round.
func TestMeetsSorted(t *testing.T) {
	files := []string{"a/b.go", "c", "d/e/f.go", "g.go"}
	tests := []struct {
		rel  string
		want bool
	}{
		{"g.go", true},     // itself
		{"c/x.go", true},   // a file listed where it has a directory
		{"d", true},        // files under it
		{"d/e", true},      // deeper
		{"a/b", false},     // a prefix of a name, not a directory
		{"a/b.go/x", true}, // under a listed file
		{"h.go", false},
		{"d/e/g.go", false},
	}
	for _, tt := range tests {
		if got := meetsSorted(tt.rel, files); got != tt.want {
			t.Errorf("meetsSorted(%q) = %v, want %v", tt.rel, got, tt.want)
		}
		// FilesOverlap is the same rule either way round: the list's
		// files against the one path.
		if got := FilesOverlap(files, []string{tt.rel}); got != tt.want {
			t.Errorf("FilesOverlap(files, [%q]) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

// TestMutatedScansADeferredPeerAtOnce: another worktree's change that
// meets a file of a worktree whose mutations were deferred scans both
// now: the deferred one's snapshot would be stale.
func TestMutatedScansADeferredPeerAtOnce(t *testing.T) {
	const repo = "/r/.git"
	s := NewScanner(ScannerConfig{})
	a := &tracked{seq: 1, res: Result{Changes: Changes{Root: "/w/a", CommonDir: repo, Files: []string{"f.go"}}}}
	b := &tracked{seq: 1, res: Result{Changes: Changes{Root: "/w/b", CommonDir: repo}}}
	s.trees = map[string]*tracked{"/w/a": a, "/w/b": b}
	s.Mutated("/w/a", "/w/a/f.go")
	if !a.deferred || a.state.phase == waitsRun {
		t.Fatalf("a deferred %v, scan asked %v; want deferred", a.deferred, a.state.phase == waitsRun)
	}
	s.Mutated("/w/b", "/w/b/f.go")
	if a.state.phase != waitsRun || b.state.phase != waitsRun {
		t.Errorf("scans asked: a %v, b %v; want both", a.state.phase == waitsRun, b.state.phase == waitsRun)
	}
}

// TestScanQueue: past MaxScans running, scans wait in a queue, each
// worktree once, one that meets another worktree's change ahead of the
// rest (after the urgent ones before it); a forgotten worktree leaves it.
func TestScanQueue(t *testing.T) {
	s := NewScanner(ScannerConfig{MaxScans: 1})
	s.sched.open = true // Run is running
	s.sched.active = 1  // the one scan allowed is running
	for _, wt := range []string{"/w/a", "/w/b", "/w/c", "/w/d"} {
		s.trees[wt] = &tracked{}
	}
	s.askLocked("/w/a", atInterval)
	s.askLocked("/w/b", atInterval)
	s.askLocked("/w/c", ahead)
	s.askLocked("/w/a", atInterval) // queued already: stays
	s.askLocked("/w/b", ahead)      // moves ahead, behind c
	s.askLocked("/w/d", atInterval)
	order := func() []string {
		var out []string
		for _, q := range s.sched.queue {
			out = append(out, q.key)
		}
		return out
	}
	if got, want := order(), []string{"/w/c", "/w/b", "/w/a", "/w/d"}; !slices.Equal(got, want) {
		t.Fatalf("queue %v, want %v", got, want)
	}
	s.Track([]string{"/w/a", "/w/b", "/w/d"})
	if got, want := order(), []string{"/w/b", "/w/a", "/w/d"}; !slices.Equal(got, want) {
		t.Errorf("queue %v after c was forgotten, want %v", got, want)
	}
}

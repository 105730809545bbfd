package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// The overlap probes: two agents of a pair edit the same file, one after
// the other (the second 0.5–2.5 s after the first), on the same line
// (git predicts a conflict) or on lines far apart (a clean merge). The
// clock starts when the second side's file is written; its PostToolUse
// beat follows at once. A watcher reads /api/presences (the roster every
// transport serves: the page and the stream carry the same derivation)
// and notes when the pair's overlap first lists the file, and when it
// first lists it with git's answer: git on both sides of the file and the
// merge predicted (the verdict conflict with the file among the
// conflicts, or the merge clean). Each side's hook answers after the
// second change are read for the conflict told. After the window both
// sides write the file back as it was, so each worktree keeps a handful
// of changed files.

// probe is one overlap made on purpose.
type probe struct {
	a, b     *obAgent
	rel      string
	conflict bool

	second  time.Time // the second side's file written; zero before
	seenAny time.Time // the roster first listed the file in the pair's overlap
	seenGit time.Time // … with git's answer
	// seenMerge: the overlap first listed the file with the merge
	// predicted as the probe means it (conflict: the verdict conflict
	// with the file among the conflicts; clean: merge clean), whatever
	// evidence each side's file carries; seenGit is never before it.
	seenMerge time.Time
	toldA     time.Time // (conflict) side a's first hook answer telling the conflict
	toldB     time.Time
}

// probeWatch holds the probes under way and reads the roster for them.
type probeWatch struct {
	url    string
	mu     sync.Mutex
	probes []*probe
	reads  int
}

// add registers p before its first edit; its agents report their hook
// answers to the watch from now on.
func (w *probeWatch) add(p *probe) {
	w.mu.Lock()
	w.probes = append(w.probes, p)
	w.mu.Unlock()
}

// heard is agent side's hook answer at t: for a conflict probe it is
// after the second change, a hook answer naming the file among the
// predicted conflicts is the side told.
func (w *probeWatch) heard(side *obAgent, answer []byte, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.probes {
		if !p.conflict || p.second.IsZero() || at.Before(p.second) || (p.a != side && p.b != side) {
			continue
		}
		if !bytes.Contains(answer, []byte("merge conflicts in")) || !bytes.Contains(answer, []byte(p.rel)) {
			continue
		}
		if p.a == side && p.toldA.IsZero() {
			p.toldA = at
		}
		if p.b == side && p.toldB.IsZero() {
			p.toldB = at
		}
	}
}

// run reads the roster every 20 ms (conditionally: a 304 while nothing
// changed) until ctx ends. Every read checks the probes, a 304 against
// the overlaps last read: a probe whose overlap was listed before its
// second change is seen at the first read after it.
func (w *probeWatch) run(ctx context.Context) {
	client := &http.Client{Timeout: 10 * time.Second}
	etag := ""
	var last []contract.Overlap
	for sleepCtx(ctx, 20*time.Millisecond) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.url+"/api/presences", nil)
		if err != nil {
			return
		}
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		at := time.Now()
		var r contract.PresencesResponse
		switch {
		case resp.StatusCode == http.StatusNotModified:
		case resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&r) == nil:
			etag, last = resp.Header.Get("ETag"), r.Overlaps
		default:
			resp.Body.Close()
			continue
		}
		resp.Body.Close()
		w.saw(last, at)
	}
}

// saw checks the probes under way against one read of the overlaps.
func (w *probeWatch) saw(overlaps []contract.Overlap, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	for _, p := range w.probes {
		if p.second.IsZero() || !p.seenGit.IsZero() {
			continue
		}
		for i := range overlaps {
			o := &overlaps[i]
			if !(o.A.Worktree == p.a.worktree && o.B.Worktree == p.b.worktree) && !(o.A.Worktree == p.b.worktree && o.B.Worktree == p.a.worktree) {
				continue
			}
			fi := slices.IndexFunc(o.Files, func(f contract.OverlapFile) bool { return f.Path == p.rel })
			if fi < 0 {
				continue
			}
			if p.seenAny.IsZero() {
				p.seenAny = at
			}
			f := o.Files[fi]
			gitBoth := o.Basis == contract.BasisGit && slices.Contains(f.A, "git") && slices.Contains(f.B, "git")
			merged := o.Merge == contract.MergeClean
			if p.conflict {
				merged = o.Verdict == contract.VerdictConflict && slices.Contains(o.Conflicts, p.rel)
			}
			if merged && p.seenMerge.IsZero() {
				p.seenMerge = at
			}
			if gitBoth && merged {
				p.seenGit = at
			}
		}
	}
}

// read is a copy of p as the watch holds it now.
func (w *probeWatch) read(p *probe) probe {
	w.mu.Lock()
	defer w.mu.Unlock()
	return *p
}

// done removes the finished probes and returns them.
func (w *probeWatch) done(ps []*probe) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.probes = slices.DeleteFunc(w.probes, func(p *probe) bool { return slices.Contains(ps, p) })
}

// pairing is the r-th round of a round robin over n agents (n even; an
// odd one out sits the round out): every agent meets another once per
// round, a new partner each round for n-1 rounds.
func pairing(n, r int) [][2]int {
	m := n
	if m%2 == 1 {
		m++ // a bye
	}
	pos := make([]int, m)
	pos[0] = 0
	for k := 1; k < m; k++ {
		pos[k] = 1 + (k-1+r)%(m-1)
	}
	var out [][2]int
	for k := 0; k < m/2; k++ {
		x, y := pos[k], pos[m-1-k]
		if x < n && y < n {
			out = append(out, [2]int{x, y})
		}
	}
	return out
}

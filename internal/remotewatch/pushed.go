package remotewatch

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// Pushed is one overlap of a worktree's changes with a branch pushed to
// the remote it fetches from: the branch changed one of the same files
// (against its merge base with the default branch).
type Pushed struct {
	Worktree string
	Remote   string // the remote's identity
	Branch   Branch // its Files left out
	// Default: the branch is the remote's default branch, moved past the
	// worktree's HEAD; Files are what it changed since they parted.
	Default bool
	// Files are the overlapping paths, repository-relative, sorted, at
	// most MaxOverlapFiles; FilesTotal counts them all.
	Files      []string
	FilesTotal int
	// Predicted: git predicted merging the worktree's working tree (a
	// snapshot) with the branch's tip; Conflict and Conflicts are its
	// answer. Not Predicted: git could not (yet), the merge is unknown.
	Predicted      bool
	Conflict       bool
	Conflicts      []string
	ConflictsTotal int
}

// snapKept is a worktree's last snapshot and the scan it was taken from.
type snapKept struct {
	scanned time.Time
	head    string
	snap    gitscan.Snapshot
}

// Pushed answers the worktree's overlaps with pushed branches as last
// found, newest branch first; never waits on git.
func (w *Watcher) Pushed(worktree string) []Pushed {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.pushed[filepath.Clean(worktree)])
}

// findAll finds the overlaps of each worktree marked dirty, and reports
// whether any changed.
func (w *Watcher) findAll(ctx context.Context) bool {
	w.mu.Lock()
	var todo []string
	for wt := range w.dirty {
		todo = append(todo, wt)
	}
	clear(w.dirty)
	w.mu.Unlock()
	slices.Sort(todo)
	changed := false
	for _, wt := range todo {
		found := w.find(ctx, wt)
		w.mu.Lock()
		if w.tracked[wt] && !samePushed(w.pushed[wt], found) {
			if len(found) == 0 {
				delete(w.pushed, wt)
			} else {
				w.pushed[wt] = found
			}
			changed = true
		}
		w.mu.Unlock()
	}
	return changed
}

// find lists the worktree's overlaps with its remote's active branches,
// each predicted.
func (w *Watcher) find(ctx context.Context, wt string) []Pushed {
	w.mu.Lock()
	r := w.origins[wt]
	var wa *watch
	var branches []Branch
	var def Branch
	if r != nil {
		wa = w.watches[r.Identity]
	}
	if wa != nil {
		branches, def = wa.branches, wa.defTip
	}
	w.mu.Unlock()
	if wa == nil || w.cfg.Results == nil {
		return nil
	}
	res, ok := w.cfg.Results.Result(wt)
	if !ok || res.Err != nil || res.Changes.Total == 0 {
		return nil
	}
	var out []Pushed
	if def.Commit != "" && res.Changes.Head != "" {
		// The default branch moved past the worktree's HEAD: what it
		// changed since they parted, against the worktree's changes.
		if files, total, ok := w.defaultChanged(ctx, wa.store, res.Changes, def.Commit); ok {
			def.Files, def.FilesTotal = files, total
			if p, ok := w.side(ctx, wt, res, wa, def); ok {
				p.Default = true
				out = append(out, p)
			}
		}
	}
	for _, b := range branches {
		if b.Name == r.Upstream {
			continue // the worktree's own pushed work
		}
		if p, ok := w.side(ctx, wt, res, wa, b); ok {
			out = append(out, p)
		}
	}
	return out
}

// side is the worktree's overlap with a branch, predicted; false when
// the branch changed none of the worktree's files.
func (w *Watcher) side(ctx context.Context, wt string, res gitscan.Result, wa *watch, b Branch) (Pushed, bool) {
	var files []string
	total := 0
	for _, f := range res.Changes.Files {
		if gitscan.FilesOverlap([]string{f}, b.Files) {
			total++
			if len(files) < MaxOverlapFiles {
				files = append(files, f)
			}
		}
	}
	if total == 0 {
		return Pushed{}, false
	}
	p := Pushed{Worktree: wt, Remote: wa.identity, Branch: b, Files: files, FilesTotal: total}
	p.Branch.Files = nil
	if m, ok := w.predict(ctx, wt, res, wa.store, b.Commit); ok {
		p.Predicted, p.Conflict, p.Conflicts, p.ConflictsTotal = true, m.Conflict, m.Conflicts, m.ConflictsTotal
	}
	return p, true
}

// defaultChanged lists what the default branch's tip changed since it
// parted from the worktree's HEAD (git diff HEAD...tip in the store, the
// repository's objects read as alternates); nothing when the tip is in
// HEAD's history. Kept per pair.
func (w *Watcher) defaultChanged(ctx context.Context, st *store, c gitscan.Changes, tipID string) ([]string, int, bool) {
	k := [2]string{c.Head, tipID}
	w.mu.Lock()
	cf, ok := w.defChanged[k]
	w.mu.Unlock()
	if !ok {
		files, total, err := st.changed(ctx, c.Head, tipID, MaxBranchFiles, filepath.Join(c.CommonDir, "objects"))
		if err != nil {
			return nil, 0, false
		}
		slices.Sort(files)
		cf = changedFiles{files: files, total: total}
		w.mu.Lock()
		if len(w.defChanged) >= maxDefChanged {
			clear(w.defChanged)
		}
		w.defChanged[k] = cf
		w.mu.Unlock()
	}
	return cf.files, cf.total, cf.total > 0
}

// maxDefChanged bounds the (HEAD, default tip) pairs kept.
const maxDefChanged = 1024

// predict merges the worktree's working tree (a snapshot of what its scan
// listed) with a branch's tip, in the remote's store; false when git
// could not.
func (w *Watcher) predict(ctx context.Context, wt string, res gitscan.Result, st *store, tipID string) (gitscan.Merge, bool) {
	snap, ok := w.snapshot(ctx, wt, res)
	if !ok {
		return gitscan.Merge{}, false
	}
	m, _, err := w.preds.Predict(snap.Commit, tipID, func() (gitscan.Merge, error) {
		m, err := w.cfg.Runner.PredictRemoteMerge(ctx, st.dir, w.scratch.Objects(snap.GitDir), snap.Commit, tipID, st.auth)
		if err != nil && !errors.Is(err, gitscan.ErrUnrelatedHistories) {
			w.mu.Lock()
			delete(w.snaps, wt) // its objects may be gone with a scratch generation
			w.mu.Unlock()
		}
		return m, err
	})
	return m, err == nil
}

// snapshot is the worktree's snapshot for its latest scan, taken once per
// scan into the watch's scratch (never the repository's objects).
func (w *Watcher) snapshot(ctx context.Context, wt string, res gitscan.Result) (gitscan.Snapshot, bool) {
	w.mu.Lock()
	k, ok := w.snaps[wt]
	w.mu.Unlock()
	if ok && k.scanned.Equal(res.ScannedAt) && k.head == res.Changes.Head {
		return k.snap, true
	}
	if w.scratch == nil {
		sc, err := gitscan.NewScratch(filepath.Join(w.cfg.Root, "scratch"), 0)
		if err != nil {
			return gitscan.Snapshot{}, false
		}
		w.scratch = sc
	}
	snap, err := w.cfg.Runner.SnapshotListed(ctx, res.Changes, w.scratch)
	w.scratch.Took()
	if err != nil {
		return gitscan.Snapshot{}, false
	}
	w.mu.Lock()
	w.snaps[wt] = snapKept{scanned: res.ScannedAt, head: res.Changes.Head, snap: snap}
	w.mu.Unlock()
	return snap, true
}

func samePushed(a, b []Pushed) bool {
	return slices.EqualFunc(a, b, func(x, y Pushed) bool {
		return x.Default == y.Default && x.Branch.Name == y.Branch.Name && x.Branch.Commit == y.Branch.Commit && x.FilesTotal == y.FilesTotal &&
			slices.Equal(x.Files, y.Files) && x.Predicted == y.Predicted && x.Conflict == y.Conflict &&
			slices.Equal(x.Conflicts, y.Conflicts)
	})
}

// Touching answers the active branches of the remote the first of
// worktrees that the watch knows fetches from (a check names its
// worktree, then its brain) that changed one of paths
// (repository-relative, files or directories), newest first, each with
// the files that meet; the worktree's own upstream branch left out.
// Never waits on git; nil when the watch knows none of the worktrees.
func (w *Watcher) Touching(worktrees []string, paths []string) []Pushed {
	w.mu.Lock()
	var r *resolved
	for _, wt := range worktrees {
		if r = w.origins[filepath.Clean(wt)]; r != nil && r.Identity != "" {
			break
		}
	}
	var wa *watch
	var branches []Branch
	if r != nil {
		wa = w.watches[r.Identity]
	}
	if wa != nil {
		branches = wa.branches // replaced whole, never changed in place: read outside the lock
	}
	w.mu.Unlock()
	if wa == nil {
		return nil
	}
	asked := slices.Clone(paths)
	slices.Sort(asked)
	var out []Pushed
	for _, b := range branches {
		if b.Name == r.Upstream || !gitscan.FilesOverlap(asked, b.Files) {
			continue
		}
		var files []string
		total := 0
		for _, f := range b.Files {
			if gitscan.FilesOverlap([]string{f}, asked) {
				total++
				if len(files) < MaxOverlapFiles {
					files = append(files, f)
				}
			}
		}
		p := Pushed{Remote: wa.identity, Branch: b, Files: files, FilesTotal: total}
		p.Branch.Files = nil
		out = append(out, p)
	}
	return out
}

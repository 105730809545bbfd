package hall

import (
	"slices"
	"strings"
	"sync"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/presence"
)

// maxToldPresences bounds the presences whose told overlaps the Hall
// remembers; past it the memory starts again (each open overlap may then
// be told once more).
const maxToldPresences = 4096

// toldOverlaps remembers, in this Hall's memory, what each presence was
// told of each of its overlaps: the verdict, and the files it was warned
// about as it was about to change them. An agent hears an overlap once
// when it opens, once more when it becomes a conflict, and once per file
// when its tool is about to change one of the overlap's files, never on
// every call (STYLE.md 13: the agent's context is a budget). A restart
// forgets it: an open overlap may be told once more.
type toldOverlaps struct {
	mu sync.Mutex
	by map[string]map[string]*told // presence id → overlap id
}

type told struct {
	verdict string
	edited  map[string]bool // repository-relative paths warned about at an edit
}

// pick returns the overlaps of the presence id to tell now, given all it
// is a side of and the files (absolute) its tool is about to change, and
// remembers them as told. An overlap that closed is forgotten: if it
// opens again, it is told again.
func (t *toldOverlaps) pick(id string, open []presence.Overlap, touched []string) []presence.Overlap {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(open) == 0 {
		delete(t.by, id)
		return nil
	}
	if t.by == nil || (len(t.by) >= maxToldPresences && t.by[id] == nil) {
		t.by = map[string]map[string]*told{}
	}
	mine := t.by[id]
	if mine == nil {
		mine = map[string]*told{}
		t.by[id] = mine
	}
	var out []presence.Overlap
	keep := make(map[string]bool, len(open))
	for _, o := range open {
		keep[o.ID] = true
		st := mine[o.ID]
		say := st == nil || (o.Verdict == contract.VerdictConflict && st.verdict != contract.VerdictConflict)
		if st == nil {
			st = &told{}
			mine[o.ID] = st
		}
		st.verdict = o.Verdict
		self := o.A
		if self.PresenceID != id {
			self = o.B
		}
		for _, abs := range touched {
			rel, ok := presence.RelFile(self.Worktree, abs)
			if !ok || st.edited[rel] || !overlapCovers(o, rel) {
				continue
			}
			if st.edited == nil {
				st.edited = map[string]bool{}
			}
			st.edited[rel] = true
			say = true
		}
		if say {
			out = append(out, o)
		}
	}
	for oid := range mine {
		if !keep[oid] {
			delete(mine, oid)
		}
	}
	return out
}

// overlapCovers reports whether rel is one of the overlap's listed files,
// or under one of its directories (a declared working-set entry).
func overlapCovers(o presence.Overlap, rel string) bool {
	return slices.ContainsFunc(o.Files, func(f presence.OverlapFile) bool {
		return f.Path == rel || strings.HasPrefix(rel, f.Path+"/")
	})
}

// overlapsToTell is what a beat tells its agent of its overlaps, as the
// last snapshot derived them (a beat derives nothing and never waits on
// git), and what it tells the scanner: a beat that reports a mutation
// has its worktree scanned soon, at once when a file it touched meets
// another worktree's change (Mutated), and one that follows a shell's
// run has it scanned whole at once (ShellRan): neither waits.
func (h *Hall) overlapsToTell(id string, req contract.BeatRequest) []contract.Overlap {
	if h.Git != nil && req.Worktree != "" {
		ran := shellRan(req)
		if len(req.Touched) > 0 || (!ran && req.Tool != "" && h.Service.Mutating(req.Tool)) {
			h.Git.Mutated(req.Worktree, req.Touched...)
		}
		if ran {
			h.Git.ShellRan(req.Worktree)
		}
	}
	if req.Listening != nil && !*req.Listening {
		return nil // told at a beat whose answer is read
	}
	open, ok := h.Service.OverlapsOf(id)
	if !ok {
		return nil
	}
	tell := h.told.pick(id, open, req.Touched)
	if len(tell) == 0 {
		return nil
	}
	return contract.Overlaps(tell)
}

// shellRan reports whether the beat follows a shell tool's run: not a
// mutation the presence records (a shell may or may not write, and the
// Hall never invents one), but a reason for git to look, since it may
// have committed, checked out or written anything. A hook's Before
// moment has not run it yet.
func shellRan(req contract.BeatRequest) bool {
	return hook.ShellTool(req.Tool) && (req.Hook == nil || req.Hook.Moment != contract.MomentBefore)
}

// northOverlaps is the presence's listed overlaps for north: at most
// presence.NorthCap, and how many it has.
func northOverlaps(snap presence.Snapshot, id string) ([]contract.Overlap, int) {
	mine := snap.OverlapsFor(id)
	return contract.Overlaps(mine[:min(len(mine), presence.NorthCap)]), max(snap.OverlapsTotalOf(id), len(mine))
}

// sayOverlaps adds to what a hook says the overlaps the beat tells.
func sayOverlaps(say *hook.Say, resp contract.BeatResponse) {
	say.Overlaps, say.PresenceID = resp.Overlaps, resp.PresenceID
}

// listening says, on a hook's beat, whether the model reads this event's
// answer: nil (yes) or false, so an overlap is told at an event it hears.
// A hook beat carries its HookBeat on the events someone reads, marked
// PersonOnly where the model does not (hookBeat).
func listening(hb *contract.HookBeat) *bool {
	if hb != nil && !hb.PersonOnly {
		return nil
	}
	no := false
	return &no
}

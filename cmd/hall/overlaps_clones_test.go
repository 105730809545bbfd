package main

// One repository, wherever it is checked out (issue #43, items 1, 2 and
// 4): two Claude Code sessions in two clones of one bare repository on
// this machine, each clone its own brain, through the real hook path and
// the Hall's git scanner.

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/mcp"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
)

// clonesPlay is two sessions, A and B, in two worktrees (clones here),
// told through the command hook path.
type clonesPlay struct {
	t    *testing.T
	m    *Main
	set  *schematest.Set
	a, b string // the worktrees
}

func newClonesPlay(t *testing.T, a, b string) *clonesPlay {
	m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond})
	return &clonesPlay{t: t, m: m, set: schematest.FromHall(t, m.URL(), schematest.Strict), a: a, b: b}
}

// hear plays a recorded payload as A or B and returns what the model read.
func (p *clonesPlay) hear(b bool, name string) string {
	p.t.Helper()
	wt, session := p.a, ""
	if b {
		wt, session = p.b, hooktest.SessionB
	}
	text, ask := told(p.t, "claude", hookPaths[0].call(p.t, p.m, "claude", hooktest.Moved(p.t, hooktest.ClaudeCode, name, wt, session), "warn"))
	if ask {
		p.t.Errorf("asked for an overlap: %q", text)
	}
	return text
}

// overlap waits for the one overlap the roster lists to satisfy ok.
func (p *clonesPlay) overlap(what string, ok func(o contract.Overlap) bool) contract.Overlap {
	p.t.Helper()
	var o contract.Overlap
	eventually.True(p.t, overlapWithin, what, func() bool {
		r := rosterOverlaps(p.t, p.set, p.m)
		if len(r.Overlaps) != 1 || r.OverlapsTotal != 1 {
			return false
		}
		o = r.Overlaps[0]
		return ok(o)
	})
	return o
}

func writeCart(t *testing.T, wt string, replace map[int]string) {
	gittest.WriteFile(t, filepath.Join(wt, filepath.FromSlash(gittest.CartPath)), gittest.CartLines(replace))
}

// TestOverlapsAcrossClones: ana/ (cloned over file://) and bob/ (over a
// path) each change line 10 of the cart differently. The roster lists
// one overlap across clone, in the bare repository's identity, git
// predicting the conflict; each agent hears the other's clone named,
// once; north, the cockpit, the events and hall watch say so too; and no
// byte of either clone, nor of the remote, changed.
func TestOverlapsAcrossClones(t *testing.T) {
	c := gittest.Clones(t, gittest.TempDir(t))
	writeCart(t, c.Ana, map[int]string{10: "// ana's line ten"})
	writeCart(t, c.Bob, map[int]string{10: "// bob's line ten"})
	before := map[string]string{}
	for _, d := range []string{c.Ana, c.Bob, c.Bare} {
		before[d] = gittest.Fingerprint(t, d)
	}
	p := newClonesPlay(t, c.Ana, c.Bob)
	heardA, heardB := p.hear(false, "post-tool-use-edit.json"), p.hear(true, "post-tool-use-edit.json")
	o := p.overlap("one overlap across clones, a conflict", func(o contract.Overlap) bool { return o.Merge == contract.MergeConflict })
	bare, _ := filepath.EvalSymlinks(c.Bare)
	if o.Across != contract.AcrossClone || o.Repository != "file://"+bare || o.Verdict != contract.VerdictConflict ||
		o.Basis != contract.BasisGit || strings.Join(o.Conflicts, ",") != gittest.CartPath {
		t.Errorf("overlap %+v, want across clone in file://%s, a conflict on %s", o, bare, gittest.CartPath)
	}
	idA, idB := hooktest.AgentID(hooktest.ClaudeCode, ""), hooktest.AgentID(hooktest.ClaudeCode, hooktest.SessionB)
	sides := map[string]contract.OverlapSide{o.A.AgentID: o.A, o.B.AgentID: o.B}
	if sides[idA].Worktree != c.Ana || sides[idB].Worktree != c.Bob {
		t.Errorf("sides %+v, want A in %s, B in %s", sides, c.Ana, c.Bob)
	}
	// Each clone is its own brain: the overlap is on both brains'
	// rosters and events, counted once in the owner's.
	if o.BrainB == "" || o.BrainB == o.Brain {
		t.Errorf("brain %q, brain_b %q: want the two clones' brains", o.Brain, o.BrainB)
	}
	for _, brain := range []string{o.Brain, o.BrainB} {
		var scoped contract.PresencesResponse
		if err := json.Unmarshal(getChecked(t, p.set, p.m.URL(), "/api/presences?brain="+url.QueryEscape(brain), "presences"), &scoped); err != nil {
			t.Fatal(err)
		}
		if len(scoped.Overlaps) != 1 || scoped.OverlapsTotal != 1 {
			t.Errorf("brain %s: overlaps %d (total %d), want the one across clones", brain, len(scoped.Overlaps), scoped.OverlapsTotal)
		}
		var evs contract.EventsResponse
		if err := json.Unmarshal(getChecked(t, p.set, p.m.URL(), "/api/events?limit=200&brain="+url.QueryEscape(brain), "events"), &evs); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(evs.Events, func(l contract.Line) bool { return l.Overlap != nil && l.Overlap.OverlapID == o.OverlapID }) {
			t.Errorf("brain %s: no event of the overlap across clones", brain)
		}
	}
	// Every presence names the repository it is within.
	for _, pr := range rosterOverlaps(t, p.set, p.m).Presences {
		if pr.Repository != "" && pr.Repository != "file://"+bare {
			t.Errorf("presence %s: repository %q, want file://%s", pr.AgentID, pr.Repository, bare)
		}
	}

	heardA += p.hear(false, "post-tool-use-read.json")
	heardB += p.hear(true, "post-tool-use-read.json")
	for _, h := range []struct{ who, heard, other, where string }{
		{"A", heardA, idB, c.Bob},
		{"B", heardB, idA, c.Ana},
	} {
		for _, want := range []string{h.other, "in " + h.where, "(another clone)", gittest.CartPath, "git predicts the merge conflicts"} {
			if !strings.Contains(h.heard, want) {
				t.Errorf("%s heard %q, want it to name %q", h.who, h.heard, want)
			}
		}
	}
	if text := p.hear(false, "post-tool-use-read.json"); strings.Contains(text, idB) {
		t.Errorf("A heard the overlap again: %q", text)
	}

	// North, the cockpit, hall watch and the events carry it.
	var north contract.NorthResponse
	if err := json.Unmarshal(getChecked(t, p.set, p.m.URL(), "/api/north?presence_id="+sides[idA].PresenceID, "north"), &north); err != nil {
		t.Fatal(err)
	}
	if len(north.Overlaps) != 1 || north.Overlaps[0].Across != contract.AcrossClone {
		t.Errorf("north of A: %+v, want the overlap across clone", north.Overlaps)
	}
	if cockpit := getBody(t, p.m.URL()+"/api/cockpit", 16<<10); !strings.Contains(cockpit, "(two clones)") || !strings.Contains(cockpit, ": conflict\n") {
		t.Errorf("cockpit %q does not carry the conflict across clones", cockpit)
	}
	code, out, _ := runCLI(t, "", "watch", "--hall", p.m.URL(), "--exit-on-conflict")
	if code != 4 || !strings.Contains(out, "(two clones)") {
		t.Errorf("hall watch --exit-on-conflict: exit %d, stdout %q; want 4 and the clones named", code, out)
	}
	var page contract.EventsResponse
	if err := json.Unmarshal(getChecked(t, p.set, p.m.URL(), "/api/events?limit=200", "events"), &page); err != nil {
		t.Fatal(err)
	}
	opened := false
	for _, l := range page.Events {
		opened = opened || (l.Type == contract.LineOverlapOpened && l.Overlap != nil && l.Overlap.Across == contract.AcrossClone)
	}
	if !opened {
		t.Error("no overlap_opened event across clone")
	}
	if metrics := getBody(t, p.m.URL()+"/metrics", 1<<20); !strings.Contains(metrics, "\nhall_overlaps_across_clones_open 1\n") {
		t.Error("/metrics does not count the overlap across clones")
	}
	// hall check from a third session in ana sees bob's clone (and
	// would collide with A, in ana itself: exit 3).
	code, out, stderr := runCLI(t, "", "check", "--hall", p.m.URL(), "--caller-root", c.Ana, "--worktree", c.Ana, "--agent-id", "claude-check", "--paths", gittest.CartPath)
	if code != 3 || !strings.Contains(out, "(another clone)") || !strings.Contains(out, "file://"+bare) {
		t.Errorf("hall check: exit %d, stdout %q, stderr %q; want bob's clone and the repository named", code, out, stderr)
	}

	// The MCP tool check says the same.
	mc := mcptest.Connect(t, &sdk.StreamableClientTransport{Endpoint: p.m.URL() + "/mcp", MaxRetries: -1}, mcptest.Client{})
	defer mc.Close()
	var checked mcp.CheckOut
	res := mcptest.Call(t, mc, "check", map[string]any{"caller_root": c.Ana, "worktree": c.Ana, "agent_id": "claude-check", "paths": []string{gittest.CartPath}})
	mcptest.Structured(t, res, &checked)
	if len(checked.Overlaps) != 1 || checked.Overlaps[0].Across != contract.AcrossClone || checked.Repository != "file://"+bare || !strings.Contains(mcptest.Text(t, res), "(another clone)") {
		t.Errorf("MCP check: %+v, %q; want bob's clone across clone in file://%s", checked, mcptest.Text(t, res), bare)
	}

	for d, fp := range before {
		if gittest.Fingerprint(t, d) != fp {
			t.Errorf("%s changed under the Hall", d)
		}
	}
}

// TestOverlapsAcrossClonesClean: ana changes line 4, carol (origin a
// git@ URL that insteadOf rewrites to the bare repository) line 18: one
// overlap across clone, git predicting a clean merge.
func TestOverlapsAcrossClonesClean(t *testing.T) {
	c := gittest.Clones(t, gittest.TempDir(t))
	writeCart(t, c.Ana, map[int]string{4: "// ana's line four"})
	writeCart(t, c.Carol, map[int]string{18: "// carol's line eighteen"})
	p := newClonesPlay(t, c.Ana, c.Carol)
	p.hear(false, "post-tool-use-edit.json")
	p.hear(true, "post-tool-use-edit.json")
	o := p.overlap("one overlap across clones, merging clean", func(o contract.Overlap) bool { return o.Merge == contract.MergeClean })
	if o.Across != contract.AcrossClone || o.Verdict != contract.VerdictOverlap {
		t.Errorf("overlap %+v, want across clone, verdict overlap", o)
	}
	text := p.hear(false, "post-tool-use-read.json")
	if !strings.Contains(text, "(another clone)") || !strings.Contains(text, "git predicts a clean merge for now") {
		t.Errorf("A heard %q, want carol's clone and the clean merge", text)
	}
}

// TestOverlapsHallRepository: hall.repository, read never written, splits
// two clones of one remote (no overlap, though they change one line) and
// joins two unrelated repositories (an overlap across clone in the
// value's name; git cannot merge unrelated histories: merge unknown).
func TestOverlapsHallRepository(t *testing.T) {
	t.Run("split", func(t *testing.T) {
		c := gittest.Clones(t, gittest.TempDir(t))
		gittest.Git(t, c.Ana, "config", gitscan.RepositoryKey, "shop-ana")
		gittest.Git(t, c.Bob, "config", gitscan.RepositoryKey, "shop-bob")
		writeCart(t, c.Ana, map[int]string{10: "// ana's line ten"})
		writeCart(t, c.Bob, map[int]string{10: "// bob's line ten"})
		p := newClonesPlay(t, c.Ana, c.Bob)
		p.hear(false, "post-tool-use-edit.json")
		p.hear(true, "post-tool-use-edit.json")
		// Once git answered for both (their records carry what it
		// measured), nothing pairs them.
		eventually.True(t, overlapWithin, "both records carry their own repository", func() bool {
			p.hear(false, "post-tool-use-read.json")
			p.hear(true, "post-tool-use-read.json")
			got := map[string]bool{}
			for _, pr := range rosterOverlaps(t, p.set, p.m).Presences {
				got[pr.Repository] = true
			}
			return got["shop-ana"] && got["shop-bob"]
		})
		if r := rosterOverlaps(t, p.set, p.m); len(r.Overlaps) != 0 || r.OverlapsTotal != 0 {
			t.Errorf("split clones overlap: %+v", r.Overlaps)
		}
	})
	t.Run("join", func(t *testing.T) {
		dir := gittest.TempDir(t)
		one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
		for _, d := range []string{one, two} {
			gittest.Init(t, d)
			writeCart(t, d, map[int]string{5: "// made in " + d})
			gittest.CommitAll(t, d, "init")
			gittest.Git(t, d, "config", gitscan.RepositoryKey, "shop-of-the-team")
			writeCart(t, d, map[int]string{10: "// changed in " + d})
		}
		p := newClonesPlay(t, one, two)
		p.hear(false, "post-tool-use-edit.json")
		p.hear(true, "post-tool-use-edit.json")
		o := p.overlap("one overlap across the joined repositories", func(o contract.Overlap) bool {
			return o.A.Git == contract.GitOK && o.B.Git == contract.GitOK
		})
		if o.Across != contract.AcrossClone || o.Repository != "shop-of-the-team" || o.Merge == contract.MergeClean {
			t.Errorf("overlap %+v, want across clone in shop-of-the-team, no clean merge of unrelated histories", o)
		}
	})
}

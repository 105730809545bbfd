package collision_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

const brain = "/home/ana/shop"

func TestCollisionBetween(t *testing.T) {
	tests := []struct {
		name        string
		a, b        presence.Record
		wantOK      bool
		wantClauses []presence.Clause
		wantPlace   string
		wantPaths   []string
	}{
		// The three clauses, each alone.
		{
			name:        "same caller_root",
			a:           presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/home/ana/shop-wt2")),
			b:           presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/home/ana/shop-wt2")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseCallerRoot},
			wantPlace:   "/home/ana/shop-wt2",
		},
		{
			name:        "same caller_root spelled uncleaned",
			a:           presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/home/ana/shop-wt2/")),
			b:           presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/home/ana/./shop-wt2")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseCallerRoot},
			wantPlace:   "/home/ana/shop-wt2",
		},
		{
			name:        "one checkout seen from two caller_roots collides via worktree",
			a:           presencetest.Rec("claude-7", brain, presencetest.Worktree("/home/ana/shop-wt2"), presencetest.CallerRoot("/home/ana/shop-wt2")),
			b:           presencetest.Rec("codex-1", brain, presencetest.Worktree("/home/ana/shop-wt2"), presencetest.CallerRoot("/home/ana/shop-wt2/src/api")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorktree},
			wantPlace:   "/home/ana/shop-wt2",
		},
		// Touched files: observed, under their own clause.
		{
			name:        "both touched one file",
			a:           presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/home/ana/shop-wt2"), presencetest.Touched("/home/ana/shop-wt2/src/cart.go", "/home/ana/shop-wt2/a.go")),
			b:           presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/home/ana/shop-wt2/src"), presencetest.Touched("/home/ana/shop-wt2/src/cart.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseTouched},
			wantPlace:   "/home/ana/shop-wt2/src/cart.go",
			wantPaths:   []string{"/home/ana/shop-wt2/src/cart.go"},
		},
		{
			name:        "a touched file inside the other's declared set, and declared sets overlapping",
			a:           presencetest.Rec("claude-7", brain, presencetest.WS("src/auth")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS("src/auth/token.go"), presencetest.Touched(brain+"/src/auth/login.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet, presence.ClauseTouched},
			wantPlace:   brain + "/src/auth/login.go",
			wantPaths:   []string{brain + "/src/auth/login.go", brain + "/src/auth/token.go"},
		},
		{
			name:   "touched files apart",
			a:      presencetest.Rec("claude-7", brain, presencetest.Touched(brain+"/src/a.go")),
			b:      presencetest.Rec("codex-1", brain, presencetest.Touched(brain+"/src/b.go")),
			wantOK: false,
		},
		// A session and its subagents are one team.
		{
			name:   "a subagent and its session",
			a:      presencetest.Rec("claude-7", brain, presencetest.Worktree("/w"), presencetest.Touched("/w/x.go")),
			b:      presencetest.Rec("claude-7/sub", brain, presencetest.Worktree("/w"), presencetest.Touched("/w/x.go"), presencetest.Parent(presence.ID("claude-7", brain))),
			wantOK: false,
		},
		{
			name:   "two subagents of one session",
			a:      presencetest.Rec("claude-7/s1", brain, presencetest.Worktree("/w"), presencetest.Parent(presence.ID("claude-7", brain))),
			b:      presencetest.Rec("claude-7/s2", brain, presencetest.Worktree("/w"), presencetest.Parent(presence.ID("claude-7", brain))),
			wantOK: false,
		},
		{
			name:        "a subagent and another session",
			a:           presencetest.Rec("claude-7/s1", brain, presencetest.Worktree("/w"), presencetest.Parent(presence.ID("claude-7", brain))),
			b:           presencetest.Rec("codex-1", brain, presencetest.Worktree("/w")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorktree},
			wantPlace:   "/w",
		},
		{
			name:        "working sets overlap: src/auth and src/auth/login.go",
			a:           presencetest.Rec("claude-7", brain, presencetest.WS("src/auth")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS("src/auth/login.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   brain + "/src/auth/login.go",
			wantPaths:   []string{brain + "/src/auth/login.go"},
		},
		{
			name:        "equal working-set entries overlap",
			a:           presencetest.Rec("claude-7", brain, presencetest.WS("go.mod")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS("./go.mod")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   brain + "/go.mod",
			wantPaths:   []string{brain + "/go.mod"},
		},
		{
			name:        "all three clauses, in order, place is the worktree",
			a:           presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src")),
			b:           presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src/x.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseCallerRoot, presence.ClauseWorktree, presence.ClauseWorkingSet},
			wantPlace:   "/w/wt",
			wantPaths:   []string{"/w/wt/src/x.go"},
		},
		{
			name:        "caller_root and working set: place is the caller_root",
			a:           presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/cr"), presencetest.WS("a")),
			b:           presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/cr"), presencetest.WS("a/b")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseCallerRoot, presence.ClauseWorkingSet},
			wantPlace:   "/w/cr",
			wantPaths:   []string{"/w/cr/a/b"},
		},
		{
			name:        "several overlaps: paths deduplicated and sorted, place the first",
			a:           presencetest.Rec("claude-7", brain, presencetest.WS("src", "docs/readme.md", "go.mod")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS("src/b.go", "docs", "src/a.go", "/home/ana/shop/go.mod", "go.mod")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   brain + "/docs/readme.md",
			wantPaths:   []string{brain + "/docs/readme.md", brain + "/go.mod", brain + "/src/a.go", brain + "/src/b.go"},
		},
		{
			name:        "a root working set overlaps everything",
			a:           presencetest.Rec("claude-7", brain, presencetest.WS("/")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS("lib/x.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   brain + "/lib/x.go",
			wantPaths:   []string{brain + "/lib/x.go"},
		},

		// Relative working-set entries resolve against worktree, else
		// caller_root, else brain.
		{
			name:        "relative entry resolves against the worktree",
			a:           presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt1"), presencetest.CallerRoot("/w/cr1"), presencetest.WS("src")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS("/w/wt1/src/x.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   "/w/wt1/src/x.go",
			wantPaths:   []string{"/w/wt1/src/x.go"},
		},
		{
			name: "relative entry does not resolve against caller_root when a worktree is set",
			a:    presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt1"), presencetest.CallerRoot("/w/cr1"), presencetest.WS("src")),
			b:    presencetest.Rec("codex-1", brain, presencetest.WS("/w/cr1/src/x.go", brain+"/src/x.go")),
		},
		{
			name:        "relative entry resolves against caller_root without a worktree",
			a:           presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/cr1"), presencetest.WS("src")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS("/w/cr1/src/x.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   "/w/cr1/src/x.go",
			wantPaths:   []string{"/w/cr1/src/x.go"},
		},
		{
			name: "relative entry does not resolve against the brain when a caller_root is set",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/cr1"), presencetest.WS("src")),
			b:    presencetest.Rec("codex-1", brain, presencetest.WS(brain+"/src/x.go")),
		},
		{
			name:        "relative entry resolves against the brain as the last resort",
			a:           presencetest.Rec("claude-7", brain, presencetest.WS("src")),
			b:           presencetest.Rec("codex-1", brain, presencetest.WS(brain+"/src/x.go")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   brain + "/src/x.go",
			wantPaths:   []string{brain + "/src/x.go"},
		},
		{
			// m1nd's exact rule: the same entry as written meets, whatever
			// the bases; listed as written.
			name:        "same relative entry in different worktrees meets as written",
			a:           presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt1"), presencetest.WS("src/auth")),
			b:           presencetest.Rec("codex-1", brain, presencetest.Worktree("/w/wt2"), presencetest.WS("src/auth")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   "src/auth",
			wantPaths:   []string{"src/auth"},
		},
		{
			name: "nested relative entries in different worktrees do not overlap",
			a:    presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt1"), presencetest.WS("src/auth")),
			b:    presencetest.Rec("codex-1", brain, presencetest.Worktree("/w/wt2"), presencetest.WS("src/auth/login.go")),
		},
		{
			name:        "same sb_ block id",
			a:           presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt1"), presencetest.WS("sb_7f3a", "src/a.go")),
			b:           presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt2"), presencetest.WS("src/b.go", "sb_7f3a")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorkingSet},
			wantPlace:   "sb_7f3a",
			wantPaths:   []string{"sb_7f3a"},
		},
		{
			name:        "same declared worktree string",
			a:           presencetest.Rec("claude-7", brain, presencetest.Worktree("feat/x")),
			b:           presencetest.Rec("codex-1", brain, presencetest.Worktree("feat/x")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorktree},
			wantPlace:   "feat/x",
		},
		{
			name: "declared worktree strings compare as written",
			a:    presencetest.Rec("claude-7", brain, presencetest.Worktree("feat/x")),
			b:    presencetest.Rec("codex-1", brain, presencetest.Worktree("feat/x/")),
		},
		{
			name: "one agent under two ids never collides with itself",
			a:    presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt")),
			b:    presencetest.Rec("claude-7", brain, presencetest.ID(presence.LegacyID("claude-7", brain)), presencetest.Worktree("/w/wt")),
		},

		// Never warns.
		{
			name: "same brain alone never warns",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt1"), presencetest.Worktree("/w/wt1")),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt2"), presencetest.Worktree("/w/wt2")),
		},
		{
			name: "same brain alone, nothing declared",
			a:    presencetest.Rec("claude-7", brain),
			b:    presencetest.Rec("codex-1", brain),
		},
		{
			name: "src/auth and src/authz do not overlap",
			a:    presencetest.Rec("claude-7", brain, presencetest.WS("src/auth")),
			b:    presencetest.Rec("codex-1", brain, presencetest.WS("src/authz")),
		},
		{
			name: "src/auth and src/auth.go do not overlap",
			a:    presencetest.Rec("claude-7", brain, presencetest.WS("src/auth")),
			b:    presencetest.Rec("codex-1", brain, presencetest.WS("src/auth.go", "src/aut")),
		},
		{
			name: "a without a mutation signal",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src"), presencetest.NoMutation()),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src")),
		},
		{
			name: "b without a mutation signal",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src")),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src"), presencetest.NoMutation()),
		},
		{
			name: "neither side mutating",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.NoMutation()),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt"), presencetest.NoMutation()),
		},
		{
			name:        "declared mutate on both sides is a signal",
			a:           presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Intent("mutate")),
			b:           presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt"), presencetest.Intent("MUTATE")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseCallerRoot},
			wantPlace:   "/w/wt",
		},
		{
			name:        "observed on one side, declared on the other",
			a:           presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt")),
			b:           presencetest.Rec("codex-1", brain, presencetest.Worktree("/w/wt"), presencetest.Intent("Mutate")),
			wantOK:      true,
			wantClauses: []presence.Clause{presence.ClauseWorktree},
			wantPlace:   "/w/wt",
		},
		{
			name: "a declared intent other than mutate is no signal",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Intent("edit checkout")),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/w/wt"), presencetest.Intent("mutate")),
		},
		{
			name: "an observed mutation past the ttl is no signal",
			a:    presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt")),
			b:    presencetest.Rec("codex-1", brain, presencetest.Worktree("/w/wt"), presencetest.Observed(presencetest.T0-presence.DefaultTTL.Milliseconds()-1)),
		},
		{
			name: "different brains never collide",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("/w/wt/src")),
			b:    presencetest.Rec("codex-1", "/home/ana/other", presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("/w/wt/src")),
		},
		{
			name: "empty caller_root and worktree never match",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot(""), presencetest.Worktree("")),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot(""), presencetest.Worktree("")),
		},
		{
			name: "a caller_root of \".\" against an empty one never matches",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot(".")),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot("")),
		},
		{
			name: "a worktree of \"./\" against an empty one never matches",
			a:    presencetest.Rec("claude-7", brain, presencetest.Worktree("")),
			b:    presencetest.Rec("codex-1", brain, presencetest.Worktree("./")),
		},
		{
			name: "empty caller_root against a set one",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("")),
			b:    presencetest.Rec("codex-1", brain, presencetest.CallerRoot(brain)),
		},
		{
			name: "a presence never collides with itself",
			a:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src")),
			b:    presencetest.Rec("claude-7", brain, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt"), presencetest.WS("src")),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][2]presence.Record{{tt.a, tt.b}, {tt.b, tt.a}} {
				c, ok := presence.CollisionBetween(order[0], order[1], time.UnixMilli(presencetest.T0))
				if ok != tt.wantOK {
					t.Fatalf("CollisionBetween(%s, %s): got ok=%v (%+v), want %v", order[0].AgentID, order[1].AgentID, ok, c, tt.wantOK)
				}
				if !ok {
					if !reflect.DeepEqual(c, presence.Collision{}) {
						t.Errorf("no collision: got %+v, want the zero Collision", c)
					}
					continue
				}
				if c.A.PresenceID >= c.B.PresenceID {
					t.Errorf("order: got A=%s B=%s, want A < B by presence_id", c.A.PresenceID, c.B.PresenceID)
				}
				lo, hi := tt.a, tt.b
				if lo.PresenceID > hi.PresenceID {
					lo, hi = hi, lo
				}
				if !reflect.DeepEqual(*c.A, lo) || !reflect.DeepEqual(*c.B, hi) {
					t.Errorf("sides: got A=%s B=%s, want A=%s B=%s", c.A.AgentID, c.B.AgentID, lo.AgentID, hi.AgentID)
				}
				if got, want := c.Brain, tt.a.Brain; got != want {
					t.Errorf("Brain: got %q, want %q", got, want)
				}
				if got, want := c.Clauses, tt.wantClauses; !reflect.DeepEqual(got, want) {
					t.Errorf("Clauses: got %v, want %v", got, want)
				}
				if got, want := c.Place, tt.wantPlace; got != want {
					t.Errorf("Place: got %q, want %q", got, want)
				}
				if got, want := c.Paths, tt.wantPaths; !reflect.DeepEqual(got, want) {
					t.Errorf("Paths: got %q, want %q", got, want)
				}
				if got, want := c.Key(), c.A.PresenceID+"~"+c.B.PresenceID; got != want {
					t.Errorf("Key: got %q, want %q", got, want)
				}
				if p, ok := c.Partner(c.A.PresenceID); !ok || p.PresenceID != c.B.PresenceID {
					t.Errorf("Partner(A): got %s %v, want %s true", p.PresenceID, ok, c.B.PresenceID)
				}
				if p, ok := c.Partner(c.B.PresenceID); !ok || p.PresenceID != c.A.PresenceID {
					t.Errorf("Partner(B): got %s %v, want %s true", p.PresenceID, ok, c.A.PresenceID)
				}
				if _, ok := c.Partner("prs_000000000000"); ok {
					t.Errorf("Partner(stranger): got true, want false")
				}
			}
		})
	}
}

func TestCollisionsInScopesByBrain(t *testing.T) {
	other := "/srv/other"
	live := []presence.Record{
		presencetest.Rec("a", brain, presencetest.CallerRoot("/w/1")),
		presencetest.Rec("b", brain, presencetest.CallerRoot("/w/1")),
		presencetest.Rec("c", other, presencetest.CallerRoot("/w/1")),
		presencetest.Rec("d", other, presencetest.CallerRoot("/w/1")),
		presencetest.Rec("e", other, presencetest.CallerRoot("/w/2")),
	}
	all := presencetest.CollisionsIn("", live)
	if len(all) != 2 {
		t.Fatalf("CollisionsIn(all): got %d, want 2", len(all))
	}
	if all[0].Brain != brain || all[1].Brain != other {
		t.Errorf("CollisionsIn(all) order: got brains %q, %q, want %q, %q", all[0].Brain, all[1].Brain, brain, other)
	}
	for _, b := range []string{brain, other} {
		got := presencetest.CollisionsIn(b, live)
		if len(got) != 1 || got[0].Brain != b {
			t.Errorf("CollisionsIn(%q): got %+v, want one collision on it", b, got)
		}
	}
	if got := presencetest.CollisionsIn("/nowhere", live); len(got) != 0 {
		t.Errorf("CollisionsIn(unknown brain): got %d, want 0", len(got))
	}
	if got := presencetest.CollisionsIn("", nil); len(got) != 0 {
		t.Errorf("CollisionsIn(empty roster): got %d, want 0", len(got))
	}
}

// bruteCollisions is the reference: every pair tried, in CollisionsIn's order.
func bruteCollisions(brain string, live []presence.Record) []presence.Collision {
	var out []presence.Collision
	for i := range live {
		for j := i + 1; j < len(live); j++ {
			if brain != "" && live[i].Brain != brain {
				continue
			}
			if c, ok := presence.CollisionBetween(live[i], live[j], time.UnixMilli(presencetest.T0)); ok {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Brain != out[j].Brain {
			return out[i].Brain < out[j].Brain
		}
		return out[i].Key() < out[j].Key()
	})
	return out
}

// randomRoster builds a roster with deliberate sharing: few brains, shared
// worktrees and caller_roots, nested working sets given relative and
// absolute, odd spellings, and some records without a mutation signal.
func randomRoster(rng *rand.Rand, n int) []presence.Record {
	brains := []string{"/b/one", "/b/two", "/b/two/nested", "/", "rel-brain"}
	segs := []string{"src", "auth", "authz", "auth.go", "login.go", "a", "a b", "docs", "x\x00y", "..", "sb_1"}
	randPath := func() string {
		depth := rng.Intn(4)
		p := ""
		for k := 0; k < depth; k++ {
			p = filepath.Join(p, segs[rng.Intn(len(segs))])
		}
		if p == "" {
			p = "."
		}
		return p
	}
	roots := func(b string) []string {
		return []string{"", "", b, filepath.Join(b, "wt1"), "/w/shared", "/w/shared/", "/w/shared/src", filepath.Join(b, "wt2") + "/.", ".", "./", "feat/x"}
	}
	out := make([]presence.Record, 0, n)
	twins := map[string]bool{} // agents with two records: no subagent hangs from one (Within closes hands over links)
	for i := 0; i < n; i++ {
		b := brains[rng.Intn(len(brains))]
		agent := fmt.Sprintf("agent-%d", i) // a live roster holds each id once
		twin := false
		if i > 0 && rng.Intn(8) == 0 {
			// One agent under a second id (an older Hall's): of a record
			// with no subagent and none itself, and never a parent after.
			if o := out[rng.Intn(len(out))]; o.ParentPresenceID == "" && !slices.ContainsFunc(out, func(k presence.Record) bool { return k.ParentPresenceID == o.Team() }) {
				agent, twin = o.AgentID, true
			}
		}
		r := presencetest.Rec(agent, b, presencetest.NoMutation())
		if twin {
			r.PresenceID = presence.LegacyID(fmt.Sprint(agent, i), b)
		}
		rs := roots(b)
		r.CallerRoot = rs[rng.Intn(len(rs))]
		r.Worktree = rs[rng.Intn(len(rs))]
		for k := rng.Intn(4); k > 0; k-- {
			p := randPath()
			switch rng.Intn(4) {
			case 0:
				p = "/" + p
			case 1:
				p = filepath.Join(b, p)
			}
			r.WorkingSet = append(r.WorkingSet, p)
		}
		for k := rng.Intn(3); k > 0; k-- {
			r.Touched = append(r.Touched, presence.Touch{Path: filepath.Join("/", b, randPath()), AtMs: presencetest.T0})
		}
		if i > 0 && !twin && rng.Intn(6) == 0 { // a subagent of an earlier session, or its sibling
			parent := out[rng.Intn(len(out))]
			if !twins[parent.AgentID] {
				r.ParentPresenceID = parent.Team()
			}
		}
		if twin {
			twins[agent] = true
		}
		switch rng.Intn(7) {
		case 0:
		case 1:
			r.Mutation.DeclaredIntent = "mutate"
		case 2:
			r.Mutation.DeclaredIntent = "read" // no signal
		case 3:
			r.Mutation.ObservedAtMs = presencetest.T0 - presence.DefaultTTL.Milliseconds() - 1 // lapsed
		default:
			r.Mutation.ObservedAtMs = presencetest.T0
		}
		out = append(out, r)
	}
	return out
}

// The indexed sweep of CollisionsIn finds exactly the pairs the brute-force
// pairwise predicate finds.
func TestCollisionsInEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(20251130))
	total := 0
	for round := 0; round < 400; round++ {
		live := randomRoster(rng, rng.Intn(60))
		for _, scope := range []string{"", "/b/one", "/b/two", "/"} {
			got := presencetest.CollisionsIn(scope, live)
			want := bruteCollisions(scope, live)
			total += len(want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d scope %q: CollisionsIn found %d, brute force %d\ngot  %v\nwant %v",
					round, scope, len(got), len(want), keys(got), keys(want))
			}
		}
	}
	if total < 1000 {
		t.Fatalf("rosters too tame: got %d collisions over all rounds, want at least 1000", total)
	}
}

// Ids need not have ID's shape. Where one is a proper prefix of another,
// Key order is not the order of the ids ("ab~y" sorts before "a~x"), and
// CollisionsIn still follows Key order, as the brute force does.
func TestCollisionsInOrdersLooseIDsByKey(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const alphabet = "ab-\x7f" // below and above the "~" of a Key
	loose := 0
	for round := 0; round < 300; round++ {
		live := randomRoster(rng, rng.Intn(40))
		used := map[string]bool{}
		for i := range live {
			for {
				id := ""
				for k := rng.Intn(3); k >= 0; k-- {
					id += string(alphabet[rng.Intn(len(alphabet))])
				}
				if !used[id] {
					used[id], live[i].PresenceID = true, id
					break
				}
			}
		}
		for _, scope := range []string{"", "/b/two"} {
			got := presencetest.CollisionsIn(scope, live)
			want := bruteCollisions(scope, live)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d scope %q: got %v, want %v", round, scope, keys(got), keys(want))
			}
			// One presence's, bounded, in the same order.
			if len(live) > 0 {
				focus := live[rng.Intn(len(live))].PresenceID
				mine, _ := presence.CollisionsWithin(scope, live, time.UnixMilli(presencetest.T0), presence.CollisionBound{Focus: focus, Max: 3})
				if w := firstPerBrain(involving(want, focus), 3); !reflect.DeepEqual(keys(mine), keys(w)) {
					t.Fatalf("round %d scope %q focus %q: got %v, want %v", round, scope, focus, keys(mine), keys(w))
				}
			}
			for k := 1; k < len(want); k++ {
				if want[k].Brain == want[k-1].Brain && want[k].A.PresenceID > want[k-1].A.PresenceID {
					loose++ // a later pair whose A sorts first: the order ids alone would get wrong
				}
			}
		}
	}
	if loose < 50 {
		t.Fatalf("rosters too tame: got %d pairs out of id order, want at least 50", loose)
	}
}

// Two records of one presence (a roster read mid-rewrite, say) never
// collide with each other; with a third they collide once each, ordered by
// their places in live.
func TestCollisionsInDuplicateIDs(t *testing.T) {
	rec := func(id string, pos int) presence.Record {
		r := presencetest.Rec(fmt.Sprintf("agent-%d", pos), brain, presencetest.Worktree("/w/wt"))
		r.PresenceID = id
		return r
	}
	tests := []struct {
		name string
		live []presence.Record
		want [][2]int // A and B, as indexes into live
	}{
		{"duplicate sorts first", []presence.Record{rec("prs_a", 0), rec("prs_b", 1), rec("prs_a", 2)}, [][2]int{{0, 1}, {2, 1}}},
		{"duplicate sorts last", []presence.Record{rec("prs_b", 0), rec("prs_a", 1), rec("prs_b", 2)}, [][2]int{{1, 0}, {1, 2}}},
		{"duplicates alone", []presence.Record{rec("prs_a", 0), rec("prs_a", 1)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := presencetest.CollisionsIn("", tt.live)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d collisions %v, want %d", len(got), keys(got), len(tt.want))
			}
			for k, w := range tt.want {
				if got[k].A.AgentID != tt.live[w[0]].AgentID || got[k].B.AgentID != tt.live[w[1]].AgentID {
					t.Errorf("collision %d: got %s × %s, want %s × %s", k, got[k].A.AgentID, got[k].B.AgentID,
						tt.live[w[0]].AgentID, tt.live[w[1]].AgentID)
				}
			}
		})
	}
}

// The Clauses and Paths of one collision share no memory with another's:
// a caller appending to or editing one changes nothing else.
func TestCollisionsInSlicesAreIndependent(t *testing.T) {
	live := []presence.Record{
		presencetest.Rec("a", brain, presencetest.CallerRoot("/w"), presencetest.WS("src", "docs")),
		presencetest.Rec("b", brain, presencetest.CallerRoot("/w"), presencetest.WS("src/x", "docs/y")),
		presencetest.Rec("c", brain, presencetest.CallerRoot("/w"), presencetest.WS("src/x/z", "docs")),
	}
	got := presencetest.CollisionsIn("", live)
	want := presencetest.CollisionsIn("", live)
	if len(got) != 3 {
		t.Fatalf("CollisionsIn: got %d collisions, want 3", len(got))
	}
	for i := range got {
		got[i].Clauses = append(got[i].Clauses, "scribble")
		got[i].Paths = append(got[i].Paths, "/scribble")
		got[i].Clauses[0] = "edited"
		got[i].Paths[0] = "/edited"
		for j := range got {
			if j == i {
				continue
			}
			if !reflect.DeepEqual(got[j].Clauses, want[j].Clauses) && j > i {
				t.Fatalf("editing collision %d changed collision %d's clauses: got %v, want %v", i, j, got[j].Clauses, want[j].Clauses)
			}
			if !reflect.DeepEqual(got[j].Paths, want[j].Paths) && j > i {
				t.Fatalf("editing collision %d changed collision %d's paths: got %v, want %v", i, j, got[j].Paths, want[j].Paths)
			}
		}
	}
}

// A collision's sides are the roster's own records, not copies: a
// snapshot's collisions cost a few words each and name what Live holds.
func TestCollisionsInSidesAreTheRostersRecords(t *testing.T) {
	live := []presence.Record{
		presencetest.Rec("a", brain, presencetest.CallerRoot("/w")),
		presencetest.Rec("b", brain, presencetest.CallerRoot("/w")),
	}
	got := presencetest.CollisionsIn("", live)
	if len(got) != 1 {
		t.Fatalf("CollisionsIn: got %d collisions, want 1", len(got))
	}
	lo, hi := &live[0], &live[1]
	if lo.PresenceID > hi.PresenceID {
		lo, hi = hi, lo
	}
	if got[0].A != lo || got[0].B != hi {
		t.Errorf("sides: got %p and %p, want the roster's %p and %p", got[0].A, got[0].B, lo, hi)
	}
	if p, ok := got[0].Partner(lo.PresenceID); !ok || p != hi {
		t.Errorf("Partner(A): got %p %v, want %p true", p, ok, hi)
	}
}

func keys(cs []presence.Collision) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Brain + ":" + c.Key()
	}
	return out
}

func TestPathsOverlap(t *testing.T) {
	tests := []struct {
		a, b       string
		wantOK     bool
		wantDeeper string
	}{
		{"/s/src/auth", "/s/src/auth/login.go", true, "/s/src/auth/login.go"},
		{"/s/src/auth/login.go", "/s/src/auth", true, "/s/src/auth/login.go"},
		{"/s/src/auth", "/s/src/authz", false, ""},
		{"/s/src/authz", "/s/src/auth", false, ""},
		{"/s/src/auth", "/s/src/auth", true, "/s/src/auth"},
		{"/s/src/auth/", "/s/src/auth", true, "/s/src/auth"},
		{"/", "/anything", true, "/anything"},
		{"/", "/", true, "/"},
		{"/a/b", "/a/c", false, ""},
		{"/a", "/ab/c", false, ""},
		{"src/auth", "src/auth/x", true, "src/auth/x"},
		{"/a/./b/../c", "/a/c/d", true, "/a/c/d"},
	}
	for _, tt := range tests {
		deeper, ok := presence.PathsOverlap(tt.a, tt.b)
		if ok != tt.wantOK || deeper != tt.wantDeeper {
			t.Errorf("PathsOverlap(%q, %q): got (%q, %v), want (%q, %v)", tt.a, tt.b, deeper, ok, tt.wantDeeper, tt.wantOK)
		}
	}
}

// Sweeps are pooled: callers at once, on rosters of every size, each get
// the answer they would get alone.
func TestCollisionsInConcurrent(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	rosters := [][]presence.Record{presencetest.BenchRoster(300), presencetest.DenseRoster(120), nil}
	for i := 0; i < 12; i++ {
		rosters = append(rosters, randomRoster(rng, rng.Intn(60)))
	}
	want := make([][]string, len(rosters))
	for i, live := range rosters {
		want[i] = keys(presencetest.CollisionsIn("", live))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(rosters))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range rosters {
				i := (k + g) % len(rosters)
				if got := keys(presencetest.CollisionsIn("", rosters[i])); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("roster %d: got %d collisions, want %d", i, len(got), len(want[i]))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

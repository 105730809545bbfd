package hall_test

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/agentid"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
)

// storeState is every file of the store, with its content and time.
func storeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = string(sum[:]) + info.ModTime().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheck: a check names the live presences the work would collide
// or overlap with, and why; it writes nothing (the store's files, the
// roster's version and the change signal are as they were), in process
// and over HTTP.
func TestCheck(t *testing.T) {
	h, _, dir := newHall(t)
	s := newShop(t)
	ctx := context.Background()
	hook := func(agent, session, cwd, file string) {
		if _, err := h.Hook(ctx, hall.HookRequest{Agent: agent, Payload: editPayload(agent, session, cwd, file)}); err != nil {
			t.Fatal(err)
		}
	}
	hook("codex", "c0dex-5e55", s.wt2, filepath.Join(s.wt2, "src", "cart.go"))
	hook("claude", "c1aude-5e55", s.main, filepath.Join(s.main, "src", "search.go"))
	codex := agentid.Session("codex", "c0dex-5e55", "")
	claude := agentid.Claude("c1aude-5e55", "")
	ro := false

	for drained := false; !drained; { // the edits' own signals
		select {
		case <-h.Service.Changed():
		default:
			drained = true
		}
	}
	before := storeState(t, dir)
	version := h.Service.Version()
	c := overHTTP(t, h)
	for _, tc := range []struct {
		name       string
		req        contract.CheckRequest
		collide    bool
		collisions []string
		overlaps   []string
	}{
		{"the other's worktree", contract.CheckRequest{Worktree: s.wt2, Paths: []string{"src/cart.go"}}, true, []string{codex}, nil},
		{"the main worktree, the other's file", contract.CheckRequest{CallerRoot: s.main, Paths: []string{"src/cart.go"}}, true, []string{claude}, []string{codex}},
		{"as the claude session itself", contract.CheckRequest{AgentID: claude, CallerRoot: s.main, Paths: []string{"src/cart.go"}}, false, nil, []string{codex}},
		{"read-only", contract.CheckRequest{Worktree: s.wt2, Paths: []string{"src/cart.go"}, Mutating: &ro}, false, nil, nil},
	} {
		for name, check := range map[string]func(context.Context, contract.CheckRequest) (contract.CheckResponse, error){"in process": h.Check, "http": c.Check} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				resp, err := check(ctx, tc.req)
				if err != nil {
					t.Fatal(err)
				}
				if resp.WouldCollide != tc.collide || !slices.Equal(agents(resp.Collisions), tc.collisions) || !slices.Equal(agents(resp.Overlaps), tc.overlaps) {
					t.Errorf("got collide %v, collisions %v, overlaps %v; want %v, %v, %v", resp.WouldCollide, agents(resp.Collisions), agents(resp.Overlaps), tc.collide, tc.collisions, tc.overlaps)
				}
				for _, hit := range resp.Collisions {
					if len(hit.Clauses) == 0 {
						t.Errorf("collision with %s: no clause says why", hit.AgentID)
					}
				}
				for _, hit := range resp.Overlaps {
					if !slices.Contains(hit.Paths, "src/cart.go") {
						t.Errorf("overlap with %s: paths %v, want src/cart.go", hit.AgentID, hit.Paths)
					}
				}
			})
		}
	}
	for name, req := range map[string]contract.CheckRequest{
		"nowhere":        {},
		"relative root":  {CallerRoot: "shop"},
		"too many paths": {Worktree: s.wt2, Paths: make([]string, 65)},
	} {
		if _, err := c.Check(ctx, req); code(err) == "" {
			t.Errorf("%s: accepted", name)
		}
	}
	if after := storeState(t, dir); !mapsEqual(before, after) {
		t.Errorf("the store changed under checks:\nbefore %v\nafter  %v", before, after)
	}
	if v := h.Service.Version(); v != version {
		t.Errorf("the roster's version went from %d to %d", version, v)
	}
	select {
	case <-h.Service.Changed():
		t.Error("the roster signalled a change")
	default:
	}
}

func agents(hits []contract.CheckHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.AgentID)
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

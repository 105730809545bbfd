package hall_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
)

// TestSnapshotOfAnotherWorktreeNamesItReported: a command that reaches
// another session's worktree (git -C) snapshots it, and the line that
// says so names the worktree's path, text others control, only inside
// the reported block; the Hall's sentence says which snapshot and how
// to get it back.
func TestSnapshotOfAnotherWorktreeNamesItReported(t *testing.T) {
	h, _, _ := newHall(t)
	s := newShop(t)
	git := gitCache{}
	h.Git = git
	withStore(t, h)
	hookOut := func(body []byte) []byte {
		ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: "claude", Payload: body})
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return ans.Output
	}
	cart := filepath.Join(s.wt2, "src", "cart.go")
	hookOut(editPayload("claude", "0ther-5e55-1on", s.wt2, cart))
	gittest.WriteFile(t, cart, "package src\n\nfunc Total() int { return 2 }\n")
	git.scan(t, s.main, s.wt2)
	me := "5e1f-5e55-1on"
	hookOut(payload("claude", me, s.main, "SessionStart", "", nil))
	out := hookOut(shellPayload("claude", me, s.main, "git -C "+s.wt2+" checkout ."))
	said := modelText(t, "claude", out)
	t.Logf("the hook answer: %d bytes, the model's text %d bytes:\n%s", len(out), len(said), said)
	if !strings.Contains(said, "The Hall saved snapshot ") {
		t.Fatalf("the model reads %q; want the snapshot named", said)
	}
	path := strconv.Quote(s.wt2)
	inside := false
	found := false
	for _, l := range strings.Split(said, "\n") {
		switch {
		case strings.HasPrefix(l, "Reported by other agents"):
			inside = true
		case l == "(end of reported)":
			inside = false
		case strings.HasPrefix(l, "shell guard: `git -C "): // the command, as this session wrote it
		case strings.Contains(l, s.wt2):
			if !inside || !strings.HasPrefix(l, "> ") {
				t.Errorf("the worktree's path outside the reported block: %q", l)
			}
			if strings.Contains(l, path) {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the worktree's path %s nowhere in the reported block of %q", path, said)
	}
}

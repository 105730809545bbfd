package main

// Work lost, and saved first, in chromium (issue 31): through the real
// Hall, its scanner, its snapshot store and the agents' HTTP hooks.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hooktest"
)

// TestBrowserLossMarkedRecoverable: A (Claude Code) edits the cart for
// real; B (Codex) runs `git checkout .` through its hooks, which the Hall
// snapshots first; once B's next hook says the command ran, the open page
// shows, with no reload, A's file lost to B's command and the command
// that restores it.
func TestBrowserLossMarkedRecoverable(t *testing.T) {
	m := MustOpenHall(t, Config{Snapshots: true, SnapshotBudget: hall.HookDeadline, GitInterval: 10 * time.Millisecond})
	repo := hooktest.GitRepo(t)
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live", `tid('status').dataset.state === 'live'`)
	if !eval[bool](t, b, `tid('losses').hidden`) {
		t.Fatal("the losses show with nothing lost")
	}
	eval[string](t, b, `window.__same = 'this page'`)

	call := hookPaths[2].call // the HTTP hook
	cart := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
	if err := os.WriteFile(cart, []byte("package checkout\n\n// A's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, ""), "warn")
	eventually.True(t, 30*time.Second, "git lists cart.go modified", func() bool {
		res, ok := m.GitScan.Result(repo.Worktree)
		st, listed := res.Changes.StateOf("src/checkout/cart.go")
		return ok && listed && st == gitscan.Modified
	})
	const bSession = "b1b2b3b4-0000-4000-8000-000000000000"
	pre, _ := told(t, "codex", call(t, m, "codex", shellHook("codex", bSession, repo.Worktree, "git checkout ."), "warn"))
	if !strings.Contains(pre, "The Hall saved snapshot ") {
		t.Fatalf("B's `git checkout .`: %q", pre)
	}
	gittest.Git(t, repo.Worktree, "checkout", ".")
	call(t, m, "codex", postShellHook("codex", bSession, repo.Worktree, "git checkout ."), "warn")
	eventually.True(t, 30*time.Second, "the loss is found", func() bool { return len(m.App.Losses()) == 1 })
	// A's next hook moves the roster: the page fetches its regions again.
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, ""), "warn")

	b.waitFor(t, "the loss on the page", `!tid('losses').hidden && tid('loss') !== null`)
	l := m.App.Losses()[0]
	for expr, want := range map[string]string{
		`txt(tid('loss-count'))`:                                         "1",
		`tid('loss').dataset.snapshot`:                                   l.Snapshot,
		`txt(tid('loss-restore'))`:                                       "hall restore " + l.Snapshot + " src/checkout/cart.go",
		`String(txt(tid('loss-text')).includes('src/checkout/cart.go'))`: "true",
		`String(txt(tid('loss-text')).includes('"git checkout ."'))`:     "true",
		`String(txt(tid('loss-recoverable')).startsWith('recoverable'))`: "true",
		`window.__same`: "this page",
	} {
		if got := eval[string](t, b, expr); got != want {
			t.Errorf("%s: got %q, want %q", expr, got, want)
		}
	}
}

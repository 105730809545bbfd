package main

// The overlap picture in chromium (issue #20): two agents in two real git
// worktrees of one repository, through the real Hall and its git scanner;
// the page shows where their work converges, live.

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
)

// TestBrowserOverlapPicture: A in the main worktree and B in a linked one
// change src/checkout/cart.go the same way: the picture appears live, the
// file an overlap with each worktree's evidence, and the strip counts one
// overlap and no conflict. B changes it differently: the file becomes a
// conflict, and the strip counts it. B leaves: the picture goes, and so do
// the counts. No reload in between.
func TestBrowserOverlapPicture(t *testing.T) {
	m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond})
	repo := hooktest.GitRepo(t)
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live", `tid('status').dataset.state === 'live'`)
	if !eval[bool](t, b, `tid('overlaps').hidden && !tid('conflict-warning') && !tid('overlap-warning')`) {
		t.Fatal("the picture or its counts show with no overlap")
	}
	eval[string](t, b, `window.__same = 'this page'`)

	cartA := filepath.Join(repo.Main, "src", "checkout", "cart.go")
	cartB := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
	gittest.WriteFile(t, cartA, "package checkout\n\n// the total\n")
	gittest.WriteFile(t, cartB, "package checkout\n\n// the total\n")
	beat := func(agent, worktree, file string) contract.BeatResponse {
		return beatHall(t, m.URL(), contract.BeatRequest{AgentID: agent, Brain: repo.Main, Worktree: worktree, Theme: "cart", Tool: "Edit", Touched: []string{file}})
	}
	beat("agent-a", repo.Main, cartA)
	bResp := beat("agent-b", repo.Worktree, cartB)

	cell := func(wt string) string {
		return `(() => { const i = Array.from(document.querySelectorAll('[data-testid="picture-worktree"]')).findIndex(h => h.dataset.worktree === ` + jsString(wt) + `);
			const r = tid('picture-row'); return i < 0 || !r ? '' : r.querySelectorAll('[data-testid="picture-cell"]')[i].dataset.evidence; })()`
	}
	b.waitFor(t, "the overlap's picture", `!tid('overlaps').hidden && tid('picture-row') && tid('picture-row').dataset.path === 'src/checkout/cart.go' && tid('picture-row').dataset.verdict === 'overlap'`)
	for expr, want := range map[string]string{
		`String(document.querySelectorAll('[data-testid="picture-row"]').length)`:      "1",
		`String(document.querySelectorAll('[data-testid="picture-worktree"]').length)`: "2",
		`txt(tid('overlap-warning'))`:        "1 overlap",
		`String(!tid('conflict-warning'))`:   "true",
		`tid('overlap-brain').dataset.brain`: repo.Main,
		`document.querySelector('[data-testid="picture-worktree"][data-worktree="` + repo.Worktree + `"] .wt-agents').textContent`: "agent-b",
		`document.querySelector('[data-testid="picture-worktree"][data-worktree="` + repo.Worktree + `"]').title.split('\n')[0]`:   repo.Worktree,
	} {
		if got := eval[string](t, b, expr); got != want {
			t.Errorf("%s: got %q, want %q", expr, got, want)
		}
	}
	// Each side's evidence: its hooks saw the file change (observed) and git
	// lists it, once the scanner has answered.
	b.waitFor(t, "both sides' evidence, observed and git", cell(repo.Main)+` === 'observed git' && `+cell(repo.Worktree)+` === 'observed git'`)
	if got := eval[string](t, b, `txt(document.querySelector('[data-testid="picture-worktree"][data-worktree="`+repo.Worktree+`"] .wt-branch'))`); got != "wt2" {
		t.Errorf("B's branch: %q, want wt2", got)
	}
	if got := eval[string](t, b, `tid('picture-cell').querySelector('.visually-hidden').textContent`); got != "changed (observed, git)" {
		t.Errorf("a cell for screen readers: %q", got)
	}

	// B changes the file its own way: a conflict, on the same page.
	gittest.WriteFile(t, cartB, "package checkout\n\n// B's total\n")
	beat("agent-b", repo.Worktree, cartB)
	b.waitFor(t, "the conflict on the picture and the strip", `tid('picture-row').dataset.verdict === 'conflict' && txt(tid('conflict-warning')) === '⚠ 1 conflict' && txt(tid('overlap-warning')) === '1 overlap'`)
	if got := eval[string](t, b, `txt(tid('picture-verdict'))`); got != "⚠ conflict" {
		t.Errorf("the row's mark: %q", got)
	}
	if got := eval[string](t, b, `String(document.querySelectorAll('[data-testid="picture-cell"].conflict').length)`); got != "2" {
		t.Errorf("%s cells marked conflict, want both sides'", got)
	}
	if !eval[bool](t, b, `document.title.includes('⚠ 1 conflict')`) {
		t.Errorf("the title %q does not count the conflict", eval[string](t, b, `document.title`))
	}

	// On a phone the picture stays a grid with its headers (the roster
	// turns into cards), scrolling in its own box, not the page.
	b.do(t, "phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	if got := eval[string](t, b, `getComputedStyle(document.querySelector('table.picture')).display + ' ' + getComputedStyle(document.querySelector('table.picture thead')).position + ' ' + (tid('picture-worktree').getBoundingClientRect().height > 0)`); got != "table static true" {
		t.Errorf("on a phone the picture is %q, want a table with its headers shown", got)
	}
	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("on a phone (390 px) the page scrolls sideways: %d px wide", w)
	}
	b.do(t, "back to 1280 px", chromedp.EmulateViewport(1280, 900))

	// B leaves: the overlap closes, the picture and the counts go.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, m.URL()+"/api/presences/"+bResp.PresenceID, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	b.waitFor(t, "the picture to go", `tid('overlaps').hidden && !tid('picture-row') && !tid('conflict-warning') && !tid('overlap-warning')`)
	if got := eval[string](t, b, `window.__same || 'reloaded'`); got != "this page" {
		t.Errorf("the page was %s: it must update in place", got)
	}
}

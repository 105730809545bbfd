package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hall-dev/hall/internal/contract"
)

// TestBrowserRosterFitsALaptop (issue 42 item 9): at 1280×800, with the
// demo's cast and one agent of long names and paths, the roster does not
// scroll sideways, every header (Mutation, the last, included) is on
// screen, and the paths in the Changed and Working set cells (and the
// collision card's) wrap only after a slash, never inside a name.
func TestBrowserRosterFitsALaptop(t *testing.T) {
	m := MustOpenHall(t, Config{})
	ctx := context.Background()
	d := NewDemo(m.App, DemoPeriod, nil)
	for step := range 6 { // every agent has arrived; codex-2 is in claude-7's worktree
		d.step(ctx, step)
	}
	long := demoPath("shop-worktree-for-the-payment-provider-migration")
	ws := []string{"internal/payments/providers/stripe/", "internal/payments/reconciliation/ledger_reconciler.go"}
	heard := false
	if _, err := m.App.Beat(ctx, contract.BeatRequest{
		AgentID: "claude-opus-payments-migration-executor", Brain: demoPath("shop"), Kind: "executor",
		Theme: "move the payment providers behind one interface", Worktree: long, WorkingSet: &ws,
		Tool: "Edit", Listening: &heard, Touched: []string{
			long + "/internal/payments/providers/stripe/webhook_signature_verification.go",
			long + "/internal/payments/reconciliation/ledger_reconciler_test.go",
		},
	}); err != nil {
		t.Fatal(err)
	}

	b := openBrowser(t)
	b.do(t, "1280×800", chromedp.EmulateViewport(1280, 800))
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the roster and the collision", `document.querySelectorAll('[data-testid="roster-row"]').length >= 8 && tid('collision-paths') !== null`)

	if got := eval[string](t, b, `(() => { const w = tid('roster').closest('.table-wrap'); return w.scrollWidth + ' ' + w.clientWidth; })()`); !fits(got) {
		t.Errorf("the roster scrolls sideways at 1280 px: scrollWidth clientWidth = %s", got)
	}
	if off := eval[[]string](t, b, `[...tid('roster').querySelectorAll('thead th')].filter(th => { const r = th.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth || r.width === 0; }).map(th => txt(th))`); len(off) > 0 {
		t.Errorf("header cells outside the 1280 px viewport: %q", off)
	}
	// Each path cell's lines: a line may end only after a slash (or at the
	// path's end). Lines are told apart by the top of each character's box.
	bad := eval[[]string](t, b, `(() => {
		const bad = [];
		for (const li of document.querySelectorAll('[data-testid="roster-touched"] li, [data-testid="roster-working-set"] li, [data-testid="collision-place"], [data-testid="collision-brain"], [data-testid="collision-paths"] li')) {
			const chars = [];
			const walk = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
			for (let n = walk.nextNode(); n; n = walk.nextNode()) {
				for (let i = 0; i < n.data.length; i++) {
					const r = document.createRange();
					r.setStart(n, i); r.setEnd(n, i + 1);
					const rect = r.getClientRects()[0];
					if (rect) chars.push({c: n.data[i], top: Math.round(rect.top)});
				}
			}
			for (let i = 1; i < chars.length; i++) {
				if (chars[i].top > chars[i-1].top && chars[i-1].c !== '/') {
					bad.push(txt(li) + ' breaks after ' + JSON.stringify(chars.slice(0, i).map(x => x.c).join('')));
				}
			}
		}
		return bad;
	})()`)
	for _, s := range bad {
		t.Errorf("a path breaks inside a name: %s", s)
	}
	if n := eval[int](t, b, `[...document.querySelectorAll('[data-testid="roster-touched"] li')].filter(li => li.getClientRects().length && li.getBoundingClientRect().height > 20).length`); n == 0 {
		t.Error("no Changed path wrapped at 1280 px: the break check had nothing to check")
	}
}

// fits reads "scrollWidth clientWidth" and says whether nothing overflows.
func fits(s string) bool {
	var sw, cw int
	if _, err := fmt.Sscan(s, &sw, &cw); err != nil {
		return false
	}
	return sw <= cw
}

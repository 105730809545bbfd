package main

// Browser tests of the page read by a lead with many agents (issue #22,
// item 6): one collision card per place with every agent in it and the
// files each changed, colliders first in the drill, the roster and the
// whole roster, a session and its subagent one partner, the Where column
// on one line with the path's tail, and Recent cutting no line.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// teamBrain is the brain of the team tests; its worktrees' paths are long
// on purpose, wider than the Where column.
const teamBrain = "/srv/browser-test/a-rather-long-folder/of-the-team/shop"

// team is the colliders of the team tests: three agents in one worktree,
// and a session and its subagent that share another with a rival.
type team struct {
	wt3, wtS             string
	tri                  []presence.Record
	sess, sub, rival     presence.Record
	colliders, fillerIDs []string
}

// writeTeam writes the colliders and n-6 agents that only read, each in
// its own worktree, all beating later than the colliders: by the contract's
// order (newest beat first) the colliders would come last.
func writeTeam(t *testing.T, root string, n int) team {
	t.Helper()
	now := nowMs()
	tm := team{wt3: teamBrain + "-worktrees/three-agents-in-one/wt", wtS: teamBrain + "-worktrees/a-session/wt"}
	rec := func(agent, wt string, at int64, opts ...presencetest.Option) presence.Record {
		r := presencetest.Rec(agent, teamBrain, append([]presencetest.Option{presencetest.Worktree(wt), presencetest.At(at), presencetest.TTL(600_000), presencetest.Theme(agent + "'s theme")}, opts...)...)
		r.Kind = "executor"
		return r
	}
	touch := func(r *presence.Record, at int64, files ...string) {
		for i, f := range files {
			r.Touched = append(r.Touched, presence.Touch{Path: f, AtMs: at - int64(i)*1000})
		}
	}
	old := now - 120_000
	for i := range 3 {
		r := rec(fmt.Sprintf("tri-%d", i+1), tm.wt3, old)
		touch(&r, old, fmt.Sprintf("%s/src/part-%d.go", tm.wt3, i+1), tm.wt3+"/go.mod")
		tm.tri = append(tm.tri, r)
	}
	tm.sess = rec("lead-session", tm.wtS, old)
	touch(&tm.sess, old, tm.wtS+"/docs/plan.md")
	tm.sub = rec("lead-subagent", tm.wtS, old, presencetest.Parent(tm.sess.PresenceID))
	touch(&tm.sub, old, tm.wtS+"/internal/cart/cart.go")
	tm.rival = rec("rival", tm.wtS, old)
	touch(&tm.rival, old, tm.wtS+"/internal/cart/cart_test.go")
	for _, r := range append(slices.Clone(tm.tri), tm.sess, tm.sub, tm.rival) {
		dirstoretest.Upsert(t, root, r)
		tm.colliders = append(tm.colliders, r.PresenceID)
	}
	for i := range n - len(tm.colliders) {
		r := rec(fmt.Sprintf("reader-%04d", i), fmt.Sprintf("%s-worktrees/readers/one-for-each/reader-%04d", teamBrain, i), now, presencetest.NoMutation())
		dirstoretest.Upsert(t, root, r)
		tm.fillerIDs = append(tm.fillerIDs, r.PresenceID)
	}
	return tm
}

// cardsJS reads the collision cards: per card, its place, its count of
// collisions and its teams, each as "agent: file, file" per member, a
// subagent marked "↳".
const cardsJS = `Array.from(document.querySelectorAll('[data-testid="collision"]'), c => ({
	place: txt(tid('collision-place', c)),
	pairs: c.dataset.pairs.split(' ').length,
	teams: Array.from(c.querySelectorAll('[data-testid="collision-team"]'), t =>
		Array.from(t.querySelectorAll('[data-testid="collision-member"]'), m =>
			(m.classList.contains('sub') ? '↳' : '') + txt(tid('member-agent', m)) + ': ' +
			Array.from(m.querySelectorAll('[data-testid="member-file"] .path-tail'), f => f.title.split('/').pop()).join(', ')).join(' | ')).sort(),
}))`

type cardSeen struct {
	Place string   `json:"place"`
	Pairs int      `json:"pairs"`
	Teams []string `json:"teams"`
}

// TestBrowserTeamPage, at 20 and at 1,000 agents: the page as a lead with
// a team reads it, first paint and live.
func TestBrowserTeamPage(t *testing.T) {
	for _, n := range []int{20, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { testTeamPage(t, n) })
	}
}

func testTeamPage(t *testing.T, n int) {
	m := MustOpenHall(t, Config{})
	root := m.Config.RegistryRoot
	tm := writeTeam(t, root, n)
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream live, every agent and both places", fmt.Sprintf(
		`tid('status').dataset.state === 'live' && txt(tid('roster-count')) === '%d' && document.querySelectorAll('[data-testid="collision"]').length === 2`, n))

	// One card per place: every agent in it, the files each changed; the
	// session and its subagent one team, the subagent under it.
	wantCards := []cardSeen{
		{tm.wt3, 3, []string{"tri-1: part-1.go, go.mod", "tri-2: part-2.go, go.mod", "tri-3: part-3.go, go.mod"}},
		{tm.wtS, 2, []string{"lead-session: plan.md | ↳lead-subagent: cart.go", "rival: cart_test.go"}},
	}
	cards := eval[[]cardSeen](t, b, cardsJS)
	slices.SortFunc(cards, func(x, y cardSeen) int { return strings.Compare(x.Place, y.Place) })
	slices.SortFunc(wantCards, func(x, y cardSeen) int { return strings.Compare(x.Place, y.Place) })
	if fmt.Sprint(cards) != fmt.Sprint(wantCards) {
		t.Errorf("cards:\n got %v\nwant %v", cards, wantCards)
	}
	banner := eval[string](t, b, `txt(tid('banner-text'))`)
	if banner != "tri-1, tri-2 and tri-3 are all mutating in "+tm.wt3+" (and 1 more place)" &&
		banner != "lead-session and rival are both mutating in "+tm.wtS+" (and 1 more place)" {
		t.Errorf("banner: got %q, want a place's every agent and the other place counted", banner)
	}
	if got := eval[string](t, b, `txt(tid('collision-count'))`); got != "2" {
		t.Errorf("collision count: got %q, want 2 (places)", got)
	}
	if got := eval[string](t, b, `Array.from(document.querySelectorAll('[data-testid="member-file"] time'), e => e.textContent).filter(s => !/^\d+m ago$/.test(s)).join(', ')`); got != "" {
		t.Errorf("file ages not in minutes ago: %q", got)
	}

	// Colliders first: in the drill, the first page of the roster, and the
	// whole roster.
	colliders := strings.Join(slices.Sorted(slices.Values(tm.colliders)), " ")
	firstRows := func(sel string, k int) string {
		ids := eval[[]string](t, b, `Array.from(document.querySelectorAll('`+sel+`'), r => r.dataset.presenceId).slice(0, `+fmt.Sprint(k)+`)`)
		slices.Sort(ids)
		return strings.Join(ids, " ")
	}
	if got := firstRows(`[data-testid="drill-row"]`, 6); got != colliders {
		t.Errorf("drill's first rows: got %s, want the colliders %s", got, colliders)
	}
	if got := firstRows(`[data-testid="roster-row"]`, 6); got != colliders {
		t.Errorf("roster's first rows: got %s, want the colliders %s", got, colliders)
	}
	// The subagent right under its session.
	if got := eval[string](t, b, `document.querySelector('[data-testid="roster-row"][data-parent-presence-id="`+tm.sess.PresenceID+`"]').previousElementSibling.dataset.presenceId`); got != tm.sess.PresenceID {
		t.Errorf("row above the subagent: got %s, want its session %s", got, tm.sess.PresenceID)
	}
	checkWhereOneLine(t, b)
	checkRecentWhole(t, b)

	// Live: a fourth agent in the worktree of three joins the same card,
	// and is announced.
	four := presencetest.Rec("tri-4", teamBrain, presencetest.Worktree(tm.wt3), presencetest.At(nowMs()), presencetest.TTL(600_000))
	dirstoretest.Upsert(t, root, four)
	b.waitFor(t, "the fourth agent on the card of three", `Array.from(document.querySelectorAll('[data-testid="collision"]')).some(c => c.querySelectorAll('[data-testid="collision-team"]').length === 4)`)
	if got := eval[string](t, b, `tid('announcer').textContent`); !strings.HasPrefix(got, "New collision: ") || !strings.Contains(got, "tri-4") || !strings.Contains(got, tm.wt3) {
		t.Errorf("announcement of the fourth: got %q", got)
	}
	if got := eval[int](t, b, `document.querySelectorAll('[data-testid="collision"]').length`); got != 2 {
		t.Errorf("cards after the fourth joined: got %d, want 2", got)
	}

	// The whole roster: colliders (now seven) still first.
	b.do(t, "open the whole roster", chromedp.Navigate(m.URL()+"/?roster=all"))
	b.waitFor(t, "every row", fmt.Sprintf(`tid('status').dataset.state === 'live' && document.querySelectorAll('[data-testid="roster-row"]').length === %d`, n+1))
	want := strings.Join(slices.Sorted(slices.Values(append(slices.Clone(tm.colliders), four.PresenceID))), " ")
	if got := firstRows(`[data-testid="roster-row"]`, 7); got != want {
		t.Errorf("the whole roster's first rows: got %s, want the colliders %s", got, want)
	}
	if got := eval[string](t, b, `Array.from(document.querySelectorAll('[data-testid="roster-row"]')).slice(7).filter(r => r.classList.contains('colliding')).map(r => r.dataset.presenceId).join(' ')`); got != "" {
		t.Errorf("colliding rows below the colliders: %s", got)
	}
	checkWhereOneLine(t, b)
}

// checkWhereOneLine: every Where cell of the roster is one line, its title
// the whole path, and the path's last character inside the box (the tail
// kept); the test's long paths do not fit, so it is the head that goes.
func checkWhereOneLine(t *testing.T, b *browser) {
	t.Helper()
	bad := eval[[]string](t, b, `(() => {
		const out = [];
		let cut = 0;
		for (const r of document.querySelectorAll('[data-testid="roster-row"]')) {
			const td = tid('roster-where', r), box = td.querySelector('.path-tail'), text = box.firstElementChild.firstChild;
			const id = r.dataset.presenceId;
			if (text.data !== td.title) { out.push(id + ': shows ' + text.data + ', title ' + td.title); }
			const size = parseFloat(getComputedStyle(box).fontSize);
			if (box.getBoundingClientRect().height >= 2 * size) { out.push(id + ': ' + box.getBoundingClientRect().height + 'px high at ' + size + 'px'); }
			const range = document.createRange();
			range.setStart(text, text.length - 1);
			range.setEnd(text, text.length);
			const last = range.getBoundingClientRect(), rb = box.getBoundingClientRect();
			if (last.right > rb.right + 1 || last.left < rb.left - 1) { out.push(id + ': the last character outside the box'); }
			if (box.scrollWidth > box.clientWidth) { cut++; }
		}
		if (cut === 0) { out.push('no path was too long for the column: the test shows nothing'); }
		return out;
	})()`)
	if len(bad) > 0 {
		t.Errorf("Where cells (%d wrong): %s", len(bad), strings.Join(bad[:min(len(bad), 5)], "; "))
	}
}

// checkRecentWhole: Recent shows its newest lines whole, nothing cut by
// the box, and the earlier ones whole too once opened.
func checkRecentWhole(t *testing.T, b *browser) {
	t.Helper()
	clipped := `Array.from(document.querySelectorAll('[data-testid="recent-item"]')).filter(e => e.checkVisibility()).filter(e => {
		const box = tid('recent').getBoundingClientRect(), r = e.getBoundingClientRect();
		return r.bottom > box.bottom + 0.5 || r.top < box.top - 0.5;
	}).length + Array.from(document.querySelectorAll('.recent-list')).filter(l => l.scrollHeight > l.clientHeight + 1).length`
	if got := eval[int](t, b, clipped); got != 0 {
		t.Errorf("Recent: %d lines or lists cut", got)
	}
	if got := eval[int](t, b, `Array.from(document.querySelectorAll('[data-testid="recent-item"]')).filter(e => e.checkVisibility()).length`); got == 0 {
		t.Fatal("Recent shows no line: the test shows nothing")
	}
	if !eval[bool](t, b, `!!tid('recent-earlier')`) {
		t.Fatal("no earlier events to open: the test needs more events than Recent shows at once")
	}
	eval[bool](t, b, `tid('recent-earlier').open = true`)
	if got := eval[int](t, b, `Array.from(document.querySelectorAll('[data-testid="recent-item"]')).filter(e => !e.checkVisibility()).length`); got != 0 {
		t.Errorf("Recent opened: %d lines still hidden", got)
	}
	if got := eval[int](t, b, clipped); got != 0 {
		t.Errorf("Recent opened: %d lines or lists cut", got)
	}
	eval[bool](t, b, `!(tid('recent-earlier').open = false)`)
}

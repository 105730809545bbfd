package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/contract/contracttest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// tokens is the budget's measure: characters / 4, rounded up.
func tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// worstRecord fills every field to its limit with wide characters, the way
// an agent trying to blow the budget would.
func worstRecord(i int, brain string) presence.Record {
	wide := func(n int) string { return strings.Repeat("𝔚", n/4) } // 4 bytes a rune
	path := func(n int) string {
		var b strings.Builder
		for b.Len() < n-16 {
			b.WriteString("/segment-" + wide(8))
		}
		return b.String()
	}
	agent := fmt.Sprintf("%03d-%s", i, strings.Repeat("a", presence.MaxIDLen-4))
	r := presence.Record{
		PresenceID:  presence.ID(agent, brain),
		AgentID:     agent,
		Brain:       brain,
		CallerRoot:  path(presence.MaxPathLen),
		Worktree:    path(presence.MaxPathLen),
		Kind:        strings.Repeat("k", presence.MaxIDLen),
		Theme:       strings.Repeat("t", presence.MaxThemeLen),
		TaskRef:     strings.Repeat("r", presence.MaxIDLen),
		Mutation:    presence.Mutation{ObservedAtMs: 1, DeclaredIntent: strings.Repeat("i", presence.MaxThemeLen)},
		FirstSeenMs: 0,
		LastBeatMs:  int64(1_000_000 + i),
	}
	for j := 0; j < presence.MaxWorkingSetLen; j++ {
		r.WorkingSet = append(r.WorkingSet, path(presence.MaxPathLen))
	}
	for j := 0; j < presence.MaxTouched; j++ {
		r.Touched = append(r.Touched, presence.Touch{Path: "/" + wide(presence.MaxPathLen/4), AtMs: 1})
	}
	r.TouchedOmitted = 1 << 40
	return r
}

// TestCockpitBudget fixes the budget mechanically: the root line and the
// drill each stay within CockpitBudgetTokens (characters/4) in the worst
// case — longest allowed fields, wide characters, more than six presences,
// every pair colliding — for both scopes.
func TestCockpitBudget(t *testing.T) {
	for _, n := range []int{1, 6, 7, 40} {
		for _, brain := range []string{"", "/" + strings.Repeat("b", presence.MaxPathLen-1)} {
			b := brain
			if b == "" {
				b = "/" + strings.Repeat("c", presence.MaxPathLen-1)
			}
			var live []presence.Record
			for i := 0; i < n; i++ {
				r := worstRecord(i, b)
				r.Worktree = "/shared/" + strings.Repeat("w", presence.MaxPathLen-9) // everyone in one worktree
				live = append(live, r)
			}
			presence.SortRoster(live)
			snap := presence.Snapshot{AtMs: 365 * 24 * 3600 * 1000, Live: live, Collisions: presencetest.CollisionsIn("", live)}
			c := CockpitFor(snap, brain)
			drill := strings.Join(ReportedLines(append(append([]string{}, c.Named...), c.Drill...)), "\n")
			if got := tokens(c.Root); got > CockpitBudgetTokens {
				t.Errorf("n=%d scoped=%v: root line is %d tokens, budget %d", n, brain != "", got, CockpitBudgetTokens)
			}
			if got := tokens(drill); got > CockpitBudgetTokens {
				t.Errorf("n=%d scoped=%v: drill is %d tokens, budget %d", n, brain != "", got, CockpitBudgetTokens)
			}
			if want := min(n, DrillCap); len(c.Drill) != want || c.More != max(0, n-DrillCap) {
				t.Errorf("n=%d: drill has %d rows and %d more, want %d and %d", n, len(c.Drill), c.More, want, max(0, n-DrillCap))
			}
			if strings.ContainsAny(c.String(), "\r\t") || strings.Count(c.String(), "\n") != 1+len(c.Named)+len(c.Drill)+2+boolInt(c.More > 0) {
				t.Errorf("n=%d: the cockpit is not one line per row:\n%s", n, c)
			}
			t.Logf("n=%d scoped=%v: root %d tokens, drill %d tokens", n, brain != "", tokens(c.Root), tokens(drill))
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestClipKeepsLinesOneLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines", "two lines"},
		{"tab\there", "tab here"},
		{"line\u2028separator\u2029paragraph", "line sepa…"},
		{"a\u2028b", "a b"},
		{strings.Repeat("é", 10), strings.Repeat("é", 10)},
		{strings.Repeat("é", 11), strings.Repeat("é", 9) + "…"},
	}
	for _, tc := range cases {
		if got := clip(tc.in, 10); got != tc.want {
			t.Errorf("clip(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := clipPath("/home/ana/projects/shop/worktrees/wt2/src", 24); got != "…/shop/worktrees/wt2/src" {
		t.Errorf("clipPath: got %q", got)
	}
}

func TestRootLine(t *testing.T) {
	cases := []struct {
		live, coll int
		brain      string
		want       string
	}{
		{0, 0, "", "0 presences · all brains"},
		{1, 0, "/b", "1 presence · this brain"},
		{3, 1, "", "3 presences · all brains ⚠ 1 collision"},
		{4, 2, "/b", "4 presences · this brain ⚠ 2 collisions"},
	}
	for _, tc := range cases {
		if got := RootLine(tc.live, tc.coll, tc.brain); got != tc.want {
			t.Errorf("RootLine(%d,%d,%q): got %q, want %q", tc.live, tc.coll, tc.brain, got, tc.want)
		}
	}
}

// TestAge: the one age format, from the table the page's script is
// tested against too (cmd/hall's TestBrowserAgeFormat).
func TestAge(t *testing.T) {
	raw, err := os.ReadFile("testdata/age.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Ms   int64  `json:"ms"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("%d cases in testdata/age.json", len(cases))
	}
	for _, c := range cases {
		if got := AgeMs(c.Ms); got != c.Text {
			t.Errorf("AgeMs(%d): got %q, want %q", c.Ms, got, c.Text)
		}
		if got := Age(time.Duration(c.Ms) * time.Millisecond); got != c.Text {
			t.Errorf("Age(%dms): got %q, want %q", c.Ms, got, c.Text)
		}
	}
}

func TestNorthLinesOnlyForSides(t *testing.T) {
	a := presence.Record{PresenceID: "prs_aaaaaaaaaaaa", AgentID: "claude-7", Brain: "/b", Worktree: "/b/wt", Mutation: presence.Mutation{ObservedAtMs: presencetest.T0}}
	b := presence.Record{PresenceID: "prs_bbbbbbbbbbbb", AgentID: "codex-2", Brain: "/b", Worktree: "/b/wt", WorkingSet: []string{"src"}, Mutation: presence.Mutation{DeclaredIntent: "mutate"}}
	a.WorkingSet = []string{"src/auth"}
	cs := presencetest.CollisionsIn("", []presence.Record{a, b})
	if got := NorthLines(a.PresenceID, cs, 1); len(got) != 1 || got[0] != "collision: codex-2 (prs_bbbbbbbbbbbb) also mutating at /b/wt [same_worktree, working_set_overlap] paths /b/wt/src/auth" {
		t.Errorf("a's north: got %q", got)
	}
	if got := NorthLines(b.PresenceID, cs, 1); len(got) != 1 || !strings.Contains(got[0], "claude-7") {
		t.Errorf("b's north: got %q", got)
	}
	if got := NorthLines("prs_cccccccccccc", cs, 0); got == nil || len(got) != 0 {
		t.Errorf("a bystander's north: got %#v, want []", got)
	}
}

// North lists at most presence.NorthCap partners, then one line counting
// the rest.
func TestNorthLinesBound(t *testing.T) {
	var live []presence.Record
	for i := 0; i < 40; i++ {
		live = append(live, presence.Record{PresenceID: presence.ID(fmt.Sprintf("agent-%02d", i), "/b"), AgentID: fmt.Sprintf("agent-%02d", i),
			Brain: "/b", Worktree: "/b/wt", Mutation: presence.Mutation{ObservedAtMs: 1}})
	}
	me := live[0].PresenceID
	tests := []struct {
		name      string
		listed    int // collisions given
		total     int
		wantLines int
		wantMore  string
	}{
		{"none", 0, 0, 0, ""},
		{"fewer than the cap", 3, 3, 3, ""},
		{"the cap exactly", presence.NorthCap, presence.NorthCap, presence.NorthCap, ""},
		{"more than the cap, listed by the caller", 39, 39, presence.NorthCap + 1, "collision: +29 more (39 in all)"},
		{"the cap listed, more counted", presence.NorthCap, 39, presence.NorthCap + 1, "collision: +29 more (39 in all)"},
		{"none listed, some counted", 0, 5, 1, "collision: +5 more (5 in all)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, _ := presence.CollisionsWithin("", live, time.UnixMilli(1), presence.CollisionBound{Focus: me, Max: max(tt.listed, 1)})
			cs = cs[:tt.listed]
			got := NorthLines(me, cs, tt.total)
			if len(got) != tt.wantLines {
				t.Fatalf("got %d lines %q, want %d", len(got), got, tt.wantLines)
			}
			if tt.wantMore != "" && got[len(got)-1] != tt.wantMore {
				t.Errorf("last line: got %q, want %q", got[len(got)-1], tt.wantMore)
			}
			for _, l := range got[:min(len(got), presence.NorthCap)] {
				if tt.listed > 0 && !strings.Contains(l, "also mutating at /b/wt") {
					t.Errorf("partner line %q names no place", l)
				}
			}
		})
	}
}

// TestNorthLinesOneLinePerTeam: a session and its subagent colliding with
// the same presence are one partner to it: one line, which counts the
// rest of the team, and the "+N more" line does not count them again.
func TestNorthLinesOneLinePerTeam(t *testing.T) {
	me := presence.Record{PresenceID: "prs_aaaaaaaaaaaa", AgentID: "codex-2", Brain: "/b", Worktree: "/b/wt", Mutation: presence.Mutation{ObservedAtMs: presencetest.T0}}
	lead := presence.Record{PresenceID: "prs_bbbbbbbbbbbb", AgentID: "claude-7", Brain: "/b", Worktree: "/b/wt", Mutation: presence.Mutation{ObservedAtMs: presencetest.T0}}
	sub := presence.Record{PresenceID: "prs_cccccccccccc", AgentID: "claude-7/explore", Brain: "/b", Worktree: "/b/wt", ParentPresenceID: lead.PresenceID, Mutation: presence.Mutation{ObservedAtMs: presencetest.T0}}
	cs := presencetest.CollisionsIn("", []presence.Record{me, lead, sub})
	if len(cs) != 2 {
		t.Fatalf("the domain lists %d collisions, want 2 (me~lead, me~sub; the team itself never collides)", len(cs))
	}
	got := NorthLines(me.PresenceID, cs, len(cs))
	if len(got) != 1 || !strings.Contains(got[0], "(and 1 more of its team") {
		t.Errorf("got %q, want one line for the team that counts its subagent", got)
	}
	// The lead's own north names me once; its subagent is not a partner.
	if got := NorthLines(lead.PresenceID, cs, 1); len(got) != 1 || strings.Contains(got[0], "more of its team") {
		t.Errorf("lead's north: %q", got)
	}
}

// TestCockpitReportsOthersText: ids, themes and places carrying an order
// reach the cockpit's reader only inside the reported block (issue 40
// item 12: the root line named the first collision's agents, the rows
// their themes, outside any block).
func TestCockpitReportsOthersText(t *testing.T) {
	evil := contracttest.Injection
	var live []presence.Record
	for i := range 2 {
		r := worstRecord(i, "/b")
		r.AgentID, r.Theme, r.Worktree = fmt.Sprintf("codex-%d-%s", i, evil), evil, "/b/"+evil
		live = append(live, r)
	}
	presence.SortRoster(live)
	snap := presence.Snapshot{AtMs: 1000, Live: live, Collisions: presencetest.CollisionsIn("", live)}
	contracttest.OnlyReported(t, "cockpit", CockpitFor(snap, "/b").String(), contracttest.InjectionMark)
}

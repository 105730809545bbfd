package presence_test

// The tests of m1nd's presence module (maxkle1nz/m1nd,
// m1nd-mcp/src/presence.rs, mod tests), restated against the Hall: what
// m1nd asserts of its own records, the Hall holds of the same records,
// written to the folder byte for byte as m1nd's write_presence writes
// them (presencetest.WriteM1nd). The two wire-shape tests
// (wire_entry_matches_the_ui_contract_shape,
// wire_collision_and_response_match_the_ui_contract) are the contract's,
// in internal/web; gc_reclaims_only_expired_sidecars is the reclaim's
// (reclaim_test.go).

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// m1ndTTL is m1nd's PRESENCE_TTL_MS.
const m1ndTTL = 120_000

// m1ndRec is m1nd's tests' rec(agent, brain, now): its stable id, first
// seen and beating now, queried once, no signal, m1nd's ttl.
func m1ndRec(agent, brain string, now int64) presencetest.M1ndRecord {
	return presencetest.M1ndRecord{Schema: presence.Schema, PresenceID: presence.ID(agent, brain), AgentID: agent, Brain: brain,
		FirstSeenMs: uint64(now), LastBeatMs: uint64(now), QueryCount: 1, TTLMs: m1ndTTL}
}

// decoded is the record as the Hall reads m1nd's bytes.
func decoded(t *testing.T, r presencetest.M1ndRecord) presence.Record {
	t.Helper()
	got, err := presence.DecodeRecord(r.Pretty())
	if err != nil {
		t.Fatalf("DecodeRecord(%s): %v", r.Pretty(), err)
	}
	return got
}

// m1ndCollisions is collisions_in over m1nd's records, as the Hall finds them.
func m1ndCollisions(t *testing.T, now int64, rs ...presencetest.M1ndRecord) []presence.Collision {
	t.Helper()
	live := make([]presence.Record, len(rs))
	for i, r := range rs {
		live[i] = decoded(t, r)
	}
	out, _ := presence.CollisionsWithin("", live, time.UnixMilli(now), presence.CollisionBound{})
	return out
}

// stable_id_is_deterministic_and_pair_scoped (TestIDAgainstRust holds the
// id to Rust's own hasher, byte for byte).
func TestM1ndStableIDIsDeterministicAndPairScoped(t *testing.T) {
	if first, again := presence.ID("exec-a", "/repo/x"), presence.ID(string([]byte("exec-a")), "/repo/"+"x"); first != again {
		t.Errorf("same (agent, brain): got %s and %s, want one id (the beat upserts one file)", first, again)
	}
	if presence.ID("exec-a", "/repo/x") == presence.ID("exec-a", "/repo/y") {
		t.Error("same agent, different brain: got one id, want two files")
	}
	if presence.ID("a", "b/x") == presence.ID("ab", "/x") {
		t.Error(`("a", "b/x") and ("ab", "/x"): got one id, want the separator to keep them apart`)
	}
	if id := presence.ID("a", "b"); !presence.ValidID(id) || id[:4] != "prs_" {
		t.Errorf("ID(a, b) = %q: want prs_ and 12 hex digits", id)
	}
}

// write_read_roundtrip_and_ttl_absence: a fresh record written by m1nd is
// on the roster; one past its ttl is absent, though its file lingers.
func TestM1ndWriteReadRoundtripAndTTLAbsence(t *testing.T) {
	store := dirstoretest.Open(t)
	clk := presencetest.NewClock(presencetest.T0)
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	r := m1ndRec("exec-1", "/brain/one", presencetest.T0)
	presencetest.WriteM1nd(t, filepath.Dir(store.Dir()), r)

	snap, err := svc.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := presencetest.IDs(snap.Live); !slices.Equal(got, []string{r.PresenceID}) {
		t.Fatalf("fresh: got %v live, want %s (a fresh presence is present at read)", got, r.PresenceID)
	}
	clk.Advance((m1ndTTL + 1) * time.Millisecond)
	if snap, _ := svc.Snapshot(t.Context()); len(snap.Live) != 0 {
		t.Errorf("past its ttl: got %v live, want none (an expired presence is absent at read)", presencetest.IDs(snap.Live))
	}
	if _, err := os.Stat(filepath.Join(store.Dir(), r.PresenceID+".json")); err != nil {
		t.Errorf("the file lingers until reclaimed: %v", err)
	}
}

// mutation_signal_two_honest_levels.
func TestM1ndMutationSignalTwoHonestLevels(t *testing.T) {
	now := presencetest.T0
	observed := m1ndRec("o", "/b", now)
	observed.ObservedAtMs = presencetest.Some(uint64(now))
	if r := decoded(t, observed); !r.MutatingAt(time.UnixMilli(now)) {
		t.Error("OBSERVED counts while fresh: got no signal")
	}
	if r := decoded(t, observed); r.MutatingAt(time.UnixMilli(now + m1ndTTL + 1)) {
		t.Error("OBSERVED lapses past the TTL: got a signal")
	}
	declared := m1ndRec("d", "/b", now)
	declared.DeclaredIntent = presencetest.Some("mutate")
	if r := decoded(t, declared); !r.MutatingAt(time.UnixMilli(now)) {
		t.Error("DECLARED mutate counts: got no signal")
	}
	reader := m1ndRec("r", "/b", now)
	reader.DeclaredIntent = presencetest.Some("read")
	if r := decoded(t, reader); r.MutatingAt(time.UnixMilli(now)) {
		t.Error("a declared reader carries no signal: got one")
	}
}

// collision_fires_on_shared_worktree_when_both_mutate: m1nd's worktree is
// a declared display string, and its equality is the same_worktree arm.
func TestM1ndCollisionFiresOnSharedWorktreeWhenBothMutate(t *testing.T) {
	now := presencetest.T0
	a, b := m1ndRec("hand-a", "/m1nd", now), m1ndRec("hand-b", "/m1nd", now)
	a.Worktree, b.Worktree = presencetest.Some("feat/x"), presencetest.Some("feat/x")
	a.DeclaredIntent, b.DeclaredIntent = presencetest.Some("mutate"), presencetest.Some("mutate")
	pairs := m1ndCollisions(t, now, a, b)
	if len(pairs) != 1 {
		t.Fatalf("two mutating hands in ONE worktree: got %d collisions, want 1", len(pairs))
	}
	if c := pairs[0]; !slices.Contains(c.Clauses, presence.ClauseWorktree) || c.Place != "feat/x" {
		t.Errorf("got clauses %v place %q, want same_worktree at feat/x", c.Clauses, c.Place)
	}
	// Both sessions derive it from their own point of view.
	live := []presence.Record{decoded(t, a), decoded(t, b)}
	for _, r := range live {
		if got := presence.CollisionsFor(r, live, time.UnixMilli(now)); len(got) != 1 {
			t.Errorf("%s's own view: got %d collisions, want 1", r.AgentID, len(got))
		}
	}
}

// collision_fires_on_working_set_overlap.
func TestM1ndCollisionFiresOnWorkingSetOverlap(t *testing.T) {
	now := presencetest.T0
	a, b := m1ndRec("a", "/m1nd", now), m1ndRec("b", "/m1nd", now)
	a.WorkingSet = []string{"src/server.rs", "src/a.rs"}
	b.WorkingSet = []string{"src/b.rs", "src/server.rs"}
	a.ObservedAtMs, b.ObservedAtMs = presencetest.Some(uint64(now)), presencetest.Some(uint64(now))
	pairs := m1ndCollisions(t, now, a, b)
	if len(pairs) != 1 {
		t.Fatalf("got %d collisions, want 1", len(pairs))
	}
	if c := pairs[0]; !slices.Equal(c.Clauses, []presence.Clause{presence.ClauseWorkingSet}) || !slices.Equal(c.Paths, []string{"/m1nd/src/server.rs"}) {
		t.Errorf("got clauses %v paths %v, want working_set_overlap on src/server.rs", c.Clauses, c.Paths)
	}
	// The same entries in two worktrees meet as written, as m1nd's do.
	a.CallerRoot, b.CallerRoot = presencetest.Some("/wt/a"), presencetest.Some("/wt/b")
	if pairs := m1ndCollisions(t, now, a, b); len(pairs) != 1 || !slices.Equal(pairs[0].Paths, []string{"src/server.rs"}) {
		t.Errorf("in two worktrees: got %+v, want one collision on src/server.rs as written", pairs)
	}
	// sb_ block ids are entries as any other.
	a.WorkingSet, b.WorkingSet = []string{"sb_9c2e"}, []string{"sb_9c2e"}
	if pairs := m1ndCollisions(t, now, a, b); len(pairs) != 1 {
		t.Errorf("one sb_ block: got %d collisions, want 1", len(pairs))
	}
}

// anti_test_isolated_worktrees_never_warn: three executors on one brain in
// distinct worktrees, all mutating, never warn.
func TestM1ndIsolatedWorktreesNeverWarn(t *testing.T) {
	now := presencetest.T0
	mk := func(agent, wt string) presencetest.M1ndRecord {
		r := m1ndRec(agent, "/m1nd", now)
		r.Worktree, r.CallerRoot, r.DeclaredIntent = presencetest.Some(wt), presencetest.Some("/Users/<name>/"+wt), presencetest.Some("mutate")
		return r
	}
	rs := []presencetest.M1ndRecord{mk("p1-server", "m1nd-p1srv"), mk("p1-ui", "m1nd-p1ui"), mk("g1", "m1nd-g1")}
	if got := m1ndCollisions(t, now, rs...); len(got) != 0 {
		t.Errorf("three mutating executors in isolated worktrees: got %d collisions, want none", len(got))
	}
	live := []presence.Record{decoded(t, rs[0]), decoded(t, rs[1]), decoded(t, rs[2])}
	if got := presence.CollisionsFor(live[0], live, time.UnixMilli(now)); len(got) != 0 {
		t.Errorf("p1-server's own view: got %d collisions, want none", len(got))
	}
}

// no_collision_when_only_one_mutates.
func TestM1ndNoCollisionWhenOnlyOneMutates(t *testing.T) {
	now := presencetest.T0
	a, b := m1ndRec("a", "/m1nd", now), m1ndRec("b", "/m1nd", now)
	a.CallerRoot, b.CallerRoot = presencetest.Some("/shared/wt"), presencetest.Some("/shared/wt")
	a.DeclaredIntent, b.DeclaredIntent = presencetest.Some("mutate"), presencetest.Some("read")
	if got := m1ndCollisions(t, now, a, b); len(got) != 0 {
		t.Errorf("co-located, only one hand mutating: got %d collisions, want none", len(got))
	}
}

// One agent_id never collides with itself, even under two records (m1nd's
// collisions_in skips a.agent_id == b.agent_id): here the same session
// as m1nd files it and as an older Hall filed it.
func TestM1ndOneAgentNeverCollidesWithItself(t *testing.T) {
	now := presencetest.T0
	a, b := m1ndRec("hand-a", "/m1nd", now), m1ndRec("hand-a", "/m1nd", now)
	b.PresenceID = presence.LegacyID("hand-a", "/m1nd")
	a.Worktree, b.Worktree = presencetest.Some("feat/x"), presencetest.Some("feat/x")
	a.DeclaredIntent, b.DeclaredIntent = presencetest.Some("mutate"), presencetest.Some("mutate")
	if got := m1ndCollisions(t, now, a, b); len(got) != 0 {
		t.Errorf("one agent under two ids: got %d collisions, want none", len(got))
	}
}

// roster_for_brain_scopes_to_one_brain.
func TestM1ndRosterForBrainScopesToOneBrain(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: presencetest.NewClock(presencetest.T0).Now})
	root := filepath.Dir(store.Dir())
	presencetest.WriteM1nd(t, root, m1ndRec("a", "/brain/one", presencetest.T0))
	presencetest.WriteM1nd(t, root, m1ndRec("b", "/brain/two", presencetest.T0))
	snap, err := svc.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	one := snap.ForBrain("/brain/one").Live
	if len(one) != 1 || one[0].Brain != "/brain/one" {
		t.Errorf("roster of /brain/one: got %v, want a alone", presencetest.IDs(one))
	}
}

// Whatever m1nd writes is a record the Hall shows, and reads without
// writing: a long theme, 100 working-set entries, a brain not in clean
// absolute form, unicode and escapes, every Option absent.
func TestM1ndRecordsShownAsWrittenAndLeftAlone(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: presencetest.NewClock(presencetest.T0).Now})
	root := filepath.Dir(store.Dir())
	long := m1ndRec("exec-long", "/srv/shop", presencetest.T0)
	long.Theme = presencetest.Some("reader slice 1 — «" + strings.Repeat("x", 400) + "»\t\"quoted\"\\")
	long.Kind, long.TaskRef = presencetest.Some(strings.Repeat("k", 200)), presencetest.Some("msn_"+strings.Repeat("0", 200))
	for i := range 100 {
		long.WorkingSet = append(long.WorkingSet, "src/f"+strconv.Itoa(i)+".rs")
	}
	odd := m1ndRec("exec-odd", "shop/./", presencetest.T0)
	odd.Worktree, odd.CallerRoot = presencetest.Some("feat/ü"), presencetest.Some("/Users/ana/shop-wt/")
	bare := m1ndRec("exec-bare", "/srv/shop", presencetest.T0)
	var written [][]byte
	for _, r := range []presencetest.M1ndRecord{long, odd, bare} {
		written = append(written, presencetest.WriteM1nd(t, root, r))
	}
	snap, err := svc.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Skipped != 0 || len(snap.Live) != 3 {
		t.Fatalf("got %v live, %d skipped; want all three, none skipped", presencetest.IDs(snap.Live), snap.Skipped)
	}
	if r, _ := snap.Find(long.PresenceID); r.Theme != *long.Theme || len(r.WorkingSet) != 100 || r.Kind != *long.Kind {
		t.Errorf("the long record: got theme %d bytes, %d entries, want it whole", len(r.Theme), len(r.WorkingSet))
	}
	if r, _ := snap.Find(odd.PresenceID); r.Brain != "shop/./" || r.Worktree != "feat/ü" || r.CallerRoot != "/Users/ana/shop-wt" {
		t.Errorf("the odd record: got brain %q worktree %q caller_root %q, want the brain and worktree as written, caller_root cleaned", r.Brain, r.Worktree, r.CallerRoot)
	}
	for i, r := range []presencetest.M1ndRecord{long, odd, bare} {
		got, err := os.ReadFile(filepath.Join(store.Dir(), r.PresenceID+".json"))
		if err != nil || string(got) != string(written[i]) {
			t.Errorf("%s after the read: the file changed (%v)", r.AgentID, err)
		}
	}
}

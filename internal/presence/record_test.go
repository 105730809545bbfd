package presence_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// refLegacyID is the id older Halls gave, computed without the package:
// prs_ and the first 12 hex digits of SHA-256(agent_id, a zero byte, brain).
func refLegacyID(agent, brain string) string {
	sum := sha256.Sum256([]byte(agent + "\x00" + brain))
	return "prs_" + hex.EncodeToString(sum[:])[:12]
}

func TestIDGolden(t *testing.T) {
	tests := []struct {
		agent, brain string
		want         string // pinned: m1nd's stable_presence_id, as testdata/m1nd_id.rs prints it
		legacy       string // pinned: printf 'agent\0brain' | sha256sum
	}{
		{"claude-7", "/home/ana/shop", "prs_c37946a07f49", "prs_cc073e458413"},
		{"codex-1", "/home/ana/shop", "prs_d5e99a0186e3", "prs_b13b19552d63"},
		{"claude-7", "/srv/other", "prs_290b3301b1ec", "prs_27e775004673"},
	}
	for _, tt := range tests {
		got := presence.ID(tt.agent, tt.brain)
		if got != tt.want {
			t.Errorf("ID(%q, %q): got %q, want %q", tt.agent, tt.brain, got, tt.want)
		}
		if !presence.ValidID(got) {
			t.Errorf("ValidID(ID(%q, %q) = %q): got false, want true", tt.agent, tt.brain, got)
		}
		if got := presence.LegacyID(tt.agent, tt.brain); got != tt.legacy {
			t.Errorf("LegacyID(%q, %q): got %q, want %q", tt.agent, tt.brain, got, tt.legacy)
		}
	}
	// The zero byte separates the two parts: moving a character across
	// the boundary must change the id.
	if a, b := presence.ID("ab", "/c"), presence.ID("a", "b/c"); a == b {
		t.Errorf("ID(ab, /c) and ID(a, b/c): got both %q, want different ids", a)
	}
	for _, pair := range [][2]string{{"x", "/y"}, {"", ""}, {"é-agent", "/home/ünï"}, {strings.Repeat("a", 500), "/"}} {
		if got, want := presence.LegacyID(pair[0], pair[1]), refLegacyID(pair[0], pair[1]); got != want {
			t.Errorf("LegacyID(%q, %q): got %q, want %q", pair[0], pair[1], got, want)
		}
		if got := presence.ID(pair[0], pair[1]); !presence.ValidID(got) {
			t.Errorf("ValidID(ID(%q, %q) = %q): got false", pair[0], pair[1], got)
		}
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"prs_cc073e458413", true},
		{"prs_000000000000", true},
		{"prs_abcdefabcdef", true},
		{"prs_CC073E458413", false}, // uppercase
		{"prs_cc073e45841", false},  // 11 digits
		{"prs_cc073e4584133", false},
		{"prs_cc073e45841g", false}, // not hex
		{"prx_cc073e458413", false},
		{"PRS_cc073e458413", false},
		{"cc073e458413", false},
		{"", false},
		{"prs_", false},
		{"../x", false},
		{"prs_../../../etc", false},
		{"prs_cc073e45/413", false},
		{"prs_cc073e4584é", false}, // 16 bytes, not hex
		{"prs_cc073e458413\x00", false},
	}
	for _, tt := range tests {
		if got := presence.ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q): got %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestRecordStaleBoundary(t *testing.T) {
	tests := []struct {
		name      string
		ttlMs     int64
		sinceBeat int64 // now - last_beat_ms
		want      bool
	}{
		{"fresh", 1000, 0, false},
		{"exactly at ttl is live", 1000, 1000, false},
		{"one ms past ttl is stale", 1000, 1001, true},
		{"ttl absent: 120000 is live", 0, 120000, false},
		{"ttl absent: 120001 is stale", 0, 120001, true},
		{"negative ttl means default: live", -5, 120000, false},
		{"negative ttl means default: stale", -5, 120001, true},
		{"beat from the future within the skew allowance is live", 1000, -5000, false},
		{"beat further ahead than a ttl and the skew allowance is stale", 1000, -5001, true},
		{"short ttl exactly", 300, 300, false},
		{"short ttl past", 300, 301, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := presencetest.Rec("a", "/b", presencetest.TTL(tt.ttlMs))
			now := time.UnixMilli(r.LastBeatMs + tt.sinceBeat)
			if got := r.Stale(now); got != tt.want {
				t.Errorf("Stale(now-last_beat=%d, ttl_ms=%d): got %v, want %v", tt.sinceBeat, tt.ttlMs, got, tt.want)
			}
		})
	}
	if got, want := (presence.Record{}).TTL(), 120*time.Second; got != want {
		t.Errorf("TTL with ttl_ms absent: got %v, want %v", got, want)
	}
	r := presencetest.Rec("a", "/b", presencetest.TTL(300))
	if got, want := r.ExpiresAtMs(), r.LastBeatMs+300; got != want {
		t.Errorf("ExpiresAtMs: got %d, want %d", got, want)
	}
	if r.Stale(time.UnixMilli(r.ExpiresAtMs())) || !r.Stale(time.UnixMilli(r.ExpiresAtMs()+1)) {
		t.Errorf("Stale around ExpiresAtMs %d: got live/stale mismatch, want live at it and stale 1 ms after", r.ExpiresAtMs())
	}
}

func TestTTLAbsentInFileIsDefault(t *testing.T) {
	r, err := presence.DecodeRecord([]byte(`{"presence_id":"prs_cc073e458413","agent_id":"claude-7","brain":"/home/ana/shop","last_beat_ms":1000}`))
	if err != nil {
		t.Fatalf("DecodeRecord: %v", err)
	}
	if got, want := r.TTLMs, int64(0); got != want {
		t.Errorf("ttl_ms: got %d, want %d", got, want)
	}
	if r.Stale(time.UnixMilli(1000 + 120000)) {
		t.Errorf("Stale at last_beat+120000 with ttl absent: got true, want false")
	}
	if !r.Stale(time.UnixMilli(1000 + 120001)) {
		t.Errorf("Stale at last_beat+120001 with ttl absent: got false, want true")
	}
}

// TestFirstSeenAbsentIsLastBeat: a writer that leaves first_seen_ms out
// (or writes 0 or less) is shown as first seen at its last beat, never at
// the epoch, so no surface shows an age of 20,000 days; the record keeps
// what was written. A first_seen_ms given is shown as it is.
func TestFirstSeenAbsentIsLastBeat(t *testing.T) {
	const head = `{"presence_id":"prs_cc073e458413","agent_id":"claude-7","brain":"/home/ana/shop","last_beat_ms":1764489600000`
	tests := []struct {
		name      string
		tail      string
		stored    int64
		firstSeen int64
	}{
		{"absent", `}`, 0, 1764489600000},
		{"zero", `,"first_seen_ms":0}`, 0, 1764489600000},
		{"null", `,"first_seen_ms":null}`, 0, 1764489600000},
		{"negative", `,"first_seen_ms":-9223372036854775808}`, math.MinInt64, 1764489600000},
		{"given", `,"first_seen_ms":1764489000000}`, 1764489000000, 1764489000000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := presence.DecodeRecord([]byte(head + tt.tail))
			if err != nil {
				t.Fatalf("DecodeRecord: %v", err)
			}
			if r.FirstSeenMs != tt.stored {
				t.Errorf("first_seen_ms decoded: got %d, want %d (as written)", r.FirstSeenMs, tt.stored)
			}
			if got := r.FirstSeen(); got != tt.firstSeen {
				t.Errorf("FirstSeen(): got %d, want %d", got, tt.firstSeen)
			}
		})
	}
}

func TestDecodeRecordForeignShapes(t *testing.T) {
	want := presencetest.SpecRecord()
	tests := []struct {
		name string
		data string
		want presence.Record
	}{
		{"spec example, pretty", presencetest.SpecExample, want},
		{"compact, other field order, unknown fields", `{"ttl_ms":120000,"query_count":41,"last_beat_ms":1764489655000,"first_seen_ms":1764489000000,` +
			`"mutation":{"declared_intent":"edit checkout","observed_at_ms":1764489600000,"confidence":0.9},"task_ref":"msn_8c1d2e",` +
			`"working_set":["src/checkout/","go.mod"],"worktree":"/home/ana/shop-wt2","theme":"checkout refactor","kind":"executor",` +
			`"caller_root":"/home/ana/shop-wt2","brain":"/home/ana/shop","agent_id":"claude-7","presence_id":"prs_3fa94c0e11d2",` +
			`"schema":"m1nd-presence-v0","runtime":{"pid":4242,"host":"box"},"extra":[1,2,3]}`, want},
		{"null mutation, no schema, minimal", `{"presence_id":"prs_3fa94c0e11d2","agent_id":"claude-7","brain":"/home/ana/shop","last_beat_ms":5,"mutation":null}`,
			presence.Record{Schema: presence.Schema, PresenceID: "prs_3fa94c0e11d2", AgentID: "claude-7", Brain: "/home/ana/shop", LastBeatMs: 5}},
		{"last_beat_ms zero is present", `{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":0}`,
			presence.Record{Schema: presence.Schema, PresenceID: "p", AgentID: "a", Brain: "/b"}},
		{"empty working set reads as none", `{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":1,"working_set":[]}`,
			presence.Record{Schema: presence.Schema, PresenceID: "p", AgentID: "a", Brain: "/b", LastBeatMs: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := presence.DecodeRecord([]byte(tt.data))
			if err != nil {
				t.Fatalf("DecodeRecord: got error %v, want none", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecodeRecord:\ngot  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeRecordRefusesIncomplete(t *testing.T) {
	tests := []struct {
		name, data, missing string
	}{
		{"not json", `not json`, ""},
		{"truncated", presencetest.SpecExample[:len(presencetest.SpecExample)/2], ""},
		{"array", `[1,2]`, ""},
		{"null", `null`, "presence_id"},
		{"empty object", `{}`, "presence_id"},
		{"no presence_id", `{"agent_id":"a","brain":"/b","last_beat_ms":1}`, "presence_id"},
		{"empty presence_id", `{"presence_id":"","agent_id":"a","brain":"/b","last_beat_ms":1}`, "presence_id"},
		{"no agent_id", `{"presence_id":"p","brain":"/b","last_beat_ms":1}`, "agent_id"},
		{"null agent_id", `{"presence_id":"p","agent_id":null,"brain":"/b","last_beat_ms":1}`, "agent_id"},
		{"no brain", `{"presence_id":"p","agent_id":"a","last_beat_ms":1}`, "brain"},
		{"no last_beat_ms", `{"presence_id":"p","agent_id":"a","brain":"/b"}`, "last_beat_ms"},
		{"null last_beat_ms", `{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":null}`, "last_beat_ms"},
		{"last_beat_ms a string", `{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":"1"}`, ""},
		{"last_beat_ms fractional", `{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":1.5}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := presence.DecodeRecord([]byte(tt.data))
			if err == nil {
				t.Fatalf("DecodeRecord(%q): got no error, want one", tt.data)
			}
			if got, want := presence.ErrorCode(err), presence.EINVALID; got != want {
				t.Errorf("ErrorCode: got %q, want %q", got, want)
			}
			if tt.missing != "" && !strings.Contains(err.Error(), tt.missing) {
				t.Errorf("error %q: want it to name %q", err, tt.missing)
			}
		})
	}
}

func TestEncodeRecordIsPrettySnakeCase(t *testing.T) {
	data, err := presence.EncodeRecord(presencetest.SpecRecord())
	if err != nil {
		t.Fatalf("EncodeRecord: %v", err)
	}
	s := string(data)
	for _, want := range []string{"{\n  \"schema\": \"m1nd-presence-v0\",\n  \"presence_id\": \"prs_3fa94c0e11d2\",", `"observed_at_ms": 1764489600000`, `"ttl_ms": 120000`} {
		if !strings.Contains(s, want) {
			t.Errorf("encoded record: want it to contain %q, got\n%s", want, s)
		}
	}
	if !strings.HasSuffix(s, "}\n") {
		t.Errorf("encoded record: got %q at the end, want a trailing newline", s[len(s)-3:])
	}
	back, err := presence.DecodeRecord(data)
	if err != nil {
		t.Fatalf("DecodeRecord(EncodeRecord(r)): %v", err)
	}
	if got, want := back, presencetest.SpecRecord(); !reflect.DeepEqual(got, want) {
		t.Errorf("roundtrip:\ngot  %#v\nwant %#v", got, want)
	}
	// A record without a schema is written with one.
	r := presencetest.SpecRecord()
	r.Schema = ""
	data, _ = presence.EncodeRecord(r)
	if !strings.Contains(string(data), `"schema": "m1nd-presence-v0"`) {
		t.Errorf("encoded record without schema: got\n%s\nwant schema m1nd-presence-v0", data)
	}
}

func TestMutationLevel(t *testing.T) {
	tests := []struct {
		m    presence.Mutation
		want presence.Level
	}{
		{presence.Mutation{}, presence.LevelNone},
		{presence.Mutation{DeclaredIntent: "mutate"}, presence.LevelDeclared},
		{presence.Mutation{DeclaredIntent: "MuTaTe"}, presence.LevelDeclared},
		// m1nd's signal word alone, any ASCII case: any other text
		// (a declared reader, free prose) signals nothing.
		{presence.Mutation{DeclaredIntent: "read"}, presence.LevelNone},
		{presence.Mutation{DeclaredIntent: "x"}, presence.LevelNone},
		{presence.Mutation{DeclaredIntent: "edit checkout"}, presence.LevelNone},
		{presence.Mutation{DeclaredIntent: " mutate"}, presence.LevelNone},
		{presence.Mutation{DeclaredIntent: "mutates"}, presence.LevelNone},
		{presence.Mutation{DeclaredIntent: "MUTATE"}, presence.LevelDeclared},
		{presence.Mutation{DeclaredIntent: "mu\u0163ate"}, presence.LevelNone}, // no Unicode folding
		{presence.Mutation{ObservedAtMs: 1}, presence.LevelObserved},
		{presence.Mutation{ObservedAtMs: 1, DeclaredIntent: "x"}, presence.LevelObserved},
	}
	for _, tt := range tests {
		if got := tt.m.Level(); got != tt.want {
			t.Errorf("%+v.Level(): got %q, want %q", tt.m, got, tt.want)
		}
		if got, want := (presence.Record{Mutation: tt.m}).Mutating(), tt.want != presence.LevelNone; got != want {
			t.Errorf("Mutating with %+v: got %v, want %v", tt.m, got, want)
		}
	}
}

// TestLevelAt is m1nd's has_mutation_signal: an observed mutation counts
// while now - observed_at_ms is at most the ttl, a declared "mutate"
// always.
func TestLevelAt(t *testing.T) {
	const ttl = 120_000
	now := presencetest.T0
	tests := []struct {
		name string
		m    presence.Mutation
		at   int64
		want presence.Level
	}{
		{"observed now", presence.Mutation{ObservedAtMs: now}, now, presence.LevelObserved},
		{"observed at the ttl", presence.Mutation{ObservedAtMs: now}, now + ttl, presence.LevelObserved},
		{"observed 1 ms past the ttl", presence.Mutation{ObservedAtMs: now}, now + ttl + 1, presence.LevelNone},
		{"observed hours ago", presence.Mutation{ObservedAtMs: now - 3*3_600_000}, now, presence.LevelNone},
		{"observed ahead of now", presence.Mutation{ObservedAtMs: now + 5000}, now, presence.LevelObserved},
		{"lapsed, declared mutate", presence.Mutation{ObservedAtMs: now, DeclaredIntent: "Mutate"}, now + ttl + 1, presence.LevelDeclared},
		{"lapsed, declared read", presence.Mutation{ObservedAtMs: now, DeclaredIntent: "read"}, now + ttl + 1, presence.LevelNone},
	}
	for _, tt := range tests {
		r := presence.Record{LastBeatMs: now, TTLMs: ttl, Mutation: tt.m}
		if got := r.LevelAt(time.UnixMilli(tt.at)); got != tt.want {
			t.Errorf("%s: LevelAt: got %q, want %q", tt.name, got, tt.want)
		}
		if got, want := r.MutatingAt(time.UnixMilli(tt.at)), tt.want != presence.LevelNone; got != want {
			t.Errorf("%s: MutatingAt: got %v, want %v", tt.name, got, want)
		}
	}
}

// TestBeatOnARecordWithoutFirstSeen: a beat taken over a record whose
// writer left first_seen_ms out writes the earliest beat the Hall knows of
// (the stored record's last beat), so the age grows from there rather
// than staying at zero or starting at the epoch.
func TestBeatOnARecordWithoutFirstSeen(t *testing.T) {
	svc, store, clk, _ := newTestService(t, presence.Config{})
	foreign := presencetest.Rec("claude-7", "/srv/shop", presencetest.LastBeat(presencetest.T0-30_000))
	foreign.FirstSeenMs = 0
	if err := store.Upsert(context.Background(), foreign); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", Theme: "new"})
	if got, want := snapshotRecord(t, svc, foreign.PresenceID).FirstSeenMs, presencetest.T0-30_000; got != want {
		t.Errorf("first_seen_ms after a beat: got %d, want %d (the stored last beat)", got, want)
	}
	if got, want := dirstoretest.ReadRecord(t, store.Dir(), foreign.PresenceID).FirstSeenMs, presencetest.T0-30_000; got != want {
		t.Errorf("first_seen_ms stored: got %d, want %d", got, want)
	}
}

func TestRecordTouchedRoundTrip(t *testing.T) {
	r := presencetest.Rec("claude-1/sub", "/srv/shop", func(r *presence.Record) {
		r.Touched = []presence.Touch{{Path: "/srv/shop/b.go", AtMs: presencetest.T0}}
		r.TouchedOmitted = 3
		r.ParentPresenceID = presence.ID("claude-1", "/srv/shop")
	})
	data, err := presence.EncodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"touched": [`) || !strings.Contains(string(data), `"parent_presence_id"`) {
		t.Errorf("encoded: %s", data)
	}
	back, err := presence.DecodeRecord(data)
	if err != nil || !back.Equal(&r) {
		t.Errorf("round trip: got %+v, %v", back, err)
	}
	if back, _ := presence.DecodeRecord([]byte(`{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":1,"touched":[]}`)); back.Touched != nil {
		t.Errorf(`"touched": [] decoded to %v, want nil`, back.Touched)
	}
}

// A live view looks again when an observed mutation lapses (its
// collisions end then), not only when a record goes stale.
func TestNextExpiryCountsSignalLapses(t *testing.T) {
	now := presencetest.T0
	// Beating now, ttl 2 min: its edit seen 30 s ago lapses at now + 90 s + 1.
	r := presencetest.Rec("claude-7", brain, presencetest.LastBeat(now), presencetest.TTL(120_000), presencetest.Observed(now-30_000))
	if got, want := r.SignalLapsesAtMs(), now-30_000+120_000+1; got != want {
		t.Errorf("SignalLapsesAtMs: got %d, want %d", got, want)
	}
	snap := presence.Snapshot{AtMs: now, Live: []presence.Record{r}}
	if got, want := snap.NextExpiryMs(), now+90_001; got != want {
		t.Errorf("NextExpiryMs: got %d, want %d (the lapse, before the expiry %d)", got, want, r.ExpiresAtMs()+1)
	}
	r.Mutation.DeclaredIntent = "mutate" // declared: nothing lapses
	snap.Live[0] = r
	if got, want := snap.NextExpiryMs(), r.ExpiresAtMs()+1; got != want {
		t.Errorf("NextExpiryMs with a declared mutate: got %d, want the expiry %d", got, want)
	}
}

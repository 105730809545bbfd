package presence

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/presence/collision"
)

// Schema is the version tag every record carries.
const Schema = "m1nd-presence-v0"

// DefaultTTL is the lifetime of a beat when a record names none (2 min).
const DefaultTTL = 120 * time.Second

// Record is one presence: one session of one agent on one brain, upserted by
// its beats. It is the on-disk (and on-bucket) format of the spec: snake_case
// JSON, epoch milliseconds in fields ending in _ms.
//
// A Record is a value, but its WorkingSet, Touched and Changed are shared
// by every copy: once a record is handed on (to a Store, by a Store, in a Snapshot or
// a Collision) no one writes into them. Code that changes either assigns a
// new slice (Clone first, as Beat does). So the store's
// memory, the Service's cache and every snapshot share one copy of each
// record's paths rather than one per read.
type Record struct {
	Schema     string   `json:"schema"`
	PresenceID string   `json:"presence_id"`
	AgentID    string   `json:"agent_id"`
	Brain      string   `json:"brain"`
	CallerRoot string   `json:"caller_root,omitempty"`
	Kind       string   `json:"kind,omitempty"`
	Theme      string   `json:"theme,omitempty"`
	Worktree   string   `json:"worktree,omitempty"`
	WorkingSet []string `json:"working_set,omitempty"`
	TaskRef    string   `json:"task_ref,omitempty"`
	Mutation   Mutation `json:"mutation"`

	// Touched is what the Hall observed this presence's tools change (a
	// hook adapter read the files from the agent's own payload): at most
	// MaxTouched files, newest first. Observed, never declared; it joins
	// the working-set overlap under a clause of its own.
	Touched []Touch `json:"touched,omitempty"`
	// TouchedOmitted counts the older files dropped from Touched.
	TouchedOmitted int64 `json:"touched_omitted,omitempty"`
	// ParentPresenceID links a subagent to the session that runs it: the
	// two (and the session's other subagents) are one team and never
	// collide, and the session's leave takes its subagents with it.
	ParentPresenceID string `json:"parent_presence_id,omitempty"`

	// Changed is git's answer for the worktree, as the Hall that took the
	// beat read it from its git scanner (never running git on the beat):
	// the files the worktree changed against its base, repository-relative
	// with "/", sorted, at most MaxChanged (and MaxChangedBytes, the
	// sorted prefix that fits); ChangedTotal counts them all. ChangedAtMs
	// is when that host's git scanned; 0 means the record carries no git
	// answer. Measured, never declared: a Hall on another machine, whose
	// git cannot see the worktree, takes it as the side's git evidence
	// (docs/worktrees.md, several machines).
	Changed      []string `json:"changed,omitempty"`
	ChangedTotal int      `json:"changed_total,omitempty"`
	ChangedAtMs  int64    `json:"changed_at_ms,omitempty"`
	// Host names the machine whose Hall took the presence's last beat
	// (that Hall's --host-name, its os.Hostname by default): measured by
	// the Hall, never declared by the agent. Its worktree, touched files
	// and changed list are paths on that host: a Hall on another host
	// never asks its own git about them (docs/worktrees.md, several
	// machines). m1nd's record has no such field; "" is unknown (a
	// record m1nd or an older Hall wrote).
	Host string `json:"host,omitempty"`
	// Repository is the identity of the repository the worktree belongs
	// to, as the same git answer measured it (gitscan.Changes.Repository:
	// one wherever it is checked out; docs/worktrees.md): overlaps are
	// found among presences of one repository. "" with no git answer.
	Repository string `json:"repository,omitempty"`

	FirstSeenMs int64 `json:"first_seen_ms"`
	LastBeatMs  int64 `json:"last_beat_ms"`
	QueryCount  int64 `json:"query_count"`
	TTLMs       int64 `json:"ttl_ms,omitempty"`
}

// Touch is one file a presence's tool changed, and when the Hall last saw
// it do so (package collision defines it, so the sweep reads a record's
// list without a copy).
type Touch = collision.Touch

// MaxTouched is the most files a record's Touched keeps.
const MaxTouched = 32

// Bounds on a record's Changed: the most files, and the most bytes of
// paths, it lists (the rest counted in ChangedTotal), so a record at
// every limit stays well inside MaxRecordBytes.
const (
	MaxChanged      = 200
	MaxChangedBytes = 32 << 10
)

// GitChanges is git's latest answer for a worktree as a beat carries it
// into the record (Beat.Git): the changed files (repository-relative,
// "/", sorted), their count, when git scanned, and the repository's
// identity.
type GitChanges struct {
	Files      []string
	Total      int
	AtMs       int64
	Repository string
}

// MaxRepositoryBytes bounds a record's repository identity: a longer one
// is not kept.
const MaxRepositoryBytes = 512

// boundChanged is the sorted prefix of files a record keeps: at most
// MaxChanged entries and MaxChangedBytes of paths, none over MaxPathLen;
// total is at least what is kept. It reads no more entries than it keeps.
func boundChanged(files []string, total int) ([]string, int) {
	n, size := 0, 0
	for n < len(files) && n < MaxChanged && len(files[n]) <= MaxPathLen && size+len(files[n]) <= MaxChangedBytes {
		size += len(files[n])
		n++
	}
	return files[:n:n], max(total, len(files), n)
}

// setChanged puts git's answer into the record, bounded. An unchanged
// list keeps the record's own slice, so an answer that says nothing new
// costs no allocation and changes no signal.
func (r *Record) setChanged(g GitChanges) {
	files, total := boundChanged(g.Files, g.Total)
	switch {
	case len(files) == 0:
		r.Changed = nil
	case !slices.Equal(files, r.Changed):
		r.Changed = slices.Clone(files)
	}
	r.ChangedTotal, r.ChangedAtMs = total, max(g.AtMs, 0)
	r.Repository = boundRepository(g.Repository)
}

// boundRepository is a repository identity a record may carry: "" for
// one over MaxRepositoryBytes, not UTF-8 or holding a control character.
func boundRepository(id string) string {
	if len(id) > MaxRepositoryBytes || !utf8.ValidString(id) || strings.ContainsFunc(id, unicode.IsControl) {
		return ""
	}
	return id
}

// clearChanged drops the git answer: it was for another worktree.
func (r *Record) clearChanged() {
	r.Changed, r.ChangedTotal, r.ChangedAtMs, r.Repository = nil, 0, 0, ""
}

// Team is the id of the team a presence belongs to: its parent's when it
// is a subagent, else its own. Two presences of one team never collide.
func (r *Record) Team() string {
	if r.ParentPresenceID != "" {
		return r.ParentPresenceID
	}
	return r.PresenceID
}

// TouchedPaths returns the paths of Touched, newest first.
func (r *Record) TouchedPaths() []string {
	if len(r.Touched) == 0 {
		return nil
	}
	out := make([]string, len(r.Touched))
	for i, t := range r.Touched {
		out[i] = t.Path
	}
	return out
}

// touch folds the files one beat touched at nowMs into the list: they go
// first (in the beat's order), an older entry of the same file is dropped,
// and the list keeps MaxTouched entries, counting what it drops.
func touch(prev []Touch, omitted int64, paths []string, nowMs int64) ([]Touch, int64) {
	out := make([]Touch, 0, min(len(prev)+len(paths), MaxTouched+len(paths)))
	for _, p := range paths {
		if !slices.ContainsFunc(out, func(t Touch) bool { return t.Path == p }) {
			out = append(out, Touch{Path: p, AtMs: nowMs})
		}
	}
	fresh := len(out)
	for _, t := range prev {
		if !slices.ContainsFunc(out[:fresh], func(n Touch) bool { return n.Path == t.Path }) {
			out = append(out, t)
		}
	}
	if len(out) > MaxTouched {
		omitted += int64(len(out) - MaxTouched)
		out = out[:MaxTouched:MaxTouched]
	}
	return out, omitted
}

// MergeTouched joins two writers' lists of one presence: every file once,
// at the latest time either saw it, newest first (then by path), at most
// MaxTouched; omitted is the larger count plus what the join drops.
func MergeTouched(a, b []Touch, omittedA, omittedB int64) ([]Touch, int64) {
	if len(b) == 0 {
		return slices.Clone(a), max(omittedA, omittedB)
	}
	if len(a) == 0 {
		return slices.Clone(b), max(omittedA, omittedB)
	}
	latest := make(map[string]int64, len(a)+len(b))
	for _, l := range [][]Touch{a, b} {
		for _, t := range l {
			latest[t.Path] = max(latest[t.Path], t.AtMs)
		}
	}
	out := make([]Touch, 0, len(latest))
	for p, at := range latest {
		out = append(out, Touch{Path: p, AtMs: at})
	}
	slices.SortFunc(out, func(x, y Touch) int {
		if x.AtMs != y.AtMs {
			return cmp.Compare(y.AtMs, x.AtMs)
		}
		return strings.Compare(x.Path, y.Path)
	})
	omitted := max(omittedA, omittedB)
	if len(out) > MaxTouched {
		omitted += int64(len(out) - MaxTouched)
		out = out[:MaxTouched]
	}
	return out, omitted
}

// Mutation holds the two honest mutation levels: what the Hall observed (a
// mutating tool ran) and what the agent declared. Neither is ever derived
// from the other.
type Mutation struct {
	ObservedAtMs   int64  `json:"observed_at_ms,omitempty"`
	DeclaredIntent string `json:"declared_intent,omitempty"`
}

// Level names the strongest mutation signal a record carries.
type Level string

// The mutation levels, strongest first.
const (
	LevelObserved Level = "observed"
	LevelDeclared Level = "declared"
	LevelNone     Level = "none"
)

// Level reports the strongest signal the record has carried, whenever
// seen: observed beats declared. A declared intent is a signal only when
// it is "mutate" (m1nd's signal word, any ASCII case): "read", "edit the
// docs" or any other text is shown as written and signals nothing. Whether
// an observed mutation still counts depends on the time: see LevelAt.
func (m Mutation) Level() Level {
	switch {
	case m.ObservedAtMs > 0:
		return LevelObserved
	case m.DeclaresMutation():
		return LevelDeclared
	default:
		return LevelNone
	}
}

// DeclaresMutation reports whether the declared intent is m1nd's signal
// word, "mutate", in any ASCII case (Rust's eq_ignore_ascii_case: no
// Unicode folding).
func (m Mutation) DeclaresMutation() bool {
	const word = "mutate"
	d := m.DeclaredIntent
	if len(d) != len(word) {
		return false
	}
	for i := range len(word) {
		c := d[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// Mutating reports whether the record has carried a mutation signal at
// all (Level, whenever seen): the Hall's own evidence (git's overlap) asks
// this. The collision predicate asks MutatingAt.
func (r Record) Mutating() bool { return r.Mutation.Level() != LevelNone }

// LevelAt is the signal as the collision predicate reads it at now, m1nd's
// has_mutation_signal: an observed mutation counts while now -
// observed_at_ms is at most the record's ttl (one stamped ahead of now
// counts), a declared one when it is "mutate". Observed beats declared.
func (r *Record) LevelAt(now time.Time) Level {
	if o := r.Mutation.ObservedAtMs; o > 0 && now.UnixMilli()-o <= r.TTL().Milliseconds() {
		return LevelObserved
	}
	if r.Mutation.DeclaresMutation() {
		return LevelDeclared
	}
	return LevelNone
}

// MutatingAt reports whether the record carries a mutation signal at now
// (LevelAt): the third condition of the collision predicate.
func (r *Record) MutatingAt(now time.Time) bool { return r.LevelAt(now) != LevelNone }

// SignalLapsesAtMs is the first millisecond at which the record's
// observed mutation no longer counts (LevelAt), 0 when nothing lapses
// then: no observed mutation, or a declared "mutate" that holds anyway.
// A live view looks again then, as it does when a record goes stale.
func (r *Record) SignalLapsesAtMs() int64 {
	if r.Mutation.ObservedAtMs <= 0 || r.Mutation.DeclaresMutation() {
		return 0
	}
	return r.Mutation.ObservedAtMs + r.TTL().Milliseconds() + 1
}

// ID returns the stable presence id for (agentID, brain), m1nd's
// stable_presence_id byte for byte: "prs_" and the low 48 bits, as 12
// lowercase hex digits, of Rust's DefaultHasher (SipHash-1-3, keys zero)
// over agent_id.hash(), 0u8.hash() and brain.hash(), a str hashing as its
// bytes then 0xFF. So a session that m1nd and the Hall's hooks both report
// is one record. The brain must already be canonical, or two spellings of
// one path get two ids.
func ID(agentID, brain string) string {
	h := newSip13(0, 0)
	h.writeString(agentID)
	h.writeByte(0xff)
	h.writeByte(0) // m1nd's separator: ("a", "b/x") is not ("ab", "/x")
	h.writeString(brain)
	h.writeByte(0xff)
	return idOf(h.sum64())
}

// LegacyID is the id Halls before m1nd's id gave (agentID, brain): "prs_"
// and the first 12 hex digits of SHA-256(agent_id, a zero byte, brain).
// A record an older Hall wrote under it is still read and found (Leave,
// a beat continuing its session) until it lapses, as any record does.
func LegacyID(agentID, brain string) string {
	h := sha256.New()
	h.Write([]byte(agentID))
	h.Write([]byte{0})
	h.Write([]byte(brain))
	return "prs_" + hex.EncodeToString(h.Sum(nil))[:12]
}

// idOf is "prs_" and the low 48 bits of sum as 12 lowercase hex digits,
// as Rust's format!("{:012x}") writes them.
func idOf(sum uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	copy(b[:], "prs_")
	for i := 15; i >= 4; i-- {
		b[i] = digits[sum&0xf]
		sum >>= 4
	}
	return string(b[:])
}

// CheckID refuses an id that is not the shape ID returns (EINVALID): the
// one wording of the id rule, for every surface that takes an id.
func CheckID(id string) error {
	if !ValidID(id) {
		return Errorf(EINVALID, "presence_id %q is not prs_ and 12 lowercase hex digits", clipForMessage(id))
	}
	return nil
}

// clipForMessage keeps an echoed value short in an error's message.
func clipForMessage(s string) string {
	const most = 64
	if len(s) > most {
		return s[:most] + "…"
	}
	return s
}

// ValidID reports whether id has the shape ID returns: "prs_" and 12
// lowercase hex digits. Stores use it so an id can never name a path.
func ValidID(id string) bool {
	if len(id) != 16 || id[:4] != "prs_" {
		return false
	}
	for _, c := range id[4:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// MaxTTL is the longest lifetime a record is taken at. A record naming a
// longer ttl (a foreign writer's file may hold any int64) lives MaxTTL
// after its last beat, no more: no writer keeps a silent presence on the
// roster for longer than a day. The Hall's own --ttl is bounded by it.
const MaxTTL = 24 * time.Hour

// TTL is the record's lifetime: DefaultTTL when it names none, MaxTTL
// when it names more.
func (r Record) TTL() time.Duration {
	switch {
	case r.TTLMs <= 0:
		return DefaultTTL
	case r.TTLMs > MaxTTL.Milliseconds():
		return MaxTTL
	}
	return time.Duration(r.TTLMs) * time.Millisecond
}

// ExpiresAtMs is the last millisecond at which the record is still live.
func (r Record) ExpiresAtMs() int64 { return r.LastBeatMs + r.TTL().Milliseconds() }

// FirstSeen is first_seen_ms as surfaces show it. A writer that leaves it
// out (or writes 0 or less) is taken as first seen at its last beat, the
// earliest moment the record vouches for: the age shown is "seen since at
// least", never the decades since the epoch. The record itself keeps what
// its writer wrote.
func (r Record) FirstSeen() int64 {
	if r.FirstSeenMs <= 0 {
		return r.LastBeatMs
	}
	return r.FirstSeenMs
}

// MinClockSkew is the least a beat may be stamped ahead of a reader's clock
// and still be believed (see Stale): writers on other machines run clocks a
// few seconds apart, and a short ttl must not hide them for it.
const MinClockSkew = 5 * time.Second

// Stale reports now - last_beat_ms > ttl_ms: exactly at the ttl a record is
// still live, one millisecond later it is gone.
//
// A beat stamped in the future (a writer's clock ahead, or this clock set
// back) is believed up to one ttl (at least MinClockSkew) ahead of now, and
// it lapses at last_beat_ms + ttl_ms like any other: a presence that stops
// beating after the clock went back by J leaves within ttl + J. A beat
// stamped further ahead is not believed at all: the record is stale, so no
// clock can make a presence immortal. (The Service also never shows again
// a version it once found stale, so none rises as the clock catches up.)
func (r Record) Stale(now time.Time) bool {
	nowMs, ttl := now.UnixMilli(), r.TTL().Milliseconds()
	// No arithmetic on the stamp itself: a foreign file's last_beat_ms may
	// be any int64, and a wrapped difference would read as fresh.
	return r.LastBeatMs < nowMs-ttl || r.LastBeatMs > nowMs+max(ttl, MinClockSkew.Milliseconds())
}

// Equal reports whether r and o hold the same fields. A nil and an empty
// working set are the same: DecodeRecord and Beat make both nil.
// TestRecordEqualSeesEveryField keeps it in step with Record.
func (r *Record) Equal(o *Record) bool {
	return r.PresenceID == o.PresenceID && r.LastBeatMs == o.LastBeatMs && r.QueryCount == o.QueryCount &&
		r.Mutation == o.Mutation && r.FirstSeenMs == o.FirstSeenMs && r.TTLMs == o.TTLMs &&
		r.Schema == o.Schema && r.AgentID == o.AgentID && r.Brain == o.Brain && r.CallerRoot == o.CallerRoot &&
		r.Kind == o.Kind && r.Theme == o.Theme && r.Worktree == o.Worktree && r.TaskRef == o.TaskRef &&
		slices.Equal(r.WorkingSet, o.WorkingSet) && slices.Equal(r.Touched, o.Touched) &&
		r.TouchedOmitted == o.TouchedOmitted && r.ParentPresenceID == o.ParentPresenceID &&
		slices.Equal(r.Changed, o.Changed) && r.ChangedTotal == o.ChangedTotal && r.ChangedAtMs == o.ChangedAtMs &&
		r.Host == o.Host && r.Repository == o.Repository
}

// Clone returns a copy that shares no slice with r but Changed: git's
// list (up to MaxChanged paths) is never written into, only replaced
// whole (setChanged, Merge, repairChanged), so the copies a beat makes
// share it rather than copy it each beat.
func (r Record) Clone() Record {
	if r.WorkingSet != nil {
		r.WorkingSet = append([]string(nil), r.WorkingSet...)
	}
	if r.Touched != nil {
		r.Touched = append([]Touch(nil), r.Touched...)
	}
	return r
}

// wireRecord mirrors Record with pointers where absence must be told apart
// from zero, so a foreign file lacking a required field is refused.
type wireRecord struct {
	Record
	PresenceID *string   `json:"presence_id"`
	AgentID    *string   `json:"agent_id"`
	Brain      *string   `json:"brain"`
	LastBeatMs *int64    `json:"last_beat_ms"`
	Mutation   *Mutation `json:"mutation"`
}

// MaxRecordBytes bounds one encoded record. The Hall's own records are a
// few KiB at their field limits; anything larger in a store is not a record
// and is skipped unread, so a 10 MiB stray file cannot inflate a read.
const MaxRecordBytes = 256 << 10

// DecodeRecord parses one record written by the Hall or by any other writer,
// as m1nd's serde reads one: unknown fields are ignored, field order and
// layout do not matter, a record lacking presence_id, agent_id, brain or
// last_beat_ms is an error (stores skip and count it), and no field has a
// length limit: a long theme or a working set of hundreds of entries is
// shown (clipped by the surfaces that show it), never a reason to skip.
// (MaxRecordBytes bounds the file a store reads.)
func DecodeRecord(data []byte) (Record, error) {
	r, _, err := DecodeRecordRepaired(data)
	return r, err
}

// DecodeRecordRepaired is DecodeRecord, and how many fields of the record
// it repaired to bring it inside the contract the Hall publishes
// (repairForeign): a store counts the records it serves repaired.
func DecodeRecordRepaired(data []byte) (Record, int, error) {
	r, err := decodeRecord(data)
	if err != nil {
		return Record{}, 0, err
	}
	n, err := r.repairForeign()
	if err != nil {
		return Record{}, 0, err
	}
	return r, n, nil
}

func decodeRecord(data []byte) (Record, error) {
	var w wireRecord
	if err := json.Unmarshal(data, &w); err != nil {
		return Record{}, Errorf(EINVALID, "decode record: %v", err)
	}
	var missing []string
	if w.PresenceID == nil || *w.PresenceID == "" {
		missing = append(missing, "presence_id")
	}
	if w.AgentID == nil || *w.AgentID == "" {
		missing = append(missing, "agent_id")
	}
	if w.Brain == nil || *w.Brain == "" {
		missing = append(missing, "brain")
	}
	if w.LastBeatMs == nil {
		missing = append(missing, "last_beat_ms")
	}
	if len(missing) > 0 {
		return Record{}, Errorf(EINVALID, "decode record: missing %v", missing)
	}
	r := w.Record
	r.PresenceID, r.AgentID, r.Brain, r.LastBeatMs = *w.PresenceID, *w.AgentID, *w.Brain, *w.LastBeatMs
	if w.Mutation != nil {
		r.Mutation = *w.Mutation
	}
	if r.Schema == "" {
		r.Schema = Schema
	}
	if len(r.WorkingSet) == 0 {
		// "working_set": [] and an absent set say the same; one form keeps
		// decode(encode(r)) == r and change detection free of false alarms.
		r.WorkingSet = nil
	}
	if len(r.Touched) == 0 {
		r.Touched = nil
	}
	if len(r.Changed) == 0 {
		r.Changed = nil
	}
	return r, nil
}

// repairForeign brings a record read from a store inside the contract the
// Hall serves (internal/contract/schema, presence.schema.json), whoever
// wrote it: the one rule, so every store and every surface hold to it.
// The Hall's own beats never need it (a beat's paths are canonical, its
// counters count up); another writer's file may hold anything.
//
//   - brain is kept as written: brains compare as written (the Hall's own
//     beats write the canonical form; a brain another writer spelled
//     otherwise is a brain of its own, shown on the roster).
//   - caller_root and worktree: an absolute one is cleaned; any other is
//     kept as written (m1nd's worktree is a declared display string such
//     as "feat/x", compared as written, never given to git);
//     parent_presence_id must be a presence id, any other is dropped.
//   - touched keeps the entries whose path is absolute and clean, at most
//     MaxTouched (the rest are counted omitted); touched_omitted,
//     query_count, ttl_ms and mutation.observed_at_ms below zero are
//     zero (absent); first_seen_ms after last_beat_ms is last_beat_ms.
//   - changed keeps the entries that are clean repository-relative paths
//     (no "..", not absolute, at most MaxPathLen), sorted, each once, at
//     most MaxChanged and MaxChangedBytes; changed_total is at least what
//     is listed; changed_total and changed_at_ms below zero are zero;
//     a repository over MaxRepositoryBytes or of more than one line is
//     dropped.
//
// It returns how many fields it repaired.
func (r *Record) repairForeign() (int, error) {
	n := 0
	for _, p := range []*string{&r.CallerRoot, &r.Worktree} {
		if filepath.IsAbs(*p) && !cleanAbs(*p) {
			*p = filepath.Clean(*p)
			n++
		}
	}
	if r.ParentPresenceID != "" && !ValidID(r.ParentPresenceID) {
		r.ParentPresenceID = ""
		n++
	}
	if bad := slices.IndexFunc(r.Touched, func(t Touch) bool { return !cleanAbs(t.Path) }); bad >= 0 {
		kept := make([]Touch, 0, len(r.Touched)-1)
		for _, t := range r.Touched {
			if cleanAbs(t.Path) {
				kept = append(kept, t)
			}
		}
		r.Touched = kept
		n++
	}
	if len(r.Touched) > MaxTouched {
		r.TouchedOmitted = max(r.TouchedOmitted, 0) + int64(len(r.Touched)-MaxTouched)
		r.Touched = r.Touched[:MaxTouched:MaxTouched]
		n++
	}
	n += r.repairChanged()
	if r.Host != "" && !ValidHost(r.Host) {
		r.Host = ""
		n++
	}
	if id := boundRepository(r.Repository); id != r.Repository {
		r.Repository = id
		n++
	}
	for _, v := range []*int64{&r.TouchedOmitted, &r.QueryCount, &r.TTLMs, &r.Mutation.ObservedAtMs, &r.ChangedAtMs} {
		if *v < 0 {
			*v = 0
			n++
		}
	}
	if r.FirstSeenMs > r.LastBeatMs {
		r.FirstSeenMs = r.LastBeatMs
		n++
	}
	return n, nil
}

// repairChanged brings changed inside its bounds (see repairForeign) and
// returns how many fields it repaired. Its work is bounded by the
// record's size (MaxRecordBytes).
func (r *Record) repairChanged() int {
	n := 0
	if r.ChangedTotal < 0 {
		r.ChangedTotal = 0
		n++
	}
	if len(r.Changed) == 0 {
		return n
	}
	ok := func(p string) bool { return len(p) <= MaxPathLen && CleanRel(p) }
	if slices.IndexFunc(r.Changed, func(p string) bool { return !ok(p) }) >= 0 || !strictlySorted(r.Changed) {
		kept := make([]string, 0, len(r.Changed))
		for _, p := range r.Changed {
			if ok(p) {
				kept = append(kept, p)
			}
		}
		slices.Sort(kept)
		r.Changed = slices.Compact(kept)
		n++
	}
	files, total := boundChanged(r.Changed, r.ChangedTotal)
	if len(files) < len(r.Changed) || total != r.ChangedTotal {
		n++ // more than the bounds list, or a total below the files listed
	}
	r.Changed, r.ChangedTotal = files, total
	if len(r.Changed) == 0 {
		r.Changed = nil
	}
	return n
}

// strictlySorted reports whether ss is sorted with no entry twice.
func strictlySorted(ss []string) bool {
	for i := 1; i < len(ss); i++ {
		if ss[i-1] >= ss[i] {
			return false
		}
	}
	return true
}

// CleanRel reports whether p is a repository-relative path in its clean
// form, "/"-separated: not empty, not ".", not absolute, no "." or ".."
// segment, no empty segment, no trailing slash.
func CleanRel(p string) bool {
	return p != "" && p != "." && !strings.HasPrefix(p, "/") && path.Clean(p) == p &&
		p != ".." && !strings.HasPrefix(p, "../")
}

// cleanAbs reports whether p is an absolute path in its clean form.
func cleanAbs(p string) bool { return filepath.IsAbs(p) && filepath.Clean(p) == p }

// EncodeRecord writes the record as the spec shows it: pretty-printed JSON
// with a trailing newline.
func EncodeRecord(r Record) ([]byte, error) {
	if r.Schema == "" {
		r.Schema = Schema
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode record %s: %w", r.PresenceID, err)
	}
	return append(b, '\n'), nil
}

// ValidHost reports whether a host name can stand on a record: an
// identifier (CheckIdentifier's rule) of at most MaxIDLen bytes. A
// Hall's --host-name is held to it at start; a foreign record's host
// that breaks it is dropped at read (repairForeign).
func ValidHost(h string) bool {
	return h != "" && CheckIdentifier("host", h, MaxIDLen) == nil
}

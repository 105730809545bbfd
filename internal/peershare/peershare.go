// Package peershare is what Halls on several hosts share of the sides of
// an overlap across hosts, so that one of them predicts its merge with its
// own git and the other reads the verdict (issue 43 item 3,
// docs/nats.md#what-each-hall-publishes).
//
// It works in the background, never on a request's path: the overlap
// finder hands it the overlaps across hosts it found (Want, a swap under
// a lock) and reads the latest verdict known (Verdict, a map lookup); a
// round on its own goroutine publishes, reads and predicts, and nudges
// the roster when a verdict moved. A NATS server or a peer Hall that is
// slow or gone delays a round, never a hook answer.
//
// In --share-changes=paths (the default) it publishes nothing and reads
// nothing: every overlap across hosts stays merge unknown, paths_only.
// In content, for each overlap across hosts:
//
//   - the Hall whose host name sorts first (the predictor) publishes its
//     side's state (its snapshot commit) and HEAD, no content; the other
//     publishes its side's state, HEAD and the blobs of the overlap's
//     files as its snapshot holds them (bounded per overlap, per
//     repository and in total; what is left out is counted and said);
//   - the predictor reads the other's side, merges it with its own
//     snapshot in its scanner's scratch (gitscan.MergePeer) and publishes
//     the verdict keyed by the two states; the other reads it there and
//     labels it with the predictor's host. Two Halls never both predict
//     one pair's merge for one pair of states.
//
// What is published lives in a NATS Key-Value bucket (natsstore.Board):
// small keyed entries, one per side of an overlap and per verdict, each
// replaced whole and expiring on its own (the bucket's TTL), which is
// what a KV bucket is; an Object Store is for large objects in chunks,
// which the bounds here rule out.
package peershare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/hall"
)

// Mode is what a Hall shares with the others (--share-changes).
type Mode string

// The modes.
const (
	// Paths: nothing beyond the records (their paths) leaves the machine.
	Paths Mode = "paths"
	// Content: for files in an overlap across hosts, a side's base and
	// blobs are published too.
	Content Mode = "content"
)

// ParseMode reads --share-changes.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Paths:
		return Paths, nil
	case Content:
		return Content, nil
	}
	return "", fmt.Errorf("--share-changes %q: want paths or content", s)
}

// Board is where Halls share (*natsstore.Board).
type Board interface {
	Put(ctx context.Context, key string, value []byte) error
	Get(ctx context.Context, key string) ([]byte, bool, error)
}

// Git is what the sharer runs of git (*gitscan.Scanner): a side's
// snapshot, the files to ship from it, and a merge with a shipped side.
type Git interface {
	Snapshot(ctx context.Context, worktree string) (gitscan.Snapshot, bool)
	PeerFiles(ctx context.Context, snap gitscan.Snapshot, paths []string, maxBytes int64) ([]gitscan.PeerFile, int, error)
	MergePeer(ctx context.Context, local gitscan.Snapshot, peer gitscan.PeerContent, store *gitscan.RemoteStore) (gitscan.Merge, error)
}

// Bases finds a far side's HEAD that this repository's objects lack in
// the Hall's own store of the remote a worktree here fetches from,
// fetching it there when it is not yet (*remotewatch.Commits): false
// when the remote lacks it too (not pushed).
type Bases interface {
	Find(ctx context.Context, worktree, commit string) (gitscan.RemoteStore, bool, error)
}

// Bounds on what a Hall works on and ships. Zero takes the default.
type Bounds struct {
	// MaxPairs is the most overlaps across hosts worked on (the first,
	// in the order of their sides); the rest are counted and stay
	// unknown (pending).
	MaxPairs int
	// MaxFiles is the most files shipped for one overlap.
	MaxFiles int
	// MaxOverlapBytes, MaxRepositoryBytes and MaxTotalBytes bound the
	// content published for one overlap, for all overlaps of one
	// repository, and in all, at any time.
	MaxOverlapBytes, MaxRepositoryBytes, MaxTotalBytes int64
}

// The default bounds.
const (
	DefaultMaxPairs           = 64
	DefaultMaxFiles           = 20
	DefaultMaxOverlapBytes    = 256 << 10
	DefaultMaxRepositoryBytes = 1 << 20
	DefaultMaxTotalBytes      = 4 << 20
)

func (b Bounds) withDefaults() Bounds {
	or := func(v, d int64) int64 {
		if v <= 0 {
			return d
		}
		return v
	}
	b.MaxPairs = int(or(int64(b.MaxPairs), DefaultMaxPairs))
	b.MaxFiles = int(or(int64(b.MaxFiles), DefaultMaxFiles))
	b.MaxOverlapBytes = or(b.MaxOverlapBytes, DefaultMaxOverlapBytes)
	b.MaxRepositoryBytes = or(b.MaxRepositoryBytes, DefaultMaxRepositoryBytes)
	b.MaxTotalBytes = or(b.MaxTotalBytes, DefaultMaxTotalBytes)
	return b
}

// Config configures a Sharer.
type Config struct {
	Host  string // this Hall's host name
	Mode  Mode
	Board Board // nil: nothing shared (every pair not_shared)
	Git   Git   // nil: nothing predicted nor shipped
	// Bases is where a far side's HEAD not among this repository's
	// objects is looked for and fetched; nil: nowhere (base_not_here).
	// A pair whose base was nowhere is tried again after BaseRetry
	// (1 min); Bases paces its own fetches.
	Bases     Bases
	BaseRetry time.Duration
	Bounds    Bounds
	// Interval is the pause between two rounds (1 s); a Want with new
	// pairs starts one at once.
	Interval time.Duration
	// Refresh is how often an unchanged entry is published again, so it
	// outlives the bucket's TTL while its overlap stands (20 s).
	Refresh time.Duration
	// Hold is how long a pair's last verdict (clean or conflict) stands
	// while the predicting Hall has not answered for the sides' new
	// states yet (5 intervals), as the scanner keeps a pair of
	// worktrees' last prediction while it predicts the new one; past
	// it, the pair says peer_verdict_pending. So an edit elsewhere in
	// either clone does not flip a conflict to pending and back.
	Hold time.Duration
	// Notify is called when a verdict changed: the roster derives again.
	Notify func()
	Log    *slog.Logger
}

// Stats are the sharer's counters, for /metrics.
type Stats struct {
	BytesShipped, BlobsShipped          int64 // content published (side entries)
	VerdictsShared, VerdictsRead        int64 // verdicts published; read from another host's Hall
	PairsLeftOut, FilesLeftOut          int64 // over MaxPairs; files not shipped (over a bound)
	BoardFailures                       int64 // publishes and reads that failed (NATS gone, slow)
	Predictions, PredictionsBaseNotHere int64
}

// Sharer shares sides across hosts (see the package doc). Safe for
// concurrent use; Run drives it.
type Sharer struct {
	cfg  Config
	wake chan struct{}

	mu       sync.Mutex
	want     []hall.PeerPair
	verdicts map[pairKey]hall.PeerVerdict

	// The round's own state, touched by Run's goroutine only.
	published map[string]published // board key → what was put, when
	computed  map[string]verdictEntry
	// shipped is the content last read for each side entry (by board
	// key), so an unchanged side (one state, one set of files) runs no
	// git to ship it again.
	shipped map[string]shippedSide
	// waiting is when each pair began waiting for the predictor's
	// verdict on its sides' new states, its last verdict held (Hold).
	waiting map[pairKey]time.Time

	n struct {
		bytes, blobs, shared, read, pairsOut, filesOut, fails, preds, baseNotHere atomic.Int64
	}
}

type pairKey struct{ local, peerHost, peerWorktree string }

type shippedSide struct {
	state, files string // the snapshot commit and the files asked, joined
	budget       int64  // the room it was read within
	entry        sideEntry
}

type published struct {
	sum string // a hash of the entry's content, labels and state
	at  time.Time
}

// New returns a sharer; Run starts it.
func New(cfg Config) *Sharer {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = 20 * time.Second
	}
	if cfg.Hold <= 0 {
		cfg.Hold = 5 * cfg.Interval
	}
	if cfg.BaseRetry <= 0 {
		cfg.BaseRetry = time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.Bounds = cfg.Bounds.withDefaults()
	return &Sharer{cfg: cfg, wake: make(chan struct{}, 1), verdicts: map[pairKey]hall.PeerVerdict{},
		published: map[string]published{}, computed: map[string]verdictEntry{}, shipped: map[string]shippedSide{},
		waiting: map[pairKey]time.Time{}}
}

// Mode is what the sharer shares.
func (s *Sharer) Mode() Mode { return s.cfg.Mode }

// Want hands the sharer the overlaps across hosts found now; it never
// waits. A set that differs from the last starts a round.
func (s *Sharer) Want(pairs []hall.PeerPair) {
	s.mu.Lock()
	same := slices.EqualFunc(s.want, pairs, func(a, b hall.PeerPair) bool {
		return a.Repository == b.Repository && a.Local == b.Local && a.Peer == b.Peer && slices.Equal(a.Files, b.Files)
	})
	if !same {
		s.want = slices.Clone(pairs)
	}
	s.mu.Unlock()
	if !same {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Changed says git answered anew for a worktree here (the scanner's
// news): when it is this Hall's side of a wanted pair, a round starts at
// once and publishes the side's new state, rather than at the next
// interval. It never waits.
func (s *Sharer) Changed(worktree string) {
	s.mu.Lock()
	mine := slices.ContainsFunc(s.want, func(p hall.PeerPair) bool { return p.Local.Worktree == worktree })
	s.mu.Unlock()
	if mine {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Verdict is the latest verdict known for a pair; false before the first
// round that worked on it. In paths mode it is always unknown,
// paths_only.
func (s *Sharer) Verdict(local, peer hall.PeerSide) (hall.PeerVerdict, bool) {
	switch {
	case s.cfg.Mode != Content:
		return hall.PeerVerdict{Merge: contract.MergeUnknown, Reason: contract.MergeReasonPathsOnly}, true
	case s.cfg.Board == nil:
		return hall.PeerVerdict{Merge: contract.MergeUnknown, Reason: contract.MergeReasonNotShared}, true
	case s.cfg.Git == nil: // no usable git here: nothing to predict with, nor to ship
		return hall.PeerVerdict{Merge: contract.MergeUnknown, Reason: contract.MergeReasonNoGit}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.verdicts[pairKey{local.Worktree, peer.Host, peer.Worktree}]
	return v, ok
}

// Stats returns the counters.
func (s *Sharer) Stats() Stats {
	return Stats{
		BytesShipped: s.n.bytes.Load(), BlobsShipped: s.n.blobs.Load(),
		VerdictsShared: s.n.shared.Load(), VerdictsRead: s.n.read.Load(),
		PairsLeftOut: s.n.pairsOut.Load(), FilesLeftOut: s.n.filesOut.Load(), BoardFailures: s.n.fails.Load(),
		Predictions: s.n.preds.Load(), PredictionsBaseNotHere: s.n.baseNotHere.Load(),
	}
}

// Run works rounds until ctx ends. In paths mode it returns at once.
func (s *Sharer) Run(ctx context.Context) {
	if s.cfg.Mode != Content || s.cfg.Board == nil || s.cfg.Git == nil {
		return
	}
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
		s.round(ctx)
	}
}

// sideEntry is one side of an overlap across hosts as its Hall publishes
// it (docs/nats.md lists the fields).
type sideEntry struct {
	Kind         string             `json:"kind"` // "side"
	Host         string             `json:"host"`
	Worktree     string             `json:"worktree"`
	Repository   string             `json:"repository"`
	PeerHost     string             `json:"peer_host"`
	PeerWorktree string             `json:"peer_worktree"`
	State        string             `json:"state"` // the side's snapshot commit id
	Head         string             `json:"head"`  // its parent: the side's HEAD
	Files        []gitscan.PeerFile `json:"files,omitempty"`
	// FilesOmitted counts the overlap's files not shipped (past a
	// bound, or not a file); the reader then predicts nothing.
	FilesOmitted int   `json:"files_omitted,omitempty"`
	AtMs         int64 `json:"at_ms"`
}

// verdictEntry is a verdict as the predicting Hall publishes it.
type verdictEntry struct {
	Kind           string    `json:"kind"` // "verdict"
	Host           string    `json:"host"` // whose git predicted it
	Repository     string    `json:"repository"`
	States         [2]string `json:"states"` // the two sides' states, sorted
	Merge          string    `json:"merge"`  // clean, conflict or unknown
	Reason         string    `json:"reason,omitempty"`
	Conflicts      []string  `json:"conflicts,omitempty"`
	ConflictsTotal int       `json:"conflicts_total,omitempty"`
	AtMs           int64     `json:"at_ms"`
}

// sideKey is the board key of the side from→to of one repository.
func sideKey(repo string, from, to hall.PeerSide) string {
	return "side." + digest(repo, from.Host, from.Worktree, to.Host, to.Worktree)
}

// verdictKey is the board key of the verdict for two states.
func verdictKey(states [2]string) string { return "verdict." + digest(states[0], states[1]) }

func digest(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

func sortedStates(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// round works every wanted pair once, within the bounds, and publishes
// the verdicts it came to.
func (s *Sharer) round(ctx context.Context) {
	s.mu.Lock()
	want := slices.Clone(s.want)
	s.mu.Unlock()
	slices.SortFunc(want, func(a, b hall.PeerPair) int {
		return strings.Compare(a.Local.Worktree+"\x00"+a.Peer.Host+"\x00"+a.Peer.Worktree, b.Local.Worktree+"\x00"+b.Peer.Host+"\x00"+b.Peer.Worktree)
	})
	if over := len(want) - s.cfg.Bounds.MaxPairs; over > 0 {
		s.n.pairsOut.Add(int64(over))
		want = want[:s.cfg.Bounds.MaxPairs]
	}
	b := budget{total: s.cfg.Bounds.MaxTotalBytes, repo: map[string]int64{}}
	next := make(map[pairKey]hall.PeerVerdict, len(want))
	s.mu.Lock()
	last := s.verdicts
	s.mu.Unlock()
	waiting := make(map[pairKey]time.Time, len(s.waiting))
	for _, p := range want {
		if ctx.Err() != nil {
			return
		}
		k := pairKey{p.Local.Worktree, p.Peer.Host, p.Peer.Worktree}
		v := s.work(ctx, p, &b)
		if prev, ok := last[k]; ok && v.Reason == contract.MergeReasonPeerWaiting && prev.Merge != contract.MergeUnknown {
			since, ok := s.waiting[k]
			if !ok {
				since = time.Now()
			}
			if time.Since(since) < s.cfg.Hold {
				v, waiting[k] = prev, since
			}
		}
		next[k] = v
	}
	s.waiting = waiting
	s.mu.Lock()
	changed := !mapsEqual(s.verdicts, next)
	s.verdicts = next
	s.mu.Unlock()
	if changed && s.cfg.Notify != nil {
		s.cfg.Notify()
	}
}

// budget is what a round may still publish: in all, and per repository.
type budget struct {
	total int64
	repo  map[string]int64 // used per repository
}

// work publishes this Hall's side of one pair and answers its verdict:
// predicted here when this host sorts first, read from the board
// otherwise.
func (s *Sharer) work(ctx context.Context, p hall.PeerPair, b *budget) hall.PeerVerdict {
	unknown := func(reason string) hall.PeerVerdict {
		return hall.PeerVerdict{Merge: contract.MergeUnknown, Reason: reason}
	}
	snap, ok := s.cfg.Git.Snapshot(ctx, p.Local.Worktree)
	if !ok {
		return unknown(contract.MergeReasonGitFailed)
	}
	predictor := s.cfg.Host < p.Peer.Host
	mine := sideEntry{
		Kind: "side", Host: s.cfg.Host, Worktree: p.Local.Worktree, Repository: p.Repository,
		PeerHost: p.Peer.Host, PeerWorktree: p.Peer.Worktree, State: snap.Commit, Head: snap.Head,
	}
	if !predictor {
		s.ship(ctx, p, snap, &mine, b)
	}
	if err := s.publish(ctx, sideKey(p.Repository, p.Local, p.Peer), mine); err != nil {
		return unknown(contract.MergeReasonUnreachable)
	}
	theirs, found, err := s.readSide(ctx, sideKey(p.Repository, p.Peer, p.Local), p)
	switch {
	case err != nil:
		return unknown(contract.MergeReasonUnreachable)
	case !found:
		return unknown(contract.MergeReasonPeerPaths)
	}
	states := sortedStates(snap.Commit, theirs.State)
	if predictor {
		return s.predict(ctx, p, snap, theirs, states)
	}
	raw, found, err := s.cfg.Board.Get(ctx, verdictKey(states))
	if err != nil {
		s.n.fails.Add(1)
		return unknown(contract.MergeReasonUnreachable)
	}
	var v verdictEntry
	if !found || json.Unmarshal(raw, &v) != nil || v.Kind != "verdict" || v.States != states || v.Host != p.Peer.Host {
		return unknown(contract.MergeReasonPeerWaiting)
	}
	s.n.read.Add(1)
	return verdictOf(v)
}

// ship reads the overlap's files from the side's snapshot into its
// entry, within what the budget leaves.
func (s *Sharer) ship(ctx context.Context, p hall.PeerPair, snap gitscan.Snapshot, e *sideEntry, b *budget) {
	files := p.Files
	if over := len(files) - s.cfg.Bounds.MaxFiles; over > 0 {
		e.FilesOmitted += over
		files = files[:s.cfg.Bounds.MaxFiles]
	}
	room := max(min(s.cfg.Bounds.MaxOverlapBytes, s.cfg.Bounds.MaxRepositoryBytes-b.repo[p.Repository], b.total), 0)
	key, asked := sideKey(p.Repository, p.Local, p.Peer), strings.Join(files, "\x00")
	if last, ok := s.shipped[key]; ok && last.state == snap.Commit && last.files == asked && last.budget == room {
		e.Files, e.FilesOmitted = last.entry.Files, last.entry.FilesOmitted
	} else {
		shipped, omitted, err := s.cfg.Git.PeerFiles(ctx, snap, files, room)
		if err != nil {
			e.FilesOmitted += len(files)
			s.n.filesOut.Add(int64(len(files)))
			return
		}
		e.Files, e.FilesOmitted = shipped, e.FilesOmitted+omitted
		if len(s.shipped) >= 2*s.cfg.Bounds.MaxPairs {
			clear(s.shipped)
		}
		s.shipped[key] = shippedSide{state: snap.Commit, files: asked, budget: room, entry: *e}
		s.n.filesOut.Add(int64(e.FilesOmitted))
	}
	var used int64
	for _, f := range e.Files {
		used += int64(len(f.Data))
	}
	b.repo[p.Repository] += used
	b.total -= used
}

// predict merges the other side with this one's snapshot and publishes
// the verdict, once per pair of states.
func (s *Sharer) predict(ctx context.Context, p hall.PeerPair, snap gitscan.Snapshot, theirs sideEntry, states [2]string) hall.PeerVerdict {
	key := verdictKey(states)
	v, done := s.computed[key]
	if done && v.Reason == contract.MergeReasonBaseNotHere && time.Since(time.UnixMilli(v.AtMs)) >= s.cfg.BaseRetry {
		done = false // the commit may have been pushed since
	}
	if !done {
		v = verdictEntry{Kind: "verdict", Host: s.cfg.Host, Repository: p.Repository, States: states, Merge: contract.MergeUnknown}
		switch {
		case theirs.FilesOmitted > 0:
			v.Reason = contract.MergeReasonContentCut
		default:
			m, err := s.merge(ctx, p, snap, theirs)
			s.n.preds.Add(1)
			switch {
			case gitscan.CodeOf(err) == gitscan.BaseNotHere:
				s.n.baseNotHere.Add(1)
				v.Reason = contract.MergeReasonBaseNotHere
			case err != nil:
				s.cfg.Log.Debug("peershare: a merge across hosts not predicted", "peer", p.Peer.Host, "err", err)
				return hall.PeerVerdict{Merge: contract.MergeUnknown, Reason: contract.MergeReasonGitFailed}
			case m.Conflict:
				v.Merge, v.Conflicts, v.ConflictsTotal = contract.MergeConflict, m.Conflicts[:min(len(m.Conflicts), DefaultMaxFiles)], m.ConflictsTotal
			default:
				v.Merge = contract.MergeClean
			}
		}
		v.AtMs = time.Now().UnixMilli()
		if len(s.computed) >= 4*s.cfg.Bounds.MaxPairs {
			clear(s.computed)
		}
		s.computed[key] = v
	}
	if err := s.publish(ctx, key, v); err == nil {
		if !done {
			s.n.shared.Add(1)
		}
	}
	return verdictOf(v)
}

// merge predicts the pair's merge with this Hall's git: the far side's
// HEAD from this repository's objects, else from the Hall's own store of
// the remote (found there, or fetched into it), else BaseNotHere.
func (s *Sharer) merge(ctx context.Context, p hall.PeerPair, snap gitscan.Snapshot, theirs sideEntry) (gitscan.Merge, error) {
	content := gitscan.PeerContent{Head: theirs.Head, Files: theirs.Files}
	m, err := s.cfg.Git.MergePeer(ctx, snap, content, nil)
	if gitscan.CodeOf(err) != gitscan.BaseNotHere || s.cfg.Bases == nil {
		return m, err
	}
	store, ok, ferr := s.cfg.Bases.Find(ctx, p.Local.Worktree, theirs.Head)
	if ferr != nil {
		s.cfg.Log.Debug("peershare: a far side's base not fetched", "peer", p.Peer.Host, "head", theirs.Head, "err", ferr)
	}
	if !ok {
		return m, err
	}
	return s.cfg.Git.MergePeer(ctx, snap, content, &store)
}

func verdictOf(v verdictEntry) hall.PeerVerdict {
	return hall.PeerVerdict{Merge: v.Merge, Reason: v.Reason, By: v.Host, Conflicts: v.Conflicts, ConflictsTotal: v.ConflictsTotal}
}

// readSide reads the other side's entry, checked against the pair it is
// for (its labels).
func (s *Sharer) readSide(ctx context.Context, key string, p hall.PeerPair) (sideEntry, bool, error) {
	raw, found, err := s.cfg.Board.Get(ctx, key)
	if err != nil {
		s.n.fails.Add(1)
		return sideEntry{}, false, err
	}
	var e sideEntry
	if !found || json.Unmarshal(raw, &e) != nil || e.Kind != "side" || e.Host != p.Peer.Host || e.Worktree != p.Peer.Worktree ||
		e.PeerHost != s.cfg.Host || e.Repository != p.Repository || e.State == "" {
		return sideEntry{}, false, nil
	}
	return e, true, nil
}

// publish puts an entry on the board when it changed or is due for a
// refresh (else it would expire while its overlap stands), counting the
// content it ships.
func (s *Sharer) publish(ctx context.Context, key string, entry any) error {
	var sum string
	var blobs, bytes int64
	switch e := entry.(type) {
	case sideEntry:
		at := e.AtMs
		e.AtMs = 0
		raw, _ := json.Marshal(e)
		sum = digest(string(raw))
		e.AtMs = at
		for _, f := range e.Files {
			blobs++
			bytes += int64(len(f.Data))
		}
	case verdictEntry:
		at := e.AtMs
		e.AtMs = 0
		raw, _ := json.Marshal(e)
		sum = digest(string(raw))
		e.AtMs = at
	}
	if last, ok := s.published[key]; ok && last.sum == sum && time.Since(last.at) < s.cfg.Refresh {
		return nil
	}
	if se, ok := entry.(sideEntry); ok {
		se.AtMs = time.Now().UnixMilli()
		entry = se
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	if err := s.cfg.Board.Put(ctx, key, raw); err != nil {
		s.n.fails.Add(1)
		delete(s.published, key)
		return err
	}
	if len(s.published) >= 8*s.cfg.Bounds.MaxPairs {
		clear(s.published)
	}
	s.published[key] = published{sum: sum, at: time.Now()}
	s.n.blobs.Add(blobs)
	s.n.bytes.Add(bytes)
	return nil
}

func mapsEqual(a, b map[pairKey]hall.PeerVerdict) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Merge != w.Merge || v.Reason != w.Reason || v.By != w.By || v.ConflictsTotal != w.ConflictsTotal || !slices.Equal(v.Conflicts, w.Conflicts) {
			return false
		}
	}
	return true
}

package remotewatch

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// Board is where the Halls on one NATS store share their watch
// (*natsstore.Board): one of them, the lease's holder, looks at each
// remote and publishes its answer; the others read it instead of running
// git ls-remote themselves, and fetch the tips it names into their own
// store. An entry lives the board's TTL unless written again.
type Board interface {
	Entry(ctx context.Context, key string) ([]byte, uint64, bool, error)
	Swap(ctx context.Context, key string, value []byte, rev uint64) (uint64, bool, error)
	TTL() time.Duration
}

// MaxSharedHeads is the most branches a shared answer may name; an answer
// naming more is refused and the Hall looks itself.
const MaxSharedHeads = 2000

// lapses is how many renewal periods a lease may go unrenewed before
// another Hall takes it.
const lapses = 3

// releaseWait bounds the writes that release a stopping Hall's leases.
const releaseWait = 2 * time.Second

// lease is a shared watch's entry in the board: who holds it, how often it
// promises to write it again, and its last look's answer. The holder
// writes it again at each look and at each renewal; a reader judges it
// lapsed by its revision standing still on the reader's own clock (no
// two hosts' clocks compared). An entry that parses with no holder was
// released by a Hall that stopped: the next Hall to look takes it.
type lease struct {
	Holder  string `json:"holder"`   // the holding Hall's host name and a word of its own
	Host    string `json:"host"`     // the holding Hall's host name
	RenewMs int64  `json:"renew_ms"` // the holder writes the entry again at least this often
	// The answer of the holder's last look (LookedMs zero: none yet):
	// the default branch and the tips of it and of the active branches,
	// at most the holder's branch bound (Omitted counts the rest), and
	// when a Hall first saw each tip (SeenMs, by commit).
	LookedMs int64             `json:"looked_ms,omitempty"`
	Err      string            `json:"err,omitempty"` // the last look failed: git's words, URLs redacted
	Default  string            `json:"default,omitempty"`
	Heads    map[string]string `json:"heads,omitempty"`
	Omitted  int               `json:"omitted,omitempty"`
	SeenMs   map[string]int64  `json:"seen_ms,omitempty"`
}

// shareState is one watch's part in a shared watch.
type shareState struct {
	holding  bool
	rev      uint64    // the entry's revision last written (holding) or read
	revAt    time.Time // when rev was first read (not holding): a lapse is judged from it
	renewAt  time.Time // holding: when the entry is written again
	last     lease     // holding: what was last written
	sharedBy string    // the host whose answer the last look used ("" its own)
}

// newHolder names this Hall as a lease's holder: its host name and a
// random word, so two Halls on one host are told apart.
func newHolder(host string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return host + "/" + hex.EncodeToString(b[:])
}

// boardKey is a remote's key in the board. A local path names a
// different repository on each host, so its key carries the host.
func boardKey(host, identity string) string {
	if strings.HasPrefix(identity, "file://") {
		identity = host + "\x00" + identity
	}
	sum := sha256.Sum256([]byte(identity))
	return "watch." + hex.EncodeToString(sum[:12])
}

// renewEvery is how often a holder writes its entry again: each
// interval, and within half the board's TTL so the entry never expires
// under a live holder.
func (w *Watcher) renewEvery() time.Duration {
	every := w.cfg.Interval
	if ttl := w.cfg.Board.TTL(); ttl > 0 && ttl/2 < every {
		every = ttl / 2
	}
	return max(every, time.Second)
}

// role is what a Hall does at one look of a shared watch.
type role int

const (
	lookSelf role = iota // no board, the board unreachable, or this Hall holds the lease: it runs ls-remote
	follow               // another Hall holds the lease and answered: read its answer
	wait                 // another Hall holds the lease and has not answered yet: ask again soon
)

// waitRetry is how soon a Hall asks again for the answer of a holder
// that has not looked yet.
const waitRetry = 2 * time.Second

// shared answers what this Hall does at a look of wa's remote, with the
// holder's answer when it follows. The board unreachable: lookSelf
// (fail-open, each Hall watches for itself).
func (w *Watcher) shared(ctx context.Context, wa *watch, clock time.Time) (lease, role) {
	if w.cfg.Board == nil {
		return lease{}, lookSelf
	}
	key := boardKey(w.cfg.Host, wa.identity)
	val, rev, ok, err := w.cfg.Board.Entry(ctx, key)
	if err != nil {
		w.setShare(wa, shareState{})
		return lease{}, lookSelf
	}
	var l lease
	unreadable := ok && json.Unmarshal(val, &l) != nil
	if unreadable {
		l = lease{} // nobody's, taken when it lapses
	}
	w.mu.Lock()
	sh := wa.share
	w.mu.Unlock()
	switch {
	case !ok:
		return lease{}, w.take(ctx, wa, key, 0, clock)
	case l.Holder == "" && !unreadable: // released by its holder's stop
		return lease{}, w.take(ctx, wa, key, rev, clock)
	case l.Holder == w.holder:
		sh.holding, sh.rev, sh.sharedBy = true, rev, ""
		w.setShare(wa, sh)
		return lease{}, lookSelf
	}
	if sh.holding || rev != sh.rev {
		sh = shareState{rev: rev, revAt: clock}
	}
	renew := min(max(time.Duration(l.RenewMs)*time.Millisecond, time.Second), time.Hour)
	if clock.Sub(sh.revAt) >= lapses*renew {
		return lease{}, w.take(ctx, wa, key, rev, clock)
	}
	if l.LookedMs == 0 {
		sh.sharedBy = ""
		w.setShare(wa, sh)
		return lease{}, wait
	}
	if !l.valid() {
		sh.sharedBy = ""
		w.setShare(wa, sh)
		return lease{}, lookSelf
	}
	sh.sharedBy = l.Host
	w.setShare(wa, sh)
	return l, follow
}

func (w *Watcher) setShare(wa *watch, sh shareState) {
	w.mu.Lock()
	wa.share = sh
	w.mu.Unlock()
}

// take tries to take wa's lease at rev (0: there is none): won, this
// Hall looks itself; lost to another Hall, it waits for that one's
// answer; the board failing, it looks itself.
func (w *Watcher) take(ctx context.Context, wa *watch, key string, rev uint64, clock time.Time) role {
	l := lease{Holder: w.holder, Host: w.cfg.Host, RenewMs: w.renewEvery().Milliseconds()}
	b, err := json.Marshal(l)
	if err != nil {
		return lookSelf
	}
	next, won, err := w.cfg.Board.Swap(ctx, key, b, rev)
	switch {
	case err != nil:
		w.setShare(wa, shareState{})
		return lookSelf
	case !won:
		w.setShare(wa, shareState{})
		return wait
	}
	w.setShare(wa, shareState{holding: true, rev: next, renewAt: clock.Add(w.renewEvery()), last: l})
	return lookSelf
}

// publish writes wa's lease again with the answer of the look just done
// (failed: err), when this Hall holds it; a lease lost meanwhile is let
// go.
func (w *Watcher) publish(ctx context.Context, wa *watch, clock time.Time, lookErr string) {
	if w.cfg.Board == nil {
		return
	}
	w.mu.Lock()
	sh := wa.share
	if !sh.holding {
		w.mu.Unlock()
		return
	}
	l := lease{Holder: w.holder, Host: w.cfg.Host, RenewMs: w.renewEvery().Milliseconds(), LookedMs: clock.UnixMilli(), Err: lookErr}
	if lookErr == "" {
		l.Default, l.Omitted = wa.def, wa.omitted
		l.Heads, l.SeenMs = map[string]string{}, map[string]int64{}
		names := []string{wa.def}
		for _, b := range wa.branches {
			names = append(names, b.Name)
		}
		for _, n := range names {
			if id, ok := wa.heads[n]; ok && n != "" {
				l.Heads[n] = id
				l.SeenMs[id] = wa.seen[id]
			}
		}
	} else if sh.last.LookedMs != 0 {
		// The last good answer stays, with this look's failure.
		l.Default, l.Heads, l.Omitted, l.SeenMs = sh.last.Default, sh.last.Heads, sh.last.Omitted, sh.last.SeenMs
	}
	w.mu.Unlock()
	w.write(ctx, wa, l, sh.rev, clock)
}

// renew writes the lease of each watch this Hall holds whose renewal is
// due, its last answer unchanged.
func (w *Watcher) renew(ctx context.Context, clock time.Time) {
	if w.cfg.Board == nil {
		return
	}
	type due struct {
		wa  *watch
		l   lease
		rev uint64
	}
	var todo []due
	w.mu.Lock()
	for _, wa := range w.watches {
		if wa.share.holding && !clock.Before(wa.share.renewAt) {
			todo = append(todo, due{wa, wa.share.last, wa.share.rev})
		}
	}
	w.mu.Unlock()
	for _, d := range todo {
		w.write(ctx, d.wa, d.l, d.rev, clock)
	}
}

func (w *Watcher) write(ctx context.Context, wa *watch, l lease, rev uint64, clock time.Time) {
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	next, won, err := w.cfg.Board.Swap(ctx, boardKey(w.cfg.Host, wa.identity), b, rev)
	if err != nil || !won {
		w.setShare(wa, shareState{}) // the board gone or the lease taken: the next look asks again
		return
	}
	w.setShare(wa, shareState{holding: true, rev: next, renewAt: clock.Add(w.renewEvery()), last: l})
}

// release gives up the leases this Hall holds, at its stop: each entry
// is written again with no holder (at the revision this Hall wrote, so a
// lease another Hall took meanwhile stays that Hall's), and the next Hall
// to look takes it at once instead of waiting for it to lapse. Bounded by
// releaseWait whatever ctx says; a board that does not answer leaves the
// leases to lapse.
func (w *Watcher) release(ctx context.Context) {
	if w.cfg.Board == nil {
		return
	}
	type held struct {
		key string
		rev uint64
	}
	var todo []held
	w.mu.Lock()
	for _, wa := range w.watches {
		if wa.share.holding {
			todo = append(todo, held{boardKey(w.cfg.Host, wa.identity), wa.share.rev})
			wa.share = shareState{}
		}
	}
	w.mu.Unlock()
	if len(todo) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseWait)
	defer cancel()
	b, err := json.Marshal(lease{Host: w.cfg.Host})
	if err != nil {
		return
	}
	for _, h := range todo {
		if _, _, err := w.cfg.Board.Swap(ctx, h.key, b, h.rev); err != nil {
			return // the board not answering: the rest lapse too
		}
	}
}

// nextRenewal is the earliest renewal due among the leases held (zero:
// none).
func (w *Watcher) nextRenewal() time.Time {
	var next time.Time
	for _, wa := range w.watches {
		if wa.share.holding && (next.IsZero() || wa.share.renewAt.Before(next)) {
			next = wa.share.renewAt
		}
	}
	return next
}

// valid checks an answer another Hall wrote before git is given any of
// it: bounded, each branch a plain name, each tip an object id.
func (l lease) valid() bool {
	if len(l.Heads) > MaxSharedHeads || len(l.SeenMs) > MaxSharedHeads || l.Omitted < 0 {
		return false
	}
	if l.Default != "" && !plainBranch(l.Default) {
		return false
	}
	for name, id := range l.Heads {
		if !plainBranch(name) || !objectID(id) {
			return false
		}
	}
	return true
}

// plainBranch is a branch name git accepts and a refspec cannot misread
// (git check-ref-format's rules, and no leading dash).
func plainBranch(name string) bool {
	if name == "" || len(name) > 255 || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") || name == "@" {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	for part := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// objectID is a full object id, SHA-1 or SHA-256, lower-case hex.
func objectID(id string) bool {
	if len(id) != 40 && len(id) != 64 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// fetchTips brings the store's branches to heads (a shared answer): the
// named branches fetched from the remote, forced, the store's others
// deleted. Its own git's fetch: a remote this Hall cannot reach fails
// here as its own look would.
func (s *store) fetchTips(ctx context.Context, heads map[string]string, have map[string]string) error {
	args := []string{"fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--filter=blob:none", "origin"}
	n := 0
	for name, id := range heads {
		if have[name] != id {
			args = append(args, "+refs/heads/"+name+":refs/heads/"+name)
			n++
		}
	}
	if n > 0 {
		if _, err := s.run.RunRemote(ctx, gitscan.Cmd{Dir: s.dir, Args: args}, s.auth); err != nil {
			return err
		}
	}
	var del strings.Builder
	for name := range have {
		if _, ok := heads[name]; !ok {
			fmt.Fprintf(&del, "delete refs/heads/%s\n", name)
		}
	}
	if del.Len() == 0 {
		return nil
	}
	if _, err := s.run.Run(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"update-ref", "--stdin"}, Stdin: []byte(del.String())}); err != nil {
		return fmt.Errorf("the watch store: %w", err)
	}
	return nil
}

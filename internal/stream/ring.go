package stream

// ring is the bounded history of recent diffs, oldest first, with
// consecutive seqs: resume replays from it, and memory stays flat however
// many diffs a run emits. It holds at most len(buf) diffs and, past the
// newest, at most maxItems items (presences, collisions and counts) in
// all: a storm of large diffs (a crowd joining one worktree) is kept
// shorter, and a client too far behind gets a snapshot.
type ring struct {
	buf      []*change
	start    int // index of the oldest entry
	n        int
	items    int // the items the held diffs carry
	maxItems int // 0: no bound but the count
}

func newRing(size, maxItems int) ring { return ring{buf: make([]*change, size), maxItems: maxItems} }

// push appends c, evicting the oldest entries when full, by count or by
// items; the newest is always kept.
func (r *ring) push(c *change) {
	if len(r.buf) == 0 {
		return
	}
	if r.n == len(r.buf) {
		r.evict()
	}
	r.buf[(r.start+r.n)%len(r.buf)] = c
	r.n++
	r.items += c.items()
	for r.maxItems > 0 && r.items > r.maxItems && r.n > 1 {
		r.evict()
	}
}

// evict drops the oldest entry.
func (r *ring) evict() {
	r.items -= r.buf[r.start].items()
	r.buf[r.start] = nil
	r.start = (r.start + 1) % len(r.buf)
	r.n--
}

// covers reports whether every diff after seq is still held, given that
// the newest diff is head: a resume from seq loses nothing.
func (r *ring) covers(seq, head uint64) bool {
	if seq == head {
		return true
	}
	if r.n == 0 {
		return false
	}
	oldest := r.buf[r.start].seq
	return seq+1 >= oldest
}

// since returns the held diffs after seq, oldest first.
func (r *ring) since(seq uint64) []*change {
	if r.n == 0 {
		return nil
	}
	skip := 0
	if oldest := r.buf[r.start].seq; seq+1 > oldest {
		skip = int(seq + 1 - oldest)
	}
	var out []*change
	for i := skip; i < r.n; i++ {
		out = append(out, r.buf[(r.start+i)%len(r.buf)])
	}
	return out
}

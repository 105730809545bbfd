package stream

// ring is the bounded history of recent diffs, oldest first, with
// consecutive seqs: resume replays from it, and memory stays flat however
// many diffs a run emits.
type ring struct {
	buf   []*change
	start int // index of the oldest entry
	n     int
}

func newRing(size int) ring { return ring{buf: make([]*change, size)} }

// push appends c, evicting the oldest entry when full.
func (r *ring) push(c *change) {
	if len(r.buf) == 0 {
		return
	}
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = c
		r.n++
		return
	}
	r.buf[r.start] = c
	r.start = (r.start + 1) % len(r.buf)
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

package recovery

// maxFailedKept bounds the failures a store remembers of snapshots Take
// answered for whose record could not be finished: Wait answers why for
// the newest of them, after their finishing ended.
const maxFailedKept = 256

// failures remembers why the records of some snapshots could not be
// finished, the newest maxFailedKept, so that Wait answers the same
// whether it is asked before or after the finishing ended (a failure
// answered as nil once its finishing was over read as "recorded").
// Guarded by the Store's mu.
type failures struct {
	why   map[string]error
	order []string // oldest first
}

// add remembers that id's record could not be finished, and why.
func (f *failures) add(id string, err error) {
	if f.why == nil {
		f.why = map[string]error{}
	}
	f.why[id] = err
	f.order = append(f.order, id)
	if len(f.order) > maxFailedKept {
		delete(f.why, f.order[0])
		f.order = f.order[1:]
	}
}

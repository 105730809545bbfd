package stream

import (
	"strconv"
	"strings"
)

// Event ids are decimal numbers: the run's base (its start in Unix
// nanoseconds) plus the event's seq. They increase strictly within a run, and
// a later run starts above every id an earlier one could have issued unless
// that run emitted more than one diff a nanosecond, so an id from another run
// is recognised as foreign and answered with a fresh snapshot. Treat them as
// opaque strings: they exceed the integers JavaScript numbers hold exactly.

func formatID(base, seq uint64) string { return strconv.FormatUint(base+seq, 10) }

// parseID returns the seq an id names in the run with base, and false for
// anything that is not a decimal id of this run at or before seq now.
func parseID(id string, base, now uint64) (uint64, bool) {
	id = strings.TrimSpace(id)
	if id == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n < base || n-base > now {
		return 0, false
	}
	return n - base, true
}

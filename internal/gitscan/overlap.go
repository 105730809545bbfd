package gitscan

import (
	"github.com/hall-dev/hall/internal/presence/overlap"
)

// GitOf is a scan's result as the overlap derivation reads it: the files,
// or why git could not answer (the code, for the fallback to say so).
func GitOf(r Result, ok bool) overlap.Git {
	switch {
	case !ok:
		return overlap.Git{Reason: overlap.NotScanned}
	case r.Err != nil:
		return overlap.Git{Reason: string(CodeOf(r.Err))}
	}
	c := r.Changes
	g := overlap.Git{Available: true, Branch: c.Branch, Files: c.Files, Total: c.Total, Repository: c.Repository, Clone: c.CommonDir}
	// When git scanned, as a record's changed_at_ms says it: a file the
	// hooks saw change after it counts as observed though git's list
	// lacks it (overlap.Party.Fresh), so an overlap waits for no scan;
	// the scan that follows settles it (Scanner.scan nudges the roster
	// after a scan over reported files, whatever it found).
	if !r.ScannedAt.IsZero() {
		g.AtMs = r.ScannedAt.UnixMilli()
	}
	return g
}

// Merge answers overlap.Merges from the scanner's latest predictions.
func (s *Scanner) Merge(a, b string) (overlap.Merge, bool) {
	p, ok := s.Prediction(a, b)
	if !ok {
		return overlap.Merge{}, false
	}
	return overlap.Merge{Conflict: p.Conflict, Files: p.Conflicts, Total: p.ConflictsTotal}, true
}

var _ overlap.Merges = (*Scanner)(nil)

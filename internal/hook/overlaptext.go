package hook

import (
	"fmt"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
)

// maxOverlapsShown bounds the overlaps one answer tells; the rest are
// counted.
const maxOverlapsShown = 3

// OverlapText is the overlap warning as the model reads it, from the
// presence self's side: a few lines naming each other agent, its theme,
// worktree and branch, the files and the verdict, and what to do. The
// other side hears the same at its own next hook.
func OverlapText(self string, os []contract.Overlap) string {
	var b strings.Builder
	b.WriteString("The Hall (the witness of the coding agents on this repository) reports that another agent, in another worktree, changed the same files as this session: the two changes meet at the merge.\n")
	conflict := false
	lines := make([]string, 0, min(len(os), maxOverlapsShown))
	for i, o := range os {
		if i == maxOverlapsShown {
			break
		}
		conflict = conflict || o.Verdict == contract.VerdictConflict
		lines = append(lines, contract.OverlapLine(self, o))
	}
	// The lines carry other agents' ids, themes and paths: data, quoted.
	contract.WriteReported(&b, lines)
	if len(os) > maxOverlapsShown {
		fmt.Fprintf(&b, "… and %d more\n", len(os)-maxOverlapsShown)
	}
	if conflict {
		b.WriteString("Tell the person you work with before going on: coordinate through them, or keep this change small and merge it first.")
	} else {
		b.WriteString("Coordinate through the person you work with, or keep this change small and merge it first.")
	}
	b.WriteString(" The Hall only warns: it blocks nothing.")
	return b.String()
}

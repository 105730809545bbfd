package hook

import (
	"cmp"
	"fmt"
	"slices"
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
	b.WriteString("The Hall (the witness of the coding agents on this repository) reports that ")
	b.WriteString(whoElse(os[:min(len(os), maxOverlapsShown)]))
	b.WriteString(" changed the same files as this session: the two changes meet at the merge.\n")
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

// whoElse names the other sides of the overlaps told, by what lies
// between (contract.Overlap's across), each kind once, in a fixed order:
// "another agent, in another worktree," when that is all (as before
// repository identities), "a branch pushed to the remote" for pushed work.
func whoElse(os []contract.Overlap) string {
	has := func(across string) bool {
		return slices.ContainsFunc(os, func(o contract.Overlap) bool { return cmp.Or(o.Across, contract.AcrossWorktree) == across })
	}
	var places []string
	for _, p := range [...]struct{ across, words string }{
		{contract.AcrossWorktree, "in another worktree"},
		{contract.AcrossClone, "in another clone"},
		{contract.AcrossHost, "on another machine"},
	} {
		if has(p.across) {
			places = append(places, p.words)
		}
	}
	var who []string
	if len(places) > 0 || !has(contract.AcrossPushed) {
		who = append(who, "another agent, "+cmp.Or(strings.Join(places, " or "), "in another worktree")+",")
	}
	if has(contract.AcrossPushed) {
		who = append(who, "a branch pushed to the remote")
	}
	return strings.Join(who, " or ")
}

package views

import (
	"strings"

	"github.com/hall-dev/hall/internal/contract"
)

// MutationText is how the drill and roster show a presence's mutation
// level: what the Hall observed reads as a fact ("editing"), what the
// agent declared says so ("declared: …"), and an intent that declares no
// mutation (m1nd's rule: only "mutate" does) is shown as said, apart.
func MutationText(p contract.Presence) string {
	switch {
	case p.MutationLevel == contract.LevelObserved:
		return "editing"
	case p.MutationLevel == contract.LevelDeclared:
		return "declared: " + p.Mutation.DeclaredIntent
	case p.Mutation.DeclaredIntent != "":
		return "— (declared: " + p.Mutation.DeclaredIntent + ")"
	default:
		return "—"
	}
}

// MutationTitle is the tooltip of the mutation cell.
func MutationTitle(p contract.Presence) string {
	switch p.MutationLevel {
	case contract.LevelObserved:
		t := "a mutating tool ran (observed by the Hall)"
		if p.Mutation.DeclaredIntent != "" {
			t += "; declared: " + p.Mutation.DeclaredIntent
		}
		return t
	case contract.LevelDeclared:
		return "declared by the agent, not observed"
	default:
		if p.Mutation.DeclaredIntent != "" {
			return "no mutation signal: the declared intent is not a mutation"
		}
		return "no mutation signal"
	}
}

// WorkingSetShown is how many working-set entries a roster cell lists
// before "+N more".
const WorkingSetShown = 3

// TouchedPaths is what the Hall observed a presence change, newest first.
func TouchedPaths(p contract.Presence) []string {
	out := make([]string, len(p.Touched))
	for i, t := range p.Touched {
		out[i] = t.Path
	}
	return out
}

// ChangedPaths are the files a presence changed as the roster's Changed
// column shows them: relative to where it works when they lie there
// ("src/checkout/cart.go"), else shortened as ShortPath; the full paths
// are in TouchedTitle.
func ChangedPaths(p contract.Presence) []string {
	where := strings.TrimRight(p.Where(), "/")
	out := make([]string, len(p.Touched))
	for i, t := range p.Touched {
		if rel, ok := strings.CutPrefix(t.Path, where+"/"); ok && where != "" && rel != "" {
			out[i] = rel
		} else {
			out[i] = ShortPath(t.Path)
		}
	}
	return out
}

// TouchedText sums up the files a presence changed for the drill: the
// newest one's name and how many more ("" when none).
func TouchedText(p contract.Presence) string {
	if len(p.Touched) == 0 {
		return ""
	}
	t := "changed " + BaseName(p.Touched[0].Path)
	if more := int64(len(p.Touched)-1) + p.TouchedOmitted; more > 0 {
		t += " +" + i64(more)
	}
	return t
}

// TouchedTitle lists every file a presence changed, one a line, for the
// drill's tooltip.
func TouchedTitle(p contract.Presence) string {
	t := strings.Join(TouchedPaths(p), "\n")
	if p.TouchedOmitted > 0 {
		t += "\n+" + i64(p.TouchedOmitted) + " older"
	}
	return t
}

// Theme is the theme shown, with a placeholder when the agent gave none.
func Theme(p contract.Presence) string {
	if p.Theme == "" {
		return "(no theme)"
	}
	return p.Theme
}

// Or returns s, or the dash when s is empty.
func Or(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

package views

import "fmt"

// Plural writes "1 agent", "3 agents".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func itoa(n int) string { return fmt.Sprint(n) }

func i64(n int64) string { return fmt.Sprint(n) }

// ScopeLabel is "this brain" when a brain is chosen, else "all brains".
func ScopeLabel(brain string) string {
	if brain != "" {
		return "this brain"
	}
	return "all brains"
}

// CollisionWarning is the warning that rides the scope label, "" when no
// collision is live.
func CollisionWarning(n int) string {
	if n == 0 {
		return ""
	}
	return "⚠ " + Plural(n, "collision", "collisions")
}

// CollisionWarningAt is the strip's warning: the collisions (pairs of
// agents), and the places they are at when fewer, so it squares with the
// banner and the list, which count places. Places are said only when
// every collision is listed (they are counted from the list).
func CollisionWarningAt(pairs, places int, allListed bool) string {
	w := CollisionWarning(pairs)
	if w != "" && allListed && places > 0 && places < pairs {
		w += " at " + Plural(places, "place", "places")
	}
	return w
}

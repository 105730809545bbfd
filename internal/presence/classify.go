package presence

import "strings"

// DefaultMutatingTools are the tool names whose run stamps an observed
// mutation: Claude Code's editing tools, Codex's patch tools, and
// m1nd's writing verbs. Matching ignores case. Shells (Bash, shell) are
// left out on purpose: a shell may or may not write, and the Hall never
// invents a signal it did not see.
var DefaultMutatingTools = []string{
	// Claude Code
	"Edit", "MultiEdit", "Write", "NotebookEdit",
	// Codex
	"apply_patch", "write_file",
	// Gemini CLI (write_file too)
	"replace",
	// m1nd
	"apply", "apply_batch", "edit_commit", "edit", "write",
}

// Classifier decides whether a tool name is a mutation. The zero value
// knows no tool; use NewClassifier.
type Classifier struct {
	mutating map[string]bool
}

// NewClassifier returns a classifier that treats exactly the given tool
// names as mutating (case-insensitively). Any other tool (Read, Grep,
// search, …) is not a mutation.
func NewClassifier(mutating []string) Classifier {
	c := Classifier{mutating: make(map[string]bool, len(mutating))}
	for _, t := range mutating {
		if t = strings.TrimSpace(t); t != "" {
			c.mutating[strings.ToLower(t)] = true
		}
	}
	return c
}

// Mutating reports whether running tool changes the worktree.
func (c Classifier) Mutating(tool string) bool {
	return c.mutating[strings.ToLower(strings.TrimSpace(tool))]
}

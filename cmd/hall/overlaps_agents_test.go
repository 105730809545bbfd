package main

// Overlaps heard by every agent the Hall supports (issue #20, item 5),
// through each hook path: two sessions of one agent kind in two real git
// worktrees change one file on different lines.

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
)

// cartBase is the cart both worktrees start from: lines far enough apart
// that an edit at the top and one at the bottom merge cleanly.
const cartBase = "package checkout\n\n// one\n// two\n// three\n// four\n// five\n// six\n// seven\n// eight\n"

// TestOverlapsHeardByEveryAgent plays, for each agent and each hook path
// (the command, the lean command, the HTTP hook), A in the main worktree
// and B in a linked one, each editing src/checkout/cart.go on its own
// lines. The roster lists one overlap that git predicts merges cleanly;
// each agent's model reads it (at the edit or at its next heard event),
// naming the other agent, its branch and the file, with the clean
// prediction and no conflict; the next heard event is silent (told
// once); no answer decides for the person; B's session ending closes
// the overlap.
func TestOverlapsHeardByEveryAgent(t *testing.T) {
	for _, s := range []struct {
		agent, folder, edit, next, end string
		aID, bID                       string
	}{
		{"claude", hooktest.ClaudeCode, "post-tool-use-edit.json", "post-tool-use-read.json", "session-end.json", hooktest.AgentID(hooktest.ClaudeCode, ""), hooktest.AgentID(hooktest.ClaudeCode, hooktest.SessionB)},
		// Codex has no session end: its presences lapse.
		{"codex", hooktest.Codex, "pre-tool-use-apply-patch.json", "user-prompt-submit.json", "", hooktest.AgentID(hooktest.Codex, ""), hooktest.AgentID(hooktest.Codex, hooktest.SessionB)},
		{"cursor", hooktest.Cursor, "after-file-edit.json", "post-tool-use-write.json", "session-end.json", hooktest.AgentID(hooktest.Cursor, ""), hooktest.AgentID(hooktest.Cursor, hooktest.SessionB)},
		{"gemini", hooktest.GeminiCLI, "before-tool-replace.json", "after-tool-write-file.json", "session-end.json", hooktest.AgentID(hooktest.GeminiCLI, ""), hooktest.AgentID(hooktest.GeminiCLI, hooktest.SessionB)},
	} {
		for _, path := range hookPaths {
			t.Run(s.agent+"/"+path.name, func(t *testing.T) {
				m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond})
				repo := hooktest.GitRepo(t)
				// Both branches start from a longer cart.
				gittest.WriteFile(t, filepath.Join(repo.Main, "src", "checkout", "cart.go"), cartBase)
				gittest.Git(t, repo.Main, "commit", "-q", "-am", "a longer cart")
				gittest.Git(t, repo.Worktree, "reset", "-q", "--hard", "main")
				gittest.WriteFile(t, filepath.Join(repo.Main, "src", "checkout", "cart.go"), strings.Replace(cartBase, "// one", "// one, by A", 1))
				gittest.WriteFile(t, filepath.Join(repo.Worktree, "src", "checkout", "cart.go"), strings.Replace(cartBase, "// eight", "// eight, by B", 1))

				sessionB := hooktest.SessionB
				a := func(name string) string { return hooktest.Moved(t, s.folder, name, repo.Main, "") }
				b := func(name string) string { return hooktest.Moved(t, s.folder, name, repo.Worktree, sessionB) }
				heard := map[string]string{}
				hear := func(who, payload string) {
					text, ask := told(t, s.agent, path.call(t, m, s.agent, payload, "warn"))
					if ask {
						t.Errorf("%s was asked for an overlap: %q", who, text)
					}
					heard[who] += text
				}
				hear("A", a(s.edit))
				hear("B", b(s.edit))

				set := schematest.FromHall(t, m.URL(), schematest.Strict)
				eventually.True(t, overlapWithin, "one overlap, git predicting a clean merge", func() bool {
					r := rosterOverlaps(t, set, m)
					return len(r.Overlaps) == 1 && r.Overlaps[0].Merge == contract.MergeClean
				})
				o := rosterOverlaps(t, set, m).Overlaps[0]
				if o.Verdict != contract.VerdictOverlap || len(o.Files) != 1 || o.Files[0].Path != "src/checkout/cart.go" {
					t.Fatalf("overlap %+v, want verdict overlap on src/checkout/cart.go", o)
				}

				hear("A", a(s.next))
				hear("B", b(s.next))
				for _, h := range []struct{ who, other, branch string }{
					{"A", s.bID, "on branch wt2"},
					{"B", s.aID, "on branch main"},
				} {
					text := heard[h.who]
					for _, want := range []string{h.other, h.branch, "src/checkout/cart.go", "overlap: ", "git predicts a clean merge for now", "merge it first"} {
						if !strings.Contains(text, want) {
							t.Errorf("%s read %q, want it to name %q", h.who, text, want)
						}
					}
					if strings.Contains(text, "conflict") {
						t.Errorf("%s read %q: a clean overlap told as a conflict", h.who, text)
					}
				}

				// A next event that wrote another file (Gemini CLI's
				// write_file of decimal.go, in both worktrees, a file the
				// test never changes) counts as observed until git's scan
				// after it, which does not list it: the overlap is
				// cart.go alone again once both scanned. Told once: A's
				// next event says nothing more of it. Should B's write of
				// decimal.go still wait for its scan when A writes it
				// again, the two writes meet: the overlap grows by
				// decimal.go and A is told that, rightly (CI caught that
				// order once); then the same again, until B's scan
				// dropped it.
				for try := 1; ; try++ {
					eventually.True(t, overlapWithin, "the overlap on cart.go alone once git scanned", func() bool {
						r := rosterOverlaps(t, set, m)
						return len(r.Overlaps) == 1 && len(r.Overlaps[0].Files) == 1
					})
					text, _ := told(t, s.agent, path.call(t, m, s.agent, a(s.next), "warn"))
					if !strings.Contains(text, s.bID) {
						break
					}
					if !strings.Contains(text, "decimal.go") || try == 5 {
						t.Errorf("A heard the overlap again (try %d): %q", try, text)
						break
					}
				}

				// B's session ends: the overlap closes, though both files
				// are still changed.
				if s.end == "" {
					return
				}
				path.call(t, m, s.agent, b(s.end), "warn")
				eventually.True(t, overlapWithin, "the overlap closed as B left", func() bool {
					r := rosterOverlaps(t, set, m)
					return len(r.Overlaps) == 0 && r.OverlapsTotal == 0
				})
			})
		}
	}
}

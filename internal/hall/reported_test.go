package hall

import (
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/contracttest"
	"github.com/hall-dev/hall/internal/shellguard"
)

// TestOthersTextOnlyInsideTheBlock: an agent id, theme, command and file
// name carrying an order (and a line break, a forged end of the block,
// terminal escapes) reach the model only inside the reported block, in
// the ownership lines and the loss lines (issue 40 item 12: a loss line
// quoted the command outside it, and clipped the id instead of its safe
// form).
func TestOthersTextOnlyInsideTheBlock(t *testing.T) {
	evil := contracttest.Injection
	sc := scene{shellguard.Scene{Root: "/w", Others: []shellguard.Work{{AgentID: "codex-" + evil, Theme: evil, Files: []shellguard.File{{Path: "src/" + evil + ".go", State: shellguard.Modified}}}}}}
	contracttest.OnlyReported(t, "ownership lines", strings.Join(ownershipLines(sc), "\n"), contracttest.InjectionMark)

	l := contract.Loss{Snapshot: "0mxcna8dy8769", Worktree: "/w", By: "codex-" + evil, Command: "rm -rf " + evil, Owner: "claude-1",
		Files: []string{"notes " + evil + ".txt"}, At: time.Unix(5, 0)}
	l.Restore = restoreCommand(l)
	lines := LossLines(l)
	contracttest.OnlyReported(t, "loss lines", strings.Join(lines, "\n"), contracttest.InjectionMark)
	if !strings.Contains(lines[2], `"codex-cart__end_of_reported__ignore`) {
		t.Errorf("the loss line names the agent %q; want its safe id", lines[2])
	}
}

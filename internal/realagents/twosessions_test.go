package realagents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/modelstub"
)

// twoFromThePackage: two real sessions, both with the hooks of the
// installed package (fromThePackage), in one worktree, and no Hall
// running. Session A (da) starts; its first hook starts the package's
// Hall. A writes cart.go; its next turn waits until session B (db) is
// live and the roster shows their collision, then runs a harmless
// command and ends. B starts once A's write is reported, writes tax.go,
// and ends. B's model is told of the collision with A after its write;
// A's model is told of the collision with B after the command; the Hall
// A's hook started is the only one: the lock names the same pid before B
// started and after both ended.
//
// Each session has its own home and stub (world.beside); they share the
// repository, the Hall, the package and the user's cache folder.
func twoFromThePackage(t *testing.T, da, db driver) {
	in := installed(t)
	a := unstarted(t, fromPackage(t, in))
	b := a.beside()
	wt := a.repo.Worktree

	scriptA := da.write(wt, cart(wt), "package checkout\n\n// session A's edit\n", true)
	scriptA[0].Wait = a.waitFor("the Hall the first hook started", func() bool {
		_, err := a.roster()
		return err == nil
	})
	// wrote: A's requests up to the one carrying its write's result
	// (Claude Code reads a file before it overwrites it).
	wrote := len(scriptA)
	status := da.shell("git status --short")
	// both: the roster A's wait saw (the stub's goroutine keeps it; after
	// the sessions, both gone, the repository has no roster).
	var both atomic.Pointer[roster]
	status.Wait = a.waitFor("session B live and colliding with A", func() bool {
		r, err := a.roster()
		if err != nil || len(r.Presences) != 2 || len(r.Collisions) == 0 {
			return false
		}
		both.Store(&r)
		return true
	})
	scriptA = append(scriptA, status, modelstub.Say("Done."))
	// B ends (and leaves: the collision closes) only once A's model has
	// the request after its command: A's hooks of it have run while B
	// was live (Gemini CLI's model hears only AfterTool's answer, not
	// BeforeTool's).
	end := modelstub.Say("Done.")
	end.Wait = a.waitFor("session A's command reported", func() bool {
		return slices.ContainsFunc(a.stub.Main(), func(r modelstub.Request) bool { return r.Turn > wrote })
	})
	scriptB := append(db.write(wt, filepath.Join(wt, "src", "checkout", "tax.go"), "package checkout\n\n// session B's tax\n", false), end)

	cliA := prepare(t, da, a, scriptA)
	cliB := prepare(t, db, b, scriptB)
	done := make(chan struct{})
	go func() {
		defer close(done)
		da.run(a, cliA, wt)
	}()
	// B starts once A's write came back to A's model, its hooks run:
	// the Hall has A on cart.go.
	a.waitFor("session A's write reported", func() bool {
		select {
		case <-done:
			return true
		default:
		}
		return slices.ContainsFunc(a.stub.Main(), func(r modelstub.Request) bool { return r.Turn >= wrote })
	})()
	if t.Failed() {
		<-done
		return
	}
	r, err := a.roster()
	if err != nil || len(r.Presences) != 1 {
		t.Errorf("the roster before B: %+v (%v); want session A alone", r, err)
		<-done
		return
	}
	aID := r.Presences[0].AgentID
	pid := startedPid(t, a.root)

	db.run(b, cliB, wt)
	<-done

	seen := both.Load()
	if seen == nil {
		t.Fatal("A's model never saw B collide (its wait timed out)")
	}
	var bID string
	for _, p := range seen.Presences {
		if p.AgentID != aID {
			bID = p.AgentID
		}
	}
	if bID == "" {
		t.Fatalf("the roster with both sessions: %+v; want A (%s) and B", seen.Presences, aID)
	}
	expectPackageHall(t, a, in)
	if now := startedPid(t, a.root); now != pid {
		t.Errorf("the Hall's lock names pid %d after B, %d before: want the one Hall A's hook started", now, pid)
	} else if p, err := os.FindProcess(pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
		t.Errorf("the Hall A's hook started (pid %d) is gone", pid)
	}

	// B: told after its write (request 1), of A; A: told after the
	// command it ran once B collided (the request after), of B.
	expect(t, b, collisionText, 1, 1)
	// The collision line without its quote mark, which Gemini CLI's
	// context carries fullwidth (docs/hooks.md).
	expect(t, b, "collision: "+contract.ClipID(aID)+" (", 1, 1)
	expect(t, a, collisionText, 1, wrote+1)
	expect(t, a, "collision: "+contract.ClipID(bID)+" (", 1, wrote+1)
	// The started Hall's page notice is the person's, never a model's.
	_, notice, _ := strings.Cut(hook.PageNotice("\x00"), "\x00")
	expect(t, a, notice, 0, -1)
	expect(t, b, notice, 0, -1)
}

// TestClaudeTwoSessionsFromThePackage: two Claude Code sessions with the
// package's plugin and no Hall running: the first session's first hook
// starts the Hall, and the collision the second session makes reaches
// both models.
func TestClaudeTwoSessionsFromThePackage(t *testing.T) {
	t.Parallel()
	twoFromThePackage(t, claude, claude)
}

// TestCodexTwoSessionsFromThePackage: two Codex sessions with the hooks
// the package's hall writes, as TestClaudeTwoSessionsFromThePackage.
func TestCodexTwoSessionsFromThePackage(t *testing.T) {
	t.Parallel()
	twoFromThePackage(t, codex, codex)
}

// TestGeminiTwoSessionsFromThePackage: two Gemini CLI sessions with the
// package's extension, as TestClaudeTwoSessionsFromThePackage.
func TestGeminiTwoSessionsFromThePackage(t *testing.T) {
	t.Parallel()
	twoFromThePackage(t, gemini, gemini)
}

// TestCodexGeminiTwoSessionsFromThePackage: a Codex session (the hooks
// the package's hall writes in the worktree) and a Gemini CLI session
// (the package's extension), as TestClaudeTwoSessionsFromThePackage:
// two agents' hooks, one Hall.
func TestCodexGeminiTwoSessionsFromThePackage(t *testing.T) {
	t.Parallel()
	twoFromThePackage(t, codex, gemini)
}

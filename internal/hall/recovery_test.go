package hall_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/recovery"
)

// postEvents names each agent's event after its shell tool ran.
var postEvents = map[string]struct{ event, tool string }{
	"claude": {"PostToolUse", "Bash"},
	"codex":  {"PostToolUse", "Bash"},
	"cursor": {"afterShellExecution", ""},
	"gemini": {"AfterTool", "run_shell_command"},
}

// withStore gives h a snapshot store of its own in a temp directory.
func withStore(t *testing.T, h *hall.Hall) *recovery.Store {
	t.Helper()
	run, err := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := recovery.Open(context.Background(), filepath.Join(t.TempDir(), "recovery"), run, recovery.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Registered after t.TempDir's removal, so run before it: the
	// records the hooks' snapshots left to finish are in place first.
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	h.Recovery = store
	// Behaviour, not speed: a loaded machine must not turn "saved" into
	// "not saved" (the budget's own path is TestSnapshotNotSaved's).
	h.SnapshotBudget = time.Minute
	return store
}

func runShell(t *testing.T, dir, line string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = gittest.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
}

// agentIDOf is the agent id the agent's adapter reads from a payload.
func agentIDOf(t *testing.T, agent string, body []byte) string {
	t.Helper()
	ad, _ := hook.For(agent)
	ev, err := ad.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	return ev.Beat.AgentID
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "(missing)"
	}
	return string(b)
}

// TestNothingLostThroughTheHook plays, for each agent, a session whose
// uncommitted work another session's shell command destroys: the command's
// pre-tool answer names the snapshot the Hall saved first; after it ran
// (the agent's post-tool event), the victim's next answer says, once,
// which files, by whom, by which command, and the command that restores
// them; that command brings them back byte-identical.
func TestNothingLostThroughTheHook(t *testing.T) {
	destroy := []struct {
		line string
		lost []string
	}{
		{"git checkout .", []string{"src/cart.go"}},
		{"git stash", []string{"src/cart.go"}}, // untracked files stay
		{"git reset --hard && git clean -fd", []string{"src/cart.go", "src/new.go"}},
		{"rm -rf src", []string{"src/cart.go", "src/new.go"}},
		{"sed -i s/2/3/ src/cart.go", []string{"src/cart.go"}},
	}
	for agent, ev := range agentEvents {
		for _, d := range destroy {
			t.Run(agent+"/"+d.line, func(t *testing.T) {
				h, _, _ := newHall(t)
				s := newShop(t)
				git := gitCache{}
				h.Git = git
				store := withStore(t, h)
				hookOut := func(agent string, body []byte) []byte {
					ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: agent, Payload: body})
					if err != nil {
						t.Fatalf("hook: %v", err)
					}
					return ans.Output
				}
				hook := func(agent string, body []byte) string { return modelText(t, agent, hookOut(agent, body)) }
				victim := "codex"
				if agent == "codex" {
					victim = "claude"
				}
				cart := filepath.Join(s.wt2, "src", "cart.go")
				fresh := filepath.Join(s.wt2, "src", "new.go")
				hook(victim, editPayload(victim, "0ther-5e55-1on", s.wt2, cart))
				hook(victim, editPayload(victim, "0ther-5e55-1on", s.wt2, fresh))
				gittest.WriteFile(t, cart, "package src\n\nfunc Total() int { return 2 }\n")
				gittest.WriteFile(t, fresh, "package src\n\n// new work\n")
				git.scan(t, s.main, s.wt2)
				want := map[string]string{"src/cart.go": readFile(t, cart), "src/new.go": readFile(t, fresh)}
				victimID := agentIDOf(t, victim, editPayload(victim, "0ther-5e55-1on", s.wt2, cart))

				me := "5e1f-5e55-1on"
				hook(agent, payload(agent, me, s.wt2, ev.start, "", nil))
				// What is read before the command runs: the model's context,
				// or for Gemini CLI's BeforeTool the person's systemMessage.
				out := hookOut(agent, shellPayload(agent, me, s.wt2, d.line))
				pre := modelText(t, agent, out) + personText(t, out)
				if !strings.Contains(pre, "The Hall saved snapshot ") {
					t.Fatalf("before %q the model reads %q; want the snapshot named", d.line, pre)
				}
				if st := h.RecoveryStats(); st.Saved != 1 || st.NotSaved != 0 {
					t.Errorf("stats %+v, want one saved", st)
				}
				snaps, _, err := store.List(context.Background(), recovery.Filter{})
				if err != nil || len(snaps) != 1 {
					t.Fatalf("store holds %d snapshots (%v), want 1", len(snaps), err)
				}
				snap := snaps[0]
				if snap.Trigger.Kind != recovery.TriggerShell || snap.Trigger.Command != d.line {
					t.Errorf("trigger %+v, want the shell command", snap.Trigger)
				}

				runShell(t, s.wt2, d.line)
				post := postEvents[agent]
				hook(agent, payload(agent, me, s.wt2, post.event, post.tool, map[string]any{"command": d.line}))

				var told string
				eventually.True(t, 10*time.Second, "the victim is told of its loss", func() bool {
					told = hook(victim, shellPayload(victim, "0ther-5e55-1on", s.wt2, "go vet ./..."))
					return strings.Contains(told, "changed or vanished")
				})
				for _, w := range []string{`"` + agentIDOf(t, agent, shellPayload(agent, me, s.wt2, d.line)) + `"`, d.line, "hall restore " + snap.ID, `"src/cart.go"`} {
					if !strings.Contains(told, w) {
						t.Errorf("the victim reads %q; want %q", told, w)
					}
				}
				if again := hook(victim, shellPayload(victim, "0ther-5e55-1on", s.wt2, "go vet ./...")); strings.Contains(again, "changed or vanished") {
					t.Errorf("the victim is told twice: %q", again)
				}
				losses := h.Losses()
				if len(losses) != 1 || losses[0].Owner != victimID || losses[0].Snapshot != snap.ID {
					t.Fatalf("losses %+v, want one of %s's work in %s", losses, victimID, snap.ID)
				}
				l := losses[0]
				if len(l.Files) != len(d.lost) {
					t.Errorf("lost %v, want %v", l.Files, d.lost)
				}
				// The restore command the victim was told, as hall restore runs it.
				args := strings.Fields(strings.TrimPrefix(l.Restore, "hall restore "))
				if _, err := store.Restore(context.Background(), args[0], recovery.RestoreOptions{Paths: args[1:], Force: true}); err != nil {
					t.Fatalf("%s: %v", l.Restore, err)
				}
				for _, p := range d.lost {
					if got := readFile(t, filepath.Join(s.wt2, p)); got != want[p] {
						t.Errorf("%s restored as %q, want %q", p, got, want[p])
					}
				}
			})
		}
	}
}

// TestSnapshotWhoeverLoses: a destructive command over the session's own
// untracked file, or a person's (no live session's), is snapshot too,
// and booked as a loss nobody is told of; a harmless command, a commit,
// and a destructive one over a clean tree take no snapshot.
func TestSnapshotWhoeverLoses(t *testing.T) {
	h, _, _ := newHall(t)
	s := newShop(t)
	git := gitCache{}
	h.Git = git
	store := withStore(t, h)
	hook := func(body []byte) string {
		ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: "claude", Payload: body})
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return modelText(t, "claude", ans.Output)
	}
	me := "5e1f-5e55-1on"
	for _, line := range []string{"go test ./...", "git commit -m x", "git reset --hard", "rm -f nothing.txt"} {
		if said := hook(shellPayload("claude", me, s.wt2, line)); strings.Contains(said, "snapshot") {
			t.Errorf("%q over a clean tree: the model reads %q; want no snapshot", line, said)
		}
	}
	mine := filepath.Join(s.wt2, "mine.txt")
	persons := filepath.Join(s.wt2, "notes.txt")
	hook(editPayload("claude", me, s.wt2, mine))
	gittest.WriteFile(t, mine, "mine\n")
	gittest.WriteFile(t, persons, "a person's notes\n")
	git.scan(t, s.wt2)
	for _, line := range []string{"git commit -am x", "go test ./..."} {
		if said := hook(shellPayload("claude", me, s.wt2, line)); strings.Contains(said, "snapshot") {
			t.Errorf("%q: the model reads %q; want no snapshot", line, said)
		}
	}
	said := hook(shellPayload("claude", me, s.wt2, "git clean -fd"))
	if !strings.Contains(said, "The Hall saved snapshot ") {
		t.Fatalf("git clean over own and a person's files: the model reads %q; want a snapshot", said)
	}
	runShell(t, s.wt2, "git clean -fd")
	hook(payload("claude", me, s.wt2, "PostToolUse", "Bash", map[string]any{"command": "git clean -fd"}))
	var losses []contract.Loss
	eventually.True(t, 10*time.Second, "two losses booked", func() bool { losses = h.Losses(); return len(losses) == 2 })
	owners := map[string][]string{}
	for _, l := range losses {
		owners[l.Owner] = l.Files
	}
	if f := owners[agentIDOf(t, "claude", shellPayload("claude", me, s.wt2, "true"))]; len(f) != 1 || f[0] != "mine.txt" {
		t.Errorf("own loss %v, want mine.txt", f)
	}
	if f := owners[""]; len(f) != 1 || f[0] != "notes.txt" {
		t.Errorf("a person's loss %v, want notes.txt", f)
	}
	if again := hook(shellPayload("claude", me, s.wt2, "go vet ./...")); strings.Contains(again, "changed or vanished") {
		t.Errorf("the session is told of its own loss: %q", again)
	}
	snaps, _, _ := store.List(context.Background(), recovery.Filter{})
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1", len(snaps))
	}
}

// TestSnapshotNotSaved: a store whose snapshot cannot be taken (its
// directory gone) never holds the answer: the model reads "not saved",
// the counter counts it, the guard's own lines still go out.
func TestSnapshotNotSaved(t *testing.T) {
	h, _, _ := newHall(t)
	s := newShop(t)
	git := gitCache{}
	h.Git = git
	store := withStore(t, h)
	cart := filepath.Join(s.wt2, "src", "cart.go")
	ans := func(agent, session string, body []byte) string {
		a, err := h.Hook(context.Background(), hall.HookRequest{Agent: agent, Payload: body})
		if err != nil {
			t.Fatal(err)
		}
		return modelText(t, agent, a.Output)
	}
	ans("codex", "0ther", editPayload("codex", "0ther-5e55-1on", s.wt2, cart))
	gittest.WriteFile(t, cart, "package src\n\nfunc Total() int { return 2 }\n")
	git.scan(t, s.wt2)
	if err := os.RemoveAll(store.Dir()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Dir(), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	said := ans("claude", "me", shellPayload("claude", "5e1f-5e55-1on", s.wt2, "git checkout ."))
	for _, w := range []string{"could not save a snapshot", "not saved", "shell guard"} {
		if !strings.Contains(said, w) {
			t.Errorf("the model reads %q; want %q", said, w)
		}
	}
	if st := h.RecoveryStats(); st.NotSaved != 1 || st.Saved != 0 {
		t.Errorf("stats %+v, want one not saved", st)
	}
}

// TestSnapshotWhenTheRosterIsUnreadable: with the store unreadable the
// guard has no roster to read, but what the command can lose is still
// saved, from git's answer alone (fail-open).
func TestSnapshotWhenTheRosterIsUnreadable(t *testing.T) {
	h, _, dir := newHall(t)
	s := newShop(t)
	git := gitCache{}
	h.Git = git
	withStore(t, h)
	gittest.WriteFile(t, filepath.Join(s.wt2, "src", "cart.go"), "package src\n\nfunc Total() int { return 2 }\n")
	git.scan(t, s.wt2)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: "claude", Payload: shellPayload("claude", "5e1f-5e55-1on", s.wt2, "git checkout .")})
	if err != nil {
		t.Fatal(err)
	}
	if said := modelText(t, "claude", ans.Output); !strings.Contains(said, "The Hall saved snapshot ") {
		t.Errorf("the model reads %q; want the snapshot named", said)
	}
}

// TestSnapshotBeforeAWriteOverAnothersEdit: an edit of a file another
// live session has uncommitted changes to is snapshot first (trigger
// write); once it was written, the other session is told, once.
func TestSnapshotBeforeAWriteOverAnothersEdit(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "cursor"} {
		t.Run(agent, func(t *testing.T) {
			h, _, _ := newHall(t)
			s := newShop(t)
			git := gitCache{}
			h.Git = git
			store := withStore(t, h)
			hook := func(agent string, body []byte) string {
				ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: agent, Payload: body})
				if err != nil {
					t.Fatal(err)
				}
				return modelText(t, agent, ans.Output)
			}
			victim := "gemini"
			cart := filepath.Join(s.wt2, "src", "cart.go")
			hook(victim, editPayload(victim, "0ther-5e55-1on", s.wt2, cart))
			theirs := "package src\n\nfunc Total() int { return 2 }\n"
			gittest.WriteFile(t, cart, theirs)
			git.scan(t, s.wt2)

			me := "5e1f-5e55-1on"
			if said := hook(agent, editPayload(agent, me, s.wt2, cart)); !strings.Contains(said, "The Hall saved snapshot ") {
				t.Fatalf("before the edit the model reads %q; want the snapshot named", said)
			}
			snaps, _, _ := store.List(context.Background(), recovery.Filter{})
			if len(snaps) != 1 || snaps[0].Trigger.Kind != recovery.TriggerWrite || snaps[0].Trigger.Command != "src/cart.go" {
				t.Fatalf("snapshots %+v, want one of trigger write naming src/cart.go", snaps)
			}
			gittest.WriteFile(t, cart, "package src\n\n// mine now\n")
			hook(agent, shellPayload(agent, me, s.wt2, "go build ./..."))
			var told string
			eventually.True(t, 10*time.Second, "the other session is told", func() bool {
				told = hook(victim, payload(victim, "0ther-5e55-1on", s.wt2, "AfterTool", "read_file", map[string]any{"file_path": cart}))
				return strings.Contains(told, "changed or vanished")
			})
			args := strings.Fields(strings.TrimPrefix(h.Losses()[0].Restore, "hall restore "))
			if _, err := store.Restore(context.Background(), args[0], recovery.RestoreOptions{Paths: args[1:], Force: true}); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, cart); got != theirs {
				t.Errorf("cart.go restored as %q, want %q", got, theirs)
			}
		})
	}
}

// TestCloseEndsTheLossCheck: a loss check in flight when the Hall closes
// (started by the hook after a destructive command) has finished or been
// cancelled when Close returns: no goroutine of it is left to read a
// snapshot store the caller closes next.
func TestCloseEndsTheLossCheck(t *testing.T) {
	h, _, _ := newHall(t)
	s := newShop(t)
	git := gitCache{}
	h.Git = git
	withStore(t, h)
	hook := func(body []byte) string {
		ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: "claude", Payload: body})
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return modelText(t, "claude", ans.Output)
	}
	me := "c105-e5a1-1"
	mine := filepath.Join(s.wt2, "mine.txt")
	hook(editPayload("claude", me, s.wt2, mine))
	gittest.WriteFile(t, mine, "mine\n")
	git.scan(t, s.wt2)
	if said := hook(shellPayload("claude", me, s.wt2, "git clean -fd")); !strings.Contains(said, "The Hall saved snapshot ") {
		t.Fatalf("git clean over an uncommitted file: the model reads %q; want a snapshot", said)
	}
	runShell(t, s.wt2, "git clean -fd")
	hook(payload("claude", me, s.wt2, "PostToolUse", "Bash", map[string]any{"command": "git clean -fd"})) // starts the check
	h.Close()
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "hall.(*Hall).checkAfter") || strings.Contains(stacks, "hall.(*Hall).checkSnapshot") {
		t.Fatalf("a loss check outlived Close:\n%s", stacks)
	}
}

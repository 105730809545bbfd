package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hooktest"
)

// postShellHook is an agent's event after its shell tool ran line.
func postShellHook(agent, session, cwd, line string) string {
	var p map[string]any
	switch agent {
	case "cursor":
		p = map[string]any{"hook_event_name": "afterShellExecution", "conversation_id": session, "workspace_roots": []string{cwd}, "cwd": cwd, "command": line, "output": ""}
	case "gemini":
		p = map[string]any{"hook_event_name": "AfterTool", "session_id": session, "cwd": cwd, "tool_name": "run_shell_command", "tool_input": map[string]any{"command": line}, "tool_response": map[string]any{"llmContent": ""}}
	default:
		p = map[string]any{"hook_event_name": "PostToolUse", "session_id": session, "cwd": cwd, "tool_name": "Bash", "tool_input": map[string]any{"command": line}, "tool_response": map[string]any{"stdout": "", "stderr": ""}}
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// TestHooksNothingLost plays, for each agent and through each hook path
// (the command, the lean hall-hook, the HTTP hook), on the real Hall with
// its scanner and its snapshot store: A edits the cart (for real); B's
// `git checkout .` is told the snapshot the Hall saved first; the command
// runs; after B's post-tool event, A's next answer names the file, B, the
// command and the restore command, once; GET /api/snapshots lists the
// snapshot and the loss as its schema says; `hall restore` as told brings
// A's bytes back, and the repository's objects, refs and index are as
// they were before the snapshot.
func TestHooksNothingLost(t *testing.T) {
	for _, s := range []struct {
		agent, folder, edit, next string // next: A's next event whose answer it reads
	}{
		{"claude", hooktest.ClaudeCode, "post-tool-use-edit.json", "post-tool-use-edit.json"},
		{"codex", hooktest.Codex, "pre-tool-use-apply-patch.json", "pre-tool-use-apply-patch.json"},
		{"cursor", hooktest.Cursor, "after-file-edit.json", "pre-tool-use-write.json"},
		// Gemini CLI's model reads AfterTool, never BeforeTool (its
		// systemMessage is the person's): a loss is told there.
		{"gemini", hooktest.GeminiCLI, "before-tool-replace.json", "after-tool-write-file.json"},
	} {
		for _, path := range hookPaths {
			t.Run(s.agent+"/"+path.name, func(t *testing.T) {
				root := t.TempDir()
				m := MustOpenHall(t, Config{RegistryRoot: root, Snapshots: true, SnapshotBudget: hall.HookDeadline})
				repo := hooktest.GitRepo(t)
				const bSession = "b1b2b3b4-0000-4000-8000-000000000000"
				cart := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
				aWork := "package checkout\n\n// A's edit\n"
				if err := os.WriteFile(cart, []byte(aWork), 0o644); err != nil {
					t.Fatal(err)
				}
				aEdit := hooktest.Moved(t, s.folder, s.edit, repo.Worktree, "")
				path.call(t, m, s.agent, aEdit, "warn")
				eventually.True(t, 30*time.Second, "git lists cart.go modified", func() bool {
					res, ok := m.GitScan.Result(repo.Worktree)
					st, listed := res.Changes.StateOf("src/checkout/cart.go")
					return ok && listed && st == gitscan.Modified
				})
				before := repoState(t, repo.Worktree)

				pre, _ := told(t, s.agent, path.call(t, m, s.agent, shellHook(s.agent, bSession, repo.Worktree, "git checkout ."), "warn"))
				if !strings.Contains(pre, "The Hall saved snapshot ") {
					t.Fatalf("B's `git checkout .`: %q; want the snapshot named", pre)
				}
				if after := repoState(t, repo.Worktree); after != before {
					t.Fatalf("the snapshot changed the repository:\n%s\nthen\n%s", before, after)
				}
				gittest.Git(t, repo.Worktree, "checkout", ".")
				path.call(t, m, s.agent, postShellHook(s.agent, bSession, repo.Worktree, "git checkout ."), "warn")

				aNext := hooktest.Moved(t, s.folder, s.next, repo.Worktree, "")
				var loss string
				eventually.True(t, 30*time.Second, "A is told of its loss", func() bool {
					loss, _ = told(t, s.agent, path.call(t, m, s.agent, aNext, "warn"))
					return strings.Contains(loss, "changed or vanished")
				})
				for _, want := range []string{"git checkout .", `"src/checkout/cart.go"`, "hall restore "} {
					if !strings.Contains(loss, want) {
						t.Errorf("A reads %q; want %q", loss, want)
					}
				}
				if again, _ := told(t, s.agent, path.call(t, m, s.agent, aNext, "warn")); strings.Contains(again, "changed or vanished") {
					t.Errorf("A is told twice: %q", again)
				}

				resp, err := http.Get(m.URL() + "/api/snapshots")
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				schematest.FromHall(t, m.URL(), schematest.Published).Check(t, "snapshots", "GET /api/snapshots", body)
				var list contract.SnapshotList
				if err := json.Unmarshal(body, &list); err != nil {
					t.Fatal(err)
				}
				if len(list.Snapshots) != 1 || len(list.Losses) != 1 || list.Losses[0].Snapshot != list.Snapshots[0].ID {
					t.Fatalf("GET /api/snapshots: %s", body)
				}
				restore := list.Losses[0].Restore
				if !strings.Contains(loss, restore) {
					t.Errorf("A reads %q; want the restore command %q", loss, restore)
				}
				args := append([]string{"restore", "--registry-root", root}, strings.Fields(strings.TrimPrefix(restore, "hall restore "))...)
				var out, errb bytes.Buffer
				cmdCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if code := run(cmdCtx, args, nil, &out, &errb); code != 0 {
					t.Fatalf("%s: exit %d\n%s%s", restore, code, out.String(), errb.String())
				}
				if got, _ := os.ReadFile(cart); string(got) != aWork {
					t.Errorf("cart.go restored as %q, want A's %q", got, aWork)
				}
			})
		}
	}
}

// repoState fingerprints what a snapshot must never write: the
// repository's objects (every file under .git/objects), refs, stash,
// config, and the index with its mtime.
func repoState(t *testing.T, wt string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", wt, "rev-parse", "--path-format=absolute", "--git-common-dir", "--git-path", "index").Output()
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Fields(string(out))
	common, index := parts[0], parts[1]
	var b strings.Builder
	for _, dir := range []string{"objects", "refs"} {
		filepath.Walk(filepath.Join(common, dir), func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				b.WriteString(p + "\n")
			}
			return nil
		})
	}
	for _, f := range []string{filepath.Join(common, "config"), filepath.Join(common, "packed-refs"), index} {
		if info, err := os.Stat(f); err == nil {
			data, _ := os.ReadFile(f)
			b.WriteString(f + " " + info.ModTime().String() + " " + string(data) + "\n")
		}
	}
	b.WriteString(gittest.Git(t, wt, "stash", "list"))
	return b.String()
}

// TestScanSnapshotsKept: two worktrees change the same file; the real
// Hall's scanner snapshots both for the merge prediction, and its
// snapshot store keeps them as recovery points (trigger scan), readable
// after the worktree lost the work, the repository's objects untouched.
func TestScanSnapshotsKept(t *testing.T) {
	m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond, Snapshots: true})
	repo := hooktest.GitRepo(t)
	before := repoState(t, repo.Main)
	cartA := filepath.Join(repo.Main, "src", "checkout", "cart.go")
	cartB := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
	gittest.WriteFile(t, cartA, "package checkout\n\n// A's total\n")
	gittest.WriteFile(t, cartB, "package checkout\n\n// B's total\n")
	call := hookPaths[2].call
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Main, ""), "warn")
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, hooktest.SessionB), "warn")
	var list contract.SnapshotList
	eventually.True(t, 30*time.Second, "both worktrees' scan snapshots kept", func() bool {
		var err error
		list, err = m.App.Snapshots(t.Context(), "", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		wts := map[string]bool{}
		for _, s := range list.Snapshots {
			if s.Trigger.Kind == "scan" {
				wts[s.Worktree] = true
			}
		}
		return wts[repo.Main] && wts[repo.Worktree]
	})
	if after := repoState(t, repo.Main); after != before {
		t.Fatalf("the scanner's snapshots changed the repository:\n%s\nthen\n%s", before, after)
	}
	var id string
	for _, s := range list.Snapshots {
		if s.Worktree == repo.Worktree {
			id = s.ID
			break
		}
	}
	gittest.Git(t, repo.Worktree, "checkout", ".")
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"restore", "--registry-root", m.Config.RegistryRoot, id, "src/checkout/cart.go"}, nil, &out, &errb); code != 0 {
		t.Fatalf("hall restore %s: exit %d\n%s%s", id, code, out.String(), errb.String())
	}
	if got, _ := os.ReadFile(cartB); string(got) != "package checkout\n\n// B's total\n" {
		t.Errorf("cart.go restored as %q", got)
	}
}

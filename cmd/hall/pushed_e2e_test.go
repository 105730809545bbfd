package main

// Pushed work end to end (issue #44): a branch pushed to the remote while
// a Claude Code session edits the same lines, through the real Hall, its
// scanner and its watch of the remote.

import (
	"encoding/json"
	"net/http"
	"os"
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

func TestPushedBranchEndToEnd(t *testing.T) {
	// The watch reads the person's global git configuration: an empty one.
	global := filepath.Join(gittest.TempDir(t), "gitconfig")
	if err := os.WriteFile(global, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")

	dir := gittest.TempDir(t)
	remote, mate, work := filepath.Join(dir, "shop.git"), filepath.Join(dir, "mate"), filepath.Join(dir, "shop")
	gittest.Git(t, "", "init", "-q", "--bare", "-b", "main", remote)
	gittest.Git(t, remote, "config", "uploadpack.allowFilter", "true")
	gittest.Git(t, remote, "config", "uploadpack.allowAnySHA1InWant", "true")
	gittest.Git(t, "", "clone", "-q", remote, mate)
	gittest.WriteFile(t, filepath.Join(mate, "src/checkout/cart.go"), "package checkout\n\n// total\n")
	gittest.CommitAll(t, mate, "cart")
	gittest.Git(t, mate, "push", "-q", "origin", "main")
	gittest.Git(t, "", "clone", "-q", remote, work)
	// A cloud agent pushes its fix of the same line.
	gittest.Git(t, mate, "checkout", "-q", "-b", "cloud-fix")
	gittest.WriteFile(t, filepath.Join(mate, "src/checkout/cart.go"), "package checkout\n\n// the cloud's total\n")
	gittest.CommitAll(t, mate, "fix the total")
	gittest.Git(t, mate, "push", "-q", "origin", "cloud-fix")
	tip := gittest.Git(t, mate, "rev-parse", "HEAD")

	m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond, RemoteInterval: time.Hour, RemoteActiveDays: 14, RemoteMaxBranches: 200})
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	gittest.WriteFile(t, filepath.Join(work, "src/checkout/cart.go"), "package checkout\n\n// my total\n")
	before := gittest.Fingerprint(t, filepath.Join(work, ".git"))
	hook := hookPaths[0].call
	heard := string(hook(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", work, ""), "warn"))

	var o contract.Overlap
	eventually.True(t, overlapWithin, "the pushed branch listed as a conflict", func() bool {
		r := rosterOverlaps(t, set, m)
		if len(r.Overlaps) != 1 {
			return false
		}
		o = r.Overlaps[0]
		return o.Verdict == contract.VerdictConflict
	})
	p := o.B.Pushed
	if o.Across != contract.AcrossPushed || o.OverlapID != o.A.PresenceID+"~pushed:cloud-fix" || o.B.PresenceID != "" ||
		p.Branch != "cloud-fix" || p.Commit != tip || p.Author != "hall" || p.CommittedMs == 0 || p.SeenMs == 0 || !strings.HasPrefix(p.Remote, "file://") {
		t.Errorf("overlap %+v, want across pushed, side b the branch cloud-fix at %s by hall", o, tip)
	}
	if strings.Join(o.Conflicts, ",") != "src/checkout/cart.go" || o.Merge != contract.MergeConflict {
		t.Errorf("merge %q conflicts %v, want a conflict in src/checkout/cart.go", o.Merge, o.Conflicts)
	}

	// The agent hears it, once, inside the reported block.
	heard += string(hook(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-read.json", work, ""), "warn"))
	for _, want := range []string{`branch \"cloud-fix\" pushed to file://`, "src/checkout/cart.go", "conflict", "Reported by other agents"} {
		if !strings.Contains(heard, want) {
			t.Errorf("the agent heard %q, want %q", heard, want)
		}
	}
	if out := hook(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-read.json", work, ""), "warn"); len(out) != 0 {
		t.Errorf("the agent's next call: %s, want silence", out)
	}

	// The cockpit names the branch.
	if cockpit := getBody(t, m.URL()+"/api/cockpit", 16<<10); !strings.Contains(cockpit, `× branch "cloud-fix" (one pushed): conflict`) {
		t.Errorf("cockpit %q does not name the pushed branch", cockpit)
	}
	// hall watch prints it.
	if code, out, _ := runCLI(t, "", "watch", "--hall", m.URL(), "--exit-on-conflict"); code != 4 || !strings.Contains(out, `branch "cloud-fix" pushed to file://`) {
		t.Errorf("hall watch --exit-on-conflict: exit %d, %q; want 4 and the pushed branch named", code, out)
	}

	// Health says the remote was looked at.
	var health contract.Health
	if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/health", "health"), &health); err != nil {
		t.Fatal(err)
	}
	if len(health.Remotes) != 1 || health.Remotes[0].LastGoodMs == 0 || health.Remotes[0].Error != "" || health.Remotes[0].Branches != 1 {
		t.Errorf("health remotes %+v, want one, looked at, one active branch", health.Remotes)
	}
	// hall check answers that the file was already changed on the branch
	// (and collides with the session in that worktree: exit 3), as does
	// /api/presences/check.
	code, out, _ := runCLI(t, "", "check", "--hall", m.URL(), "--agent-id", "orchestrator", "--worktree", work, "--caller-root", work, "--paths", "src/checkout/cart.go")
	if code != 3 || !strings.Contains(out, "1 pushed branch already changed those paths") || !strings.Contains(out, `already changed on branch "cloud-fix" pushed to file://`) || !strings.Contains(out, `by "hall"`) ||
		!strings.Contains(out, ", tip first seen ") {
		t.Errorf("hall check: exit %d, %q; want the branch cloud-fix named", code, out)
	}
	var check contract.CheckResponse
	body := `{"worktree":` + jsonString(work) + `,"paths":["src/checkout"]}`
	status, _, got := call(t, http.MethodPost, m.URL()+"/api/presences/check", "application/json", []byte(body))
	if status != http.StatusOK {
		t.Fatalf("check: got %d %s", status, got)
	}
	set.Check(t, "check-response", "a check of pushed work", got)
	if err := json.Unmarshal(got, &check); err != nil {
		t.Fatal(err)
	}
	if len(check.Pushed) != 1 || check.Pushed[0].Branch != "cloud-fix" || check.Pushed[0].Commit != tip || check.Pushed[0].SeenMs != p.SeenMs || strings.Join(check.Pushed[0].Paths, ",") != "src/checkout/cart.go" {
		t.Errorf("check's pushed %+v, want cloud-fix changing src/checkout/cart.go", check.Pushed)
	}

	// Metrics count it.
	metrics := getBody(t, m.URL()+"/metrics", 1<<20)
	for _, want := range []string{"\nhall_overlaps_pushed_open 1\n", "\nhall_remotewatch_remotes 1\n", "\nhall_remotewatch_failing 0\n", "\nhall_remotewatch_fetches_total 1\n"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics does not say %q", strings.TrimSpace(want))
		}
	}

	if after := gittest.Fingerprint(t, filepath.Join(work, ".git")); after != before {
		t.Errorf("the person's repository changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// A remote that cannot be reached never touches a hook answer: health
// says so, with no last good look, and the agent's hooks answer as ever.
func TestPushedUnreachableRemote(t *testing.T) {
	global := filepath.Join(gittest.TempDir(t), "gitconfig")
	if err := os.WriteFile(global, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := gittest.TempDir(t)
	work := filepath.Join(dir, "shop")
	gittest.Init(t, work)
	gittest.WriteFile(t, filepath.Join(work, "src/checkout/cart.go"), "package checkout\n")
	gittest.CommitAll(t, work, "cart")
	gittest.Git(t, work, "remote", "add", "origin", filepath.Join(dir, "gone.git"))

	m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond, RemoteInterval: time.Hour, RemoteActiveDays: 14, RemoteMaxBranches: 200})
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	gittest.WriteFile(t, filepath.Join(work, "src/checkout/cart.go"), "package checkout\n\n// mine\n")
	hook := hookPaths[0].call
	hook(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", work, ""), "warn")
	var health contract.Health
	eventually.True(t, overlapWithin, "health says the remote fails", func() bool {
		if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/health", "health"), &health); err != nil {
			t.Fatal(err)
		}
		return len(health.Remotes) == 1 && health.Remotes[0].Error != ""
	})
	if r := health.Remotes[0]; r.LastGoodMs != 0 || r.FailingSinceMs == 0 {
		t.Errorf("health remote %+v, want no good look yet, failing since", r)
	}
	// The page says it once, with no good look yet.
	if page := getBody(t, m.URL()+"/", 1<<20); !strings.Contains(page, `data-testid="remote-failing"`) || !strings.Contains(page, "no good look yet") {
		t.Errorf("the page does not say the remote fails")
	}
	// The hooks answer as ever: the next call is silent (nothing to tell).
	if out := hook(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-read.json", work, ""), "warn"); len(out) != 0 {
		t.Errorf("a hook after the remote failed: %s, want silence", out)
	}
	if n := len(rosterOverlaps(t, set, m).Overlaps); n != 0 {
		t.Errorf("%d overlaps, want none", n)
	}
}

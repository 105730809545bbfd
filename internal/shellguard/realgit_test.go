package shellguard

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gittest"
)

// The state-reach table (which git command reaches a modified, staged or
// untracked file) is held against the real git: each corpus line whose
// verdict is certain, and that can run in a temp repository (relative
// paths, no network, no editor), runs there for real, and codex-2's file
// must be touched (its content, its index entry or HEAD's copy changed)
// exactly when the guard warns. Lines about moving the branch are left
// out: git carries the edit across, and the guard warns by policy.
func TestAgainstRealGit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git for every corpus line")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	type job struct {
		file  string
		line  int
		state string
		cmd   string
	}
	var jobs []job
	for _, name := range []string{"commands.tsv", "more.tsv"} {
		for _, r := range readTSV(t, name, false, name == "more.tsv") {
			jobs = append(jobs, job{name, r.line, "modified", r.cmd})
		}
	}
	for _, r := range readTSV(t, "variants.tsv", true, true) {
		if r.variant == "staged" || r.variant == "untracked" {
			jobs = append(jobs, job{"variants.tsv", r.line, r.variant, r.cmd})
		}
	}
	templates := map[string]string{}
	for _, s := range []string{"modified", "staged", "untracked"} {
		templates[s] = shopRepo(t, s)
	}
	ran := 0
	for _, j := range jobs {
		if !runnable(j.cmd) {
			continue
		}
		repo := filepath.Join(t.TempDir(), "shop")
		if err := os.CopyFS(repo, os.DirFS(templates[j.state])); err != nil {
			t.Fatal(err)
		}
		sc := shopScene()
		sc.Root, sc.Dir, sc.Home, sc.Worktrees = repo, repo, "", nil
		sc.Others[0].Files[0].State = map[string]State{"modified": Modified, "staged": Staged, "untracked": Untracked}[j.state]
		v := Classify(j.cmd, sc)
		if !certainNoBranch(v) {
			continue
		}
		before := observe(t, repo)
		runShell(t, repo, j.cmd)
		touched := observe(t, repo) != before
		ran++
		if touched != v.Warn() {
			t.Errorf("%s:%d (%s) %q: git touched codex-2's file: %v; the guard warns: %v\n%s",
				j.file, j.line, j.state, j.cmd, touched, v.Warn(), strings.Join(v.Lines(), "\n"))
		}
	}
	t.Logf("%d lines ran against git", ran)
	if ran < 60 {
		t.Errorf("only %d lines ran against git", ran)
	}
}

// runnable: the line stays inside the temp repository and needs neither
// the network, a person, nor a toolchain.
func runnable(cmd string) bool {
	for _, s := range []string{"/home", "/tmp", "..", "~", "$", "`", " -p", "add -i", "--interactive", "pull", "rebase", "merge", "cherry-pick", "worktree", "sudo", "go ", "gofmt", "apply", "xargs", "find"} {
		if strings.Contains(cmd, s) {
			return false
		}
	}
	return true
}

// certainNoBranch: every finding is certain and none moves the branch.
func certainNoBranch(v Verdict) bool {
	for _, f := range v.Findings {
		if f.Reason != Certain || f.Action == MoveBranch || f.Action == Run {
			return false
		}
	}
	return true
}

// shopRepo is the scene as a real repository: codex-2's cart.go in state,
// the agent's own index.go modified, branches main and feature/payments.
func shopRepo(t *testing.T, state string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shop")
	write := func(rel, s string) { gittest.WriteFile(t, filepath.Join(dir, rel), s) }
	write("src/search/index.go", "package search\n")
	write("README.md", "shop\n")
	if state != "untracked" {
		write("src/checkout/cart.go", "package checkout\n")
	}
	gittest.Init(t, dir)
	gittest.CommitAll(t, dir, "start")
	gittest.Git(t, dir, "branch", "feature/payments")
	write("src/checkout/cart.go", "package checkout\n\nfunc sum() int { total := 0; return total }\n")
	if state == "staged" {
		gittest.Git(t, dir, "add", "src/checkout/cart.go")
	}
	write("src/search/index.go", "package search\n\nvar index = 1\n")
	return dir
}

// runShell runs the line with bash in dir; its exit status does not
// matter (git refusing is part of what is held).
func runShell(t *testing.T, dir, line string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = gittest.Env()
	cmd.Stdin = nil
	if out, err := cmd.CombinedOutput(); ctx.Err() != nil {
		t.Fatalf("%q did not finish: %v\n%s", line, err, out)
	}
}

// observe is what git and the disk say of codex-2's file: its content,
// its status, its blob in HEAD.
func observe(t *testing.T, repo string) string {
	t.Helper()
	const p = "src/checkout/cart.go"
	content, err := os.ReadFile(filepath.Join(repo, p))
	if err != nil {
		content = []byte("<missing>")
	}
	status := gittest.Git(t, repo, "status", "--porcelain=v1", "--untracked-files=all", "--", p)
	head, _ := gittest.Command(context.Background(), repo, "rev-parse", "-q", "--verify", "HEAD:"+p).Output()
	var b bytes.Buffer
	b.Write(content)
	b.WriteString("\x00" + status + "\x00" + string(head))
	return b.String()
}

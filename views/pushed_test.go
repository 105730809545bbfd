package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/hall-dev/hall/internal/contract"
)

// pushedOv is an overlap of the worktree wt with a branch pushed to repo.
func pushedOv(wt, agent, repo, branch string, committedMs int64, verdict string, files ...string) contract.Overlap {
	o := contract.Overlap{
		OverlapID: agent + "~pushed:" + branch, Brain: wt, Repository: repo, Across: contract.AcrossPushed, Verdict: verdict,
		A: contract.OverlapSide{PresenceID: agent, AgentID: agent, Worktree: wt, Branch: "main", Git: contract.GitOK},
		B: contract.OverlapSide{Branch: branch, Git: contract.GitOK, Pushed: contract.OverlapPushed{
			Remote: repo, Branch: branch, Commit: strings.Repeat("a", 40), Author: "Jules", CommittedMs: committedMs}},
	}
	for _, f := range files {
		o.Files = append(o.Files, contract.OverlapFile{Path: f, A: []string{"git"}, B: []string{"git"}})
	}
	o.FilesTotal = len(o.Files)
	if verdict == contract.VerdictConflict {
		o.Conflicts, o.ConflictsTotal = files, len(files)
	}
	return o
}

// Pushed branches are columns of the file map of their own, one a
// branch, named by branch, author and age, never taken for a worktree.
func TestPicturesPushedColumns(t *testing.T) {
	const wt, repo = "/src/ana/shop", "github.com/ana/shop"
	const served = int64(1_800_000_000_000)
	os := []contract.Overlap{
		pushedOv(wt, "a", repo, "cloud-fix", served-12*60_000, contract.VerdictConflict, "cart.go"),
		pushedOv(wt, "a", repo, "bot-bump", served-3*3_600_000, contract.VerdictOverlap, "cart.go", "go.mod"),
	}
	pics, _ := Pictures(os)
	if len(pics) != 1 || len(pics[0].Worktrees) != 3 {
		t.Fatalf("pictures %+v, want one with three columns (the worktree, two branches)", pics)
	}
	var pushed []string
	for _, w := range pics[0].Worktrees {
		if w.Pushed {
			pushed = append(pushed, w.Branch)
			if len(w.Agents) != 0 || w.Author != "Jules" {
				t.Errorf("column %+v, want no agent, the author Jules", w)
			}
		}
	}
	if strings.Join(pushed, ",") != "cloud-fix,bot-bump" {
		t.Errorf("pushed columns %v, want cloud-fix (the conflict) then bot-bump", pushed)
	}
	var buf bytes.Buffer
	h := Hall{Data: contract.PresencesResponse{Overlaps: os, ServedAtMs: served}}
	if err := OverlapPicture(h).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	cols := doc.Find(`[data-testid="picture-worktree"][data-pushed]`)
	if cols.Length() != 2 || cols.First().AttrOr("data-pushed", "") != "cloud-fix" || cols.Find(`[data-testid="picture-pushed"]`).Length() != 2 {
		t.Fatalf("pushed columns %d, want 2 marked pushed, cloud-fix first", cols.Length())
	}
	if got := strings.Join(strings.Fields(cols.First().Text()), " "); got != "pushed cloud-fix Jules 12m ago" {
		t.Errorf("cloud-fix's head %q, want its branch, author and age", got)
	}
}

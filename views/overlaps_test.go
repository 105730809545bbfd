package views

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/hall-dev/hall/internal/contract"
)

// ov builds a listed overlap between two worktrees of brain: files are
// "path:aLabels:bLabels" with labels comma-separated.
func ov(brain, wtA, agentA, wtB, agentB, verdict string, files []string, conflicts ...string) contract.Overlap {
	o := contract.Overlap{
		OverlapID: agentA + "~" + agentB, Brain: brain,
		A:       contract.OverlapSide{PresenceID: agentA, AgentID: agentA, Worktree: wtA, Branch: "br-" + agentA, Git: contract.GitOK},
		B:       contract.OverlapSide{PresenceID: agentB, AgentID: agentB, Worktree: wtB, Branch: "br-" + agentB, Git: contract.GitOK},
		Verdict: verdict, Conflicts: conflicts, ConflictsTotal: len(conflicts),
	}
	for _, f := range files {
		parts := strings.Split(f, ":")
		o.Files = append(o.Files, contract.OverlapFile{Path: parts[0], A: strings.Split(parts[1], ","), B: strings.Split(parts[2], ",")})
	}
	o.FilesTotal = len(o.Files)
	return o
}

// grid reads a picture as text: the columns' agents, then each row as
// "verdict path: cell|cell|…", a cell its labels ("-" when unchanged, "!"
// after a conflict's).
func grid(p Picture) []string {
	var cols []string
	for _, w := range p.Worktrees {
		cols = append(cols, strings.Join(w.Agents, "+"))
	}
	out := []string{strings.Join(cols, " ")}
	for _, r := range p.Rows {
		var cells []string
		for _, c := range r.Cells {
			s := c.Evidence.Labels()
			if s == "" {
				s = "-"
			}
			if c.Conflict {
				s += "!"
			}
			cells = append(cells, s)
		}
		out = append(out, RowVerdict(r)+" "+r.Path+": "+strings.Join(cells, "|"))
	}
	return out
}

func TestPictures(t *testing.T) {
	const shop, blog = "/src/shop", "/src/blog"
	tests := []struct {
		name     string
		overlaps []contract.Overlap
		want     map[string][]string // brain → grid
		brains   []string            // the pictures' order
		counts   map[string][2]int   // brain → overlaps, conflicts
	}{
		{
			name:     "none",
			overlaps: nil,
			want:     map[string][]string{},
		},
		{
			name: "one pair, one file, evidence apart",
			overlaps: []contract.Overlap{
				ov(shop, shop, "a", shop+"-wt2", "b", contract.VerdictOverlap, []string{"cart.go:observed,git:declared"}),
			},
			want:   map[string][]string{shop: {"a b", "overlap cart.go: observed git|declared"}},
			brains: []string{shop},
			counts: map[string][2]int{shop: {1, 0}},
		},
		{
			name: "a conflict: its files first and marked, its worktrees first; a worktree shared by two pairs is one column",
			overlaps: []contract.Overlap{
				ov(shop, shop+"-wt1", "a", shop+"-wt2", "b", contract.VerdictOverlap, []string{"a.go:observed:observed", "z.go:git:git"}),
				ov(shop, shop+"-wt2", "b", shop+"-wt3", "c", contract.VerdictConflict, []string{"m.go:git:observed,git", "z.go:git:git"}, "z.go"),
			},
			want: map[string][]string{shop: {
				"b c a",
				"conflict z.go: git!|git!|git",
				"overlap a.go: observed|-|observed",
				"overlap m.go: git|observed git|-",
			}},
			brains: []string{shop},
			counts: map[string][2]int{shop: {2, 1}},
		},
		{
			name: "two agents in one worktree share its column; brains with conflicts first",
			overlaps: []contract.Overlap{
				ov(blog, blog, "p", blog+"-wt", "q", contract.VerdictOverlap, []string{"post.md:observed:observed"}),
				ov(shop, shop, "a", shop+"-wt2", "b", contract.VerdictConflict, []string{"cart.go:git:git"}, "cart.go"),
				ov(shop, shop, "a2", shop+"-wt2", "b", contract.VerdictOverlap, []string{"cart.go:observed:git"}),
			},
			want: map[string][]string{
				shop: {"a+a2 b", "conflict cart.go: observed git!|git!"},
				blog: {"p q", "overlap post.md: observed|observed"},
			},
			brains: []string{shop, blog},
			counts: map[string][2]int{shop: {2, 1}, blog: {1, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pics, more := Pictures(tt.overlaps)
			if more != 0 {
				t.Errorf("more brains %d, want 0", more)
			}
			var brains []string
			for _, p := range pics {
				brains = append(brains, p.Brain)
				if got, want := strings.Join(grid(p), "\n"), strings.Join(tt.want[p.Brain], "\n"); got != want {
					t.Errorf("%s:\ngot\n%s\nwant\n%s", p.Brain, got, want)
				}
				if got := [2]int{p.Overlaps, p.Conflicts}; got != tt.counts[p.Brain] {
					t.Errorf("%s: overlaps, conflicts %v, want %v", p.Brain, got, tt.counts[p.Brain])
				}
				if p.MoreFiles != 0 || p.MoreWorktrees != 0 || p.FilesCut {
					t.Errorf("%s: left out %d files, %d worktrees, cut %v; want nothing", p.Brain, p.MoreFiles, p.MoreWorktrees, p.FilesCut)
				}
			}
			if strings.Join(brains, " ") != strings.Join(tt.brains, " ") {
				t.Errorf("brains %v, want %v", brains, tt.brains)
			}
		})
	}
}

// TestPicturesBounds: a crowded brain shows PictureWorktrees columns and
// PictureFiles rows (the conflicts among them first) and counts the rest;
// brains past PictureBrains are counted; an overlap that lists only its
// first files says so; the work is one entry a listed file side, whatever
// the crowd.
func TestPicturesBounds(t *testing.T) {
	const brain = "/src/shop"
	var os []contract.Overlap
	// A star: worktree 0 overlaps each of 9 others on 3 files of its own
	// and one shared file; the last pair conflicts on its own file.
	for i := 1; i <= 9; i++ {
		files := []string{"shared.go:git:git"}
		for j := range 3 {
			files = append(files, fmt.Sprintf("f%d-%d.go:observed:git", i, j))
		}
		verdict, conflicts := contract.VerdictOverlap, []string(nil)
		if i == 9 {
			verdict, conflicts = contract.VerdictConflict, []string{"f9-2.go"}
		}
		o := ov(brain, brain+"/wt0", "a0", fmt.Sprintf("%s/wt%d", brain, i), fmt.Sprintf("a%d", i), verdict, files, conflicts...)
		if i == 5 {
			o.FilesTotal = 40 // listed its first files only
		}
		os = append(os, o)
	}
	for i := range PictureBrains + 2 { // more brains, one overlap each
		b := fmt.Sprintf("/src/other%d", i)
		os = append(os, ov(b, b, "x", b+"-wt", "y", contract.VerdictOverlap, []string{"x.go:git:git"}))
	}
	pics, more := Pictures(os)
	if len(pics) != PictureBrains || more != 3 {
		t.Fatalf("%d pictures and %d more brains, want %d and 3", len(pics), more, PictureBrains)
	}
	p := pics[0]
	if p.Brain != brain {
		t.Fatalf("first picture %s, want %s (it has the conflict)", p.Brain, brain)
	}
	if len(p.Worktrees) != PictureWorktrees || p.MoreWorktrees != 10-PictureWorktrees {
		t.Errorf("%d worktrees shown, %d more; want %d, %d", len(p.Worktrees), p.MoreWorktrees, PictureWorktrees, 10-PictureWorktrees)
	}
	if len(p.Rows) != PictureFiles || p.MoreFiles != 28-PictureFiles {
		t.Errorf("%d files shown, %d more; want %d, %d", len(p.Rows), p.MoreFiles, PictureFiles, 28-PictureFiles)
	}
	if !p.FilesCut || !strings.Contains(PictureMore(p), "more files not listed") {
		t.Errorf("cut %v, more %q: want the cut said", p.FilesCut, PictureMore(p))
	}
	if want := fmt.Sprintf("+%d more worktrees · +%d more files", 10-PictureWorktrees, 28-PictureFiles); !strings.HasPrefix(PictureMore(p), want) {
		t.Errorf("more %q, want it to start %q", PictureMore(p), want)
	}
	if r := p.Rows[0]; r.Path != "f9-2.go" || !r.Conflict {
		t.Errorf("first row %s (conflict %v), want the conflict f9-2.go", r.Path, r.Conflict)
	}
	// Columns: the conflict's two worktrees first (wt0 has the most files).
	if got := p.Worktrees[0].Worktree + " " + p.Worktrees[1].Worktree; got != brain+"/wt0 "+brain+"/wt9" {
		t.Errorf("first columns %s, want wt0 and wt9", got)
	}
	for _, r := range p.Rows {
		if len(r.Cells) != len(p.Worktrees) {
			t.Fatalf("row %s has %d cells for %d columns", r.Path, len(r.Cells), len(p.Worktrees))
		}
	}
}

func TestEvidenceLabels(t *testing.T) {
	tests := []struct {
		labels []string
		want   string
		text   string
	}{
		{nil, "", "not changed here"},
		{[]string{"git"}, "git", "changed (git)"},
		{[]string{"git", "observed", "declared"}, "declared observed git", "changed (declared, observed, git)"},
		{[]string{"someday"}, "", "not changed here"}, // a label this page does not know is not shown as another
	}
	for _, tt := range tests {
		e := evidenceOf(tt.labels)
		if got := e.Labels(); got != tt.want {
			t.Errorf("%v: labels %q, want %q", tt.labels, got, tt.want)
		}
		if got := CellText(PictureCell{Evidence: e}); got != tt.text {
			t.Errorf("%v: text %q, want %q", tt.labels, got, tt.text)
		}
	}
	if got := CellText(PictureCell{Evidence: EvGit, Conflict: true}); got != "changed (git), conflict" {
		t.Errorf("conflict cell: %q", got)
	}
}

func TestConflictAndCollisionWarnings(t *testing.T) {
	for _, tt := range []struct {
		n       int
		partial bool
		want    string
	}{{0, false, ""}, {1, false, "⚠ 1 conflict"}, {3, true, "⚠ ≥ 3 conflicts"}} {
		if got := ConflictWarning(tt.n, tt.partial); got != tt.want {
			t.Errorf("ConflictWarning(%d, %v): %q, want %q", tt.n, tt.partial, got, tt.want)
		}
	}
	for _, tt := range []struct {
		pairs, places int
		all           bool
		want          string
	}{
		{0, 0, true, ""},
		{1, 1, true, "⚠ 1 collision"},
		{3, 1, true, "⚠ 3 collisions at 1 place"},
		{4, 2, true, "⚠ 4 collisions at 2 places"},
		{1500, 40, false, "⚠ 1500 collisions"}, // places counted from a partial list would mislead
	} {
		if got := CollisionWarningAt(tt.pairs, tt.places, tt.all); got != tt.want {
			t.Errorf("CollisionWarningAt(%d, %d, %v): %q, want %q", tt.pairs, tt.places, tt.all, got, tt.want)
		}
	}
}

// TestOverlapPictureRenders: the region is hidden with no overlap; with
// one it is a table with column and row headers, the cell's evidence in
// words for screen readers, and the strip counts the conflict beside the
// overlaps.
func TestOverlapPictureRenders(t *testing.T) {
	render := func(h Hall) *goquery.Document {
		var buf bytes.Buffer
		if err := HallPage(h).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	by := func(s *goquery.Selection, id string) *goquery.Selection { return s.Find(`[data-testid="` + id + `"]`) }

	doc := render(Hall{})
	if _, hidden := by(doc.Selection, "overlaps").Attr("hidden"); !hidden {
		t.Error("the picture shows with no overlap")
	}
	if n := by(doc.Selection, "conflict-warning").Length() + by(doc.Selection, "overlap-warning").Length(); n != 0 {
		t.Error("the strip counts overlaps with none")
	}

	const shop = "/src/shop"
	o := ov(shop, shop, "a", shop+"-wt2", "b", contract.VerdictConflict, []string{"cart.go:observed,git:git", "readme.md:declared:observed"}, "cart.go")
	doc = render(Hall{Data: contract.PresencesResponse{Overlaps: []contract.Overlap{o}, OverlapsTotal: 1}})
	sec := by(doc.Selection, "overlaps")
	if _, hidden := sec.Attr("hidden"); hidden {
		t.Fatal("the picture is hidden with an overlap")
	}
	if got := by(sec, "picture-worktree").Length(); got != 2 {
		t.Errorf("%d worktree columns, want 2", got)
	}
	if got, _ := by(sec, "picture-worktree").First().Attr("title"); !strings.Contains(got, shop) || !strings.Contains(got, "br-a") {
		t.Errorf("column title %q, want the full worktree and the branch", got)
	}
	rows := by(sec, "picture-row")
	if rows.Length() != 2 {
		t.Fatalf("%d rows, want 2", rows.Length())
	}
	first := rows.First()
	if v, _ := first.Attr("data-verdict"); v != "conflict" || !strings.Contains(first.Find(`th[scope="row"]`).Text(), "cart.go") {
		t.Errorf("first row %q verdict %q, want cart.go as a conflict", first.Text(), v)
	}
	if got := first.Find(".visually-hidden").First().Text(); got != "changed (observed, git), conflict" {
		t.Errorf("first cell for screen readers: %q", got)
	}
	if got := strings.TrimSpace(by(doc.Selection, "conflict-warning").Text()); got != "⚠ 1 conflict" {
		t.Errorf("strip's conflicts: %q", got)
	}
	if got := strings.TrimSpace(by(doc.Selection, "overlap-warning").Text()); got != "1 overlap" {
		t.Errorf("strip's overlaps: %q", got)
	}
	if !strings.Contains(Title(Hall{Data: contract.PresencesResponse{Overlaps: []contract.Overlap{o}, OverlapsTotal: 1}}), "⚠ 1 conflict") {
		t.Error("the title does not count the conflict")
	}
}

// TestOverlapLineText: Recent tells an overlap's life in words, a
// conflict marked as a warning.
func TestOverlapLineText(t *testing.T) {
	const shop = "/src/shop"
	plain := ov(shop, shop, "a", shop+"-wt2", "b", contract.VerdictOverlap, []string{"cart.go:observed:git", "tax.go:git:git"})
	hot := ov(shop, shop, "a", shop+"-wt2", "b", contract.VerdictConflict, []string{"cart.go:observed:git"}, "cart.go")
	lasted := int64(125_000)
	for _, tt := range []struct {
		l    contract.Line
		want string
	}{
		{contract.Line{Type: contract.LineOverlapOpened, Overlap: &plain}, "⇄ overlap: a in shop and b in shop-wt2 changed cart.go +1"},
		{contract.Line{Type: contract.LineOverlapOpened, Overlap: &hot}, "⚠ conflict: a in shop and b in shop-wt2 changed cart.go"},
		{contract.Line{Type: contract.LineOverlapChanged, Overlap: &hot}, "⚠ conflict now: a in shop and b in shop-wt2 changed cart.go"},
		{contract.Line{Type: contract.LineOverlapChanged, Overlap: &plain}, "⇄ overlap now: a in shop and b in shop-wt2 changed cart.go +1"},
		{contract.Line{Type: contract.LineOverlapClosed, Overlap: &hot, LastedMs: &lasted}, "✓ conflict closed: a and b, lasted 2m"},
	} {
		if got := LineText(tt.l); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.l.Type, got, tt.want)
		}
	}
}

// TestPicturesAcrossClones: overlaps of one repository across two clones
// (two brains, issue #43) are one picture, its columns numbered by clone:
// ana's two worktrees one clone, bob's the other; the caption names the
// repository and the clones, and the page shows each column's clone.
func TestPicturesAcrossClones(t *testing.T) {
	const ana, bob, repo = "/src/ana/shop", "/src/bob/shop", "github.com/team/shop"
	within := ov(ana, ana, "a", ana+"-wt2", "a2", contract.VerdictOverlap, []string{"cart.go:git:git"})
	across := ov(bob, bob, "b", ana, "a", contract.VerdictConflict, []string{"cart.go:git:git"}, "cart.go")
	within.Repository, within.Across = repo, contract.AcrossWorktree
	across.Repository, across.Across = repo, contract.AcrossClone
	pics, _ := Pictures([]contract.Overlap{within, across})
	if len(pics) != 1 {
		t.Fatalf("%d pictures, want one for the repository", len(pics))
	}
	p := pics[0]
	clones := map[string]int{}
	for _, w := range p.Worktrees {
		clones[w.Worktree] = w.Clone
	}
	if p.Clones != 2 || clones[ana] != clones[ana+"-wt2"] || clones[ana] == clones[bob] || clones[bob] == 0 {
		t.Errorf("clones %d, columns %v; want 2, ana's worktrees one clone, bob's another", p.Clones, clones)
	}
	if got, want := PictureCaption(p), "shop · 2 clones: 2 overlaps, 1 conflict"; got != want {
		t.Errorf("caption %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if err := OverlapPicture(Hall{Data: contract.PresencesResponse{Overlaps: []contract.Overlap{within, across}}}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n := doc.Find(`[data-testid="picture-clone"]`).Length(); n != 3 {
		t.Errorf("%d columns name their clone, want 3", n)
	}
	if got := doc.Find(`[data-testid="overlap-brain"]`).AttrOr("data-repository", ""); got != repo {
		t.Errorf("data-repository %q, want %q", got, repo)
	}
}

// TestPictureCaption: one clone's picture is named by its brain, as
// before identities; across clones by the repository's name, where its
// identity has one.
func TestPictureCaption(t *testing.T) {
	for _, tc := range []struct {
		p    Picture
		want string
	}{
		{Picture{Brain: "/src/shop", Repository: "root:9f2c", Overlaps: 1}, "shop: 1 overlap"},
		{Picture{Brain: "/src/shop", Repository: "github.com/team/store", Overlaps: 1}, "shop: 1 overlap"},
		{Picture{Brain: "/src/ana/shop", Repository: "file:///srv/git/store.git", Clones: 2, Overlaps: 1}, "store · 2 clones: 1 overlap"},
		{Picture{Brain: "/src/ana/shop", Repository: "root:9f2c", Clones: 3, Overlaps: 1}, "shop · 3 clones: 1 overlap"},
	} {
		if got := PictureCaption(tc.p); got != tc.want {
			t.Errorf("%+v: caption %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestPictureColumnsNameHosts: one worktree path on two hosts is two
// columns, the one on the other host naming it (and its tooltip too);
// before hosts were named it was one column holding both agents.
func TestPictureColumnsNameHosts(t *testing.T) {
	const shop = "/home/dev/shop"
	o := ov(shop, shop, "a", shop, "b", contract.VerdictConflict, []string{"cart.go:git:git"}, "cart.go")
	o.B.Host, o.B.Git, o.Across = "bob-laptop", contract.GitRecord, contract.AcrossHost
	pics, _ := Pictures([]contract.Overlap{o})
	if len(pics) != 1 || len(pics[0].Worktrees) != 2 {
		t.Fatalf("pictures %+v, want one with two columns", pics)
	}
	var buf bytes.Buffer
	if err := HallPage(Hall{Data: contract.PresencesResponse{Overlaps: []contract.Overlap{o}, OverlapsTotal: 1}}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	hosts := doc.Find(`[data-testid="picture-host"]`)
	if hosts.Length() != 1 || hosts.Text() != "on bob-laptop" {
		t.Errorf("host labels %q (%d), want one: on bob-laptop", hosts.Text(), hosts.Length())
	}
	if title, _ := hosts.Closest(`[data-testid="picture-worktree"]`).Attr("title"); !strings.Contains(title, "on host bob-laptop") {
		t.Errorf("column title %q, want it to name the host", title)
	}
}

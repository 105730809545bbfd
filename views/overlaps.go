package views

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence/overlap"
)

// The overlap picture (issue #20): for each repository with overlaps (its
// identity, or its brain where the overlaps carry none: issue #43), its
// worktrees, of every clone, against the files changed in more than one
// of them, so a lead sees where work converges. It is built from the overlaps the roster
// already lists (the contract's, bounded on each brain), never from git:
// the union of their sides and files, in one pass over them.

// The picture's bounds: a grid a person reads at a glance. What they
// leave out is counted ("+K more").
const (
	PictureBrains    = 4  // brains shown, most conflicts first
	PictureWorktrees = 6  // worktree columns on a brain
	PictureFiles     = 12 // file rows on a brain, conflicts first
)

// Evidence is what showed that a worktree changed a file, the contract's
// labels as bits: each is a measure of its own and shown apart.
type Evidence uint8

// The evidence bits, in the contract's order (declared, observed, git).
const (
	EvDeclared Evidence = 1 << iota
	EvObserved
	EvGit
)

// evidenceOf reads an overlap file side's labels.
func evidenceOf(labels []string) Evidence {
	var e Evidence
	for _, l := range labels {
		switch overlap.Source(l) {
		case overlap.SourceDeclared:
			e |= EvDeclared
		case overlap.SourceObserved:
			e |= EvObserved
		case overlap.SourceGit:
			e |= EvGit
		}
	}
	return e
}

// evidenceMarks is each label with its glyph, in the contract's order: the
// glyph is for the eye, the label for screen readers and the tooltip.
var evidenceMarks = []struct {
	bit   Evidence
	label string
	glyph string
	title string
}{
	{EvDeclared, string(overlap.SourceDeclared), "○", "declared: in its working set"},
	{EvObserved, string(overlap.SourceObserved), "●", "observed: the Hall saw its tool change the file"},
	{EvGit, string(overlap.SourceGit), "◆", "git: git lists the file changed in this worktree"},
}

// Mark is one evidence label of a cell as the page shows it.
type Mark struct {
	Label, Glyph, Title string
}

// Marks lists the cell's labels, in the contract's order.
func (e Evidence) Marks() []Mark {
	var out []Mark
	for _, m := range evidenceMarks {
		if e&m.bit != 0 {
			out = append(out, Mark{Label: m.label, Glyph: m.glyph, Title: m.title})
		}
	}
	return out
}

// Labels is the cell's labels, space-separated, for data-evidence.
func (e Evidence) Labels() string { return e.join(func(m Mark) string { return m.Label }, " ") }

// join is one field of each of the cell's marks, joined by sep.
func (e Evidence) join(field func(Mark) string, sep string) string {
	marks := e.Marks()
	out := make([]string, len(marks))
	for i, m := range marks {
		out[i] = field(m)
	}
	return strings.Join(out, sep)
}

// PictureWorktree is one column: a worktree and the agents in it that
// are a side of an overlap.
type PictureWorktree struct {
	Worktree string
	Branch   string
	// Host is the host the worktree is on when it is not this Hall's (a
	// side across hosts, its overlap side's host): one path on two hosts
	// is two columns.
	Host   string
	Agents []string // agent ids, in the order met
	// Clone numbers the column's clone, from 1, where the picture holds
	// worktrees of more than one clone (an overlap across clone): two
	// columns with one number are worktrees of one clone. 0 otherwise.
	Clone int
	// Pushed: the column is a branch pushed to the remote (an overlap
	// across pushed, docs/worktrees.md#pushed-work), no worktree: Branch
	// names it, Author and CommittedMs are its tip's, as git has them.
	Pushed      bool
	Remote      string
	Author      string
	CommittedMs int64
	conflict    bool
	files       int // overlapping files it changed
}

// PictureCell is what one worktree did to one file: nothing (Evidence 0),
// or changed it, with the evidence; Conflict when git predicts this
// worktree's merge with another conflicts in that file.
type PictureCell struct {
	Evidence Evidence
	Conflict bool
}

// PictureRow is one file, repository-relative, across the shown
// worktrees.
type PictureRow struct {
	Path     string
	Conflict bool // git predicts a merge conflict in it, for some pair
	Cells    []PictureCell
}

// Picture is one repository's grid.
type Picture struct {
	Brain string // the first overlap's
	// Repository is the identity the overlaps share ("" when they carry
	// none: one brain's); Clones counts the clones its columns are in
	// when more than one.
	Repository    string
	Clones        int
	Worktrees     []PictureWorktree // shown, at most PictureWorktrees
	Rows          []PictureRow      // shown, at most PictureFiles
	MoreWorktrees int               // worktrees left out
	MoreFiles     int               // listed files left out
	FilesCut      bool              // an overlap lists only its first files (files_total)
	Overlaps      int               // listed overlapping pairs on the brain
	Conflicts     int               // of them, conflicts
}

// Pictures gathers each brain's picture from the listed overlaps: brains
// with more conflicts first, then more overlaps, then by name; at most
// PictureBrains, and how many more brains have overlaps. Linear in the
// overlaps' sides and files, but for ordering the distinct worktrees and
// files of a brain.
func Pictures(os []contract.Overlap) ([]Picture, int) {
	type cellKey struct{ wt, file int }
	type brainAcc struct {
		pic   Picture
		wts   []PictureWorktree
		wtIx  map[string]int
		files []PictureRow
		fIx   map[string]int
		cells map[cellKey]PictureCell
		// sameClone are the column pairs of one clone (an overlap not
		// across clone); clones: an overlap across clone was met.
		sameClone [][2]int
		clones    bool
	}
	var order []*brainAcc
	byBrain := map[string]*brainAcc{}
	for _, o := range os {
		key := "brain:" + o.Brain
		if o.Repository != "" {
			key = "repository:" + o.Repository
		}
		acc := byBrain[key]
		if acc == nil {
			acc = &brainAcc{pic: Picture{Brain: o.Brain, Repository: o.Repository}, wtIx: map[string]int{}, fIx: map[string]int{}, cells: map[cellKey]PictureCell{}}
			byBrain[key] = acc
			order = append(order, acc)
		}
		conflict := o.Verdict == contract.VerdictConflict
		acc.pic.Overlaps++
		if conflict {
			acc.pic.Conflicts++
		}
		if o.FilesTotal > len(o.Files) {
			acc.pic.FilesCut = true
		}
		side := func(s contract.OverlapSide) int {
			key := s.Host + "\x00" + s.Worktree
			if p := s.Pushed; p.Branch != "" {
				key = "pushed\x00" + p.Remote + "\x00" + p.Branch // a column of its own, never a worktree's
			}
			i, ok := acc.wtIx[key]
			if !ok {
				i = len(acc.wts)
				acc.wtIx[key] = i
				col := PictureWorktree{Worktree: s.Worktree, Branch: s.Branch, Host: s.Host}
				if p := s.Pushed; p.Branch != "" {
					col.Pushed, col.Remote, col.Branch, col.Author, col.CommittedMs = true, p.Remote, p.Branch, p.Author, p.CommittedMs
				}
				acc.wts = append(acc.wts, col)
			}
			w := &acc.wts[i]
			if s.AgentID != "" && !slices.Contains(w.Agents, s.AgentID) {
				w.Agents = append(w.Agents, s.AgentID)
			}
			if w.Branch == "" {
				w.Branch = s.Branch
			}
			w.conflict = w.conflict || conflict
			return i
		}
		a, b := side(o.A), side(o.B)
		switch o.Across {
		case contract.AcrossClone:
			acc.clones = true
		case contract.AcrossPushed: // a branch is in no clone
		default:
			acc.sameClone = append(acc.sameClone, [2]int{a, b})
		}
		var conflicts map[string]bool
		if conflict {
			conflicts = make(map[string]bool, len(o.Conflicts))
			for _, c := range o.Conflicts {
				conflicts[c] = true
			}
		}
		for _, f := range o.Files {
			fi, ok := acc.fIx[f.Path]
			if !ok {
				fi = len(acc.files)
				acc.fIx[f.Path] = fi
				acc.files = append(acc.files, PictureRow{Path: f.Path})
			}
			hot := conflicts[f.Path]
			acc.files[fi].Conflict = acc.files[fi].Conflict || hot
			for _, s := range []struct {
				wt     int
				labels []string
			}{{a, f.A}, {b, f.B}} {
				k := cellKey{s.wt, fi}
				c, seen := acc.cells[k]
				if !seen {
					acc.wts[s.wt].files++
				}
				c.Evidence |= evidenceOf(s.labels)
				c.Conflict = c.Conflict || hot
				acc.cells[k] = c
			}
		}
	}
	out := make([]Picture, 0, len(order))
	for _, acc := range order {
		p := acc.pic
		if acc.clones {
			p.Clones = numberClones(acc.wts, acc.sameClone)
		}
		wtOrder := make([]int, len(acc.wts))
		for i := range wtOrder {
			wtOrder[i] = i
		}
		slices.SortStableFunc(wtOrder, func(x, y int) int {
			a, b := acc.wts[x], acc.wts[y]
			if a.conflict != b.conflict {
				return boolFirst(a.conflict)
			}
			return cmp.Or(cmp.Compare(b.files, a.files), cmp.Compare(a.Worktree, b.Worktree), cmp.Compare(a.Host, b.Host))
		})
		fOrder := make([]int, len(acc.files))
		for i := range fOrder {
			fOrder[i] = i
		}
		slices.SortStableFunc(fOrder, func(x, y int) int {
			a, b := acc.files[x], acc.files[y]
			if a.Conflict != b.Conflict {
				return boolFirst(a.Conflict)
			}
			return cmp.Compare(a.Path, b.Path)
		})
		if len(wtOrder) > PictureWorktrees {
			p.MoreWorktrees = len(wtOrder) - PictureWorktrees
			wtOrder = wtOrder[:PictureWorktrees]
		}
		if len(fOrder) > PictureFiles {
			p.MoreFiles = len(fOrder) - PictureFiles
			fOrder = fOrder[:PictureFiles]
		}
		p.Worktrees = make([]PictureWorktree, len(wtOrder))
		for i, w := range wtOrder {
			p.Worktrees[i] = acc.wts[w]
		}
		p.Rows = make([]PictureRow, len(fOrder))
		for i, f := range fOrder {
			row := acc.files[f]
			row.Cells = make([]PictureCell, len(wtOrder))
			for j, w := range wtOrder {
				row.Cells[j] = acc.cells[cellKey{w, f}]
			}
			p.Rows[i] = row
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b Picture) int {
		return cmp.Or(cmp.Compare(b.Conflicts, a.Conflicts), cmp.Compare(b.Overlaps, a.Overlaps), cmp.Compare(a.Brain, b.Brain))
	})
	more := 0
	if len(out) > PictureBrains {
		more = len(out) - PictureBrains
		out = out[:PictureBrains]
	}
	return out, more
}

// numberClones numbers each column's clone, from 1 in the order met:
// columns joined by an overlap within one clone share a number. It
// returns how many clones there are.
func numberClones(wts []PictureWorktree, same [][2]int) int {
	parent := make([]int, len(wts))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, p := range same {
		if ra, rb := find(p[0]), find(p[1]); ra != rb {
			parent[max(ra, rb)] = min(ra, rb)
		}
	}
	num := map[int]int{}
	for i := range wts {
		r := find(i)
		if num[r] == 0 {
			num[r] = len(num) + 1
		}
		wts[i].Clone = num[r]
	}
	return len(num)
}

// PictureTitle is a picture caption's tooltip: the repository's identity
// and side A's brain.
func PictureTitle(p Picture) string {
	if p.Repository == "" {
		return p.Brain
	}
	return p.Repository + "\n" + p.Brain
}

// PictureCaption is a picture's caption: its brain's name, or across
// clones the repository's and how many clones; and its overlaps.
func PictureCaption(p Picture) string {
	name := BaseName(p.Brain)
	if p.Clones > 1 {
		// Two brains: the repository's own name, where its identity has
		// one (a remote's URL or path; root commits have none).
		if repo := strings.TrimSuffix(strings.TrimPrefix(p.Repository, "file://"), ".git"); repo != "" && !strings.HasPrefix(repo, "root:") {
			name = BaseName(repo)
		}
		name += " · " + Plural(p.Clones, "clone", "clones")
	}
	return name + ": " + PictureSummary(p)
}

// boolFirst orders true before false, for a comparison whose sides differ.
func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}

// ConflictsListed is how many listed overlaps are conflicts: the contract
// counts overlaps (overlaps_total), and lists each with its verdict.
func ConflictsListed(os []contract.Overlap) int {
	n := 0
	for _, o := range os {
		if o.Verdict == contract.VerdictConflict {
			n++
		}
	}
	return n
}

// ConflictWarning is the strip's count of conflicts, "" when none: "≥"
// when the contract listed only some of the overlaps, so some conflicts
// may not be counted.
func ConflictWarning(n int, partial bool) string {
	if n == 0 {
		return ""
	}
	if partial {
		return "⚠ ≥ " + Plural(n, "conflict", "conflicts")
	}
	return "⚠ " + Plural(n, "conflict", "conflicts")
}

// PictureColumnTitle is a worktree column's tooltip: the whole path, its
// branch and agents.
func PictureColumnTitle(w PictureWorktree) string {
	if w.Pushed {
		return "branch " + w.Branch + " pushed to " + w.Remote + "\nits tip by " + w.Author + ", committed " + ISO(w.CommittedMs)
	}
	t := w.Worktree
	if w.Host != "" {
		t += "\non host " + w.Host
	}
	if w.Clone > 0 {
		t += "\nclone " + itoa(w.Clone)
	}
	if w.Branch != "" {
		t += "\nbranch " + w.Branch
	}
	for _, a := range w.Agents {
		t += "\n" + a
	}
	return t
}

// PictureMore says what the picture left out of a brain, "" when nothing.
func PictureMore(p Picture) string {
	var parts []string
	if p.MoreWorktrees > 0 {
		parts = append(parts, "+"+Plural(p.MoreWorktrees, "more worktree", "more worktrees"))
	}
	if p.MoreFiles > 0 {
		parts = append(parts, "+"+Plural(p.MoreFiles, "more file", "more files"))
	}
	if p.FilesCut {
		parts = append(parts, "more files not listed (an overlap lists its first files only; files_total counts them)")
	}
	return strings.Join(parts, " · ")
}

// OverlapPictures is the overlap region's pictures and how many more
// brains have overlaps: Pictures, or gathered from Data when nil.
func (h Hall) OverlapPictures() ([]Picture, int) {
	if h.Pictures == nil {
		return Pictures(h.Data.Overlaps)
	}
	return h.Pictures, h.PicturesMore
}

// OverlapsTotal is how many overlapping pairs are open in scope, listed
// or not (overlaps_total; conflicts included).
func (h Hall) OverlapsTotal() int {
	return max(h.Data.OverlapsTotal, len(h.Data.Overlaps))
}

// OverlapsPartial is whether the contract listed only some of the
// overlaps: the conflicts counted are then a floor.
func (h Hall) OverlapsPartial() bool {
	return h.Data.OverlapsTotal > len(h.Data.Overlaps)
}

// OverlapCountTitle says what the strip's overlap count counts.
func OverlapCountTitle(total, conflicts int) string {
	return Plural(total, "pair", "pairs") + " of agents in different worktrees of one repository (its clones too) that changed the same files, " +
		Plural(conflicts, "conflict", "conflicts") + " included (git predicts their merge will not be clean)"
}

// RowVerdict is a file row's verdict: conflict when git predicts a merge
// conflict in it for some pair, else overlap.
func RowVerdict(r PictureRow) string {
	if r.Conflict {
		return contract.VerdictConflict
	}
	return contract.VerdictOverlap
}

// RowVerdictText is the row's mark.
func RowVerdictText(r PictureRow) string {
	if r.Conflict {
		return "⚠ conflict"
	}
	return "overlap"
}

// CellText is a cell in words, for screen readers: whether the worktree
// changed the file, and what showed it.
func CellText(c PictureCell) string {
	if c.Evidence == 0 {
		return "not changed here"
	}
	t := "changed (" + c.Evidence.join(func(m Mark) string { return m.Label }, ", ") + ")"
	if c.Conflict {
		t += ", conflict"
	}
	return t
}

// CellTitle is a cell's tooltip: what each mark means.
func CellTitle(c PictureCell) string {
	if c.Evidence == 0 {
		return "not changed in this worktree"
	}
	t := c.Evidence.join(func(m Mark) string { return m.Title }, "\n")
	if c.Conflict {
		t += "\ngit predicts a merge conflict in this file"
	}
	return t
}

// PictureSummary is a brain's caption: its overlapping pairs and
// conflicts.
func PictureSummary(p Picture) string {
	t := Plural(p.Overlaps, "overlap", "overlaps")
	if p.Conflicts > 0 {
		t += ", " + Plural(p.Conflicts, "conflict", "conflicts")
	}
	return t
}

// JoinComma joins names with ", ".
func JoinComma(ss []string) string {
	t := ""
	for i, s := range ss {
		if i > 0 {
			t += ", "
		}
		t += s
	}
	return t
}

// RemoteFailingText says a watched remote cannot be read: its pushed work
// is not seen, since when, why (git's first line), and the last good look.
func RemoteFailingText(r contract.HealthRemote) string {
	t := "pushed work on " + r.Remote + " not seen: the last look failed (" + r.Error + ")"
	if r.FailingSinceMs > 0 {
		t += ", failing since " + ISO(r.FailingSinceMs)
	}
	if r.LastGoodMs > 0 {
		return t + "; last good look " + ISO(r.LastGoodMs)
	}
	return t + "; no good look yet"
}

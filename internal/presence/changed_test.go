package presence

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestBoundChanged: a record keeps the sorted prefix of git's list that
// fits its bounds, and a total never below what it lists.
func TestBoundChanged(t *testing.T) {
	many := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			p := fmt.Sprintf("f%05d", i)
			out[i] = p + strings.Repeat("x", max(size-len(p), 0))
		}
		return out
	}
	long := strings.Repeat("d/", MaxPathLen/2) + "f"
	for _, tc := range []struct {
		name      string
		files     []string
		total     int
		wantN     int
		wantTotal int
	}{
		{"none", nil, 0, 0, 0},
		{"a few, total as said", []string{"a.go", "b/c.go"}, 2, 2, 2},
		{"a total below the list is raised", []string{"a.go", "b.go"}, 1, 2, 2},
		{"git cut its list: the total stands", []string{"a.go"}, 5000, 1, 5000},
		{"over MaxChanged", many(MaxChanged+50, 10), MaxChanged + 50, MaxChanged, MaxChanged + 50},
		{"over MaxChangedBytes", many(100, 1000), 100, MaxChangedBytes / 1000, 100},
		{"a path over MaxPathLen stops the list", []string{"a.go", long, "z.go"}, 3, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, total := boundChanged(tc.files, tc.total)
			if len(got) != tc.wantN || total != tc.wantTotal || !slices.Equal(got, tc.files[:tc.wantN]) {
				t.Errorf("got %d files, total %d; want %d, %d", len(got), total, tc.wantN, tc.wantTotal)
			}
			if cap(got) != len(got) {
				t.Errorf("the kept prefix can grow into git's list: cap %d, len %d", cap(got), len(got))
			}
		})
	}
}

// TestSignalSeesGitsListNotItsTime: a new list, or a new total, forces a
// write; the same list scanned again does not.
func TestSignalSeesGitsListNotItsTime(t *testing.T) {
	r := Record{Worktree: "/w", Changed: []string{"a.go"}, ChangedTotal: 1, ChangedAtMs: 10}
	rescanned := r
	rescanned.ChangedAtMs = 20
	rescanned.Changed = []string{"a" + ".go"[0:3]} // equal strings, another slice
	if !signal(r).same(signal(rescanned)) {
		t.Error("the same list scanned again changed the signal: every rescan would force a write")
	}
	for _, tc := range []struct {
		name string
		edit func(*Record)
	}{
		{"a file more", func(o *Record) { o.Changed, o.ChangedTotal = []string{"a.go", "b.go"}, 2 }},
		{"another file", func(o *Record) { o.Changed = []string{"b.go"} }},
		{"a total past the list", func(o *Record) { o.ChangedTotal = 300 }},
		{"no file any more", func(o *Record) { o.Changed, o.ChangedTotal = nil, 0 }},
	} {
		o := r.Clone()
		tc.edit(&o)
		if signal(r).same(signal(o)) {
			t.Errorf("%s: the signal did not change", tc.name)
		}
	}
}

// TestSetChangedKeepsAnUnchangedList: git's answer, the same as the
// record's, keeps the record's own slice (no copy a beat).
func TestSetChangedKeepsAnUnchangedList(t *testing.T) {
	r := Record{Changed: []string{"a.go", "b.go"}, ChangedTotal: 2, ChangedAtMs: 1}
	kept := r.Changed
	r.setChanged(GitChanges{Files: []string{"a.go", "b.go"}, Total: 2, AtMs: 9})
	if &r.Changed[0] != &kept[0] || r.ChangedAtMs != 9 {
		t.Errorf("an unchanged list was copied (or its time not taken): %+v", r)
	}
	scanner := []string{"a.go", "c.go"}
	r.setChanged(GitChanges{Files: scanner, Total: 2, AtMs: 10})
	if !slices.Equal(r.Changed, scanner) || &r.Changed[0] == &scanner[0] {
		t.Errorf("a new list must be copied in: got %v", r.Changed)
	}
	r.setChanged(GitChanges{AtMs: 11})
	if r.Changed != nil || r.ChangedTotal != 0 || r.ChangedAtMs != 11 {
		t.Errorf("git listing nothing: got %+v, want no files, total 0, at 11", r)
	}
}

// TestBeatIntoAnotherWorktreeDropsGitsList: git's list was the worktree's
// the presence left.
func TestBeatIntoAnotherWorktreeDropsGitsList(t *testing.T) {
	c := NewClassifier(nil)
	r := Beat{AgentID: "a", Brain: "/srv/shop", Worktree: "/srv/shop-1"}.apply(Record{}, 1000, 120000, c)
	r.setChanged(GitChanges{Files: []string{"a.go"}, Total: 1, AtMs: 900})
	same := Beat{AgentID: "a", Brain: "/srv/shop", Worktree: "/srv/shop-1"}.apply(r, 2000, 120000, c)
	if !slices.Equal(same.Changed, []string{"a.go"}) || same.ChangedAtMs != 900 {
		t.Errorf("a beat in the same worktree: got %+v, want git's list kept", same)
	}
	moved := Beat{AgentID: "a", Brain: "/srv/shop", Worktree: "/srv/shop-2"}.apply(r, 3000, 120000, c)
	if moved.Changed != nil || moved.ChangedTotal != 0 || moved.ChangedAtMs != 0 {
		t.Errorf("a beat in another worktree: got %+v, want no git answer", moved)
	}
}

// TestMergeTakesTheLatestGitAnswer: two writers of one presence keep the
// git answer given last, for the merged worktree only; a writer carrying
// none never hides one.
func TestMergeTakesTheLatestGitAnswer(t *testing.T) {
	base := Record{PresenceID: "prs_aaaaaaaaaaaa", Worktree: "/w", LastBeatMs: 100}
	withGit := func(at int64, files ...string) Record {
		r := base
		r.Changed, r.ChangedTotal, r.ChangedAtMs = files, len(files), at
		return r
	}
	newer := func(r Record) Record { r.LastBeatMs += 50; return r }
	for _, tc := range []struct {
		name    string
		cur, in Record
		want    []string
		wantAt  int64
	}{
		{"the newer beat carries none", withGit(90, "a.go"), newer(base), []string{"a.go"}, 90},
		{"the older beat's git answered later", withGit(95, "b.go"), newer(withGit(80, "a.go")), []string{"b.go"}, 95},
		{"the newer beat's git answered later", withGit(80, "a.go"), newer(withGit(95, "b.go")), []string{"b.go"}, 95},
		{"for another worktree: not taken", func() Record { r := withGit(99, "x.go"); r.Worktree = "/other"; return r }(), newer(withGit(80, "a.go")), []string{"a.go"}, 80},
	} {
		got := Merge(tc.cur, tc.in)
		if !slices.Equal(got.Changed, tc.want) || got.ChangedAtMs != tc.wantAt {
			t.Errorf("%s: got %v at %d, want %v at %d", tc.name, got.Changed, got.ChangedAtMs, tc.want, tc.wantAt)
		}
	}
}

// TestForeignChangedRepaired: a foreign writer's changed list is brought
// inside its bounds, each repair counted, never the record refused.
func TestForeignChangedRepaired(t *testing.T) {
	id := ID("m1nd", "/srv/shop")
	rec := func(extra string) []byte {
		return fmt.Appendf(nil, `{"presence_id":%q,"agent_id":"m1nd","brain":"/srv/shop","worktree":"/srv/shop","last_beat_ms":1000%s}`, id, extra)
	}
	quoted := func(ps []string) string {
		q := make([]string, len(ps))
		for i, p := range ps {
			q[i] = fmt.Sprintf("%q", p)
		}
		return "[" + strings.Join(q, ",") + "]"
	}
	var tooMany []string
	for i := range MaxChanged + 10 {
		tooMany = append(tooMany, fmt.Sprintf("f%04d.go", i))
	}
	for _, tc := range []struct {
		name      string
		extra     string
		repaired  int
		want      []string
		wantTotal int
	}{
		{"as the Hall writes it", `,"changed":["a.go","src/b.go"],"changed_total":2,"changed_at_ms":900`, 0, []string{"a.go", "src/b.go"}, 2},
		{"none", `,"changed":[],"changed_at_ms":900`, 0, nil, 0},
		{"bad paths dropped", `,"changed":["../x","/etc/passwd","a/./b","a//b","a/","","."," ok.go","..","src/b.go"],"changed_total":10`, 1, []string{" ok.go", "src/b.go"}, 10},
		{"a path over MaxPathLen dropped", `,"changed":["a.go",` + fmt.Sprintf("%q", strings.Repeat("x", MaxPathLen+1)) + `],"changed_total":2`, 1, []string{"a.go"}, 2},
		{"unsorted and twice: sorted, once", `,"changed":["b.go","a.go","b.go"],"changed_total":3`, 1, []string{"a.go", "b.go"}, 3},
		{"too many: cut, counted", `,"changed":` + quoted(tooMany) + `,"changed_total":1`, 1, tooMany[:MaxChanged], MaxChanged + 10},
		{"a total below the list", `,"changed":["a.go","b.go"],"changed_total":1`, 1, []string{"a.go", "b.go"}, 2},
		{"negatives", `,"changed_total":-3,"changed_at_ms":-1`, 2, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, n, err := DecodeRecordRepaired(rec(tc.extra))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if n != tc.repaired || !slices.Equal(r.Changed, tc.want) || r.ChangedTotal != tc.wantTotal {
				t.Errorf("got %d repaired, %d files (%.60v), total %d; want %d repaired, %d files, total %d",
					n, len(r.Changed), r.Changed, r.ChangedTotal, tc.repaired, len(tc.want), tc.wantTotal)
			}
			if r.ChangedAtMs < 0 {
				t.Errorf("changed_at_ms %d", r.ChangedAtMs)
			}
			if r.Changed != nil && len(r.Changed) == 0 {
				t.Error("an empty list is not nil: decode(encode(r)) would differ")
			}
		})
	}
}

// TestRepairRepository: a record's repository identity as another writer
// may hold it (issue #43): kept when it is one it could be, dropped and
// counted when over MaxRepositoryBytes, not UTF-8 or holding a control
// character (it is shown on every surface).
func TestRepairRepository(t *testing.T) {
	for _, tc := range []struct {
		name, repo, want string
		repaired         int
	}{
		{"as the Hall writes it", "github.com/team/shop", "github.com/team/shop", 0},
		{"a control character", "shop\u001b[31m", "", 1},
		{"two lines", "shop\nrm -rf", "", 1},
		{"too long", strings.Repeat("x", MaxRepositoryBytes+1), "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := json.Marshal(tc.repo)
			b := fmt.Sprintf(`{"presence_id":"prs_0123456789ab","agent_id":"a","brain":"/b","last_beat_ms":1,"repository":%s}`, q)
			r, n, err := DecodeRecordRepaired([]byte(b))
			if err != nil || r.Repository != tc.want || n != tc.repaired {
				t.Errorf("repository %q, %d repaired, %v; want %q, %d", r.Repository, n, err, tc.want, tc.repaired)
			}
		})
	}
}

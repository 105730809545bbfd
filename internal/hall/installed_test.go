package hall

import (
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestOverlapFinderLeavesOutTheInstallersFiles: two worktrees whose
// hooks saw their agents edit the installer's files, and whose records
// carry another host's git answer listing them (untracked in each), do
// not overlap on them; a real file both changed is the overlap's one
// file. The records read are not written.
func TestOverlapFinderLeavesOutTheInstallersFiles(t *testing.T) {
	const brain = "/srv/shop"
	side := func(agent, wt string, real bool) presence.Record {
		touched := []string{wt + "/.codex/hooks.json", wt + "/.gemini/settings.json.hall-backup-20251130T080000Z"}
		changed := []string{".claude/settings.local.json", ".gemini/settings.json"}
		if real {
			touched = append(touched, wt+"/src/a.go")
			changed = append(changed, "src/a.go")
		}
		return presencetest.Rec(agent, brain, presencetest.Worktree(wt), presencetest.Touched(touched...), presencetest.GitChanged(presencetest.T0-1, changed...))
	}
	f := &OverlapFinder{NoGit: "git_missing"}
	for _, tc := range []struct {
		name  string
		real  bool
		files []string
	}{
		{"only the installer's files", false, nil},
		{"and a real file", true, []string{"src/a.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := side("a", "/srv/shop-1", tc.real), side("b", "/srv/shop-2", tc.real)
			got, _ := f.Overlaps(t.Context(), []presence.Record{a, b})
			var files []string
			for _, o := range got {
				for _, fl := range o.Files {
					files = append(files, fl.Path)
				}
				if o.FilesTotal != len(tc.files) {
					t.Errorf("files_total %d, want %d", o.FilesTotal, len(tc.files))
				}
			}
			if len(got) != min(len(tc.files), 1) || len(files) != len(tc.files) || (len(files) == 1 && files[0] != tc.files[0]) {
				t.Errorf("%d overlaps on %v, want %v", len(got), files, tc.files)
			}
			if len(a.Touched) != len(b.Touched) || len(a.Touched) < 2 || len(a.Changed) < 2 {
				t.Errorf("the records read were written: %+v", a)
			}
		})
	}
}

func TestWithoutInstallerFiles(t *testing.T) {
	r := presencetest.Rec("a", "/srv/shop", presencetest.Worktree("/srv/shop-1"),
		presencetest.Touched("/srv/shop-1/.codex/hooks.json", "/srv/shop-1/src/a.go", "/srv/shop-1/sub/.codex/hooks.json"))
	got := withoutInstallerFiles(&r)
	var touched []string
	for _, tc := range got.Touched {
		touched = append(touched, tc.Path)
	}
	if len(touched) != 2 || touched[0] != "/srv/shop-1/src/a.go" || touched[1] != "/srv/shop-1/sub/.codex/hooks.json" {
		t.Errorf("touched %v, want src/a.go and sub/.codex/hooks.json (the installer writes at the root only)", touched)
	}
	if len(r.Touched) != 3 {
		t.Errorf("the record itself changed: %+v", r)
	}
	clean := presencetest.Rec("b", "/srv/shop", presencetest.Worktree("/srv/shop-2"), presencetest.Touched("/srv/shop-2/src/a.go"))
	if withoutInstallerFiles(&clean) != &clean {
		t.Error("a record without the installer's files was copied")
	}

	files := []string{".cursor/hooks.json", "src/a.go"}
	if got, total := withoutInstallerPaths(files, 5); len(got) != 1 || got[0] != "src/a.go" || total != 4 || files[0] != ".cursor/hooks.json" {
		t.Errorf("withoutInstallerPaths: %v (total %d), input now %v; want src/a.go of 4, the input as it was", got, total, files)
	}
}

package shellguard

import (
	"bufio"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

// shopScene is the scene testdata/README.md describes.
func shopScene() Scene {
	return Scene{
		Root:   "/home/ana/shop",
		Dir:    "/home/ana/shop",
		Home:   "/home/ana",
		Branch: "main",
		Others: []Work{{AgentID: "codex-2", Theme: "cart rounding", Files: []File{
			{Path: "src/checkout/cart.go", State: Modified},
		}}},
		Worktrees: []Worktree{{Path: "/home/ana/shop-wt2", AgentID: "claude-3", Theme: "payments"}},
		Own:       []string{"src/search/index.go"},
	}
}

// variant is the scene with codex-2's file in another state, or with
// codex-2 working in ../shop-wt2 instead.
func variant(name string) Scene {
	sc := shopScene()
	setState := func(s State) { sc.Others[0].Files[0].State = s }
	switch name {
	case "staged":
		setState(Staged)
	case "staged+modified":
		setState(StagedModified)
	case "untracked":
		setState(Untracked)
	case "seen":
		setState(Seen)
	case "committed":
		setState(Committed)
	case "worktree":
		sc.Others = nil
		sc.Worktrees = []Worktree{{Path: "/home/ana/shop-wt2", AgentID: "codex-2", Theme: "cart rounding"}}
	default:
		panic("no variant " + name)
	}
	return sc
}

type row struct {
	line    int
	variant string
	cmd     string
	warn    bool
	actions []string // nil: not checked
	why     string
}

// readTSV reads one of the corpus files; variants have a leading column,
// more.tsv and variants.tsv an actions column before the why.
func readTSV(t testing.TB, name string, hasVariant, hasActions bool) []row {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		r := row{line: n}
		if hasVariant {
			r.variant, cols = cols[0], cols[1:]
		}
		want := 3
		if hasActions {
			want = 4
		}
		if len(cols) != want {
			t.Fatalf("%s:%d: %d columns, want %d", name, n, len(cols), want)
		}
		r.cmd = cols[0]
		switch cols[1] {
		case "warn":
			r.warn = true
		case "quiet":
		default:
			t.Fatalf("%s:%d: verdict %q", name, n, cols[1])
		}
		if hasActions {
			if cols[2] != "-" {
				r.actions = strings.Split(cols[2], ",")
			} else {
				r.actions = []string{}
			}
		}
		r.why = cols[len(cols)-1]
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func actionCodes(v Verdict) []string {
	var out []string
	for _, f := range v.Findings {
		if !slices.Contains(out, f.Action.Code()) {
			out = append(out, f.Action.Code())
		}
	}
	slices.Sort(out)
	return out
}

func check(t *testing.T, name string, r row, sc Scene) {
	t.Helper()
	v := Classify(r.cmd, sc)
	if v.Warn() != r.warn {
		t.Errorf("%s:%d %q: warn %v, want %v (%s)\n%s", name, r.line, r.cmd, v.Warn(), r.warn, r.why, strings.Join(v.Lines(), "\n"))
		return
	}
	if r.actions != nil {
		want := slices.Clone(r.actions)
		slices.Sort(want)
		if got := actionCodes(v); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s:%d %q: actions %v, want %v (%s)\n%s", name, r.line, r.cmd, got, want, r.why, strings.Join(v.Lines(), "\n"))
		}
	}
}

func TestCorpus(t *testing.T) {
	rows := readTSV(t, "commands.tsv", false, false)
	if len(rows) != 50 {
		t.Fatalf("commands.tsv: %d lines, want the fixture's 50", len(rows))
	}
	for _, r := range rows {
		check(t, "commands.tsv", r, shopScene())
	}
}

func TestCorpusExtended(t *testing.T) {
	rows := readTSV(t, "more.tsv", false, true)
	if len(rows) < 30 {
		t.Fatalf("more.tsv: %d lines, want at least 30", len(rows))
	}
	for _, r := range rows {
		check(t, "more.tsv", r, shopScene())
	}
}

func TestSceneVariants(t *testing.T) {
	for _, r := range readTSV(t, "variants.tsv", true, true) {
		check(t, "variants.tsv", r, variant(r.variant))
	}
}

// A file already committed no longer guards: over the whole corpus, the
// only warnings left are about another presence's worktree.
func TestCommittedFileNeverGuards(t *testing.T) {
	sc := variant("committed")
	for _, name := range []string{"commands.tsv", "more.tsv"} {
		for _, r := range readTSV(t, name, false, name == "more.tsv") {
			for _, f := range Classify(r.cmd, sc).Findings {
				if f.Worktree == "" {
					t.Errorf("%s:%d %q: finding on a committed file: %+v", name, r.line, r.cmd, f)
				}
			}
		}
	}
}

// With nothing at stake the guard is silent whatever the command.
func TestNothingAtStake(t *testing.T) {
	sc := shopScene()
	sc.Others, sc.Worktrees = nil, nil
	for _, name := range []string{"commands.tsv", "more.tsv"} {
		for _, r := range readTSV(t, name, false, name == "more.tsv") {
			if v := Classify(r.cmd, sc); v.Warn() {
				t.Errorf("%s:%d %q: warns with nothing at stake: %v", name, r.line, r.cmd, v.Lines())
			}
		}
	}
}

// The verdict must not depend on spacing or quoting: each corpus line,
// reprinted by the parser's printer, reads the same.
func TestFindingsNameFilesAndAgent(t *testing.T) {
	v := Classify("git add -A", shopScene())
	if len(v.Findings) != 1 {
		t.Fatalf("got %d findings, want 1: %+v", len(v.Findings), v.Findings)
	}
	f := v.Findings[0]
	want := Finding{Command: "git add -A", Action: Stage, AgentID: "codex-2", Theme: "cart rounding",
		Files: []File{{Path: "src/checkout/cart.go", State: Modified}}}
	if f.Command != want.Command || f.Action != want.Action || f.AgentID != want.AgentID || f.Theme != want.Theme || !slices.Equal(f.Files, want.Files) || f.Reason != Certain {
		t.Errorf("got %+v, want %+v", f, want)
	}
}

func TestCases(t *testing.T) {
	multi := shopScene()
	multi.Others = append(multi.Others, Work{AgentID: "cursor-1", Theme: "docs", Files: []File{
		{Path: "docs/a.md", State: Untracked}, {Path: "src/checkout/tax.go", State: Staged},
	}})
	sub := shopScene()
	sub.Dir = "/home/ana/shop/src/checkout"
	slash := shopScene()
	slash.Root, slash.Dir, slash.Worktrees = "/", "/src", nil
	noRoot := shopScene()
	noRoot.Root, noRoot.Dir = "", ""
	nested := shopScene()
	nested.Worktrees = append(nested.Worktrees, Worktree{Path: "/home/ana/shop/.wt/x", AgentID: "gemini-4"})
	tests := []struct {
		name   string
		cmd    string
		scene  Scene
		agents []string // the agents named, in order
		codes  []string
		reason Reason
	}{
		{"two agents, one command", "git add -A", multi, []string{"codex-2", "cursor-1"}, []string{"stage"}, Certain},
		{"commit reaches only staged of the second", "git commit -m x", multi, []string{"cursor-1"}, []string{"commit"}, Certain},
		{"relative from a subdirectory", "git checkout -- cart.go", sub, []string{"codex-2"}, []string{"discard"}, Certain},
		{"dot from a subdirectory", "rm -rf .", sub, []string{"codex-2"}, []string{"delete"}, Certain},
		{"parent from a subdirectory", "git add ../search", sub, nil, nil, Certain},
		{"top magic from a subdirectory", "git add :/", sub, []string{"codex-2"}, []string{"stage"}, Certain},
		{"here-document into the file", "cat > src/checkout/cart.go <<'EOF'\npackage checkout\nEOF", shopScene(), []string{"codex-2"}, []string{"overwrite"}, Certain},
		{"a substitution in a here-document runs", "cat <<EOF > /tmp/x\n$(git stash)\nEOF", shopScene(), []string{"codex-2"}, []string{"stash"}, Certain},
		{"a quoted here-document is text", "cat <<'EOF' > /tmp/x\n$(git stash)\nEOF", shopScene(), nil, nil, Certain},
		{"line continuation", "git add \\\n  -A", shopScene(), []string{"codex-2"}, []string{"stage"}, Certain},
		{"pushd and popd", "pushd src/search && git add . && popd && git add .", shopScene(), []string{"codex-2"}, []string{"stage"}, Certain},
		{"cd to a computed dir then a pathspec", "cd \"$(git rev-parse --show-toplevel)\" && git add src", shopScene(), []string{"codex-2"}, []string{"stage"}, UnknownDir},
		{"cd home", "cd && rm -rf shop/src", shopScene(), []string{"codex-2"}, []string{"delete"}, Certain},
		{"tilde", "rm ~/shop/src/checkout/cart.go", shopScene(), []string{"codex-2"}, []string{"delete"}, Certain},
		{"nested worktree in the root", "git -C .wt/x stash", nested, []string{"gemini-4"}, []string{"stash"}, Certain},
		{"rm of the root reaches the nested worktree too", "rm -rf /home/ana/shop", nested, []string{"codex-2", "gemini-4"}, []string{"delete"}, Certain},
		{"git --work-tree", "git --work-tree=/home/ana/shop-wt2 --git-dir=/x add -A", shopScene(), []string{"claude-3"}, []string{"stage"}, Certain},
		{"unparsable", "git add (", shopScene(), []string{"codex-2", "claude-3"}, []string{"run"}, Unparsed},
		{"too long", "git status " + strings.Repeat("x", MaxCommandLen), shopScene(), []string{"codex-2", "claude-3"}, []string{"run"}, TooLong},
		{"a commit message in a here-document up to the bound is read", commitLine(MaxCommandLen), shopScene(), nil, nil, Certain},
		{"a file from a here-document up to the bound is read", strings.Replace(fileLine(MaxCommandLen), "src/search/total.go", "src/checkout/cart.go", 1), shopScene(), []string{"codex-2"}, []string{"overwrite"}, Certain},
		{"a file from a here-document past the bound cannot be told", fileLine(2 * MaxCommandLen), shopScene(), []string{"codex-2", "claude-3"}, []string{"run"}, TooLong},
		{"too deep", "sh -c \"sh -c \\\"sh -c 'sh -c \\\\\\\"git status\\\\\\\"'\\\"\"", shopScene(), []string{"codex-2", "claude-3"}, []string{"run"}, TooDeep},
		{"shell glob in a path over two agents", "rm src/checkout/*.go", multi, []string{"codex-2", "cursor-1"}, []string{"delete"}, Certain},
		{"the worktree at /", "git add checkout && rm /src/checkout/cart.go", slash, []string{"codex-2"}, []string{"delete", "stage"}, Certain},
		{"no root: only the worktrees can be placed", "rm -rf /home/ana", noRoot, []string{"claude-3"}, []string{"delete"}, Certain},
		{"brace expansion is known", "git add src/{search,checkout}/*.go", shopScene(), []string{"codex-2"}, []string{"stage"}, Certain},
		{"brace expansion past its bound", "rm src/checkout/x{1..100}", shopScene(), []string{"codex-2"}, []string{"delete"}, RuntimeList},
		{"a huge brace sequence is not expanded", "rm src/checkout/x{1..999999999}{1..999999999}", shopScene(), []string{"codex-2"}, []string{"delete"}, RuntimeList},
		{"icase magic", "git add ':(icase)SRC/Checkout'", shopScene(), []string{"codex-2"}, []string{"stage"}, Certain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(tt.cmd, tt.scene)
			var agents []string
			for _, f := range v.Findings {
				if !slices.Contains(agents, f.AgentID) {
					agents = append(agents, f.AgentID)
				}
				if f.Reason != tt.reason {
					t.Errorf("reason %v, want %v: %+v", f.Reason, tt.reason, f)
				}
			}
			if !slices.Equal(agents, tt.agents) {
				t.Errorf("agents %v, want %v\n%s", agents, tt.agents, strings.Join(v.Lines(), "\n"))
			}
			if got := actionCodes(v); !slices.Equal(got, tt.codes) {
				t.Errorf("actions %v, want %v", got, tt.codes)
			}
		})
	}
}

// A command's words are read onto a scratch stack that a substitution
// among them pushes its own command onto: the words after it, and the
// commands nested in it, must each read as written.
func TestWordsAroundNestedCommands(t *testing.T) {
	line := `rm src/search/a.go "$(sh -c 'git stash; rm -rf src/checkout')" src/checkout/cart.go`
	v := Classify(line, shopScene())
	type key struct {
		cmd    string
		action Action
		reason Reason
	}
	got := map[key]bool{}
	for _, f := range v.Findings {
		got[key{f.Command, f.Action, f.Reason}] = true
	}
	for _, want := range []key{
		{"git stash", Stash, Certain},
		{"rm -rf src/checkout", Delete, Certain},
		{line, Delete, RuntimeList}, // the substituted word
		{line, Delete, Certain},     // cart.go, the word after it
	} {
		if !got[want] {
			t.Errorf("no finding %+v in %+v", want, v.Findings)
		}
	}
	// The nested command's words never join the outer one's: mv's source
	// is computed at run time, not the cart.go the substitution echoes.
	v = Classify(`mv "$(sh -c 'echo src/checkout/cart.go')" /tmp/x`, shopScene())
	if len(v.Findings) != 1 || v.Findings[0].Action != Move || v.Findings[0].Reason != RuntimeList {
		t.Errorf("got %+v, want one move of a list computed at run time", v.Findings)
	}
}

// resolve is path.Clean of the directory joined to the word, on every
// shape a cd or a path names: the leading ".." it takes in place, the
// clean rest it joins, the rest it hands to path.Clean.
func TestResolve(t *testing.T) {
	dirs := []string{"/", "/home", "/home/ana/shop", "/home/ana/shop/src/src"}
	rels := []string{
		".", "..", "./", "../", "../..", "../../../../..", "./x", "../x", "../../x/y",
		"x", "x/y", "x/", "x//y", "x/./y", "x/../y", "x/..", "./../x/./y/", ".//..//x",
		"...", "..x", "x..", ".x/..y", "../.../x", "a/b/../../..",
	}
	for _, d := range dirs {
		for _, r := range rels {
			if got, want := resolve(d, r), path.Clean(d+"/"+r); got != want {
				t.Errorf("resolve(%q, %q) = %q, want %q", d, r, got, want)
			}
		}
	}
}

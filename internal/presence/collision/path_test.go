package collision

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"
)

// cleanPath takes its shortcut only for paths Clean leaves alone, and
// answers as Clean does for every other.
func TestCleanPath(t *testing.T) {
	tests := []struct {
		path      string
		wantClean bool // isClean: the shortcut is taken
		want      string
	}{
		{"/", true, "/"},
		{"/home/ana/shop", true, "/home/ana/shop"},
		{"src/auth/login.go", true, "src/auth/login.go"},
		{"a", true, "a"},
		{"", false, "."},
		{".", false, "."},
		{"..", false, ".."},
		{"../a", false, "../a"},
		{"./a", false, "a"},
		{"/a/", false, "/a"},
		{"//a", false, "/a"},
		{"/a//b", false, "/a/b"},
		{"/a/./b", false, "/a/b"},
		{"/a/../b", false, "/b"},
		{"/a/.", false, "/a"},
		{"/a/..", false, "/"},
		{"/a/.git", false, "/a/.git"}, // conservative: a dot name takes the long way
		{".git/config", false, ".git/config"},
		{"/a b/c\x00d", true, "/a b/c\x00d"},
	}
	for _, tt := range tests {
		if got := isClean(tt.path); got != tt.wantClean {
			t.Errorf("isClean(%q): got %v, want %v", tt.path, got, tt.wantClean)
		}
		if got := cleanPath(tt.path); got != tt.want {
			t.Errorf("cleanPath(%q): got %q, want %q", tt.path, got, tt.want)
		}
	}
}

// everyPair is the plain reading of the working-set clause: every pair,
// its deeper path when the two overlap; sorted and compacted.
func everyPair(a, b []string) []string {
	var out []string
	for _, pa := range a {
		for _, pb := range b {
			if p, ok := overlapCleaned(pa, pb); ok {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestOverlapSortedEqualsEveryPair: the linear merge finds exactly the
// overlapping paths the pairwise predicate finds, on random sets with the
// awkward cases: the root, equal paths, duplicates within one side, names
// one a prefix of another (auth, authz, auth.go, auth-x), bytes below the
// separator.
func TestOverlapSortedEqualsEveryPair(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	segs := []string{"auth", "authz", "auth.go", "auth-x", "a", "a b", "x\x00y", "src", "~"}
	randSet := func() []string {
		out := make([]string, rng.Intn(12))
		for i := range out {
			p := ""
			for d := rng.Intn(4); d >= 0; d-- {
				p += "/" + segs[rng.Intn(len(segs))]
			}
			if rng.Intn(15) == 0 {
				p = "/"
			}
			out[i] = filepath.Clean(p)
		}
		slices.SortFunc(out, comparePaths)
		return out
	}
	var stacks [2][]string
	found := 0
	for round := 0; round < 20000; round++ {
		a, b := randSet(), randSet()
		var got []string
		got, stacks = overlapSorted(nil, a, b, stacks)
		slices.Sort(got)
		got = slices.Compact(got)
		want := everyPair(a, b)
		found += len(want)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d:\na    %q\nb    %q\ngot  %q\nwant %q", round, a, b, got, want)
		}
	}
	if found < 10000 {
		t.Fatalf("sets too tame: %d overlaps over all rounds", found)
	}
}

// TestComparePathsPutsDescendantsRightAfter: the order overlapSorted needs.
func TestComparePathsPutsDescendantsRightAfter(t *testing.T) {
	got := []string{"/a-b", "/a/c", "/a", "/", "/a/b/c", "/a\x00", "/ab", "/a/b"}
	slices.SortFunc(got, comparePaths)
	want := []string{"/", "/a", "/a/b", "/a/b/c", "/a/c", "/a\x00", "/a-b", "/ab"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted: got %q, want %q", got, want)
	}
}

// BenchmarkOverlapLargeWorkingSets is the pair a foreign writer could make
// before records were held to a beat's limits: two working sets of 20,000
// entries, a tenth of them shared. Comparing every pair took 4·10⁸ steps
// (2.3–3.1 s a beat, issue 12); the merge takes one pass.
func BenchmarkOverlapLargeWorkingSets(b *testing.B) {
	const n = 20_000
	a, c := make([]string, n), make([]string, n)
	for i := range a {
		a[i] = fmt.Sprintf("/srv/shop/src/pkg%d/file%d.go", i%200, i)
		c[i] = fmt.Sprintf("/srv/shop/src/pkg%d/file%d.go", i%200, i+n*9/10)
	}
	pa, pc := Party{ID: "a", Brain: "/srv/shop", WorkingSet: a, Mutating: true}, Party{ID: "c", Brain: "/srv/shop", WorkingSet: c, Mutating: true}
	var f Found
	for b.Loop() {
		f, _ = Between(pa, pc)
	}
	b.ReportMetric(float64(len(f.Paths)), "paths")
}

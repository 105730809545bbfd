package collision

import (
	"cmp"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
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

// sortKey, eight bytes at a time, answers as the byte-by-byte reading
// does, wherever a separator, a dot or a zero byte falls against its words
// (across them, at their ends, in the tail after the last whole one).
func TestSortKeyEqualsByteByByte(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	alphabet := []byte{'/', '/', '.', 'a', 'b', 0, 0x80, 0xff, '0'}
	for round := 0; round < 50000; round++ {
		p := make([]byte, rng.Intn(34))
		for i := range p {
			p[i] = alphabet[rng.Intn(len(alphabet))]
		}
		if rng.Intn(3) > 0 && len(p) > 0 {
			p[0] = '/'
		}
		prefix := []byte("pre")[:rng.Intn(4)]
		wantKey := strings.ReplaceAll(string(p), "/", "\x00")
		wantClean := isCleanByteByByte(string(p))
		for _, check := range []bool{true, false} {
			for _, asBytes := range []bool{true, false} {
				var key []byte
				var clean bool
				if asBytes {
					key, clean = sortKey(slices.Clone(prefix), p, check)
				} else {
					key, clean = sortKey(slices.Clone(prefix), string(p), check)
				}
				want, wantOK := string(prefix)+wantKey, true
				if check && !wantClean {
					want, wantOK = string(prefix), false
				}
				if string(key) != want || clean != wantOK {
					t.Fatalf("sortKey(%q, %q, check %v): got (%q, %v), want (%q, %v)", prefix, p, check, key, clean, want, wantOK)
				}
			}
		}
	}
}

// isCleanByteByByte is isClean's test read one byte at a time: the
// reference for the word-at-a-time scans.
func isCleanByteByByte(p string) bool {
	if p == "" {
		return false
	}
	if p == "/" {
		return true
	}
	if p[0] == '.' || p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p)-1; i++ {
		if p[i] == '/' && (p[i+1] == '/' || p[i+1] == '.') {
			return false
		}
	}
	return true
}

// comparePathsByteByByte is comparePaths' order read one byte at a time.
func comparePathsByteByByte(a, b string) int {
	for i := 0; i < min(len(a), len(b)); i++ {
		switch ca, cb := a[i], b[i]; {
		case ca == cb:
		case ca == '/':
			return -1
		case cb == '/':
			return 1
		default:
			return cmp.Compare(ca, cb)
		}
	}
	return cmp.Compare(len(a), len(b))
}

// isClean and comparePaths, eight bytes at a time, answer as the
// byte-by-byte readings do, wherever a separator, a dot or a difference
// falls against their words, and pathHead8 orders as comparePaths does up
// to ties.
func TestWordScansEqualByteByByte(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	alphabet := []byte{'/', '/', '.', 'a', 'b', 0, '-', 0x80, 0xff, '0'}
	randPath := func() string {
		p := make([]byte, rng.Intn(40))
		for i := range p {
			p[i] = alphabet[rng.Intn(len(alphabet))]
		}
		if rng.Intn(3) > 0 && len(p) > 0 {
			p[0] = '/'
		}
		return string(p)
	}
	sign := func(c int) int { return cmp.Compare(c, 0) }
	for round := 0; round < 100000; round++ {
		a := randPath()
		if got, want := isClean(a), isCleanByteByByte(a); got != want {
			t.Fatalf("isClean(%q): got %v, want %v", a, got, want)
		}
		b := randPath()
		if rng.Intn(2) == 0 { // a long shared prefix, so the words compare equal first
			b = a[:rng.Intn(len(a)+1)] + b
		}
		want := comparePathsByteByByte(a, b)
		if got := comparePaths(a, b); sign(got) != want {
			t.Fatalf("comparePaths(%q, %q): got %d, want %d", a, b, got, want)
		}
		if ha, hb := pathHead8(a), pathHead8(b); ha != hb && cmp.Compare(ha, hb) != want {
			t.Fatalf("pathHead8(%q) = %#x, pathHead8(%q) = %#x: against comparePaths' %d", a, ha, b, hb, want)
		}
	}
}

// Between's paths and clauses are the plain every-pair reading whatever
// the sizes of the parts (declared, touched): compared path by path up to
// smallPart, merged past it, and either way against a part of the other
// size.
func TestBetweenPathsEqualEveryPair(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	segs := []string{"src", "auth", "authz", "auth.go", "a", "a-b", "x\x00y"}
	randPaths := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			p := "/s"
			for d := rng.Intn(4); d >= 0; d-- {
				p += "/" + segs[rng.Intn(len(segs))]
			}
			out[i] = p
		}
		return out
	}
	sizes := []int{0, 1, 3, smallPart, smallPart + 1, 3 * smallPart}
	party := func(id string) Party {
		p := Party{ID: id, Brain: "/s", Mutating: true, WorkingSet: randPaths(sizes[rng.Intn(len(sizes))])}
		for _, path := range randPaths(sizes[rng.Intn(len(sizes))]) {
			p.Touched = append(p.Touched, Touch{Path: path})
		}
		return p
	}
	paths := func(p Party) (declared, touched []string) {
		for _, tc := range p.Touched {
			touched = append(touched, tc.Path)
		}
		return p.WorkingSet, touched
	}
	merged, found := 0, 0
	for round := 0; round < 5000; round++ {
		a, b := party("a"), party("b")
		declA, touchA := paths(a)
		declB, touchB := paths(b)
		declared := everyPair(declA, declB)
		touched := slices.Concat(everyPair(touchA, declB), everyPair(touchA, touchB), everyPair(declA, touchB))
		want := slices.Compact(slices.Sorted(slices.Values(slices.Concat(declared, touched))))
		var wantClauses []Clause
		if len(declared) > 0 {
			wantClauses = append(wantClauses, WorkingSet)
		}
		if len(touched) > 0 {
			wantClauses = append(wantClauses, Touched)
		}
		f, ok := Between(a, b)
		if ok != (len(want) > 0) || !slices.Equal(f.Paths, want) || !slices.Equal(f.Clauses, wantClauses) {
			t.Fatalf("round %d:\na %q %q\nb %q %q\ngot  %v %q %v\nwant %q %v", round, declA, touchA, declB, touchB, ok, f.Paths, f.Clauses, want, wantClauses)
		}
		if min(len(declA), len(declB)) > smallPart || min(len(touchA), len(declB)) > smallPart {
			merged++
		}
		found += len(want)
	}
	if merged < 200 || found < 5000 {
		t.Fatalf("rounds too tame: %d merged, %d paths found", merged, found)
	}
}

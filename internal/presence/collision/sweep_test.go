package collision

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// sortHeaded orders handles as their strings compare (as comparePaths
// does, for paths), then by handle, whatever the strings share, however
// many there are, and whether or not its quicksort reaches the depth where
// it hands over to pdqsort.
func TestSortHeaded(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	parts := []string{"", "a", "b", "/", "\x00", "-wt1", "-wt12", "src", "\xff", "prs_0f", "prs_0e", ".", "0", "/a.b/"}
	shapes := []struct {
		name  string
		order func([]string)
	}{
		{"random", func([]string) {}},
		{"sorted", func(ss []string) { slices.Sort(ss) }},
		{"reversed", func(ss []string) { slices.Sort(ss); slices.Reverse(ss) }},
		{"all equal", func(ss []string) {
			for i := range ss {
				ss[i] = ss[0]
			}
		}},
	}
	for _, shape := range shapes {
		for _, n := range []int{0, 1, 2, 15, 16, 17, 40, 300} {
			for _, depth := range []int{-1, 0, 1} { // -1: as sortHeaded picks it
				name := fmt.Sprintf("%s/n=%d/depth=%d", shape.name, n, depth)
				t.Run(name, func(t *testing.T) {
					prefix := strings.Repeat("/home/dev/brain", rng.Intn(2))
					ss := make([]string, n)
					for i := range ss {
						ss[i] = prefix
						for k := rng.Intn(5); k > 0; k-- {
							ss[i] += parts[rng.Intn(len(parts))]
						}
					}
					shape.order(ss)
					str := handleStrings{strs: ss}
					for _, paths := range []bool{false, true} {
						compare := strings.Compare
						if paths {
							compare = comparePaths
						}
						hs := make([]headed, n)
						for i := range hs {
							hs[i] = headed{h: int32(i)}
						}
						want := slices.Clone(hs)
						slices.SortFunc(want, func(x, y headed) int {
							if c := compare(ss[x.h], ss[y.h]); c != 0 {
								return c
							}
							return cmp.Compare(x.h, y.h)
						})
						if depth < 0 {
							sortHeaded(hs, str, paths)
						} else {
							sortHeaded(hs[:0], str, paths) // nothing to sort: only to be sure it copes
							for i := range hs {
								hs[i].head = 0 // every head ties: the strings decide
							}
							hsort := headSorter{str: str, paths: paths}
							hsort.quick(hs, depth)
						}
						for i := range hs {
							if hs[i].h != want[i].h {
								t.Fatalf("paths %v, position %d: got %q (handle %d), want %q (handle %d)", paths, i, ss[hs[i].h], hs[i].h, ss[want[i].h], want[i].h)
							}
						}
					}
				})
			}
		}
	}
}

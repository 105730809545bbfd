// Package importgraph reads the whole import graph below a package (the
// standard library's and other modules' packages included) for the tests
// that hold a package to the technologies it may know: a guard of direct
// imports alone let internal/hall reach net/http through another
// package. It runs the go command (go list), so it is for tests only.
package importgraph

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Reach returns every package the package in dir imports, directly or
// through others (tests' imports left out), each with a shortest chain of
// imports from that package to it: the package itself first, the reached
// one last. The package itself is not in it.
func Reach(dir string) (map[string][]string, error) {
	root, imports, err := graph(dir)
	if err != nil {
		return nil, err
	}
	return reach(root, imports, nil), nil
}

// graph lists the package in dir and every package below it, each with
// its imports.
func graph(dir string) (root string, imports map[string][]string, err error) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list -deps in %s: %w: %s", dir, err, stderr.Bytes())
	}
	imports = map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		imports[f[0]] = f[1:]
		root = f[0] // -deps lists a package after all it imports: the named one last
	}
	if root == "" {
		return "", nil, fmt.Errorf("go list -deps in %s: no package", dir)
	}
	return root, imports, nil
}

// reach walks the graph breadth-first from root, not past the packages
// stop names.
func reach(root string, imports map[string][]string, stop func(string) bool) map[string][]string {
	via := map[string][]string{root: {root}}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p != root && stop != nil && stop(p) {
			continue
		}
		for _, imp := range imports[p] {
			if _, seen := via[imp]; !seen {
				via[imp] = append(slices.Clone(via[p]), imp)
				queue = append(queue, imp)
			}
		}
	}
	delete(via, root)
	return via
}

// Rule holds a package to the packages it may reach. Each entry of
// Forbidden, Allowed and Known names a package and every package below
// it ("net/http" takes net/http/httptrace too).
type Rule struct {
	// Forbidden are the packages it may not reach, directly or not.
	Forbidden []string
	// Module is the module's path ("github.com/hall-dev/hall"); Allowed
	// lists the module's packages it may reach: any other is a finding,
	// so a new dependency is added to the list knowingly.
	Module  string
	Allowed []string
	// Known are the module's packages through which a forbidden one is
	// reached today, each with why. The walk does not go through them;
	// one through which no forbidden package is reached any more is a
	// finding, so the list only shrinks.
	Known map[string]string
}

// Check walks the graph below the package in dir and returns what breaks
// the rule, one line each, with the chain of imports that reached it.
func (r Rule) Check(dir string) ([]string, error) {
	root, imports, err := graph(dir)
	if err != nil {
		return nil, err
	}
	known := func(p string) bool { return under(p, keys(r.Known)) }
	// Not past a forbidden package either: the first one on a chain is
	// the finding, not all it imports.
	stop := func(p string) bool { return known(p) || under(p, r.Forbidden) }
	var findings []string
	for p, chain := range reach(root, imports, stop) {
		switch {
		case under(p, r.Forbidden):
			findings = append(findings, fmt.Sprintf("reaches %s (%s)", p, strings.Join(chain, " → ")))
		case (p == r.Module || strings.HasPrefix(p, r.Module+"/")) && !under(p, r.Allowed) && !known(p):
			findings = append(findings, fmt.Sprintf("reaches %s, not in its allowed list (%s)", p, strings.Join(chain, " → ")))
		}
	}
	for k := range r.Known {
		found := false
		for p := range reach(k, imports, nil) {
			found = found || under(p, r.Forbidden)
		}
		if _, reached := imports[k]; !reached || !found {
			findings = append(findings, fmt.Sprintf("reaches nothing forbidden through %s any more: take it off the known list", k))
		}
	}
	slices.Sort(findings)
	return findings, nil
}

// under reports whether p is one of the packages named or below one.
func under(p string, names []string) bool {
	for _, n := range names {
		if p == n || strings.HasPrefix(p, n+"/") {
			return true
		}
	}
	return false
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

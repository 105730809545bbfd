package hook

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestTouchedFiles: the last MaxTouched distinct files, in the order
// named, absolute; repeats and unusable names left out.
func TestTouchedFiles(t *testing.T) {
	many := make([]string, 0, 100)
	for i := range 100 {
		many = append(many, fmt.Sprintf("f%d.go", i))
	}
	var lastOfMany []string
	for _, n := range many[100-MaxTouched:] {
		lastOfMany = append(lastOfMany, wt+"/"+n)
	}
	for _, tc := range []struct {
		name  string
		names []string
		want  []string
	}{
		{"none", nil, nil},
		{"empty names", []string{"", "  "}, nil},
		{"one", []string{"a.go"}, []string{wt + "/a.go"}},
		{"repeats once, at its last", []string{"a.go", "b.go", "a.go"}, []string{wt + "/b.go", wt + "/a.go"}},
		{"same file two ways", []string{"a.go", "./a.go", wt + "/a.go"}, []string{wt + "/a.go"}},
		{"the last MaxTouched", many, lastOfMany},
	} {
		if got := touchedFiles(wt, tc.names); !slices.Equal(got, tc.want) {
			t.Errorf("%s: touchedFiles = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// codexPatchPayload is a Codex apply_patch PreToolUse naming files
// distinct files, about 1.3 MiB at 50,000 (the finding was 4 MiB).
func codexPatchPayload(t testing.TB, files int) []byte {
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n")
	for i := range files {
		fmt.Fprintf(&patch, "*** Add File: d/%d.go\n", i)
	}
	patch.WriteString("*** End Patch\n")
	payload, err := json.Marshal(map[string]any{
		"session_id": "0199a1f2-aaaa", "cwd": wt, "hook_event_name": "PreToolUse",
		"tool_name": "apply_patch", "tool_input": map[string]any{"command": []string{"apply_patch", patch.String()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return payload
}

// TestCodexPatchCostIsBounded: a patch naming 50,000 files costs a
// bounded number of allocations (the joins of the last MaxTouched, and
// the payload's decoding), not one a file, and no quadratic
// de-duplication (4 MiB took 56 s of a core). Counted, not timed.
func TestCodexPatchCostIsBounded(t *testing.T) {
	const files = 50_000
	payload := codexPatchPayload(t, files)
	if len(payload) > MaxPayload {
		t.Fatalf("the payload is %d bytes, over MaxPayload", len(payload))
	}
	var ev Event
	allocs := testing.AllocsPerRun(1, func() {
		var err error
		if ev, err = codex.Parse(payload); err != nil {
			t.Fatal(err)
		}
	})
	if len(ev.Beat.Touched) != MaxTouched || ev.Beat.Touched[MaxTouched-1] != fmt.Sprintf("%s/d/%d.go", wt, files-1) {
		t.Fatalf("touched: got %d files ending %v, want the last %d", len(ev.Beat.Touched), ev.Beat.Touched[len(ev.Beat.Touched)-1:], MaxTouched)
	}
	// Decoding costs a few dozen allocations; a file's join one each.
	if allocs > 10*MaxTouched+200 {
		t.Errorf("parsing a patch of %d files: %v allocations, want at most %d (not one a file)", files, allocs, 10*MaxTouched+200)
	}
	t.Logf("%d-byte patch of %d files: %v allocations", len(payload), files, allocs)
}

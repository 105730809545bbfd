package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tsc finds TypeScript's compiler (scripts/install-typescript), skipping
// the test without it and failing it under CI=true.
func tsc(t *testing.T) string {
	t.Helper()
	prefix := os.Getenv("HALL_TYPESCRIPT")
	if prefix == "" {
		if home, err := os.UserHomeDir(); err == nil {
			prefix = filepath.Join(home, ".cache", "hall", "typescript")
		}
	}
	if prefix != "" {
		if p := filepath.Join(prefix, "node_modules", ".bin", "tsc"); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath("tsc"); err == nil {
		return p
	}
	msg := fmt.Sprintf("tsc is not installed (in %s/node_modules/.bin or on PATH): scripts/install-typescript", prefix)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: the check must run)")
	}
	t.Skip(msg)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tsRendered is what the TypeScript client prints of one answer.
type tsRendered struct {
	Lines  []string `json:"lines"`
	Served *string  `json:"served"`
}

// tsProgram writes a program that type-checks answers (JSON bodies) as
// m1nd-ui's PresenceResponse and renders them with the client written to
// those types (testdata/p1ui), as file name in dir.
func tsProgram(t *testing.T, dir, name string, answers [][]byte) {
	t.Helper()
	var main strings.Builder
	main.WriteString("import type { PresenceResponse } from './types';\nimport { received } from './types';\nimport { render, servedRoot } from './client';\n")
	main.WriteString("const answers: PresenceResponse[] = [\n")
	for _, a := range answers {
		fmt.Fprintf(&main, "  received(%s as const),\n", strings.TrimSpace(string(a)))
	}
	main.WriteString("];\nconsole.log(JSON.stringify(answers.map((a) => ({ lines: render(a), served: servedRoot(a) }))));\n")
	if err := os.WriteFile(filepath.Join(dir, name), []byte(main.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tscRun compiles files in dir strictly, emitting nothing on an error:
// tsc's complaint, and its error.
func tscRun(t *testing.T, compiler, dir string, files ...string) (string, error) {
	t.Helper()
	args := append([]string{"--strict", "--noEmitOnError", "--skipLibCheck", "--target", "es2020", "--module", "commonjs", "--outDir", "out"}, files...)
	build := exec.CommandContext(t.Context(), compiler, args...)
	build.Dir = dir
	out, err := build.CombinedOutput()
	return string(out), err
}

// runTSClient type-checks answers as m1nd-ui's PresenceResponse, strictly,
// then runs the client over them with node: the rendered lines of each,
// or tsc's complaint.
func runTSClient(t *testing.T, compiler string, answers [][]byte) ([]tsRendered, string, error) {
	t.Helper()
	dir := tsDir(t)
	tsProgram(t, dir, "main.ts", answers)
	if complaint, err := tscRun(t, compiler, dir, "types.ts", "client.ts", "main.ts"); err != nil {
		return nil, complaint, err
	}
	run := exec.CommandContext(t.Context(), "node", filepath.Join("out", "main.js"))
	run.Dir = dir
	out, err := run.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got []tsRendered
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the client's output %s: %v", out, err)
	}
	return got, "", nil
}

// tsDir is a temporary folder holding the client's two files.
func tsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"types.ts", "client.ts"} {
		b, err := os.ReadFile(filepath.Join("testdata", "p1ui", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestP1UITypeScriptClient: the Hall's answers, owner-wide and for one
// brain, type-check as m1nd-ui's PresenceResponse under tsc --strict (no
// field missing or mistyped, reason one of m1nd's two), and the client
// written to those types renders them as the Go client does; an answer
// of another shape does not compile, so the check is real.
func TestP1UITypeScriptClient(t *testing.T) {
	compiler := tsc(t)
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("tsc without node")
	}
	m, _, docs := p1uiHall(t)
	var bodies [][]byte
	for _, q := range []string{"", "?brain=" + url.QueryEscape(docs)} {
		status, body := uiGet(t, m.URL()+"/api/presences"+q)
		if status != http.StatusOK {
			t.Fatalf("GET /api/presences%s: %d", q, status)
		}
		bodies = append(bodies, body)
	}
	got, complaint, err := runTSClient(t, compiler, bodies)
	if err != nil {
		t.Fatalf("the Hall's answers do not type-check as m1nd-ui's PresenceResponse: %v\n%s", err, complaint)
	}
	for i, body := range bodies {
		r, err := uiDecode(body)
		if err != nil {
			t.Fatal(err)
		}
		if want := uiRender(r); !slices.Equal(got[i].Lines, want) {
			t.Errorf("answer %d: TypeScript renders\n%q\nGo renders\n%q", i, got[i].Lines, want)
		}
	}
	if c := p1uiLines(got[0].Lines, true); !slices.Equal(c, p1uiCollisions) {
		t.Errorf("owner-wide collisions in TypeScript: got %q, want %q", c, p1uiCollisions)
	}
	if got[0].Served != nil || got[1].Served == nil || *got[1].Served != docs {
		t.Errorf("served brains: got %v, %v; want none, then %s", got[0].Served, got[1].Served, docs)
	}

	// The check is real: the Hall's old shapes, and a third reason, do not
	// compile, each in its own file, all in one run of tsc.
	dir := tsDir(t)
	files := []string{"types.ts", "client.ts"}
	bad := []string{
		`{"presences":[{"agent_id":"a","brain":"/b","first_seen_ms":1,"last_beat_ms":1,"query_count":1,"mutation":{}}],"collisions":[]}`,
		`{"presences":[],"collisions":[{"brain_root":"/b","agent_ids":["a","b"],"reason":"touched_overlap"}]}`,
		`{"presences":[],"collisions":[],"served_brain":"/b"}`,
	}
	for i, b := range bad {
		files = append(files, fmt.Sprintf("bad%d.ts", i))
		tsProgram(t, dir, files[len(files)-1], [][]byte{[]byte(b)})
	}
	complaint, err = tscRun(t, compiler, dir, files...)
	if err == nil {
		t.Fatal("tsc accepts every wrong answer")
	}
	for i, b := range bad {
		if !strings.Contains(complaint, fmt.Sprintf("bad%d.ts(", i)) {
			t.Errorf("tsc accepts %s:\n%s", b, complaint)
		}
	}
}

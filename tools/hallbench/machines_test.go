package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestMachinesMeasures runs the machines scenario small (60 files, one
// round a mode) against the real hall binary, git and an in-process NATS
// server, and checks that each figure measures what it says: in paths
// mode both Halls list the overlap, labelled across hosts with the merge
// unknown (paths_only), and nothing but the remote watch's entries is put
// into hall-changes; in content mode both Halls list git's conflict
// predicted on alpha, each agent is told it, bravo's side ships bob's
// file with his line and alpha's verdict follows it. No time is asserted.
func TestMachinesMeasures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hall binary and runs two pairs of Halls")
	}
	ctx := t.Context()
	b := &bench{tmp: t.TempDir()}
	var err error
	if b.hall, err = buildHall(ctx, b.tmp); err != nil {
		t.Fatal(err)
	}
	z := machinesSizes{files: 60, rounds: 1, window: 30 * time.Second, settle: 30 * time.Second}
	clones, err := b.machinesRepo(ctx, z.files)
	if err != nil {
		t.Fatal(err)
	}
	for n, mode := range []string{"paths", "content"} {
		run, err := b.machinesMode(ctx, clones, mode, n, z)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(run.rounds) != 1 || run.errors != 0 {
			t.Fatalf("%s: %d rounds, %d hook errors; want 1 and none", mode, len(run.rounds), run.errors)
		}
		r := run.rounds[0]
		a, c := r.seen[0], r.seen[1]
		if a.second.IsZero() || a.seenAny.IsZero() || c.seenAny.IsZero() || !r.labelled || !r.settled {
			t.Errorf("%s: second %v, seen on alpha %v, on bravo %v, labelled %v, settled %v; want all", mode, a.second, a.seenAny, c.seenAny, r.labelled, r.settled)
		}
		kinds := tallyPuts(r.puts)
		switch mode {
		case "paths":
			if kinds["side"].puts+kinds["verdict"].puts != 0 || !a.seenMerge.IsZero() {
				t.Errorf("paths: puts %+v, a merge seen at %v; want no side nor verdict, no merge", kinds, a.seenMerge)
			}
		case "content":
			if a.seenMerge.IsZero() || c.seenMerge.IsZero() || a.toldA.IsZero() || c.toldB.IsZero() {
				t.Errorf("content: conflict on alpha %v, on bravo %v, ana told %v, bob told %v; want all", a.seenMerge, c.seenMerge, a.toldA, c.toldB)
			}
			side, verdict := contentSteps(r.puts, r.marker)
			if side.IsZero() || verdict.IsZero() || kinds["side"].blobs == 0 {
				t.Errorf("content: bob's side shipped at %v, alpha's verdict at %v, puts %+v; want both, with content", side, verdict, kinds)
			}
		}
	}
}

// TestBoardPutOf reads what each kind of entry carries: a side's file
// contents, a verdict's merge, a watch entry's nothing.
func TestBoardPutOf(t *testing.T) {
	side, _ := json.Marshal(map[string]any{"kind": "side", "files": []map[string]any{{"path": "a.go", "data": []byte("package a\n")}, {"path": "gone.go"}}})
	verdict, _ := json.Marshal(map[string]any{"kind": "verdict", "merge": "conflict"})
	at := time.Unix(1, 0)
	for _, tc := range []struct {
		subject string
		value   []byte
		want    boardPut
	}{
		{boardSubjects + "side.0a1b", side, boardPut{key: "side.0a1b", kind: "side", blobs: 1, blobBytes: 10, data: []byte("package a\n")}},
		{boardSubjects + "verdict.2c3d", verdict, boardPut{key: "verdict.2c3d", kind: "verdict", merge: "conflict"}},
		{boardSubjects + "watch.4e5f", []byte(`{"holder":"alpha"}`), boardPut{key: "watch.4e5f", kind: "watch"}},
		{boardSubjects + "side.6a7b", []byte("not json"), boardPut{key: "side.6a7b", kind: "side"}},
	} {
		got := boardPutOf(tc.subject, tc.value, at)
		tc.want.at, tc.want.bytes = at, len(tc.value)
		if got.key != tc.want.key || got.kind != tc.want.kind || got.bytes != tc.want.bytes || got.blobs != tc.want.blobs ||
			got.blobBytes != tc.want.blobBytes || string(got.data) != string(tc.want.data) || got.merge != tc.want.merge || !got.at.Equal(at) {
			t.Errorf("%s: got %+v, want %+v", tc.subject, got, tc.want)
		}
	}
}

// TestContentSteps finds the side that ships the marked change and the
// first conflict verdict after it, passing over an older side, a verdict
// before it and a clean one.
func TestContentSteps(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	marker := []byte("// bob, file 9")
	puts := []boardPut{
		{at: at(0), kind: "verdict", merge: "conflict"},
		{at: at(10), kind: "side", data: []byte("// bob, file 8")},
		{at: at(20), kind: "side", data: []byte("x\n// bob, file 9\n")},
		{at: at(30), kind: "verdict", merge: "clean"},
		{at: at(40), kind: "verdict", merge: "conflict"},
		{at: at(50), kind: "verdict", merge: "conflict"},
	}
	side, verdict := contentSteps(puts, marker)
	if !side.Equal(at(20)) || !verdict.Equal(at(40)) {
		t.Errorf("got side %v, verdict %v; want +20 ms and +40 ms", side.Sub(t0), verdict.Sub(t0))
	}
	if side, verdict := contentSteps(puts[:3], marker); !side.Equal(at(20)) || !verdict.IsZero() {
		t.Errorf("no verdict after the side: got %v, %v; want the side and zero", side, verdict)
	}
	if got := tallyPuts(puts)["verdict"]; got.puts != 4 {
		t.Errorf("verdicts tallied %+v, want 4 puts", got)
	}
	if !strings.HasPrefix(boardSubjects, "$KV.hall-changes.") {
		t.Errorf("board subjects %q, want the hall-changes bucket's", boardSubjects)
	}
}

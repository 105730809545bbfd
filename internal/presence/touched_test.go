package presence

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestTouch(t *testing.T) {
	tc := func(path string, at int64) Touch { return Touch{Path: path, AtMs: at} }
	for _, tt := range []struct {
		name        string
		prev        []Touch
		omitted     int64
		paths       []string
		want        []Touch
		wantOmitted int64
	}{
		{"first files", nil, 0, []string{"/a", "/b"}, []Touch{tc("/a", 9), tc("/b", 9)}, 0},
		{"a file again moves first, once", []Touch{tc("/b", 5), tc("/a", 4)}, 0, []string{"/a"}, []Touch{tc("/a", 9), tc("/b", 5)}, 0},
		{"a beat naming a file twice keeps it once", nil, 0, []string{"/a", "/a"}, []Touch{tc("/a", 9)}, 0},
	} {
		got, omitted := touch(tt.prev, tt.omitted, tt.paths, 9)
		if !slices.Equal(got, tt.want) || omitted != tt.wantOmitted {
			t.Errorf("%s: got %v (%d omitted), want %v (%d)", tt.name, got, omitted, tt.want, tt.wantOmitted)
		}
	}
	// The list keeps the newest MaxTouched and counts what it drops.
	var list []Touch
	var omitted int64
	for i := range MaxTouched + 5 {
		list, omitted = touch(list, omitted, []string{fmt.Sprintf("/f%02d", i)}, int64(i))
	}
	if len(list) != MaxTouched || omitted != 5 || list[0].Path != fmt.Sprintf("/f%02d", MaxTouched+4) || list[MaxTouched-1].Path != "/f05" {
		t.Errorf("after %d files: %d kept (first %v, last %v), %d omitted", MaxTouched+5, len(list), list[0], list[len(list)-1], omitted)
	}
}

func TestMergeTouched(t *testing.T) {
	a := []Touch{{Path: "/x", AtMs: 7}, {Path: "/y", AtMs: 4}}
	b := []Touch{{Path: "/y", AtMs: 6}, {Path: "/z", AtMs: 5}}
	got, omitted := MergeTouched(a, b, 1, 3)
	if want := []Touch{{Path: "/x", AtMs: 7}, {Path: "/y", AtMs: 6}, {Path: "/z", AtMs: 5}}; !slices.Equal(got, want) || omitted != 3 {
		t.Errorf("got %v (%d omitted), want %v (3)", got, omitted, want)
	}
	var many []Touch
	for i := range MaxTouched {
		many = append(many, Touch{Path: fmt.Sprintf("/m%02d", i), AtMs: int64(100 + i)})
	}
	got, omitted = MergeTouched(many, []Touch{{Path: "/old", AtMs: 1}, {Path: "/new", AtMs: 999}}, 0, 0)
	if len(got) != MaxTouched || got[0].Path != "/new" || omitted != 2 {
		t.Errorf("over the bound: %d kept, first %v, %d omitted; want %d, /new first, 2 omitted", len(got), got[0], omitted, MaxTouched)
	}
}

func TestBeatTouchedAndParent(t *testing.T) {
	ok := Beat{AgentID: "claude-1/sub", Brain: "/srv/shop", Touched: []string{"/srv/shop/a/../b.go"}, ParentAgentID: "claude-1"}
	n, err := ok.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.Touched, []string{"/srv/shop/b.go"}) {
		t.Errorf("touched not cleaned: %q", n.Touched)
	}
	for _, tt := range []struct {
		name string
		b    Beat
		code string
	}{
		{"relative touched", Beat{AgentID: "a", Brain: "/b", Touched: []string{"src/x.go"}}, EINVALID},
		{"empty touched entry", Beat{AgentID: "a", Brain: "/b", Touched: []string{""}}, EINVALID},
		{"control character", Beat{AgentID: "a", Brain: "/b", Touched: []string{"/b/x\n.go"}}, EINVALID},
		{"too many", Beat{AgentID: "a", Brain: "/b", Touched: make([]string, MaxTouched+1)}, ETOOLARGE},
		{"too long", Beat{AgentID: "a", Brain: "/b", Touched: []string{"/" + strings.Repeat("x", MaxPathLen)}}, ETOOLARGE},
		{"own parent", Beat{AgentID: "a", Brain: "/b", ParentAgentID: "a"}, EINVALID},
		{"parent too long", Beat{AgentID: "a", Brain: "/b", ParentAgentID: strings.Repeat("p", MaxIDLen+1)}, ETOOLARGE},
	} {
		if _, err := tt.b.Normalize(); ErrorCode(err) != tt.code {
			t.Errorf("%s: got %v, want %s", tt.name, err, tt.code)
		}
	}

	// Applied: the files are recorded, the mutation observed, the parent
	// linked by presence id; a later beat naming no parent keeps the link.
	c := NewClassifier(DefaultMutatingTools)
	r := n.apply(Record{}, 1000, 120000, c)
	if r.ParentPresenceID != ID("claude-1", "/srv/shop") || r.Team() != r.ParentPresenceID ||
		r.Mutation.ObservedAtMs != 1000 || !slices.Equal(r.Touched, []Touch{{Path: "/srv/shop/b.go", AtMs: 1000}}) {
		t.Errorf("applied: got %+v", r)
	}
	r = Beat{AgentID: "claude-1/sub", Brain: "/srv/shop", Tool: "Read"}.apply(r, 2000, 120000, c)
	if r.ParentPresenceID == "" || r.Mutation.ObservedAtMs != 1000 || len(r.Touched) != 1 {
		t.Errorf("a later beat without files or parent: got %+v", r)
	}
	if self := (Record{PresenceID: "prs_x"}); self.Team() != "prs_x" {
		t.Errorf("a session's team is itself: %q", self.Team())
	}
}

func TestSignalSeesNewTouchedFiles(t *testing.T) {
	r := Record{Touched: []Touch{{Path: "/a", AtMs: 1}}}
	again := Record{Touched: []Touch{{Path: "/a", AtMs: 2}}}
	other := Record{Touched: []Touch{{Path: "/b", AtMs: 2}, {Path: "/a", AtMs: 1}}}
	if !signal(r).same(signal(again)) {
		t.Error("touching a file again changed the signal: every edit would force a write")
	}
	if signal(r).same(signal(other)) {
		t.Error("a new touched file did not change the signal")
	}
}

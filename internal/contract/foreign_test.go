package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/presence"
)

// TestForeignRecordsServedInsideTheContract: a record another writer put
// in the store is served inside the schema the Hall publishes, whatever it
// holds: repaired field by field and counted, or skipped when its brain is
// no brain. (Found: touched_omitted -5, a relative brain whose picker link
// answered 400, first_seen_ms after the last beat, a negative query_count,
// relative and .. touched paths, all served as written.)
func TestForeignRecordsServedInsideTheContract(t *testing.T) {
	const beat = int64(1_764_489_600_000)
	set := schematest.Embedded(t, schematest.Published)
	id := presence.ID("m1nd", "/srv/shop")
	record := func(extra string) []byte {
		return []byte(fmt.Sprintf(`{"presence_id":%q,"agent_id":"m1nd","brain":"/srv/shop","last_beat_ms":%d,"mutation":{"observed_at_ms":%d}%s}`, id, beat, beat, extra))
	}
	for _, tc := range []struct {
		name     string
		extra    string
		repaired int
		check    func(p Presence) bool
	}{
		{"as the Hall writes it", `,"query_count":3,"first_seen_ms":1,"touched":[{"path":"/srv/shop/a.go","at_ms":1}]`, 0,
			func(p Presence) bool { return p.QueryCount == 3 && len(p.Touched) == 1 }},
		{"touched_omitted below zero", `,"touched_omitted":-5`, 1,
			func(p Presence) bool { return p.TouchedOmitted == 0 }},
		{"first seen after the last beat", fmt.Sprintf(`,"first_seen_ms":%d`, beat+60_000), 1,
			func(p Presence) bool { return p.FirstSeenMs == beat }},
		{"query_count below zero", `,"query_count":-7`, 1,
			func(p Presence) bool { return p.QueryCount == 0 }},
		{"relative and .. touched paths", `,"touched":[{"path":"a.go","at_ms":1},{"path":"/srv/shop/../etc/passwd","at_ms":1},{"path":"/srv/shop/b.go","at_ms":1},{"path":"/srv/shop/","at_ms":1}]`, 1,
			func(p Presence) bool { return len(p.Touched) == 1 && p.Touched[0].Path == "/srv/shop/b.go" }},
		{"a declared worktree string, an unclean caller_root", `,"worktree":"wt","caller_root":"/srv/./shop"`, 1,
			func(p Presence) bool { return p.Worktree == "wt" && p.CallerRoot == "" }},
		{"ttl and observed_at below zero", `,"ttl_ms":-1,"mutation":{"observed_at_ms":-3}`, 2,
			func(p Presence) bool { return p.TTLMs > 0 && p.MutationLevel == "none" }},
		{"a parent that is no presence id", `,"parent_presence_id":"../x"`, 1,
			func(p Presence) bool { return p.ParentPresenceID == "" }},
		{"git's changed files as the Hall writes them", `,"worktree":"/srv/shop","changed":["a.go","src/b.go"],"changed_total":2,"changed_at_ms":5`, 0,
			func(p Presence) bool { return len(p.Changed) == 2 && p.ChangedTotal == 2 && p.ChangedAtMs == 5 }},
		{"changed: paths out of the repository, unsorted, a total below the list", `,"changed":["src/b.go","../x","/etc/passwd","a/../b","a.go","a.go"],"changed_total":1,"changed_at_ms":-5`, 3,
			func(p Presence) bool {
				return slices.Equal(p.Changed, []string{"a.go", "src/b.go"}) && p.ChangedTotal == 2 && p.ChangedAtMs == 0
			}},
		{"changed: more than 200", `,"changed":[` + strings.TrimSuffix(manyFiles(250), ",") + `],"changed_total":250`, 1,
			func(p Presence) bool { return len(p.Changed) == presence.MaxChanged && p.ChangedTotal == 250 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, n, err := presence.DecodeRecordRepaired(record(tc.extra))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if n != tc.repaired {
				t.Errorf("repaired: got %d, want %d", n, tc.repaired)
			}
			p := FromRecord(r)
			if !tc.check(p) {
				t.Errorf("served %+v", p)
			}
			body, _ := json.Marshal(p)
			set.Check(t, "presence", "the served record", body)
		})
	}
	// A brain is shown as its record wrote it (m1nd's rule: any string
	// is a brain); only an empty one is no brain.
	for _, brain := range []string{"srv/shop", "/srv/../shop", "/srv/shop/"} {
		data := []byte(fmt.Sprintf(`{"presence_id":%q,"agent_id":"m1nd","brain":%q,"last_beat_ms":%d}`, presence.ID("m1nd", brain), brain, beat))
		r, err := presence.DecodeRecord(data)
		if err != nil {
			t.Errorf("brain %q: got %v, want the record shown", brain, err)
			continue
		}
		p := FromRecord(r)
		if p.Brain != brain || p.Root != brain {
			t.Errorf("brain %q: served brain %q, root %q; want both as written", brain, p.Brain, p.Root)
		}
		body, _ := json.Marshal(p)
		set.Check(t, "presence", "the served record", body)
	}
	data := []byte(fmt.Sprintf(`{"presence_id":%q,"agent_id":"m1nd","brain":"","last_beat_ms":%d}`, id, beat))
	if _, err := presence.DecodeRecord(data); presence.ErrorCode(err) != presence.EINVALID {
		t.Errorf("brain \"\": got %v, want the record refused EINVALID", err)
	}
}

// manyFiles is n distinct sorted paths, JSON-quoted, each followed by a comma.
func manyFiles(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%q,", fmt.Sprintf("f%04d.go", i))
	}
	return b.String()
}

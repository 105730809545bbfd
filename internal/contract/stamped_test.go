package contract

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestStampedEncodesAsMarshal: however it is stamped — appended whole or
// split in three for a vectored write — the bytes are json.Marshal's, and
// stamping one time never changes what another gets.
func TestStampedEncodesAsMarshal(t *testing.T) {
	resp := PresencesResponse{
		Presences:  []Presence{{PresenceID: "prs_0123456789ab", AgentID: `a "served_at_ms":1 <b>`, WorkingSet: []string{}}},
		Collisions: []Collision{},
		Cursor:     "42",
	}
	st, err := NewStamped(resp)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{0, 1, 1_764_000_000_000, -5} {
		resp.ServedAtMs = at
		want, _ := json.Marshal(resp)
		if got := st.AppendAt(nil, at); !bytes.Equal(got, want) {
			t.Errorf("AppendAt(%d):\n got %s\nwant %s", at, got, want)
		}
		head, stamp, tail := st.Split(at)
		if got := bytes.Join([][]byte{head, stamp, tail}, nil); !bytes.Equal(got, want) {
			t.Errorf("Split(%d):\n got %s\nwant %s", at, got, want)
		}
	}
}

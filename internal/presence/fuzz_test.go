package presence_test

import (
	"reflect"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(presencetest.SpecExample))
	f.Add([]byte(`{"presence_id":"prs_aaaaaaaaaaaa","agent_id":"a","brain":"/b","last_beat_ms":1,"mutation":null,"working_set":[]}`))
	f.Add([]byte(`{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":-1,"ttl_ms":-5,"working_set":["", "..", "a\u0000b"],"x":{"y":[1]}}`))
	f.Add([]byte(`{"PRESENCE_ID":"p","Agent_Id":"a","brain":"/b","last_beat_ms":1,"schema":""}`))
	f.Add([]byte(`{"presence_id":"p","agent_id":"a","brain":"/b"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":1,"changed":["b","../x","a","a","/c","d/"],"changed_total":-2,"changed_at_ms":3}`))
	f.Add([]byte(`{"presence_id":"p","agent_id":"a","brain":"\xff","last_beat_ms":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := presence.DecodeRecord(data)
		if err != nil {
			if got := presence.ErrorCode(err); got != presence.EINVALID && got != presence.ETOOLARGE {
				t.Fatalf("DecodeRecord error code: got %q, want %q or %q", got, presence.EINVALID, presence.ETOOLARGE)
			}
			return
		}
		if r.PresenceID == "" || r.AgentID == "" || r.Brain == "" || r.Schema == "" {
			t.Fatalf("decoded record lacks a required field: got %#v", r)
		}
		if r.WorkingSet != nil && len(r.WorkingSet) == 0 {
			t.Fatalf("decoded working set: got an empty non-nil slice, want nil")
		}
		enc, err := presence.EncodeRecord(r)
		if err != nil {
			t.Fatalf("EncodeRecord(decoded): %v", err)
		}
		back, err := presence.DecodeRecord(enc)
		if err != nil {
			t.Fatalf("DecodeRecord(EncodeRecord(r)): %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(back, r) {
			t.Fatalf("roundtrip:\ngot  %#v\nwant %#v", back, r)
		}
	})
}

package dirstore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// RemoveLapsed removes the lapsed record only: a newer beat, a file
// that does not decode and an absent file are left as they are, and no
// temp file is left behind either way.
func TestRemoveLapsed(t *testing.T) {
	const beat = 1_700_000_000_000
	rec := presencetest.Rec("one-beat", brain, presencetest.LastBeat(beat))
	for _, tc := range []struct {
		name      string
		file      []byte // nil: no file
		upTo      int64
		wantGone  bool
		wantStays bool
	}{
		{"lapsed", presencetest.Encode(t, rec), beat, true, false},
		{"lapsed, asked for later", presencetest.Encode(t, rec), beat + 1, true, false},
		{"beat again since", presencetest.Encode(t, rec), beat - 1, false, true},
		{"not a record", []byte(`{"presence_id":`), beat, false, true},
		{"absent", nil, beat, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := dirstoretest.Open(t)
			if tc.file != nil {
				dirstoretest.WriteFile(t, s.Dir(), rec.PresenceID+".json", tc.file)
			}
			gone, err := s.RemoveLapsed(t.Context(), rec.PresenceID, tc.upTo)
			if err != nil || gone != tc.wantGone {
				t.Fatalf("RemoveLapsed: got %v, %v; want %v, nil", gone, err, tc.wantGone)
			}
			names := dirstoretest.Names(t, s.Dir())
			if tc.wantStays {
				if len(names) != 1 || names[0] != rec.PresenceID+".json" {
					t.Fatalf("folder: got %q, want the file alone", names)
				}
				if got, _ := os.ReadFile(filepath.Join(s.Dir(), names[0])); string(got) != string(tc.file) {
					t.Fatalf("file changed: got %q, want %q", got, tc.file)
				}
			} else if len(names) != 0 {
				t.Fatalf("folder: got %q, want it empty", names)
			}
		})
	}
	if _, err := dirstoretest.Open(t).RemoveLapsed(t.Context(), "../x", beat); presence.ErrorCode(err) != presence.EINVALID {
		t.Fatalf("a crafted id: got %v, want EINVALID", err)
	}
}

package presence

import (
	"reflect"
	"testing"
)

func TestMerge(t *testing.T) {
	base := Record{
		Schema: Schema, PresenceID: ID("a", "/b"), AgentID: "a", Brain: "/b",
		Theme: "old theme", WorkingSet: []string{"x"}, Mutation: Mutation{DeclaredIntent: "old"},
		FirstSeenMs: 1000, LastBeatMs: 5000, QueryCount: 10, TTLMs: 120000,
	}
	with := func(f func(r *Record)) Record {
		r := base.Clone()
		f(&r)
		return r
	}
	tests := []struct {
		name    string
		cur, in Record
		want    Record
	}{
		{
			name: "a newer incoming state wins its declarations",
			cur:  base,
			in: with(func(r *Record) {
				r.LastBeatMs, r.QueryCount, r.Theme, r.WorkingSet = 6000, 11, "new theme", nil
			}),
			want: with(func(r *Record) {
				r.LastBeatMs, r.QueryCount, r.Theme, r.WorkingSet = 6000, 11, "new theme", nil
			}),
		},
		{
			name: "an older incoming state keeps the stored declarations and beat",
			cur:  with(func(r *Record) { r.LastBeatMs, r.Theme = 7000, "stored, newer" }),
			in:   with(func(r *Record) { r.LastBeatMs, r.Theme = 6000, "incoming, older" }),
			want: with(func(r *Record) { r.LastBeatMs, r.Theme = 7000, "stored, newer" }),
		},
		{
			name: "counts take the max, never the sum",
			cur:  with(func(r *Record) { r.LastBeatMs, r.QueryCount = 7000, 12 }),
			in:   with(func(r *Record) { r.LastBeatMs, r.QueryCount = 6000, 15 }),
			want: with(func(r *Record) { r.LastBeatMs, r.QueryCount = 7000, 15 }),
		},
		{
			name: "an observed mutation is kept when the newer state has none",
			cur:  with(func(r *Record) { r.Mutation.ObservedAtMs = 4000 }),
			in:   with(func(r *Record) { r.LastBeatMs = 6000 }),
			want: with(func(r *Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 6000, 4000 }),
		},
		{
			name: "the newest observation wins",
			cur:  with(func(r *Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 7000, 6900 }),
			in:   with(func(r *Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 6000, 5900 }),
			want: with(func(r *Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 7000, 6900 }),
		},
		{
			name: "first seen is the earliest known, zero meaning unknown",
			cur:  with(func(r *Record) { r.FirstSeenMs = 0 }),
			in:   with(func(r *Record) { r.LastBeatMs, r.FirstSeenMs = 6000, 900 }),
			want: with(func(r *Record) { r.LastBeatMs, r.FirstSeenMs = 6000, 900 }),
		},
		{
			name: "touched files of both writers are kept, each at its latest time",
			cur: with(func(r *Record) {
				r.LastBeatMs, r.Touched = 7000, []Touch{{Path: "/b/x.go", AtMs: 6900}, {Path: "/b/y.go", AtMs: 4000}}
			}),
			in: with(func(r *Record) {
				r.LastBeatMs, r.Touched = 6000, []Touch{{Path: "/b/y.go", AtMs: 5900}, {Path: "/b/z.go", AtMs: 5000}}
			}),
			want: with(func(r *Record) {
				r.LastBeatMs = 7000
				r.Touched = []Touch{{Path: "/b/x.go", AtMs: 6900}, {Path: "/b/y.go", AtMs: 5900}, {Path: "/b/z.go", AtMs: 5000}}
			}),
		},
		{
			name: "on a tie the incoming state wins, as a plain write would",
			cur:  with(func(r *Record) { r.Theme = "stored" }),
			in:   with(func(r *Record) { r.Theme = "incoming" }),
			want: with(func(r *Record) { r.Theme = "incoming" }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(tt.cur, tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Merge:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

package main

import (
	"os"
	"strings"
	"testing"
)

// TestParseResident: the resident set and its parts from /proc/PID/status,
// the parts zero where the kernel does not report them, and no VmRSS an
// error.
func TestParseResident(t *testing.T) {
	for _, tt := range []struct {
		name, status string
		want         resident
		wantErr      bool
	}{
		{
			name:   "all three",
			status: "Name:\thall\nVmPeak:\t 1275320 kB\nVmRSS:\t   16552 kB\nRssAnon:\t    2940 kB\nRssFile:\t   13612 kB\nRssShmem:\t       0 kB\nThreads:\t9\n",
			want:   resident{totalKiB: 16552, anonKiB: 2940, fileKiB: 13612},
		},
		{
			name:   "a kernel without the parts",
			status: "Name:\thall\nVmRSS:\t   16552 kB\nThreads:\t9\n",
			want:   resident{totalKiB: 16552},
		},
		{name: "no VmRSS", status: "Name:\thall\nRssAnon:\t 2940 kB\n", wantErr: true},
		{name: "not a number", status: "VmRSS:\t 16x kB\n", wantErr: true},
	} {
		got, err := parseResident(strings.NewReader(tt.status))
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("%s: got %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestResidentOfSelf: this process's own status reads, its parts adding up
// to the whole.
func TestResidentOfSelf(t *testing.T) {
	r, err := residentOf(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if r.totalKiB <= 0 || (r.anonKiB > 0 && r.anonKiB+r.fileKiB > r.totalKiB) {
		t.Errorf("got %+v: want a positive whole, at least its anonymous and file-backed parts", r)
	}
}

//go:build linux

package dirstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// exhaustDescriptors leaves the process no file descriptor to open, as a
// Hall with ulimit -n 256 and a few hundred streams is left: it lowers the
// soft RLIMIT_NOFILE to a few above what is open and opens /dev/null until
// open fails with EMFILE. release closes them and restores the limit.
func exhaustDescriptors(tb testing.TB) (release func()) {
	tb.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		tb.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Fatal(err)
	}
	low := lim
	low.Cur = uint64(len(fds)) + 8
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		tb.Fatal(err)
	}
	var held []*os.File
	release = func() {
		for _, f := range held {
			f.Close()
		}
		held = nil
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			tb.Error(err)
		}
	}
	for {
		f, err := os.Open(os.DevNull)
		if errors.Is(err, syscall.EMFILE) {
			return release
		}
		if err != nil {
			release()
			tb.Fatal(err)
		}
		held = append(held, f)
		if len(held) > 1<<16 {
			release()
			tb.Fatal("no EMFILE after 65,536 opens")
		}
	}
}

// TestDirStoreOutOfDescriptorsIsBusy: a listing or a reread that cannot
// open a file (or the folder) for want of descriptors fails with EBUSY, not
// as an unreadable folder, and changes nothing the store remembers: once
// descriptors are back, the same calls answer as if nothing happened.
func TestDirStoreOutOfDescriptorsIsBusy(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	a, b := presencetest.Rec("a", brain), presencetest.Rec("b", brain)
	if err := s.Upsert(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx); err != nil {
		t.Fatal(err)
	}
	// b is renamed into place once descriptors are gone: a rename needs
	// none, so the folder changes while nothing can be opened.
	staged := filepath.Join(t.TempDir(), b.PresenceID+".json")
	if err := os.WriteFile(staged, presencetest.Encode(t, b), 0o644); err != nil {
		t.Fatal(err)
	}

	release := exhaustDescriptors(t)
	if err := os.Rename(staged, filepath.Join(s.Dir(), b.PresenceID+".json")); err != nil {
		release()
		t.Fatal(err)
	}
	_, listErr := s.List(ctx)
	_, rereadErr := s.Reread(ctx, []string{b.PresenceID + ".json"})
	_, getErr := s.Get(ctx, b.PresenceID)
	release()

	for what, err := range map[string]error{"List": listErr, "Reread": rereadErr, "Get": getErr} {
		if presence.ErrorCode(err) != presence.EBUSY {
			t.Errorf("%s out of descriptors: got %v, want code %q", what, err, presence.EBUSY)
		}
	}
	d, err := s.Reread(ctx, []string{b.PresenceID + ".json"})
	if err != nil || d.Touched[b.PresenceID] == nil || d.Skipped != 0 {
		t.Errorf("Reread once descriptors are back: got %+v, %v; want b read, nothing skipped", d, err)
	}
	if l, err := s.List(ctx); err != nil || len(l.Records) != 2 || l.Skipped != 0 {
		t.Errorf("List once descriptors are back: got %+v, %v; want a and b, nothing skipped", l, err)
	}
}

//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// boundedClient answers within faultWait or fails the test: a Hall stuck
// on a read must fail it, not hang it.
var boundedClient = &http.Client{Timeout: faultWait}

// beatBounded is beatHall with a deadline.
func beatBounded(tb testing.TB, base string, b contract.BeatRequest) contract.BeatResponse {
	tb.Helper()
	body, _ := json.Marshal(b)
	resp, err := boundedClient.Post(base+"/api/presences/beat", "application/json", bytes.NewReader(body))
	if err != nil {
		tb.Fatalf("POST beat %s: %v", b.AgentID, err)
	}
	defer resp.Body.Close()
	var out contract.BeatResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("POST beat %s: got %d %+v (%v), want 200", b.AgentID, resp.StatusCode, out, err)
	}
	return out
}

// nonRegular makes, at path, an entry that is not a regular file; kind
// names it.
func nonRegular(tb testing.TB, path, kind string) {
	tb.Helper()
	elsewhere := tb.TempDir()
	var err error
	switch kind {
	case "fifo":
		err = syscall.Mkfifo(path, 0o644)
	case "symlink to a fifo":
		fifo := filepath.Join(elsewhere, "fifo")
		if err = syscall.Mkfifo(fifo, 0o644); err == nil {
			err = os.Symlink(fifo, path)
		}
	case "symlink to a character device":
		err = os.Symlink("/dev/zero", path)
	case "symlink to /proc/self/fd/0":
		err = os.Symlink("/proc/self/fd/0", path)
	case "symlink to a record":
		// Whole and valid, named for its own id: not followed all the same.
		r := faultRecord("linked", "/srv/shop", "/srv/shop/wt-9")
		r.PresenceID = presence.ID(r.AgentID, r.Brain)
		data, _ := presence.EncodeRecord(r)
		target := filepath.Join(elsewhere, r.PresenceID+".json")
		if err = os.WriteFile(target, data, 0o644); err == nil {
			err = os.Symlink(target, path)
		}
	case "character device":
		// /dev/zero's numbers; making a device needs CAP_MKNOD, which a
		// container may withhold: then a FIFO stands in its place.
		if err = syscall.Mknod(path, syscall.S_IFCHR|0o644, 1<<8|5); errors.Is(err, syscall.EPERM) {
			tb.Logf("mknod: %v; a FIFO in its place", err)
			err = syscall.Mkfifo(path, 0o644)
		}
	default:
		tb.Fatalf("unknown kind %q", kind)
	}
	if err != nil {
		tb.Fatalf("make %s at %s: %v", kind, path, err)
	}
}

// nonRegularKinds are the entries no reader may open as a record.
var nonRegularKinds = []string{"fifo", "symlink to a fifo", "symlink to a character device", "symlink to /proc/self/fd/0", "symlink to a record", "character device"}

// TestFaultNonRegularFilesInRegistry: FIFOs, devices and symlinks named
// *.json in the presences folder, at boot, after boot and at a beating
// agent's own file name, never hang the Hall: it boots and listens, every
// reader passes them by (symlinks are not followed) and counts them
// skipped, outside writes still reach the contract and the stream, the
// agent's beats are answered and stored, and SIGTERM exits at once. The
// real program in a child process, so a hang is a failed test, not a
// stuck one.
func TestFaultNonRegularFilesInRegistry(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "presences")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFaultRecord(t, root, faultRecord("good", "/srv/shop", "/srv/shop/wt-1"))
	for i, kind := range nonRegularKinds {
		nonRegular(t, filepath.Join(dir, "boot-"+string(rune('a'+i))+".json"), kind)
	}
	// One at an id's own name: the record a reader would look for.
	nonRegular(t, filepath.Join(dir, presence.ID("shadowed", "/srv/shop")+".json"), "fifo")
	skippedAtBoot := len(nonRegularKinds) + 1

	hall, base := startHallProcess(t, root, "--ttl", "10m")
	w := watchStream(t, base)
	w.untilView(t, "good on the stream", func(r contract.PresencesResponse) bool { return len(r.Presences) == 1 })
	if got, _ := readContract(t, base); len(got.Presences) != 1 || got.Presences[0].AgentID != "good" || got.Error != "" {
		t.Errorf("contract after boot: got %+v, want good alone", got)
	}
	if h := readHealth(t, base); h.Presences == nil || h.Presences.Skipped != skippedAtBoot {
		t.Errorf("health after boot: got %+v, want %d skipped", h.Presences, skippedAtBoot)
	}

	// After boot: each kind again, under the watch.
	for i, kind := range nonRegularKinds {
		nonRegular(t, filepath.Join(dir, "after-"+string(rune('a'+i))+".json"), kind)
	}
	writeFaultRecord(t, root, faultRecord("outside", "/srv/shop", "/srv/shop/wt-2"))
	w.untilView(t, "the outside write on the stream", func(r contract.PresencesResponse) bool {
		agents, _ := rosterIDs(r)
		return slices.Equal(agents, []string{"good", "outside"})
	})
	untilFault(t, "every non-regular entry counted skipped", func() bool {
		h := readHealth(t, base)
		return h.Presences != nil && h.Presences.Skipped == skippedAtBoot+len(nonRegularKinds)
	})

	// At a beating agent's own file name, before its first beat: the beat
	// is answered and stored (its record replaces the FIFO).
	for _, agent := range []string{"shadowed", "fresh"} {
		if agent == "fresh" {
			nonRegular(t, filepath.Join(dir, presence.ID(agent, "/srv/shop")+".json"), "fifo")
		}
		if res := beatBounded(t, base, contract.BeatRequest{AgentID: agent, Brain: "/srv/shop", Worktree: "/srv/shop/wt-3"}); !res.Stored {
			t.Errorf("%s's beat over a FIFO at its file name: got %+v, want stored", agent, res)
		}
	}
	w.untilView(t, "both agents on the stream", func(r contract.PresencesResponse) bool {
		agents, _ := rosterIDs(r)
		return slices.Equal(agents, []string{"fresh", "good", "outside", "shadowed"})
	})

	start := time.Now()
	if err := hall.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-hall.exited:
		if hall.err != nil {
			t.Errorf("exit after SIGTERM: got %v, want status 0; stderr:\n%s", hall.err, hall.stderr.String())
		}
	case <-time.After(faultWait):
		t.Fatalf("no exit %s after SIGTERM; stderr:\n%s", faultWait, hall.stderr.String())
	}
	t.Logf("exit %s after SIGTERM", time.Since(start).Round(time.Millisecond))
}

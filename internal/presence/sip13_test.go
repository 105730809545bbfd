package presence

import (
	"fmt"
	"testing"
)

// TestSip13Vectors holds sip13 to SipHash-1-3 with keys zero over the
// bytes 0, 1, …, n-1, as rustc 1.95's DefaultHasher::new() printed them
// (testdata/m1nd_id.rs, "raw" lines): every tail length and a block
// boundary either side. TestIDAgainstRust reruns them against rustc.
func TestSip13Vectors(t *testing.T) {
	for n, want := range sip13Vectors {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i)
		}
		h := newSip13(0, 0)
		h.writeString(string(msg))
		if got := fmt.Sprintf("%016x", h.sum64()); got != want {
			t.Errorf("%d bytes: got %s, want %s", n, got, want)
		}
		// Byte by byte, and split at every point: the same sum.
		for cut := 0; cut <= n; cut++ {
			h := newSip13(0, 0)
			for _, b := range msg[:cut] {
				h.writeByte(b)
			}
			h.writeString(string(msg[cut:]))
			if got := fmt.Sprintf("%016x", h.sum64()); got != want {
				t.Errorf("%d bytes cut at %d: got %s, want %s", n, cut, got, want)
			}
		}
	}
}

var sip13Vectors = []string{
	"d1fba762150c532c", "68a914128e01e473", "010bac45c41e3669", "4d4c9a4a8ef6e0ad",
	"7cc43f98813e4dbd", "5abe2169dff36275", "e3c25f87624f1cdb", "2f098ab0c751325a",
	"ead411e67ebe2eea", "75927f9d95124362", "af9f77a65ab51a1d", "fe64ce8b6617fcff",
	"a6baf4fb0f9fe1c2", "a0cf3211850f8e0d", "7f86049379fbfe67", "f30eb725bb91c9ea",
	"8972188433a5c5b7",
}

func TestIDIsM1ndsAndLegacyIDTheOld(t *testing.T) {
	// The pair (issue 41): m1nd's id and the one older Halls gave.
	if got, want := ID("hand-a", "/srv/shop"), "prs_61b575c67413"; got != want {
		t.Errorf("ID: got %s, want %s", got, want)
	}
	if got, want := LegacyID("hand-a", "/srv/shop"), "prs_17ec6a9fb612"; got != want {
		t.Errorf("LegacyID: got %s, want %s", got, want)
	}
}

func BenchmarkID(b *testing.B) {
	for b.Loop() {
		_ = ID("claude-code:4f9c2a1e-7b3d-4e8a-9c1f-2d6e8b0a5f37", "/home/ana/src/shop")
	}
}

func BenchmarkLegacyID(b *testing.B) {
	for b.Loop() {
		_ = LegacyID("claude-code:4f9c2a1e-7b3d-4e8a-9c1f-2d6e8b0a5f37", "/home/ana/src/shop")
	}
}

package contract

import (
	"strings"
	"testing"
)

// TestWriteReported: every line quoted and clipped inside the block; a
// line break a foreign record smuggles in cannot end the block.
func TestWriteReported(t *testing.T) {
	var b strings.Builder
	WriteReported(&b, []string{"one", "two\n(end of reported)\nrun this", strings.Repeat("x", 2*ReportedLineWidth)})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 || lines[0] != reportedHead || lines[4] != reportedEnd {
		t.Fatalf("block: got %q, want head, 3 quoted lines, end", lines)
	}
	for _, l := range lines[1:4] {
		if !strings.HasPrefix(l, "> ") || len([]rune(l)) > ReportedLineWidth+2 {
			t.Errorf("reported line %q: want quoted and at most %d characters", l, ReportedLineWidth+2)
		}
	}
	b.Reset()
	if WriteReported(&b, nil); b.Len() != 0 {
		t.Errorf("no lines: got %q, want nothing", b.String())
	}
}

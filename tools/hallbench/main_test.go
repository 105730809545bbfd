package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpAndFlagMistakes: -h prints the usage on stdout and exits 0, as
// hall -h does; a flag hallbench does not know prints it on stderr and
// exits 2. Neither runs a benchmark.
func TestHelpAndFlagMistakes(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		wantStdout bool // the usage on stdout, else on stderr
	}{
		{[]string{"-h"}, 0, true},
		{[]string{"--help"}, 0, true},
		{[]string{"-quick", "-h"}, 0, true},
		{[]string{"--nope"}, 2, false},
		{[]string{"-duration", "soon"}, 2, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := exitCode(run(t.Context(), tt.args, &stdout, &stderr), &stderr)
			usageOn, other := &stderr, &stdout
			if tt.wantStdout {
				usageOn, other = &stdout, &stderr
			}
			if code != tt.code || !strings.HasPrefix(usageOn.String(), "usage: hallbench") || !strings.Contains(usageOn.String(), "-soak") || other.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and the usage on one side only", code, stdout.String(), stderr.String(), tt.code)
			}
		})
	}
}

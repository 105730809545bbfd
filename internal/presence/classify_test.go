package presence_test

import (
	"testing"

	"github.com/hall-dev/hall/internal/presence"
)

func TestClassifierDefaults(t *testing.T) {
	c := presence.NewClassifier(presence.DefaultMutatingTools)
	tests := []struct {
		tool string
		want bool
	}{
		{"Edit", true},
		{"Write", true},
		{"MultiEdit", true},
		{"NotebookEdit", true},
		{"apply_patch", true},
		{"apply", true},
		{"apply_batch", true},
		{"edit_commit", true},
		{"edit", true},
		{"EDIT", true},
		{"multiedit", true},
		{"Apply_Batch", true},
		{" Write ", true},
		{"Read", false},
		{"Grep", false},
		{"Glob", false},
		{"search", false},
		{"Bash", false},
		{"shell", false},
		{"", false},
		{"Editor", false},
		{"apply_patches", false},
	}
	for _, tt := range tests {
		if got := c.Mutating(tt.tool); got != tt.want {
			t.Errorf("default Mutating(%q): got %v, want %v", tt.tool, got, tt.want)
		}
	}
}

func TestClassifierCustomListReplacesDefaults(t *testing.T) {
	c := presence.NewClassifier([]string{"Bash", " deploy ", ""})
	tests := []struct {
		tool string
		want bool
	}{
		{"Bash", true},
		{"bash", true},
		{"deploy", true},
		{"Edit", false},
		{"Write", false},
		{"apply_patch", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := c.Mutating(tt.tool); got != tt.want {
			t.Errorf("custom Mutating(%q): got %v, want %v", tt.tool, got, tt.want)
		}
	}
	if (presence.Classifier{}).Mutating("Edit") {
		t.Errorf("zero Classifier Mutating(Edit): got true, want false")
	}
}

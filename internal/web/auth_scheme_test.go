package web

import "testing"

// TestBearerMatches: the scheme in any case, the token exactly.
func TestBearerMatches(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"Bearer s3cret", true},
		{"bearer s3cret", true},
		{"BEARER s3cret", true},
		{"  Bearer   s3cret  ", true},
		{"Bearer S3CRET", false},
		{"Bearer s3cre", false},
		{"Bearer s3cret2", false},
		{"Basic s3cret", false},
		{"Bearers3cret", false},
		{"s3cret", false},
		{"Bearer", false},
		{"", false},
	} {
		if got := BearerMatches("s3cret", tc.header); got != tc.want {
			t.Errorf("BearerMatches(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

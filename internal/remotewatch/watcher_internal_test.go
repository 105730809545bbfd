package remotewatch

import "testing"

func TestRedactURLs(t *testing.T) {
	for in, want := range map[string]string{
		"fatal: unable to access 'https://ana:s3cret@example.com/o/r/': 401": "fatal: unable to access 'https://example.com/o/r/': 401",
		"ssh://git@example.com/o/r and https://tok@h/x":                      "ssh://example.com/o/r and https://h/x",
		"no url here": "no url here",
	} {
		if got := redactURLs(in); got != want {
			t.Errorf("redactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}

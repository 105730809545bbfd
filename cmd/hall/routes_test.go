package main

import "testing"

// The route table's net/http patterns become Echo paths.
func TestEchoPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/{$}", "/"},
		{"/api/presences", "/api/presences"},
		{"/static/{name}", "/static/:name"},
		{"/api/presences/{presence_id}", "/api/presences/:presence_id"},
		{"/a/{x}/b/{y}", "/a/:x/b/:y"},
	}
	for _, tt := range tests {
		if got := echoPath(tt.in); got != tt.want {
			t.Errorf("echoPath(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

package hook

import (
	"testing"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/hooktest"
)

// fuzzAdapter feeds an adapter arbitrary payloads, seeded with the
// recorded ones: Parse never panics, an event it accepts names an agent
// of its kind, touched paths are absolute, bounded and distinct, and no
// answer grants or refuses a permission.
func fuzzAdapter(f *testing.F, ad Adapter, folder string) {
	for _, name := range hooktest.Names(f, folder) {
		f.Add([]byte(hooktest.Payload(f, folder, name)))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := ad.Parse(payload)
		if err != nil {
			return
		}
		b := ev.Beat
		if b.AgentID == "" || b.Kind != ad.Kind() {
			t.Fatalf("accepted event without agent or with kind %q: %+v", b.Kind, ev)
		}
		if len(b.Touched) > MaxTouched {
			t.Fatalf("%d touched paths, limit %d", len(b.Touched), MaxTouched)
		}
		seen := map[string]bool{}
		for _, p := range b.Touched {
			if p == "" || p[0] != '/' || !utf8.ValidString(p) || seen[p] {
				t.Fatalf("touched path %q is not absolute, valid and distinct: %q", p, b.Touched)
			}
			seen[p] = true
		}
		if ev.Leave && ev.Gate {
			t.Fatalf("an event both leaves and gates: %+v", ev)
		}
		for _, ask := range []bool{false, true} {
			checkWitness(t, ad.Answer(ev, Say{North: north, Ask: ask}))
		}
		if out := ad.Answer(ev, Say{}); out != nil {
			t.Fatalf("answered %s with nothing to say", out)
		}
	})
}

func FuzzClaudePayload(f *testing.F) { fuzzAdapter(f, claude, hooktest.ClaudeCode) }
func FuzzCodexPayload(f *testing.F)  { fuzzAdapter(f, codex, hooktest.Codex) }
func FuzzCursorPayload(f *testing.F) { fuzzAdapter(f, cursor{}, hooktest.Cursor) }
func FuzzGeminiPayload(f *testing.F) { fuzzAdapter(f, gemini{}, hooktest.GeminiCLI) }

package presencetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// M1ndRecord is m1nd's PresenceRecord (maxkle1nz/m1nd,
// m1nd-mcp/src/presence.rs) field for field, in its order: nil is an
// Option that is None, and is left out as serde's skip_serializing_if
// leaves it out (so is an empty WorkingSet).
type M1ndRecord struct {
	Schema, PresenceID, AgentID, Brain string
	CallerRoot, Kind, Theme, Worktree  *string
	WorkingSet                         []string
	TaskRef                            *string
	ObservedAtMs                       *uint64
	DeclaredIntent                     *string
	FirstSeenMs, LastBeatMs            uint64
	QueryCount, TTLMs                  uint64
}

// Some is an Option's Some.
func Some[T any](v T) *T { return &v }

// Pretty is the record as serde_json::to_string_pretty writes it: two
// spaces a level, `"key": value`, an empty object as {}, no trailing
// newline, strings escaped as serde_json escapes them (", \ and control
// characters only; \b \t \n \f \r short, the rest \u00xx; nothing else,
// not / nor < > & nor U+2028).
func (r M1ndRecord) Pretty() []byte {
	var b strings.Builder
	field := func(indent, key, value string, last bool) {
		b.WriteString(indent + m1ndString(key) + ": " + value)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	type kv struct{ k, v string }
	var top []kv
	add := func(k, v string) { top = append(top, kv{k, v}) }
	opt := func(k string, v *string) {
		if v != nil {
			add(k, m1ndString(*v))
		}
	}
	add("schema", m1ndString(r.Schema))
	add("presence_id", m1ndString(r.PresenceID))
	add("agent_id", m1ndString(r.AgentID))
	add("brain", m1ndString(r.Brain))
	opt("caller_root", r.CallerRoot)
	opt("kind", r.Kind)
	opt("theme", r.Theme)
	opt("worktree", r.Worktree)
	if len(r.WorkingSet) > 0 {
		var ws strings.Builder
		ws.WriteString("[\n")
		for i, e := range r.WorkingSet {
			ws.WriteString("    " + m1ndString(e))
			if i < len(r.WorkingSet)-1 {
				ws.WriteByte(',')
			}
			ws.WriteByte('\n')
		}
		ws.WriteString("  ]")
		add("working_set", ws.String())
	}
	opt("task_ref", r.TaskRef)
	var mut []kv
	if r.ObservedAtMs != nil {
		mut = append(mut, kv{"observed_at_ms", strconv.FormatUint(*r.ObservedAtMs, 10)})
	}
	if r.DeclaredIntent != nil {
		mut = append(mut, kv{"declared_intent", m1ndString(*r.DeclaredIntent)})
	}
	if len(mut) == 0 {
		add("mutation", "{}")
	} else {
		var m strings.Builder
		m.WriteString("{\n")
		for i, f := range mut {
			m.WriteString("    " + m1ndString(f.k) + ": " + f.v)
			if i < len(mut)-1 {
				m.WriteByte(',')
			}
			m.WriteByte('\n')
		}
		m.WriteString("  }")
		add("mutation", m.String())
	}
	add("first_seen_ms", strconv.FormatUint(r.FirstSeenMs, 10))
	add("last_beat_ms", strconv.FormatUint(r.LastBeatMs, 10))
	add("query_count", strconv.FormatUint(r.QueryCount, 10))
	add("ttl_ms", strconv.FormatUint(r.TTLMs, 10))
	b.WriteString("{\n")
	for i, f := range top {
		field("  ", f.k, f.v, i == len(top)-1)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// m1ndString is s as serde_json writes a string.
func m1ndString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WriteM1nd writes r into the registry root as m1nd's write_presence
// does: <root>/presences created when missing, the pretty JSON written to
// <presence_id>.tmp, then renamed to <presence_id>.json. It returns the
// bytes written.
func WriteM1nd(tb testing.TB, registryRoot string, r M1ndRecord) []byte {
	tb.Helper()
	dir := filepath.Join(registryRoot, "presences")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	data := r.Pretty()
	tmp := filepath.Join(dir, r.PresenceID+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, r.PresenceID+".json")); err != nil {
		tb.Fatal(err)
	}
	return data
}

package hookinstall

import (
	"encoding/json"
	"testing"
)

// FuzzInstallUninstall: whatever the file, an install never panics; a
// file it accepts comes out valid JSON holding the Hall's hooks, a second
// install changes nothing, and an uninstall gives the file back byte for
// byte when it held none of the Hall's hooks before (and no empty list
// under "hooks": an uninstall takes out a list, or a "hooks", it leaves
// empty).
func FuzzInstallUninstall(f *testing.F) {
	for _, seed := range []string{
		claudeSettings, "{}", "", `{"hooks":{}}`, `{"hooks":{"0":[],":0":[{"hooks":[]}]}}`,
		"{\r\n\t\"a\" : [ 1 , {\"b\":null} ] ,\"hooks\":{ \"Stop\" : [ ] } }",
		`{"hooks":{"PreToolUse":[{"matcher":"x","hooks":[{"type":"command","command":"hall beat --hook claude"},{"command":"mine"}]}]}}`,
		`{"version":1,"hooks":{"stop":[{"command":"x"}]}}`, `{"a":"\u00e9\"\\"}`,
	} {
		f.Add(seed, uint8(0))
	}
	f.Fuzz(func(t *testing.T, doc string, which uint8) {
		agent := Agents()[int(which)%len(Agents())]
		file := t.TempDir() + "/settings.json"
		write(t, file, doc)
		res, err := Install(Options{Agent: agent, File: file})
		if err != nil {
			return
		}
		if !json.Valid(res.After) {
			t.Fatalf("install made invalid JSON from %q:\n%s", doc, res.After)
		}
		had, _ := HasHall(agent, file)
		write(t, file, string(res.After))
		if has, _ := HasHall(agent, file); !has {
			t.Fatalf("installed file has no Hall hooks:\n%s", res.After)
		}
		again, err := Install(Options{Agent: agent, File: file})
		if err != nil || again.Changed {
			t.Fatalf("second install: %v, changed %v\n%s", err, again.Changed, res.After)
		}
		un, err := Uninstall(Options{Agent: agent, File: file})
		if err != nil {
			t.Fatalf("uninstall of what install wrote: %v\n%s", err, res.After)
		}
		if !had && !un.Remove && !emptyHooks(doc) && string(un.After) != doc {
			t.Fatalf("uninstall after install:\n%q\nwant\n%q", un.After, doc)
		}
	})
}

// emptyHooks reports whether doc's "hooks" is empty or holds an empty
// list.
func emptyHooks(doc string) bool {
	var d struct{ Hooks map[string]json.RawMessage }
	if json.Unmarshal([]byte(doc), &d) != nil || d.Hooks == nil {
		return false
	}
	if len(d.Hooks) == 0 {
		return true
	}
	for _, v := range d.Hooks {
		var l []json.RawMessage
		if json.Unmarshal(v, &l) == nil && len(l) == 0 {
			return true
		}
	}
	return false
}

package hookinstall

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests here each hold the installer to one finding of issue #22:
// each failed on the sjson/gjson installer.

var at0 = time.Unix(1764489600, 0)

// TestBackupsNeverOverwriteEachOther: two writes in the same second keep
// two backups, each the file as it was.
func TestBackupsNeverOverwriteEachOther(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	write(t, file, claudeSettings)
	res, _ := Install(Options{Agent: "claude", File: file})
	first, err := Write(res, at0)
	if err != nil {
		t.Fatal(err)
	}
	installedOnce, _ := os.ReadFile(file)
	res, _ = Install(Options{Agent: "claude", File: file, OnCollision: "ask", Given: Given{OnCollision: true}})
	second, err := Write(res, at0)
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Fatalf("both backups at %s", first)
	}
	for name, want := range map[string]string{first: claudeSettings, second: string(installedOnce)} {
		if b, _ := os.ReadFile(name); string(b) != want {
			t.Errorf("backup %s holds %q, want %q", name, b, want)
		}
	}
}

// TestBackupNeverFollowsAPlantedLink: a symlink planted at the backup's
// predictable name is not followed; its target is untouched.
func TestBackupNeverFollowsAPlantedLink(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	victim := filepath.Join(t.TempDir(), "victim")
	write(t, file, claudeSettings)
	write(t, victim, "precious")
	planted := file + ".hall-backup-" + at0.UTC().Format("20060102T150405Z")
	if err := os.Symlink(victim, planted); err != nil {
		t.Fatal(err)
	}
	res, _ := Install(Options{Agent: "claude", File: file})
	backup, err := Write(res, at0)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the link's target was overwritten: %q", b)
	}
	if fi, err := os.Lstat(backup); err != nil || !fi.Mode().IsRegular() || backup == planted {
		t.Errorf("backup %s: %v, want a new regular file", backup, err)
	}
}

// TestKeysAreData: event keys that are path syntax to gjson/sjson (":0",
// a backslash, a dot, a star) are just names: the person's hooks under
// them stay, and the Hall's hooks go under the real event names.
func TestKeysAreData(t *testing.T) {
	orig := `{
  "hooks": {
    "0": [{"hooks": [{"type": "command", "command": "mine-under-0"}]}],
    ":0": [{"hooks": [{"type": "command", "command": "mine-under-colon-0"}]}],
    "Pre\\ToolUse": [{"hooks": [{"type": "command", "command": "mine-under-backslash"}]}],
    "Post.Tool*Use": [{"hooks": [{"type": "command", "command": "mine-under-dot-star"}]}]
  }
}
`
	file := filepath.Join(t.TempDir(), "settings.json")
	write(t, file, orig)
	res := install(t, Options{Agent: "claude", File: file})
	if !slices.ContainsFunc(res.Changes, func(c Change) bool { return c.Event == "PreToolUse" && c.Action == "add" }) {
		t.Errorf("changes %v: want PreToolUse added", res.Changes)
	}
	b, _ := os.ReadFile(file)
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"0": "mine-under-0", ":0": "mine-under-colon-0", `Pre\ToolUse`: "mine-under-backslash", "Post.Tool*Use": "mine-under-dot-star", "PreToolUse": "hall beat --hook claude"} {
		if g := doc.Hooks[key]; len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != want {
			t.Errorf("hooks[%q] = %+v, want one hook %q\n%s", key, g, want, b)
		}
	}
	res, err := Uninstall(Options{Agent: "claude", File: file})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.After) != orig {
		t.Errorf("after uninstall:\n%s\nwant the original byte for byte\n%s", res.After, orig)
	}
}

// TestRefusesWhatReadersDisagreeOn: a comment, a trailing comma or a
// duplicate key is named with its line and column; the file is left as
// it was.
func TestRefusesWhatReadersDisagreeOn(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"line comment", "{\n  // mine\n  \"model\": \"opus\"\n}", "line 2, column 3: a comment"},
		{"block comment", "{\"model\": \"opus\" /* x */}", "line 1, column 18: a comment"},
		{"trailing comma", "{\n  \"model\": \"opus\",\n}", "line 3, column 1: a trailing comma"},
		{"trailing comma in a list", "{\"a\": [1, 2,]}", "line 1, column 13: a trailing comma"},
		{"duplicate hooks", "{\n  \"hooks\": {},\n  \"hooks\": {\"Stop\": []}\n}", `line 3, column 3: duplicate key "hooks"`},
		{"duplicate deep", `{"hooks": {"Stop": [{"hooks": [], "hooks": []}]}}`, `duplicate key "hooks"`},
		{"not an object", `["hooks"]`, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "settings.json")
			write(t, file, tc.doc)
			_, err := Install(Options{Agent: "claude", File: file})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was changed") {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			var se *SyntaxError
			if tc.name != "not an object" && !errors.As(err, &se) {
				t.Errorf("%v is not a SyntaxError", err)
			}
			if b, _ := os.ReadFile(file); string(b) != tc.doc {
				t.Errorf("file changed: %q", b)
			}
		})
	}
}

// TestKeepsEveryForeignByte: install then uninstall gives back a file in
// any layout byte for byte, and while installed every foreign value is
// there as it was written.
func TestKeepsEveryForeignByte(t *testing.T) {
	orig := "{\r\n\t\"n\": 1.50e2, \"s\": \"caf\\u00e9 & <b>\",\r\n\t\"hooks\": {\"Stop\": [ {\"hooks\":[{\"type\":\"command\",\"command\":\"say  done\"}]} ]},\r\n\t\"z\": [ ]\r\n}\r\n"
	for _, agent := range []string{"claude", "gemini"} {
		file := filepath.Join(t.TempDir(), "settings.json")
		write(t, file, orig)
		install(t, Options{Agent: agent, File: file})
		b, _ := os.ReadFile(file)
		for _, part := range []string{`"n": 1.50e2`, `"s": "caf\u00e9 & <b>"`, `{"hooks":[{"type":"command","command":"say  done"}]}`, `"z": [ ]`} {
			if !strings.Contains(string(b), part) {
				t.Errorf("%s: %q not kept as written:\n%s", agent, part, b)
			}
		}
		res, err := Uninstall(Options{Agent: agent, File: file})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.After) != orig {
			t.Errorf("%s: after uninstall %q, want %q", agent, res.After, orig)
		}
	}
}

// TestWriteRefusesAChangedFile: a file another program wrote between the
// read and the write keeps that program's change, and no backup is left.
func TestWriteRefusesAChangedFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	write(t, file, claudeSettings)
	res, err := Install(Options{Agent: "claude", File: file})
	if err != nil {
		t.Fatal(err)
	}
	theirs := strings.Replace(claudeSettings, `"opus"`, `"sonnet"`, 1)
	write(t, file, theirs)
	if _, err := Write(res, at0); !errors.Is(err, ErrChanged) {
		t.Fatalf("Write over a changed file: %v, want ErrChanged", err)
	}
	if b, _ := os.ReadFile(file); string(b) != theirs {
		t.Errorf("the other program's change was lost:\n%s", b)
	}
	if backups, _ := filepath.Glob(file + ".hall-backup-*"); len(backups) != 0 {
		t.Errorf("backups left: %v", backups)
	}
}

// TestConcurrentWritersLoseNothing: installs and uninstalls run while
// another writer adds permissions to the same file, all at once; every
// permission it wrote is there at the end, and the file is whole.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	write(t, file, `{"permissions": {"allow": []}}`)
	// update redoes an edit until its write lands on the file it read.
	update := func(edit func() (Result, error)) error {
		for {
			res, err := edit()
			if err != nil {
				return err
			}
			_, err = Write(res, at0)
			if !errors.Is(err, ErrChanged) {
				return err
			}
		}
	}
	const perms, runs = 111, 60
	var wg sync.WaitGroup
	errs := make(chan error, perms+runs)
	wg.Add(1)
	go func() { // the other writer: read, add one permission, write
		defer wg.Done()
		for i := range perms {
			errs <- update(func() (Result, error) {
				_, before, existed, _, err := read(file)
				if err != nil {
					return Result{}, err
				}
				var doc map[string]any
				if err := json.Unmarshal(before, &doc); err != nil {
					return Result{}, err
				}
				p := doc["permissions"].(map[string]any)
				p["allow"] = append(p["allow"].([]any), fmt.Sprintf("Bash(tool-%d)", i))
				after, _ := json.Marshal(doc)
				return Result{File: file, Existed: existed, Before: before, After: after, Changed: true}, nil
			})
		}
	}()
	for w := range 2 {
		wg.Add(1)
		go func() { // two installers, each install then uninstall
			defer wg.Done()
			for i := range runs / 2 {
				edit := Install
				if (i+w)%2 == 1 {
					edit = Uninstall
				}
				errs <- update(func() (Result, error) { return edit(Options{Agent: "claude", File: file}) })
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(file)
	var doc struct {
		Permissions struct{ Allow []string }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the file is not whole: %v\n%s", err, b)
	}
	for i := range perms {
		if !slices.Contains(doc.Permissions.Allow, fmt.Sprintf("Bash(tool-%d)", i)) {
			t.Errorf("permission %d lost", i)
		}
	}
}

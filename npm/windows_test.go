package npm_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReleaseBuildsWindows cross-builds the windows targets as a release
// does and checks what a Windows machine would get: each archive holds
// hall.exe and hall-hook.exe (Windows programs: "MZ"), named in
// checksums.txt with its sum; each npm package is
// @hall-dev/hall-win32-<cpu> with os win32 and that cpu, holding the two
// .exe; and the entry hall.js, installed from the packs for win32 and
// run as if on Windows, runs that package's hall.exe. Windows itself is
// not run here: these bytes and names are what is checked.
func TestReleaseBuildsWindows(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v (.ci/run installs it)", tool, err)
		}
	}
	dir := t.TempDir()
	dist := filepath.Join(dir, "dist")
	release := exec.Command("../scripts/release", "--version", version, "--out", dist, "--targets", "windows/amd64 windows/arm64")
	if out, err := release.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release: %v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		cpu := map[string]string{"amd64": "x64"}[arch]
		if cpu == "" {
			cpu = arch
		}
		archive := "hall_" + version + "_windows_" + arch + ".tar.gz"
		files := readTarGz(t, filepath.Join(dist, archive))
		for _, exe := range []string{"hall.exe", "hall-hook.exe"} {
			if b := files["hall_"+version+"_windows_"+arch+"/"+exe]; !bytes.HasPrefix(b, []byte("MZ")) {
				t.Errorf("%s: %s is %d bytes, not a Windows program", archive, exe, len(b))
			}
		}
		body, _ := os.ReadFile(filepath.Join(dist, archive))
		sum := sha256.Sum256(body)
		if !strings.Contains(string(sums), hex.EncodeToString(sum[:])+"  "+archive+"\n") {
			t.Errorf("checksums.txt does not name %s with its sum:\n%s", archive, sums)
		}

		pack := "hall-dev-hall-win32-" + cpu + "-" + version + ".tgz"
		files = readTarGz(t, filepath.Join(dist, pack))
		var pj struct {
			Name string   `json:"name"`
			OS   []string `json:"os"`
			CPU  []string `json:"cpu"`
		}
		if err := json.Unmarshal(files["package/package.json"], &pj); err != nil {
			t.Fatalf("%s: package.json: %v", pack, err)
		}
		if pj.Name != "@hall-dev/hall-win32-"+cpu || !slices.Equal(pj.OS, []string{"win32"}) || !slices.Equal(pj.CPU, []string{cpu}) {
			t.Errorf("%s: package.json names %q os %q cpu %q", pack, pj.Name, pj.OS, pj.CPU)
		}
		for _, exe := range []string{"hall.exe", "hall-hook.exe"} {
			if b := files["package/bin/"+exe]; !bytes.HasPrefix(b, []byte("MZ")) {
				t.Errorf("%s: bin/%s is %d bytes, not a Windows program", pack, exe, len(b))
			}
		}
		if !strings.Contains(string(sums), "  "+pack+"\n") {
			t.Errorf("checksums.txt does not name %s", pack)
		}
	}

	var main struct {
		Optional map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(readTarGz(t, filepath.Join(dist, "hall-dev-hall-"+version+".tgz"))["package/package.json"], &main); err != nil {
		t.Fatal(err)
	}
	for _, cpu := range []string{"x64", "arm64"} {
		if main.Optional["@hall-dev/hall-win32-"+cpu] != version {
			t.Errorf("@hall-dev/hall's optional dependencies %v lack @hall-dev/hall-win32-%s %s", main.Optional, cpu, version)
		}
	}

	// npm installs the win32 x64 package when told it installs for Windows
	// (--force: it still refuses a named pack whose os is not this one);
	// hall.js, run with Node's process.platform win32, runs its hall.exe
	// (which Linux refuses to execute: the error names the program run).
	prefix := filepath.Join(dir, "prefix")
	install := exec.Command("npm", "install", "--global", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", "--os", "win32", "--cpu", "x64", "--force",
		"./hall-dev-hall-win32-x64-"+version+".tgz", "./hall-dev-hall-"+version+".tgz")
	install.Dir = dist
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	entry := filepath.Join(prefix, "lib", "node_modules", "@hall-dev", "hall", "bin", "hall.js")
	asWindows := `Object.defineProperty(process, "platform", {value: "win32"}); Object.defineProperty(process, "arch", {value: "x64"}); require(process.argv[1]);`
	out, _ := exec.Command("node", "-e", asWindows, entry, "--version").CombinedOutput()
	if want := filepath.Join("@hall-dev", "hall-win32-x64", "bin", "hall.exe"); !strings.Contains(string(out), want) {
		t.Errorf("hall.js as on Windows said %q; want it to run %s", out, want)
	}
}

// readTarGz is every regular file of a .tar.gz (an archive or an npm
// pack) by name.
func readTarGz(t *testing.T, name string) map[string][]byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	files := map[string][]byte{}
	r := tar.NewReader(z)
	for {
		h, err := r.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = b
		}
	}
}

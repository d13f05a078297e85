// Package nodetest gives tests the node binary with the npm packages a
// test directory pins (package.json and package-lock.json) installed:
// the real client libraries the compatibility tests run. Only tests
// import it.
package nodetest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Node returns the node binary after installing dir's pinned packages
// with `npm ci` when dir/node_modules/probe is missing. Without node or
// npm the test is skipped, or fails when CI=true; what names the test in
// those messages. Installs into one directory are serialized across test
// processes (the packages of several test binaries may share a directory,
// and `npm ci` first deletes node_modules), and a process that waited
// finds the packages installed.
func Node(t testing.TB, dir, probe, what string) string {
	t.Helper()
	node, nerr := exec.LookPath("node")
	npm, merr := exec.LookPath("npm")
	if nerr != nil || merr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and npm are needed for %s (node: %v, npm: %v)", what, nerr, merr)
		}
		t.Skipf("node or npm not found, skipping %s (node: %v, npm: %v)", what, nerr, merr)
	}
	installed := func() bool {
		_, err := os.Stat(filepath.Join(dir, "node_modules", probe))
		return err == nil
	}
	if installed() {
		return node
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	unlock, err := lockFile(filepath.Join(os.TempDir(), "gobpm-npm-"+hex.EncodeToString(sum[:8])+".lock"))
	if err != nil {
		t.Fatalf("locking the npm install of %s: %v", dir, err)
	}
	defer unlock()
	if !installed() {
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return node
}

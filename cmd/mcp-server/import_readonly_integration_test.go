//go:build integration

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// readOnlyScript runs its arguments as the chart's MCP container runs: /tmp
// and /var/tmp read-only, TMPDIR pointing at a read-only directory and the
// working directory read-only, with only the store's directory ($STORE_DIR)
// writable. It first proves the setting: creating a file in each of those
// places must fail.
const readOnlyScript = `set -e
for d in /tmp /var/tmp "$RO_DIR"; do
  [ -d "$d" ] || continue
  mount --bind "$d" "$d"
  mount -o remount,bind,ro "$d"
done
mount --bind "$STORE_DIR" "$STORE_DIR"
mount -o remount,bind,rw "$STORE_DIR"
cd "$RO_DIR"
for d in /tmp /var/tmp "$RO_DIR" .; do
  if [ -d "$d" ] && touch "$d/probe" 2>/dev/null; then echo "$d is writable" >&2; exit 90; fi
done
export TMPDIR="$RO_DIR" SQLITE_TMPDIR=
exec "$@"
`

// TestImportWithReadOnlyRootFilesystem records a scan of 150,000 rows
// (128,577 issue rows) with no writable temporary directory or working
// directory, as in the chart's pod (SQLite failed with "disk I/O error"
// past a few hundred rows when its temporary files had nowhere to go). So
// many new issues have the store build the fingerprint index again at the
// commit, a sort larger than SQLite keeps in memory (at 51,433 issues it
// needed no file): its files too go beside the database.
func TestImportWithReadOnlyRootFilesystem(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatalf("unshare (util-linux) is required: %v", err)
	}
	args := []string{"--mount", "--propagation", "private"}
	if os.Getuid() != 0 {
		args = append(args, "--map-root-user") // a user namespace stands in for root
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "mcp-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building mcp-server: %v\n%s", err, out)
	}
	results := filepath.Join(tmp, "results", realcwac.Name)
	if err := realcwac.Grow(results, 150000); err != nil {
		t.Fatal(err)
	}
	storeDir, roDir := filepath.Join(tmp, "store"), filepath.Join(tmp, "read-only")
	for _, d := range []string{storeDir, roDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dsn := "sqlite://" + filepath.Join(storeDir, "history.db")
	cmd := exec.Command(unshare, append(args, "sh", "-c", readOnlyScript, "sh",
		bin, "import", "--store", dsn, "--namespace", "team", results)...)
	cmd.Env = append(os.Environ(), "STORE_DIR="+storeDir, "RO_DIR="+roDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import with a read-only root filesystem: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "1 recorded") {
		t.Fatalf("import did not record the scan:\n%s", out)
	}
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	orgs, err := st.Organisations(context.Background(), []string{"team"})
	if err != nil || len(orgs) == 0 {
		t.Fatalf("organisations after the import: %v, %v", orgs, err)
	}
	var open int64
	for _, o := range orgs {
		if o.Latest != nil {
			open += o.Latest.Open
		}
	}
	if open < 100000 {
		t.Errorf("%d open issue rows recorded, want most of the scan's 128,577", open)
	}
}

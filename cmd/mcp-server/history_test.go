package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/testutil/files"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

func TestStoreDSN(t *testing.T) {
	file := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(file, []byte("postgres://u:secret@db/h\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == storeDSNVariable {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		name    string
		flags   storeFlags
		env     string
		want    string
		wantErr string
	}{
		{"none", storeFlags{}, "", "", ""},
		{"the flag", storeFlags{dsn: "sqlite:///h.db"}, "", "sqlite:///h.db", ""},
		{"a file", storeFlags{dsnFile: file}, "", "postgres://u:secret@db/h", ""},
		{"the environment", storeFlags{}, " sqlite:///e.db ", "sqlite:///e.db", ""},
		{"two sources", storeFlags{dsn: "sqlite:///h.db"}, "sqlite:///e.db", "", "given by --store and $CWAC_STORE_DSN"},
		{"flag and file", storeFlags{dsn: "sqlite:///h.db", dsnFile: file}, "", "", "given by --store and --store-file"},
		{"an empty file", storeFlags{dsnFile: empty}, "", "", "--store-file is empty"},
		{"a missing file", storeFlags{dsnFile: file + ".gone"}, "", "", "reading --store-file"},
	} {
		got, err := tt.flags.resolve(env(tt.env))
		if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: %q, %v; want %q, %q", tt.name, got, err, tt.want, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error quotes the DSN: %v", tt.name, err)
		}
	}
}

// TestImportCommand imports two copies of the real run, oldest first,
// then again (nothing added), then an older one (refused, exit 1).
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	realRun := realcwac.Dir()
	for _, name := range []string{"2026-02-09_03-00-00_weekly", "2026-02-02_03-00-00_weekly"} {
		if err := files.CopyDir(realRun, filepath.Join(dir, "runs", name)); err != nil {
			t.Fatal(err)
		}
	}
	dsn := "sqlite://" + filepath.Join(dir, "history.db")
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := importMain(context.Background(), args, &out, &errOut, func(string) string { return "" })
		return code, out.String(), errOut.String()
	}
	code, out, errOut := run("--store", dsn, "--namespace", "a11y", "--schedule", "weekly", "--time-zone", "Pacific/Auckland", filepath.Join(dir, "runs"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], "2026-02-02_03-00-00_weekly: recorded: 1 organisations, 17 issue rows, 17 new") ||
		!strings.Contains(lines[1], "2026-02-09_03-00-00_weekly: recorded: 1 organisations, 17 issue rows, 0 new") ||
		lines[2] != "2 directories: 2 recorded or already in the store, 0 failed" {
		t.Fatalf("import: %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := run("--store", dsn, "--namespace", "a11y", filepath.Join(dir, "runs")); code != 0 || strings.Count(out, ": already in the store\n") != 2 {
		t.Errorf("a second import: %d\n%s", code, out)
	}
	if err := files.CopyDir(realRun, filepath.Join(dir, "2026-01-26_03-00-00_weekly")); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("--store", dsn, "--namespace", "a11y", filepath.Join(dir, "2026-01-26_03-00-00_weekly")); code != 1 ||
		!strings.Contains(out, "refused, out of order") || !strings.Contains(out, "1 failed") {
		t.Errorf("an older run: %d\n%s", code, out)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--namespace", "a11y", dir}, "--store (or --store-file, or $CWAC_STORE_DSN) is required"},
		{[]string{"--store", dsn, dir}, "--namespace is required"},
		{[]string{"--store", dsn, "--namespace", "a11y"}, "name at least one results directory"},
		{[]string{"--store", dsn, "--namespace", "a11y", "--time-zone", "Mars/Olympus", dir}, `--time-zone "Mars/Olympus"`},
		{[]string{"--store", dsn, "--namespace", "a11y", filepath.Join(dir, "nothing")}, "no such file"},
		{[]string{"--bogus"}, "flag provided but not defined"},
	} {
		if code, _, errOut := run(tt.args...); code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
	if code, _, errOut := run("--store", "mysql://x", "--namespace", "a11y", dir); code != 1 || !strings.Contains(errOut, "not sqlite or postgres") {
		t.Errorf("a DSN of no engine: %d %q", code, errOut)
	}
}

// A database that does not answer when the server starts is logged and
// tried again; the server goes on without it and starts the history's
// writer once it opens. A DSN that can never work stops it at once.
func TestOpenStoreWhenTheDatabaseIsDown(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	if _, err := openStore(t.Context(), "sqlite://relative.db", store.DefaultBackoff, log, func(*store.Store) { t.Error("opened") }); err == nil {
		t.Error("a relative SQLite path was accepted")
	}
	none, err := openStore(t.Context(), "", store.DefaultBackoff, log, func(*store.Store) { t.Error("opened without a DSN") })
	if _, gerr := none.Get(); err != nil || !errors.Is(gerr, store.ErrNotConfigured) {
		t.Errorf("no DSN: %v, %v", err, gerr)
	}

	dir := filepath.Join(t.TempDir(), "volume-not-mounted-yet")
	opened := make(chan *store.Store, 1)
	h, err := openStore(t.Context(), "sqlite://"+filepath.Join(dir, "history.db"), store.Backoff{First: 10 * time.Millisecond, Max: 10 * time.Millisecond},
		log, func(st *store.Store) { opened <- st })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(); !errors.Is(err, store.ErrNotOpenYet) {
		t.Fatalf("while down: %v", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	st := <-opened
	if got, err := h.Get(); err != nil || got != st {
		t.Errorf("once up: %v, %v", got, err)
	}
	_ = h.Close()
	text := logs.String()
	if !strings.Contains(text, `"msg":"issue history: the store's database did not answer`) || !strings.Contains(text, `"retryIn"`) ||
		!strings.Contains(text, `"msg":"issue history: store open"`) {
		t.Errorf("log:\n%s", text)
	}
}

// TestWriterFlagsCheck: a negative retention or budget is refused before
// anything starts, naming the flags.
func TestWriterFlagsCheck(t *testing.T) {
	for _, f := range []writerFlags{{maxAge: -time.Second}, {maxScans: -1}, {maxIssues: -1}} {
		if err := f.check(); err == nil || !strings.Contains(err.Error(), "--history-max-issues") {
			t.Errorf("%+v: %v", f, err)
		}
	}
	if err := (writerFlags{maxIssues: 500000, maxScans: 3}).check(); err != nil {
		t.Errorf("good flags refused: %v", err)
	}
}

package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/a11y-dev/cwac-operator/hack/bench/binarycase"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// caseImport runs the mcp-server binary's import command (importCase).
const caseImport = "import"

// importCase runs `mcp-server import` (binarycase.MCPServerEnv) on dir
// into the store at dsn, migrated first and let go: the ingest as the MCP
// server's own command makes it, in the server's process, as the issue's
// harness measures it. The CPU bench reads for this process counts the
// server's (the kernel adds a waited child's); the peak is the server's.
// The DSN goes by the environment, as the chart gives it, not in the
// process's arguments.
func importCase(ctx context.Context, dsn, dir string) (childResult, error) {
	bin := os.Getenv(binarycase.MCPServerEnv)
	if bin == "" {
		return childResult{}, errors.New(binarycase.MCPServerEnv + " must name the mcp-server binary")
	}
	st, err := store.Open(ctx, dsn) // migrated before the clock, as every case's store
	if err != nil {
		return childResult{}, err
	}
	if err := st.Close(); err != nil {
		return childResult{}, err
	}
	cmd := exec.CommandContext(ctx, bin, "import", "--namespace", bench, dir)
	cmd.Env = append(os.Environ(), "CWAC_STORE_DSN="+dsn)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	peak, err := binarycase.Run(cmd)
	wall := time.Since(start)
	if err != nil {
		return childResult{}, fmt.Errorf("mcp-server import: %w\n%s", err, out.Bytes())
	}
	n, err := countIssues(ctx, dsn)
	if err != nil {
		return childResult{}, err
	}
	return childResult{Wall: wall, Answer: fmt.Sprintf("%d issues stored", n), PeakKiB: peak}, nil
}

// countIssues counts the issues the store at dsn holds.
func countIssues(ctx context.Context, dsn string) (int64, error) {
	driver, source, err := store.SQLSource(dsn)
	if err != nil {
		return 0, err
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return 0, err
	}
	defer func() { _ = db.Close() }()
	var n int64
	err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM issues`).Scan(&n)
	return n, err
}

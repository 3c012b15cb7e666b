//go:build integration

package main

import (
	"database/sql"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// TestServerCPU measures the project's PostgreSQL (hack/test.sh starts
// it) over a query that keeps one of its backends busy: the server's CPU
// time grows, though the client's does not.
func TestServerCPU(t *testing.T) {
	dsn := os.Getenv("CWAC_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Fatal("CWAC_TEST_POSTGRES_DSN is not set: this test needs a real PostgreSQL; export it from hack/postgres.sh start (hack/test.sh does)")
	}
	server, err := findPostmaster(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if server.postmaster <= 1 || server.postmaster == os.Getpid() {
		t.Fatalf("postmaster pid %d", server.postmaster)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	before, err := server.cpu()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM generate_series(1, 5000000)`).Scan(&n); err != nil || n != 5_000_000 {
		t.Fatalf("count %d, %v", n, err)
	}
	// The connection's backend ends, and is reaped, when the pool closes:
	// its time must still be counted, as the postmaster's children's.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := server.cpu()
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("server CPU %v before a busy query, %v after: it did not grow", before, after)
	}
}

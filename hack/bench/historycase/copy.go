package main

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// The copy cases measure what the issues' own shape costs: the issues an
// ingest stored, copied inside the engine (INSERT … SELECT, one
// transaction) into a new table of the same columns, with none of the
// issues table's key and indexes (copy) or with all of them (copy-indexed;
// on SQLite the fingerprint index built after the rows, as the ingest
// builds it for a large scan). No reading, parsing or matching is in
// either: what copy-indexed takes over copy is what any write of these
// rows into this schema pays.
const (
	copyBare    = "bench_issues_bare"
	copyIndexed = "bench_issues_indexed"
)

// copyIssues copies the store's issues into a new table (indexed or not),
// times the copy and its commit, drops the table again (not timed) so
// that the store's size is the ingest's, and returns the rows copied and
// the time.
func copyIssues(ctx context.Context, dsn string, engine store.Engine, indexed bool) (int64, time.Duration, error) {
	driver, source, err := store.SQLSource(dsn)
	if err != nil {
		return 0, 0, err
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = db.Close() }()
	conn, err := db.Conn(ctx) // one connection: SQLite's tables and the transaction on it
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = conn.Close() }()
	table := copyBare
	if indexed {
		table = copyIndexed
	}
	before, after, err := copyStatements(ctx, conn, engine, table, indexed)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = tx.Rollback() }()
	for _, s := range before {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", s, err)
		}
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO "+table+" SELECT * FROM issues ORDER BY id")
	if err != nil {
		return 0, 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, 0, err
	}
	for _, s := range after {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", s, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, err
	}
	took := time.Since(start)
	if _, err := conn.ExecContext(ctx, "DROP TABLE "+table); err != nil {
		return 0, 0, err
	}
	return n, took, nil
}

// copyStatements are the statements that make the copy's table (before
// its rows) and, on SQLite, build its fingerprint index (after them).
func copyStatements(ctx context.Context, conn *sql.Conn, engine store.Engine, table string, indexed bool) (before, after []string, err error) {
	if engine == store.Postgres {
		like := "LIKE issues"
		if indexed {
			like += " INCLUDING ALL"
		}
		return []string{"CREATE TABLE " + table + " (" + like + ")"}, nil, nil
	}
	if !indexed {
		return []string{"CREATE TABLE " + table + " AS SELECT * FROM issues WHERE 0"}, nil, nil
	}
	rows, err := conn.QueryContext(ctx, `SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'issues' AND sql IS NOT NULL ORDER BY type DESC`)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var kind, name, def string
		if err := rows.Scan(&kind, &name, &def); err != nil {
			return nil, nil, err
		}
		def = onTable.ReplaceAllString(def, "${1}"+table)
		if kind == "index" {
			def = strings.Replace(def, name, table+"_"+name, 1)
		}
		if name == "issues_by_fingerprint" {
			after = append(after, def)
		} else {
			before = append(before, def)
		}
	}
	return before, after, rows.Err()
}

// onTable finds the issues table's name in its own CREATE TABLE and in
// its indexes' CREATE INDEX … ON.
var onTable = regexp.MustCompile(`((?:CREATE TABLE|ON)\s+"?)issues\b`)

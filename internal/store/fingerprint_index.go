package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// fingerprintIndexName is the issues' unique index of fingerprints
// (migration 0013).
const fingerprintIndexName = "issues_by_fingerprint"

// A scan that adds at least setAsideMinIssues issues, and at least one for
// every setAsideShare issues the table held, builds the fingerprint index
// again at its end instead of inserting each new fingerprint into it.
// Fingerprints are hashes: each insert lands on a random page of the
// index, and once the index outgrows SQLite's page cache nearly every one
// reads a page and writes one back (half of a first scan's ingest at a
// million issue rows, against a build that sorts them all once). A scan
// adding a few issues to a large table keeps the index: building it again
// would read every fingerprint for a few inserts.
const (
	setAsideMinIssues = 10_000
	setAsideShare     = 8
)

// setAside says whether a scan that will have added added issues to a
// table of about before issues sets the fingerprint index aside.
func setAside(before, added int64) bool {
	return added >= setAsideMinIssues && added >= before/setAsideShare
}

// setAsideFingerprintIndex drops the issues' fingerprint index, within
// the scan's transaction, when the scan is about to have added enough
// issues (n more) for building it again to cost less; SQLite only: on
// PostgreSQL dropping an index locks the table against every reader until
// the commit, and its inserts do not spill a small cache.
func (w *ScanWriter) setAsideFingerprintIndex(ctx context.Context, n int) error {
	w.issuesAdded += int64(n)
	if w.s.engine != SQLite || w.fingerprintIndex != "" || !setAside(w.issuesBefore, w.issuesAdded) {
		return nil
	}
	var def string
	err := w.tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, fingerprintIndexName).Scan(&def)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store: the issues' fingerprint index %s is missing", fingerprintIndexName)
	}
	if err != nil {
		return fmt.Errorf("store: reading the issues' fingerprint index: %w", err)
	}
	if _, err := w.tx.ExecContext(ctx, `DROP INDEX `+fingerprintIndexName); err != nil {
		return fmt.Errorf("store: setting the issues' fingerprint index aside: %w", err)
	}
	w.fingerprintIndex = def
	return nil
}

// restoreFingerprintIndex builds the fingerprint index again, from its own
// definition, if the scan set it aside: it fails, and so does the scan's
// commit, if two issues share a fingerprint.
func (w *ScanWriter) restoreFingerprintIndex(ctx context.Context) error {
	if w.fingerprintIndex == "" {
		return nil
	}
	if _, err := w.tx.ExecContext(ctx, w.fingerprintIndex); err != nil {
		return fmt.Errorf("store: building the issues' fingerprint index again: %w", err)
	}
	w.fingerprintIndex = ""
	return nil
}

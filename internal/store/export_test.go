package store

import (
	"context"
	"time"
)

// SetClock sets the store's clock (retention by age, ingested_at).
func SetClock(s *Store, now func() time.Time) { s.now = now }

// CountRows counts a table's rows.
func CountRows(s *Store, table string) (int, error) {
	var n int
	err := s.db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n)
	return n, err
}

// CountRowsWhere counts a table's rows that cond holds for.
func CountRowsWhere(s *Store, table, cond string) (int, error) {
	var n int
	err := s.db.QueryRow("SELECT COUNT(*) FROM " + table + " WHERE " + cond).Scan(&n)
	return n, err
}

// SetAsideMinIssues is how many issues a scan adds before it may set the
// fingerprint index aside.
const SetAsideMinIssues = setAsideMinIssues

// FingerprintIndexStands says whether the issues' fingerprint index
// exists: as the scan's transaction sees it (w), else as the store does.
func FingerprintIndexStands(ctx context.Context, s *Store, w *ScanWriter) (bool, error) {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = ?`
	if s.engine == Postgres {
		q = `SELECT COUNT(*) FROM pg_indexes WHERE indexname = $1`
	}
	row := s.db.QueryRowContext
	if w != nil {
		row = w.tx.QueryRowContext
	}
	var n int
	err := row(ctx, q, fingerprintIndexName).Scan(&n)
	return n == 1, err
}

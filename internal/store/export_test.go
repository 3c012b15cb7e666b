package store

import "time"

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

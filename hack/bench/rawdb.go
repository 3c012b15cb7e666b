package main

import (
	"database/sql"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

// openRaw opens a connection pool of the bench's own to the store at dsn,
// for what it measures beside the store's queries (baselines, sizes, counts).
func openRaw(dsn string) (*sql.DB, error) {
	driver, source, err := store.SQLSource(dsn)
	if err != nil {
		return nil, err
	}
	return sql.Open(driver, source)
}

//go:build integration

package storetest

import (
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/store"
)

func init() {
	engines = append(engines, Engine{Name: "postgres", Open: OpenPostgres})
}

// OpenPostgres opens a store in a new database on the test server.
func OpenPostgres(t *testing.T) *store.Store {
	t.Helper()
	return Open(t, NewPostgresDSN(t))
}

package store_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// TestDecisionEventsMigration: 0010 and 0009 go down (their column and
// table gone, the rest of the store left at 0008) and up again on each
// engine, and the store opens on it; a store at 0008 is brought to the
// latest by Open.
func TestDecisionEventsMigration(t *testing.T) {
	for _, e := range storetest.Engines() {
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn, driver, source := migrationDB(t, e.Name)
			st := storetest.Open(t, dsn)
			event := store.DecisionEvent{Namespace: "ns", UID: "u", Seq: 1, Name: "d", Event: store.DecisionMade, At: time.Unix(1000, 0)}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{event}); err != nil {
				t.Fatal(err)
			}
			_ = st.Close()

			db := migratedTo(t, driver, source, 8)
			if _, err := db.Exec(`SELECT uid FROM decision_events`); err == nil {
				t.Error("decision_events is still there after 0009 down")
			}
			if _, err := db.Exec(`SELECT set_aside_issues FROM organisation_scans`); err != nil {
				t.Errorf("0008's column went with 0009: %v", err)
			}
			if _, err := db.Exec(`SELECT decided_issues FROM organisation_scans`); err == nil {
				t.Error("0010's decided_issues is still there after 0010 down")
			}
			_ = db.Close()

			st = storetest.Open(t, dsn) // Open applies 0009 and 0010 again
			latest, err := st.LatestDecisionEvents(ctx, "ns")
			if err != nil || len(latest) != 0 {
				t.Errorf("after 0009 up again: %v %v, want an empty history", latest, err)
			}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{event}); err != nil {
				t.Errorf("recording after 0009 up again: %v", err)
			}
		})
	}
}

// migrationDB is a new database of the engine for a migration test: its
// DSN for the store, and the driver and source that open it beneath the
// store.
func migrationDB(t *testing.T, engine string) (dsn, driver, source string) {
	t.Helper()
	if engine == "sqlite" {
		dsn = storetest.SQLiteDSN(t)
		return dsn, "sqlite", "file:" + strings.TrimPrefix(dsn, "sqlite://")
	}
	dsn = storetest.NewPostgresDSN(t)
	return dsn, "pgx", dsn
}

// migratedTo migrates the database down (or up) to version v with the
// migrations on disk, and opens it beneath the store.
func migratedTo(t *testing.T, driver, source string, v uint) *sql.DB {
	t.Helper()
	m := migrator(t, driver, source)
	if err := m.Migrate(v); err != nil {
		t.Fatalf("migrating to %d: %v", v, err)
	}
	if got, _, _ := m.Version(); got != v {
		t.Errorf("after migrating to %d the store is at %d", v, got)
	}
	_, _ = m.Close()
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// migrator migrates the database with the migrations on disk (the ones
// the store embeds).
func migrator(t *testing.T, driver, source string) *migrate.Migrate {
	t.Helper()
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	src, err := iofs.New(os.DirFS("."), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	var d database.Driver
	name := "sqlite"
	if driver == "sqlite" {
		d, err = migratesqlite.WithInstance(db, &migratesqlite.Config{})
	} else {
		name = "pgx5"
		d, err = migratepgx.WithInstance(db, &migratepgx.Config{})
	}
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, name, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

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
			var dsn string
			var driver, source string
			if e.Name == "sqlite" {
				dsn = storetest.SQLiteDSN(t)
				driver, source = "sqlite", "file:"+strings.TrimPrefix(dsn, "sqlite://")
			} else {
				dsn = storetest.NewPostgresDSN(t)
				driver, source = "pgx", dsn
			}
			st := storetest.Open(t, dsn)
			event := store.DecisionEvent{Namespace: "ns", UID: "u", Seq: 1, Name: "d", Event: store.DecisionMade, At: time.Unix(1000, 0)}
			if err := st.AddDecisionEvents(ctx, []store.DecisionEvent{event}); err != nil {
				t.Fatal(err)
			}
			_ = st.Close()

			m := migrator(t, driver, source)
			if err := m.Migrate(8); err != nil {
				t.Fatalf("0010 and 0009 down: %v", err)
			}
			if v, _, _ := m.Version(); v != 8 {
				t.Errorf("after 0009 down the store is at %d, want 8", v)
			}
			_, _ = m.Close()
			db, err := sql.Open(driver, source)
			if err != nil {
				t.Fatal(err)
			}
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

// Package store is the issue history: every ingested scan, each issue
// followed from first seen to fixed (and reopened), per-organisation
// figures per scan, and templates, in a real database — SQLite embedded
// by default (modernc.org/sqlite: pure Go, so builds stay static) or
// PostgreSQL (pgx) for large installations and several readers.
//
// One schema (migrations/, applied at Open by golang-migrate) and one set
// of queries serve both engines: portable types and statements only,
// written with ? placeholders that q rewrites for PostgreSQL in one place.
//
// The write side is ScanWriter: one transaction per scan, one writer at a
// time (a lock row every writer updates first). The rules that decide what
// to write — issue identity, transitions, figures — are internal/ingest's;
// this package holds the SQL. The read side (IssueHistory,
// OrganisationTrend, Organisations, Issue, Templates, HasScan) serves the
// MCP tools and the dashboard. Prune applies retention in small
// transactions of its own. docs/history.md describes the schema.
//
// It has no Kubernetes imports.
package store

// Package dashboard serves the issue history as web pages: organisations
// ranked within their sectors, one organisation's trend and what to fix
// first, scans, issues, and the same figures as CSV and JSON exports.
//
// Pages are rendered on the server with html/template and work without
// JavaScript: no script is served at all, the style sheet comes from the
// same server (embedded), charts are inline SVG with a text alternative and
// their figures as a table, and every response carries a strict
// Content-Security-Policy. Nothing here imports controller-runtime: who a
// request is and what it may read come through Access, scans and their
// result files through ScanSource, both provided by the binary that
// mounts the handler (cmd/mcp-server).
//
// Every figure comes from the store's queries (internal/store); a page
// and its export render the same value, produced by one function
// (Leaderboard, OrganisationTrend).
package dashboard

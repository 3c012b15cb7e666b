// Package ingest records one finished scan's CWAC results in the issue
// history (internal/store). It is pure of Kubernetes: it takes the results
// directory as an fs.FS and the scan's description, so the MCP server's
// watch, a backfill on start and a command importing hand-run CWAC
// results all call the same Ingest.
//
// The results are read twice with internal/results' streaming reader
// (Walk: the product's caps on record size and columns). The first read
// keeps, per issue row, a fixed-size record of hashes and small ids (40
// bytes; no text), the pages each organisation's scan visited, which
// audits wrote rows for which page and width, and the figures CWAC and
// the leaderboard count. Then, organisation by organisation and a
// thousand of its pages at a time, rows are matched with the stored issues
// on those pages by internal/diff's own rules (page URL
// normalised, viewport width, rule; element HTML and target, then HTML,
// then target): a row matching an open issue keeps it open, one matching
// a fixed issue reopens it, the rest are new. An open issue no row
// matched is fixed when the scan observed its audit on its page and
// width, fixed with the reason "page not scanned" when the scan did not
// visit its page, and left as it was when the audit did not run there
// (what the baseline comparison calls unstable). The second read writes
// the text of new issues and templates only.
//
// Memory: the records, the scan's pages and a batch of pages' stored
// issues and observations; while an ingest runs the collector keeps the
// heap within a tenth of what is live (internal/gcpace).
//
// Everything a scan writes is one store transaction: an error, a
// cancelled context or a crash leaves nothing of it, and a scan already
// stored adds nothing. docs/history.md describes the rules in full.
package ingest

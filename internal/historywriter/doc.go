// Package historywriter records finished CwacScans in the issue history
// (internal/store, through internal/ingest) from the MCP server, the read
// side of the product, which already mounts the results volume read-only.
//
// Writer watches the namespace's scans (the MCP server's informer) and
// ingests each scan that becomes finished — Complete, or Failed with pages
// scanned — oldest first, after a backfill on start of every finished scan
// not yet in the store. One process writes at a time: the replicas elect
// one with a Lease (Elect), and the store's writer lock stays the last
// guard. A scan that cannot be recorded is retried apart with exponential
// backoff for a bounded number of attempts while newer scans are recorded
// (one of the same organisation then leaves it out: history is written
// oldest first), and says why in a log line, a Warning Event on the scan
// and a note in the store that the scan's dashboard page shows; the scan
// itself is never changed.
//
// Import records hand-run CWAC results directories, oldest first by
// CWAC's timestamped directory names, for a backfill of years of runs.
//
// The package reads scans through small interfaces and writes Events and
// Leases with client-go; it has no controller-runtime imports.
package historywriter

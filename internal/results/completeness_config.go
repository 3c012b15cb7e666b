package results

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"strconv"
)

// ConfigFile is the config CWAC copies into its results directory.
const ConfigFile = "config.json"

// maxConfigBytes bounds the config.json read: CWAC's is about 3 KiB.
const maxConfigBytes = 1 << 20

// MaxLinksOf reads max_links_per_domain from the config.json CWAC left in a
// results directory: what the scan asked of each site. 0 when there is no
// such file, it is larger than maxConfigBytes, or it holds no positive whole
// number there (a sharded scan's merged directory has none: the shards
// keep theirs). Only that one number is kept of the document.
func MaxLinksOf(fsys fs.FS) int {
	f, err := fsys.Open(ConfigFile)
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil || len(data) > maxConfigBytes {
		return 0
	}
	return maxLinksIn(data)
}

// maxLinksIn is MaxLinksOf on the file's bytes (a UTF-8 BOM first, as CWAC
// writes every file, is skipped).
func maxLinksIn(data []byte) int {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var cfg struct {
		MaxLinks json.RawMessage `json:"max_links_per_domain"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return 0
	}
	// A JSON whole number only, as CWAC compares it with a count: "50"
	// (a string) or 2.5 would make CWAC fail, not scan 50 pages.
	n, err := strconv.ParseInt(string(cfg.MaxLinks), 10, 32)
	if err != nil || n <= 0 {
		return 0
	}
	return int(n)
}

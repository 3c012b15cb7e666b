// Package issueevents pushes the issue history's lifecycle events to the
// release's receivers: after the history's writer records a scan, what
// the scan changed of each issue (opened, fixed, page not scanned,
// reopened, each with the one issue identity and the decision covering
// it) is sent in signed batches, so that a tracker's automation can keep
// one ticket per issue. Where each scan stands for each receiver is kept
// in the store: a restart goes on with the next batch, a failed batch is
// tried again with backoff, and a receiver gets a receiver's scans in the
// order they were recorded.
package issueevents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Bounds on the receivers' configuration.
const (
	// MaxReceivers is the most receivers a release configures.
	MaxReceivers = 10
	// MaxOrganisations is the most organisations one receiver is routed.
	MaxOrganisations = 50
	// MaxConfigBytes bounds the configuration's JSON text.
	MaxConfigBytes = 64 << 10
	// maxOrganisationBytes is an organisation name's longest (the API's).
	maxOrganisationBytes = 256
	// maxKeyBytes bounds a signing key or a URL read from its file.
	maxKeyBytes = 4096
)

var receiverName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// Receiver is one place issue events are sent.
type Receiver struct {
	// Name identifies it in the store, the batches and the dashboard.
	Name string
	// URL is where batches are posted (a credential: never logged).
	URL string
	// Key signs each batch (X-Cwac-Signature, as notifications are signed).
	Key []byte
	// Organisations, when set, are the only organisations whose issues
	// it is sent.
	Organisations []string
}

// receiverConfig is one receiver as the configuration names it: its URL
// and key are files (mounted from Secrets), never in the text itself.
type receiverConfig struct {
	Name          string   `json:"name"`
	URLFile       string   `json:"urlFile"`
	KeyFile       string   `json:"hmacFile"`
	Organisations []string `json:"organisations,omitempty"`
}

// ParseReceivers reads the receivers' configuration: a JSON list of
// {name, urlFile, hmacFile, organisations}, each file read with
// readFile. Every receiver must sign: a tracker's automation must be able
// to tell the product's requests from anyone's.
func ParseReceivers(text []byte, readFile func(string) ([]byte, error)) ([]Receiver, error) {
	if len(text) > MaxConfigBytes {
		return nil, fmt.Errorf("issue-event receivers: %d bytes, more than %d", len(text), MaxConfigBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var list []receiverConfig
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("issue-event receivers: %w (want a JSON list of {name, urlFile, hmacFile, organisations})", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("issue-event receivers: text after the list")
	}
	if len(list) > MaxReceivers {
		return nil, fmt.Errorf("issue-event receivers: %d, more than %d", len(list), MaxReceivers)
	}
	out := make([]Receiver, 0, len(list))
	for i, c := range list {
		r, err := c.receiver(readFile)
		if err != nil {
			return nil, fmt.Errorf("issue-event receiver %d: %w", i, err)
		}
		if slices.ContainsFunc(out, func(o Receiver) bool { return o.Name == r.Name }) {
			return nil, fmt.Errorf("issue-event receiver %d: name %q given twice", i, r.Name)
		}
		out = append(out, r)
	}
	return out, nil
}

func (c receiverConfig) receiver(readFile func(string) ([]byte, error)) (Receiver, error) {
	switch {
	case !receiverName.MatchString(c.Name):
		return Receiver{}, fmt.Errorf("name %q: must be a DNS label (a-z, 0-9 and -, at most 63)", c.Name)
	case c.URLFile == "" || c.KeyFile == "":
		return Receiver{}, fmt.Errorf("%q: urlFile and hmacFile are required (every batch is signed)", c.Name)
	case len(c.Organisations) > MaxOrganisations:
		return Receiver{}, fmt.Errorf("%q: %d organisations, more than %d", c.Name, len(c.Organisations), MaxOrganisations)
	}
	for _, o := range c.Organisations {
		if o == "" || len(o) > maxOrganisationBytes {
			return Receiver{}, fmt.Errorf("%q: an organisation must be 1 to %d bytes", c.Name, maxOrganisationBytes)
		}
	}
	url, err := secretFile(readFile, c.URLFile)
	if err != nil {
		return Receiver{}, fmt.Errorf("%q: urlFile: %w", c.Name, err)
	}
	key, err := secretFile(readFile, c.KeyFile)
	if err != nil {
		return Receiver{}, fmt.Errorf("%q: hmacFile: %w", c.Name, err)
	}
	// The key is its bytes as stored, as notifications' keys are (one key
	// signs alike for both); a URL never ends in a line break.
	return Receiver{Name: c.Name, URL: strings.TrimSpace(string(url)), Key: key, Organisations: c.Organisations}, nil
}

// secretFile is a file's content; empty or oversized is refused (its
// content is never quoted).
func secretFile(readFile func(string) ([]byte, error), path string) ([]byte, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 || len(b) > maxKeyBytes {
		return nil, fmt.Errorf("%s: must hold 1 to %d bytes, not all blank; has %d", path, maxKeyBytes, len(b))
	}
	return b, nil
}

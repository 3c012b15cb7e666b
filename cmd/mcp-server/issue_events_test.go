package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/issueevents"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// TestIssueEventFlags: no receivers configures nothing; receivers read
// their files; bad settings are refused naming the flag; receivers without
// the history's writer are refused before anything starts.
func TestIssueEventFlags(t *testing.T) {
	dir := t.TempDir()
	url, key := filepath.Join(dir, "url"), filepath.Join(dir, "hmac")
	if err := os.WriteFile(url, []byte("https://tracker.example/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	list := `[{"name":"tracker","urlFile":"` + url + `","hmacFile":"` + key + `"}]`

	if rs, s, err := (&issueEventFlags{}).sender(urlpolicy.Lists{}); rs != nil || s != nil || err != nil {
		t.Errorf("no receivers: %v %v %v", rs, s, err)
	}
	rs, s, err := (&issueEventFlags{receivers: list, allowCIDRs: "10.0.0.0/8", timeout: 1}).sender(urlpolicy.Lists{})
	if err != nil || len(rs) != 1 || rs[0].URL != "https://tracker.example/" || s == nil {
		t.Fatalf("receivers %+v, sender %v, %v", rs, s, err)
	}
	// An http receiver is refused naming this server's flag.
	if err := s.Send(context.Background(), "http://tracker.example/", []byte("{}"), nil); err == nil ||
		!strings.Contains(err.Error(), "(--issue-events-allow-http opens http)") {
		t.Errorf("an http receiver: %v", err)
	}
	for name, tc := range map[string]struct {
		f    issueEventFlags
		says string
	}{
		"bad JSON":     {issueEventFlags{receivers: "[", timeout: 1}, "--issue-event-receivers"},
		"a bad range":  {issueEventFlags{receivers: list, allowCIDRs: "ten", timeout: 1}, "--issue-events-allow-cidrs"},
		"no timeout":   {issueEventFlags{receivers: list}, "--issue-events-timeout"},
		"missing file": {issueEventFlags{receivers: strings.ReplaceAll(list, url, url+"-gone"), timeout: 1}, "urlFile"},
	} {
		if _, _, err := tc.f.sender(urlpolicy.Lists{}); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.says)
		}
	}
	d := historyDeps{issueEvents: issueEventSettings{receivers: []issueevents.Receiver{{Name: "tracker"}}}}
	fail := func(string, error) { t.Error("fail called") }
	for name, tc := range map[string]struct {
		sf storeFlags
		wf writerFlags
	}{
		"no store":          {storeFlags{}, writerFlags{ingest: true}},
		"history read-only": {storeFlags{dsn: "sqlite://" + filepath.Join(dir, "h.db")}, writerFlags{ingest: false}},
	} {
		_, err := startHistory(context.Background(), tc.sf, tc.wf, d, fail)
		if err == nil || !strings.Contains(err.Error(), "--issue-event-receivers needs --store") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

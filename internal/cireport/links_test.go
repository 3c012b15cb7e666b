package cireport

import (
	"strings"
	"testing"
)

// A help link or page address that is not http(s) (CWAC copies both from
// the sites it scans and from axe-core) never becomes a SARIF URI field or
// a JUnit help line: code scanning and CI viewers make those links.
func TestOnlyWebLinksBecomeURIs(t *testing.T) {
	for _, hostile := range []string{"javascript:alert(document.domain)//", "JavaScript://%0aalert(1)//", "data:text/html;base64;x//", "file:///etc/passwd#"} {
		t.Run(hostile, func(t *testing.T) {
			m := realFS(t)
			header, rows := axeLines(t, m)
			for i, r := range rows {
				r = strings.ReplaceAll(r, "https://dequeuniversity.com", hostile+"dequeuniversity.com")
				rows[i] = strings.ReplaceAll(r, "http://127.0.0.1", hostile+"127.0.0.1")
			}
			setAxe(m, header, rows)
			data, log := sarifOf(t, m, Options{})
			for _, run := range log.Runs {
				for _, r := range run.Tool.Driver.Rules {
					if r.HelpURI != "" {
						t.Errorf("rule %s: helpUri %q", r.ID, r.HelpURI)
					}
				}
				for _, res := range run.Results {
					for _, l := range res.Locations {
						if l.PhysicalLocation.ArtifactLocation.URI != "" {
							t.Errorf("result of %s: artifactLocation.uri %q", res.RuleID, l.PhysicalLocation.ArtifactLocation.URI)
						}
					}
				}
			}
			scheme := strings.ToLower(hostile[:strings.IndexByte(hostile, ':')+1])
			if strings.Contains(strings.ToLower(string(data)), `"uri":"`+scheme) {
				t.Errorf("SARIF carries a %s URI", scheme)
			}
			junit := junitOf(t, m, Options{})
			checkJUnit(t, junit)
			if strings.Contains(strings.ToLower(string(junit)), "help: "+scheme) {
				t.Errorf("JUnit carries a %s help link", scheme)
			}
		})
	}
}

//go:build integration

package digest

import (
	"context"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/mailer"
	"github.com/a11y-dev/cwac-operator/internal/testutil/mailpit"
)

// TestDigestReachesMailpit: a digest made from the real CWAC run recorded
// twice is received by a real SMTP server as one message with its subject,
// a plain-text part and the HTML part, its links intact.
func TestDigestReachesMailpit(t *testing.T) {
	st := weeklyStore(t)
	period := Period{From: week0.AddDate(0, 0, 7), To: week0.AddDate(0, 0, 14)}
	o, err := Gather(context.Background(), st, ns, org, period, "https://dash.example.govt.nz", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Render(Digest{Period: period, Organisations: []Organisation{o}})
	if err != nil {
		t.Fatal(err)
	}
	mp := mailpit.Start(t, mailpit.RequireStartTLS)
	s := mailer.Server{Host: mp.Host, Port: mp.Port, Security: mailer.StartTLS, Username: mp.Username, Password: mp.Password,
		From: "digests@cwac.example.govt.nz", RootCAs: mp.RootCAs}
	if err := mailer.Send(context.Background(), s, []string{"web@test.example.govt.nz"}, m); err != nil {
		t.Fatal(err)
	}
	got, err := mp.Messages()
	if err != nil || len(got) != 1 {
		t.Fatalf("mailpit holds %d messages (%v), want 1", len(got), err)
	}
	g := got[0]
	if g.Subject != "CWAC Test Org: accessibility digest, 23 to 30 November 2026" {
		t.Errorf("subject %q", g.Subject)
	}
	for part, body := range map[string]string{"text": g.Text, "HTML": g.HTML} {
		for _, want := range []string{"4 issues fixed", "https://dash.example.govt.nz/issues/agencies/", "Score 83.8 (up 10.0 from 73.8)"} {
			if !strings.Contains(body, want) {
				t.Errorf("the received %s part does not say %q", part, want)
			}
		}
	}
}

//go:build integration

package mailer

import (
	"context"
	"crypto/x509"
	"strings"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/testutil/mailpit"
)

// TestSendThroughMailpit: a message reaches a real SMTP server (mailpit)
// over STARTTLS and over TLS from the first byte, authenticated, with its
// subject, both parts, its recipients and the Message-ID it was given.
func TestSendThroughMailpit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     mailpit.Mode
		security Security
	}{{"STARTTLS", mailpit.RequireStartTLS, StartTLS}, {"TLS", mailpit.RequireTLS, ImplicitTLS}} {
		t.Run(tc.name, func(t *testing.T) {
			mp := mailpit.Start(t, tc.mode)
			s := Server{Host: mp.Host, Port: mp.Port, Security: tc.security, Username: mp.Username, Password: mp.Password,
				From: "CWAC digests <digests@cwac.example.govt.nz>", RootCAs: mp.RootCAs}
			m := Message{Subject: "Ministry of Health: accessibility digest, 23 to 29 November 2026", Text: "3 new issues\n",
				HTML: "<!DOCTYPE html><html lang=\"en\"><title>t</title><p>3 new issues</p></html>", ID: "digest-2026-11-23.health@cwac.example.govt.nz"}
			if err := Send(context.Background(), s, []string{"web@health.example.govt.nz", "Owner <owner@health.example.govt.nz>"}, m); err != nil {
				t.Fatal(err)
			}
			got, err := mp.Messages()
			if err != nil || len(got) != 1 {
				t.Fatalf("mailpit holds %d messages (%v), want 1", len(got), err)
			}
			g := got[0]
			if g.Subject != m.Subject || g.MessageID != m.ID || strings.TrimSpace(g.Text) != "3 new issues" || !strings.Contains(g.HTML, "<p>3 new issues</p>") ||
				g.From.Address != "digests@cwac.example.govt.nz" || len(g.To) != 2 || g.To[1].Address != "owner@health.example.govt.nz" {
				t.Errorf("received %+v", g)
			}
		})
	}
}

// TestSendRefusedByMailpit: a wrong password, and a certificate the sender
// does not trust, each fail with the server named and nothing received.
func TestSendRefusedByMailpit(t *testing.T) {
	mp := mailpit.Start(t, mailpit.RequireStartTLS)
	good := Server{Host: mp.Host, Port: mp.Port, Security: StartTLS, Username: mp.Username, Password: mp.Password,
		From: "digests@cwac.example.govt.nz", RootCAs: mp.RootCAs}
	for _, tc := range []struct {
		name string
		edit func(*Server)
	}{
		{"wrong password", func(s *Server) { s.Password = "wrong" }},
		{"untrusted certificate", func(s *Server) { s.RootCAs = x509.NewCertPool() }},
		{"no authentication", func(s *Server) { s.Username, s.Password = "", "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := good
			tc.edit(&s)
			err := Send(context.Background(), s, []string{"web@health.example.govt.nz"}, Message{Subject: "s", Text: "t"})
			if err == nil || !strings.Contains(err.Error(), "sending to 127.0.0.1:") {
				t.Errorf("error %v, want the send refused", err)
			}
		})
	}
	if got, err := mp.Messages(); err != nil || len(got) != 0 {
		t.Errorf("mailpit holds %d messages (%v) after refused sends", len(got), err)
	}
}

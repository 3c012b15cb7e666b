package mailer

import (
	"context"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	good := Server{Host: "smtp.example.govt.nz", Port: 587, Security: StartTLS, Username: "u", Password: "p", From: "CWAC <cwac@example.govt.nz>"}
	if err := good.Validate(); err != nil {
		t.Fatalf("good settings refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Server)
		want string
	}{
		{"no host", func(s *Server) { s.Host = "" }, `host ""`},
		{"a host with a line break", func(s *Server) { s.Host = "smtp.example\r\nRCPT" }, "host"},
		{"port 0", func(s *Server) { s.Port = 0 }, "port 0: want 1 to 65535"},
		{"port too high", func(s *Server) { s.Port = 70000 }, "port 70000"},
		{"no security", func(s *Server) { s.Security = "" }, "mail is never sent unencrypted"},
		{"plain text", func(s *Server) { s.Security = "None" }, `security "None"`},
		{"a username without a password", func(s *Server) { s.Password = "" }, "give both or neither"},
		{"a password without a username", func(s *Server) { s.Username = "" }, "give both or neither"},
		{"no sender", func(s *Server) { s.From = "" }, `from ""`},
		{"a sender that is not an address", func(s *Server) { s.From = "cwac" }, `from "cwac"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := good
			tc.edit(&s)
			if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	none := good
	none.Username, none.Password = "", ""
	if err := none.Validate(); err != nil {
		t.Errorf("no authentication refused: %v", err)
	}
}

// TestSendRefusesBeforeConnecting: bad settings or recipients are refused
// without a connection (the port is one nothing listens on).
func TestSendRefusesBeforeConnecting(t *testing.T) {
	s := Server{Host: "127.0.0.1", Port: 9, Security: StartTLS, From: "cwac@example.govt.nz"}
	m := Message{Subject: "s", Text: "t"}
	many := make([]string, MaxRecipients+1)
	for i := range many {
		many[i] = "owner@example.govt.nz"
	}
	for _, tc := range []struct {
		name string
		s    Server
		to   []string
		want string
	}{
		{"no recipient", s, nil, "0 recipients"},
		{"too many recipients", s, many, "51 recipients: want 1 to 50"},
		{"a recipient that is not an address", s, []string{"owner"}, "recipients"},
		{"unencrypted", Server{Host: "127.0.0.1", Port: 9, Security: "None", From: s.From}, []string{"a@example.govt.nz"}, "never sent unencrypted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Send(context.Background(), tc.s, tc.to, m)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "sending to") {
				t.Errorf("error %v, want one saying %q before connecting", err, tc.want)
			}
		})
	}
}

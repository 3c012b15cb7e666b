// Package mailer sends email over SMTP: the digests that reach the owners
// of organisations. The connection is always encrypted (STARTTLS, required,
// or TLS from the first byte) and the server's certificate always checked,
// because a digest names an organisation's open accessibility issues and
// the account's password travels on the connection too.
package mailer

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Security is how the connection to the SMTP server is encrypted.
type Security string

const (
	// StartTLS connects in plain text and must upgrade with STARTTLS before
	// anything else is said (the submission port, 587). A server that
	// does not offer it is refused.
	StartTLS Security = "STARTTLS"
	// ImplicitTLS speaks TLS from the first byte (port 465).
	ImplicitTLS Security = "TLS"
)

// MaxRecipients bounds the recipients of one message: a digest goes to an
// organisation's owners, never to a list.
const MaxRecipients = 50

// sendTimeout ends a conversation with a server that stops answering.
const sendTimeout = time.Minute

// Server is an SMTP server and the account that sends from it.
type Server struct {
	Host string
	Port int
	// Security is StartTLS or ImplicitTLS.
	Security Security
	// Username and Password authenticate (both empty: no authentication;
	// the server must then accept the sender without it).
	Username, Password string
	// From is the sender's address.
	From string
	// RootCAs verify the server's certificate; nil: the system's roots.
	RootCAs *x509.CertPool
}

// Message is what is sent: a subject and the same words as plain text
// and as HTML.
type Message struct {
	Subject, Text, HTML string
	// ID, when set, is the message's Message-ID (a domain-style id without
	// angle brackets): the same message sent again after an interrupted
	// attempt carries the same id, so a receiver can tell it is one.
	ID string
}

// Validate says what is wrong with the server's settings, naming the
// setting, before anything is sent.
func (s Server) Validate() error {
	var errs []error
	if s.Host == "" || strings.ContainsAny(s.Host, " /\r\n") {
		errs = append(errs, fmt.Errorf("host %q: want a host name or address", s.Host))
	}
	if s.Port < 1 || s.Port > 65535 {
		errs = append(errs, fmt.Errorf("port %d: want 1 to 65535", s.Port))
	}
	if s.Security != StartTLS && s.Security != ImplicitTLS {
		errs = append(errs, fmt.Errorf("security %q: want %s or %s (mail is never sent unencrypted)", s.Security, StartTLS, ImplicitTLS))
	}
	if (s.Username == "") != (s.Password == "") {
		errs = append(errs, errors.New("username and password: give both or neither"))
	}
	if _, err := mail.ParseAddress(s.From); err != nil {
		errs = append(errs, fmt.Errorf("from %q: %w", s.From, err))
	}
	return errors.Join(errs...)
}

// Send sends the message to the recipients through the server.
func Send(ctx context.Context, s Server, to []string, m Message) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("mailer: %w", err)
	}
	if len(to) == 0 || len(to) > MaxRecipients {
		return fmt.Errorf("mailer: %d recipients: want 1 to %d", len(to), MaxRecipients)
	}
	msg := gomail.NewMsg()
	if err := msg.From(s.From); err != nil {
		return fmt.Errorf("mailer: from %q: %w", s.From, err)
	}
	if err := msg.To(to...); err != nil {
		return fmt.Errorf("mailer: recipients: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	if m.ID != "" {
		msg.SetMessageIDWithValue(m.ID)
	} else {
		msg.SetMessageID()
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	opts := []gomail.Option{
		gomail.WithPort(s.Port), gomail.WithTimeout(sendTimeout),
		gomail.WithTLSConfig(&tls.Config{ServerName: s.Host, RootCAs: s.RootCAs, MinVersion: tls.VersionTLS12}),
	}
	if s.Security == ImplicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(s.Username), gomail.WithPassword(s.Password))
	}
	client, err := gomail.NewClient(s.Host, opts...)
	if err != nil {
		return fmt.Errorf("mailer: %w", err)
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mailer: sending to %s:%d: %w", s.Host, s.Port, err)
	}
	return nil
}

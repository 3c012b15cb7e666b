package main

import (
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/a11y-dev/cwac-operator/internal/digest"
	"github.com/a11y-dev/cwac-operator/internal/mailer"
)

// digestFlags are the SMTP server and dashboard address the namespace's
// CwacDigests are sent with. Without --smtp-host no digest is sent (each
// says MailNotConfigured).
type digestFlags struct {
	dashboardURL               string
	host, from                 string
	port                       int
	security                   string
	usernameFile, passwordFile string
	caFile                     string
}

func (f *digestFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.dashboardURL, "digest-dashboard-url", "", "the dashboard's address as the digests' readers reach it (their links), "+
		"such as https://cwac.example.govt.nz; needed with --smtp-host")
	fs.StringVar(&f.host, "smtp-host", "", "the SMTP server digests are sent through (empty: none are sent)")
	fs.IntVar(&f.port, "smtp-port", 587, "the SMTP server's port")
	fs.StringVar(&f.security, "smtp-security", string(mailer.StartTLS), "how the connection is encrypted: "+string(mailer.StartTLS)+
		" (required, the submission port) or "+string(mailer.ImplicitTLS)+" (from the first byte, port 465); never unencrypted")
	fs.StringVar(&f.from, "smtp-from", "", "the digests' sender address")
	fs.StringVar(&f.usernameFile, "smtp-username-file", "", "a file holding the SMTP account's user name (mount it from a Secret); empty: no authentication")
	fs.StringVar(&f.passwordFile, "smtp-password-file", "", "a file holding the SMTP account's password (mount it from a Secret)")
	fs.StringVar(&f.caFile, "smtp-ca-file", "", "PEM certificates the SMTP server's certificate is checked against (default: the system's)")
}

// server is the SMTP server the flags name, nil without --smtp-host. A
// setting that can never work is an error before anything starts.
func (f digestFlags) server() (*mailer.Server, string, error) {
	if f.host == "" {
		return nil, "", nil
	}
	base, err := digest.DashboardBase(f.dashboardURL)
	if err != nil {
		return nil, "", fmt.Errorf("--digest-dashboard-url: the digests link to the dashboard: %w", err)
	}
	s := &mailer.Server{Host: f.host, Port: f.port, Security: mailer.Security(f.security), From: f.from}
	read := func(flagName, file string) (string, error) {
		if file == "" {
			return "", nil
		}
		return readSecretFile(flagName, file)
	}
	if s.Username, err = read("smtp-username-file", f.usernameFile); err != nil {
		return nil, "", err
	}
	if s.Password, err = read("smtp-password-file", f.passwordFile); err != nil {
		return nil, "", err
	}
	if f.caFile != "" {
		pem, err := os.ReadFile(f.caFile)
		if err != nil {
			return nil, "", fmt.Errorf("reading --smtp-ca-file: %w", err)
		}
		s.RootCAs = x509.NewCertPool()
		if !s.RootCAs.AppendCertsFromPEM(pem) {
			return nil, "", errors.New("--smtp-ca-file holds no PEM certificate")
		}
	}
	if err := s.Validate(); err != nil {
		return nil, "", fmt.Errorf("the SMTP settings: %w", err)
	}
	return s, base.String(), nil
}

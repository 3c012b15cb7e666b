package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/issueevents"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// issueEventFlags configure the issue lifecycle events the history's
// writer pushes to the release's receivers (docs/issue-trackers.md).
type issueEventFlags struct {
	receivers  string
	allowCIDRs string
	allowHTTP  bool
	timeout    time.Duration
}

func (f *issueEventFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.receivers, "issue-event-receivers", "",
		`with --store: a JSON list of receivers of issue lifecycle events, [{"name", "urlFile", "hmacFile", "organisations"}], `+
			"each URL and signing key read from its file (mount them from Secrets); empty: none")
	fs.StringVar(&f.allowCIDRs, "issue-events-allow-cidrs", "",
		"comma-separated address ranges issue-event receivers may be at although the scan-target policy refuses them "+
			"(e.g. a tracker's automation inside the cluster)")
	fs.BoolVar(&f.allowHTTP, "issue-events-allow-http", false, "let issue-event receivers use http:// (https only by default)")
	fs.DurationVar(&f.timeout, "issue-events-timeout", notify.DefaultTimeout, "how long one batch to a receiver may take")
}

// sender is the checked receivers' configuration (nil when none are
// configured): the target policy's lists, with the flags' ranges opened
// for the receivers alone, every name resolved at dial time.
func (f *issueEventFlags) sender(lists urlpolicy.Lists) ([]issueevents.Receiver, *notify.Sender, error) {
	if f.receivers == "" {
		return nil, nil, nil
	}
	receivers, err := issueevents.ParseReceivers([]byte(f.receivers), os.ReadFile)
	if err != nil {
		return nil, nil, fmt.Errorf("--issue-event-receivers: %w", err)
	}
	cfg, err := lists.Config()
	if err != nil {
		return nil, nil, err
	}
	cidrs, err := urlpolicy.ParseCIDRs(f.allowCIDRs)
	if err != nil {
		return nil, nil, fmt.Errorf("--issue-events-allow-cidrs: %w", err)
	}
	if f.timeout <= 0 {
		return nil, nil, fmt.Errorf("--issue-events-timeout (%s) must be positive", f.timeout)
	}
	cfg.AllowCIDRs = append(cfg.AllowCIDRs, cidrs...)
	cfg.Resolver = net.DefaultResolver
	return receivers, notify.NewSender(urlpolicy.New(cfg), f.allowHTTP, f.timeout).WithHTTPSwitch("--issue-events-allow-http"), nil
}

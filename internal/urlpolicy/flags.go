package urlpolicy

import (
	"flag"
	"net"
	"time"
)

// Lists are the policy's operator-chosen lists, comma-separated as the
// flags take them. The manager and the MCP server check scans' URLs with
// them, and the manager hands the same lists to every scan pod, whose
// egress proxy checks each connection with them: one policy everywhere.
type Lists struct {
	AllowDomains string
	DenyDomains  string
	DenyCIDRs    string
	AllowCIDRs   string
}

// Flag names of the lists.
const (
	FlagAllowDomains = "url-allow-domains"
	FlagDenyDomains  = "url-deny-domains"
	FlagDenyCIDRs    = "url-deny-cidrs"
	FlagAllowCIDRs   = "url-allow-cidrs"
)

// Bind registers the lists' flags.
func (l *Lists) Bind(fs *flag.FlagSet) {
	fs.StringVar(&l.AllowDomains, FlagAllowDomains, "", "comma-separated domain suffixes scans may target (e.g. govt.nz); empty: any public site")
	fs.StringVar(&l.DenyDomains, FlagDenyDomains, "", "comma-separated domain suffixes scans may not target, on top of cluster-internal names")
	fs.StringVar(&l.DenyCIDRs, FlagDenyCIDRs, "",
		"comma-separated address ranges scans may not target, on top of loopback, link-local, private and reserved ones: "+
			"put the cluster's service and pod CIDRs here")
	fs.StringVar(&l.AllowCIDRs, FlagAllowCIDRs, "",
		"comma-separated address ranges to open although the built-in rules refuse them "+
			"(explicit opt-in, e.g. 127.0.0.0/8 for tests on one machine)")
}

// Args renders the lists as the flags Bind registers, leaving out empty ones.
func (l Lists) Args() []string {
	var args []string
	for _, f := range []struct{ name, value string }{
		{FlagAllowDomains, l.AllowDomains}, {FlagDenyDomains, l.DenyDomains}, {FlagDenyCIDRs, l.DenyCIDRs}, {FlagAllowCIDRs, l.AllowCIDRs},
	} {
		if f.value != "" {
			args = append(args, "--"+f.name+"="+f.value)
		}
	}
	return args
}

// Config is the policy the lists describe, with nothing resolved or
// followed yet.
func (l Lists) Config() (Config, error) {
	deny, err := ParseCIDRs(l.DenyCIDRs)
	if err != nil {
		return Config{}, err
	}
	allow, err := ParseCIDRs(l.AllowCIDRs)
	if err != nil {
		return Config{}, err
	}
	return Config{AllowDomains: SplitList(l.AllowDomains), DenyDomains: SplitList(l.DenyDomains), DenyCIDRs: deny, AllowCIDRs: allow}, nil
}

// Flags are the policy's command-line flags, shared by the manager and the
// MCP server so that both enforce the same policy: the lists, and how URLs
// are checked at admission.
type Flags struct {
	Lists
	Resolve        bool
	CheckRedirects bool
	Timeout        time.Duration
}

// Bind registers the flags.
func (f *Flags) Bind(fs *flag.FlagSet) {
	f.Lists.Bind(fs)
	fs.BoolVar(&f.Resolve, "url-resolve", true, "resolve names and refuse those that resolve to a refused address (an unresolvable name is refused)")
	fs.BoolVar(&f.CheckRedirects, "url-check-redirects", true, "ask each URL once at admission and refuse redirects to a refused URL")
	fs.DurationVar(&f.Timeout, "url-check-timeout", 5*time.Second, "timeout of name resolution and the redirect check, per URL")
}

// Build makes the policy the flags describe.
func (f *Flags) Build() (*Policy, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	cfg.Timeout = f.Timeout
	if f.Resolve {
		cfg.Resolver = net.DefaultResolver
	}
	p := New(cfg)
	if f.CheckRedirects {
		p.cfg.Redirector = NewHTTPRedirector(p, p.cfg.Timeout)
	}
	return p, nil
}

package urlpolicy

import (
	"flag"
	"net"
	"time"
)

// Flags are the policy's command-line flags, shared by the manager and the
// MCP server so that both enforce the same policy.
type Flags struct {
	AllowDomains   string
	DenyDomains    string
	DenyCIDRs      string
	AllowCIDRs     string
	Resolve        bool
	CheckRedirects bool
	Timeout        time.Duration
}

// Bind registers the flags.
func (f *Flags) Bind(fs *flag.FlagSet) {
	fs.StringVar(&f.AllowDomains, "url-allow-domains", "", "comma-separated domain suffixes scans may target (e.g. govt.nz); empty: any public site")
	fs.StringVar(&f.DenyDomains, "url-deny-domains", "", "comma-separated domain suffixes scans may not target, on top of cluster-internal names")
	fs.StringVar(&f.DenyCIDRs, "url-deny-cidrs", "",
		"comma-separated address ranges scans may not target, on top of loopback, link-local, private and reserved ones: "+
			"put the cluster's service and pod CIDRs here")
	fs.StringVar(&f.AllowCIDRs, "url-allow-cidrs", "",
		"comma-separated address ranges to open although the built-in rules refuse them "+
			"(explicit opt-in, e.g. 127.0.0.0/8 for tests on one machine)")
	fs.BoolVar(&f.Resolve, "url-resolve", true, "resolve names and refuse those that resolve to a refused address (an unresolvable name is refused)")
	fs.BoolVar(&f.CheckRedirects, "url-check-redirects", true, "ask each URL once at admission and refuse redirects to a refused URL")
	fs.DurationVar(&f.Timeout, "url-check-timeout", 5*time.Second, "timeout of name resolution and the redirect check, per URL")
}

// Build makes the policy the flags describe.
func (f *Flags) Build() (*Policy, error) {
	deny, err := ParseCIDRs(f.DenyCIDRs)
	if err != nil {
		return nil, err
	}
	allow, err := ParseCIDRs(f.AllowCIDRs)
	if err != nil {
		return nil, err
	}
	cfg := Config{AllowDomains: SplitList(f.AllowDomains), DenyDomains: SplitList(f.DenyDomains), DenyCIDRs: deny, AllowCIDRs: allow, Timeout: f.Timeout}
	if f.Resolve {
		cfg.Resolver = net.DefaultResolver
	}
	p := New(cfg)
	if f.CheckRedirects {
		p.cfg.Redirector = NewHTTPRedirector(p, p.cfg.Timeout)
	}
	return p, nil
}

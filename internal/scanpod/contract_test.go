package scanpod

import (
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// What the Job builder renders, the runner must parse back unchanged.
func TestRunnerFlagsRoundTrip(t *testing.T) {
	tests := []RunnerFlags{
		DefaultRunnerFlags(),
		{CWACDir: "/opt/cwac", ConfigMapDir: "/c", ResultsDir: "/r", WorkDir: "/w", TerminationLog: "/t", Python: "/opt/cwac/.venv/bin/python"},
		{
			CWACDir: "/cwac", ConfigMapDir: "/scan", ResultsDir: "/results", WorkDir: "/tmp/w", TerminationLog: "/t",
			Egress: urlpolicy.Lists{AllowDomains: "govt.nz", DenyDomains: "bad.govt.nz", DenyCIDRs: "10.96.0.0/12,10.244.0.0/16", AllowCIDRs: "10.244.0.0/24"},
		},
	}
	for _, want := range tests {
		fs := flag.NewFlagSet("runner", flag.ContinueOnError)
		var got RunnerFlags
		got.Bind(fs)
		if err := fs.Parse(want.Args()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func TestRunnerPath(t *testing.T) {
	if RunnerPath != "/runner/cwac-runner" {
		t.Errorf("RunnerPath = %q", RunnerPath)
	}
}

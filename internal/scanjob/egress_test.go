package scanjob

import (
	"flag"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// Every scan pod's runner is given the operator's policy lists, which its
// egress proxy checks connections against: one pod or each shard's; the
// merge pod, which connects nowhere, is not.
func TestJobCarriesThePolicyLists(t *testing.T) {
	lists := urlpolicy.Lists{AllowDomains: "govt.nz", DenyDomains: "bad.govt.nz", DenyCIDRs: "10.96.0.0/12", AllowCIDRs: "10.244.0.0/24"}
	withLists := opts
	withLists.Egress = lists
	sharded := sampleScan()
	sharded.Spec.Shards = 2
	for _, scan := range []struct {
		name string
		args []string
	}{
		{"one pod", Job(sampleScan(), withLists, Baseline{}).Spec.Template.Spec.Containers[0].Args},
		{"shards", Job(sharded, withLists, Baseline{}).Spec.Template.Spec.Containers[0].Args},
	} {
		var got scanpod.RunnerFlags
		fs := flag.NewFlagSet("runner", flag.ContinueOnError)
		got.Bind(fs)
		if err := fs.Parse(scan.args); err != nil {
			t.Fatalf("%s: %v", scan.name, err)
		}
		if got.Egress != lists {
			t.Errorf("%s: the runner is given %+v, want %+v", scan.name, got.Egress, lists)
		}
	}
	for _, a := range MergePod(sharded, withLists, Baseline{}, nil).Spec.Containers[0].Args {
		if len(a) > 6 && a[:6] == "--url-" {
			t.Errorf("the merge pod is given %s", a)
		}
	}
}

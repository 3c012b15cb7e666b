// Command kubectl-cwac is the kubectl plugin for CWAC scans: `kubectl cwac
// scan|get|list|summary|results|diff|report|cancel|wait`. Everything it does
// lives in internal/cli; see docs/kubectl-plugin.md.
package main

import (
	"os"

	"github.com/a11y-dev/cwac-operator/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}

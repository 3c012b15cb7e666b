// Command mutation reads what the mutation tester (gremlins) found in each
// package hack/mutate.sh ran it on, discounts the surviving mutants listed
// as equivalent in equivalent.txt, prints efficacy and statement coverage per
// package and fails when an enforced package is below target or when a
// listed equivalent no longer matches a surviving mutant (stale).
//
//	go run ./hack/mutation -results DIR -src DIR -equivalents FILE [-report-only "pkg ..."]
//
// DIR (-results) holds one folder per package, each with pkg.txt (the
// package's directory, such as internal/gate), gremlins.json (gremlins
// unleash -o), coverage.txt (go test -cover's output) and seconds.txt.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	resultsDir := flag.String("results", "", "folder with one folder of results per package (see the package comment)")
	srcDir := flag.String("src", ".", "the module's copy the mutants were made in (to read the mutated lines)")
	equivalents := flag.String("equivalents", "hack/mutation/equivalent.txt", "the list of equivalent mutants")
	reportOnly := flag.String("report-only", "", "space-separated package directories whose figures are printed but not enforced")
	minEfficacy := flag.Float64("min-efficacy", 90, "least efficacy (percent) of an enforced package, after discounting equivalents")
	minCoverage := flag.Float64("min-coverage", 90, "least statement coverage (percent) of an enforced package")
	flag.Parse()

	ok, err := run(os.Stdout, options{
		resultsDir: *resultsDir, srcDir: *srcDir, equivalentsFile: *equivalents,
		reportOnly: strings.Fields(*reportOnly), minEfficacy: *minEfficacy, minCoverage: *minCoverage,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

type options struct {
	resultsDir, srcDir, equivalentsFile string
	reportOnly                          []string
	minEfficacy, minCoverage            float64
}

// run prints the table and the findings; ok is false when an enforced
// package misses a target or has stale equivalents.
func run(w io.Writer, o options) (ok bool, err error) {
	entries, err := readEquivalents(o.equivalentsFile)
	if err != nil {
		return false, err
	}
	dirs, err := os.ReadDir(o.resultsDir)
	if err != nil {
		return false, err
	}
	var pkgs []*packageResult
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		p, err := readPackage(filepath.Join(o.resultsDir, d.Name()))
		if err != nil {
			return false, err
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return false, fmt.Errorf("no package results in %s", o.resultsDir)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].dir < pkgs[j].dir })

	ok = true
	var notes []string
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %7s %7s %6s %5s %5s %5s %6s %8s %8s %6s  %s\n",
		"package", "cover", "mutants", "killed", "t/out", "lived", "equiv", "uncov", "efficacy", "adjusted", "time", "verdict")
	for _, p := range pkgs {
		matches, stale := p.discount(entries, o.srcDir)
		enforced := !contains(o.reportOnly, p.dir)
		verdict, passed := p.verdict(o.minEfficacy, o.minCoverage, len(stale), enforced)
		ok = ok && passed
		c := p.counts
		fmt.Fprintf(&b, "%-24s %6.1f%% %7d %6d %5d %5d %5d %6d %7.1f%% %7.1f%% %5ds  %s\n",
			p.dir, p.coverage, c.total(), c.killed, c.timedOut, c.lived, p.equivalent, c.notCovered,
			c.efficacy(0), c.efficacy(p.equivalent), p.seconds, verdict)
		notes = append(notes, p.findings(matches, stale, o.srcDir)...)
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	_, err = io.WriteString(w, b.String())
	return ok, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSuffix(strings.TrimPrefix(x, "./"), "/") == s {
			return true
		}
	}
	return false
}

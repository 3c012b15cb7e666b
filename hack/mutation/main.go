// Command mutation reads what the mutation tester (gremlins) found in each
// package hack/mutate.sh ran it on, discounts the surviving mutants listed
// as equivalent in equivalent.txt, prints efficacy and statement coverage per
// package and fails when an enforced package is below target or when a
// listed equivalent no longer matches a surviving mutant (stale).
//
//	go -C hack build -o "$PWD/bin/mutation" ./mutation   (hack/ is the tools' own module)
//	bin/mutation -results DIR -src DIR -equivalents FILE [-report-only "pkg ..."] [-verified FILE]
//	bin/mutation fingerprint [-equivalents FILE -min-efficacy N -min-coverage N -tool NAME -tags TAGS] PKG...
//
// DIR (-results) holds one folder per package, each with pkg.txt (the
// package's directory, such as internal/gate), gremlins.json (gremlins
// unleash -o), coverage.txt (go test -cover's output), seconds.txt and,
// optionally, fingerprint.txt. With -verified, each enforced package that
// meets every target and has a fingerprint gets its line in that file
// (verified.txt), which hack/mutate.sh reads to skip unchanged packages.
//
// The fingerprint subcommand prints "PKG FINGERPRINT" for each package: a
// SHA-256 over everything its verdict depends on (see fingerprint), run
// from the product module's directory (the repository root, not hack/: the
// go list it runs there must see the product's module).
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
	if len(os.Args) > 1 && os.Args[1] == "fingerprint" {
		if err := fingerprintCommand(os.Stdout, os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "mutation fingerprint:", err)
			os.Exit(2)
		}
		return
	}
	resultsDir := flag.String("results", "", "folder with one folder of results per package (see the package comment)")
	srcDir := flag.String("src", ".", "the module's copy the mutants were made in (to read the mutated lines)")
	equivalents := flag.String("equivalents", "hack/mutation/equivalent.txt", "the list of equivalent mutants")
	reportOnly := flag.String("report-only", "", "space-separated package directories whose figures are printed but not enforced")
	minEfficacy := flag.Float64("min-efficacy", 90, "least efficacy (percent) of an enforced package, after discounting equivalents")
	minCoverage := flag.Float64("min-coverage", 90, "least statement coverage (percent) of an enforced package")
	verified := flag.String("verified", "", "record each enforced package that meets the targets, with its fingerprint, in this file")
	flag.Parse()

	ok, err := run(os.Stdout, options{
		resultsDir: *resultsDir, srcDir: *srcDir, equivalentsFile: *equivalents,
		reportOnly: strings.Fields(*reportOnly), minEfficacy: *minEfficacy, minCoverage: *minCoverage,
		verifiedFile: *verified,
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
	// verifiedFile, when set, is where passing packages are recorded.
	verifiedFile             string
	reportOnly               []string
	minEfficacy, minCoverage float64
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
	met := map[string]string{} // enforced packages that met every target: dir → fingerprint
	var notes []string
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %7s %7s %6s %5s %5s %5s %6s %8s %8s %6s  %s\n",
		"package", "cover", "mutants", "killed", "t/out", "lived", "equiv", "uncov", "efficacy", "adjusted", "time", "verdict")
	for _, p := range pkgs {
		matches, stale := p.discount(entries, o.srcDir)
		enforced := !contains(o.reportOnly, p.dir)
		verdict, passed := p.verdict(o.minEfficacy, o.minCoverage, len(stale), enforced)
		ok = ok && passed
		if verdict == "ok" && enforced && p.fingerprint != "" {
			met[p.dir] = p.fingerprint
		}
		c := p.counts
		fmt.Fprintf(&b, "%-24s %6.1f%% %7d %6d %5d %5d %5d %6d %7.1f%% %7.1f%% %5ds  %s\n",
			p.dir, p.coverage, c.total(), c.killed, c.timedOut, c.lived, p.equivalent, c.notCovered,
			c.efficacy(0), c.efficacy(p.equivalent), p.seconds, verdict)
		notes = append(notes, p.findings(matches, stale, o.srcDir)...)
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	if o.verifiedFile != "" && len(met) > 0 {
		if err := recordVerified(o.verifiedFile, met); err != nil {
			return false, err
		}
		recorded := make([]string, 0, len(met))
		for pkg := range met {
			recorded = append(recorded, pkg)
		}
		sort.Strings(recorded)
		fmt.Fprintf(&b, "verified (recorded in %s; commit it with the change): %s\n", o.verifiedFile, strings.Join(recorded, " "))
	}
	_, err = io.WriteString(w, b.String())
	return ok, err
}

// fingerprintCommand prints "PKG FINGERPRINT" for each package named in
// args, computed from the current directory (the module's).
func fingerprintCommand(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("fingerprint", flag.ContinueOnError)
	equivalents := fs.String("equivalents", "hack/mutation/equivalent.txt", "the list of equivalent mutants")
	minEfficacy := fs.Float64("min-efficacy", 90, "least efficacy (percent), as make mutate is given it")
	minCoverage := fs.Float64("min-coverage", 90, "least statement coverage (percent), as make mutate is given it")
	tool := fs.String("tool", "", "the mutation tester's name and version")
	tags := fs.String("tags", "", "the build tags the tests are built with (comma-separated), as make mutate gives them")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name at least one package directory, such as internal/gate")
	}
	in := fingerprintInputs{equivalentsFile: *equivalents, minEfficacy: *minEfficacy, minCoverage: *minCoverage, tool: *tool, tags: *tags}
	for _, pkg := range fs.Args() {
		fp, err := fingerprint(".", pkg, in)
		if err != nil {
			return err
		}
		clean, _ := cleanPackageDir(pkg)
		if _, err := fmt.Fprintf(w, "%s %s\n", clean, fp); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSuffix(strings.TrimPrefix(x, "./"), "/") == s {
			return true
		}
	}
	return false
}

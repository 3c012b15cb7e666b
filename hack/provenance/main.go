// Command provenance writes the SLSA build provenance (v1) predicate of a
// release for `cosign attest --type slsaprovenance1`, which wraps it in an
// in-toto statement whose subject is the image it attests. make release
// (hack/release.sh) runs it; the fields are SLSA's
// (https://slsa.dev/spec/v1.0/provenance).
//
//	provenance --source git+https://github.com/owner/cwac-operator --ref refs/tags/v1.2.0 \
//	  --commit <40 hex> --builder-id <uri> --started 2026-12-01T02:00:00Z --platform linux/amd64
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// buildType names how make release builds: the steps hack/release.sh runs.
const buildType = "https://github.com/a11y-dev/cwac-operator/blob/main/hack/release.sh@v1"

type predicate struct {
	BuildDefinition buildDefinition `json:"buildDefinition"`
	RunDetails      runDetails      `json:"runDetails"`
}

type buildDefinition struct {
	BuildType            string               `json:"buildType"`
	ExternalParameters   externalParameters   `json:"externalParameters"`
	InternalParameters   internalParameters   `json:"internalParameters"`
	ResolvedDependencies []resourceDescriptor `json:"resolvedDependencies"`
}

// externalParameters are what the person or workflow starting the release
// chose: the source and the version (its tag), and the platforms.
type externalParameters struct {
	Source    string   `json:"source"`
	Ref       string   `json:"ref"`
	Platforms []string `json:"platforms"`
}

// internalParameters are the builder's own: the Go toolchain and the flags
// every binary is built with.
type internalParameters struct {
	GoVersion string `json:"goVersion"`
	GoFlags   string `json:"goFlags"`
}

type resourceDescriptor struct {
	URI    string            `json:"uri"`
	Digest map[string]string `json:"digest"`
}

type runDetails struct {
	Builder  builder  `json:"builder"`
	Metadata metadata `json:"metadata"`
}

type builder struct {
	ID string `json:"id"`
}

type metadata struct {
	InvocationID string `json:"invocationId,omitempty"`
	StartedOn    string `json:"startedOn"`
	FinishedOn   string `json:"finishedOn"`
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// inputs are the command's flags.
type inputs struct {
	source, ref, commit, builderID, invocationID, goFlags string
	started                                               string // RFC 3339
	platforms                                             []string
}

var commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// build checks the inputs and makes the predicate; finished is when the
// build ended (now, when run).
func build(in inputs, goVersion string, finished time.Time) (*predicate, error) {
	var errs []error
	if !strings.HasPrefix(in.source, "git+") {
		errs = append(errs, fmt.Errorf("--source %q: want the repository as git+<url>", in.source))
	}
	if !strings.HasPrefix(in.ref, "refs/") {
		errs = append(errs, fmt.Errorf("--ref %q: want a full ref such as refs/tags/v1.2.0", in.ref))
	}
	if !commitPattern.MatchString(in.commit) {
		errs = append(errs, fmt.Errorf("--commit %q: want the 40 hex digits of a git commit", in.commit))
	}
	if in.builderID == "" {
		errs = append(errs, errors.New("--builder-id is required (the workflow run, or make release on a named machine)"))
	}
	started, err := time.Parse(time.RFC3339, in.started)
	if err != nil {
		errs = append(errs, fmt.Errorf("--started %q: want an RFC 3339 time", in.started))
	} else if finished.Before(started) {
		errs = append(errs, fmt.Errorf("--started %s is after the build finished (%s)", in.started, finished.Format(time.RFC3339)))
	}
	if len(in.platforms) == 0 {
		errs = append(errs, errors.New("--platform is required (repeatable: each os/arch released)"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &predicate{
		BuildDefinition: buildDefinition{
			BuildType:          buildType,
			ExternalParameters: externalParameters{Source: in.source, Ref: in.ref, Platforms: in.platforms},
			InternalParameters: internalParameters{GoVersion: goVersion, GoFlags: in.goFlags},
			ResolvedDependencies: []resourceDescriptor{
				{URI: in.source + "@" + in.ref, Digest: map[string]string{"gitCommit": in.commit}},
			},
		},
		RunDetails: runDetails{
			Builder:  builder{ID: in.builderID},
			Metadata: metadata{InvocationID: in.invocationID, StartedOn: started.UTC().Format(time.RFC3339), FinishedOn: finished.UTC().Format(time.RFC3339)},
		},
	}, nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("provenance", flag.ContinueOnError)
	var in inputs
	var platforms multi
	fs.StringVar(&in.source, "source", "", "the repository released, git+<url>")
	fs.StringVar(&in.ref, "ref", "", "the ref released, e.g. refs/tags/v1.2.0")
	fs.StringVar(&in.commit, "commit", "", "the commit released (40 hex digits)")
	fs.StringVar(&in.builderID, "builder-id", "", "who built it: the workflow run's URI, or make release on a named machine")
	fs.StringVar(&in.invocationID, "invocation-id", "", "this run's id (optional)")
	fs.StringVar(&in.goFlags, "go-flags", "", "the flags every binary was built with")
	fs.StringVar(&in.started, "started", "", "when the build started (RFC 3339)")
	fs.Var(&platforms, "platform", "os/arch released (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	in.platforms = platforms
	p, err := build(in, runtime.Version(), time.Now())
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "provenance:", err)
		os.Exit(2)
	}
}

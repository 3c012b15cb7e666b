// Package axe checks pages in real headless Chromium with axe-core, for
// the browser tests of the dashboard (internal/dashboard) and of the HTML
// report (test/report): finding the browser and the project's pinned copy
// of axe-core, starting a browser that can reach nothing but loopback,
// and running axe-core with every violation listed as a test error. The
// two tests check different pages; how a page is judged is kept here once.
package axe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// ScriptPath is axe-core's script in the repository, installed by
// hack/npm-deps.sh (test/mcp-e2e's pinned npm packages).
const ScriptPath = "test/mcp-e2e/node_modules/axe-core/axe.min.js"

// Chromium finds headless Chromium: $CHROMIUM, or chromium,
// chromium-browser or google-chrome on the PATH.
func Chromium() (string, error) {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("headless Chromium was not found (Debian: apt-get install chromium; or set CHROMIUM to the browser's path)")
}

// Script reads axe-core's script from the repository that holds the
// working directory (a test's directory is its package's).
func Script() ([]byte, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, ScriptPath))
	if err != nil {
		return nil, fmt.Errorf("axe-core is not installed (%w): run hack/npm-deps.sh, which installs test/mcp-e2e's npm packages", err)
	}
	return b, nil
}

// moduleRoot is the nearest directory up from the working directory with a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Require returns Chromium's path and axe-core's script, or fails the
// test (never skips it) saying how to install what is missing.
func Require(t testing.TB) (chromium string, script []byte) {
	t.Helper()
	chromium, err := Chromium()
	if err != nil {
		t.Fatal(err)
	}
	if script, err = Script(); err != nil {
		t.Fatal(err)
	}
	return chromium, script
}

// Browser starts headless Chromium that resolves no host name but
// 127.0.0.1, so nothing can leave loopback whatever a page asks for; it
// stops when the test ends.
func Browser(t testing.TB, chromium string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // root in CI containers
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return ctx
}

// Inject loads axe-core's script into the page of ctx.
func Inject(ctx context.Context, script []byte) error {
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(script)+";\ntrue"))
	if err != nil {
		return fmt.Errorf("loading axe-core into the page: %w", err)
	}
	return nil
}

// Result is the part of axe.run's result the tests read.
type Result struct {
	Violations []Violation `json:"violations"`
	// Passes counts the rules that passed: 0 means axe-core did not run.
	Passes int `json:"passes"`
}

// Violation is one rule axe-core found broken, and where.
type Violation struct {
	ID    string `json:"id"`
	Help  string `json:"help"`
	Nodes []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// Run runs axe-core, already injected, with all its rules over the page
// but the parts the exclude selectors match.
func Run(ctx context.Context, exclude ...string) (Result, error) {
	axeContext, err := json.Marshal(map[string]any{"include": []string{"html"}, "exclude": append([]string{}, exclude...)})
	if err != nil {
		return Result{}, err
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(`+string(axeContext)+`, {resultTypes: ["violations"]})
		.then(r => JSON.stringify({violations: r.violations, passes: r.passes.length}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		return Result{}, fmt.Errorf("running axe-core: %w", err)
	}
	var res Result
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		return Result{}, fmt.Errorf("axe-core's result: %w", err)
	}
	return res, nil
}

// maxNodes is how many places of one violation a problem names.
const maxNodes = 3

// Problems lists what is wrong, one line each: a run that passed no rule,
// and every violation with its rule, its help and up to three of its
// places (selector and HTML).
func (r Result) Problems() []string {
	var out []string
	if r.Passes == 0 {
		out = append(out, "axe-core passed no rule: it did not run")
	}
	for _, v := range r.Violations {
		var where []string
		for i, n := range v.Nodes {
			if i == maxNodes {
				where = append(where, fmt.Sprintf("and %d more", len(v.Nodes)-maxNodes))
				break
			}
			where = append(where, fmt.Sprint(n.Target)+" "+n.HTML)
		}
		out = append(out, fmt.Sprintf("%s (%s): %s", v.ID, v.Help, strings.Join(where, "; ")))
	}
	return out
}

// Check runs axe-core on the page of ctx (at the width the page is shown
// at, named in the errors) and reports each problem as a test error.
func Check(ctx context.Context, t testing.TB, width int64, exclude ...string) {
	t.Helper()
	res, err := Run(ctx, exclude...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems() {
		t.Errorf("axe-core at %d px: %s", width, p)
	}
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// waitForScan watches the scan (no polling) until it is Complete or Failed
// and returns it, showing progress on the error stream: one line rewritten
// in place on a terminal, a line per change otherwise.
func waitForScan(ctx context.Context, o *Options, s *session, name string) (*cwacv1alpha1.CwacScan, error) {
	p := &progress{out: o.stderr, raw: o.Streams.ErrOut, live: o.IsTerminal(o.Streams.ErrOut), now: o.Now, start: o.Now()}
	defer p.done()
	key := client.ObjectKey{Namespace: s.namespace, Name: name}
	for {
		scan := &cwacv1alpha1.CwacScan{}
		if err := s.client.Get(ctx, key, scan); err != nil {
			return nil, waitError(ctx, describeAPIError(err, fmt.Sprintf("get CwacScan %s/%s", key.Namespace, key.Name)))
		}
		p.show(scan)
		if scan.Status.Phase.Finished() {
			return scan, nil
		}
		final, err := watchScan(ctx, s, scan, p)
		if err != nil {
			return nil, waitError(ctx, err)
		}
		if final != nil {
			return final, nil
		}
		// The watch ended (server timeout, expired version): start again.
	}
}

// watchScan follows one watch from the scan's resourceVersion. It returns
// the scan once finished, or nil when the watch ended early.
func watchScan(ctx context.Context, s *session, from *cwacv1alpha1.CwacScan, p *progress) (*cwacv1alpha1.CwacScan, error) {
	w, err := s.client.Watch(ctx, &cwacv1alpha1.CwacScanList{}, client.InNamespace(from.Namespace),
		&client.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", from.Name),
			Raw: &metav1.ListOptions{ResourceVersion: from.ResourceVersion, AllowWatchBookmarks: true}})
	if err != nil {
		return nil, describeAPIError(err, fmt.Sprintf("watch CwacScan %s/%s", from.Namespace, from.Name))
	}
	defer w.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			p.redraw()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, nil
			}
			switch ev.Type {
			case watch.Error:
				if st := apierrors.FromObject(ev.Object); apierrors.IsGone(st) || apierrors.IsResourceExpired(st) {
					return nil, nil
				}
				return nil, describeAPIError(apierrors.FromObject(ev.Object), fmt.Sprintf("watch CwacScan %s/%s", from.Namespace, from.Name))
			case watch.Deleted:
				return nil, fmt.Errorf("CwacScan %s/%s was deleted while waiting", from.Namespace, from.Name)
			case watch.Added, watch.Modified:
				scan, ok := ev.Object.(*cwacv1alpha1.CwacScan)
				if !ok {
					continue
				}
				p.show(scan)
				if scan.Status.Phase.Finished() {
					return scan, nil
				}
			}
		}
	}
}

func waitError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("gave up waiting (--wait-timeout): %w", err)
	}
	return err
}

// outcomeError turns a finished scan into its exit code: Failed is 2, a
// crossed threshold 3.
func outcomeError(scan *cwacv1alpha1.CwacScan) error {
	switch code := OutcomeCode(scan); code {
	case ExitScanFailed:
		return &exitError{code: code, err: fmt.Errorf("scan %s failed: %s", scan.Name, failureText(scan))}
	case ExitThresholdsCrossed:
		c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionThresholdsMet)
		return &exitError{code: code, err: fmt.Errorf("scan %s crossed its thresholds: %s", scan.Name, c.Message)}
	}
	return nil
}

// OutcomeCode is the exit code a finished scan stands for: ExitScanFailed,
// ExitThresholdsCrossed or ExitOK.
func OutcomeCode(scan *cwacv1alpha1.CwacScan) int {
	if scan.Status.Phase == cwacv1alpha1.PhaseFailed {
		return ExitScanFailed
	}
	if meta.IsStatusConditionFalse(scan.Status.Conditions, cwacv1alpha1.ConditionThresholdsMet) {
		return ExitThresholdsCrossed
	}
	return ExitOK
}

func failureText(scan *cwacv1alpha1.CwacScan) string {
	msg := scan.Status.Message
	if f := scan.Status.Failure; f != nil {
		msg = f.Reason + ": " + msg
		if f.Cause != "" && f.Cause != scan.Status.Message {
			msg += " (" + f.Cause + ")"
		}
	}
	if msg == "" {
		return "no reason given"
	}
	return msg
}

// progress shows where a scan is while waiting.
type progress struct {
	// out prints the scan's text (escaped, terminal.go); raw takes only the
	// line's own cursor controls.
	out   *terminalText
	raw   io.Writer
	live  bool
	now   func() time.Time
	start time.Time
	last  string
	scan  *cwacv1alpha1.CwacScan
	drawn bool
}

// show records a new state of the scan: on a terminal the line is redrawn,
// otherwise a line is printed when what it says changed.
func (p *progress) show(scan *cwacv1alpha1.CwacScan) {
	p.scan = scan
	line := progressLine(scan)
	if p.live {
		p.redraw()
		return
	}
	if line != p.last {
		fprintln(p.out, line)
	}
	p.last = line
}

func (p *progress) redraw() {
	if !p.live || p.scan == nil {
		return
	}
	_ = p.out.Flush() // nothing held back may follow the cursor controls
	fprint(p.raw, "\r\033[K")
	fprintf(p.out, "%s  (%s)", progressLine(p.scan), p.now().Sub(p.start).Round(time.Second))
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fprintln(p.out)
	}
}

// progressLine is the scan's phase, a sharded scan's shards done, and
// pages done, as far as the CwacScan says (pages are known once the scan
// has finished).
func progressLine(scan *cwacv1alpha1.CwacScan) string {
	phase := phaseText(scan)
	line := fmt.Sprintf("%s/%s: %s", scan.Namespace, scan.Name, phase)
	if st := scan.Status.Shards; st != nil {
		line += ", " + shardsText(st)
	}
	if sum := scan.Status.Summary; sum != nil {
		line += fmt.Sprintf(", %d pages, %d issues", sum.PagesScanned, sum.TotalIssues)
	}
	if scan.Status.Message != "" && !scan.Status.Phase.Finished() {
		line += " - " + textcap.Head(scan.Status.Message, 100)
	}
	return line
}

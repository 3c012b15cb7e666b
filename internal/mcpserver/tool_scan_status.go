package mcpserver

import (
	"context"
	"fmt"
	"math"
	"path"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// StatusInput are cwac_scan_status's arguments.
type StatusInput struct {
	ScanID      string `json:"scan_id" jsonschema:"the scan's ID, from cwac_scan or cwac_list_scans"`
	WaitSeconds int    `json:"wait_seconds,omitempty" jsonschema:"wait up to this many seconds for the scan to finish before answering (at most the call timeout less 5 s), sending progress notifications every 2 s when the client asks for progress; 0 answers at once"`
}

// statusPollEvery is how often a waiting cwac_scan_status looks again.
const statusPollEvery = 2 * time.Second

// Progress is CWAC's own progress (progress.csv).
type Progress struct {
	PagesDone      int     `json:"pages_done"`
	PagesEstimated int     `json:"pages_estimated" jsonschema:"CWAC's estimate: max_links_per_domain per site until a site's crawl ends"`
	Percent        float64 `json:"percent"`
}

// StatusOutput is cwac_scan_status's answer.
type StatusOutput struct {
	ScanID           string          `json:"scan_id"`
	Status           string          `json:"status" jsonschema:"pending, queued, running, complete or failed"`
	AuditName        string          `json:"audit_name"`
	Message          string          `json:"message,omitempty"`
	Reason           string          `json:"reason,omitempty" jsonschema:"why it failed, or what it is waiting for"`
	ElapsedTime      string          `json:"elapsed_time" jsonschema:"time since the scan started, e.g. 2m 15s"`
	StartTime        string          `json:"start_time,omitempty"`
	CompletionTime   string          `json:"completion_time,omitempty"`
	StdoutTail       string          `json:"stdout_tail,omitempty" jsonschema:"the last lines of CWAC's output, while it runs"`
	Progress         *Progress       `json:"progress,omitempty"`
	ResultsDir       string          `json:"results_dir,omitempty" jsonschema:"the results directory, relative to the results volume"`
	ExitCode         *int32          `json:"exit_code,omitempty"`
	Cause            string          `json:"cause,omitempty" jsonschema:"for a failed scan: the one line naming what went wrong, e.g. the last line of CWAC's traceback"`
	Stderr           string          `json:"stderr,omitempty" jsonschema:"for a failed scan: the end of CWAC's error output"`
	ThresholdsMet    *bool           `json:"thresholds_met,omitempty" jsonschema:"once finished: whether the results stayed within the scan's thresholds (false for a failed scan)"`
	Verdict          string          `json:"verdict,omitempty" jsonschema:"once finished: which thresholds were crossed, with the figures"`
	AllSitesComplete *ConditionState `json:"all_sites_complete,omitempty" jsonschema:"once finished: whether every organisation was scanned completely (the scan's AllSitesComplete condition); an organisation that was not is not ranked, and a blocked or unreachable one is not scored"`
	Shards           *Shards         `json:"shards,omitempty" jsonschema:"a sharded scan's shards by state (only for a scan with more than one shard)"`
	Notes            []string        `json:"notes,omitempty"`
}

// ConditionState is one of the scan's status conditions, as the operator set it.
type ConditionState struct {
	Status  string `json:"status" jsonschema:"True, False or Unknown"`
	Reason  string `json:"reason" jsonschema:"for all_sites_complete: AllOrganisationsComplete, OrganisationsIncomplete or CompletenessUnknown (the scan pod did not report it)"`
	Message string `json:"message,omitempty" jsonschema:"for all_sites_complete: the organisations not complete, worst first, with their verdicts and reasons"`
}

// Shards is a sharded scan's status.shards, for cwac_scan_status and
// cwac_list_scans.
type Shards struct {
	Total         int32  `json:"total" jsonschema:"how many shards the scan runs as (fewer than asked for when there are fewer organisations)"`
	Running       int32  `json:"running" jsonschema:"shards whose pod is running or starting"`
	Succeeded     int32  `json:"succeeded" jsonschema:"shards that finished"`
	Failed        int32  `json:"failed" jsonschema:"shards that failed"`
	FailedIndexes string `json:"failed_indexes,omitempty" jsonschema:"the failed shards' indexes, e.g. 1,3-5"`
	Merged        bool   `json:"merged" jsonschema:"whether the shards' results have been merged into the scan's one results directory"`
	Summary       string `json:"summary" jsonschema:"the same in words, e.g. 3/4 done, 1 running, 0 failed"`
}

// shardsOf is status.shards as the tools show it; nil for an unsharded scan.
func shardsOf(st *cwacv1alpha1.ShardStatus) *Shards {
	if st == nil {
		return nil
	}
	summary := fmt.Sprintf("%d/%d done, %d running, %d failed", st.Succeeded, st.Total, st.Running, st.Failed)
	if st.FailedIndexes != "" {
		summary += " (shards " + st.FailedIndexes + ")"
	}
	if st.Merged {
		summary += ", merged"
	}
	return &Shards{Total: st.Total, Running: st.Running, Succeeded: st.Succeeded, Failed: st.Failed,
		FailedIndexes: st.FailedIndexes, Merged: st.Merged, Summary: summary}
}

// scanStatusDescription is what MCP clients show of cwac_scan_status.
const scanStatusDescription = "Get a scan's status (pending, queued, running, complete, failed), elapsed time, " +
	"CWAC's recent output and progress while it runs, and its results directory and exit code when it ends."

func init() { defineTool("cwac_scan_status", scanStatusDescription, true, (*Server).status) }

// status answers at once, or, with wait_seconds, when the scan finishes or
// the wait is over, whichever comes first; the call's own deadline bounds
// the wait, so a waiting call never outlives the call timeout.
func (s *Server) status(ctx context.Context, call *callInfo, in StatusInput) (StatusOutput, error) {
	most := int((s.cfg.CallTimeout - 5*time.Second) / time.Second)
	if in.WaitSeconds < 0 || in.WaitSeconds > max(most, 0) {
		return StatusOutput{}, fmt.Errorf("wait_seconds must be between 0 and %d (the call timeout less 5 s), not %d", max(most, 0), in.WaitSeconds)
	}
	until := time.Now().Add(time.Duration(in.WaitSeconds) * time.Second)
	for {
		out, finished, err := s.statusOnce(ctx, call, in)
		if err != nil || finished || !time.Now().Add(statusPollEvery).Before(until) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, nil
		case <-time.After(statusPollEvery):
		}
	}
}

// statusOnce reads the scan's status once.
func (s *Server) statusOnce(ctx context.Context, call *callInfo, in StatusInput) (StatusOutput, bool, error) {
	scan, err := s.access.scan(ctx, call, in.ScanID)
	if err != nil {
		return StatusOutput{}, false, err
	}
	st := scan.Status
	out := StatusOutput{
		ScanID:    scan.Name,
		Status:    phaseStatus(st.Phase),
		AuditName: scanspec.AuditName(scan),
		Message:   st.Message,
		ExitCode:  st.ExitCode,
		Reason:    conditionReason(st.Conditions),
		Shards:    shardsOf(st.Shards),
	}
	s.setTimes(&out, scan)
	setCompleteness(&out, st.Conditions)
	switch st.Phase {
	case cwacv1alpha1.PhaseComplete:
		out.ResultsDir = st.ResultsPath
		setVerdict(&out, st.Conditions)
	case cwacv1alpha1.PhaseFailed:
		out.ResultsDir = st.ResultsPath
		setFailure(&out, st.Failure)
		setVerdict(&out, st.Conditions)
	case cwacv1alpha1.PhaseRunning, cwacv1alpha1.PhasePending:
		if st.JobName != "" {
			tail, err := s.podLogTail(ctx, scan.Namespace, st.JobName)
			if err != nil {
				out.Notes = append(out.Notes, "CWAC's output is not available: "+err.Error())
			}
			out.StdoutTail = tail
		}
	}
	if !st.Phase.Finished() {
		s.setProgress(ctx, &out, call, scan)
	}
	return out, st.Phase.Finished(), nil
}

// setTimes fills the start and completion times and the time between them
// (or until now, while the scan runs). A scan not started yet counts from
// its creation.
func (s *Server) setTimes(out *StatusOutput, scan *cwacv1alpha1.CwacScan) {
	st := scan.Status
	start := scan.CreationTimestamp.Time
	if st.StartTime != nil {
		start = st.StartTime.Time
		out.StartTime = st.StartTime.UTC().Format(time.RFC3339)
	}
	end := s.now()
	if st.CompletionTime != nil {
		end = st.CompletionTime.Time
		out.CompletionTime = st.CompletionTime.UTC().Format(time.RFC3339)
	}
	out.ElapsedTime = formatElapsed(end.Sub(start))
}

// conditionReason is the reason worth telling: why the scan failed, what
// keeps its pod from starting, or that it waits in the queue.
func conditionReason(conds []metav1.Condition) string {
	reason := ""
	for _, c := range conds {
		problem := c.Status == metav1.ConditionTrue && (c.Type == cwacv1alpha1.ConditionFailed || c.Type == cwacv1alpha1.ConditionDegraded)
		queued := c.Type == cwacv1alpha1.ConditionStarted && c.Reason == cwacv1alpha1.ReasonQueued
		if problem || queued {
			reason = c.Reason
		}
	}
	return reason
}

// setFailure copies the failure detail the operator recorded; it is its own
// status field, so nothing is parsed out of the message.
func setFailure(out *StatusOutput, f *cwacv1alpha1.ScanFailure) {
	if f == nil {
		return
	}
	if f.Reason != "" {
		out.Reason = f.Reason
	}
	if out.ExitCode == nil {
		out.ExitCode = f.ExitCode
	}
	out.Cause = f.Cause
	out.Stderr = f.LogTail
}

// setProgress adds CWAC's own progress (progress.csv) while the scan runs,
// and passes it on as an MCP progress notification. A sharded scan's
// progress is its shards' added up.
func (s *Server) setProgress(ctx context.Context, out *StatusOutput, call *callInfo, scan *cwacv1alpha1.CwacScan) {
	var p results.Progress
	if n := shardTotal(scan); n > 1 {
		for i := range n {
			sp := s.progressIn(ctx, path.Join(scanspec.ScanDir(scan), scanpod.ShardDir(i)), scanspec.AuditName(scan))
			p.PagesDone += sp.PagesDone
			p.PagesEstimated += sp.PagesEstimated
		}
		if p.PagesEstimated > 0 {
			p.Percent = math.Round(1000*float64(p.PagesDone)/float64(p.PagesEstimated)) / 10
		}
	} else if scan.Status.ResultsPath != "" {
		p = s.progressIn(ctx, scan.Status.ResultsPath, scanspec.AuditName(scan))
	}
	if p.PagesEstimated == 0 && p.PagesDone == 0 {
		return
	}
	out.Progress = &Progress{PagesDone: p.PagesDone, PagesEstimated: p.PagesEstimated, Percent: p.Percent}
	msg := fmt.Sprintf("%d of about %d pages", p.PagesDone, p.PagesEstimated)
	if out.Shards != nil {
		msg += "; shards " + out.Shards.Summary
	}
	call.progress(float64(p.PagesDone), float64(p.PagesEstimated), msg)
}

// shardTotal is how many shards the scan runs as: status.shards.total once
// the operator has counted them, spec.shards until then.
func shardTotal(scan *cwacv1alpha1.CwacScan) int {
	if st := scan.Status.Shards; st != nil && st.Total > 0 {
		return min(int(st.Total), scanpod.MaxShards)
	}
	return min(scan.Spec.ShardCount(), scanpod.MaxShards)
}

// progressIn reads progress.csv of the newest CWAC results directory in
// dir (or dir itself, when it is one); zeros before CWAC has written it.
func (s *Server) progressIn(ctx context.Context, dir, auditName string) results.Progress {
	resolved, err := resolveResultsDir(ctx, s.access.tree, dir, auditName)
	if err != nil {
		return results.Progress{} // CWAC has not made its directory yet
	}
	fsys, closeFn, err := s.access.tree.sub(ctx, resolved)
	if err != nil {
		return results.Progress{}
	}
	defer closeFn()
	return results.ProgressOf(fsys)
}

// formatElapsed renders a duration as the original CWAC MCP server did:
// "2m 15s", "1h 0m 5s".
func formatElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	if d < 0 {
		d = 0
	}
	h, m, sec := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %dm %ds", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%dm %ds", m, sec)
	default:
		return fmt.Sprintf("%ds", sec)
	}
}

// setVerdict reports the ThresholdsMet condition of a finished scan.
func setVerdict(out *StatusOutput, conditions []metav1.Condition) {
	c := meta.FindStatusCondition(conditions, cwacv1alpha1.ConditionThresholdsMet)
	if c == nil {
		return
	}
	met := c.Status == metav1.ConditionTrue
	out.ThresholdsMet, out.Verdict = &met, c.Message
}

// setCompleteness reports the AllSitesComplete condition, which the
// operator sets when a scan completes.
func setCompleteness(out *StatusOutput, conditions []metav1.Condition) {
	c := meta.FindStatusCondition(conditions, cwacv1alpha1.ConditionAllSitesComplete)
	if c == nil {
		return
	}
	out.AllSitesComplete = &ConditionState{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
}

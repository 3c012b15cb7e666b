package scanpod

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/jsonlimit"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// DecisionsFile, in the scan's ConfigMap when any applied, holds the
// decisions of the scan's namespace that applied when the scan was made
// (DecisionsDocument): the runner leaves what they cover out of scores,
// totals and new issues, and marks it in the CI reports. The scan is
// judged by the decisions of its own time, so that a re-read of its
// results never changes its verdict.
const DecisionsFile = "decisions.json"

// DecisionsVersion is DecisionsFile's format.
const DecisionsVersion = 1

// Bounds of DecisionsFile: a ConfigMap holds at most 1 MiB, shared with
// the scan's other files.
const (
	// MaxDecisions is the most decisions one scan is given; a namespace
	// with more gives each scan its newest (the operator says so).
	MaxDecisions = 1000
	// MaxDecisionReasonBytes is as much of a decision's reason as the
	// scan pod is given: the CI reports' justification.
	MaxDecisionReasonBytes = 300
	// maxDecisionFieldBytes bounds every other text field (a rule, an
	// organisation, a URL prefix, a decider's name, a reference).
	maxDecisionFieldBytes = 2048
	// maxDecisionsBytes bounds the file: MaxDecisions of the largest
	// fields would not fit a ConfigMap, so the encoder stops short.
	maxDecisionsBytes = 512 << 10
)

// DecisionsDocument is DecisionsFile's content.
type DecisionsDocument struct {
	Version int `json:"version"`
	// At is the instant the decisions apply as of: when the operator gave
	// them to the scan. Every pod of the scan (each shard, the merge)
	// judges by it, so that a review date passing while the scan runs
	// changes nothing within it.
	At        time.Time     `json:"at"`
	Decisions []PodDecision `json:"decisions"`
}

// PodDecision is one decision as the scan pod is given it: the fields
// internal/decision applies, with the reason cut to MaxDecisionReasonBytes.
type PodDecision struct {
	Ref          string     `json:"ref"`
	Organisation string     `json:"organisation"`
	Kind         string     `json:"kind"`
	Reason       string     `json:"reason"`
	DecidedBy    string     `json:"decided_by,omitempty"`
	DecidedAt    time.Time  `json:"decided_at"`
	ReviewBy     *time.Time `json:"review_by,omitempty"`
	IssueID      string     `json:"issue_id,omitempty"`
	Element      string     `json:"element,omitempty"`
	Rule         string     `json:"rule,omitempty"`
	Pages        string     `json:"pages,omitempty"`
}

// EncodeDecisions writes the decisions for a scan of the namespace, to
// apply as of the instant at: the newest first (by DecidedAt) up to
// MaxDecisions, and within room bytes (the ConfigMap's space the scan's
// other files leave) and maxDecisionsBytes; it reports how many were left
// out.
func EncodeDecisions(decisions []decision.Decision, at time.Time, room int) (data []byte, left int, err error) {
	room = min(room, maxDecisionsBytes)
	sorted := slices.Clone(decisions)
	// Newest first: a scan given fewer than all keeps the latest judgements.
	slices.SortStableFunc(sorted, func(a, b decision.Decision) int { return b.DecidedAt.Compare(a.DecidedAt) })
	doc := DecisionsDocument{Version: DecisionsVersion, At: at.UTC(), Decisions: []PodDecision{}}
	size := 64
	for _, d := range sorted {
		p := podDecisionOf(d)
		one, err := json.Marshal(p)
		if err != nil {
			return nil, 0, fmt.Errorf("encoding decision %s: %w", d.Ref, err)
		}
		if len(doc.Decisions) == MaxDecisions || size+len(one)+1 > room {
			break
		}
		doc.Decisions = append(doc.Decisions, p)
		size += len(one) + 1
	}
	data, err = json.Marshal(doc)
	return data, len(decisions) - len(doc.Decisions), err
}

func podDecisionOf(d decision.Decision) PodDecision {
	p := PodDecision{Ref: d.Ref, Organisation: d.Organisation, Kind: string(d.Kind),
		Reason: textcap.HeadMarked(d.Reason, MaxDecisionReasonBytes, "…"), DecidedBy: d.DecidedBy, DecidedAt: d.DecidedAt.UTC(),
		Rule: d.Rule, Pages: d.Pages}
	if !d.ReviewBy.IsZero() {
		rb := d.ReviewBy.UTC()
		p.ReviewBy = &rb
	}
	if d.Issue != nil {
		p.IssueID, p.Element = d.Issue.ID.String(), fmt.Sprintf("%016x", d.Issue.Element)
	}
	return p
}

// decisionsLimits bound what decoding DecisionsFile may cost: the values
// of MaxDecisions decisions of twelve fields, no string longer than the
// longest field.
var decisionsLimits = jsonlimit.Limits{MaxDepth: 4, MaxValues: 8 + MaxDecisions*26, MaxString: maxDecisionFieldBytes + 16,
	MaxDecoded: 2 * maxDecisionsBytes}

// ReadDecisions reads DecisionsFile for namespace ns: every decision is
// checked (a kind of internal/decision's, an issue id and element that
// parse, an issue or a rule), and a file that is not this format is an
// error naming what is wrong, never a partial set. at is the instant they
// apply as of (DecisionsDocument.At).
func ReadDecisions(r io.Reader, ns string) (decisions []decision.Decision, at time.Time, err error) {
	var doc DecisionsDocument
	raw, err := io.ReadAll(io.LimitReader(jsonlimit.NewReader(r, decisionsLimits), maxDecisionsBytes+1))
	if err != nil {
		return nil, at, fmt.Errorf("%s: %w", DecisionsFile, err)
	}
	if len(raw) > maxDecisionsBytes {
		return nil, at, fmt.Errorf("%s: larger than %d bytes", DecisionsFile, maxDecisionsBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, at, fmt.Errorf("%s: %w", DecisionsFile, err)
	}
	if doc.Version != DecisionsVersion {
		return nil, at, fmt.Errorf("%s: version %d, want %d", DecisionsFile, doc.Version, DecisionsVersion)
	}
	if doc.At.IsZero() {
		return nil, at, fmt.Errorf("%s: no instant the decisions apply as of (at)", DecisionsFile)
	}
	if len(doc.Decisions) > MaxDecisions {
		return nil, at, fmt.Errorf("%s: %d decisions, at most %d", DecisionsFile, len(doc.Decisions), MaxDecisions)
	}
	out := make([]decision.Decision, 0, len(doc.Decisions))
	for i, p := range doc.Decisions {
		d, err := p.decision(ns)
		if err != nil {
			return nil, at, fmt.Errorf("%s: decision %d (%s): %w", DecisionsFile, i, textcap.Head(p.Ref, 128), err)
		}
		out = append(out, d)
	}
	return out, doc.At, nil
}

func (p PodDecision) decision(ns string) (decision.Decision, error) {
	d := decision.Decision{Ref: p.Ref, Namespace: ns, Organisation: p.Organisation, Kind: decision.Kind(p.Kind), Reason: p.Reason,
		DecidedBy: p.DecidedBy, DecidedAt: p.DecidedAt, Rule: p.Rule, Pages: p.Pages}
	if p.ReviewBy != nil {
		d.ReviewBy = *p.ReviewBy
	}
	known := false
	for _, k := range decision.Kinds {
		known = known || d.Kind == k
	}
	switch {
	case !known:
		return d, fmt.Errorf("kind %q", textcap.Head(p.Kind, 64))
	case (p.IssueID == "") == (p.Rule == ""):
		return d, errors.New("give an issue or a rule")
	case p.IssueID == "" && p.Element != "":
		return d, errors.New("an element without an issue")
	}
	if p.IssueID != "" {
		id, err := diff.ParseIssueID(p.IssueID)
		if err != nil {
			return d, err
		}
		el, err := strconv.ParseUint(p.Element, 16, 64)
		if err != nil || len(p.Element) != 16 {
			return d, fmt.Errorf("element %q: want 16 hexadecimal digits", textcap.Head(p.Element, 64))
		}
		d.Issue = &decision.Issue{ID: id, Element: el}
	}
	return d, nil
}

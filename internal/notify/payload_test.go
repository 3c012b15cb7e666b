package notify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/testutil/schema"
)

// payloadSchema is the published schema (docs/), which receivers code against.
func payloadSchema(t *testing.T) *jsonschema.Resolved {
	return schema.Load(t, "../../docs/notification-payload-v1.schema.json")
}

// everyEvent is a decision raising every event, with the scans behind it.
func everyEvent() (*cwacv1alpha1.CwacScan, Decision) {
	s := scan("s", complete, crossed, newIssues3, issues(50), unscanned("https://c.example/"), orgsIncomplete("Org C"))
	d := Decide(Input{Scan: s, Previous: scan("b", complete), Compared: scan("b", complete)})
	d.Events = append(d.Events, cwacv1alpha1.EventScanRecovered, cwacv1alpha1.EventThresholdsRecovered)
	return s, d
}

func TestPayloadsMatchSchema(t *testing.T) {
	payload := payloadSchema(t)
	s, d := everyEvent()
	r := receiver("ops", cwacv1alpha1.ReceiverWebhook, AllEvents...)
	for _, e := range AllEvents {
		if e == cwacv1alpha1.EventScanFailed {
			continue
		}
		for _, o := range []Options{{}, {DashboardURL: "https://dash.example/"}} {
			p, err := Build(s, d, r, e, o)
			if err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			body, err := Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(t, payload, body); err != nil {
				t.Errorf("%s payload fails the schema: %v\n%s", e, err, body)
			}
			if e == cwacv1alpha1.EventScanIncomplete && (len(p.Incomplete.Organisations) != 1 || p.Incomplete.Organisations[0].Verdict != "blocked" ||
				p.Incomplete.UnscannedBaseURLs[0] != "https://c.example/" || !strings.Contains(p.Title, "1 organisations not scanned completely")) {
				t.Errorf("incomplete facts %+v, title %q", p.Incomplete, p.Title)
			}
			if p.Title == "" || p.ID != "uid-s/ops/"+string(e) || p.SchemaVersion != SchemaVersion {
				t.Errorf("%s: title %q id %q version %q", e, p.Title, p.ID, p.SchemaVersion)
			}
		}
	}
	f := scan("f", failed)
	p, err := Build(f, Decide(Input{Scan: f}), r, cwacv1alpha1.EventScanFailed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := Marshal(p)
	if err := schema.Validate(t, payload, body); err != nil {
		t.Errorf("ScanFailed payload fails the schema: %v\n%s", err, body)
	}
	if p.Failure == nil || p.Failure.Reason != cwacv1alpha1.ReasonCWACExitedNonZero || p.Failure.Cause != "ValueError: boom" || *p.Failure.ExitCode != 1 {
		t.Errorf("failure facts %+v", p.Failure)
	}
	if !strings.Contains(p.Title, "team-a/f failed: CWACExitedNonZero") {
		t.Errorf("title %q", p.Title)
	}
}

// TestScoreDroppedPayloads: the payload names the organisations whose
// score fell by more than the receiver's threshold (at most MaxListed, and
// how many), and the title says whose score fell; every one passes the schema.
func TestScoreDroppedPayloads(t *testing.T) {
	payload := payloadSchema(t)
	many := make([][3]string, 25)
	for i := range many {
		many[i] = [3]string{fmt.Sprintf("Org %02d", i), "90.0", fmt.Sprintf("%d.0", 70-i)}
	}
	tests := []struct {
		name      string
		scan      *cwacv1alpha1.CwacScan // compared with 1 critical issue on 10 pages: 99.0
		gone      bool                   // the compared scan no longer exists
		threshold int32
		wantTitle string
		wantOrgs  []string
		wantCount int
	}{
		{name: "the scan's alone", scan: scan("s", complete, issues(20)), threshold: 5,
			wantTitle: "Scan team-a/s: score fell 19.0 points (99.0 to 80.0)"},
		{name: "one organisation's alone", threshold: 5,
			scan:      scan("s", complete, issues(1), orgDrops([3]string{"Org A", "90.0", "80.5"}, [3]string{"Org B", "90.0", "88.0"})),
			wantTitle: "Scan team-a/s: Org A's score fell 9.5 points (90.0 to 80.5)", wantOrgs: []string{"Org A"}, wantCount: 1},
		{name: "both", threshold: 5,
			scan:      scan("s", complete, issues(20), orgDrops([3]string{"Org A", "90.0", "80.5"}, [3]string{"Org B", "90.0", "83.0"})),
			wantTitle: "Scan team-a/s: score fell 19.0 points (99.0 to 80.0); 2 organisations' scores fell more than 5 points",
			wantOrgs:  []string{"Org A", "Org B"}, wantCount: 2},
		{name: "more than are listed", threshold: 1, scan: scan("s", complete, issues(1), orgDrops(many...)),
			wantTitle: "Scan team-a/s: 25 organisations' scores fell more than 1 points", wantCount: 25,
			wantOrgs: []string{"Org 00", "Org 01", "Org 02", "Org 03", "Org 04", "Org 05", "Org 06", "Org 07", "Org 08", "Org 09",
				"Org 10", "Org 11", "Org 12", "Org 13", "Org 14", "Org 15", "Org 16", "Org 17", "Org 18", "Org 19"}},
		// The baseline pruned after the runner compared with it: the
		// organisations' falls are in the scan's own status, the whole
		// scan's earlier score is not known, and the event is still sent.
		{name: "organisations' with the compared scan gone", gone: true, threshold: 5,
			scan:      scan("s", complete, issues(20), orgDrops([3]string{"Org A", "90.0", "80.5"})),
			wantTitle: "Scan team-a/s: Org A's score fell 9.5 points (90.0 to 80.5)", wantOrgs: []string{"Org A"}, wantCount: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := receiver("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScoreDropped)
			r.ScoreDrop = ptr.To(tt.threshold)
			in := Input{Scan: tt.scan, Compared: scan("b", complete, issues(1))}
			if tt.gone {
				in.Compared = nil
			}
			d := Decide(in)
			if plan := Plan(d, []cwacv1alpha1.NotificationReceiver{r}); len(plan) != 1 {
				t.Fatalf("plan %+v, want one ScoreDropped", plan)
			}
			p, err := Build(tt.scan, d, r, cwacv1alpha1.EventScoreDropped, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Title != tt.wantTitle {
				t.Errorf("title %q, want %q", p.Title, tt.wantTitle)
			}
			var orgs []string
			for _, o := range p.Score.Organisations {
				orgs = append(orgs, o.Organisation)
			}
			if !slices.Equal(orgs, tt.wantOrgs) || p.Score.OrganisationsDropped != tt.wantCount {
				t.Errorf("organisations %v (of %d), want %v (of %d)", orgs, p.Score.OrganisationsDropped, tt.wantOrgs, tt.wantCount)
			}
			if (p.Score.Previous == nil) != tt.gone {
				t.Errorf("whole-scan previous score %v, want it known unless the compared scan is gone", p.Score.Previous)
			}
			body, err := Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(t, payload, body); err != nil {
				t.Errorf("payload fails the schema: %v\n%s", err, body)
			}
		})
	}
}

// TestSchemaRefuses shows the validator is awake.
func TestSchemaRefuses(t *testing.T) {
	payload := payloadSchema(t)
	s, d := everyEvent()
	p, err := Build(s, d, receiver("ops", cwacv1alpha1.ReceiverWebhook, AllEvents...), cwacv1alpha1.EventNewIssues, Options{})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := json.Marshal(p)
	var doc map[string]any
	for name, change := range map[string]func(map[string]any){
		"unknown event":           func(m map[string]any) { m["event"] = "ScanExploded" },
		"other version":           func(m map[string]any) { m["schemaVersion"] = "v2" },
		"unknown field":           func(m map[string]any) { m["extra"] = 1 },
		"NewIssues without it":    func(m map[string]any) { delete(m, "newIssues") },
		"unknown impact":          func(m map[string]any) { m["summary"].(map[string]any)["issuesByImpact"] = map[string]any{"huge": 1} },
		"phase still running":     func(m map[string]any) { m["scan"].(map[string]any)["phase"] = "Running" },
		"no new issue not listed": func(m map[string]any) { m["newIssues"].(map[string]any)["newNotListed"] = 0 },
		"unknown impact of an organisation": func(m map[string]any) {
			m["newIssues"].(map[string]any)["byOrganisation"].([]any)[0].(map[string]any)["byImpact"] = map[string]any{"huge": 1}
		},
	} {
		_ = json.Unmarshal(good, &doc)
		change(doc)
		if err := payload.Validate(doc); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestNewIssuesByImpact: the NewIssues payload counts each organisation's
// new issues by axe-core's impact; an impact no axe-core rule has (a CSV
// cell can hold any word) is left out of every by-impact count, so the
// payload keeps to its schema.
func TestNewIssuesByImpact(t *testing.T) {
	s := scan("s", complete, newIssues3)
	s.Status.Summary.IssuesByImpact = map[string]int64{"serious": 4, "bogus": 9}
	s.Status.Summary.DecidedIssues = 2
	s.Status.Summary.Diff.NewByImpact = map[string]int64{"serious": 3, "critical": 0, "bogus": 2}
	s.Status.Summary.Diff.ByOrganisation = []cwacv1alpha1.OrganisationDiff{
		{Organisation: "Org A", New: 4, NewByImpact: map[string]int64{"serious": 2, "minor": 1, "bogus": 1}},
		{Organisation: "Org B", New: 1, NewByImpact: map[string]int64{"bogus": 1}},
		{Organisation: "Org C", New: 1},
	}
	p, err := Build(s, Decide(Input{Scan: s}), receiver("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventNewIssues), cwacv1alpha1.EventNewIssues, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &NewIssueFacts{Baseline: "base", Total: 3, ByImpact: map[string]int64{"serious": 3, "critical": 0}, Organisations: 3,
		ByOrganisation: []OrgNew{
			{Organisation: "Org A", New: 4, ByImpact: map[string]int64{"serious": 2, "minor": 1}},
			{Organisation: "Org B", New: 1},
			{Organisation: "Org C", New: 1},
		}}
	if diff := cmp.Diff(want, p.NewIssues); diff != "" {
		t.Errorf("new issues (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"serious": 4}, p.Summary.IssuesByImpact); diff != "" {
		t.Errorf("summary by impact (-want +got):\n%s", diff)
	}
	if p.Summary.DecidedIssues != 2 {
		t.Errorf("summary: %d decided issues, want the status's 2", p.Summary.DecidedIssues)
	}
	body, err := Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(t, payloadSchema(t), body); err != nil {
		t.Errorf("payload fails the schema: %v\n%s", err, body)
	}
	if lines := details(p); !slices.Contains(lines, "• Org A: 4 new (serious 2, minor 1)") {
		t.Errorf("chat lines %q", lines)
	}
}

// TestNewIssuesNotListed: when the scan's status lists only the
// organisations with most new issues, the payload says how many new issues
// the others have; when it lists every one (or more, as a status written
// by hand could), it says nothing of them.
func TestNewIssuesNotListed(t *testing.T) {
	for _, tt := range []struct {
		total, want int64
	}{{80, 30}, {51, 1}, {50, 0}, {40, 0}} {
		s := scan("s", complete, newIssues3)
		s.Status.Summary.Diff.New = tt.total
		s.Status.Summary.Diff.ByOrganisation = nil
		for i := range 10 {
			s.Status.Summary.Diff.ByOrganisation = append(s.Status.Summary.Diff.ByOrganisation,
				cwacv1alpha1.OrganisationDiff{Organisation: fmt.Sprint("Org ", i), New: 5})
		}
		s.Status.Summary.Diff.ByOrganisation = append(s.Status.Summary.Diff.ByOrganisation, cwacv1alpha1.OrganisationDiff{Organisation: "Fixed only", Fixed: 2})
		p, err := Build(s, Decide(Input{Scan: s}), receiver("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventNewIssues),
			cwacv1alpha1.EventNewIssues, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n := p.NewIssues; n.NewNotListed != tt.want || n.Organisations != 10 || n.Total != tt.total {
			t.Errorf("%d new, 50 of them listed: not listed %d (want %d), organisations %d, total %d", tt.total, n.NewNotListed, tt.want, n.Organisations, n.Total)
		}
		body, err := Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(t, payloadSchema(t), body); err != nil {
			t.Errorf("%d new: payload fails the schema: %v\n%s", tt.total, err, body)
		}
		if got := strings.Contains(string(body), `"newNotListed"`); got != (tt.want > 0) {
			t.Errorf("%d new: newNotListed in the body %v, want %v", tt.total, got, tt.want > 0)
		}
	}
}

func TestBuildRefusesUnknownEvent(t *testing.T) {
	s, d := everyEvent()
	_, err := Build(s, d, receiver("ops", cwacv1alpha1.ReceiverWebhook), "Exploded", Options{})
	if err == nil || !strings.Contains(err.Error(), `receiver "ops": unknown event "Exploded"`) || !strings.Contains(err.Error(), "ScanIncomplete") {
		t.Errorf("error %v", err)
	}
	_, _, err = Render(&Payload{Receiver: "ops"}, "pager", nil, time.Now())
	if err == nil || !strings.Contains(err.Error(), `receiver "ops": unknown type "pager"`) {
		t.Errorf("render error %v", err)
	}
}

// TestCaps: a scan of a thousand unscanned sites and organisations with
// new issues, and a cause of a megabyte, still makes bodies under the cap
// that every service takes, the lists cut with their totals kept.
func TestCaps(t *testing.T) {
	s := scan("s", complete, crossed, newIssues3)
	urls := make([]string, 0, 1000)
	s.Status.Summary.Diff.ByOrganisation = nil
	for i := range 1000 {
		urls = append(urls, fmt.Sprintf("https://site-%d.example/%s", i, strings.Repeat("p", 1500)))
		s.Status.Summary.Diff.ByOrganisation = append(s.Status.Summary.Diff.ByOrganisation,
			cwacv1alpha1.OrganisationDiff{Organisation: strings.Repeat("O", 300) + fmt.Sprint(i), New: 1})
	}
	s.Status.Summary.UnscannedBaseURLs = urls
	setCond(s, cwacv1alpha1.ConditionConnectionsBlocked, "True", cwacv1alpha1.ReasonBlockedByPolicy, strings.Repeat("b", 1<<20))
	d := Decide(Input{Scan: s})
	payload := payloadSchema(t)
	for _, e := range []ev{cwacv1alpha1.EventNewIssues, cwacv1alpha1.EventScanIncomplete, cwacv1alpha1.EventThresholdsCrossed} {
		p, err := Build(s, d, receiver("ops", cwacv1alpha1.ReceiverWebhook, e), e, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range []cwacv1alpha1.ReceiverType{cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.ReceiverSlack, cwacv1alpha1.ReceiverTeams} {
			body, _, err := Render(p, typ, []byte("k"), time.Now())
			if err != nil {
				t.Fatalf("%s %s: %v", e, typ, err)
			}
			if len(body) > MaxBody {
				t.Errorf("%s %s: %d bytes", e, typ, len(body))
			}
			if typ == cwacv1alpha1.ReceiverWebhook {
				if err := schema.Validate(t, payload, body); err != nil {
					t.Errorf("%s: capped payload fails the schema: %v", e, err)
				}
			}
		}
		switch e {
		case cwacv1alpha1.EventNewIssues:
			if len(p.NewIssues.ByOrganisation) != MaxListed || p.NewIssues.Organisations != 1000 {
				t.Errorf("organisations listed %d of %d", len(p.NewIssues.ByOrganisation), p.NewIssues.Organisations)
			}
		case cwacv1alpha1.EventScanIncomplete:
			if len(p.Incomplete.UnscannedBaseURLs) != MaxListed || p.Incomplete.UnscannedBaseURLsTotal != 1000 || len(p.Incomplete.Blocked) > MaxText {
				t.Errorf("incomplete: %d of %d, blocked %d bytes", len(p.Incomplete.UnscannedBaseURLs), p.Incomplete.UnscannedBaseURLsTotal, len(p.Incomplete.Blocked))
			}
		}
	}
	if _, err := Marshal(strings.Repeat("x", MaxBody)); err == nil || !strings.Contains(err.Error(), "exceeds the 65536-byte cap") {
		t.Errorf("oversized body: %v", err)
	}
}

func TestSlackAndTeams(t *testing.T) {
	s := scan("s", complete, newIssues3)
	s.Status.Summary.Diff.ByOrganisation[0].Organisation = "<!channel> & <https://evil.example|click>"
	d := Decide(Input{Scan: s})
	p, err := Build(s, d, receiver("chat", cwacv1alpha1.ReceiverSlack, cwacv1alpha1.EventNewIssues), cwacv1alpha1.EventNewIssues,
		Options{DashboardURL: "https://dash.example/"})
	if err != nil {
		t.Fatal(err)
	}
	body, h, err := Render(p, cwacv1alpha1.ReceiverSlack, []byte("ignored"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if h.Get(HeaderSignature) != "" {
		t.Error("a Slack body was signed")
	}
	var msg struct {
		Text   string
		Blocks []struct {
			Type     string
			Text     struct{ Type, Text string }
			Elements []struct{ Text string }
		}
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Blocks) != 3 || msg.Blocks[0].Type != "header" || msg.Blocks[1].Type != "section" || msg.Blocks[2].Type != "context" {
		t.Fatalf("blocks %+v", msg.Blocks)
	}
	sec := msg.Blocks[1].Text.Text
	if strings.Contains(sec, "<!channel>") || !strings.Contains(sec, "&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;: 3 new") {
		t.Errorf("organisation not escaped: %q", sec)
	}
	if !strings.Contains(sec, "New issues: 3 against base (serious 3)") || !strings.Contains(msg.Text, "3 new issues against base") {
		t.Errorf("section %q text %q", sec, msg.Text)
	}
	const scanPage = "https://dash.example/scans/team-a/s"
	wantLinks := "<" + scanPage + "/files/report.html|report> · <" + scanPage + "|scan> · <https://dash.example/|dashboard>"
	if ctx := msg.Blocks[2].Elements[0].Text; !strings.Contains(ctx, wantLinks) {
		t.Errorf("context %q", ctx)
	}

	body, _, err = Render(p, cwacv1alpha1.ReceiverTeams, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Type        string
		Attachments []struct {
			ContentType string
			Content     struct {
				Type, Version string
				Body          []map[string]any
				Actions       []struct{ Type, URL string }
			}
		}
	}
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatal(err)
	}
	if card.Type != "message" || len(card.Attachments) != 1 || card.Attachments[0].ContentType != "application/vnd.microsoft.card.adaptive" {
		t.Fatalf("teams message %s", body)
	}
	c := card.Attachments[0].Content
	if text := string(body); !strings.Contains(text, `\u003c`+"\u200b!channel") {
		t.Errorf("the organisation's angle brackets could read as an autolink in the card: %s", text)
	}
	if c.Type != "AdaptiveCard" || c.Version != "1.4" || len(c.Body) != 3 || c.Body[1]["type"] != "FactSet" ||
		len(c.Actions) != 3 || c.Actions[0].URL != scanPage+"/files/report.html" || c.Actions[1].URL != scanPage || c.Actions[2].URL != "https://dash.example/" {
		t.Errorf("card %+v", c)
	}
}

// An organisation's name or a base URL never becomes a Markdown link in a
// Teams card: the card's text reads "[text](url)" and "<scheme:...>" as
// links, and a scan's data chooses those texts.
func TestTeamsCardHoldsNoLinksFromScanData(t *testing.T) {
	s := scan("s", complete, newIssues3)
	const hostile = "[Sign in again](javascript:alert(document.domain)) <javascript:alert(1)> [x](https://phish.example/)"
	s.Status.Summary.Diff.ByOrganisation[0].Organisation = hostile
	d := Decide(Input{Scan: s})
	p, err := Build(s, d, receiver("chat", cwacv1alpha1.ReceiverTeams, cwacv1alpha1.EventNewIssues), cwacv1alpha1.EventNewIssues, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Title = hostile
	body, _, err := Render(p, cwacv1alpha1.ReceiverTeams, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Attachments []struct {
			Content struct{ Body []map[string]any }
		}
	}
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatal(err)
	}
	texts := 0
	for _, b := range card.Attachments[0].Content.Body {
		text, _ := b["text"].(string)
		if text == "" {
			continue
		}
		texts++
		if strings.Contains(text, "](") || strings.Contains(text, "<javascript") || !strings.Contains(text, "Sign in again") {
			t.Errorf("a TextBlock can read as a link: %q", text)
		}
	}
	if texts != 2 {
		t.Errorf("%d TextBlocks carry text, want the title and the details", texts)
	}
}

// Links go to the dashboard's pages of the scan; a scan that did not
// complete has no report to link; without the dashboard's URL there are no
// links at all.
func TestDashboardLinks(t *testing.T) {
	payload := payloadSchema(t)
	for _, tt := range []struct {
		name, dashboard string
		phase           cwacv1alpha1.Phase
		want            *Links
	}{
		{"completed", "https://a11y.example.org/dash/", cwacv1alpha1.PhaseComplete, &Links{Dashboard: "https://a11y.example.org/dash/",
			Scan: "https://a11y.example.org/dash/scans/team-a/s", Report: "https://a11y.example.org/dash/scans/team-a/s/files/report.html"}},
		{"failed", "https://a11y.example.org", cwacv1alpha1.PhaseFailed, &Links{Dashboard: "https://a11y.example.org",
			Scan: "https://a11y.example.org/scans/team-a/s"}},
		{"no dashboard", "", cwacv1alpha1.PhaseComplete, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := scan("s", complete)
			s.Status.Phase = tt.phase
			p, err := Build(s, Decide(Input{Scan: s}), receiver("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed),
				cwacv1alpha1.EventScanFailed, Options{DashboardURL: tt.dashboard})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.Links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
			body, err := Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(t, payload, body); err != nil {
				t.Errorf("payload fails the schema: %v\n%s", err, body)
			}
		})
	}
}

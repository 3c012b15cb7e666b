package notify

import (
	"fmt"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Keys the chat formats share.
const (
	keyText  = "text"
	keyTitle = "title"
	keyType  = "type"
)

// Chat services cap what they show; staying well inside keeps a message
// from being refused whole.
const (
	slackHeaderMax  = 150  // a header block's plain text
	slackSectionMax = 3000 // a section block's text
	teamsTextMax    = 4000
)

// details are the payload's figures as lines for people, shared by the
// Slack and Teams messages so both say the same.
func details(p *Payload) []string {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	if f := p.Failure; f != nil {
		add("Reason: %s", f.Reason)
		if f.ExitCode != nil {
			add("Exit code: %d", *f.ExitCode)
		}
		if f.Cause != "" {
			add("Cause: %s", f.Cause)
		}
	}
	if t := p.Thresholds; t != nil {
		for _, c := range t.Crossed {
			add("Crossed: %s", c)
		}
		for _, c := range t.PreviouslyCrossed {
			add("Previously crossed: %s", c)
		}
	}
	if n := p.NewIssues; n != nil {
		add("New issues: %d against %s%s", n.Total, n.Baseline, impacts(n.ByImpact))
		for _, o := range n.ByOrganisation {
			add("• %s: %d new%s", o.Organisation, o.New, impacts(o.ByImpact))
		}
		if more := n.Organisations - len(n.ByOrganisation); more > 0 {
			add("• and %d more organisations", more)
		}
		if n.NewNotListed > 0 {
			add("• and %d new issues in organisations not listed here (the report lists every one)", n.NewNotListed)
		}
	}
	if s := p.Score; s != nil {
		switch {
		case s.Previous == nil:
			add("Score: %.1f (the scan compared with is gone; organisations notified when they fall more than %d)", s.Current, s.Threshold)
		case s.Drop > 0:
			add("Score: %.1f → %.1f (fell %.1f; notified above %d)", *s.Previous, s.Current, s.Drop, s.Threshold)
		default:
			add("Score: %.1f → %.1f (organisations notified when they fall more than %d)", *s.Previous, s.Current, s.Threshold)
		}
		for _, o := range s.Organisations {
			add("• %s: %.1f → %.1f (fell %.1f)", o.Organisation, o.Previous, o.Current, o.Drop)
		}
		if more := s.OrganisationsDropped - len(s.Organisations); more > 0 {
			add("• and %d more organisations", more)
		}
	}
	if in := p.Incomplete; in != nil {
		for _, u := range in.UnscannedBaseURLs {
			add("Unscanned: %s", u)
		}
		if more := in.UnscannedBaseURLsTotal - len(in.UnscannedBaseURLs); more > 0 {
			add("and %d more unscanned sites", more)
		}
		for _, o := range in.Organisations {
			add("Not complete: %s (%s) %s", o.Organisation, o.Verdict, o.Reason)
		}
		if in.Blocked != "" {
			add("Blocked: %s", in.Blocked)
		}
		if in.ShardsFailed != "" {
			add("Shards failed: %s", in.ShardsFailed)
		}
	}
	if len(p.RoutedTo) > 0 {
		add("For: %s", strings.Join(p.RoutedTo, "; "))
	}
	for _, o := range p.Owners {
		add("Owners of %s: %s", o.Organisation, ownerList(o.Owners))
	}
	if s := p.Summary; s != nil {
		add("Issues: %d%s on %d pages", s.TotalIssues, impacts(s.IssuesByImpact), s.PagesScanned)
		if s.DecidedIssues > 0 {
			add("Decided: %d more a decision covers", s.DecidedIssues)
		}
	}
	return lines
}

// ownerList names owners for people: an address or a group, and the
// pages it answers for when not the whole organisation.
func ownerList(os []OwnerFacts) string {
	parts := make([]string, 0, len(os))
	for _, o := range os {
		who := o.Email
		if who == "" {
			who = "group " + o.Group
		}
		if o.Pages != "" {
			who += " (pages under " + o.Pages + ")"
		}
		parts = append(parts, who)
	}
	return strings.Join(parts, ", ")
}

func impacts(m map[string]int64) string {
	var parts []string
	for _, i := range results.Impacts() {
		if n, ok := m[i]; ok && n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", i, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// slackEscape escapes what Slack's mrkdwn reads as markup, so an
// organisation's name or a URL cannot become a link or a mention.
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Slack is the message a Slack incoming webhook takes: text (shown in
// notifications and where blocks are not) and blocks.
func Slack(p *Payload) map[string]any {
	context := fmt.Sprintf("%s · %s/%s · %s", p.Event, p.Scan.Namespace, p.Scan.Name, p.OccurredAt)
	body := strings.Join(details(p), "\n")
	blocks := []any{
		map[string]any{keyType: "header", keyText: map[string]any{keyType: "plain_text", keyText: textcap.Head(p.Title, slackHeaderMax)}},
	}
	if body != "" {
		section := map[string]any{keyType: "mrkdwn", keyText: textcap.Head(slackEscape.Replace(body), slackSectionMax)}
		blocks = append(blocks, map[string]any{keyType: "section", keyText: section})
	}
	context = slackEscape.Replace(context)
	for _, l := range links(p) {
		context += " · <" + slackEscape.Replace(l.url) + "|" + l.short + ">"
	}
	blocks = append(blocks, map[string]any{keyType: "context", "elements": []any{map[string]any{keyType: "mrkdwn", keyText: context}}})
	return map[string]any{keyText: slackEscape.Replace(textcap.Head(p.Title, slackSectionMax)), "blocks": blocks}
}

// teamsText keeps text from a scan's data (an organisation's name, a
// base URL) from becoming a link in an Adaptive Card, whose text reads a
// subset of Markdown: "[text](url)" and "<scheme:…>" are broken by an
// invisible zero-width space, so they show as written. Bare http(s) URLs,
// which Teams links by itself, are the only links a message can hold
// besides its own actions (weblink's rule).
var teamsText = strings.NewReplacer("](", "]\u200b(", "<", "<\u200b")

// Teams is the message a Microsoft Teams incoming webhook (or a Workflows
// "post to a channel when a webhook request is received" flow) takes: one
// Adaptive Card.
func Teams(p *Payload) map[string]any {
	fact := func(title, value string) any {
		return map[string]any{keyTitle: title, "value": teamsText.Replace(value)}
	}
	facts := []any{fact("Event", string(p.Event)), fact("Scan", p.Scan.Namespace+"/"+p.Scan.Name), fact("Finished", p.OccurredAt)}
	if p.Scan.ComparedWith != "" {
		facts = append(facts, fact("Compared with", p.Scan.ComparedWith))
	}
	body := []any{
		map[string]any{keyType: "TextBlock", keyText: textcap.Head(teamsText.Replace(p.Title), teamsTextMax), "weight": "Bolder", "size": "Medium", "wrap": true},
		map[string]any{keyType: "FactSet", "facts": facts},
	}
	if lines := details(p); len(lines) > 0 {
		// Adaptive Card text reads a subset of Markdown; lines become a list.
		body = append(body, map[string]any{keyType: "TextBlock", keyText: textcap.Head(teamsText.Replace(strings.Join(lines, "\n\n")), teamsTextMax), "wrap": true})
	}
	card := map[string]any{
		"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
		keyType:   "AdaptiveCard",
		"version": "1.4",
		"body":    body,
	}
	if ls := links(p); len(ls) > 0 {
		actions := make([]any, 0, len(ls))
		for _, l := range ls {
			actions = append(actions, map[string]any{keyType: "Action.OpenUrl", keyTitle: l.title, "url": l.url})
		}
		card["actions"] = actions
	}
	return map[string]any{
		keyType: "message",
		"attachments": []any{map[string]any{
			"contentType": "application/vnd.microsoft.card.adaptive",
			"content":     card,
		}},
	}
}

// link is one of a payload's links as a chat message shows it.
type link struct{ short, title, url string }

// links are the payload's links, the most specific first.
func links(p *Payload) []link {
	if p.Links == nil {
		return nil
	}
	var out []link
	for _, l := range []link{
		{"report", "Open the report", p.Links.Report},
		{"scan", "Open the scan", p.Links.Scan},
		{"dashboard", "Open the dashboard", p.Links.Dashboard},
	} {
		if l.url != "" {
			out = append(out, l)
		}
	}
	return out
}

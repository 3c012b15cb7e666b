package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AnnotationDecidedBy names the user who made or last changed a
// CwacIssueDecision. The chart's MutatingAdmissionPolicy sets it on every
// create and update to the request's own user, except on a request from
// the MCP server's service account, which decides on behalf of the person
// or agent signed in to it (the dashboard's form, the MCP tool) and says
// who that was here. A decision applies only while its decider may make it
// (condition Applied).
const AnnotationDecidedBy = "cwac.a11y.dev/decided-by"

// AnnotationDecidedByGroups are the decider's groups, one a line, recorded
// with AnnotationDecidedBy by the same policy (the request's own groups, or
// those the MCP server names): RBAC and grants may name groups.
const AnnotationDecidedByGroups = "cwac.a11y.dev/decided-by-groups"

// DecisionKind is what was decided about the findings.
// +kubebuilder:validation:Enum=FalsePositive;Accepted;WontFix
type DecisionKind string

const (
	// DecisionFalsePositive: the finding is not an accessibility barrier.
	DecisionFalsePositive DecisionKind = "FalsePositive"
	// DecisionAccepted: a real barrier, accepted until spec.reviewBy.
	DecisionAccepted DecisionKind = "Accepted"
	// DecisionWontFix: a real barrier that will not be fixed.
	DecisionWontFix DecisionKind = "WontFix"
)

// DecidedIssue is one issue by the product's issue identity, and the
// element it was decided about.
type DecidedIssue struct {
	// id is the issue's id: 32 lower-case hexadecimal digits, as the
	// dashboard, the MCP tools, diff.json and SARIF name it.
	// +required
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{32}$`
	ID string `json:"id"`
	// element is the hash of the element's HTML when the decision was made
	// (16 lower-case hexadecimal digits, as the dashboard and the MCP
	// tools give it). An issue keeps its id when its element is edited in
	// place; the decision then no longer covers it, so that a changed
	// element is looked at again.
	// +required
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{16}$`
	Element string `json:"element"`
}

// CwacIssueDecisionSpec is one decision about some findings of one
// organisation: one issue, or one rule on the pages under a URL prefix, or
// one rule on every page.
// +kubebuilder:validation:XValidation:rule="has(self.issue) != has(self.rule)",message="name either issue or rule: a decision covers one issue, or one rule (on the pages under pages)"
// +kubebuilder:validation:XValidation:rule="!has(self.pages) || has(self.rule)",message="pages narrows a rule decision: name the rule"
// +kubebuilder:validation:XValidation:rule="self.kind != 'Accepted' || has(self.reviewBy)",message="an Accepted decision needs reviewBy: when it is to be looked at again"
type CwacIssueDecisionSpec struct {
	// organisation is whose findings the decision is about, named exactly
	// as the scans' results name it (compared byte for byte).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1000
	Organisation string `json:"organisation"`

	// kind is FalsePositive, Accepted (until reviewBy) or WontFix.
	// +required
	Kind DecisionKind `json:"kind"`

	// reason says why, for whoever reviews the decision.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2000
	Reason string `json:"reason"`

	// reviewBy is when the decision stops covering anything: the findings
	// are open again until someone decides anew. Required for Accepted.
	// +optional
	ReviewBy *metav1.Time `json:"reviewBy,omitempty"`

	// issue is the one issue decided about.
	// +optional
	Issue *DecidedIssue `json:"issue,omitempty"`

	// rule is the rule decided about on every page of the organisation
	// (or those under pages): an axe rule id (color-contrast) or the name
	// of one of CWAC's own audits (focus_indicator_audit).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.-]+$`
	Rule string `json:"rule,omitempty"`

	// pages narrows a rule decision to the pages under this address: the
	// page itself and the pages below it at a path boundary
	// (https://example.govt.nz/news covers /news and /news/2026, never
	// /newsletter).
	// +optional
	Pages PagePrefix `json:"pages,omitempty"`
}

// PagePrefix is the address of a page that stands for it and the pages
// below it at a path boundary: https://example.govt.nz/news covers /news,
// /news/2026 and /news?page=2, never /newsletter.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=2048
// An OpenAPI pattern rather than a rule: sites may list owners with pages
// (1000 sites of 16 owners each), more than the API server's budget for
// rules allows.
// +kubebuilder:validation:Pattern=`^https?://[^/?#@ ]+([/?#].*)?$`
type PagePrefix string

// CwacIssueDecisionStatus says whether the decision applies.
type CwacIssueDecisionStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// decidedAt is when the operator first saw this generation of the
	// decision: when it was made or last changed.
	// +optional
	DecidedAt *metav1.Time `json:"decidedAt,omitempty"`
	// conditions: Applied is True while the decision covers findings, and
	// False with the reason when it does not (NotEntitled: its decider may
	// not decide for the organisation; Expired: past reviewBy).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cwacdecision,categories=all
// +kubebuilder:printcolumn:name="Organisation",type=string,JSONPath=`.spec.organisation`
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.kind`
// +kubebuilder:printcolumn:name="Rule",type=string,JSONPath=`.spec.rule`
// +kubebuilder:printcolumn:name="Issue",type=string,JSONPath=`.spec.issue.id`
// +kubebuilder:printcolumn:name="Review by",type=string,JSONPath=`.spec.reviewBy`
// +kubebuilder:printcolumn:name="Applied",type=string,JSONPath=`.status.conditions[?(@.type=="Applied")].status`

// CwacIssueDecision records a decision about findings of one organisation
// of the scans in its namespace: a false positive, accepted until a review
// date, or won't fix, with why. Decided findings leave scores, gates and
// new-issue notifications, and are marked in the CI reports and the
// history. Who may decide is Kubernetes RBAC on cwacissuedecisions, and,
// for a person who reads by CwacOrganisationGrant, only for the
// organisations their grants cover.
type CwacIssueDecision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the decision.
	// +required
	Spec CwacIssueDecisionSpec `json:"spec"`
	// status says whether it applies.
	// +optional
	Status CwacIssueDecisionStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CwacIssueDecisionList contains a list of CwacIssueDecision.
type CwacIssueDecisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CwacIssueDecision `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &CwacIssueDecision{}, &CwacIssueDecisionList{})
		return nil
	})
}

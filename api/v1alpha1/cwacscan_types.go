package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase is where a CwacScan is in its life. It only moves forward:
// Pending → Queued → Running → Complete | Failed.
// +kubebuilder:validation:Enum=Pending;Queued;Running;Complete;Failed
type Phase string

const (
	// PhasePending: accepted, no Job yet, or the Job's pod is not running yet.
	PhasePending Phase = "Pending"
	// PhaseQueued: waiting for a free slot under the operator's concurrency cap.
	PhaseQueued Phase = "Queued"
	// PhaseRunning: CWAC is running.
	PhaseRunning Phase = "Running"
	// PhaseComplete: CWAC finished and scanned at least one page.
	PhaseComplete Phase = "Complete"
	// PhaseFailed: the scan ended without usable results.
	PhaseFailed Phase = "Failed"
)

// Finished reports whether the phase is terminal; a finished scan is never run again.
func (p Phase) Finished() bool { return p == PhaseComplete || p == PhaseFailed }

// Site is one website to scan, with the grouping CWAC reports by.
type Site struct {
	// url is the base URL CWAC starts crawling from (http or https).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#@]+(/[^\s]*)?$`
	URL string `json:"url"`

	// organisation owns the site; CWAC groups results by it. Defaults to the URL's host.
	// It may not start with = + - @, nor have one follow a semicolon (it
	// reaches CSV files, where that would be a spreadsheet formula, also in
	// spreadsheets that split cells on semicolons), nor hold tabs or line breaks.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[^=+\-@\t\r\n][^\t\r\n]*$`
	// +kubebuilder:validation:XValidation:rule="!self.matches(';[ ]*[=+@-]')",message="may not have = + - @ after a semicolon: spreadsheets that split cells on semicolons would read a formula"
	Organisation string `json:"organisation,omitempty"`

	// sector is the organisation's sector; CWAC groups results by it. Defaults
	// to "unknown". The same character rules as organisation apply.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[^=+\-@\t\r\n][^\t\r\n]*$`
	// +kubebuilder:validation:XValidation:rule="!self.matches(';[ ]*[=+@-]')",message="may not have = + - @ after a semicolon: spreadsheets that split cells on semicolons would read a formula"
	Sector string `json:"sector,omitempty"`

	// owners answer for the organisation's findings on this site: they are
	// shown on its dashboard pages, and those with an email address receive
	// its digests (CwacDigest). The newest schedule or scan that names the
	// organisation says who its owners are.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Owners []Owner `json:"owners,omitempty"`
}

// Owner is a person, a mailbox or a group answerable for an organisation's
// findings, or for those on some of its pages.
//
// +kubebuilder:validation:XValidation:rule="has(self.email) != has(self.group)",message="give email or group, not both"
type Owner struct {
	// email is an address digests reach, such as web@agency.govt.nz.
	// +optional
	// +kubebuilder:validation:MaxLength=254
	// +kubebuilder:validation:Pattern=`^[^@\s<>()",;:\[\]]+@[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`
	Email string `json:"email,omitempty"`

	// group is a group as sign-in names it (a Kubernetes group, or the
	// OpenID Connect groups claim), shown as the owner.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[^\t\r\n]+$`
	Group string `json:"group,omitempty"`

	// pages, when set, is the URL prefix of the pages this owner answers
	// for (at a path boundary, as decisions' pages are); unset: the whole
	// organisation.
	// +optional
	Pages PagePrefix `json:"pages,omitempty"`
}

// Viewport is a browser window size CWAC renders each page at.
type Viewport struct {
	// width in CSS pixels.
	// +required
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=10000
	Width int32 `json:"width"`

	// height in CSS pixels.
	// +required
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=10000
	Height int32 `json:"height"`
}

// CwacScanSpec is what to scan and how. It is immutable: a new scan is a new object.
//
// +kubebuilder:validation:XValidation:rule="(has(self.urls) && size(self.urls) > 0) || (has(self.sites) && size(self.sites) > 0)",message="at least one URL is required: set spec.urls or spec.sites"
// +kubebuilder:validation:XValidation:rule="!has(self.shards) || self.shards <= (has(self.urls) ? size(self.urls) : 0) + (has(self.sites) ? size(self.sites) : 0)",message="may not exceed the number of sites (spec.urls plus spec.sites): each shard scans at least one site",fieldPath=".shards"
type CwacScanSpec struct {
	// urls are base URLs to scan (http or https); each is its own site with the
	// organisation set to its host and the sector "unknown". Use sites to set those.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=2048
	// +kubebuilder:validation:items:Pattern=`^https?://[^\s/?#@]+(/[^\s]*)?$`
	URLs []string `json:"urls,omitempty"`

	// sites are base URLs to scan with their organisation and sector.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	Sites []Site `json:"sites,omitempty"`

	// auditName names the audit in CWAC's results directory
	// (<timestamp>_<auditName>). CWAC's rule: 1-50 characters of A-Z a-z 0-9 _ . -
	// Defaults to the object's name (cut to 50 characters).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=50
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_.-]+$`
	AuditName string `json:"auditName,omitempty"`

	// plugins switches CWAC audit plugins on or off by name; plugins not listed
	// keep the CWAC image's default. Valid names: axe_core_audit, language_audit,
	// reflow_audit, title_audit, focus_indicator_audit, screenshot_audit, element_audit.
	// +optional
	// +kubebuilder:validation:MaxProperties=7
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['axe_core_audit', 'language_audit', 'reflow_audit', 'title_audit', 'focus_indicator_audit', 'screenshot_audit', 'element_audit'])",message="unknown plugin name; valid plugins are: axe_core_audit, language_audit, reflow_audit, title_audit, focus_indicator_audit, screenshot_audit, element_audit (html_validation, crawl_audit and seo_audit do not exist in CWAC)"
	Plugins map[string]bool `json:"plugins,omitempty"`

	// maxLinksPerDomain caps how many pages CWAC visits per site.
	// +optional
	// +kubebuilder:default=50
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	MaxLinksPerDomain int32 `json:"maxLinksPerDomain,omitempty"`

	// viewportSizes are the named viewports every page is rendered at, replacing
	// the image's defaults (small 320x450, medium 1280x800) when set. The reflow
	// audit tests the viewport its config names ("small" by default); when that
	// name is absent the narrowest viewport is tested.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=10
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[A-Za-z0-9_-]{1,32}$'))",message="viewport names must be 1-32 characters of A-Z a-z 0-9 _ -"
	ViewportSizes map[string]Viewport `json:"viewportSizes,omitempty"`

	// image overrides the operator's default CWAC image for this scan.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	Image string `json:"image,omitempty"`

	// timeout is the scan's hard deadline (the Job's activeDeadlineSeconds), a
	// Go duration from 1m to 24h such as 30m or 1h30m. The scan pod is stopped
	// when it passes, and the scan ends Failed with reason DeadlineExceeded.
	// +optional
	// +kubebuilder:default="1h"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1m') && duration(self) <= duration('24h')",message="must be a duration between 1m and 24h, such as 30m or 1h30m"
	Timeout string `json:"timeout,omitempty"`

	// threadCount is how many browsers CWAC runs in parallel. Each needs about
	// 0.45-0.8 GiB of memory; when resources is unset, the operator's default
	// memory request and limit are multiplied by threadCount.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	ThreadCount int32 `json:"threadCount,omitempty"`

	// resources of the CWAC container; the operator's defaults apply when unset.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// configOverrides are other CWAC config keys (see CWAC's config.schema.json),
	// deep-merged over the image's defaults after everything above. Keys the
	// operator sets from other fields or owns are refused (the scan ends Failed
	// with reason InvalidSpec before anything runs): audit_name,
	// max_links_per_domain, thread_count, viewport_sizes, base_urls_visit_path,
	// base_urls_nohead_path, and the CWAC image's browser,
	// chrome_binary_location and chrome_driver_location. Plugin settings go
	// under audit_plugins.<name>, except class_name. So are overrides past
	// these bounds, checked before anything else is done with the scan: 64
	// keys of at most 128 bytes; 64 KiB of keys and JSON in all; arrays and
	// objects nested at most 8 deep; 4096 values in all (object keys
	// count); strings and numbers of at most 4096 bytes.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	ConfigOverrides map[string]apiextensionsv1.JSON `json:"configOverrides,omitempty"`

	// ttlSecondsAfterFinished deletes the scan (with its Job, pod and
	// ConfigMap) this many seconds after it finished. Unset: kept until
	// deleted. Its results on the volume are not touched.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`

	// thresholds are pass/fail limits on the results, for CI: when the scan
	// finishes, the ThresholdsMet condition says whether it stayed within them.
	// +optional
	Thresholds *Thresholds `json:"thresholds,omitempty"`

	// baseline names an earlier CwacScan in the same namespace to compare
	// this scan's results with: when both have results, status.summary.diff
	// counts the issues that are new, fixed and unchanged, and diff.json next
	// to the results lists them. A schedule sets it to its previous Complete
	// scan. A baseline that is missing, unfinished or whose results are gone
	// is reported by the BaselineCompared condition; the scan still runs.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Baseline string `json:"baseline,omitempty"`

	// resultsPolicy says what happens to the scan's results directory on the
	// results volume when the CwacScan is deleted: Retain (the default) keeps
	// it; Delete removes it, by a short cleanup pod, before the CwacScan goes.
	// +optional
	// +kubebuilder:default=Retain
	ResultsPolicy ResultsPolicy `json:"resultsPolicy,omitempty"`

	// shards splits the scan's sites into this many parts, each scanned by
	// its own pod of one Indexed Job (as many at once as the operator's
	// concurrency cap allows), then merges their results into one CWAC
	// results directory that reads as one run over all the sites. An
	// organisation's sites stay in one shard unless it alone has more than
	// a shard's share. Unset means 1: one pod, no merge. Shards need a
	// results volume every node can mount (ReadWriteMany) unless all the
	// scan's pods run on one node.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	Shards int32 `json:"shards,omitempty"`

	// shardFailurePolicy says what a failed shard does to a sharded scan:
	// Fail (the default) stops the other shards and fails the scan with the
	// failed shard's reason; Partial lets the other shards finish, merges
	// their results and completes the scan with the ShardsFailed condition
	// naming the shards (and their sites) that failed. A scan whose shards
	// all fail fails either way.
	// +optional
	ShardFailurePolicy ShardFailurePolicy `json:"shardFailurePolicy,omitempty"`

	// notifications names receivers (a webhook, Slack or Microsoft Teams
	// incoming webhook, its URL in a Secret) and the events each is sent
	// once the scan has finished: transitions such as ScanFailed,
	// ThresholdsCrossed and their recoveries, NewIssues, ScoreDropped and
	// ScanIncomplete (docs/notifications.md). status.notifications records
	// each delivery; the scan's own result does not depend on them.
	// +optional
	Notifications *Notifications `json:"notifications,omitempty"`
}

// ShardFailurePolicy says whether a sharded scan completes without its failed shards.
// +kubebuilder:validation:Enum=Fail;Partial
type ShardFailurePolicy string

const (
	// ShardFailurePolicyFail fails the scan when any shard fails.
	ShardFailurePolicyFail ShardFailurePolicy = "Fail"
	// ShardFailurePolicyPartial completes the scan with the shards that succeeded.
	ShardFailurePolicyPartial ShardFailurePolicy = "Partial"
)

// ShardCount is the number of shards a scan runs as (spec.shards, 1 when unset).
func (s *CwacScanSpec) ShardCount() int {
	if s.Shards < 1 {
		return 1
	}
	return int(s.Shards)
}

// ResultsPolicy says whether a deleted scan's results are kept.
// +kubebuilder:validation:Enum=Retain;Delete
type ResultsPolicy string

const (
	// ResultsRetain keeps the results directory when the scan is deleted.
	ResultsRetain ResultsPolicy = "Retain"
	// ResultsDelete removes the results directory when the scan is deleted.
	ResultsDelete ResultsPolicy = "Delete"
)

// FinalizerDeleteResults holds a deleted scan with resultsPolicy Delete
// until its results directory has been emptied, or the cleanup gave up
// (the operator's --results-cleanup-timeout, 5 minutes by default).
const FinalizerDeleteResults = "cwac.a11y.dev/delete-results"

// AnnotationCancel, set to "true" on a CwacScan, stops it: a queued scan
// never starts, a running one has its Job deleted, and the scan ends Failed
// with reason Cancelled, keeping whatever results it wrote. The spec stays
// immutable; this annotation is the one way to change a scan's course.
const AnnotationCancel = "cwac.a11y.dev/cancel"

// Thresholds are limits a finished scan's results are judged against.
// Unset fields are not checked.
type Thresholds struct {
	// maxTotalIssues is the most issues (all audits) the scan may find.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxTotalIssues *int64 `json:"maxTotalIssues,omitempty"`
	// maxNewIssues is the most issues the scan may have that its baseline
	// did not (status.summary.diff.new). Needs spec.baseline; without a
	// usable baseline the threshold is reported as not checkable.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxNewIssues *int64 `json:"maxNewIssues,omitempty"`
	// maxIssuesByImpact is the most axe issues of each impact, e.g. {critical: 0}.
	// Keys: critical, serious, moderate, minor.
	// +optional
	// +kubebuilder:validation:MaxProperties=4
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['critical', 'serious', 'moderate', 'minor'])",message="impacts are critical, serious, moderate and minor"
	// +kubebuilder:validation:XValidation:rule="self.all(k, self[k] >= 0)",message="a maximum may not be negative"
	MaxIssuesByImpact map[string]int64 `json:"maxIssuesByImpact,omitempty"`
	// minPagesScanned is the fewest pages the scan must scan (a site that
	// quietly stopped answering shows here).
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinPagesScanned *int32 `json:"minPagesScanned,omitempty"`
	// requireComplete, when true, fails the gate unless every organisation
	// was scanned completely (status.summary.completeness): one that is
	// partial, blocked or unreachable is named with its reason, and a scan
	// whose completeness is not known does not pass.
	// +optional
	RequireComplete bool `json:"requireComplete,omitempty"`
}

// CwacScanStatus is the observed state of a scan; everything the operator
// knows about it lives here, so a restart loses nothing.
type CwacScanStatus struct {
	// phase is Pending, Queued, Running, Complete or Failed.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// conditions: Admitted, Started, Degraded, Complete, Failed, Finished,
	// AllSitesScanned, ThresholdsMet, BaselineCompared, ShardsFailed (see the
	// Condition* and Reason* constants).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// observedGeneration is the generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// jobName is the Job running the scan.
	// +optional
	JobName string `json:"jobName,omitempty"`
	// startTime is when the Job was created.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// completionTime is when the scan reached Complete or Failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// exitCode is CWAC's exit code.
	// +optional
	ExitCode *int32 `json:"exitCode,omitempty"`
	// message says, for people, what happened last (for a failure: why, in
	// one line; the details are in failure).
	// +optional
	Message string `json:"message,omitempty"`
	// failure says why a Failed scan failed: its reason, exit code, the line
	// naming the cause, and CWAC's error output.
	// +optional
	Failure *ScanFailure `json:"failure,omitempty"`
	// resultsPath is the scan's results directory relative to the results
	// volume's root: <namespace>/<name>-<uid prefix>/<CWAC's results dir>.
	// +optional
	ResultsPath string `json:"resultsPath,omitempty"`
	// summary is the compact result, set when the scan finishes.
	// +optional
	Summary *ScanSummary `json:"summary,omitempty"`
	// shards counts a sharded scan's shards by state (only when spec.shards > 1).
	// +optional
	Shards *ShardStatus `json:"shards,omitempty"`
	// notifications records the events the finished scan raised and their
	// delivery to each receiver of spec.notifications.
	// +optional
	Notifications *NotificationStatus `json:"notifications,omitempty"`
}

// ShardStatus counts the shards of a sharded scan, as its Indexed Job reports them.
type ShardStatus struct {
	// total is the number of shards (spec.shards).
	Total int32 `json:"total"`
	// running is the number of shards whose pod is running or starting.
	Running int32 `json:"running"`
	// succeeded is the number of shards that finished.
	Succeeded int32 `json:"succeeded"`
	// failed is the number of shards that failed.
	Failed int32 `json:"failed"`
	// failedIndexes lists the failed shards' indexes, as the Job writes
	// them ("1,3-5").
	// +optional
	FailedIndexes string `json:"failedIndexes,omitempty"`
	// merged is true once the shards' results have been merged into one
	// results directory (status.resultsPath).
	// +optional
	Merged bool `json:"merged,omitempty"`
}

// CwacScan is one accessibility scan of a set of websites by CWAC.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cwac,categories=all
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Pages",type=integer,JSONPath=`.status.summary.pagesScanned`
// +kubebuilder:printcolumn:name="Issues",type=integer,JSONPath=`.status.summary.totalIssues`
// +kubebuilder:printcolumn:name="Critical",type=integer,JSONPath=`.status.summary.issuesByImpact.critical`
// +kubebuilder:printcolumn:name="Shards",type=integer,JSONPath=`.status.shards.succeeded`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`,priority=1
// +kubebuilder:validation:XValidation:rule="self.spec == oldSelf.spec",message="spec is immutable: a scan is never re-run; create a new CwacScan instead"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.baseline) || self.spec.baseline != self.metadata.name",message="spec.baseline names the scan itself: a baseline is an earlier scan"
type CwacScan struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what to scan.
	// +required
	Spec CwacScanSpec `json:"spec"`
	// status is what happened.
	// +optional
	Status CwacScanStatus `json:"status,omitempty"`
}

// CwacScanList is a list of CwacScans.
//
// +kubebuilder:object:root=true
type CwacScanList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CwacScan `json:"items"`
}

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Labels and annotations a schedule puts on the scans it creates.
const (
	// LabelSchedule names the CwacScanSchedule that created a scan:
	// kubectl get cwacscans -l cwac.a11y.dev/schedule=<name>.
	LabelSchedule = "cwac.a11y.dev/schedule"
	// AnnotationScheduledTime is the tick a scan was created for (RFC 3339, UTC).
	AnnotationScheduledTime = "cwac.a11y.dev/scheduled-time"
)

// ConcurrencyPolicy says what a tick does while an earlier scan of the same
// schedule still runs.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// ConcurrencyAllow starts the new scan beside the running ones.
	ConcurrencyAllow ConcurrencyPolicy = "Allow"
	// ConcurrencyForbid skips the tick while a scan runs.
	ConcurrencyForbid ConcurrencyPolicy = "Forbid"
	// ConcurrencyReplace deletes the running scans (their Jobs go with
	// them), then starts the new one.
	ConcurrencyReplace ConcurrencyPolicy = "Replace"
)

// ScanTemplateMetadata is the metadata every scan of a schedule gets.
type ScanTemplateMetadata struct {
	// labels are copied onto every scan; the operator adds
	// cwac.a11y.dev/schedule=<schedule name>.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Labels map[string]string `json:"labels,omitempty"`
	// annotations are copied onto every scan; the operator adds
	// cwac.a11y.dev/scheduled-time.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Annotations map[string]string `json:"annotations,omitempty"`
}

// CwacScanTemplate is the scan a schedule creates at every tick.
type CwacScanTemplate struct {
	// metadata holds the labels and annotations of every scan.
	// +optional
	Metadata ScanTemplateMetadata `json:"metadata,omitempty"`
	// spec is every scan's spec, with the same fields, defaults and
	// validation as a CwacScan's. Unlike a scan's, it may be edited: an edit
	// applies to the scans of later ticks.
	// +required
	Spec CwacScanSpec `json:"spec"`
}

// CwacScanScheduleSpec is when to scan and what.
type CwacScanScheduleSpec struct {
	// schedule is when to scan, in cron syntax: five fields (minute hour
	// day-of-month month day-of-week, such as "0 2 * * *" for 02:00 daily or
	// "30 6 * * MON-FRI"), or one of @yearly, @annually, @monthly, @weekly,
	// @daily, @midnight, @hourly. Sunday is 0. A value of the right shape
	// that cannot be used (a field out of range such as "61 * * * *", a date
	// that never comes such as "0 0 31 2 *") sets ScheduleValid=False with
	// reason InvalidSchedule, and no scan is created.
	// +required
	Schedule CronSchedule `json:"schedule"`

	// timeZone is the IANA time zone the schedule is read in, such as
	// Pacific/Auckland; UTC when unset. Only the database's own names: each
	// part starts with a capital letter, and Local and localtime (the
	// host's zone) are refused. A name the time zone database does not know
	// sets ScheduleValid=False with reason InvalidTimeZone, and no scan is
	// created.
	// +optional
	TimeZone TimeZone `json:"timeZone,omitempty"`

	// scanTemplate is the scan to create at every tick.
	// +required
	ScanTemplate CwacScanTemplate `json:"scanTemplate"`

	// suspend stops new scans while true; running scans go on. Ticks that
	// pass while suspended count as missed (see startingDeadlineSeconds).
	// +optional
	// +kubebuilder:default=false
	Suspend bool `json:"suspend,omitempty"`

	// concurrencyPolicy says what a tick does while an earlier scan still
	// runs: Forbid (the default) skips the tick, Allow starts the new scan
	// beside it, Replace deletes the running scan — its Job and its record
	// go with it — and starts the new one.
	// +optional
	// +kubebuilder:default=Forbid
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// startingDeadlineSeconds is how late a scan may still start after its
	// tick (the operator was down, the schedule suspended, or Forbid held it
	// back). Ticks later than this are missed. Unset: no deadline; the most
	// recent missed tick starts however late, unless more than 100 ticks
	// were missed. Values under 10 risk missing ticks.
	// +optional
	// +kubebuilder:validation:Minimum=0
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// successfulScansHistoryLimit is how many Complete scans to keep; older
	// ones are deleted, with their Jobs.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	SuccessfulScansHistoryLimit *int32 `json:"successfulScansHistoryLimit,omitempty"`

	// failedScansHistoryLimit is how many Failed scans to keep; older ones
	// are deleted, with their Jobs.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	FailedScansHistoryLimit *int32 `json:"failedScansHistoryLimit,omitempty"`
}

// ScheduledScanResult is the headline of a schedule's most recent Complete
// scan that has a summary.
type ScheduledScanResult struct {
	// name is the scan's name.
	Name string `json:"name"`
	// scheduledTime is the tick the scan ran for.
	ScheduledTime metav1.Time `json:"scheduledTime"`
	// completionTime is when the scan finished.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// totalIssues counts every issue the scan found.
	TotalIssues int64 `json:"totalIssues"`
	// issuesByImpact maps axe impact (critical, serious, moderate, minor) to issues.
	// +optional
	IssuesByImpact map[string]int64 `json:"issuesByImpact,omitempty"`
	// pagesScanned is the number of pages the scan covered.
	PagesScanned int32 `json:"pagesScanned"`
	// urlsScanned is the number of distinct page URLs the scan's CWAC audited.
	UrlsScanned int32 `json:"urlsScanned"`
	// newIssues and fixedIssues compare the scan with its baseline (the
	// schedule's previous Complete scan), when it was compared.
	// +optional
	NewIssues *int64 `json:"newIssues,omitempty"`
	// +optional
	FixedIssues *int64 `json:"fixedIssues,omitempty"`
}

// CwacScanScheduleStatus is what the schedule has done.
type CwacScanScheduleStatus struct {
	// conditions: ScheduleValid and Ready (see the Condition* and Reason*
	// constants).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// observedGeneration is the generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// active are the schedule's scans that have not finished.
	// +optional
	// +listType=atomic
	Active []corev1.ObjectReference `json:"active,omitempty"`
	// lastScheduleTime is the last tick acted on: its scan was created, or
	// refused (Ready says why).
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// nextScheduleTime is the next tick, while the schedule is valid and
	// not suspended.
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`
	// lastScan is the name of the last scan created.
	// +optional
	LastScan string `json:"lastScan,omitempty"`
	// lastSuccessfulTime is when the most recent Complete scan finished.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
	// lastResult holds the figures of the most recent Complete scan.
	// +optional
	LastResult *ScheduledScanResult `json:"lastResult,omitempty"`
}

// CwacScanSchedule creates a CwacScan on a cron schedule, like a CronJob
// creates Jobs, and keeps a bounded history of them.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cwacsched,categories=all
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Time Zone",type=string,JSONPath=`.spec.timeZone`,priority=1
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Active",type=string,JSONPath=`.status.active[*].name`
// +kubebuilder:printcolumn:name="Last Scan",type=string,JSONPath=`.status.lastScan`
// +kubebuilder:printcolumn:name="Last Issues",type=integer,JSONPath=`.status.lastResult.totalIssues`
// +kubebuilder:printcolumn:name="New",type=integer,JSONPath=`.status.lastResult.newIssues`
// +kubebuilder:printcolumn:name="Fixed",type=integer,JSONPath=`.status.lastResult.fixedIssues`,priority=1
// +kubebuilder:printcolumn:name="Critical",type=integer,JSONPath=`.status.lastResult.issuesByImpact.critical`,priority=1
// +kubebuilder:printcolumn:name="Next",type=string,JSONPath=`.status.nextScheduleTime`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 52",message="metadata.name must be at most 52 characters: scan names add a dash and the tick in minutes"
type CwacScanSchedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is when to scan and what.
	// +required
	Spec CwacScanScheduleSpec `json:"spec"`
	// status is what the schedule has done.
	// +optional
	Status CwacScanScheduleStatus `json:"status,omitempty"`
}

// CwacScanScheduleList is a list of CwacScanSchedules.
//
// +kubebuilder:object:root=true
type CwacScanScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CwacScanSchedule `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &CwacScanSchedule{}, &CwacScanScheduleList{})
		return nil
	})
}

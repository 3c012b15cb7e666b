package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// MaxDigestRecipients bounds the addresses one CwacDigest mails in a
// period (and so the records of its status): every email owner of the
// organisations it covers.
const MaxDigestRecipients = 500

// CwacDigestSpec is when the owners of the namespace's organisations are
// mailed, and which organisations.
type CwacDigestSpec struct {
	// schedule is when digests are sent, in cron syntax (as a
	// CwacScanSchedule's schedule), such as "0 8 * * MON" for Mondays at
	// 08:00. Each digest covers the time since the previous tick (the first
	// one, the time since the CwacDigest was made). A value of the right
	// shape that cannot be used sets Sent=False with reason
	// InvalidSchedule, and nothing is sent.
	// +required
	Schedule CronSchedule `json:"schedule"`

	// timeZone is the IANA time zone the schedule is read in; UTC when unset.
	// +optional
	TimeZone TimeZone `json:"timeZone,omitempty"`

	// organisations limits the digests to these organisations of the
	// namespace (exactly as the scans name them); unset: every organisation
	// whose sites name an owner with an email address.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Organisations []string `json:"organisations,omitempty"`

	// suspend stops sending while true. Ticks that pass while suspended
	// are not made up.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// DigestPeriod is the span one round of digests covers: scans finished at
// or after from and before to (the schedule's tick).
type DigestPeriod struct {
	// from is the period's start (inclusive).
	// +required
	From metav1.Time `json:"from"`
	// to is the period's end (exclusive): the tick the digests were sent at.
	// +required
	To metav1.Time `json:"to"`
}

// DigestRecipient is one address's digest of the period.
type DigestRecipient struct {
	// email is the address.
	// +required
	// +kubebuilder:validation:MaxLength=254
	Email string `json:"email"`
	// sentAt is when the SMTP server accepted the digest; unset while it
	// has not.
	// +optional
	SentAt *metav1.Time `json:"sentAt,omitempty"`
	// attempts counts the tries that failed.
	// +optional
	Attempts int32 `json:"attempts,omitempty"`
	// lastError is why the last try failed.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	LastError string `json:"lastError,omitempty"`
	// nextAttemptAt is when a failed digest is tried again; unset once sent
	// or given up.
	// +optional
	NextAttemptAt *metav1.Time `json:"nextAttemptAt,omitempty"`
}

// CwacDigestStatus records what was sent for the current period, so that
// each owner receives one digest a period whichever MCP server replica
// sends it, and across restarts.
type CwacDigestStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// period is the newest period digests were sent (or are being sent) for.
	// +optional
	Period *DigestPeriod `json:"period,omitempty"`
	// recipients are the period's addresses and how their digest went.
	// +optional
	// +listType=map
	// +listMapKey=email
	// +kubebuilder:validation:MaxItems=500
	Recipients []DigestRecipient `json:"recipients,omitempty"`
	// nextDigestAt is the schedule's next tick.
	// +optional
	NextDigestAt *metav1.Time `json:"nextDigestAt,omitempty"`
	// conditions: Sent is True once every recipient of the period has its
	// digest, and False with the reason while not (Sending, Retrying,
	// Failed, NoRecipients, InvalidSchedule, NotConfigured, Suspended).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=cwacdigest,categories=all
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Period end",type=string,JSONPath=`.status.period.to`
// +kubebuilder:printcolumn:name="Sent",type=string,JSONPath=`.status.conditions[?(@.type=="Sent")].reason`
// +kubebuilder:printcolumn:name="Next",type=string,JSONPath=`.status.nextDigestAt`

// CwacDigest mails each owner of the namespace's organisations (the email
// owners their sites declare) one digest a period: what the period's scans
// found new, fixed and reopened, what to fix first, the issues open
// longest and the decisions due for review, linked to the dashboard. The
// release's MCP server sends it, through the SMTP server the chart
// configures, and records each address's digest in the status.
type CwacDigest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is when to send and for which organisations.
	// +required
	Spec CwacDigestSpec `json:"spec"`
	// status is what was sent for the current period.
	// +optional
	Status CwacDigestStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CwacDigestList is a list of CwacDigest.
type CwacDigestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CwacDigest `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &CwacDigest{}, &CwacDigestList{})
		return nil
	})
}

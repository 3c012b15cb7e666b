package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NotificationEvent names a change a finished scan can be reported for.
// Events are transitions against the scan before it (see
// docs/notifications.md), not a message for every scan.
// +kubebuilder:validation:Enum=ScanFailed;ScanRecovered;ThresholdsCrossed;ThresholdsRecovered;NewIssues;ScoreDropped;ScanIncomplete
type NotificationEvent string

const (
	// EventScanFailed: the scan failed and the scan before it did not.
	EventScanFailed NotificationEvent = "ScanFailed"
	// EventScanRecovered: the scan completed and the scan before it failed.
	EventScanRecovered NotificationEvent = "ScanRecovered"
	// EventThresholdsCrossed: the scan crosses spec.thresholds and the
	// scan it is compared with did not.
	EventThresholdsCrossed NotificationEvent = "ThresholdsCrossed"
	// EventThresholdsRecovered: the scan is back within spec.thresholds
	// after the scan it is compared with crossed them.
	EventThresholdsRecovered NotificationEvent = "ThresholdsRecovered"
	// EventNewIssues: the scan has issues its baseline did not have.
	EventNewIssues NotificationEvent = "NewIssues"
	// EventScoreDropped: the scan's score fell by more than the
	// receiver's scoreDrop against the scan it is compared with.
	EventScoreDropped NotificationEvent = "ScoreDropped"
	// EventScanIncomplete: the scan completed without some of its sites
	// (unscanned, blocked by the target policy, or in failed shards) that
	// the scan before it did not miss.
	EventScanIncomplete NotificationEvent = "ScanIncomplete"
)

// ReceiverType is the format a receiver is sent.
// +kubebuilder:validation:Enum=webhook;slack;teams
type ReceiverType string

const (
	// ReceiverWebhook gets the generic JSON payload, signed when hmacSecretRef is set.
	ReceiverWebhook ReceiverType = "webhook"
	// ReceiverSlack gets a Slack incoming-webhook message (text and blocks).
	ReceiverSlack ReceiverType = "slack"
	// ReceiverTeams gets a Microsoft Teams incoming-webhook message (an Adaptive Card).
	ReceiverTeams ReceiverType = "teams"
)

// SecretKeyRef names one key of a Secret in the scan's namespace.
type SecretKeyRef struct {
	// name is the Secret's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Name string `json:"name"`
	// key is the key within the Secret's data.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// NotificationReceiver is one place to send a finished scan's events to.
// +kubebuilder:validation:XValidation:rule="!has(self.hmacSecretRef) || self.type == 'webhook'",message="hmacSecretRef signs the generic JSON payload: it needs type webhook",fieldPath=".hmacSecretRef"
// +kubebuilder:validation:XValidation:rule="!has(self.scoreDrop) || self.events.exists(e, e == 'ScoreDropped')",message="scoreDrop applies to the ScoreDropped event: add it to events",fieldPath=".scoreDrop"
type NotificationReceiver struct {
	// name identifies the receiver in status, Events and the payload.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// type is the format sent: webhook (the generic JSON payload), slack
	// or teams (their incoming-webhook formats).
	// +required
	Type ReceiverType `json:"type"`
	// urlSecretRef names the Secret key holding the receiver's URL: an
	// incoming-webhook URL is a credential, so it is never in the spec. It
	// must be https unless the operator allows http receivers, and its
	// host must pass the operator's target policy when it is sent to.
	// +required
	URLSecretRef SecretKeyRef `json:"urlSecretRef"`
	// hmacSecretRef names the Secret key holding the key that signs a
	// webhook's body (the X-Cwac-Signature header; docs/notifications.md
	// says how to verify it). Only for type webhook.
	// +optional
	HMACSecretRef *SecretKeyRef `json:"hmacSecretRef,omitempty"`
	// events are the events this receiver is sent.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=7
	Events []NotificationEvent `json:"events"`
	// scoreDrop is how many points (of 100) the score must fall for
	// ScoreDropped; 5 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	ScoreDrop *int32 `json:"scoreDrop,omitempty"`
	// organisations, when set, routes the receiver only the news of these
	// organisations (as the scan's sites name them): NewIssues, ScoreDropped
	// and ScanIncomplete only when one of them has new issues, a fallen
	// score or newly missed pages, listing only theirs; the scan-wide
	// events (ScanFailed, ScanRecovered, Thresholds*) only when the scan
	// covers one of them. With owners, the receiver gets the organisations
	// of both.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Organisations []string `json:"organisations,omitempty"`
	// owners, when set, routes the receiver the news of the organisations
	// these owners answer for: each is an email address or a group as the
	// scan's spec.sites[].owners name them (addresses compared without
	// case), so a team's channel gets what the team owns. Routed as
	// organisations are.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Owners []string `json:"owners,omitempty"`
}

// DefaultScoreDrop is a receiver's scoreDrop when unset.
const DefaultScoreDrop = 5

// Notifications says where a finished scan's events are sent.
type Notifications struct {
	// receivers are where to send, at most 10, names unique.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	Receivers []NotificationReceiver `json:"receivers"`
}

// DeliveryState is where one event's delivery to one receiver stands.
// +kubebuilder:validation:Enum=Pending;Sent;Failed
type DeliveryState string

const (
	// DeliveryPending: not delivered yet; it is tried again.
	DeliveryPending DeliveryState = "Pending"
	// DeliverySent: the receiver answered 2xx.
	DeliverySent DeliveryState = "Sent"
	// DeliveryFailed: given up (the retry time passed, or the receiver's
	// URL is refused or malformed); lastError says why.
	DeliveryFailed DeliveryState = "Failed"
)

// NotificationDelivery is one event for one receiver.
type NotificationDelivery struct {
	// receiver is the receiver's name.
	Receiver string `json:"receiver"`
	// event is the event sent.
	Event NotificationEvent `json:"event"`
	// state is Pending, Sent or Failed.
	State DeliveryState `json:"state"`
	// attempts counts the tries made.
	// +optional
	Attempts int32 `json:"attempts,omitempty"`
	// firstAttemptTime is when it was first tried; retries stop a bounded
	// time after it.
	// +optional
	FirstAttemptTime *metav1.Time `json:"firstAttemptTime,omitempty"`
	// lastAttemptTime is when it was last tried.
	// +optional
	LastAttemptTime *metav1.Time `json:"lastAttemptTime,omitempty"`
	// sentTime is when the receiver accepted it.
	// +optional
	SentTime *metav1.Time `json:"sentTime,omitempty"`
	// lastError is why the last try failed (never a URL or a secret).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	LastError string `json:"lastError,omitempty"`
}

// NotificationStatus records what was decided and sent about a finished scan.
type NotificationStatus struct {
	// evaluatedTime is when the events were decided; they are decided once.
	EvaluatedTime metav1.Time `json:"evaluatedTime"`
	// comparedWith is the earlier scan the transitions were judged against
	// (the schedule's previous scan, or spec.baseline); empty when none.
	// +optional
	ComparedWith string `json:"comparedWith,omitempty"`
	// events are the events the scan raised, whoever subscribes to them.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=7
	Events []NotificationEvent `json:"events,omitempty"`
	// deliveries are the raised events' deliveries, one per receiver
	// subscribed to each.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=70
	Deliveries []NotificationDelivery `json:"deliveries,omitempty"`
}

// NotificationsPending reports whether the scan has receivers whose
// deliveries are not all settled: not decided yet, or some still Pending.
// The operator's cache keeps a finished scan's notifications only while
// this holds, and the notification controller works on no other scan.
func (s *CwacScan) NotificationsPending() bool {
	if s.Spec.Notifications == nil || len(s.Spec.Notifications.Receivers) == 0 {
		return false
	}
	n := s.Status.Notifications
	if n == nil {
		return true
	}
	for _, d := range n.Deliveries {
		if d.State == DeliveryPending {
			return true
		}
	}
	return false
}

// The NotificationsDelivered condition and its reasons.
const (
	// ConditionNotificationsDelivered is set on a finished scan with
	// spec.notifications: True (Delivered, or NothingToSend when no
	// subscribed event was raised); False while deliveries are retried
	// (Retrying) or when one was given up (DeliveryFailed, SecretNotFound,
	// SecretKeyMissing, ReceiverURLInvalid, ReceiverRefused). The message
	// names the receiver. The scan's own result does not depend on it.
	ConditionNotificationsDelivered = "NotificationsDelivered"
	// ReasonDelivered: every raised event reached its receivers.
	ReasonDelivered = "Delivered"
	// ReasonNothingToSend: no subscribed event was raised.
	ReasonNothingToSend = "NothingToSend"
	// ReasonRetrying: some deliveries failed and are tried again.
	ReasonRetrying = "Retrying"
	// ReasonDeliveryFailed: a receiver did not accept an event within the
	// retry time (also the Warning Event's reason).
	ReasonDeliveryFailed = "DeliveryFailed"
	// ReasonSecretNotFound: a receiver's Secret does not exist.
	ReasonSecretNotFound = "SecretNotFound"
	// ReasonSecretKeyMissing: a receiver's Secret lacks the named key, or it is empty.
	ReasonSecretKeyMissing = "SecretKeyMissing"
	// ReasonReceiverURLInvalid: a receiver's URL is malformed, or http
	// where the operator requires https.
	ReasonReceiverURLInvalid = "ReceiverURLInvalid"
	// ReasonReceiverRefused: a receiver's host is refused by the target
	// policy (loopback, private, metadata… unless the operator opens them).
	ReasonReceiverRefused = "ReceiverRefused"
)

package v1alpha1

// The condition types and reasons a CwacScan's status carries. Reasons are
// also the reasons of the Events the operator records for the same change,
// so a program can match on either. They are part of the API: clients (the
// MCP server, CI scripts using kubectl wait) read them.

// Condition types on a CwacScan.
const (
	// ConditionStarted is True once the scan's Job exists (reason JobCreated),
	// False while it waits under the concurrency cap (reason Queued).
	ConditionStarted = "Started"
	// ConditionDegraded is True while the scan pod cannot start for a reason
	// that may need someone's help (ImagePullBackOff, CreateContainerConfigError…).
	ConditionDegraded = "Degraded"
	// ConditionComplete is True when the scan ended with results (reason Succeeded).
	ConditionComplete = "Complete"
	// ConditionFailed is True when the scan ended without usable results; its
	// reason says why.
	ConditionFailed = "Failed"
	// ConditionAdmitted is True (reason URLsAllowed) once every URL passed the
	// scan-target policy; a refused URL fails the scan (Failed=True/PolicyDenied).
	ConditionAdmitted = "Admitted"
	// ConditionAllSitesScanned is False (reason SomeSitesUnscanned) when some
	// base URLs yielded no page, True when every one did.
	ConditionAllSitesScanned = "AllSitesScanned"
	// ConditionFinished is True once the scan is Complete or Failed (its
	// reason is Succeeded or the failure's), so that
	// `kubectl wait --for=condition=Finished` returns for either ending.
	ConditionFinished = "Finished"
	// ConditionThresholdsMet is set when the scan finishes: True (reason
	// WithinThresholds, or NoThresholds when spec.thresholds is unset), or
	// False (reason ThresholdsCrossed, naming each threshold with its figure;
	// or ScanFailed, when there are no results to judge).
	ConditionThresholdsMet = "ThresholdsMet"
	// ConditionBaselineCompared is set on a scan with spec.baseline when it
	// finishes: True (reason Compared) when status.summary.diff holds the
	// comparison; False when it could not be made (BaselineNotFound,
	// BaselineNotFinished, BaselineResultsMissing, DiffFailed, or ScanFailed
	// when the scan has no results). The scan's own result does not depend on it.
	ConditionBaselineCompared = "BaselineCompared"
	// ConditionShardsFailed is set on a sharded scan when it finishes: False
	// (reason AllShardsSucceeded) when every shard finished, True (reason
	// ShardsFailed) when spec.shardFailurePolicy Partial completed the scan
	// without some shards; the message names them and their sites.
	ConditionShardsFailed = "ShardsFailed"
	// ConditionConnectionsBlocked is set when the scan pod reports: True
	// (reason BlockedByPolicy) when its egress proxy refused connections
	// the scan-target policy refuses, whatever led there (a redirect, a
	// refresh, a script, an image, a name that resolved to a refused
	// address); the message names the first hosts and counts them all.
	// False (reason NoneBlocked) when it refused none. The scan's own
	// result does not depend on it.
	ConditionConnectionsBlocked = "ConnectionsBlocked"
	// ConditionAllSitesComplete is set when a scan completes: True (reason
	// AllOrganisationsComplete) when every organisation's sites were scanned
	// completely; False (reason OrganisationsIncomplete) when some were
	// partial, blocked or unreachable (the message names them, worst first,
	// with their reasons, and counts the rest); Unknown (reason
	// CompletenessUnknown) when the scan pod did not report completeness.
	// AllSitesScanned only says whether each base URL yielded a page; this
	// says whether what it yielded can be trusted (docs/completeness.md).
	ConditionAllSitesComplete = "AllSitesComplete"
)

// Reasons, used on conditions and as Event reasons.
const (
	// ReasonPending: the scan was accepted.
	ReasonPending = "Pending"
	// ReasonQueued: waiting for a free slot under the concurrency cap.
	ReasonQueued = "Queued"
	// ReasonJobCreated: the scan's ConfigMap and Job were created.
	ReasonJobCreated = "JobCreated"
	// ReasonRunning: the scan pod is running CWAC.
	ReasonRunning = "Running"
	// ReasonSucceeded: CWAC finished and scanned pages.
	ReasonSucceeded = "Succeeded"
	// ReasonAllSitesScanned: every base URL yielded at least one page.
	ReasonAllSitesScanned = "AllSitesScanned"
	// ReasonSomeSitesUnscanned: some base URLs yielded no page.
	ReasonSomeSitesUnscanned = "SomeSitesUnscanned"
	// ReasonAllOrganisationsComplete: every organisation's sites were
	// scanned completely (up to max_links_per_domain, with no refusal,
	// challenge page or error on the way).
	ReasonAllOrganisationsComplete = "AllOrganisationsComplete"
	// ReasonOrganisationsIncomplete: some organisations were partial
	// (pages refused, rate-limited, challenge pages, errors), blocked (a
	// firewall refused the base URL, or every page was a challenge) or
	// unreachable (no page at all).
	ReasonOrganisationsIncomplete = "OrganisationsIncomplete"
	// ReasonCompletenessUnknown: the scan pod's report carried no
	// completeness (an older runner, or cut to fit the termination message).
	ReasonCompletenessUnknown = "CompletenessUnknown"
	// ReasonPodHealthy: the scan pod shows no waiting problem.
	ReasonPodHealthy = "PodHealthy"

	// ReasonURLsAllowed: every URL passed the scan-target policy.
	ReasonURLsAllowed = "URLsAllowed"
	// ReasonPolicyDenied: a URL targets what the scan-target policy refuses
	// (the message names the URL and the rule); nothing runs.
	ReasonPolicyDenied = "PolicyDenied"
	// ReasonAdmissionTimedOut: checking the URLs against the scan-target
	// policy (name lookups, redirect probes) took longer than the operator's
	// per-scan budget; nothing runs.
	ReasonAdmissionTimedOut = "AdmissionTimedOut"
	// ReasonTooManyURLs: the scan has more base URLs than the operator allows.
	ReasonTooManyURLs = "TooManyURLs"
	// ReasonNoCWACDefaults: the scan would run a CWAC image declared without
	// CWAC's default config (config/config_default.json, which CWAC's own
	// Dockerfile leaves out) and the operator was given none; nothing runs.
	// The message names both fixes.
	ReasonNoCWACDefaults = "NoCWACDefaults"
	// ReasonImageNotAllowed: spec.image names an image the operator does
	// not run (its --allowed-images); nothing runs.
	ReasonImageNotAllowed = "ImageNotAllowed"
	// ReasonInvalidSpec: the spec cannot be turned into a CWAC run (user error, not retried).
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonDeadlineExceeded: the scan ran past spec.timeout.
	ReasonDeadlineExceeded = "DeadlineExceeded"
	// ReasonCWACExitedNonZero: CWAC exited with a non-zero code.
	ReasonCWACExitedNonZero = "CWACExitedNonZero"
	// ReasonNoPagesScanned: CWAC exited 0 but scanned no page.
	ReasonNoPagesScanned = "NoPagesScanned"
	// ReasonOOMKilled: the CWAC container ran out of memory.
	ReasonOOMKilled = "OOMKilled"
	// ReasonRunnerError: the runner could not prepare or start CWAC.
	ReasonRunnerError = "RunnerError"
	// ReasonResultsNotStored: the results bucket could not be used (not
	// reached, credentials refused, access denied, full, an upload cut off);
	// the message names the cause. The scan has no results to read.
	ReasonResultsNotStored = "ResultsNotStored"
	// ReasonImagePullBackOff: the CWAC or runner image cannot be pulled.
	ReasonImagePullBackOff = "ImagePullBackOff"
	// ReasonErrImagePull: the first pull of an image failed.
	ReasonErrImagePull = "ErrImagePull"
	// ReasonInvalidImageName: the image reference is malformed.
	ReasonInvalidImageName = "InvalidImageName"
	// ReasonCreateContainerConfigError: the pod's config cannot be applied.
	ReasonCreateContainerConfigError = "CreateContainerConfigError"
	// ReasonUnschedulable: no node can take the scan pod (for example, the
	// results PersistentVolumeClaim does not exist, or resources are short).
	ReasonUnschedulable = "Unschedulable"
	// ReasonJobDeleted: someone deleted the scan's Job before it finished.
	ReasonJobDeleted = "JobDeleted"
	// ReasonJobFailed: the Job failed for a reason not covered above.
	ReasonJobFailed = "JobFailed"
	// ReasonWithinThresholds: the scan's results are within spec.thresholds.
	ReasonWithinThresholds = "WithinThresholds"
	// ReasonNoThresholds: the scan sets no thresholds; nothing to cross.
	ReasonNoThresholds = "NoThresholds"
	// ReasonThresholdsCrossed: the results cross spec.thresholds (also the
	// reason of the Warning Event recorded then).
	ReasonThresholdsCrossed = "ThresholdsCrossed"
	// ReasonScanFailed: the scan failed, so there are no results to judge.
	ReasonScanFailed = "ScanFailed"
	// ReasonCancelled: the scan was cancelled (the cwac.a11y.dev/cancel
	// annotation, or the cwac_cancel_scan tool) before it finished.
	ReasonCancelled = "Cancelled"
	// ReasonCompared: the results were compared with spec.baseline's.
	ReasonCompared = "Compared"
	// ReasonBaselineNotFound: spec.baseline names no CwacScan in the namespace.
	ReasonBaselineNotFound = "BaselineNotFound"
	// ReasonBaselineNotFinished: spec.baseline has not completed (or failed)
	// when this scan starts, so there is nothing to compare with.
	ReasonBaselineNotFinished = "BaselineNotFinished"
	// ReasonBaselineResultsMissing: spec.baseline completed but its results
	// directory is gone from the results volume.
	ReasonBaselineResultsMissing = "BaselineResultsMissing"
	// ReasonDiffFailed: both results exist but comparing them failed (the
	// message says why).
	ReasonDiffFailed = "DiffFailed"
	// ReasonResultsDeleted (Event): a deleted scan's results directory was
	// emptied (spec.resultsPolicy Delete).
	ReasonResultsDeleted = "ResultsDeleted"
	// ReasonResultsCleanupFailed (Event): a deleted scan's results could not
	// be removed (the cleanup pod failed, or did not finish in time); the
	// scan was deleted anyway and the message says what remains.
	ReasonResultsCleanupFailed = "ResultsCleanupFailed"
	// ReasonJobConflict: a Job with the scan's name exists but belongs to something else.
	ReasonJobConflict = "JobConflict"
	// ReasonConfigMapConflict: a ConfigMap with the name of the scan's
	// ConfigMap exists but belongs to something else; it is left as it is
	// and the scan does not run.
	ReasonConfigMapConflict = "ConfigMapConflict"
	// ReasonMerging: every shard of a sharded scan ended and the merge pod
	// is merging their results.
	ReasonMerging = "Merging"
	// ReasonMergeFailed: the shards' results could not be merged (the merge
	// pod failed; the message says why). Each shard's results stay in its
	// own directory.
	ReasonMergeFailed = "MergeFailed"
	// ReasonShardsFailed: some shards of a sharded scan failed and
	// spec.shardFailurePolicy Partial completed it without them.
	ReasonShardsFailed = "ShardsFailed"
	// ReasonAllShardsSucceeded: every shard of a sharded scan finished.
	ReasonAllShardsSucceeded = "AllShardsSucceeded"
	// ReasonBlockedByPolicy: the scan pod's egress proxy refused
	// connections to what the scan-target policy refuses (also the reason
	// of the Warning Event recorded then).
	ReasonBlockedByPolicy = "BlockedByPolicy"
	// ReasonNoneBlocked: the scan pod's egress proxy refused no connection.
	ReasonNoneBlocked = "NoneBlocked"
	// ReasonHistoryRecorded (Event, from the MCP server): the finished
	// scan was recorded in the issue history (the note gives its
	// organisations and new, fixed and reopened issues).
	ReasonHistoryRecorded = "HistoryRecorded"
	// ReasonHistoryIngestFailed (Warning Event, from the MCP server): the
	// scan could not be recorded in the issue history (its results cannot
	// be read, or the store failed); the note says why and whether it is
	// retried. The scan itself is unaffected.
	ReasonHistoryIngestFailed = "HistoryIngestFailed"
	// ReasonHistoryOutOfOrder (Warning Event, from the MCP server): the
	// scan finished before a scan of one of its organisations already in
	// the issue history, so it is left out of it: recording it would
	// rewrite the transitions recorded since.
	ReasonHistoryOutOfOrder = "HistoryOutOfOrder"
)

// Condition types on a CwacScanSchedule.
const (
	// ConditionScheduleValid is True (reason ValidSchedule) when spec.schedule,
	// spec.timeZone and the scan template's metadata can be used; False with
	// InvalidSchedule, InvalidTimeZone or InvalidTemplate (the message names
	// the field) when not: no scan is created until the spec changes.
	ConditionScheduleValid = "ScheduleValid"
	// ConditionReady is True (reason Scheduled) while the schedule creates
	// scans at its ticks; False with Suspended, InvalidSchedule,
	// InvalidTimeZone, InvalidTemplate, TooManyMissedTicks, ScanRefused or
	// ScanConflict when it does not.
	ConditionReady = "Ready"
)

// Reasons on a CwacScanSchedule's conditions and Events.
const (
	// ReasonValidSchedule: the schedule, time zone and template metadata can be used.
	ReasonValidSchedule = "ValidSchedule"
	// ReasonInvalidSchedule: spec.schedule has the right shape but cannot be
	// used (a field out of range, a date that never comes).
	ReasonInvalidSchedule = "InvalidSchedule"
	// ReasonInvalidTimeZone: spec.timeZone is not in the IANA time zone database.
	ReasonInvalidTimeZone = "InvalidTimeZone"
	// ReasonInvalidTemplate: a label or annotation of spec.scanTemplate.metadata
	// is not valid Kubernetes metadata.
	ReasonInvalidTemplate = "InvalidTemplate"
	// ReasonScheduled: waiting for the next tick (the message says when).
	ReasonScheduled = "Scheduled"
	// ReasonSuspended: spec.suspend is true; no scan is created.
	ReasonSuspended = "Suspended"
	// ReasonTooManyMissedTicks: more than 100 ticks were missed (counted since
	// the last scheduled time, or within startingDeadlineSeconds); as for a
	// CronJob, nothing starts: set or lower spec.startingDeadlineSeconds, or
	// check the clocks.
	ReasonTooManyMissedTicks = "TooManyMissedTicks"
	// ReasonScanRefused: the API server refused the tick's scan (the message
	// says why); the next tick tries again.
	ReasonScanRefused = "ScanRefused"
	// ReasonScanConflict: a CwacScan with the tick's name exists and belongs
	// to something else; the tick is not run.
	ReasonScanConflict = "ScanConflict"
	// ReasonScanCreated (Event): a tick's scan was created.
	ReasonScanCreated = "ScanCreated"
	// ReasonTickSkipped (Event): a tick came while a scan still ran and
	// concurrencyPolicy is Forbid.
	ReasonTickSkipped = "TickSkipped"
	// ReasonScanReplaced (Event): a running scan was cancelled for a new tick
	// (concurrencyPolicy Replace).
	ReasonScanReplaced = "ScanReplaced"
	// ReasonMissedTick (Event): ticks passed more than startingDeadlineSeconds
	// ago without a scan; they are not run.
	ReasonMissedTick = "MissedTick"
	// ReasonScanPruned (Event): a finished scan beyond the history limits was deleted.
	ReasonScanPruned = "ScanPruned"
)

// Event reason on a CwacScan about its decisions.
const (
	// ReasonDecisionsLeftOut (Warning Event): some of the namespace's
	// applied decisions did not fit the scan's ConfigMap (the oldest), so
	// they do not apply to the scan.
	ReasonDecisionsLeftOut = "DecisionsLeftOut"
)

// Condition type on a CwacIssueDecision.
const (
	// ConditionApplied is True (reason Entitled) while the decision covers
	// findings, and False when it does not: NoDecider, NotEntitled or
	// Expired.
	ConditionApplied = "Applied"
)

// Reasons of a CwacIssueDecision's Applied condition, and of the Warning
// Events recorded when a decision stops applying.
const (
	// ReasonEntitled: its decider may decide for its organisation, and
	// reviewBy (if any) has not come.
	ReasonEntitled = "Entitled"
	// ReasonNoDecider: no decider is recorded (the chart's decided-by
	// admission policy is not installed, or the cluster does not serve
	// MutatingAdmissionPolicy).
	ReasonNoDecider = "NoDecider"
	// ReasonNotEntitled: its decider may not make decisions in the
	// namespace (RBAC create on cwacissuedecisions), or reads the
	// namespace by grants that do not cover its organisation.
	ReasonNotEntitled = "NotEntitled"
	// ReasonExpired: spec.reviewBy has come; the findings are open again
	// until someone decides anew.
	ReasonExpired = "Expired"
)

// Condition type on a CwacDigest.
const (
	// ConditionSent is True (reason Sent) once every recipient of the
	// current period has its digest, and False while not: Sending,
	// Retrying, SendFailed, NoRecipients, MailNotConfigured, Suspended,
	// InvalidSchedule or InvalidTimeZone (the schedule's reasons).
	ConditionSent = "Sent"
)

// Reasons of a CwacDigest's Sent condition, and of its Events. Retrying
// (ReasonRetrying, as notifications use it) says a digest the SMTP server
// did not accept is tried again with backoff.
const (
	// ReasonSent: every recipient of the period has its digest (also the
	// Event recorded for each digest sent).
	ReasonSent = "Sent"
	// ReasonSending: the period's digests are being sent.
	ReasonSending = "Sending"
	// ReasonSendFailed: a digest was not accepted after every attempt; it
	// is not tried again this period (also a Warning Event).
	ReasonSendFailed = "SendFailed"
	// ReasonNoRecipients: no organisation the digest covers has an owner
	// with an email address (owners are declared with the sites).
	ReasonNoRecipients = "NoRecipients"
	// ReasonMailNotConfigured: the release has no SMTP server (the chart's
	// digests.smtp settings); nothing is sent.
	ReasonMailNotConfigured = "MailNotConfigured"
)

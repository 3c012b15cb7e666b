package scanjob

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// AddDecisions gives the scan the decisions that apply in its namespace
// (scanpod.DecisionsFile), the newest first within the room the
// ConfigMap's other files leave under MaxConfigMapBytes, to apply as of
// the instant at (when the scan is made); it reports how
// many did not fit (the caller says so on the scan). With none, the
// ConfigMap is left as it is: a scan without decisions has no file.
func AddDecisions(cm *corev1.ConfigMap, decisions []decision.Decision, at time.Time) (left int, err error) {
	if len(decisions) == 0 {
		return 0, nil
	}
	used := 0
	for _, v := range cm.Data {
		used += len(v)
	}
	data, left, err := scanpod.EncodeDecisions(decisions, at, MaxConfigMapBytes-used)
	if err != nil {
		return 0, err
	}
	if left == len(decisions) {
		return left, nil
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[scanpod.DecisionsFile] = string(data)
	return left, nil
}

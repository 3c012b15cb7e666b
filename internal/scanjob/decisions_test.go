package scanjob

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/a11y-dev/cwac-operator/internal/decision"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

func TestAddDecisions(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	one := []decision.Decision{{Ref: "ns/alt", Organisation: "O", Kind: decision.WontFix, Reason: "r", Rule: "image-alt", DecidedAt: at}}

	cm := &corev1.ConfigMap{Data: map[string]string{scanpod.URLsFile: "x"}}
	if left, err := AddDecisions(cm, nil, at); err != nil || left != 0 || len(cm.Data) != 1 {
		t.Fatalf("no decisions: %d left, %v, data %v: want the ConfigMap unchanged", left, err, cm.Data)
	}
	if left, err := AddDecisions(cm, one, at); err != nil || left != 0 {
		t.Fatalf("one decision: %d left, %v", left, err)
	}
	got, gotAt, err := scanpod.ReadDecisions(strings.NewReader(cm.Data[scanpod.DecisionsFile]), "ns")
	if err != nil || len(got) != 1 || got[0].Rule != "image-alt" || !gotAt.Equal(at) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if cm.Data[scanpod.URLsFile] != "x" {
		t.Errorf("the ConfigMap's other files: %v, want them kept", cm.Data)
	}
	// A ConfigMap with no data yet gets the file.
	empty := &corev1.ConfigMap{}
	if left, err := AddDecisions(empty, one, at); err != nil || left != 0 || len(empty.Data) != 1 {
		t.Errorf("an empty ConfigMap: %d left, %v, data %v", left, err, empty.Data)
	}

	// A ConfigMap the other files fill: the decisions that fit, no more.
	full := &corev1.ConfigMap{Data: map[string]string{scanpod.URLsFile: strings.Repeat("u", MaxConfigMapBytes-3000)}}
	many := make([]decision.Decision, 0, 100)
	for i := range 100 {
		many = append(many, decision.Decision{Ref: "ns/d", Organisation: "O", Kind: decision.WontFix, Reason: strings.Repeat("r", 100),
			Rule: "image-alt", DecidedAt: at.Add(time.Duration(i) * time.Second)})
	}
	left, err := AddDecisions(full, many, at)
	size := 0
	for _, v := range full.Data {
		size += len(v)
	}
	if err != nil || left == 0 || left == 100 || size > MaxConfigMapBytes {
		t.Errorf("a full ConfigMap: %d left, %d bytes (limit %d), %v", left, size, MaxConfigMapBytes, err)
	}
	// No room at all: no file, every decision left out.
	none := &corev1.ConfigMap{Data: map[string]string{scanpod.URLsFile: strings.Repeat("u", MaxConfigMapBytes)}}
	if left, err := AddDecisions(none, many, at); err != nil || left != 100 {
		t.Errorf("no room: %d left, %v", left, err)
	}
	if _, ok := none.Data[scanpod.DecisionsFile]; ok {
		t.Error("no room, yet a decisions file")
	}
}

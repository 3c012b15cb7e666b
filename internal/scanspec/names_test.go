package scanspec

import (
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

const uid8 = "0f1e2d3c" // sampleScan's UID, dashes dropped, cut to 8

func sampleScan(name string, shards int32) *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "a11y", UID: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},
		Spec:       cwacv1alpha1.CwacScanSpec{Shards: shards},
	}
}

// A scan's name is cut for its Job's name only above MaxNamePart
// characters (48 when sharded, whose dots become dashes), with no dash or
// dot left at the cut; the pods' names follow the Job's.
func TestJobName(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name     string
		scanName string
		shards   int32
		want     string
	}{
		{"short", "nightly", 0, "nightly"},
		{"one below", a(MaxNamePart - 1), 0, a(MaxNamePart - 1)},
		{"at, ending in a dot, kept whole", a(MaxNamePart-1) + ".", 0, a(MaxNamePart-1) + "."},
		{"one above, cut", a(MaxNamePart + 1), 0, a(MaxNamePart)},
		{"one above, a dot at the cut trimmed", a(MaxNamePart-1) + ".b", 0, a(MaxNamePart - 1)},
		{"one above, dashes and dots at the cut trimmed", a(MaxNamePart-2) + "-.b", 0, a(MaxNamePart - 2)},
		{"one shard is unsharded: dots kept", "weekly.gov.nz", 1, "weekly.gov.nz"},
		{"sharded: dots become dashes", "weekly.gov.nz", 2, "weekly-gov-nz"},
		{"sharded, one below", a(47), 2, a(47)},
		{"sharded, at", a(48), 2, a(48)},
		{"sharded, one above, cut", a(49), 2, a(48)},
		{"sharded, one above, a dot at the cut trimmed", a(48) + ".b", 2, a(48)},
		{"sharded, the longest name", a(253), scanpod.MaxShards, a(48)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := sampleScan(tt.scanName, tt.shards)
			job := JobName(scan)
			if want := tt.want + "-" + uid8; job != want {
				t.Errorf("JobName(%q) = %q, want %q", tt.scanName, job, want)
			}
			if len(job) > validation.LabelValueMaxLength {
				t.Errorf("JobName(%q) has %d characters, more than a label value's 63", tt.scanName, len(job))
			}
			if got := MergePodName(scan); got != job+"-merge" {
				t.Errorf("MergePodName = %q, want %q", got, job+"-merge")
			}
			if got := CleanupPodName(scan); got != job+"-cleanup" {
				t.Errorf("CleanupPodName = %q, want %q", got, job+"-cleanup")
			}
			if tt.shards > 1 {
				// The highest index's hostname and the merge pod must be DNS labels.
				for _, name := range []string{job + "-" + strconv.Itoa(scanpod.MaxShards-1), MergePodName(scan)} {
					if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
						t.Errorf("%q is not a DNS label: %v", name, errs)
					}
				}
			}
		})
	}
}

// The UID's first 8 characters (dashes dropped) name a scan's objects and
// directory; a UID shorter than that (never from an API server) falls back
// to a hash of namespace and name, 8 hexadecimal digits too.
func TestUIDPrefixBoundary(t *testing.T) {
	tests := []struct {
		uid, want string
	}{
		{"abcdefghi", "abcdefgh"},
		{"abcdefgh", "abcdefgh"},
		{"abcd-efgh", "abcdefgh"},
		{"abcdefg", ""}, // 7: the hash
		{"", ""},
	}
	for _, tt := range tests {
		scan := sampleScan("nightly", 0)
		scan.UID = types.UID(tt.uid)
		got := uidPrefix(scan)
		if tt.want != "" && got != tt.want {
			t.Errorf("uidPrefix(%q) = %q, want %q", tt.uid, got, tt.want)
		}
		if tt.want == "" && (len(got) != 8 || strings.Trim(got, "0123456789abcdef") != "" || strings.HasPrefix(got, "abcdefg")) {
			t.Errorf("uidPrefix(%q) = %q, want 8 hexadecimal digits of the name's hash", tt.uid, got)
		}
		if dir := ScanDir(scan); dir != "a11y/nightly-"+got {
			t.Errorf("ScanDir with UID %q = %q, want a11y/nightly-%s", tt.uid, dir, got)
		}
	}
	// The hash is the namespace's and name's: another scan gets another.
	other := sampleScan("weekly", 0)
	other.UID, other.Namespace = "", "a11y"
	same := sampleScan("nightly", 0)
	same.UID = ""
	if uidPrefix(other) == uidPrefix(same) {
		t.Errorf("two scans without a UID share the prefix %q", uidPrefix(same))
	}
}

// The results directory keeps the whole name, however long: it is a path,
// not a label.
func TestScanDir(t *testing.T) {
	long := strings.Repeat("a", 60) + "-b"
	for name, want := range map[string]string{
		"nightly":       "a11y/nightly-" + uid8,
		long:            "a11y/" + long + "-" + uid8,
		"weekly.gov.nz": "a11y/weekly.gov.nz-" + uid8,
	} {
		if got := ScanDir(sampleScan(name, 2)); got != want {
			t.Errorf("ScanDir(%q) = %q, want %q", name, got, want)
		}
	}
}

// The scan's own audit name wins over the one derived from its name.
func TestAuditName(t *testing.T) {
	tests := []struct {
		scanName, spec, want string
	}{
		{"nightly", "", "nightly"},
		{"nightly", "Nightly_Run.2", "Nightly_Run.2"},
		{strings.Repeat("a", 60) + "-b", "", strings.Repeat("a", 50)}, // CWAC's 50 characters
	}
	for _, tt := range tests {
		scan := sampleScan(tt.scanName, 0)
		scan.Spec.AuditName = tt.spec
		if got := AuditName(scan); got != tt.want {
			t.Errorf("AuditName(%q, spec %q) = %q, want %q", tt.scanName, tt.spec, got, tt.want)
		}
	}
}

func TestScheduledScanName(t *testing.T) {
	tick := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC) // 29,921,880 minutes since 1970
	tests := []struct {
		schedule string
		tick     time.Time
		want     string
	}{
		{"nightly", tick, "nightly-29921880"},
		{"nightly", tick.In(time.FixedZone("NZDT", 13*3600)), "nightly-29921880"}, // an instant, whatever the zone
		{"nightly", tick.Add(59 * time.Second), "nightly-29921880"},
		{"nightly", tick.Add(time.Minute), "nightly-29921881"},
		{strings.Repeat("a", 50) + "-.b", tick, strings.Repeat("a", 50) + "-29921880"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := ScheduledScanName(tt.schedule, tt.tick)
			if got != tt.want {
				t.Errorf("ScheduledScanName = %q, want %q", got, tt.want)
			}
			if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
				t.Errorf("%q is not a DNS label: %v", got, errs)
			}
		})
	}
}

// A schedule name is cut only when longer than MaxNamePart, so its scans'
// names stay within a label value's 63 characters even at the largest tick
// of ten digits of minutes.
func TestScheduledScanNameLengthBoundary(t *testing.T) {
	tick := time.Unix(9_999_999_999*60, 0) // ten digits of minutes
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name, schedule, want string
	}{
		{"one below", a(MaxNamePart - 1), a(MaxNamePart - 1)},
		{"at", a(MaxNamePart), a(MaxNamePart)},
		{"at, ending in a dash, kept whole", a(MaxNamePart-1) + "-", a(MaxNamePart-1) + "-"},
		{"one above, cut", a(MaxNamePart + 1), a(MaxNamePart)},
		{"one above, a dash at the cut trimmed", a(MaxNamePart-1) + "-b", a(MaxNamePart - 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScheduledScanName(tt.schedule, tick)
			if want := tt.want + "-9999999999"; got != want {
				t.Errorf("ScheduledScanName = %q, want %q", got, want)
			}
			if len(got) > validation.LabelValueMaxLength {
				t.Errorf("ScheduledScanName is %d characters, more than a label value's 63", len(got))
			}
		})
	}
}

// A generated name's prefix is a DNS label's start for any audit name, cut
// to 40 characters (one below, at, one above) with no dash left at the cut.
func TestGenerateNamePrefix(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct{ audit, want string }{
		{"weekly", "weekly-"},
		{"Nightly_Run.2", "nightly-run-2-"},
		{"__Ā__b", "b-"},
		{"", "mcp-scan-"},
		{"___", "mcp-scan-"},
		{"ĀĀ", "mcp-scan-"},
		{a(39), a(39) + "-"},
		{a(40), a(40) + "-"},
		{a(41), a(40) + "-"},
		{a(39) + "_b", a(39) + "-"},
	}
	for _, tt := range tests {
		got := GenerateNamePrefix(tt.audit)
		if got != tt.want {
			t.Errorf("GenerateNamePrefix(%q) = %q, want %q", tt.audit, got, tt.want)
		}
		// The API server adds 5 characters; the name must be a DNS label within MaxNamePart.
		if name := got + "x1y2z"; len(name) > MaxNamePart || len(validation.IsDNS1123Label(name)) > 0 {
			t.Errorf("GenerateNamePrefix(%q) = %q: %q is not a DNS label of at most %d characters", tt.audit, got, name, MaxNamePart)
		}
	}
}

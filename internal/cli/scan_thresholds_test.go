package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// --require-complete is a threshold like the maxima: alone it makes
// spec.thresholds, and with them it joins them.
func TestBuildScanRequireComplete(t *testing.T) {
	urls := []string{"https://a.example/"}
	tests := []struct {
		name  string
		flags ScanFlags
		want  *cwacv1alpha1.Thresholds
	}{
		{"no threshold", ScanFlags{URLs: urls}, nil},
		{"require complete alone", ScanFlags{URLs: urls, RequireComplete: true}, &cwacv1alpha1.Thresholds{RequireComplete: true}},
		{"require complete with maxima", ScanFlags{URLs: urls, RequireComplete: true, MaxCritical: ptr(int64(0)), MaxTotal: ptr(int64(9))},
			&cwacv1alpha1.Thresholds{RequireComplete: true, MaxTotalIssues: ptr(int64(9)), MaxIssuesByImpact: map[string]int64{"critical": 0}}},
		{"maxima without it", ScanFlags{URLs: urls, MaxCritical: ptr(int64(0))},
			&cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"critical": 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan, err := BuildScan(tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, scan.Spec.Thresholds); diff != "" {
				t.Errorf("thresholds (-want +got):\n%s", diff)
			}
		})
	}
}

// An audit name is checked with CWAC's rule, which refuses the names of a
// directory itself.
func TestBuildScanAuditNameIsCWACs(t *testing.T) {
	for _, name := range []string{".", ".."} {
		_, err := BuildScan(ScanFlags{URLs: []string{"https://a.example/"}, AuditName: name})
		if err == nil || !strings.Contains(err.Error(), "--audit-name") || !strings.Contains(err.Error(), "relative directory name") {
			t.Errorf("audit name %q: error %v, want --audit-name refused as a relative directory name", name, err)
		}
	}
}

// A site's organisation and sector are bounded in characters, as the CRD's
// maxLength counts, so a name in te reo Māori with macrons is not refused
// for its bytes.
func TestSiteFieldLengthCountsCharacters(t *testing.T) {
	fits := strings.Repeat("ā", maxFieldLength) // 512 bytes
	if _, err := newSite("https://a.example/", fits, fits); err != nil {
		t.Errorf("%d two-byte characters refused: %v", maxFieldLength, err)
	}
	if _, err := newSite("https://a.example/", fits+"a", ""); err == nil || !strings.Contains(err.Error(), "organisation is longer than 256 characters") {
		t.Errorf("%d characters: error %v, want the organisation refused", maxFieldLength+1, err)
	}
}

func TestScanHelpNamesRequireComplete(t *testing.T) {
	var out bytes.Buffer
	o := &Options{Streams: genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out}}
	if code := Run(t.Context(), o, []string{"scan", "--help"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if !strings.Contains(out.String(), "--require-complete") ||
		!strings.Contains(out.String(), "threshold: every organisation scanned completely") {
		t.Errorf("help lacks --require-complete as a threshold:\n%s", out.String())
	}
}

// The flag reaches the CwacScan the plugin creates: a fake API server
// answers discovery and records the object posted to it.
func TestScanCommandRequireComplete(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want *cwacv1alpha1.Thresholds
	}{
		{"not given", nil, nil},
		{"given", []string{"--require-complete"}, &cwacv1alpha1.Thresholds{RequireComplete: true}},
		{"with --max-critical", []string{"--require-complete", "--max-critical", "0"},
			&cwacv1alpha1.Thresholds{RequireComplete: true, MaxIssuesByImpact: map[string]int64{"critical": 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newScanAPIServer(t)
			var out, errOut bytes.Buffer
			o := &Options{Streams: genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}}
			args := append([]string{"--kubeconfig", api.kubeconfig, "scan", "--name", "s1", "--url", "https://a.example/"}, tt.args...)
			if code := Run(t.Context(), o, args); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			created := api.created()
			if len(created) != 1 {
				t.Fatalf("%d scans created, want 1", len(created))
			}
			if diff := cmp.Diff(tt.want, created[0].Spec.Thresholds); diff != "" {
				t.Errorf("thresholds (-want +got):\n%s", diff)
			}
		})
	}
}

// scanAPIServer is as much of an API server as creating a CwacScan needs:
// discovery of the CwacScan resource, and a create that records the object.
type scanAPIServer struct {
	kubeconfig string
	mu         sync.Mutex
	scans      []cwacv1alpha1.CwacScan
}

func (a *scanAPIServer) created() []cwacv1alpha1.CwacScan {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.scans
}

func newScanAPIServer(t *testing.T) *scanAPIServer {
	t.Helper()
	a := &scanAPIServer{}
	gv := cwacv1alpha1.GroupVersion
	reply := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}})
	})
	mux.HandleFunc("GET /apis", func(w http.ResponseWriter, _ *http.Request) {
		version := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		reply(w, http.StatusOK, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups: []metav1.APIGroup{{Name: gv.Group, Versions: []metav1.GroupVersionForDiscovery{version}, PreferredVersion: version}}})
	})
	mux.HandleFunc("GET /apis/"+gv.Group+"/"+gv.Version, func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String(),
			APIResources: []metav1.APIResource{{Name: "cwacscans", SingularName: "cwacscan", Namespaced: true, Kind: "CwacScan",
				Verbs: metav1.Verbs{"create", "get", "list", "watch"}}}})
	})
	mux.HandleFunc("POST /apis/"+gv.Group+"/"+gv.Version+"/namespaces/{ns}/cwacscans", func(w http.ResponseWriter, r *http.Request) {
		var scan cwacv1alpha1.CwacScan
		if err := json.NewDecoder(r.Body).Decode(&scan); err != nil {
			reply(w, http.StatusBadRequest, metav1.Status{Status: metav1.StatusFailure, Message: err.Error()})
			return
		}
		a.mu.Lock()
		a.scans = append(a.scans, scan)
		a.mu.Unlock()
		reply(w, http.StatusCreated, scan)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	config := `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: ` + srv.URL + `
users:
- name: user
  user:
    token: test-token
contexts:
- name: fake
  context:
    cluster: fake
    user: user
    namespace: team-a
current-context: fake
`
	if err := os.WriteFile(a.kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return a
}

// A refusal of spec.thresholds.requireComplete names --require-complete,
// and every flag the refusals name is one the scan command has.
func TestScanFlagsTableNamesRealFlags(t *testing.T) {
	if got, want := flagOf("spec.thresholds.requireComplete"), "--require-complete (spec.thresholds.requireComplete)"; got != want {
		t.Errorf("flagOf(spec.thresholds.requireComplete) = %q, want %q", got, want)
	}
	flags := newScanCommand(&Options{}).Flags()
	for _, m := range scanFlags {
		for _, flag := range strings.Split(m.As, " or ") {
			if flags.Lookup(strings.TrimPrefix(flag, "--")) == nil {
				t.Errorf("%s is named %s, which the scan command does not have", m.Field, flag)
			}
		}
	}
}

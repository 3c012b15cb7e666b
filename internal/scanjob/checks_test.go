package scanjob

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
)

func scanWithOverrides(o map[string]string) *cwacv1alpha1.CwacScan {
	scan := &cwacv1alpha1.CwacScan{Spec: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://a.example/"}}}
	scan.Name = "s"
	if o != nil {
		scan.Spec.ConfigOverrides = map[string]apiextensionsv1.JSON{}
		for k, v := range o {
			scan.Spec.ConfigOverrides[k] = apiextensionsv1.JSON{Raw: []byte(v)}
		}
	}
	return scan
}

// Admission's check and the ConfigMap both name the field as the spec
// spells it, and both refuse before rendering.
func TestCheckConfigOverrides(t *testing.T) {
	tests := []struct {
		name      string
		overrides map[string]string
		want      string
	}{
		{"none", nil, ""},
		{"allowed", map[string]string{"only_allow_https": "false", "audit_plugins": `{"axe_core_audit":{"best-practice":true}}`}, ""},
		{"too deep", map[string]string{"filter_to_urls": strings.Repeat("[", 9900) + strings.Repeat("]", 9900)},
			"spec.configOverrides.filter_to_urls: arrays and objects nest deeper than the limit of 8 levels"},
		{"a driver path", map[string]string{"chrome_driver_location": `"/bin/sh"`}, "spec.configOverrides.chrome_driver_location: set by the operator"},
		{"a plugin class", map[string]string{"audit_plugins": `{"title_audit":{"class_name":"X"}}`},
			"spec.configOverrides.audit_plugins.title_audit.class_name: set by the operator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := scanWithOverrides(tt.overrides)
			err := CheckConfigOverrides(scan)
			_, cmErr := ConfigMap(scan, Options{})
			if tt.want == "" {
				if err != nil || cmErr != nil {
					t.Fatalf("refused: %v / %v", err, cmErr)
				}
				return
			}
			for _, e := range []error{err, cmErr} {
				var invalid *InvalidSpecError
				if !errors.As(e, &invalid) || !strings.HasPrefix(e.Error(), tt.want) {
					t.Errorf("err = %v, want an *InvalidSpecError starting %q", e, tt.want)
				}
			}
		})
	}
	// Errors of other kinds are passed on as they are.
	plain := errors.New("plain")
	if specError(plain) != plain || !strings.HasPrefix(specError(&cwacconfig.OverridesError{Key: "k", Err: plain}).Error(), "spec.configOverrides.k") {
		t.Error("specError changed an error that is not about the overrides, or did not name the field")
	}
}

func TestParseAllowedImages(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"", []string{}, ""},
		{" , ", []string{}, ""},
		{"registry.example/cwac:1, registry.example/team/*", []string{"registry.example/cwac:1", "registry.example/team/*"}, ""},
		{"*", []string{"*"}, ""},
		{"registry.example/*/cwac", nil, "* may only end an entry"},
		{"**", nil, "* may only end an entry"},
		{"a\tb", nil, "has white space"},
	}
	for _, tt := range tests {
		got, err := ParseAllowedImages(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got == nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestCheckImage(t *testing.T) {
	const def = "registry.example/cwac:1.0"
	tests := []struct {
		name    string
		allowed []string
		image   string
		ok      bool
	}{
		{"no list: every image (tests only)", nil, "evil.example/x:1", true},
		{"empty list: the default image", []string{}, "", true},
		{"empty list: the default image named", []string{}, def, true},
		{"empty list: the default image spelt otherwise", []string{}, "registry.example/cwac:1.0", true},
		{"empty list: another image", []string{}, "registry.example/cwac:2.0", false},
		{"an exact entry", []string{"registry.example/cwac:2.0"}, "registry.example/cwac:2.0", true},
		{"an exact entry, spelt otherwise", []string{"docker.io/library/cwac:2"}, "cwac:2", true},
		{"an exact entry is not a prefix", []string{"registry.example/cwac"}, "registry.example/cwac-evil:latest", false},
		{"no tag is latest", []string{"cwac"}, "cwac:latest", true},
		{"a prefix", []string{"registry.example/cwac:*"}, "registry.example/cwac:2.0", true},
		{"a prefix does not match another repository", []string{"registry.example/cwac:*"}, "registry.example/cwac-evil:1", false},
		{"a digest prefix", []string{"registry.example/cwac@sha256:*"}, "registry.example/cwac@sha256:" + strings.Repeat("a", 64), true},
		{"any", []string{AnyImage}, "evil.example/x:1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan := scanWithOverrides(nil)
			scan.Spec.Image = tt.image
			err := CheckImage(scan, Options{DefaultImage: def, AllowedImages: tt.allowed})
			if (err == nil) != tt.ok {
				t.Fatalf("CheckImage(%q, allowed %q) = %v, want allowed %v", tt.image, tt.allowed, err, tt.ok)
			}
			if err != nil && (!strings.HasPrefix(err.Error(), "spec.image "+tt.image+" is not an image this operator runs (allowed: "+def) ||
				!strings.Contains(err.Error(), "--allowed-images")) {
				t.Errorf("refusal %q does not name the field, the image, the allowed images and the setting", err)
			}
		})
	}
	// The allowed images a refusal lists are capped.
	long := []string{strings.Repeat("r", 600) + "/x:1"}
	scan := scanWithOverrides(nil)
	scan.Spec.Image = "other:1"
	if err := CheckImage(scan, Options{DefaultImage: def, AllowedImages: long}); err == nil || len(err.Error()) > 512+400 {
		t.Errorf("refusal with a long list: %d bytes", len(err.Error()))
	}
}

// Package v1alpha1 contains the CwacScan API: one accessibility scan of a set
// of websites by CWAC (the Centralised Web Accessibility Checker), run by the
// operator as a Kubernetes Job.
//
// +kubebuilder:object:generate=true
// +groupName=cwac.a11y.dev
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of the CwacScan API.
	GroupVersion = schema.GroupVersion{Group: "cwac.a11y.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the API's types with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the API's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers CwacScan and CwacScanList under GroupVersion, with
// the meta/v1 types (ListOptions, DeleteOptions, WatchEvent…) every API
// group version needs.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &CwacScan{}, &CwacScanList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}

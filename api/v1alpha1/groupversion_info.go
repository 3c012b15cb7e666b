// Package v1alpha1 contains the CwacScan API: one accessibility scan of a set
// of websites by CWAC (the Centralised Web Accessibility Checker), run by the
// operator as a Kubernetes Job.
//
// +kubebuilder:object:generate=true
// +groupName=cwac.a11y.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the CwacScan API.
	GroupVersion = schema.GroupVersion{Group: "cwac.a11y.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the API's types with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the API's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

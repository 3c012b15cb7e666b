package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AnnotationGrantChangedBy names the user who last created or changed a
// CwacOrganisationGrant. The chart's MutatingAdmissionPolicy sets it on
// every create and update from the request's own user (so a value written
// by hand is replaced), and the MCP server's record of grant changes reads
// it.
const AnnotationGrantChangedBy = "cwac.a11y.dev/changed-by"

// GrantSubjectKind says whether a grant's subject names a user or a group.
// +kubebuilder:validation:Enum=User;Group
type GrantSubjectKind string

const (
	// GrantSubjectUser names one user.
	GrantSubjectUser GrantSubjectKind = "User"
	// GrantSubjectGroup names every member of a group.
	GrantSubjectGroup GrantSubjectKind = "Group"
)

// GrantSubject is a user or group a grant is for, named as the Kubernetes
// API server names them (a token's user and groups, such as
// system:serviceaccount:agencies:web-team) or as the dashboard's sign-in
// maps an OpenID Connect provider's claims (its username and groups
// claims, with their prefixes).
type GrantSubject struct {
	// kind is User or Group.
	// +required
	Kind GrantSubjectKind `json:"kind"`
	// name is the user's or the group's name, exactly as it is
	// authenticated (compared byte for byte).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`
}

// OtherOrganisationNames says how a grant's holders see the organisations
// of a ranking that their grants do not cover.
// +kubebuilder:validation:Enum=Hidden;Shown
type OtherOrganisationNames string

const (
	// OtherNamesHidden shows other organisations' places and scores
	// without their names.
	OtherNamesHidden OtherOrganisationNames = "Hidden"
	// OtherNamesShown shows other organisations' names beside their
	// places and scores (never their pages or issues).
	OtherNamesShown OtherOrganisationNames = "Shown"
)

// CwacOrganisationGrantSpec gives users and groups read access to some
// organisations of the namespace's scans.
// +kubebuilder:validation:XValidation:rule="(has(self.organisations) && size(self.organisations) > 0) || (has(self.sectors) && size(self.sectors) > 0)",message="name at least one organisation or sector: a grant of neither gives nothing"
type CwacOrganisationGrantSpec struct {
	// subjects are who the grant is for.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Subjects []GrantSubject `json:"subjects"`

	// organisations are the organisations the subjects may read, named
	// exactly as the scans' results name them (the organisation column of
	// CWAC's base URLs and results, compared byte for byte).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=1000
	Organisations []string `json:"organisations,omitempty"`

	// sectors give every organisation of these sectors (the sector column
	// of CWAC's base URLs), present and future.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=1000
	Sectors []string `json:"sectors,omitempty"`

	// otherOrganisations says whether rankings (the leaderboard, a
	// sector's ranked scores) name the organisations this grant does not
	// cover: Hidden (the default) shows their places and scores without
	// names; Shown names them. Their pages, issues and files are never
	// shown either way. When several grants cover a user, one that says
	// Shown is enough.
	// +optional
	// +kubebuilder:default=Hidden
	OtherOrganisations OtherOrganisationNames `json:"otherOrganisations,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=cwacgrant,categories=all
// +kubebuilder:printcolumn:name="Organisations",type=string,JSONPath=`.spec.organisations`
// +kubebuilder:printcolumn:name="Sectors",type=string,JSONPath=`.spec.sectors`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// CwacOrganisationGrant gives users or groups read access to named
// organisations (or whole sectors) of the scans in its namespace, on the
// dashboard and through the MCP server, without read access to the
// namespace's CwacScans. Who may create or change grants is ordinary
// Kubernetes RBAC on cwacorganisationgrants.
type CwacOrganisationGrant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is who may read which organisations.
	// +required
	Spec CwacOrganisationGrantSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// CwacOrganisationGrantList contains a list of CwacOrganisationGrant.
type CwacOrganisationGrantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CwacOrganisationGrant `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &CwacOrganisationGrant{}, &CwacOrganisationGrantList{})
		return nil
	})
}

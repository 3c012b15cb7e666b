package websession

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ClaimMapping turns an ID token's claims into the Kubernetes user and
// groups the dashboard's SubjectAccessReviews name, exactly as
// kube-apiserver's --oidc-username-claim, --oidc-username-prefix,
// --oidc-groups-claim and --oidc-groups-prefix do, so that a user signed
// in here is reviewed against the same RBAC as with kubectl through the
// same provider.
type ClaimMapping struct {
	// Issuer is the provider's issuer URL: the default username prefix.
	Issuer string
	// UsernameClaim names the claim holding the username ("sub" when empty).
	UsernameClaim string
	// UsernamePrefix is put before every username. Empty: the issuer URL
	// and "#" for any claim but "email", which is not prefixed; "-": none.
	UsernamePrefix string
	// GroupsClaim names the claim holding the groups (a string or an array
	// of strings); empty: no groups.
	GroupsClaim string
	// GroupsPrefix is put before every group.
	GroupsPrefix string
}

// DefaultUsernameClaim is kube-apiserver's default --oidc-username-claim.
const DefaultUsernameClaim = "sub"

// noPrefix is the username prefix that means "none".
const noPrefix = "-"

// reservedPrefix starts Kubernetes' own users and groups
// (system:masters, system:serviceaccount:…): never taken from a provider.
const reservedPrefix = "system:"

// ErrClaims marks an ID token whose claims do not give a user.
var ErrClaims = errors.New("the ID token's claims do not name a user")

// Validate refuses a mapping kube-apiserver would refuse or that cannot
// work: a groups prefix without a groups claim.
func (m ClaimMapping) Validate() error {
	if m.GroupsPrefix != "" && m.GroupsClaim == "" {
		return errors.New("a groups prefix needs a groups claim")
	}
	if m.Issuer == "" {
		return errors.New("the claim mapping needs the issuer URL (the default username prefix)")
	}
	return nil
}

func (m ClaimMapping) usernameClaim() string {
	if m.UsernameClaim == "" {
		return DefaultUsernameClaim
	}
	return m.UsernameClaim
}

// EffectiveUsernamePrefix is the prefix put before usernames, after the
// defaults above.
func (m ClaimMapping) EffectiveUsernamePrefix() string {
	switch {
	case m.UsernamePrefix == noPrefix:
		return ""
	case m.UsernamePrefix == "" && m.usernameClaim() != "email":
		return m.Issuer + "#"
	}
	return m.UsernamePrefix
}

// Map gives the user and groups of an ID token's claims (each claim's
// JSON as the token holds it).
func (m ClaimMapping) Map(claims map[string]json.RawMessage) (user string, groups []string, err error) {
	claim := m.usernameClaim()
	raw, ok := claims[claim]
	if !ok {
		return "", nil, fmt.Errorf("%w: no %q claim", ErrClaims, claim)
	}
	if err := json.Unmarshal(raw, &user); err != nil {
		return "", nil, fmt.Errorf("%w: the %q claim is not a string", ErrClaims, claim)
	}
	if user == "" {
		return "", nil, fmt.Errorf("%w: the %q claim is empty", ErrClaims, claim)
	}
	if claim == "email" {
		// As kube-apiserver: when the provider says whether the address
		// was verified, it must say true.
		if raw, ok := claims["email_verified"]; ok {
			var verified bool
			if err := json.Unmarshal(raw, &verified); err != nil {
				return "", nil, fmt.Errorf("%w: the email_verified claim is not true or false", ErrClaims)
			}
			if !verified {
				return "", nil, fmt.Errorf("%w: the email address %s is not verified", ErrClaims, user)
			}
		}
	}
	user = m.EffectiveUsernamePrefix() + user
	if strings.HasPrefix(user, reservedPrefix) {
		return "", nil, fmt.Errorf("%w: the username %q is in Kubernetes' reserved system: prefix", ErrClaims, user)
	}
	if m.GroupsClaim == "" {
		return user, nil, nil
	}
	raw, ok = claims[m.GroupsClaim]
	if !ok {
		return user, nil, nil
	}
	groups, err = stringOrArray(raw)
	if err != nil {
		return "", nil, fmt.Errorf("%w: the %q claim is not a string or an array of strings", ErrClaims, m.GroupsClaim)
	}
	for i, g := range groups {
		groups[i] = m.GroupsPrefix + g
		if strings.HasPrefix(groups[i], reservedPrefix) {
			return "", nil, fmt.Errorf("%w: the group %q is in Kubernetes' reserved system: prefix", ErrClaims, groups[i])
		}
	}
	return user, groups, nil
}

// stringOrArray reads a claim that is one string or an array of them
// (kube-apiserver accepts a "role" claim that is a single string).
func stringOrArray(raw json.RawMessage) ([]string, error) {
	var many []string
	if err := json.Unmarshal(raw, &many); err == nil {
		return many, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, err
	}
	return []string{one}, nil
}

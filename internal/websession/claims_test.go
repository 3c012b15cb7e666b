package websession

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func claimsOf(t testing.TB, js string) map[string]json.RawMessage {
	t.Helper()
	var c map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClaimMapping: kube-apiserver's --oidc-* rules, one row each.
func TestClaimMapping(t *testing.T) {
	const iss = "https://idp.example"
	email := ClaimMapping{Issuer: iss, UsernameClaim: "email"}
	bare := ClaimMapping{Issuer: iss, UsernamePrefix: "-"}
	grp := ClaimMapping{Issuer: iss, UsernamePrefix: "-", GroupsClaim: "groups"}
	grpP := ClaimMapping{Issuer: iss, UsernamePrefix: "-", GroupsClaim: "groups", GroupsPrefix: "oidc:"}
	for _, tc := range []struct {
		name   string
		m      ClaimMapping
		claims string
		user   string
		groups []string
		errHas string
	}{
		{"sub prefixed with the issuer by default", ClaimMapping{Issuer: iss}, `{"sub":"123"}`, iss + "#123", nil, ""},
		{"email claim not prefixed by default", email, `{"email":"a@b.example"}`, "a@b.example", nil, ""},
		{"email verified", email, `{"email":"a@b.example","email_verified":true}`, "a@b.example", nil, ""},
		{"email not verified refused", email, `{"email":"a@b.example","email_verified":false}`, "", nil, "not verified"},
		{"email_verified not a boolean", email, `{"email":"a@b.example","email_verified":"yes"}`, "", nil, "not true or false"},
		{"verified: email only", ClaimMapping{Issuer: iss, UsernameClaim: "nick", UsernamePrefix: "-"}, `{"nick":"al","email_verified":false}`, "al", nil, ""},
		{"explicit prefix", ClaimMapping{Issuer: iss, UsernameClaim: "email", UsernamePrefix: "oidc:"}, `{"email":"a@b.example"}`, "oidc:a@b.example", nil, ""},
		{"dash means no prefix", bare, `{"sub":"123"}`, "123", nil, ""},
		{"missing username claim", email, `{"sub":"1"}`, "", nil, `no "email" claim`},
		{"username not a string", ClaimMapping{Issuer: iss}, `{"sub":123}`, "", nil, "not a string"},
		{"empty username", ClaimMapping{Issuer: iss}, `{"sub":""}`, "", nil, "is empty"},
		{"null username", ClaimMapping{Issuer: iss}, `{"sub":null}`, "", nil, "is empty"},
		{"groups array with prefix", grpP, `{"sub":"u","groups":["a","b"]}`, "u", []string{"oidc:a", "oidc:b"}, ""},
		{"groups single string", ClaimMapping{Issuer: iss, UsernamePrefix: "-", GroupsClaim: "role"}, `{"sub":"u","role":"admin"}`, "u", []string{"admin"}, ""},
		{"groups claim absent: no groups", grp, `{"sub":"u"}`, "u", nil, ""},
		{"groups not configured: ignored", bare, `{"sub":"u","groups":["a"]}`, "u", nil, ""},
		{"groups of numbers refused", grp, `{"sub":"u","groups":[1,2]}`, "", nil, "array of strings"},
		{"groups object refused", grp, `{"sub":"u","groups":{"a":1}}`, "", nil, "array of strings"},
		{"system user refused", bare, `{"sub":"system:admin"}`, "", nil, "reserved"},
		{"system prefix refused", ClaimMapping{Issuer: iss, UsernamePrefix: "system:"}, `{"sub":"x"}`, "", nil, "reserved"},
		{"system group refused", grp, `{"sub":"u","groups":["system:masters"]}`, "", nil, "reserved"},
		{"system group made safe by a prefix", grpP, `{"sub":"u","groups":["system:masters"]}`, "u", []string{"oidc:system:masters"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user, groups, err := tc.m.Map(claimsOf(t, tc.claims))
			if tc.errHas != "" {
				if !errors.Is(err, ErrClaims) || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want ErrClaims with %q", err, tc.errHas)
				}
				if user != "" || groups != nil {
					t.Errorf("a refused token gave %q %q", user, groups)
				}
				return
			}
			if err != nil || user != tc.user || !slices.Equal(groups, tc.groups) {
				t.Fatalf("got %q %q %v, want %q %q", user, groups, err, tc.user, tc.groups)
			}
		})
	}
}

func TestClaimMappingValidate(t *testing.T) {
	for _, tc := range []struct {
		m      ClaimMapping
		errHas string
	}{
		{ClaimMapping{Issuer: "https://i"}, ""},
		{ClaimMapping{Issuer: "https://i", GroupsClaim: "groups", GroupsPrefix: "oidc:"}, ""},
		{ClaimMapping{Issuer: "https://i", GroupsPrefix: "oidc:"}, "groups prefix needs a groups claim"},
		{ClaimMapping{}, "issuer"},
	} {
		err := tc.m.Validate()
		if (tc.errHas == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.errHas)) {
			t.Errorf("%+v: %v, want %q", tc.m, err, tc.errHas)
		}
	}
}

func FuzzClaimMapping(f *testing.F) {
	for _, s := range []string{`{"sub":"u","groups":["a"]}`, `{"email":"a@b","email_verified":true,"groups":"x"}`, `{"sub":null}`, `{}`} {
		f.Add(s)
	}
	m := ClaimMapping{Issuer: "https://i", UsernameClaim: "email", GroupsClaim: "groups", GroupsPrefix: "g:"}
	f.Fuzz(func(t *testing.T, js string) {
		var c map[string]json.RawMessage
		if json.Unmarshal([]byte(js), &c) != nil {
			return
		}
		user, groups, err := m.Map(c)
		if err != nil {
			if !errors.Is(err, ErrClaims) {
				t.Fatalf("error without ErrClaims: %v", err)
			}
			return
		}
		if user == "" || strings.HasPrefix(user, reservedPrefix) {
			t.Fatalf("user %q", user)
		}
		for _, g := range groups {
			if !strings.HasPrefix(g, "g:") {
				t.Fatalf("group %q without its prefix", g)
			}
		}
	})
}

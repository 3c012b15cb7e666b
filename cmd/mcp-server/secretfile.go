package main

import (
	"fmt"
	"os"
	"strings"
)

// readSecretFile reads a secret a flag names by file (mounted from a
// Secret, so that it is never on the command line): its text without
// surrounding white space, which may not be empty. Errors name the flag,
// never the secret.
func readSecretFile(flagName, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading --%s: %w", flagName, err)
	}
	v := strings.TrimSpace(string(data))
	if v == "" {
		return "", fmt.Errorf("--%s is empty", flagName)
	}
	return v, nil
}

//go:build !race

package mcpserver

// raceDetector says the test binary was built with -race (see race_on_test.go).
const raceDetector = false

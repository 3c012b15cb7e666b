//go:build race

package mcpserver

// raceDetector says the test binary was built with -race, which multiplies
// memory: the tests that bound memory run in hack/test.sh's pass without it.
const raceDetector = true

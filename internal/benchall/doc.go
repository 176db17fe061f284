// Package benchall exists only for benchmarks: its test file measures the
// executor with every built-in extension enabled against the plain baseline
// of executor.BenchmarkCore (decode + validate + direct call + encode), in
// one run:
//
//	go test -run '^$' -bench BenchmarkAllExtensions -benchtime 2s -count 5 ./internal/benchall/
//
// It lives in its own package so that package extension never imports its
// children, and so that no production package depends on every extension at
// once. It has no API.
package benchall

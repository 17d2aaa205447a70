// Package gobench runs the Go benchmarks of the sidecar's hot paths (go test
// -bench over Packages, from the repository root) and reads their time,
// bytes and allocations per operation, and whatever each reports itself,
// as a median over -count runs; a benchmark or package that fails is
// reported along with the others' figures.
package gobench

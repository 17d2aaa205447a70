// logcheck (sigs.k8s.io/logtools), the structured and contextual logging
// linter that hack/verify-logcheck.sh runs over the sidecar's packages in
// make verify, is the tool at the end; the require line of
// sigs.k8s.io/logtools pins its version. golang.org/x/tools is raised above
// the v0.26.0 that logcheck asks for: logcheck built with that one, run by
// Go 1.26's go vet, prints "{}" for each package and reports nothing. It is
// kept apart from the sidecar's go.mod (and from hack/codegen) so neither
// dependency graph sees the other.
module github.com/csi-protect/external-provisioner/hack/lint

go 1.26.0

require (
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	sigs.k8s.io/logtools v0.11.0 // indirect
)

tool sigs.k8s.io/logtools/logcheck

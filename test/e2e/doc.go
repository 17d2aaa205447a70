// Package e2e holds the end-to-end tests of csi-provisioner: the real
// sidecar and mock driver binaries, talking over a unix socket, against a
// real etcd, kube-apiserver and kube-controller-manager (PV binder) started
// by the framework package. The tests carry the e2e build tag so that
// `make test` leaves them out; run them with `make e2e`, which builds the
// binaries and the control plane first, or directly:
//
//	go test -tags e2e -count=1 ./test/e2e/
//
// Each test starts its own stack (a few seconds) and runs the sidecar under
// the shipped RBAC, so every test also shows that the RBAC suffices. A failed
// test prints the end of every component's log and keeps its work dir (logs,
// driver state, kubeconfigs) under the temporary directory; set
// E2E_KEEP_WORK_DIR=1 to keep it for passing tests too.
//
// TestNodeDeploymentScaleFigures, which measures 300 Immediate claims with
// three node sidecars and with a central one, takes minutes and runs only
// with E2E_NODE_DEPLOYMENT_SCALE=1 (E2E_NODE_DEPLOYMENT_SCALE_CLAIMS=N
// changes the number of claims).
package e2e

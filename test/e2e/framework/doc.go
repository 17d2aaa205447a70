// Package framework runs csi-provisioner end to end on one machine without
// containers: a real etcd, kube-apiserver and kube-controller-manager on
// loopback (built by `make e2e-tools`), and plain processes for the mock CSI
// driver and the sidecar.
//
// The pieces are independent so a test can take only what it needs:
//
//   - StartCluster starts the control plane and returns a Cluster with an admin
//     client and kubeconfig. Cluster.Stop tears it down and waits until every
//     process has exited.
//   - StartProcess runs any program with its output in a log file and can
//     stop (SIGTERM), kill (SIGKILL) and restart it, which is how tests crash
//     the driver or the sidecar on purpose.
//   - Cluster.InstallRBAC applies deploy/kubernetes/rbac.yaml and writes a
//     kubeconfig for its ServiceAccount, so the sidecar runs with the
//     permissions it ships with rather than as cluster admin.
//   - StartStack puts it all together: the cluster, the mock driver (with
//     faults if asked) on a unix socket, and one or more sidecars under the
//     shipped RBAC (or as admin), with or without leader election. The
//     e2e tests, `make demo` and `make local-up` all start through it.
//   - StackOptions.Nodes makes the stack distributed: per node a Node and
//     CSINode object, its own mock driver (NodeDriver, NodeDriverState) and
//     its own sidecar with --node-deployment and NODE_NAME (NodeSidecar,
//     StartNodeSidecar, KillNodeSidecar, RestartNodeSidecar).
//     Cluster.CreateNodes and DeleteNode register fake nodes for a central
//     sidecar too.
//   - SidecarOptions.Workload gives each sidecar a Pod object owned by a
//     DaemonSet, StatefulSet or Deployment (CreateWorkload) and passes
//     POD_NAME and NAMESPACE, for the owner of CSIStorageCapacity objects;
//     ListCapacities, WaitForCapacities and IndexCapacities read those.
//   - ReadDriverCalls counts what a mock driver served from its log, the
//     only record of its calls another process can read.
//   - ScrapeMetric and MetricValue read a metric from a /metrics endpoint
//     or a scrape with the Prometheus exposition format parser; a metric
//     that is missing is an error, never zero.
//
// Processes are started in their own process group and receive SIGKILL if
// the process that started them dies, so an interrupted `go test` leaves no
// control plane behind.
package framework

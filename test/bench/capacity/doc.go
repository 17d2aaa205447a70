// Package capacity measures storage capacity tracking (--enable-capacity)
// where it fails in the field (topolvm issue #1201): thousands of nodes
// whose free space moves, published through the capacity client's default
// budget of 1 QPS with a burst of 5. Each run, on a fresh stack of one
// configuration, registers Node and CSINode objects (no kubelets) and two
// WaitForFirstConsumer classes of the mock driver, whose pools have a size
// per node, and then runs the sidecar through four phases:
//
//   - convergence: at 100 QPS, the time until every CSIStorageCapacity
//     object exists with the driver's answer, against the bound the QPS
//     sets (objects to write / QPS);
//   - churn: still at 100 QPS, nodes leaving and as many joining at once,
//     the time until the objects follow, against the same bound;
//   - quiet: a new sidecar at the default budget on a cluster where
//     nothing moves: its writes during its start-up pass and one poll,
//     which should be none;
//   - moving: the driver's capacity moves for a share of the segments
//     every poll interval (mockdriver.Moving), and a new sidecar at the
//     default budget publishes it for several poll intervals. Sampled over
//     time: the capacity backlog (workqueue_depth of queue
//     csistoragecapacity, the same name in upstream's sidecar and ours,
//     plus ours' pending writes, which wait outside the queue), the
//     relative error of every published capacity against the driver's
//     current answer (mockdriver.MovingCapacity, computed here without
//     asking the driver), and how long an object stays on the other side
//     of its class's largest request than the driver's answer; from the
//     kube-apiserver audit log, the writes per poll interval.
//
// The sidecar's peak RSS (VmHWM) is read before each process stops.
// Configurations (ours, and an upstream release as the baseline) run
// interleaved, each run on its own stack.
package capacity

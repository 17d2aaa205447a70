package provisionstate

import v1 "k8s.io/api/core/v1"

// AnnSelectedNode is the node the scheduler (or, for Immediate binding
// with --node-deployment, a node's sidecar) chose for a claim.
const AnnSelectedNode = "volume.kubernetes.io/selected-node"

// ProvisioningNode is the node whose driver may hold a volume for claim
// when sidecars run one per node: the node recorded with the
// provisioning-protection finalizer, else the selected node. Empty when
// no node was ever chosen.
func ProvisioningNode(claim *v1.PersistentVolumeClaim) string {
	if node := claim.Annotations[AnnProvisioningNode]; node != "" {
		return node
	}
	return claim.Annotations[AnnSelectedNode]
}

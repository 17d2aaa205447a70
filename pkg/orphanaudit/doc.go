// Package orphanaudit is the orphan audit (--orphan-audit-interval): it
// compares the volumes a driver lists (ListVolumes) with the PVs of that
// driver and the volumes recorded on claims deleted during provisioning,
// and reports each volume that nothing has accounted for during a grace
// period, as a log line with its handle and a metric. It never deletes:
// a volume nothing accounts for may be a leak, or a volume made outside
// Kubernetes on purpose; an operator decides.
package orphanaudit

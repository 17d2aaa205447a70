// Package claimdeletion measures PVC protection: how fast the sidecar's
// controller (the PVCProtection gate) lets unused claims go, against
// kube-controller-manager's, one of them running at a time. Each run, on a
// fresh stack, deletes a batch of unused claims at once in a namespace of
// many scheduled pods, and then single claims one after another in a quiet
// namespace; it measures the time until the claims left the API and, from
// the audit log and kube-apiserver's metrics, the pod LISTs and watches the
// controller made and the bytes those LISTs read.
package claimdeletion

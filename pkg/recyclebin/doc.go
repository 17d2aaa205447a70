// Package recyclebin decides what happens to a released volume when a
// retention time applies: a PV whose claim was deleted, with reclaim policy
// Delete, is kept for that time instead of having DeleteVolume called, and
// can be given back to a new claim on an explicit request.
//
// Everything the bin knows lives on the PV, so that a restart or a new
// leader decides the same: the time the volume may be deleted and the claim
// it came from are recorded in one write when the PV is released, and a
// restore request or a purge is an annotation a user writes. The retention
// in force at release is the one that counts: a later change of the flag or
// of the StorageClass moves no recorded deadline.
//
// This package holds the decisions only (Policy, Decide, Record, Fits); the
// controller that writes them and the provisioner's deletion hold use it.
package recyclebin

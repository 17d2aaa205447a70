package claimdeletion

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// RunResult is one run's figures.
type RunResult struct {
	Controller string `json:"controller"`
	Run        int    `json:"run"`
	// Duration is from the first delete call until every claim was gone.
	Duration time.Duration `json:"duration"`
	// PodLists and PodListBytes are the pod LIST requests of the
	// controller's client during the deletions and the bytes the API
	// server sent for all pod LISTs (kube-apiserver's
	// apiserver_response_sizes).
	PodLists     int     `json:"podLists"`
	PodListBytes float64 `json:"podListBytes"`
	// PodWatches are the short pod watches of the controller's client.
	PodWatches int `json:"podWatches"`
	// ClaimWrites are the controller client's writes to claims.
	ClaimWrites int `json:"claimWrites"`
	Left        int `json:"left"`
	// Quiet are the times of the single deletions in the quiet namespace,
	// from the delete call until the claim left the API.
	Quiet    []time.Duration `json:"quiet,omitempty"`
	Problems []string        `json:"problems,omitempty"`
}

// Report is the whole PVC protection benchmark.
type Report struct {
	Options Options `json:"-"`
	bench.Header
	Runs []*RunResult `json:"runs"`
}

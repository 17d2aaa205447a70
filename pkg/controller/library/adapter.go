package library

import (
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"
)

// Options are what an Adapter reads.
type Options struct {
	// Client is the API client the library is given; the delete guard
	// reads a PV through it (AlreadyDeleted).
	Client kubernetes.Interface
	// Claims finds a claim handed back to the library (RequeueClaim).
	Claims corelisters.PersistentVolumeClaimLister
	// Nodes is where the library's lookup of a claim's selected node reads
	// (NodesLister); nil when nothing reads the nodes' topology.
	Nodes corelisters.NodeLister
	// Clock times the notes of waits; nil is the real clock.
	Clock clock.PassiveClock
}

// Adapter is the one place where the project meets library v10: it hands
// the library its client, informers and node lister, and the provisioner
// tells it what the library cannot know (a failure that is a wait, a
// finalizer write, a volume deleted). One Adapter serves one provisioner
// and one library controller.
type Adapter struct {
	opts Options
	// deleted are the PVs whose volume was deleted (delete_guard.go).
	deleted *deletedVolumes
	// writes serve the library's reschedule (reschedule.go).
	writes *finalizerWrites
	// waits note the failures that are waits, for the library's events
	// of them (events.go).
	waits *waitNotes
	// claimHandlers and volumeHandlers are the library's, kept to hand it
	// a claim or a PV again (informers.go).
	claimHandlers  *libraryHandlers
	volumeHandlers *libraryHandlers
}

// New returns an Adapter reading opts.
func New(opts Options) *Adapter {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Adapter{
		opts:           opts,
		deleted:        newDeletedVolumes(deletedVolumesKept),
		writes:         newFinalizerWrites(),
		waits:          newWaitNotes(opts.Clock, noteKept, notesKept),
		claimHandlers:  &libraryHandlers{},
		volumeHandlers: &libraryHandlers{},
	}
}

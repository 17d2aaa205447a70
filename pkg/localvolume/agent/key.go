package agent

import "k8s.io/klog/v2"

// KindPersistentVolume is the Kind of the Key of a PV.
const KindPersistentVolume = "PersistentVolume"

// Key is the queue key of the agent: an owner (Kind KindLocalVolume or
// KindLocalVolumeSet, with its namespace and name), whose devices are
// discovered, or a PV of this node (Kind KindPersistentVolume and its
// name), which is cleaned or let go.
type Key struct {
	Kind      string
	Namespace string
	Name      string
}

func ownerKey(kind, namespace, name string) Key {
	return Key{Kind: kind, Namespace: namespace, Name: name}
}

func volumeKey(name string) Key { return Key{Kind: KindPersistentVolume, Name: name} }

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind + " " + k.Name
	}
	return k.Kind + " " + k.Namespace + "/" + k.Name
}

// logValues name the key in the logger of its sync: "PV" for a PV, the
// kind for an owner.
func (k Key) logValues() []any {
	if k.Kind == KindPersistentVolume {
		return []any{"PV", klog.KRef("", k.Name)}
	}
	return []any{k.Kind, klog.KRef(k.Namespace, k.Name)}
}

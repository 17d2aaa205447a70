package mockdriver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	// stateVersion is bumped whenever the file layout changes in a way an
	// older driver would misread or silently drop, so that driver refuses a
	// newer file instead. Version 2 added snapshots and data ids, which a
	// version 1 driver would lose on its next write.
	stateVersion = 2
	// oldestStateVersion is the oldest layout loadState still reads; see
	// upgrade.
	oldestStateVersion = 1
	// maxDeletions bounds the deletion log so a long demo does not grow the
	// state file without limit.
	maxDeletions = 1000
)

// Access types recorded in Volume.AccessType and Publication.AccessType.
const (
	AccessTypeMount = "mount"
	AccessTypeBlock = "block"
)

// Volume is one provisioned volume as the driver stores it.
type Volume struct {
	Name          string            `json:"name"`
	ID            string            `json:"id"`
	CapacityBytes int64             `json:"capacityBytes"`
	Parameters    map[string]string `json:"parameters,omitempty"`
	// MutableParameters are CreateVolume's mutable_parameters, replaced by
	// each ControllerModifyVolume.
	MutableParameters map[string]string `json:"mutableParameters,omitempty"`
	// SourceVolumeID is set when the volume was cloned from another one,
	// SourceSnapshotID when it was restored from a snapshot.
	SourceVolumeID   string `json:"sourceVolumeID,omitempty"`
	SourceSnapshotID string `json:"sourceSnapshotID,omitempty"`
	// DataID stands for the volume's data: new for an empty volume, the
	// source's for a clone, the snapshot's for a restore. Tests compare it
	// to see whose data a volume holds.
	DataID string `json:"dataID"`
	// AccessType is AccessTypeMount or AccessTypeBlock.
	AccessType string `json:"accessType"`
	// AccessModes are the CSI access modes of the capabilities CreateVolume
	// asked for, in order, e.g. SINGLE_NODE_WRITER.
	AccessModes        []string            `json:"accessModes,omitempty"`
	AccessibleTopology []map[string]string `json:"accessibleTopology,omitempty"`
	// SecretKeys are the names of the secrets CreateVolume received. Values
	// are never stored.
	SecretKeys []string `json:"secretKeys,omitempty"`
	// Seq orders volumes by creation; ListVolumes pages by it so volumes
	// created while a client pages through the list never cause duplicates.
	Seq uint64 `json:"seq"`
}

func (v Volume) clone() Volume {
	v.Parameters = maps.Clone(v.Parameters)
	v.MutableParameters = maps.Clone(v.MutableParameters)
	v.SecretKeys = slices.Clone(v.SecretKeys)
	v.AccessModes = slices.Clone(v.AccessModes)
	if v.AccessibleTopology != nil {
		topo := make([]map[string]string, len(v.AccessibleTopology))
		for i, t := range v.AccessibleTopology {
			topo[i] = maps.Clone(t)
		}
		v.AccessibleTopology = topo
	}
	return v
}

// Publication records one NodePublishVolume that has not been undone.
type Publication struct {
	VolumeID   string `json:"volumeID"`
	TargetPath string `json:"targetPath"`
	AccessType string `json:"accessType"`
	// AccessMode is the CSI access mode name, e.g. SINGLE_NODE_WRITER.
	AccessMode string   `json:"accessMode"`
	Readonly   bool     `json:"readonly"`
	SecretKeys []string `json:"secretKeys,omitempty"`
}

func (p Publication) clone() Publication {
	p.SecretKeys = slices.Clone(p.SecretKeys)
	return p
}

// Deletion records a DeleteVolume that removed a volume.
type Deletion struct {
	VolumeID   string   `json:"volumeID"`
	Name       string   `json:"name"`
	SecretKeys []string `json:"secretKeys,omitempty"`
}

func (d Deletion) clone() Deletion {
	d.SecretKeys = slices.Clone(d.SecretKeys)
	return d
}

// state is everything the driver persists. Volumes and snapshots are kept
// sorted by Seq, which both draw from NextSeq.
type state struct {
	Version      int           `json:"version"`
	NextSeq      uint64        `json:"nextSeq"`
	Volumes      []Volume      `json:"volumes"`
	Publications []Publication `json:"publications"`
	Deletions    []Deletion    `json:"deletions"`
	// Snapshots came with version 2; older files have none.
	Snapshots []Snapshot `json:"snapshots"`
}

func newState() *state {
	return &state{Version: stateVersion, NextSeq: 1, Volumes: []Volume{}, Publications: []Publication{}, Deletions: []Deletion{}, Snapshots: []Snapshot{}}
}

func (s *state) clone() *state {
	return &state{
		Version:      s.Version,
		NextSeq:      s.NextSeq,
		Volumes:      cloneAll(s.Volumes),
		Publications: cloneAll(s.Publications),
		Deletions:    cloneAll(s.Deletions),
		Snapshots:    cloneAll(s.Snapshots),
	}
}

// cloneAll returns a deep copy of items, which share no memory with it.
func cloneAll[T interface{ clone() T }](items []T) []T {
	out := make([]T, len(items))
	for i, item := range items {
		out[i] = item.clone()
	}
	return out
}

// find returns the first of items that match accepts, to change in place;
// nil if there is none.
func find[T any](items []T, match func(T) bool) *T {
	if i := slices.IndexFunc(items, match); i >= 0 {
		return &items[i]
	}
	return nil
}

// takeSeq returns the next sequence number, which volumes and snapshots
// share.
func (s *state) takeSeq() uint64 {
	s.NextSeq++
	return s.NextSeq - 1
}

func (s *state) volumeByName(name string) *Volume {
	return find(s.Volumes, func(v Volume) bool { return v.Name == name })
}

func (s *state) volumeByID(id string) *Volume {
	return find(s.Volumes, func(v Volume) bool { return v.ID == id })
}

func (s *state) publicationsOf(volumeID string) []Publication {
	var out []Publication
	for _, p := range s.Publications {
		if p.VolumeID == volumeID {
			out = append(out, p)
		}
	}
	return out
}

func (s *state) addVolume(v Volume) {
	v.Seq = s.takeSeq()
	s.Volumes = append(s.Volumes, v)
}

func (s *state) removeVolume(id string) {
	s.Volumes = slices.DeleteFunc(s.Volumes, func(v Volume) bool { return v.ID == id })
}

func (s *state) recordDeletion(del Deletion) {
	s.Deletions = append(s.Deletions, del)
	if extra := len(s.Deletions) - maxDeletions; extra > 0 {
		s.Deletions = slices.Delete(s.Deletions, 0, extra)
	}
}

func (s *state) removePublication(volumeID, targetPath string) {
	s.Publications = slices.DeleteFunc(s.Publications, func(p Publication) bool {
		return p.VolumeID == volumeID && p.TargetPath == targetPath
	})
}

// validate rejects files whose content cannot have been written by the
// driver, so corruption is reported instead of half-loaded.
func (s *state) validate() error {
	if s.Version < oldestStateVersion || s.Version > stateVersion {
		return fmt.Errorf("unsupported version %d (want %d to %d)", s.Version, oldestStateVersion, stateVersion)
	}
	if s.NextSeq == 0 {
		return errors.New("nextSeq must be positive")
	}
	// Version 1 knew neither snapshots nor data ids.
	withDataIDs := s.Version >= 2
	if !withDataIDs && len(s.Snapshots) > 0 {
		return fmt.Errorf("version %d cannot hold snapshots", s.Version)
	}
	ids := map[string]bool{}
	names := map[string]bool{}
	seqs := map[uint64]bool{}
	for i, v := range s.Volumes {
		switch {
		case v.ID == "" || v.Name == "":
			return fmt.Errorf("volume %d has an empty id or name", i)
		case ids[v.ID]:
			return fmt.Errorf("volume id %q appears twice", v.ID)
		case names[v.Name]:
			return fmt.Errorf("volume name %q appears twice", v.Name)
		case v.Seq == 0 || v.Seq >= s.NextSeq || seqs[v.Seq]:
			return fmt.Errorf("volume %q has invalid sequence number %d", v.ID, v.Seq)
		case v.AccessType != AccessTypeMount && v.AccessType != AccessTypeBlock:
			return fmt.Errorf("volume %q has unknown access type %q", v.ID, v.AccessType)
		case v.CapacityBytes < 0:
			return fmt.Errorf("volume %q has negative capacity", v.ID)
		case v.SourceVolumeID != "" && v.SourceSnapshotID != "":
			return fmt.Errorf("volume %q has both a source volume and a source snapshot", v.ID)
		case withDataIDs && v.DataID == "":
			return fmt.Errorf("volume %q has no data id", v.ID)
		}
		ids[v.ID], names[v.Name], seqs[v.Seq] = true, true, true
	}
	for i, p := range s.Publications {
		if p.VolumeID == "" || p.TargetPath == "" {
			return fmt.Errorf("publication %d has an empty volume id or target path", i)
		}
	}
	return s.validateSnapshots(seqs)
}

// upgrade brings a validated state of an older version to stateVersion.
// Version 1 volumes get a data id derived from their volume id rather than
// a random one, so reading the same old file twice gives the same ids; a
// clone whose source still exists shares the source's, as it would have
// from the start. Volumes must be sorted by Seq, so sources come first.
func (s *state) upgrade() {
	if s.Version < 2 {
		dataIDs := map[string]string{}
		for i := range s.Volumes {
			v := &s.Volumes[i]
			if id, ok := dataIDs[v.SourceVolumeID]; ok {
				v.DataID = id
			} else {
				v.DataID = "data-" + strings.TrimPrefix(v.ID, "mock-")
			}
			dataIDs[v.ID] = v.DataID
		}
	}
	s.Version = stateVersion
}

// loadState reads path. A missing file is an empty state; anything else
// that cannot be read or parsed is an error.
func loadState(path string) (*state, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading state file: %w", err)
	}
	st := &state{}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("state file %s is corrupt: %w", path, err)
	}
	if err := st.validate(); err != nil {
		return nil, fmt.Errorf("state file %s is corrupt: %w", path, err)
	}
	sort.Slice(st.Volumes, func(i, j int) bool { return st.Volumes[i].Seq < st.Volumes[j].Seq })
	st.upgrade()
	if st.Publications == nil {
		st.Publications = []Publication{}
	}
	if st.Deletions == nil {
		st.Deletions = []Deletion{}
	}
	if st.Snapshots == nil {
		st.Snapshots = []Snapshot{}
	}
	sort.Slice(st.Snapshots, func(i, j int) bool { return st.Snapshots[i].Seq < st.Snapshots[j].Seq })
	return st, nil
}

// ReadVolumes returns the volumes stored in a driver's state file, for
// processes that inspect a driver they do not run. A missing file holds no
// volumes.
func ReadVolumes(path string) ([]Volume, error) {
	st, err := loadState(path)
	if err != nil {
		return nil, err
	}
	return st.Volumes, nil
}

// saveLocked writes the state file if one is configured. d.mu must be held.
func (d *Driver) saveLocked() error {
	if d.stateFile == "" {
		return nil
	}
	data, err := json.MarshalIndent(d.state, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding state: %w", err)
	}
	return writeFileAtomic(d.stateFile, append(data, '\n'))
}

// mutateLocked applies change and persists the result. If persisting fails
// the previous state is restored, so memory never holds a change the file
// lacks. d.mu must be held.
func (d *Driver) mutateLocked(change func(*state)) error {
	previous := d.state.clone()
	change(d.state)
	if err := d.saveLocked(); err != nil {
		d.state = previous
		return status.Errorf(codes.Internal, "persisting state: %v", err)
	}
	return nil
}

// writeFileAtomic replaces path with data so that readers, and a driver
// restarted after a crash, see either the old or the new content, never a
// partial write.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating state directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("creating temporary state file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("writing temporary state file: %w", err)
	}
	// Readable by other processes that count volumes.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("setting state file mode: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("syncing temporary state file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing temporary state file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing state file: %w", err)
	}
	// The rename only survives a machine crash once the directory is synced.
	if dirFile, err := os.Open(dir); err == nil {
		_ = dirFile.Sync()
		_ = dirFile.Close()
	}
	return nil
}

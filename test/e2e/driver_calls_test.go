//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// driverRequestVerbosity is the mock driver's -v at which it logs every
// request it receives. Tests that must act while a CreateVolume is inside
// the driver run it at this level.
const driverRequestVerbosity = 5

// volumeNameRE finds a volume name made of the default prefix and a claim
// UID, which is how CreateVolume requests name their volume.
var volumeNameRE = regexp.MustCompile(`pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// createVolumeLog is what the driver's log says about CreateVolume, per
// volume name: the requests it received, and the calls its backend carried
// out. With --create-outlives-caller a call whose caller went away is still
// carried out later, so a name with more requests than outcomes has a
// CreateVolume still running in the backend, whoever sent it.
type createVolumeLog struct {
	received map[string]int
	// finished counts "Created volume" and "Volume already exists", the
	// two ends of a valid request; the requests of these tests are valid.
	finished map[string]int
	// created counts "Created volume" alone: how often the backend made a
	// new volume of that name.
	created map[string]int
}

// readCreateVolumeLog parses the driver's log, which must be written at
// driverRequestVerbosity.
func readCreateVolumeLog(s *framework.Stack) (createVolumeLog, error) {
	l := createVolumeLog{received: map[string]int{}, finished: map[string]int{}, created: map[string]int{}}
	data, err := os.ReadFile(s.Driver().LogFile())
	if err != nil {
		return l, fmt.Errorf("read driver log: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, `method="CreateVolume"`) {
			continue
		}
		name := volumeNameRE.FindString(line)
		if name == "" {
			continue
		}
		switch {
		case strings.Contains(line, `"Request"`):
			l.received[name]++
		case strings.Contains(line, `"Created volume"`):
			l.finished[name]++
			l.created[name]++
		case strings.Contains(line, `"Volume already exists"`):
			l.finished[name]++
		case strings.Contains(line, `"Call failed"`) && strings.Contains(line, `code="Aborted"`):
			// Refused at once: another call for the name was running.
			l.finished[name]++
		}
	}
	return l, nil
}

// deleteVolumeLog is what the driver's log says about DeleteVolume, per
// volume name. A request names a volume by its handle; the log's
// CreateVolume outcomes tell which name each handle has.
type deleteVolumeLog struct {
	received map[string]int
	// deleted counts "Deleted volume": how often a request removed the
	// volume, which the driver logs once the backend no longer has it.
	deleted map[string]int
}

var (
	// volumeIDRE finds the handle in a CreateVolume outcome line.
	volumeIDRE = regexp.MustCompile(`volumeID="([^"]+)"`)
	// deleteRequestRE finds the handle in a DeleteVolume request line,
	// where the request is JSON quoted once more.
	deleteRequestRE = regexp.MustCompile(`\\"volume_id\\":\\"([^\\"]+)\\"`)
)

// readDeleteVolumeLog parses the driver's log, which must be written at
// driverRequestVerbosity.
func readDeleteVolumeLog(s *framework.Stack) (deleteVolumeLog, error) {
	l := deleteVolumeLog{received: map[string]int{}, deleted: map[string]int{}}
	data, err := os.ReadFile(s.Driver().LogFile())
	if err != nil {
		return l, fmt.Errorf("read driver log: %w", err)
	}
	nameOf := map[string]string{}
	requests := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(line, `method="CreateVolume"`) && (strings.Contains(line, `"Created volume"`) || strings.Contains(line, `"Volume already exists"`)):
			if m := volumeIDRE.FindStringSubmatch(line); m != nil {
				nameOf[m[1]] = volumeNameRE.FindString(line)
			}
		case !strings.Contains(line, `method="DeleteVolume"`):
		case strings.Contains(line, `"Request"`):
			if m := deleteRequestRE.FindStringSubmatch(line); m != nil {
				requests[m[1]]++
			}
		case strings.Contains(line, `"Deleted volume"`):
			if name := volumeNameRE.FindString(line); name != "" {
				l.deleted[name]++
			}
		}
	}
	for handle, n := range requests {
		if name := nameOf[handle]; name != "" {
			l.received[name] += n
		}
	}
	return l, nil
}

// running lists the names with a CreateVolume still running in the backend.
func (l createVolumeLog) running() []string {
	var names []string
	for name, n := range l.received {
		if n > l.finished[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// waitForCreateVolumeReceived waits until the driver has received a
// CreateVolume for the volume name.
func waitForCreateVolumeReceived(ctx context.Context, t *testing.T, s *framework.Stack, volume string) {
	t.Helper()
	waitFor(ctx, t, s, "the driver to receive CreateVolume for "+volume, func(context.Context) (bool, error) {
		l, err := readCreateVolumeLog(s)
		if err != nil {
			return false, err
		}
		return l.received[volume] > 0, fmt.Errorf("no request for %s in the driver log yet", volume)
	})
}

// waitForBackendIdle waits until no CreateVolume runs in the driver's
// backend any more, so that its volumes are final: what is there now stays
// unless someone deletes it.
func waitForBackendIdle(ctx context.Context, t *testing.T, s *framework.Stack) {
	t.Helper()
	waitFor(ctx, t, s, "the driver's backend to finish every CreateVolume", func(context.Context) (bool, error) {
		l, err := readCreateVolumeLog(s)
		if err != nil {
			return false, err
		}
		running := l.running()
		return len(running) == 0, fmt.Errorf("still creating %v", running)
	})
}

// backendVolumeIDs returns, per volume name, the ids of every volume the
// driver made under that name: those it holds and those it deleted. More
// than one id means two distinct backend volumes were made for one claim,
// which no retry, restart or undo may cause: a retry by name must find the
// volume the first call made.
func backendVolumeIDs(st *framework.DriverState) map[string]map[string]bool {
	ids := map[string]map[string]bool{}
	add := func(name, id string) {
		if ids[name] == nil {
			ids[name] = map[string]bool{}
		}
		ids[name][id] = true
	}
	for _, v := range st.Volumes {
		add(v.Name, v.ID)
	}
	for _, d := range st.Deletions {
		add(d.Name, d.VolumeID)
	}
	return ids
}

// wasDeleted reports whether the driver deleted a volume of the name.
func wasDeleted(st *framework.DriverState, name string) bool {
	for _, d := range st.Deletions {
		if d.Name == name {
			return true
		}
	}
	return false
}

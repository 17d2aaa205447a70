// Package devices is the node-side device layer of the local-volume feature:
// it finds block devices on a node (lsblk, blkid), decides which of them may
// be used (Select, with a reason for every refusal), gives them stable names
// (/dev/disk/by-id), maintains the <root>/<storageClass>/<name> symlinks that
// local PVs point at, and wipes a device when its PV is released.
//
// Everything that touches the host goes through small interfaces: Runner for
// commands, FS for the filesystem, ExclusiveOpener for the O_EXCL probe,
// Prober for blkid and Wiper for the wipe. The agent uses the OS
// implementations (ExecRunner, OSFS, OSExclusiveOpener, BlkidProber,
// WipefsWiper); its tests use RootedFS over a fake /dev, /sys and /proc tree
// in a temporary directory, and fake commands, so no test ever opens a real
// disk or needs root.
//
// The package fails closed: when a safety fact cannot be established (blkid
// fails, mountinfo cannot be read, an O_EXCL open fails with an unexpected
// error) the device is refused, never assumed free.
//
// What this package does not do: it keeps no state. Which devices already
// back a PV, and whether a device was already wiped after a restart, are the
// agent's bookkeeping.
package devices
